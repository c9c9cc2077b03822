"""The records of consumer-protocol groups in `__consumer_offsets`, in Kafka 4.4's formats,
so Apache's `kafka-dump-log --offsets-decoder` and a Kafka broker read them.

Key versions (the int16 in front of the key, Kafka 4.x's record type, named in
coordinator/record_types.py): 3
ConsumerGroupMetadata (group epoch), 4 ConsumerGroupPartitionMetadata (only tombstoned:
Kafka 4.x keeps a metadata hash in the group record instead), 5
ConsumerGroupMemberMetadata, 6 ConsumerGroupTargetAssignmentMetadata (assignment
epoch), 7 ConsumerGroupTargetAssignmentMember, 8 ConsumerGroupCurrentMemberAssignment,
16 ConsumerGroupRegularExpression. Values are version 0 (flexible). A value of None is
a tombstone.

Who calls it: ConsumerGroupCoordinator (writes, replay on load). Nothing else.
"""
from __future__ import annotations

from typing import Iterable

from kafpy.protocol import messages

from kafpy.coordinator.group.consumer.group import (
    Assignment, ConsumerGroupMember, MemberState, ResolvedRegex)
from kafpy.coordinator.group.modern_records import assignment as _assignment, decode, encode_key
from kafpy.coordinator.record_types import CONSUMER_GROUP_RECORDS, GroupRecordType
from kafpy.coordinator.group.modern_records import encode_value as _value, topic_partitions as _partitions

GROUP_METADATA, PARTITION_METADATA = GroupRecordType.CONSUMER_GROUP_METADATA, GroupRecordType.CONSUMER_GROUP_PARTITION_METADATA
MEMBER_METADATA, TARGET_METADATA = GroupRecordType.CONSUMER_GROUP_MEMBER_METADATA, GroupRecordType.CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA
TARGET_MEMBER, CURRENT_ASSIGNMENT = GroupRecordType.CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER, GroupRecordType.CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT
REGULAR_EXPRESSION = GroupRecordType.CONSUMER_GROUP_REGULAR_EXPRESSION
CONSUMER_KEY_VERSIONS = CONSUMER_GROUP_RECORDS

_KEYS: dict[int, type] = {
    GROUP_METADATA: messages.ConsumerGroupMetadataKey,
    PARTITION_METADATA: messages.ConsumerGroupPartitionMetadataKey,
    MEMBER_METADATA: messages.ConsumerGroupMemberMetadataKey,
    TARGET_METADATA: messages.ConsumerGroupTargetAssignmentMetadataKey,
    TARGET_MEMBER: messages.ConsumerGroupTargetAssignmentMemberKey,
    CURRENT_ASSIGNMENT: messages.ConsumerGroupCurrentMemberAssignmentKey,
    REGULAR_EXPRESSION: messages.ConsumerGroupRegularExpressionKey,
}
_VALUES: dict[int, type] = {
    GROUP_METADATA: messages.ConsumerGroupMetadataValue,
    PARTITION_METADATA: messages.ConsumerGroupPartitionMetadataValue,
    MEMBER_METADATA: messages.ConsumerGroupMemberMetadataValue,
    TARGET_METADATA: messages.ConsumerGroupTargetAssignmentMetadataValue,
    TARGET_MEMBER: messages.ConsumerGroupTargetAssignmentMemberValue,
    CURRENT_ASSIGNMENT: messages.ConsumerGroupCurrentMemberAssignmentValue,
    REGULAR_EXPRESSION: messages.ConsumerGroupRegularExpressionValue,
}


def _key(kind: int, group_id: str, member_id: str | None = None) -> bytes:
    """The key of `kind`; `member_id` is the regular expression for a
    ConsumerGroupRegularExpression key."""
    cls = _KEYS[kind]
    fields = {"group_id": group_id}
    if member_id is not None:
        fields["regular_expression" if kind == REGULAR_EXPRESSION else "member_id"] = member_id
    return encode_key(kind, cls(**fields))


# ---------------------------------------------------------------- records
def group_metadata(group_id: str, epoch: int, metadata_hash: int) -> tuple[bytes, bytes]:
    return _key(GROUP_METADATA, group_id), _value(
        messages.ConsumerGroupMetadataValue(epoch=epoch, metadata_hash=metadata_hash))


def member_metadata(group_id: str, m: ConsumerGroupMember) -> tuple[bytes, bytes]:
    classic = None
    if m.classic_protocols is not None:
        classic = messages.ConsumerGroupMemberMetadataValue.ClassicMemberMetadata(
            session_timeout_ms=m.classic_session_timeout_ms,
            supported_protocols=[messages.ConsumerGroupMemberMetadataValue.ClassicProtocol(name=n, metadata=bytes(md))
                                 for n, md in m.classic_protocols])
    return _key(MEMBER_METADATA, group_id, m.member_id), _value(messages.ConsumerGroupMemberMetadataValue(
        instance_id=m.instance_id, rack_id=m.rack_id, client_id=m.client_id,
        client_host=m.client_host, subscribed_topic_names=list(m.subscribed_topic_names),
        subscribed_topic_regex=m.subscribed_topic_regex,
        rebalance_timeout_ms=m.rebalance_timeout_ms, server_assignor=m.server_assignor,
        classic_member_metadata=classic))


def target_metadata(group_id: str, assignment_epoch: int, now_ms: int) -> tuple[bytes, bytes]:
    return _key(TARGET_METADATA, group_id), _value(messages.ConsumerGroupTargetAssignmentMetadataValue(
        assignment_epoch=assignment_epoch, assignment_timestamp=now_ms))


def target_member(group_id: str, member_id: str, a: Assignment) -> tuple[bytes, bytes]:
    return _key(TARGET_MEMBER, group_id, member_id), _value(
        messages.ConsumerGroupTargetAssignmentMemberValue(topic_partitions=_partitions(messages.ConsumerGroupTargetAssignmentMemberValue.TopicPartition, a)))


def current_assignment(group_id: str, m: ConsumerGroupMember) -> tuple[bytes, bytes]:
    return _key(CURRENT_ASSIGNMENT, group_id, m.member_id), _value(messages.ConsumerGroupCurrentMemberAssignmentValue(
        member_epoch=m.member_epoch, previous_member_epoch=m.previous_member_epoch,
        state=int(m.state), assigned_partitions=_with_epochs(messages.ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions, m.assigned, m),
        partitions_pending_revocation=_with_epochs(messages.ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions, m.pending_revocation, m)))


def _with_epochs(cls: type[messages.ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions], a: Assignment,
                 m: ConsumerGroupMember) -> list[messages.ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions]:
    """`a` as the record's TopicPartitions, each partition with its assignment epoch."""
    out = _partitions(cls, a)
    for tp in out:
        tp.assignment_epochs = [m.assignment_epochs.get((tp.topic_id, p), m.member_epoch)
                                for p in tp.partitions]
    return out


def regular_expression(group_id: str, regex: str, resolved: ResolvedRegex) -> tuple[bytes, bytes]:
    return _key(REGULAR_EXPRESSION, group_id, regex), _value(messages.ConsumerGroupRegularExpressionValue(
        topics=sorted(resolved.topics), version=resolved.version, timestamp=resolved.timestamp_ms))


def regular_expression_tombstone(group_id: str, regex: str) -> tuple[bytes, None]:
    return _key(REGULAR_EXPRESSION, group_id, regex), None


def member_tombstones(group_id: str, member_id: str) -> list[tuple[bytes, None]]:
    """What removing a member writes, in Kafka's order."""
    return [(_key(CURRENT_ASSIGNMENT, group_id, member_id), None),
            (_key(TARGET_MEMBER, group_id, member_id), None),
            (_key(MEMBER_METADATA, group_id, member_id), None)]


def group_tombstones(group_id: str, regexes: Iterable[str] = ()) -> list[tuple[bytes, None]]:
    """What deleting an empty group writes, in Kafka's order (its offsets' tombstones
    come separately): `regexes` are the group's resolved regular expressions."""
    return [(_key(TARGET_METADATA, group_id), None),
            (_key(PARTITION_METADATA, group_id), None),
            *(regular_expression_tombstone(group_id, r) for r in sorted(regexes)),
            (_key(GROUP_METADATA, group_id), None)]


# ---------------------------------------------------------------- replay
def decode_record(key: bytes, value: bytes | None) -> tuple[int, str, str | None, object | None]:
    """(key version, group id, member id (the regular expression of a
    ConsumerGroupRegularExpression record) or None, decoded value or None for a
    tombstone). Raises ValueError for bytes that do not parse."""
    kind, k, v = decode(_KEYS, _VALUES, "consumer group", key, value)
    if kind == REGULAR_EXPRESSION:
        return kind, k.group_id, k.regular_expression, v
    return kind, k.group_id, getattr(k, "member_id", None), v


def apply_member_metadata(m: ConsumerGroupMember, v: messages.ConsumerGroupMemberMetadataValue) -> None:
    m.instance_id, m.rack_id = v.instance_id, v.rack_id
    m.client_id, m.client_host = v.client_id, v.client_host
    m.subscribed_topic_names = list(v.subscribed_topic_names)
    m.subscribed_topic_regex = v.subscribed_topic_regex
    m.rebalance_timeout_ms, m.server_assignor = v.rebalance_timeout_ms, v.server_assignor
    classic = v.classic_member_metadata
    if classic is not None:
        m.classic_session_timeout_ms = classic.session_timeout_ms
        m.classic_protocols = [(p.name, bytes(p.metadata)) for p in classic.supported_protocols]
    else:
        m.classic_protocols = None


def current_assignment_of(v: messages.ConsumerGroupCurrentMemberAssignmentValue) -> tuple[int, int, MemberState, Assignment, Assignment,
                                           dict[tuple[bytes, int], int]]:
    """The record's epochs, state, assignment and each partition's assignment epoch (the
    member epoch where the record has none: written before KIP-1251)."""
    try:
        state = MemberState(v.state)
    except ValueError:
        state = MemberState.UNKNOWN
    epochs: dict[tuple[bytes, int], int] = {}
    for tp in [*v.assigned_partitions, *v.partitions_pending_revocation]:
        given = tp.assignment_epochs or []
        for i, p in enumerate(tp.partitions):
            epochs[(bytes(tp.topic_id), p)] = given[i] if i < len(given) else v.member_epoch
    return (v.member_epoch, v.previous_member_epoch, state,
            _assignment(v.assigned_partitions), _assignment(v.partitions_pending_revocation), epochs)


def resolved_regex_of(v: messages.ConsumerGroupRegularExpressionValue) -> ResolvedRegex:
    return ResolvedRegex(frozenset(v.topics), v.version, v.timestamp)


def target_of(v: messages.ConsumerGroupTargetAssignmentMemberValue) -> Assignment:
    return _assignment(v.topic_partitions)
