"""Online migration between the classic and the consumer group protocols (KIP-848), as
Kafka 4.x does it under `group.consumer.migration.policy` (`bidirectional` by default,
`upgrade`, `downgrade`, `disabled`):

- upgrade: a consumer-protocol member joining a non-empty classic group turns it into a
  consumer group; the classic members stay members, keep their partitions and
  epochs (their generation), and go on speaking JoinGroup/SyncGroup/Heartbeat;
- classic members of a consumer group: the broker assigns their partitions as anyone's
  (their subscription comes from their JoinGroup metadata). Heartbeat answers
  REBALANCE_IN_PROGRESS when they are behind the target, have something to give up, or
  may take a partition they waited for (NONE while its owner still holds it); their JoinGroup
  is answered at once with their member epoch as generation and no leader (so they send an
  empty SyncGroup), and SyncGroup with what they may own now. An eager member revokes
  everything before JoinGroup; a cooperative one reports what it owns in its subscription,
  so the revoke-first rule holds for both;
- downgrade: when the last consumer-protocol member leaves, a group whose members all
  speak the classic protocol becomes a classic group again (with a rebalance, as Kafka).

Who calls it: ConsumerGroupCoordinator is built on it; the classic coordinator routes the
classic APIs of a consumer group here. Event loop thread only.
"""
from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Callable

from kafpy.protocol import messages
from kafpy.protocol.codec import decode_data, encode_data
from kafpy.protocol.errors import ErrorCode, ProtocolError

from kafpy.coordinator.group.consumer import records as consumer_records
from kafpy.coordinator.group.consumer.group import (Assignment, ConsumerGroup, ConsumerGroupMember,
                                              MemberState, copy_assignment)
from kafpy.coordinator.group.consumer.config import ConsumerGroupConfig
from kafpy.coordinator.group.consumer.topics import TopicMeta, TopicsView, metadata_hash
from kafpy.coordinator.group.errors import append_error_to_group_error
from kafpy.coordinator.group.classic.group import CONSUMER_PROTOCOL_TYPE, ClassicGroup, GroupState, Member
from kafpy.coordinator.group.classic.view import ClassicCoordinatorView
from kafpy.coordinator.group.offsets_log import Completion, Record
from kafpy.coordinator.result import CoordinatorResult
from kafpy.coordinator.group.records import encode_group_metadata_key
from kafpy.coordinator.group.results import JoinResult, SyncResult

UNKNOWN_MEMBER_ID = ""


def decode_subscription(metadata: bytes) -> tuple[list[str], list[tuple[str, int]] | None]:
    """(topics, owned partitions or None before v1) of ConsumerProtocolSubscription bytes."""
    try:
        version = struct.unpack_from(">h", metadata, 0)[0]
        v = decode_data(messages.ConsumerProtocolSubscription, min(max(version, 0), 3), bytes(metadata[2:]))
    except (ProtocolError, struct.error, ValueError, UnicodeDecodeError):
        return [], None
    owned = [(tp.topic, p) for tp in v.owned_partitions for p in tp.partitions] if version >= 1 else None
    return list(v.topics), owned


def decode_assignment(data: bytes) -> list[tuple[str, int]]:
    try:
        version = struct.unpack_from(">h", data, 0)[0]
        v = decode_data(messages.ConsumerProtocolAssignment, min(max(version, 0), 3), bytes(data[2:]))
    except (ProtocolError, struct.error, ValueError, UnicodeDecodeError):
        return []
    return [(tp.topic, p) for tp in v.assigned_partitions for p in tp.partitions]


class ClassicMembers:
    """The migration half of ConsumerGroupCoordinator (which provides `classic`,
    `config`, `topics`, `groups` and the reconciliation helpers)."""

    classic: ClassicCoordinatorView
    # classic groups downgraded since the last `_store_downgraded`
    _downgraded: list[ClassicGroup]
    config: ConsumerGroupConfig
    topics: TopicsView
    groups: dict[str, ConsumerGroup]
    _wake: Callable[[int], int]         # ModernGroupCoordinator's: a timer due at that ms

    if TYPE_CHECKING:  # the reconciliation helpers ConsumerGroupCoordinator defines
        def _schedule_session(self, member: ConsumerGroupMember, now_ms: int,
                              group_id: str | None = None) -> None: ...
        def _subscribed_topics(self, group: ConsumerGroup) -> dict[str, TopicMeta]: ...
        def _compute_target(self, group: ConsumerGroup, subscribed: dict[str, TopicMeta],
                            records: list, now_ms: int) -> None: ...
        def _reconcile(self, group: ConsumerGroup, member: ConsumerGroupMember,
                       owned: Assignment | None, records: list, now_ms: int) -> None: ...
        def _remove_member(self, group: ConsumerGroup, member: ConsumerGroupMember, records: list) -> None: ...

    # ---------------------------------------------------------------- helpers
    def _ids(self, pairs: list[tuple[str, int]]) -> Assignment:
        out: Assignment = {}
        for name, p in pairs:
            meta = self.topics.topic(name)
            if meta is not None and p < meta.num_partitions:
                out.setdefault(meta.topic_id, set()).add(p)
        return out

    def _assignment_bytes(self, a: Assignment) -> bytes:
        tps = []
        for t, ps in sorted(a.items()):
            meta = self.topics.topic_by_id(t)
            if meta is not None and ps:
                tps.append(messages.ConsumerProtocolAssignment.TopicPartition(topic=meta.name, partitions=sorted(ps)))
        return struct.pack(">h", 0) + encode_data(messages.ConsumerProtocolAssignment(assigned_partitions=tps, user_data=None), 0)

    def _allows(self, direction: str) -> bool:
        return self.config.migration_policy in (direction, "bidirectional")

    def _write(self, group_id: str, records: list[Record], now_ms: int,
               answer: JoinResult | SyncResult) -> Completion[JoinResult | SyncResult]:
        """A future resolved with `answer` once `records` are committed (or with the
        error translated for the classic APIs)."""
        def failed(error: ErrorCode) -> JoinResult | SyncResult:
            error = append_error_to_group_error(error)
            if isinstance(answer, JoinResult):
                return JoinResult(error, answer.member_id)
            if isinstance(answer, SyncResult):
                return SyncResult(error)
            return error
        return self.classic.writer.answer(self.classic.partition_for(group_id),
                                          CoordinatorResult(answer, records), now_ms, failed)

    # ---------------------------------------------------------------- upgrade
    def _upgrade(self, classic: ClassicGroup, now_ms: int, records: list) -> ConsumerGroup | None:
        """The consumer group a live classic group becomes (None when the policy, its
        state or its protocol type does not allow it). A group in the middle of a
        rebalance converts too, as Kafka's does: its members keep the assignment of the
        last generation, and their parked JoinGroup/SyncGroup are answered
        REBALANCE_IN_PROGRESS (they rejoin as classic members of the consumer group)."""
        if (not self._allows("upgrade") or classic.is_(GroupState.DEAD)
                or classic.protocol_type != CONSUMER_PROTOCOL_TYPE
                or classic.size >= self.config.max_size):
            return None
        group = ConsumerGroup(classic.group_id)
        group.offsets, group.pending_offset_commits = classic.offsets, classic.pending_offset_commits
        group.pending_txn_offsets = classic.pending_txn_offsets
        group.group_epoch = group.assignment_epoch = classic.generation_id
        for m in classic.members.values():
            chosen = dict(m.protocols).get(classic.protocol_name or "", m.protocols[0][1])
            topics, _ = decode_subscription(chosen)
            member = ConsumerGroupMember(
                m.member_id, m.group_instance_id, None, m.client_id, m.client_host, topics, None,
                m.rebalance_timeout_ms, None, classic.generation_id, classic.generation_id,
                MemberState.STABLE)
            member.classic_session_timeout_ms = m.session_timeout_ms
            member.classic_protocols = list(m.protocols)
            member.assigned = self._ids(decode_assignment(m.assignment))
            group.add_member(member)
            group.target[member.member_id] = copy_assignment(member.assigned)
            self._schedule_session(member, now_ms, group.group_id)
            records.append(consumer_records.member_metadata(group.group_id, member))
            records.append(consumer_records.target_member(group.group_id, member.member_id, member.assigned))
            records.append(consumer_records.current_assignment(group.group_id, member))
        group.metadata_hash = 0     # recomputed (and the epoch bumped) by the joining member
        records.append(consumer_records.group_metadata(group.group_id, group.group_epoch, group.metadata_hash))
        records.append(consumer_records.target_metadata(group.group_id, group.assignment_epoch, now_ms))
        records.append((encode_group_metadata_key(group.group_id), None))
        self.classic.fail_parked(classic, ErrorCode.REBALANCE_IN_PROGRESS)
        del self.classic.groups[classic.group_id]
        self.groups[group.group_id] = group
        return group

    # ---------------------------------------------------------------- downgrade
    def _maybe_downgrade(self, group: ConsumerGroup, now_ms: int, records: list) -> bool:
        """After a consumer-protocol member left: a group of classic members only turns
        classic again and rebalances. Returns whether it did (`records` then hold the
        consumer records' tombstones; the classic group writes its own metadata)."""
        if (not group.members or not self._allows("downgrade")
                or any(m.classic_protocols is None for m in group.members.values())):
            return False
        classic = ClassicGroup(group.group_id, now_ms, GroupState.STABLE)
        classic.offsets, classic.pending_offset_commits = group.offsets, group.pending_offset_commits
        classic.pending_txn_offsets = group.pending_txn_offsets
        classic.generation_id = group.group_epoch
        first = next(iter(group.members.values()))
        classic.protocol_name = first.classic_protocols[0][0] if first.classic_protocols else None
        for m in group.members.values():
            assert m.classic_protocols is not None  # only classic members are left to downgrade
            member = Member(m.member_id, m.instance_id, m.client_id, m.client_host,
                            max(m.rebalance_timeout_ms, 0), m.classic_session_timeout_ms,
                            CONSUMER_PROTOCOL_TYPE, list(m.classic_protocols),
                            self._assignment_bytes(m.assigned))
            classic.add(member)
            self.classic.schedule_heartbeat(member, now_ms)
            records.extend(consumer_records.member_tombstones(group.group_id, m.member_id))
        records.extend(consumer_records.group_tombstones(group.group_id, group.resolved_regexes))
        classic.subscribed_topics = classic.compute_subscribed_topics()
        del self.groups[group.group_id]
        self.classic.groups[group.group_id] = classic
        self.classic.prepare_rebalance(classic, now_ms)
        self._downgraded.append(classic)
        return True

    def _store_downgraded(self, now_ms: int) -> None:
        """Write the classic metadata of groups downgraded since the last call (after
        their consumer records' tombstones, which the caller appended first)."""
        downgraded, self._downgraded = self._downgraded, []
        for classic in downgraded:
            if self.classic.groups.get(classic.group_id) is not classic:
                continue
            records = self.classic.store.group_records(
                classic, {m.member_id: m.assignment for m in classic.members.values()})
            self.classic.writer.write(self.classic.partition_for(classic.group_id), records, now_ms,
                                      what="group metadata", key=classic.group_id)

    # ---------------------------------------------------------------- classic APIs
    def classic_join(self, group_id: str, member_id: str, instance_id: str | None,
                     require_known_member_id: bool, client_id: str, client_host: str,
                     rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str,
                     protocols: list[tuple[str, bytes]], now_ms: int) -> Completion[JoinResult | SyncResult]:
        """JoinGroup of a classic member into a consumer group."""
        group = self.groups[group_id]
        if protocol_type != CONSUMER_PROTOCOL_TYPE or not protocols:
            return self._write(group_id, [], now_ms,
                               JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, member_id))
        if not self._allows("downgrade") and not self._allows("upgrade"):
            return self._write(group_id, [], now_ms,
                               JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, member_id))
        records: list = []
        member = group.members.get(member_id) if member_id else None
        # A member id the client names but the group does not know is the one handed
        # out with MEMBER_ID_REQUIRED (KIP-394): it joins under it.
        if member is not None and member.classic_protocols is None:
            return self._write(group_id, [], now_ms,
                               JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, member_id))
        if member is None:
            if instance_id is not None and instance_id in group.static_members:
                old = group.members[group.static_members[instance_id]]
                member_id = member_id or self.classic.new_member_id(client_id)
                target = group.target.pop(old.member_id, {})
                assigned = copy_assignment(old.assigned)
                group.remove_member(old.member_id)
                records.extend(consumer_records.member_tombstones(group_id, old.member_id))
                member = ConsumerGroupMember(member_id, instance_id, member_epoch=old.member_epoch,
                                             previous_member_epoch=old.previous_member_epoch,
                                             assigned=assigned)
                group.add_member(member)
                group.target[member_id] = target
            else:
                if not member_id:
                    member_id = self.classic.new_member_id(client_id)
                    if require_known_member_id:
                        return self._write(group_id, [], now_ms,
                                           JoinResult(ErrorCode.MEMBER_ID_REQUIRED, member_id))
                if len(group.members) >= self.config.max_size:
                    return self._write(group_id, [], now_ms,
                                       JoinResult(ErrorCode.GROUP_MAX_SIZE_REACHED, member_id))
                member = ConsumerGroupMember(member_id, instance_id)
                group.add_member(member)
        topics, owned_pairs = decode_subscription(protocols[0][1])
        subscription_before = (tuple(member.subscribed_topic_names), member.subscribed_topic_regex)
        new_member = member.member_id not in group.target
        member.client_id, member.client_host = client_id, client_host
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.subscribed_topic_names, member.subscribed_topic_regex = topics, None
        member.classic_session_timeout_ms = session_timeout_ms
        member.classic_protocols = [(n, bytes(m)) for n, m in protocols]
        records.append(consumer_records.member_metadata(group_id, member))
        subscribed = self._subscribed_topics(group)
        topics_hash = metadata_hash(subscribed, self.topics.partition_racks)
        if (new_member or subscription_before != (tuple(topics), None)
                or topics_hash != group.metadata_hash):
            group.group_epoch += 1
            group.metadata_hash = topics_hash
            records.append(consumer_records.group_metadata(group_id, group.group_epoch, topics_hash))
        if group.group_epoch > group.assignment_epoch:
            self._compute_target(group, subscribed, records, now_ms)
        # An eager member gave everything up before joining; a cooperative one lists
        # what it still owns.
        owned = self._ids(owned_pairs or [])
        if member.state == MemberState.STABLE and member.member_epoch == group.assignment_epoch:
            # nothing new for it: it still owns what it was given
            pass
        else:
            self._reconcile(group, member, owned, records, now_ms)
            if member.state == MemberState.UNREVOKED_PARTITIONS and not any(
                    ps & member.pending_revocation.get(t, set()) for t, ps in owned.items()):
                self._reconcile(group, member, owned, records, now_ms)
        self._schedule_session(member, now_ms, group_id)
        # Kafka 4.4: a join ends the wait for it, and starts the wait for its SyncGroup
        member.classic_join_deadline = None
        member.classic_sync_deadline = self._wake(now_ms + max(rebalance_timeout_ms, 0))
        return self._write(group_id, records, now_ms, JoinResult(
            ErrorCode.NONE, member.member_id, member.member_epoch, CONSUMER_PROTOCOL_TYPE,
            protocols[0][0], leader="", skip_assignment=False, members=[]))

    def classic_sync(self, group_id: str, generation_id: int, member_id: str,
                     protocol_type: str | None, protocol_name: str | None, now_ms: int
                     ) -> Completion[JoinResult | SyncResult]:
        group = self.groups[group_id]
        member = group.members.get(member_id)
        if member is None or member.classic_protocols is None:
            return self._write(group_id, [], now_ms, SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
        if generation_id != member.member_epoch:
            return self._write(group_id, [], now_ms, SyncResult(ErrorCode.ILLEGAL_GENERATION))
        if protocol_type is not None and protocol_type != CONSUMER_PROTOCOL_TYPE:
            return self._write(group_id, [], now_ms, SyncResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL))
        name = protocol_name or member.classic_protocols[0][0]
        self._schedule_session(member, now_ms, group_id)
        member.classic_sync_deadline = None
        return self._write(group_id, [], now_ms, SyncResult(
            ErrorCode.NONE, CONSUMER_PROTOCOL_TYPE, name, self._assignment_bytes(member.assigned)))

    def classic_heartbeat(self, group_id: str, member_id: str, generation_id: int,
                          now_ms: int) -> ErrorCode:
        group = self.groups[group_id]
        member = group.members.get(member_id)
        if member is None or member.classic_protocols is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if generation_id != member.member_epoch:
            return ErrorCode.ILLEGAL_GENERATION
        self._schedule_session(member, now_ms, group_id)
        # Kafka 4.4's classicGroupHeartbeatToConsumerGroup: rejoin when behind the target,
        # when something is to be revoked, or when a partition it waited for is free; a
        # member still waiting hears NONE (an eager member would revoke everything again)
        if (member.member_epoch < group.assignment_epoch
                or member.state == MemberState.UNREVOKED_PARTITIONS
                or (member.state == MemberState.UNRELEASED_PARTITIONS
                    and not group.waiting_on_unreleased_partition(member))):
            # it must rejoin within its rebalance timeout (scheduled once, as Kafka's
            # scheduleConsumerGroupJoinTimeoutIfAbsent)
            if member.classic_join_deadline is None:
                member.classic_join_deadline = self._wake(now_ms + max(member.rebalance_timeout_ms, 0))
            return ErrorCode.REBALANCE_IN_PROGRESS
        return ErrorCode.NONE

    def classic_leave(self, group_id: str, members: list[tuple[str, str | None]], now_ms: int
                      ) -> tuple[ErrorCode, list[tuple[str, str | None, ErrorCode]]]:
        group = self.groups[group_id]
        results = []
        records: list = []
        for mid, iid in members:
            if iid is not None and not mid:
                mid = group.static_members.get(iid, "")
            member = group.members.get(mid)
            if member is None:
                results.append((mid, iid, ErrorCode.UNKNOWN_MEMBER_ID))
                continue
            self._remove_member(group, member, records)
            results.append((mid, iid, ErrorCode.NONE))
        if records:
            self.classic.writer.write(self.classic.partition_for(group_id), records, now_ms,
                                      what="consumer group records", key=group_id)
            self._store_downgraded(now_ms)
        return ErrorCode.NONE, results
