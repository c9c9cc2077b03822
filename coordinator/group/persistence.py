"""Groups and offsets as `__consumer_offsets` records: the records a classic group's
metadata, its offsets and their tombstones are written as (Kafka's GroupMetadataManager
storeGroup / storeOffsets), and groups rebuilt by replaying a partition
(loadGroupsAndOffsets).

Who calls it: the GroupCoordinator (and the consumer coordinator for a downgraded
group), on the event loop thread. It keeps nothing itself and writes nothing: the
caller writes the records through its CoordinatorWriter (coordinator/result.py) and
decides what a committed or failed write means for the group.
"""

from __future__ import annotations

import logging
from typing import Callable, Iterable

from kafpy.coordinator.group.classic.group import ClassicGroup, GroupState, Member
from kafpy.coordinator.group.offsets_log import (NO_PRODUCER_ID, LogEntry, OffsetsLog, Record, TxnMarker,
                                                 TxnRecord)

from kafpy.coordinator.group.records import (
    GroupMetadataKey, GroupMetadataValue, MemberRecord, OffsetAndMetadata, OffsetCommitKey,
    decode_group_metadata_value, decode_key, decode_offset_commit_value,
    encode_group_metadata_key, encode_group_metadata_value, encode_offset_commit_key,
    encode_offset_commit_value)

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]


class GroupStore:
    """Encodes and decodes the records of one coordinator, reading them back from
    `offsets_log`; `partition_for` maps a group id to its `__consumer_offsets` partition."""

    def __init__(self, offsets_log: OffsetsLog, partition_for: Callable[[str], int]) -> None:
        self.log = offsets_log
        self._partition_for = partition_for

    # ---------------------------------------------------------------- records
    def group_records(self, group: ClassicGroup, assignment: dict[str, bytes]) -> list[Record]:
        """The group's generation, members and `assignment` (member id -> bytes)."""
        protocol = group.protocol_name
        members = [MemberRecord(m.member_id, m.group_instance_id, m.client_id, m.client_host,
                                m.rebalance_timeout_ms, m.session_timeout_ms,
                                m.metadata(protocol), assignment.get(m.member_id, b""))
                   for m in group.members.values()]
        value = GroupMetadataValue(group.protocol_type or "", group.generation_id, protocol,
                                   group.leader_id,
                                   group.state_timestamp if group.state_timestamp is not None
                                   else -1, members)
        return [(encode_group_metadata_key(group.group_id), encode_group_metadata_value(value))]

    @staticmethod
    def offset_records(group_id: str, offsets: dict[TopicPartition, OffsetAndMetadata]) -> list[Record]:
        """The offsets' records (one batch; a transactional one for TxnOffsetCommit)."""
        return [(encode_offset_commit_key(group_id, t, p), encode_offset_commit_value(om))
                for (t, p), om in offsets.items()]

    @staticmethod
    def tombstone_records(group_id: str, partitions: Iterable[TopicPartition],
                          with_group: bool) -> list[Record]:
        """Tombstones for the offsets of `partitions` (and the group's metadata when
        `with_group`)."""
        records: list[Record] = [(encode_offset_commit_key(group_id, t, p), None) for t, p in partitions]
        if with_group:
            records.append((encode_group_metadata_key(group_id), None))
        return records

    # ---------------------------------------------------------------- replay
    def load(self, partition: int, now_ms: int) -> dict[str, ClassicGroup]:
        """Every group of `partition`, replayed from its log (see `replay`)."""
        return self.replay(partition, self.log.read(partition), now_ms)

    def replay(self, partition: int, entries: Iterable[LogEntry], now_ms: int) -> dict[str, ClassicGroup]:
        """Every group of `partition` as its records (`entries`, in log order) leave it: the
        last metadata record and the last committed offsets, plus the transactional offsets
        of transactions without a marker yet (a COMMIT marker makes them committed, an ABORT
        drops them); groups without any of these are left out."""
        offsets: dict[str, dict[TopicPartition, OffsetAndMetadata]] = {}
        # producer id -> group -> offsets of its open transaction
        txns: dict[int, dict[str, dict[TopicPartition, OffsetAndMetadata]]] = {}
        metas: dict[str, GroupMetadataValue | None] = {}
        for entry in entries:
            if isinstance(entry, TxnMarker):
                for gid, pending in txns.pop(entry.producer_id, {}).items():
                    if entry.committed:
                        offsets.setdefault(gid, {}).update(pending)
                continue
            producer_id = entry.producer_id if isinstance(entry, TxnRecord) else NO_PRODUCER_ID
            key_bytes, value = (entry.key, entry.value) if isinstance(entry, TxnRecord) else entry
            try:
                key = decode_key(key_bytes)
                if isinstance(key, OffsetCommitKey):
                    if producer_id != NO_PRODUCER_ID:
                        g = txns.setdefault(producer_id, {}).setdefault(key.group, {})
                    else:
                        g = offsets.setdefault(key.group, {})
                    if value is None:
                        g.pop((key.topic, key.partition), None)
                    else:
                        g[(key.topic, key.partition)] = decode_offset_commit_value(value)
                elif isinstance(key, GroupMetadataKey):
                    metas[key.group] = (None if value is None
                                        else decode_group_metadata_value(value))
            except ValueError as e:
                log.warning("skipping unreadable record in partition %d: %s", partition, e)
        open_txns: dict[str, dict[int, dict[TopicPartition, OffsetAndMetadata]]] = {}
        for pid, by_group in txns.items():
            for gid, pending in by_group.items():
                open_txns.setdefault(gid, {})[pid] = pending
        groups: dict[str, ClassicGroup] = {}
        for gid in set(offsets) | set(metas) | set(open_txns):
            meta = metas.get(gid)
            group_offsets = offsets.get(gid, {})
            if meta is None and not group_offsets and gid not in open_txns:
                continue
            group = _build_group(gid, meta, now_ms)
            group.offsets = dict(group_offsets)
            group.pending_txn_offsets = open_txns.get(gid, {})
            groups[gid] = group
        return groups


def _build_group(group_id: str, meta: GroupMetadataValue | None, now_ms: int) -> ClassicGroup:
    if meta is None:
        return ClassicGroup(group_id, now_ms)
    state = GroupState.STABLE if meta.members else GroupState.EMPTY
    group = ClassicGroup(group_id, now_ms, state)
    group.state_timestamp = (meta.current_state_timestamp
                             if meta.current_state_timestamp >= 0 else None)
    group.protocol_type = meta.protocol_type or None
    group.generation_id = meta.generation
    group.protocol_name = meta.protocol
    for mr in meta.members:
        m = Member(mr.member_id, mr.group_instance_id, mr.client_id, mr.client_host,
                   mr.rebalance_timeout, mr.session_timeout, meta.protocol_type,
                   [(meta.protocol or "", mr.subscription)], mr.assignment)
        group.members[m.member_id] = m
        group.supported_protocols[meta.protocol or ""] += 1
        if m.group_instance_id is not None:
            group.static_members[m.group_instance_id] = m.member_id
    group.leader_id = meta.leader if meta.leader in group.members else (
        next(iter(group.members), None))
    group.subscribed_topics = group.compute_subscribed_topics()
    return group
