"""The records of share groups in `__consumer_offsets`, in Kafka 4.4's formats, so a Kafka
broker and `kafka-dump-log --offsets-decoder` read them.

Key versions (the int16 in front of the key, Kafka 4.x's record type): 9
ShareGroupPartitionMetadata (only tombstoned), 10 ShareGroupMemberMetadata, 11
ShareGroupMetadata (group epoch, metadata hash), 12 ShareGroupTargetAssignmentMetadata,
13 ShareGroupTargetAssignmentMember, 14 ShareGroupCurrentMemberAssignment, 15
ShareGroupStatePartitionMetadata (initialized / initializing / deleting share
partitions). Values are version 0 (flexible); a value of None is a tombstone.

Who calls it: ShareGroupCoordinator (writes, replay on load). Nothing else.
"""
from __future__ import annotations

from kafpy.protocol import messages

from kafpy.coordinator.group.modern_records import assignment as _assignment, decode, encode_key
from kafpy.coordinator.record_types import SHARE_GROUP_RECORDS, GroupRecordType
from kafpy.coordinator.group.modern_records import encode_value as _value, topic_partitions as _partitions
from kafpy.coordinator.group.share.group import Assignment, ShareGroup, ShareGroupMember, TopicPartitions

PARTITION_METADATA, MEMBER_METADATA = GroupRecordType.SHARE_GROUP_PARTITION_METADATA, GroupRecordType.SHARE_GROUP_MEMBER_METADATA
GROUP_METADATA, TARGET_METADATA = GroupRecordType.SHARE_GROUP_METADATA, GroupRecordType.SHARE_GROUP_TARGET_ASSIGNMENT_METADATA
TARGET_MEMBER, CURRENT_ASSIGNMENT = GroupRecordType.SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER, GroupRecordType.SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT
STATE_PARTITION_METADATA = GroupRecordType.SHARE_GROUP_STATE_PARTITION_METADATA
SHARE_KEY_VERSIONS = SHARE_GROUP_RECORDS

_KEYS: dict[int, type] = {
    PARTITION_METADATA: messages.ShareGroupPartitionMetadataKey,
    MEMBER_METADATA: messages.ShareGroupMemberMetadataKey,
    GROUP_METADATA: messages.ShareGroupMetadataKey,
    TARGET_METADATA: messages.ShareGroupTargetAssignmentMetadataKey,
    TARGET_MEMBER: messages.ShareGroupTargetAssignmentMemberKey,
    CURRENT_ASSIGNMENT: messages.ShareGroupCurrentMemberAssignmentKey,
    STATE_PARTITION_METADATA: messages.ShareGroupStatePartitionMetadataKey,
}
_VALUES: dict[int, type] = {
    PARTITION_METADATA: messages.ShareGroupPartitionMetadataValue,
    MEMBER_METADATA: messages.ShareGroupMemberMetadataValue,
    GROUP_METADATA: messages.ShareGroupMetadataValue,
    TARGET_METADATA: messages.ShareGroupTargetAssignmentMetadataValue,
    TARGET_MEMBER: messages.ShareGroupTargetAssignmentMemberValue,
    CURRENT_ASSIGNMENT: messages.ShareGroupCurrentMemberAssignmentValue,
    STATE_PARTITION_METADATA: messages.ShareGroupStatePartitionMetadataValue,
}


def _key(kind: int, group_id: str, member_id: str | None = None) -> bytes:
    fields = {"group_id": group_id}
    if member_id is not None:
        fields["member_id"] = member_id
    return encode_key(kind, _KEYS[kind](**fields))


# ---------------------------------------------------------------- records
def group_metadata(group_id: str, epoch: int, metadata_hash: int) -> tuple[bytes, bytes]:
    return _key(GROUP_METADATA, group_id), _value(
        messages.ShareGroupMetadataValue(epoch=epoch, metadata_hash=metadata_hash))


def member_metadata(group_id: str, m: ShareGroupMember) -> tuple[bytes, bytes]:
    return _key(MEMBER_METADATA, group_id, m.member_id), _value(messages.ShareGroupMemberMetadataValue(
        rack_id=m.rack_id, client_id=m.client_id, client_host=m.client_host,
        subscribed_topic_names=list(m.subscribed_topic_names)))


def target_metadata(group_id: str, assignment_epoch: int, now_ms: int) -> tuple[bytes, bytes]:
    return _key(TARGET_METADATA, group_id), _value(messages.ShareGroupTargetAssignmentMetadataValue(
        assignment_epoch=assignment_epoch, assignment_timestamp=now_ms))


def target_member(group_id: str, member_id: str, a: Assignment) -> tuple[bytes, bytes]:
    return _key(TARGET_MEMBER, group_id, member_id), _value(
        messages.ShareGroupTargetAssignmentMemberValue(topic_partitions=_partitions(messages.ShareGroupTargetAssignmentMemberValue.TopicPartition, a)))


def current_assignment(group_id: str, m: ShareGroupMember) -> tuple[bytes, bytes]:
    return _key(CURRENT_ASSIGNMENT, group_id, m.member_id), _value(messages.ShareGroupCurrentMemberAssignmentValue(
        member_epoch=m.member_epoch, previous_member_epoch=m.previous_member_epoch,
        state=m.state, assigned_partitions=_partitions(messages.ShareGroupCurrentMemberAssignmentValue.TopicPartitions, m.assigned)))


def state_partition_metadata(group: ShareGroup) -> tuple[bytes, bytes]:

    def infos(d: dict[bytes, TopicPartitions]) -> list:
        return [messages.ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo(topic_id=t, topic_name=tp.name, partitions=sorted(tp.partitions))
                for t, tp in sorted(d.items()) if tp.partitions]
    return _key(STATE_PARTITION_METADATA, group.group_id), _value(messages.ShareGroupStatePartitionMetadataValue(
        initializing_topics=infos(group.initializing), initialized_topics=infos(group.initialized),
        deleting_topics=[messages.ShareGroupStatePartitionMetadataValue.TopicInfo(topic_id=t, topic_name=n) for t, n in sorted(group.deleting.items())]))


def member_tombstones(group_id: str, member_id: str) -> list[tuple[bytes, None]]:
    """What removing a member writes, in Kafka's order."""
    return [(_key(CURRENT_ASSIGNMENT, group_id, member_id), None),
            (_key(TARGET_MEMBER, group_id, member_id), None),
            (_key(MEMBER_METADATA, group_id, member_id), None)]


def group_tombstones(group_id: str) -> list[tuple[bytes, None]]:
    """What deleting an empty share group writes."""
    return [(_key(TARGET_METADATA, group_id), None),
            (_key(STATE_PARTITION_METADATA, group_id), None),
            (_key(GROUP_METADATA, group_id), None)]


# ---------------------------------------------------------------- replay
def decode_record(key: bytes, value: bytes | None) -> tuple[int, str, str | None, object | None]:
    """(key version, group id, member id or None, decoded value or None for a tombstone).
    Raises ValueError for bytes that do not parse."""
    kind, k, v = decode(_KEYS, _VALUES, "share group", key, value)
    return kind, k.group_id, getattr(k, "member_id", None), v


def apply_member_metadata(m: ShareGroupMember, v: messages.ShareGroupMemberMetadataValue) -> None:
    m.rack_id, m.client_id, m.client_host = v.rack_id, v.client_id, v.client_host
    m.subscribed_topic_names = list(v.subscribed_topic_names)


def apply_current_assignment(m: ShareGroupMember, v: messages.ShareGroupCurrentMemberAssignmentValue) -> None:
    m.member_epoch, m.previous_member_epoch, m.state = v.member_epoch, v.previous_member_epoch, v.state
    m.assigned = _assignment(v.assigned_partitions)


def apply_state_partition_metadata(g: ShareGroup, v: messages.ShareGroupStatePartitionMetadataValue) -> None:
    g.initializing = {bytes(t.topic_id): TopicPartitions(t.topic_name, set(t.partitions))
                      for t in v.initializing_topics}
    g.initialized = {bytes(t.topic_id): TopicPartitions(t.topic_name, set(t.partitions))
                     for t in v.initialized_topics}
    g.deleting = {bytes(t.topic_id): t.topic_name for t in v.deleting_topics}


def target_of(v: messages.ShareGroupTargetAssignmentMemberValue) -> Assignment:
    return _assignment(v.topic_partitions)
