"""The records of Streams groups in `__consumer_offsets`, in Kafka 4.4's formats, so
Apache's `kafka-dump-log --offsets-decoder` and a Kafka broker read them.

Key versions (Kafka 4.x's record types): 17 StreamsGroupMetadata (group epoch, metadata
hash, validated topology epoch), 19 StreamsGroupMemberMetadata, 20
StreamsGroupTargetAssignmentMetadata (assignment epoch), 21
StreamsGroupTargetAssignmentMember, 22 StreamsGroupCurrentMemberAssignment, 23
StreamsGroupTopology. Values are version 0 (flexible). A value of None is a tombstone.

Who calls it: StreamsGroupCoordinator (writes, replay on load). Nothing else.
"""
from __future__ import annotations

from typing import Callable, Iterable, TypeVar

from kafpy.protocol import messages

from kafpy.coordinator.group.modern_records import decode, encode_key, encode_value as _value
from kafpy.coordinator.record_types import STREAMS_GROUP_RECORDS, GroupRecordType
from kafpy.coordinator.group.streams.group import MemberState, StreamsGroupMember, Tasks, TaskSet
from kafpy.coordinator.group.streams.topology import StreamsTopology, TopicInfo, from_request

GROUP_METADATA, MEMBER_METADATA = GroupRecordType.STREAMS_GROUP_METADATA, GroupRecordType.STREAMS_GROUP_MEMBER_METADATA
TARGET_METADATA, TARGET_MEMBER = GroupRecordType.STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA, GroupRecordType.STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER
CURRENT_ASSIGNMENT, TOPOLOGY = GroupRecordType.STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT, GroupRecordType.STREAMS_GROUP_TOPOLOGY
STREAMS_KEY_VERSIONS = STREAMS_GROUP_RECORDS

_KEYS: dict[int, type] = {
    GROUP_METADATA: messages.StreamsGroupMetadataKey,
    MEMBER_METADATA: messages.StreamsGroupMemberMetadataKey,
    TARGET_METADATA: messages.StreamsGroupTargetAssignmentMetadataKey,
    TARGET_MEMBER: messages.StreamsGroupTargetAssignmentMemberKey,
    CURRENT_ASSIGNMENT: messages.StreamsGroupCurrentMemberAssignmentKey,
    TOPOLOGY: messages.StreamsGroupTopologyKey,
}
_VALUES: dict[int, type] = {
    GROUP_METADATA: messages.StreamsGroupMetadataValue,
    MEMBER_METADATA: messages.StreamsGroupMemberMetadataValue,
    TARGET_METADATA: messages.StreamsGroupTargetAssignmentMetadataValue,
    TARGET_MEMBER: messages.StreamsGroupTargetAssignmentMemberValue,
    CURRENT_ASSIGNMENT: messages.StreamsGroupCurrentMemberAssignmentValue,
    TOPOLOGY: messages.StreamsGroupTopologyValue,
}


def _key(kind: int, group_id: str, member_id: str | None = None) -> bytes:
    fields = {"group_id": group_id}
    if member_id is not None:
        fields["member_id"] = member_id
    return encode_key(kind, _KEYS[kind](**fields))


TaskIdsT = TypeVar("TaskIdsT")


def _task_ids(cls: Callable[..., TaskIdsT], t: TaskSet) -> list[TaskIdsT]:
    return [cls(subtopology_id=s, partitions=sorted(ps)) for s, ps in sorted(t.items()) if ps]


def _task_set(items: Iterable) -> TaskSet:
    return {t.subtopology_id: set(t.partitions) for t in items if t.partitions}


# ---------------------------------------------------------------- records
def group_metadata(group_id: str, epoch: int, metadata_hash: int,
                   validated_topology_epoch: int) -> tuple[bytes, bytes]:
    return _key(GROUP_METADATA, group_id), _value(messages.StreamsGroupMetadataValue(
        epoch=epoch, metadata_hash=metadata_hash,
        validated_topology_epoch=validated_topology_epoch))


def topology(group_id: str, t: StreamsTopology) -> tuple[bytes, bytes]:

    def info(x: TopicInfo) -> messages.StreamsGroupTopologyValue.TopicInfo:
        return messages.StreamsGroupTopologyValue.TopicInfo(name=x.name, partitions=x.partitions,
                           replication_factor=x.replication_factor,
                           topic_configs=[messages.StreamsGroupTopologyValue.TopicConfig(key=k, value=v) for k, v in x.configs])
    subs = [messages.StreamsGroupTopologyValue.Subtopology(
        subtopology_id=s.subtopology_id, source_topics=list(s.source_topics),
        source_topic_regex=list(s.source_topic_regex),
        state_changelog_topics=[info(x) for x in s.state_changelog_topics],
        repartition_sink_topics=list(s.repartition_sink_topics),
        repartition_source_topics=[info(x) for x in s.repartition_source_topics],
        copartition_groups=[messages.StreamsGroupTopologyValue.CopartitionGroup(
            source_topics=list(g.source_topics), source_topic_regex=list(g.source_topic_regex),
            repartition_source_topics=list(g.repartition_source_topics))
            for g in s.copartition_groups]) for s in t.subtopologies]
    return _key(TOPOLOGY, group_id), _value(messages.StreamsGroupTopologyValue(epoch=t.epoch, subtopologies=subs))


def member_metadata(group_id: str, m: StreamsGroupMember) -> tuple[bytes, bytes]:
    endpoint = None if m.user_endpoint is None else messages.StreamsGroupMemberMetadataValue.Endpoint(host=m.user_endpoint[0],
                                                               port=m.user_endpoint[1])
    return _key(MEMBER_METADATA, group_id, m.member_id), _value(messages.StreamsGroupMemberMetadataValue(
        instance_id=m.instance_id, rack_id=m.rack_id, client_id=m.client_id,
        client_host=m.client_host, rebalance_timeout_ms=m.rebalance_timeout_ms,
        topology_epoch=m.topology_epoch, process_id=m.process_id, user_endpoint=endpoint,
        client_tags=[messages.StreamsGroupMemberMetadataValue.KeyValue(key=k, value=v) for k, v in sorted(m.client_tags.items())]))


def target_metadata(group_id: str, assignment_epoch: int, now_ms: int) -> tuple[bytes, bytes]:
    return _key(TARGET_METADATA, group_id), _value(messages.StreamsGroupTargetAssignmentMetadataValue(
        assignment_epoch=assignment_epoch, assignment_timestamp=now_ms))


def target_member(group_id: str, member_id: str, t: Tasks) -> tuple[bytes, bytes]:
    return _key(TARGET_MEMBER, group_id, member_id), _value(messages.StreamsGroupTargetAssignmentMemberValue(
        active_tasks=_task_ids(messages.StreamsGroupTargetAssignmentMemberValue.TaskIds, t.active), standby_tasks=_task_ids(messages.StreamsGroupTargetAssignmentMemberValue.TaskIds, t.standby),
        warmup_tasks=_task_ids(messages.StreamsGroupTargetAssignmentMemberValue.TaskIds, t.warmup)))


def current_assignment(group_id: str, m: StreamsGroupMember) -> tuple[bytes, bytes]:
    return _key(CURRENT_ASSIGNMENT, group_id, m.member_id), _value(messages.StreamsGroupCurrentMemberAssignmentValue(
        member_epoch=m.member_epoch, previous_member_epoch=m.previous_member_epoch,
        state=int(m.state),
        active_tasks=_task_ids(messages.StreamsGroupCurrentMemberAssignmentValue.TaskIds, m.tasks.active),
        standby_tasks=_task_ids(messages.StreamsGroupCurrentMemberAssignmentValue.TaskIds, m.tasks.standby),
        warmup_tasks=_task_ids(messages.StreamsGroupCurrentMemberAssignmentValue.TaskIds, m.tasks.warmup),
        active_tasks_pending_revocation=_task_ids(messages.StreamsGroupCurrentMemberAssignmentValue.TaskIds, m.pending_revocation.active),
        standby_tasks_pending_revocation=_task_ids(messages.StreamsGroupCurrentMemberAssignmentValue.TaskIds, m.pending_revocation.standby),
        warmup_tasks_pending_revocation=_task_ids(messages.StreamsGroupCurrentMemberAssignmentValue.TaskIds, m.pending_revocation.warmup)))


def member_tombstones(group_id: str, member_id: str) -> list[tuple[bytes, None]]:
    """What removing a member writes, in Kafka's order."""
    return [(_key(CURRENT_ASSIGNMENT, group_id, member_id), None),
            (_key(TARGET_MEMBER, group_id, member_id), None),
            (_key(MEMBER_METADATA, group_id, member_id), None)]


def group_tombstones(group_id: str) -> list[tuple[bytes, None]]:
    """What deleting an empty group writes (its offsets' tombstones come separately)."""
    return [(_key(TARGET_METADATA, group_id), None),
            (_key(TOPOLOGY, group_id), None),
            (_key(GROUP_METADATA, group_id), None)]


# ---------------------------------------------------------------- replay
def decode_record(key: bytes, value: bytes | None) -> tuple[int, str, str | None, object | None]:
    """(key version, group id, member id or None, decoded value or None for a
    tombstone). Raises ValueError for bytes that do not parse."""
    kind, k, v = decode(_KEYS, _VALUES, "streams group", key, value)
    return kind, k.group_id, getattr(k, "member_id", None), v


def apply_member_metadata(m: StreamsGroupMember, v: messages.StreamsGroupMemberMetadataValue) -> None:
    m.instance_id, m.rack_id = v.instance_id, v.rack_id
    m.client_id, m.client_host = v.client_id, v.client_host
    m.rebalance_timeout_ms, m.topology_epoch = v.rebalance_timeout_ms, v.topology_epoch
    m.process_id = v.process_id
    m.user_endpoint = None if v.user_endpoint is None else (v.user_endpoint.host,
                                                            v.user_endpoint.port)
    m.client_tags = {kv.key: kv.value for kv in v.client_tags}


def apply_current_assignment(m: StreamsGroupMember, v: messages.StreamsGroupCurrentMemberAssignmentValue) -> None:
    try:
        m.state = MemberState(v.state)
    except ValueError:
        m.state = MemberState.UNKNOWN
    m.member_epoch, m.previous_member_epoch = v.member_epoch, v.previous_member_epoch
    m.tasks = Tasks(_task_set(v.active_tasks), _task_set(v.standby_tasks), _task_set(v.warmup_tasks))
    m.pending_revocation = Tasks(_task_set(v.active_tasks_pending_revocation),
                                 _task_set(v.standby_tasks_pending_revocation),
                                 _task_set(v.warmup_tasks_pending_revocation))


def target_of(v: messages.StreamsGroupTargetAssignmentMemberValue) -> Tasks:
    return Tasks(_task_set(v.active_tasks), _task_set(v.standby_tasks), _task_set(v.warmup_tasks))


def topology_of(v: messages.StreamsGroupTopologyValue) -> StreamsTopology:
    return from_request(v)
