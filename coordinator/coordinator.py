"""The classic-protocol group coordinator: a state machine with the clock passed in.

Who calls it: only the broker glue (broker/handlers/group.py) and the service timer
(`poll`), all on the event loop thread, so nothing here locks. Every request method
takes `now_ms`. JoinGroup and SyncGroup return a future (made by `future_factory`,
the broker passes `loop.create_future`) that the state machine resolves now or on a
later request or `poll`; everything else answers at once.

What it keeps on disk: nothing itself. Offsets and group metadata go through an
OffsetsLog (one `__consumer_offsets` partition per group) in Kafka's record formats;
`load_partition` rebuilds groups by replaying a partition. Appends are synchronous
(the local log), so a commit is acknowledged only after its record is in the log.

Behaviour follows Kafka's classic GroupCoordinator: states Empty,
PreparingRebalance, CompletingRebalance, Stable, Dead; KIP-394 member ids; static
membership (KIP-345) with fencing; group.initial.rebalance.delay.ms; pending-sync
expiry; offset expiry by offsets.retention.minutes.
"""

from __future__ import annotations

import heapq
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from coordinator import errors as E
from coordinator.config import GroupCoordinatorConfig
from coordinator.group import ClassicGroup, GroupState, Member, complete
from coordinator.offsets_log import OffsetsLog, OffsetsLogError
from coordinator.partitioner import partition_for
from coordinator.records import (
    GroupMetadataKey, GroupMetadataValue, MemberRecord, OffsetAndMetadata, OffsetCommitKey,
    decode_group_metadata_value, decode_key, decode_offset_commit_value,
    encode_group_metadata_key, encode_group_metadata_value, encode_offset_commit_key,
    encode_offset_commit_value)

log = logging.getLogger(__name__)

UNKNOWN_MEMBER_ID = ""
NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000

# API names for group-id validation (Kafka accepts "" for these).
OFFSET_COMMIT, OFFSET_FETCH, DESCRIBE_GROUPS, DELETE_GROUPS = (
    "OffsetCommit", "OffsetFetch", "DescribeGroups", "DeleteGroups")
_EMPTY_ID_OK = {OFFSET_COMMIT, OFFSET_FETCH, DESCRIBE_GROUPS, DELETE_GROUPS}


@dataclass
class JoinResult:
    error: int
    member_id: str = UNKNOWN_MEMBER_ID
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str = ""
    skip_assignment: bool = False
    # (member id, group instance id, metadata); only the leader gets them
    members: list[tuple[str, str | None, bytes]] = field(default_factory=list)


@dataclass
class SyncResult:
    error: int
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


@dataclass
class MemberSummary:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


@dataclass
class GroupSummary:
    group_id: str
    error: int
    state: str
    protocol_type: str
    protocol: str
    members: list[MemberSummary] = field(default_factory=list)


@dataclass
class GroupOverview:
    group_id: str
    protocol_type: str
    state: str
    group_type: str = "classic"


@dataclass
class FetchedOffset:
    offset: int
    leader_epoch: int
    metadata: str
    error: int = E.NONE


class _ImmediateFuture:
    """A minimal future for callers without an event loop (tests, tools)."""

    __slots__ = ("_result", "_done", "_callbacks")

    def __init__(self) -> None:
        self._done = False
        self._result: Any = None
        self._callbacks: list[Callable[[Any], None]] = []

    def done(self) -> bool:
        return self._done

    def set_result(self, result: Any) -> None:
        if self._done:
            raise RuntimeError("future already done")
        self._done, self._result = True, result
        for cb in self._callbacks:
            cb(self)

    def result(self) -> Any:
        if not self._done:
            raise RuntimeError("future not done")
        return self._result

    def add_done_callback(self, cb: Callable[[Any], None]) -> None:
        if self._done:
            cb(self)
        else:
            self._callbacks.append(cb)


def _fenced_join(member_id: str) -> JoinResult:
    return JoinResult(E.FENCED_INSTANCE_ID, member_id)


class GroupCoordinator:
    """All classic groups whose `__consumer_offsets` partition this broker leads."""

    def __init__(self, config: GroupCoordinatorConfig, offsets_log: OffsetsLog,
                 future_factory: Callable[[], Any] = _ImmediateFuture,
                 owned_partitions: Iterable[int] | None = None,
                 member_id_factory: Callable[[str], str] | None = None) -> None:
        self.config = config
        self.log = offsets_log
        self.future_factory = future_factory
        self.groups: dict[str, ClassicGroup] = {}
        n = config.offsets_topic_num_partitions
        self.owned_partitions: set[int] = set(range(n) if owned_partitions is None
                                              else owned_partitions)
        self.loading_partitions: set[int] = set()
        self.active = True
        self._member_id_factory = member_id_factory or (
            lambda prefix: f"{prefix}-{uuid.uuid4()}")
        self._next_offsets_expiry: int | None = None
        # Every deadline ever set, as a min-heap: `poll` scans the groups only when the
        # earliest one is due (entries of deadlines since cleared just cost one scan).
        self._wakeups: list[int] = []

    # ================================================================ helpers
    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self.config.offsets_topic_num_partitions)

    def _validate_group_status(self, group_id: str | None, api: str) -> int | None:
        if group_id is None or (group_id == "" and api not in _EMPTY_ID_OK):
            return E.INVALID_GROUP_ID
        if not self.active:
            return E.COORDINATOR_NOT_AVAILABLE
        p = self.partition_for(group_id)
        if p in self.loading_partitions:
            return E.COORDINATOR_LOAD_IN_PROGRESS
        if p not in self.owned_partitions:
            return E.NOT_COORDINATOR
        return None

    def _new_future(self, result: Any = None) -> Any:
        fut = self.future_factory()
        if result is not None:
            fut.set_result(result)
        return fut

    def _wake(self, deadline: int) -> int:
        heapq.heappush(self._wakeups, deadline)
        return deadline

    def _schedule_heartbeat(self, member: Member, now_ms: int, timeout_ms: int | None = None) -> None:
        member.heartbeat_deadline = self._wake(
            now_ms + (member.session_timeout_ms if timeout_ms is None else timeout_ms))

    @staticmethod
    def _invoke_join(group: ClassicGroup, member: Member, result: JoinResult) -> None:
        fut, member.join_future = member.join_future, None
        complete(fut, result)

    @staticmethod
    def _invoke_sync(member: Member, result: SyncResult) -> bool:
        fut, member.sync_future = member.sync_future, None
        if fut is None:
            return False
        complete(fut, result)
        return True

    def _accept_joining_member(self, group: ClassicGroup, member_id: str) -> bool:
        if group.state in (GroupState.EMPTY, GroupState.DEAD):
            return True
        if group.is_(GroupState.PREPARING_REBALANCE):
            return ((group.has(member_id) and group.members[member_id].awaiting_join)
                    or group.num_awaiting_join < self.config.group_max_size)
        return group.has(member_id) or group.size < self.config.group_max_size

    @staticmethod
    def _validate_current_member(group: ClassicGroup, member_id: str,
                                 group_instance_id: str | None) -> int | None:
        if group_instance_id is not None:
            current = group.static_members.get(group_instance_id)
            if current is None:
                return E.UNKNOWN_MEMBER_ID
            if current != member_id:
                return E.FENCED_INSTANCE_ID
            return None
        return None if group.has(member_id) else E.UNKNOWN_MEMBER_ID

    # ================================================================ JoinGroup
    def join_group(self, group_id: str, member_id: str, group_instance_id: str | None,
                   require_known_member_id: bool, support_skipping_assignment: bool,
                   client_id: str, client_host: str, rebalance_timeout_ms: int,
                   session_timeout_ms: int, protocol_type: str,
                   protocols: list[tuple[str, bytes]], now_ms: int) -> Any:
        """A future resolved with a JoinResult."""
        err = self._validate_group_status(group_id, "JoinGroup")
        if err is not None:
            return self._new_future(JoinResult(err, member_id))
        if not (self.config.group_min_session_timeout_ms <= session_timeout_ms
                <= self.config.group_max_session_timeout_ms):
            return self._new_future(JoinResult(E.INVALID_SESSION_TIMEOUT, member_id))
        protocols = [(name, bytes(meta)) for name, meta in protocols]
        is_unknown = member_id == UNKNOWN_MEMBER_ID
        group = self.groups.get(group_id)
        if group is None or group.is_(GroupState.DEAD):
            if not is_unknown:
                return self._new_future(JoinResult(E.UNKNOWN_MEMBER_ID, member_id))
            group = self.groups[group_id] = ClassicGroup(group_id, now_ms)
        fut = self.future_factory()
        if not self._accept_joining_member(group, member_id):
            group.remove(member_id)
            fut.set_result(JoinResult(E.GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID))
        elif is_unknown:
            self._new_member_join(group, group_instance_id, require_known_member_id,
                                  support_skipping_assignment, client_id, client_host,
                                  rebalance_timeout_ms, session_timeout_ms, protocol_type,
                                  protocols, fut, now_ms)
        else:
            self._current_member_join(group, member_id, group_instance_id, client_id,
                                      client_host, rebalance_timeout_ms, session_timeout_ms,
                                      protocol_type, protocols, fut, now_ms)
        if group.is_(GroupState.PREPARING_REBALANCE):
            self._try_complete_join(group, now_ms)
        return fut

    def _new_member_join(self, group, instance_id, require_known, support_skip, client_id,
                         client_host, rebalance_ms, session_ms, protocol_type, protocols,
                         fut, now_ms) -> None:
        if group.is_(GroupState.DEAD):
            fut.set_result(JoinResult(E.COORDINATOR_NOT_AVAILABLE))
            return
        if not group.supports_protocols(protocol_type, {n for n, _ in protocols}):
            fut.set_result(JoinResult(E.INCONSISTENT_GROUP_PROTOCOL))
            return
        new_id = self._member_id_factory(instance_id if instance_id is not None else client_id)
        if instance_id is not None:
            old_id = group.static_members.get(instance_id)
            if old_id is not None:
                self._update_static_member_and_rebalance(
                    group, old_id, new_id, instance_id, protocols, rebalance_ms, session_ms,
                    fut, support_skip, now_ms)
            else:
                self._add_member_and_rebalance(group, new_id, instance_id, client_id,
                                               client_host, rebalance_ms, session_ms,
                                               protocol_type, protocols, fut, now_ms)
        elif require_known:
            group.pending_members[new_id] = self._wake(now_ms + session_ms)
            fut.set_result(JoinResult(E.MEMBER_ID_REQUIRED, new_id))
        else:
            self._add_member_and_rebalance(group, new_id, None, client_id, client_host,
                                           rebalance_ms, session_ms, protocol_type, protocols,
                                           fut, now_ms)

    def _current_member_join(self, group, member_id, instance_id, client_id, client_host,
                             rebalance_ms, session_ms, protocol_type, protocols, fut,
                             now_ms) -> None:
        if group.is_(GroupState.DEAD):
            fut.set_result(JoinResult(E.COORDINATOR_NOT_AVAILABLE, member_id))
            return
        if not group.supports_protocols(protocol_type, {n for n, _ in protocols}):
            fut.set_result(JoinResult(E.INCONSISTENT_GROUP_PROTOCOL, member_id))
            return
        if member_id in group.pending_members:
            # Pending members are dynamic (KIP-394); a static one here is a client bug.
            self._add_member_and_rebalance(group, member_id, None, client_id, client_host,
                                           rebalance_ms, session_ms, protocol_type, protocols,
                                           fut, now_ms)
            return
        err = self._validate_current_member(group, member_id, instance_id)
        if err is not None:
            fut.set_result(JoinResult(err, member_id))
            return
        member = group.members[member_id]
        state = group.state
        if state is GroupState.PREPARING_REBALANCE:
            self._update_member_and_rebalance(group, member, protocols, rebalance_ms,
                                              session_ms, fut, now_ms)
        elif state is GroupState.COMPLETING_REBALANCE:
            if member.matches(protocols):
                # Lost its JoinGroup response: answer again for the current generation.
                fut.set_result(JoinResult(
                    E.NONE, member_id, group.generation_id, group.protocol_type,
                    group.protocol_name, group.leader_id or "", False,
                    group.current_member_metadata() if group.is_leader(member_id) else []))
            else:
                self._update_member_and_rebalance(group, member, protocols, rebalance_ms,
                                                  session_ms, fut, now_ms)
        elif state is GroupState.STABLE:
            if group.is_leader(member_id) or not member.matches(protocols):
                # The leader rejoining means it wants a new assignment (e.g. metadata change).
                self._update_member_and_rebalance(group, member, protocols, rebalance_ms,
                                                  session_ms, fut, now_ms)
            else:
                fut.set_result(JoinResult(
                    E.NONE, member_id, group.generation_id, group.protocol_type,
                    group.protocol_name, group.leader_id or "", False, []))
        else:
            fut.set_result(JoinResult(E.UNKNOWN_MEMBER_ID, member_id))

    def _add_member_and_rebalance(self, group, member_id, instance_id, client_id, client_host,
                                  rebalance_ms, session_ms, protocol_type, protocols, fut,
                                  now_ms) -> None:
        member = Member(member_id, instance_id, client_id, client_host, rebalance_ms,
                        session_ms, protocol_type, protocols)
        member.is_new = True
        if group.is_(GroupState.PREPARING_REBALANCE) and group.generation_id == 0:
            group.new_member_added = True
        group.add(member, fut)
        # A new member cannot heartbeat yet; bound how long its JoinGroup may linger.
        self._schedule_heartbeat(member, now_ms, NEW_MEMBER_JOIN_TIMEOUT_MS)
        self._maybe_prepare_rebalance(group, now_ms)

    def _update_member_and_rebalance(self, group, member, protocols, rebalance_ms, session_ms,
                                     fut, now_ms) -> None:
        if member.join_future is not None and member.join_future is not fut:
            # A retried JoinGroup replaces the parked one; answer the old one as Kafka's
            # purgatory would never do, so the waiter is not left hanging.
            complete(member.join_future, JoinResult(E.REBALANCE_IN_PROGRESS, member.member_id))
        group.update_member(member, protocols, rebalance_ms, session_ms, fut)
        self._maybe_prepare_rebalance(group, now_ms)

    def _update_static_member_and_rebalance(self, group, old_id, new_id, instance_id,
                                            protocols, rebalance_ms, session_ms, fut,
                                            support_skip, now_ms) -> None:
        current_leader = group.leader_id
        member = group.replace_static_member(instance_id, old_id, new_id, _fenced_join,
                                             SyncResult(E.FENCED_INSTANCE_ID))
        self._schedule_heartbeat(member, now_ms)
        old_protocols = member.protocols
        old_rebalance, old_session = member.rebalance_timeout_ms, member.session_timeout_ms
        group.update_member(member, protocols, rebalance_ms, session_ms, fut)
        state = group.state
        if state is GroupState.STABLE:
            if group.protocol_name == group.select_protocol():
                # Same selected protocol: no rebalance, just persist the new member id.
                err = self._store_group(group, {m.member_id: m.assignment
                                                for m in group.members.values()}, now_ms)
                if err != E.NONE:
                    group.update_member(member, old_protocols, old_rebalance, old_session, None)
                    old = group.replace_static_member(instance_id, new_id, old_id,
                                                      _fenced_join,
                                                      SyncResult(E.FENCED_INSTANCE_ID))
                    self._schedule_heartbeat(old, now_ms)
                    complete(fut, JoinResult(err, UNKNOWN_MEMBER_ID, group.generation_id,
                                             group.protocol_type, group.protocol_name,
                                             current_leader or ""))
                elif support_skip:
                    is_leader = group.is_leader(new_id)
                    self._invoke_join(group, member, JoinResult(
                        E.NONE, new_id, group.generation_id, group.protocol_type,
                        group.protocol_name, group.leader_id or "", is_leader,
                        group.current_member_metadata() if is_leader else []))
                else:
                    # Old leader id: a restarted static leader must not run the assignor
                    # for a Stable group whose new assignment would not be propagated.
                    self._invoke_join(group, member, JoinResult(
                        E.NONE, new_id, group.generation_id, group.protocol_type,
                        group.protocol_name, current_leader or "", False, []))
            else:
                self._maybe_prepare_rebalance(group, now_ms)
        elif state is GroupState.COMPLETING_REBALANCE:
            self._prepare_rebalance(group, now_ms)
        # PreparingRebalance: the member now waits for the join to complete.

    # ================================================================ rebalance
    def _maybe_prepare_rebalance(self, group: ClassicGroup, now_ms: int) -> None:
        if group.can_rebalance():
            self._prepare_rebalance(group, now_ms)

    def _prepare_rebalance(self, group: ClassicGroup, now_ms: int) -> None:
        if group.is_(GroupState.COMPLETING_REBALANCE):
            self._reset_and_propagate_assignment_error(group, E.REBALANCE_IN_PROGRESS, now_ms)
        group.pending_sync_members.clear()
        group.sync_deadline = None
        was_empty = group.is_(GroupState.EMPTY)
        group.transition_to(GroupState.PREPARING_REBALANCE, now_ms)
        delay = self.config.group_initial_rebalance_delay_ms
        if was_empty and delay > 0:
            group.initial_delay_active = True
            group.initial_last_delay_ms = delay
            group.initial_remaining_ms = max(group.rebalance_timeout_ms - delay, 0)
            group.join_deadline = self._wake(now_ms + delay)
        elif was_empty:
            group.initial_delay_active = False
            group.join_deadline = None
            self._on_complete_join(group, now_ms)
        else:
            group.initial_delay_active = False
            group.join_deadline = self._wake(now_ms + group.rebalance_timeout_ms)
            self._try_complete_join(group, now_ms)

    def _try_complete_join(self, group: ClassicGroup, now_ms: int) -> None:
        if (group.is_(GroupState.PREPARING_REBALANCE) and not group.initial_delay_active
                and group.join_deadline is not None and group.has_all_members_joined()):
            self._on_complete_join(group, now_ms)

    def _on_initial_delay_expired(self, group: ClassicGroup, now_ms: int) -> None:
        if group.new_member_added and group.initial_remaining_ms != 0:
            group.new_member_added = False
            delay = min(self.config.group_initial_rebalance_delay_ms, group.initial_remaining_ms)
            group.initial_remaining_ms = max(group.initial_remaining_ms
                                             - group.initial_last_delay_ms, 0)
            group.initial_last_delay_ms = delay
            group.join_deadline = self._wake(now_ms + delay)
        else:
            self._on_complete_join(group, now_ms)

    def _on_complete_join(self, group: ClassicGroup, now_ms: int) -> None:
        group.join_deadline = None
        group.initial_delay_active = False
        for m in [m for m in group.not_yet_rejoined() if not m.is_static]:
            self._invoke_sync(m, SyncResult(E.UNKNOWN_MEMBER_ID))
            group.remove(m.member_id)
        if group.is_(GroupState.DEAD):
            return
        if not group.maybe_elect_new_joined_leader() and group.members:
            # Nobody rejoined (only static members remain): wait another rebalance timeout
            # and let session expiry remove the silent ones.
            group.join_deadline = self._wake(now_ms + group.rebalance_timeout_ms)
            return
        group.init_next_generation(now_ms)
        if group.is_(GroupState.EMPTY):
            err = self._store_group(group, {}, now_ms)
            if err != E.NONE:
                log.warning("failed to write empty metadata for group %s: error %s",
                            group.group_id, err)
            return
        leader_members = group.current_member_metadata()
        for m in list(group.members.values()):
            self._invoke_join(group, m, JoinResult(
                E.NONE, m.member_id, group.generation_id, group.protocol_type,
                group.protocol_name, group.leader_id or "", False,
                leader_members if group.is_leader(m.member_id) else []))
            self._schedule_heartbeat(m, now_ms)
            m.is_new = False
            group.pending_sync_members.add(m.member_id)
        group.sync_deadline = self._wake(now_ms + group.rebalance_timeout_ms)

    def _reset_and_propagate_assignment_error(self, group: ClassicGroup, error: int,
                                              now_ms: int) -> None:
        for m in group.members.values():
            m.assignment = b""
        self._propagate_assignment(group, error, now_ms)

    def _propagate_assignment(self, group: ClassicGroup, error: int, now_ms: int) -> None:
        ptype, pname = ((group.protocol_type, group.protocol_name) if error == E.NONE
                        else (None, None))
        for m in group.members.values():
            if self._invoke_sync(m, SyncResult(error, ptype, pname, m.assignment)):
                self._schedule_heartbeat(m, now_ms)

    def _remove_member_and_update_group(self, group: ClassicGroup, member: Member,
                                        now_ms: int) -> None:
        self._invoke_join(group, member, JoinResult(E.UNKNOWN_MEMBER_ID, UNKNOWN_MEMBER_ID))
        self._invoke_sync(member, SyncResult(E.UNKNOWN_MEMBER_ID))
        member.heartbeat_deadline = None
        group.remove(member.member_id)
        if group.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
            self._maybe_prepare_rebalance(group, now_ms)
        elif group.is_(GroupState.PREPARING_REBALANCE):
            self._try_complete_join(group, now_ms)

    def _remove_pending_member_and_update_group(self, group: ClassicGroup, member_id: str,
                                                now_ms: int) -> None:
        group.remove(member_id)
        if group.is_(GroupState.PREPARING_REBALANCE):
            self._try_complete_join(group, now_ms)

    def _remove_pending_sync_member(self, group: ClassicGroup, member_id: str) -> None:
        group.pending_sync_members.discard(member_id)
        if not group.pending_sync_members:
            group.sync_deadline = None

    def _on_expire_pending_sync(self, group: ClassicGroup, now_ms: int) -> None:
        group.sync_deadline = None
        if group.state not in (GroupState.COMPLETING_REBALANCE, GroupState.STABLE):
            return
        if group.pending_sync_members:
            for mid in list(group.pending_sync_members):
                m = group.members.get(mid)
                if m is not None:
                    m.heartbeat_deadline = None
                group.remove(mid)
            self._prepare_rebalance(group, now_ms)

    # ================================================================ SyncGroup
    def sync_group(self, group_id: str, generation_id: int, member_id: str,
                   protocol_type: str | None, protocol_name: str | None,
                   group_instance_id: str | None, assignments: dict[str, bytes],
                   now_ms: int) -> Any:
        """A future resolved with a SyncResult."""
        err = self._validate_group_status(group_id, "SyncGroup")
        if err == E.COORDINATOR_LOAD_IN_PROGRESS:
            # The rebalance state is gone: make the member rejoin without rediscovery.
            return self._new_future(SyncResult(E.REBALANCE_IN_PROGRESS))
        if err is not None:
            return self._new_future(SyncResult(err))
        group = self.groups.get(group_id)
        if group is None:
            return self._new_future(SyncResult(E.UNKNOWN_MEMBER_ID))
        if group.is_(GroupState.DEAD):
            return self._new_future(SyncResult(E.COORDINATOR_NOT_AVAILABLE))
        err = self._validate_current_member(group, member_id, group_instance_id)
        if err is None:
            if generation_id != group.generation_id:
                err = E.ILLEGAL_GENERATION
            elif protocol_type is not None and group.protocol_type != protocol_type:
                err = E.INCONSISTENT_GROUP_PROTOCOL
            elif protocol_name is not None and group.protocol_name != protocol_name:
                err = E.INCONSISTENT_GROUP_PROTOCOL
        if err is not None:
            return self._new_future(SyncResult(err))
        state = group.state
        if state is GroupState.EMPTY:
            return self._new_future(SyncResult(E.UNKNOWN_MEMBER_ID))
        if state is GroupState.PREPARING_REBALANCE:
            return self._new_future(SyncResult(E.REBALANCE_IN_PROGRESS))
        member = group.members[member_id]
        if state is GroupState.STABLE:
            self._remove_pending_sync_member(group, member_id)
            self._schedule_heartbeat(member, now_ms)
            return self._new_future(SyncResult(E.NONE, group.protocol_type, group.protocol_name,
                                               member.assignment))
        # CompletingRebalance: park until the leader's assignment is stored.
        fut = self.future_factory()
        if member.sync_future is not None:
            complete(member.sync_future, SyncResult(E.REBALANCE_IN_PROGRESS))
        member.sync_future = fut
        self._remove_pending_sync_member(group, member_id)
        if group.is_leader(member_id):
            assignment = {mid: bytes(assignments.get(mid, b"") or b"") for mid in group.members}
            err = self._store_group(group, assignment, now_ms)
            if group.is_(GroupState.COMPLETING_REBALANCE) and generation_id == group.generation_id:
                if err != E.NONE:
                    self._reset_and_propagate_assignment_error(
                        group, E.append_error_to_group_error(err), now_ms)
                    self._maybe_prepare_rebalance(group, now_ms)
                else:
                    for mid, m in group.members.items():
                        m.assignment = assignment[mid]
                    self._propagate_assignment(group, E.NONE, now_ms)
                    group.transition_to(GroupState.STABLE, now_ms)
        return fut

    # ================================================================ Heartbeat
    def heartbeat(self, group_id: str, member_id: str, group_instance_id: str | None,
                  generation_id: int, now_ms: int) -> int:
        err = self._validate_group_status(group_id, "Heartbeat")
        if err == E.COORDINATOR_LOAD_IN_PROGRESS:
            return E.NONE
        if err is not None:
            return err
        group = self.groups.get(group_id)
        if group is None:
            return E.UNKNOWN_MEMBER_ID
        if group.is_(GroupState.DEAD):
            return E.COORDINATOR_NOT_AVAILABLE
        err = self._validate_current_member(group, member_id, group_instance_id)
        if err is not None:
            return err
        if generation_id != group.generation_id:
            return E.ILLEGAL_GENERATION
        if group.is_(GroupState.EMPTY):
            return E.UNKNOWN_MEMBER_ID
        self._schedule_heartbeat(group.members[member_id], now_ms)
        if group.is_(GroupState.PREPARING_REBALANCE):
            return E.REBALANCE_IN_PROGRESS
        return E.NONE

    # ================================================================ LeaveGroup
    def leave_group(self, group_id: str, members: list[tuple[str, str | None]],
                    now_ms: int) -> tuple[int, list[tuple[str, str | None, int]]]:
        """(top-level error, [(member id, group instance id, error)])."""
        err = self._validate_group_status(group_id, "LeaveGroup")
        if err is not None:
            return err, []
        group = self.groups.get(group_id)
        if group is None:
            return E.NONE, [(mid, iid, E.UNKNOWN_MEMBER_ID) for mid, iid in members]
        if group.is_(GroupState.DEAD):
            return E.COORDINATOR_NOT_AVAILABLE, []
        out = []
        for mid, iid in members:
            if mid == UNKNOWN_MEMBER_ID:
                # Administrative removal by group.instance.id.
                current = group.static_members.get(iid) if iid is not None else None
                if current is None:
                    out.append((mid, iid, E.UNKNOWN_MEMBER_ID))
                else:
                    self._remove_member_and_update_group(group, group.members[current], now_ms)
                    out.append((mid, iid, E.NONE))
            elif mid in group.pending_members:
                self._remove_pending_member_and_update_group(group, mid, now_ms)
                out.append((mid, iid, E.NONE))
            else:
                e = self._validate_current_member(group, mid, iid)
                if e is None:
                    self._remove_member_and_update_group(group, group.members[mid], now_ms)
                    e = E.NONE
                out.append((mid, iid, e))
        return E.NONE, out

    # ================================================================ offsets
    def commit_offsets(self, group_id: str, member_id: str, group_instance_id: str | None,
                       generation_id: int, offsets: dict[tuple[str, int], OffsetAndMetadata],
                       now_ms: int) -> dict[tuple[str, int], int]:
        err = self._validate_group_status(group_id, OFFSET_COMMIT)
        if err is not None:
            return {tp: err for tp in offsets}
        group = self.groups.get(group_id)
        if group is None or group.is_(GroupState.DEAD):
            if generation_id >= 0:
                return {tp: E.ILLEGAL_GENERATION for tp in offsets}
            # A consumer outside group management storing offsets: a "simple" group.
            group = self.groups[group_id] = ClassicGroup(group_id, now_ms)
        err = self._validate_offset_commit(group, generation_id, member_id, group_instance_id)
        if err is not None:
            return {tp: err for tp in offsets}
        if group.is_(GroupState.COMPLETING_REBALANCE):
            return {tp: E.REBALANCE_IN_PROGRESS for tp in offsets}
        if group.state in (GroupState.STABLE, GroupState.PREPARING_REBALANCE):
            member = group.members.get(member_id)
            if member is not None:
                self._schedule_heartbeat(member, now_ms)
        return self._store_offsets(group, offsets, now_ms)

    @staticmethod
    def _validate_offset_commit(group: ClassicGroup, generation_id: int, member_id: str,
                                group_instance_id: str | None) -> int | None:
        if group.is_(GroupState.DEAD):
            return E.COORDINATOR_NOT_AVAILABLE
        if generation_id < 0 and group.is_(GroupState.EMPTY):
            return None
        if (generation_id >= 0 or member_id != UNKNOWN_MEMBER_ID
                or group_instance_id is not None):
            err = GroupCoordinator._validate_current_member(group, member_id, group_instance_id)
            if err is not None:
                return err
            return E.ILLEGAL_GENERATION if generation_id != group.generation_id else None
        if not group.is_(GroupState.EMPTY):
            return E.UNKNOWN_MEMBER_ID
        return None

    def _store_offsets(self, group: ClassicGroup,
                       offsets: dict[tuple[str, int], OffsetAndMetadata],
                       now_ms: int) -> dict[tuple[str, int], int]:
        result: dict[tuple[str, int], int] = {}
        valid: dict[tuple[str, int], OffsetAndMetadata] = {}
        limit = self.config.offset_metadata_max_bytes
        for tp, om in offsets.items():
            if om.metadata is not None and len(om.metadata.encode("utf-8")) > limit:
                result[tp] = E.OFFSET_METADATA_TOO_LARGE
            else:
                valid[tp] = om
        if valid:
            records = [(encode_offset_commit_key(group.group_id, t, p),
                        encode_offset_commit_value(om)) for (t, p), om in valid.items()]
            try:
                self.log.append(self.partition_for(group.group_id), records, now_ms)
                code = E.NONE
            except OffsetsLogError as e:
                code = E.append_error_to_commit_error(e.error_code)
            for tp, om in valid.items():
                if code == E.NONE:
                    group.offsets[tp] = om
                result[tp] = code
        return {tp: result[tp] for tp in offsets}

    def fetch_offsets(self, group_id: str, partitions: list[tuple[str, int]] | None,
                      require_stable: bool = False
                      ) -> tuple[int, dict[tuple[str, int], FetchedOffset]]:
        """Committed offsets of the group; `partitions=None` means all of them.
        Offsets are never pending here (commits are acknowledged after the append and
        transactional commits do not reach this coordinator), so require_stable never
        has to answer UNSTABLE_OFFSET_COMMIT."""
        err = self._validate_group_status(group_id, OFFSET_FETCH)
        if err is not None:
            return err, {}
        group = self.groups.get(group_id)
        offsets = {} if group is None or group.is_(GroupState.DEAD) else group.offsets
        if partitions is None:
            return E.NONE, {tp: FetchedOffset(om.offset, om.leader_epoch, om.metadata)
                            for tp, om in offsets.items()}
        out = {}
        for tp in partitions:
            om = offsets.get(tp)
            out[tp] = (FetchedOffset(-1, -1, "") if om is None
                       else FetchedOffset(om.offset, om.leader_epoch, om.metadata))
        return E.NONE, out

    def delete_offsets(self, group_id: str, partitions: list[tuple[str, int]], now_ms: int
                       ) -> tuple[int, dict[tuple[str, int], int]]:
        err = self._validate_group_status(group_id, "OffsetDelete")
        if err is not None:
            return err, {}
        group = self.groups.get(group_id)
        if group is None or group.is_(GroupState.DEAD):
            return E.GROUP_ID_NOT_FOUND, {}
        errors: dict[tuple[str, int], int] = {}
        eligible: list[tuple[str, int]] = []
        if group.is_(GroupState.EMPTY):
            eligible = list(partitions)
        elif group.protocol_type == "consumer":
            for tp in partitions:
                if group.is_subscribed_to_topic(tp[0]):
                    errors[tp] = E.GROUP_SUBSCRIBED_TO_TOPIC
                else:
                    eligible.append(tp)
        else:
            return E.NON_EMPTY_GROUP, {}
        if eligible:
            self._cleanup_group(group, lambda g: self._remove_offsets(g, eligible), now_ms)
            for tp in eligible:
                errors[tp] = E.NONE
        return E.NONE, {tp: errors[tp] for tp in partitions if tp in errors}

    @staticmethod
    def _remove_offsets(group: ClassicGroup, partitions: Iterable[tuple[str, int]]
                        ) -> dict[tuple[str, int], OffsetAndMetadata]:
        removed = {}
        for tp in partitions:
            om = group.offsets.pop(tp, None)
            if om is not None:
                removed[tp] = om
        return removed

    def _cleanup_group(self, group: ClassicGroup, selector, now_ms: int) -> int:
        """Remove the offsets `selector` picks, make an Empty group without offsets
        Dead, and write the tombstones (Kafka's cleanupGroupMetadata)."""
        removed = selector(group)
        if group.is_(GroupState.EMPTY) and not group.offsets:
            group.transition_to(GroupState.DEAD, now_ms)
        tombstones = [(encode_offset_commit_key(group.group_id, t, p), None)
                      for (t, p) in removed]
        if group.is_(GroupState.DEAD):
            if self.groups.get(group.group_id) is group:
                del self.groups[group.group_id]
            if group.generation_id > 0:
                tombstones.append((encode_group_metadata_key(group.group_id), None))
        if tombstones:
            try:
                self.log.append(self.partition_for(group.group_id), tombstones, now_ms)
            except OffsetsLogError as e:
                log.warning("failed to write tombstones for group %s: error %s",
                            group.group_id, e.error_code)
        return len(removed)

    def _remove_expired_offsets(self, group: ClassicGroup, now_ms: int
                                ) -> dict[tuple[str, int], OffsetAndMetadata]:
        retention = self.config.offsets_retention_ms

        def expired(base, skip_topics=frozenset()):
            out = []
            for tp, om in group.offsets.items():
                if tp[0] in skip_topics:
                    continue
                if om.expire_timestamp >= 0:
                    if now_ms >= om.expire_timestamp:
                        out.append(tp)
                elif now_ms - base(om) >= retention:
                    out.append(tp)
            return out

        if group.protocol_type is not None and group.is_(GroupState.EMPTY):
            ts = group.state_timestamp
            victims = expired(lambda om: om.commit_timestamp if ts is None else ts)
        elif (group.protocol_type == "consumer" and group.subscribed_topics is not None
              and group.is_(GroupState.STABLE)):
            victims = expired(lambda om: om.commit_timestamp, group.subscribed_topics)
        elif group.protocol_type is None:
            victims = expired(lambda om: om.commit_timestamp)
        else:
            victims = []
        return self._remove_offsets(group, victims)

    def on_topics_deleted(self, topics: Iterable[str], now_ms: int) -> int:
        """Forget the committed offsets of deleted topics in every group (with
        tombstones), as Kafka does when partitions are deleted. Returns how many."""
        gone = set(topics)
        removed = 0
        for group in list(self.groups.values()):
            if group.is_(GroupState.DEAD):
                continue
            victims = [tp for tp in group.offsets if tp[0] in gone]
            if victims:
                removed += self._cleanup_group(
                    group, lambda g, v=victims: self._remove_offsets(g, v), now_ms)
        return removed

    def delete_groups(self, group_ids: list[str], now_ms: int) -> dict[str, int]:
        result: dict[str, int] = {}
        for gid in group_ids:
            err = self._validate_group_status(gid, DELETE_GROUPS)
            if err is not None:
                result[gid] = err
                continue
            group = self.groups.get(gid)
            if group is None or group.is_(GroupState.DEAD):
                result[gid] = E.GROUP_ID_NOT_FOUND
            elif group.is_(GroupState.EMPTY):
                group.transition_to(GroupState.DEAD, now_ms)
                self._cleanup_group(group, lambda g: self._remove_offsets(g, list(g.offsets)),
                                    now_ms)
                result[gid] = E.NONE
            else:
                result[gid] = E.NON_EMPTY_GROUP
        return result

    # ================================================================ admin
    def list_groups(self, states: list[str] | None = None, types: list[str] | None = None
                    ) -> tuple[int, list[GroupOverview]]:
        if not self.active:
            return E.COORDINATOR_NOT_AVAILABLE, []
        err = E.COORDINATOR_LOAD_IN_PROGRESS if self.loading_partitions else E.NONE
        if types and "classic" not in {t.lower() for t in types}:
            return err, []
        wanted = {s.lower() for s in states} if states else None
        out = [GroupOverview(g.group_id, g.protocol_type or "", g.state.value)
               for g in self.groups.values()
               if not g.is_(GroupState.DEAD)
               and (wanted is None or g.state.value.lower() in wanted)]
        return err, out

    def describe_group(self, group_id: str) -> GroupSummary:
        err = self._validate_group_status(group_id, DESCRIBE_GROUPS)
        if err is not None:
            return GroupSummary(group_id, err, "", "", "")
        group = self.groups.get(group_id)
        if group is None:
            return GroupSummary(group_id, E.NONE, GroupState.DEAD.value, "", "")
        if group.is_(GroupState.STABLE):
            proto = group.protocol_name or ""
            members = [MemberSummary(m.member_id, m.group_instance_id, m.client_id,
                                     m.client_host, m.metadata(proto), m.assignment)
                       for m in group.members.values()]
        else:
            proto = ""
            members = [MemberSummary(m.member_id, m.group_instance_id, m.client_id,
                                     m.client_host, b"", b"")
                       for m in group.members.values()]
        return GroupSummary(group_id, E.NONE, group.state.value, group.protocol_type or "",
                            proto, members)

    # ================================================================ timers
    def next_deadline(self) -> int | None:
        """The earliest time `poll` may have work to do (None: nothing scheduled)."""
        return self._wakeups[0] if self._wakeups else None

    def poll(self, now_ms: int) -> None:
        """Fire every timer due at `now_ms`: session and pending-member expiry, join
        (rebalance / initial delay) completion, pending-sync expiry, offset expiry."""
        if self._next_offsets_expiry is not None:
            if not self._wakeups or self._wakeups[0] > now_ms:
                return
            while self._wakeups and self._wakeups[0] <= now_ms:
                heapq.heappop(self._wakeups)
        for group in list(self.groups.values()):
            if group.is_(GroupState.DEAD):
                continue
            for mid, deadline in list(group.pending_members.items()):
                if now_ms >= deadline and mid in group.pending_members:
                    self._remove_pending_member_and_update_group(group, mid, now_ms)
            for m in list(group.members.values()):
                d = m.heartbeat_deadline
                if d is None or now_ms < d or group.members.get(m.member_id) is not m:
                    continue
                if not m.is_new and (m.awaiting_join or m.awaiting_sync):
                    m.heartbeat_deadline = None      # parked requests count as alive
                else:
                    self._remove_member_and_update_group(group, m, now_ms)
            if (group.is_(GroupState.PREPARING_REBALANCE) and group.join_deadline is not None
                    and now_ms >= group.join_deadline):
                if group.initial_delay_active:
                    self._on_initial_delay_expired(group, now_ms)
                else:
                    self._on_complete_join(group, now_ms)
            if group.sync_deadline is not None and now_ms >= group.sync_deadline:
                self._on_expire_pending_sync(group, now_ms)
        if self._next_offsets_expiry is None:
            self._next_offsets_expiry = self._wake(
                now_ms + self.config.offsets_retention_check_interval_ms)
        elif now_ms >= self._next_offsets_expiry:
            self._next_offsets_expiry = self._wake(
                now_ms + self.config.offsets_retention_check_interval_ms)
            self.expire_offsets(now_ms)

    def expire_offsets(self, now_ms: int) -> int:
        removed = 0
        for group in list(self.groups.values()):
            if not group.is_(GroupState.DEAD):
                removed += self._cleanup_group(
                    group, lambda g: self._remove_expired_offsets(g, now_ms), now_ms)
        return removed

    # ================================================================ persistence
    def _store_group(self, group: ClassicGroup, assignment: dict[str, bytes], now_ms: int) -> int:
        members = []
        if group.members:
            for m in group.members.values():
                members.append(MemberRecord(
                    m.member_id, m.group_instance_id, m.client_id, m.client_host,
                    m.rebalance_timeout_ms, m.session_timeout_ms,
                    m.metadata(group.protocol_name), assignment.get(m.member_id, b"")))
        value = GroupMetadataValue(group.protocol_type or "", group.generation_id,
                                   group.protocol_name, group.leader_id,
                                   group.state_timestamp if group.state_timestamp is not None
                                   else -1, members)
        try:
            self.log.append(self.partition_for(group.group_id),
                            [(encode_group_metadata_key(group.group_id),
                              encode_group_metadata_value(value))], now_ms)
        except OffsetsLogError as e:
            return e.error_code
        return E.NONE

    def load_partition(self, partition: int, now_ms: int) -> int:
        """Become coordinator of `partition`: replay it into groups. Returns how many
        groups were loaded."""
        self.loading_partitions.add(partition)
        try:
            offsets: dict[str, dict[tuple[str, int], OffsetAndMetadata]] = {}
            metas: dict[str, GroupMetadataValue | None] = {}
            for key_bytes, value in self.log.read(partition):
                try:
                    key = decode_key(key_bytes)
                    if isinstance(key, OffsetCommitKey):
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
            loaded = 0
            for gid in set(offsets) | set(metas):
                meta = metas.get(gid)
                group_offsets = offsets.get(gid, {})
                if meta is None and not group_offsets:
                    continue
                old = self.groups.get(gid)
                if old is not None:
                    self._fail_parked(old, E.NOT_COORDINATOR)
                group = self._build_group(gid, meta, now_ms)
                group.offsets = dict(group_offsets)
                self.groups[gid] = group
                loaded += 1
                for m in group.members.values():
                    self._schedule_heartbeat(m, now_ms)
                if group.size > self.config.group_max_size:
                    self._prepare_rebalance(group, now_ms)
            self.owned_partitions.add(partition)
            return loaded
        finally:
            self.loading_partitions.discard(partition)

    @staticmethod
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

    def unload_partition(self, partition: int) -> None:
        """Stop coordinating `partition` (leadership moved or shutdown)."""
        self.owned_partitions.discard(partition)
        for gid, group in list(self.groups.items()):
            if self.partition_for(gid) == partition:
                self._fail_parked(group, E.NOT_COORDINATOR)
                group.state = GroupState.DEAD
                del self.groups[gid]

    def _fail_parked(self, group: ClassicGroup, error: int) -> None:
        for m in group.members.values():
            self._invoke_join(group, m, JoinResult(error, m.member_id))
            self._invoke_sync(m, SyncResult(error))

    def shutdown(self) -> None:
        """Answer every parked JoinGroup/SyncGroup with NOT_COORDINATOR and stop."""
        self.active = False
        for group in self.groups.values():
            self._fail_parked(group, E.NOT_COORDINATOR)
