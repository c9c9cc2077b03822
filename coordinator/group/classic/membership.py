"""Group membership of the classic protocol: JoinGroup, SyncGroup, Heartbeat,
LeaveGroup and the rebalance steps between them (Kafka's classic GroupCoordinator:
states Empty, PreparingRebalance, CompletingRebalance, Stable, Dead; KIP-394 member
ids; static membership (KIP-345) with fencing; group.initial.rebalance.delay.ms;
pending-sync expiry).

Who calls it: GroupCoordinator is built on it; requests arrive through the broker glue
and timers through `poll`, all on the event loop thread. JoinGroup and SyncGroup return
a future (made by `future_factory`) resolved now or on a later request, timer or
write completion. Writes of group metadata are asynchronous: the leader's SyncGroup is
answered, and the group becomes Stable, only once its assignment is committed.
"""

from __future__ import annotations

import logging

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.base import CoordinatorBase, attached
from kafpy.coordinator.group.errors import append_error_to_group_error
from kafpy.coordinator.group.offsets_log import Completion
from kafpy.coordinator.group.classic.group import ClassicGroup, GroupState, Member, complete
from kafpy.coordinator.group.results import UNKNOWN_MEMBER_ID, JoinResult, SyncResult

NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000

# Kafka's GroupCoordinator logs each rebalance step at INFO under this name
log = logging.getLogger("kafka.coordinator.group.GroupCoordinator")


def _fenced_join(member_id: str) -> JoinResult:
    return JoinResult(ErrorCode.FENCED_INSTANCE_ID, member_id)


class Membership(CoordinatorBase):
    """The membership half of GroupCoordinator."""

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

    # ================================================================ JoinGroup
    def join_group(self, group_id: str, member_id: str, group_instance_id: str | None,
                   require_known_member_id: bool, support_skipping_assignment: bool,
                   client_id: str, client_host: str, rebalance_timeout_ms: int,
                   session_timeout_ms: int, protocol_type: str,
                   protocols: list[tuple[str, bytes]], now_ms: int) -> Completion:
        """A future resolved with a JoinResult."""
        err = self.validate_group_status(group_id, "JoinGroup")
        if err is not None:
            return self._new_future(JoinResult(err, member_id))
        if not (self.config.group_min_session_timeout_ms <= session_timeout_ms
                <= self.config.group_max_session_timeout_ms):
            return self._new_future(JoinResult(ErrorCode.INVALID_SESSION_TIMEOUT, member_id))
        if group_id in self.share_groups:
            # the id is a share group's (KIP-932): a classic member cannot join it
            return self._new_future(JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, member_id))
        if group_id in self.streams_groups:
            # Kafka's getOrMaybeCreateClassicGroup: "Group <id> is not a classic group."
            return self._new_future(JoinResult(ErrorCode.GROUP_ID_NOT_FOUND, member_id))
        if group_id in self.consumer_groups and not attached(self.consumer).release_empty_group(group_id, now_ms):
            # a live consumer-protocol group: the classic member joins it (migration,
            # consumer_migration.py); an empty one becomes a classic group with its offsets
            if not (self.config.group_min_session_timeout_ms <= session_timeout_ms
                    <= self.config.group_max_session_timeout_ms):
                return self._new_future(JoinResult(ErrorCode.INVALID_SESSION_TIMEOUT, member_id))
            return attached(self.consumer).classic_join(
                group_id, member_id, group_instance_id, require_known_member_id, client_id,
                client_host, rebalance_timeout_ms, session_timeout_ms, protocol_type,
                protocols, now_ms)
        protocols = [(name, bytes(meta)) for name, meta in protocols]
        is_unknown = member_id == UNKNOWN_MEMBER_ID
        group = self.groups.get(group_id)
        if group is None or group.is_(GroupState.DEAD):
            if not is_unknown:
                return self._new_future(JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member_id))
            group = self.groups[group_id] = ClassicGroup(group_id, now_ms)
        fut = self.future_factory()
        if not self._accept_joining_member(group, member_id):
            group.remove(member_id)
            fut.set_result(JoinResult(ErrorCode.GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID))
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

    def _new_member_join(self, group: ClassicGroup, instance_id: str | None, require_known: bool,
                         support_skip: bool, client_id: str, client_host: str, rebalance_ms: int,
                         session_ms: int, protocol_type: str, protocols: list[tuple[str, bytes]],
                         fut: Completion, now_ms: int) -> None:
        if group.is_(GroupState.DEAD):
            fut.set_result(JoinResult(ErrorCode.COORDINATOR_NOT_AVAILABLE))
            return
        if not group.supports_protocols(protocol_type, {n for n, _ in protocols}):
            fut.set_result(JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL))
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
            fut.set_result(JoinResult(ErrorCode.MEMBER_ID_REQUIRED, new_id))
        else:
            self._add_member_and_rebalance(group, new_id, None, client_id, client_host,
                                           rebalance_ms, session_ms, protocol_type, protocols,
                                           fut, now_ms)

    def _current_member_join(self, group: ClassicGroup, member_id: str, instance_id: str | None,
                             client_id: str, client_host: str, rebalance_ms: int, session_ms: int,
                             protocol_type: str, protocols: list[tuple[str, bytes]], fut: Completion,
                             now_ms: int) -> None:
        if group.is_(GroupState.DEAD):
            fut.set_result(JoinResult(ErrorCode.COORDINATOR_NOT_AVAILABLE, member_id))
            return
        if not group.supports_protocols(protocol_type, {n for n, _ in protocols}):
            fut.set_result(JoinResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, member_id))
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
                    ErrorCode.NONE, member_id, group.generation_id, group.protocol_type,
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
                    ErrorCode.NONE, member_id, group.generation_id, group.protocol_type,
                    group.protocol_name, group.leader_id or "", False, []))
        else:
            fut.set_result(JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member_id))

    def _add_member_and_rebalance(self, group: ClassicGroup, member_id: str, instance_id: str | None,
                                  client_id: str, client_host: str, rebalance_ms: int, session_ms: int,
                                  protocol_type: str, protocols: list[tuple[str, bytes]], fut: Completion,
                                  now_ms: int) -> None:
        member = Member(member_id, instance_id, client_id, client_host, rebalance_ms,
                        session_ms, protocol_type, protocols)
        member.is_new = True
        if group.is_(GroupState.PREPARING_REBALANCE) and group.generation_id == 0:
            group.new_member_added = True
        group.add(member, fut)
        # A new member cannot heartbeat yet; bound how long its JoinGroup may linger.
        self.schedule_heartbeat(member, now_ms, NEW_MEMBER_JOIN_TIMEOUT_MS)
        self._maybe_prepare_rebalance(group, now_ms)

    def _update_member_and_rebalance(self, group: ClassicGroup, member: Member,
                                     protocols: list[tuple[str, bytes]], rebalance_ms: int, session_ms: int,
                                     fut: Completion, now_ms: int) -> None:
        if member.join_future is not None and member.join_future is not fut:
            # A retried JoinGroup replaces the parked one; answer the old one as Kafka's
            # purgatory would never do, so the waiter is not left hanging.
            complete(member.join_future,
                     JoinResult(ErrorCode.REBALANCE_IN_PROGRESS, member.member_id))
        group.update_member(member, protocols, rebalance_ms, session_ms, fut)
        self._maybe_prepare_rebalance(group, now_ms)

    def _update_static_member_and_rebalance(self, group: ClassicGroup, old_id: str, new_id: str,
                                            instance_id: str, protocols: list[tuple[str, bytes]],
                                            rebalance_ms: int, session_ms: int, fut: Completion,
                                            support_skip: bool, now_ms: int) -> None:
        current_leader = group.leader_id
        member = group.replace_static_member(instance_id, old_id, new_id, _fenced_join,
                                             SyncResult(ErrorCode.FENCED_INSTANCE_ID))
        self.schedule_heartbeat(member, now_ms)
        old_protocols = member.protocols
        old_rebalance, old_session = member.rebalance_timeout_ms, member.session_timeout_ms
        group.update_member(member, protocols, rebalance_ms, session_ms, fut)
        state = group.state
        if state is GroupState.STABLE:
            if group.protocol_name == group.select_protocol():
                # Same selected protocol: no rebalance, just persist the new member id;
                # the member is answered once that write is committed.
                records = self.store.group_records(group, {m.member_id: m.assignment
                                                           for m in group.members.values()})

                def on_stored(error: ErrorCode) -> None:
                    if error == ErrorCode.NONE:
                        if member.join_future is fut:     # not fenced or answered meanwhile
                            self._answer_static_rejoin(group, member, current_leader,
                                                       support_skip)
                        return
                    if (self._is_current(group) and member.join_future is fut
                            and group.static_members.get(instance_id) == new_id):
                        # Revert to the old member id, which the log still holds.
                        group.update_member(member, old_protocols, old_rebalance,
                                            old_session, None)
                        old = group.replace_static_member(
                            instance_id, new_id, old_id, _fenced_join,
                            SyncResult(ErrorCode.FENCED_INSTANCE_ID))
                        self.schedule_heartbeat(old, self._completion_time(now_ms))
                    complete(fut, JoinResult(append_error_to_group_error(error),
                                             UNKNOWN_MEMBER_ID, group.generation_id,
                                             group.protocol_type, group.protocol_name,
                                             current_leader or ""))
                self._write(group.group_id, records, now_ms, on_stored)
            else:
                self._maybe_prepare_rebalance(group, now_ms)
        elif state is GroupState.COMPLETING_REBALANCE:
            self.prepare_rebalance(group, now_ms)
        # PreparingRebalance: the member now waits for the join to complete.

    def _answer_static_rejoin(self, group: ClassicGroup, member: Member,
                              current_leader: str | None, support_skip: bool) -> None:
        new_id = member.member_id
        if support_skip:
            is_leader = group.is_leader(new_id)
            self._invoke_join(group, member, JoinResult(
                ErrorCode.NONE, new_id, group.generation_id, group.protocol_type,
                group.protocol_name, group.leader_id or "", is_leader,
                group.current_member_metadata() if is_leader else []))
        else:
            # Old leader id: a restarted static leader must not run the assignor for a
            # Stable group whose new assignment would not be propagated.
            self._invoke_join(group, member, JoinResult(
                ErrorCode.NONE, new_id, group.generation_id, group.protocol_type,
                group.protocol_name, current_leader or "", False, []))

    # ================================================================ rebalance
    def _maybe_prepare_rebalance(self, group: ClassicGroup, now_ms: int) -> None:
        if group.can_rebalance():
            self.prepare_rebalance(group, now_ms)

    def prepare_rebalance(self, group: ClassicGroup, now_ms: int) -> None:
        if group.is_(GroupState.COMPLETING_REBALANCE):
            self._reset_and_propagate_assignment_error(
                group, ErrorCode.REBALANCE_IN_PROGRESS, now_ms)
        group.pending_sync_members.clear()
        group.sync_deadline = None
        was_empty = group.is_(GroupState.EMPTY)
        log.info("Preparing to rebalance group %s in state %s with old generation %d "
                 "(__consumer_offsets-%d)", group.group_id, group.state.value, group.generation_id,
                 self.partition_for(group.group_id))
        group.transition_to(GroupState.PREPARING_REBALANCE, now_ms)
        delay = self.config.group_initial_rebalance_delay_ms
        if was_empty:
            # Kafka's initial rebalance (InitialDelayedJoin): the join completes on a
            # timer, extended while members keep arriving. With a delay of 0 the timer
            # is due at once: the JoinGroup handler has the coordinator polled right
            # after the requests already read (Kafka's 0 ms timer runs after the events
            # already queued), so members whose joins arrived together share a
            # generation and a later one starts the next rebalance, as on Kafka.
            group.initial_delay_active = True
            group.initial_last_delay_ms = delay
            group.initial_remaining_ms = max(group.rebalance_timeout_ms - delay, 0)
            group.join_deadline = self._wake(now_ms + delay)
        else:
            group.initial_delay_active = False
            group.join_deadline = self._wake(now_ms + group.rebalance_timeout_ms)
            self._try_complete_join(group, now_ms)

    def _try_complete_join(self, group: ClassicGroup, now_ms: int) -> None:
        if (group.is_(GroupState.PREPARING_REBALANCE) and not group.initial_delay_active
                and group.join_deadline is not None and group.has_all_members_joined()):
            self._on_complete_join(group, now_ms)

    def _on_initial_delay_expired(self, group: ClassicGroup, now_ms: int) -> None:
        # With no delay the extension would be another 0 ms timer, which finds nobody new
        # (nothing can join between the two): complete now.
        if (group.new_member_added and group.initial_remaining_ms != 0
                and self.config.group_initial_rebalance_delay_ms > 0):
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
            self._invoke_sync(m, SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
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
            log.info("Group %s with generation %d is now empty (__consumer_offsets-%d)",
                     group.group_id, group.generation_id, self.partition_for(group.group_id))
            # Nobody waits for this write; should it fail, the previous generation comes
            # back after a failover and its members time out, as in Kafka.
            self._write(group.group_id, self.store.group_records(group, {}), now_ms,
                        what="empty metadata")
            return
        log.info("Stabilized group %s generation %d (__consumer_offsets-%d) with %d members",
                 group.group_id, group.generation_id, self.partition_for(group.group_id),
                 len(group.members))
        leader_members = group.current_member_metadata()
        for m in list(group.members.values()):
            self._invoke_join(group, m, JoinResult(
                ErrorCode.NONE, m.member_id, group.generation_id, group.protocol_type,
                group.protocol_name, group.leader_id or "", False,
                leader_members if group.is_leader(m.member_id) else []))
            self.schedule_heartbeat(m, now_ms)
            m.is_new = False
            group.pending_sync_members.add(m.member_id)
        group.sync_deadline = self._wake(now_ms + group.rebalance_timeout_ms)

    def _reset_and_propagate_assignment_error(self, group: ClassicGroup, error: int,
                                              now_ms: int) -> None:
        for m in group.members.values():
            m.assignment = b""
        self._propagate_assignment(group, error, now_ms)

    def _propagate_assignment(self, group: ClassicGroup, error: int, now_ms: int) -> None:
        ptype, pname = ((group.protocol_type, group.protocol_name) if error == ErrorCode.NONE
                        else (None, None))
        for m in group.members.values():
            if self._invoke_sync(m, SyncResult(error, ptype, pname, m.assignment)):
                self.schedule_heartbeat(m, now_ms)

    def _remove_member_and_update_group(self, group: ClassicGroup, member: Member,
                                        now_ms: int) -> None:
        self._invoke_join(group, member, JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, UNKNOWN_MEMBER_ID))
        self._invoke_sync(member, SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
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
            log.info("Group %s removed members who haven't sent their sync requests: %s",
                     group.group_id, sorted(group.pending_sync_members))
            for mid in list(group.pending_sync_members):
                m = group.members.get(mid)
                if m is not None:
                    m.heartbeat_deadline = None
                group.remove(mid)
            self.prepare_rebalance(group, now_ms)

    # ================================================================ SyncGroup
    def sync_group(self, group_id: str, generation_id: int, member_id: str,
                   protocol_type: str | None, protocol_name: str | None,
                   group_instance_id: str | None, assignments: dict[str, bytes],
                   now_ms: int) -> Completion:
        """A future resolved with a SyncResult."""
        err = self.validate_group_status(group_id, "SyncGroup")
        if err == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            # The rebalance state is gone: make the member rejoin without rediscovery.
            return self._new_future(SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))
        if err is not None:
            return self._new_future(SyncResult(err))
        if group_id in self.consumer_groups:
            return attached(self.consumer).classic_sync(group_id, generation_id, member_id, protocol_type,
                                              protocol_name, now_ms)
        group = self.groups.get(group_id)
        if group is None:
            return self._new_future(SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
        if group.is_(GroupState.DEAD):
            return self._new_future(SyncResult(ErrorCode.COORDINATOR_NOT_AVAILABLE))
        err = self._validate_current_member(group, member_id, group_instance_id)
        if err is None:
            if generation_id != group.generation_id:
                err = ErrorCode.ILLEGAL_GENERATION
            elif protocol_type is not None and group.protocol_type != protocol_type:
                err = ErrorCode.INCONSISTENT_GROUP_PROTOCOL
            elif protocol_name is not None and group.protocol_name != protocol_name:
                err = ErrorCode.INCONSISTENT_GROUP_PROTOCOL
        if err is not None:
            return self._new_future(SyncResult(err))
        state = group.state
        if state is GroupState.EMPTY:
            return self._new_future(SyncResult(ErrorCode.UNKNOWN_MEMBER_ID))
        if state is GroupState.PREPARING_REBALANCE:
            return self._new_future(SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))
        member = group.members[member_id]
        if state is GroupState.STABLE:
            self._remove_pending_sync_member(group, member_id)
            self.schedule_heartbeat(member, now_ms)
            return self._new_future(SyncResult(ErrorCode.NONE, group.protocol_type,
                                               group.protocol_name, member.assignment))
        # CompletingRebalance: park until the leader's assignment is stored.
        fut = self.future_factory()
        if member.sync_future is not None:
            complete(member.sync_future, SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))
        member.sync_future = fut
        self._remove_pending_sync_member(group, member_id)
        if group.is_leader(member_id):
            assignment = {mid: bytes(assignments.get(mid, b"") or b"") for mid in group.members}
            self._write(group_id, self.store.group_records(group, assignment), now_ms,
                        lambda error: self._on_assignment_stored(group, generation_id, assignment,
                                                                 error, now_ms))
        return fut

    def _on_assignment_stored(self, group: ClassicGroup, generation_id: int,
                              assignment: dict[str, bytes], error: ErrorCode,
                              now_ms: int) -> None:
        """The leader's assignment write finished. Members may have joined or left
        meanwhile: act only if the group is still completing that generation."""
        if not (self._is_current(group) and group.is_(GroupState.COMPLETING_REBALANCE)
                and generation_id == group.generation_id):
            return
        now_ms = self._completion_time(now_ms)
        if error != ErrorCode.NONE:
            self._reset_and_propagate_assignment_error(
                group, append_error_to_group_error(error), now_ms)
            self._maybe_prepare_rebalance(group, now_ms)
        else:
            for mid, m in group.members.items():
                m.assignment = assignment.get(mid, b"")
            self._propagate_assignment(group, ErrorCode.NONE, now_ms)
            group.transition_to(GroupState.STABLE, now_ms)

    # ================================================================ Heartbeat
    def heartbeat(self, group_id: str, member_id: str, group_instance_id: str | None,
                  generation_id: int, now_ms: int) -> int:
        err = self.validate_group_status(group_id, "Heartbeat")
        if err == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
            return ErrorCode.NONE
        if err is not None:
            return err
        if group_id in self.consumer_groups:
            return attached(self.consumer).classic_heartbeat(group_id, member_id, generation_id, now_ms)
        group = self.groups.get(group_id)
        if group is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if group.is_(GroupState.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        err = self._validate_current_member(group, member_id, group_instance_id)
        if err is not None:
            return err
        if generation_id != group.generation_id:
            return ErrorCode.ILLEGAL_GENERATION
        if group.is_(GroupState.EMPTY):
            return ErrorCode.UNKNOWN_MEMBER_ID
        self.schedule_heartbeat(group.members[member_id], now_ms)
        if group.is_(GroupState.PREPARING_REBALANCE):
            return ErrorCode.REBALANCE_IN_PROGRESS
        return ErrorCode.NONE

    # ================================================================ LeaveGroup
    def leave_group(self, group_id: str, members: list[tuple[str, str | None]],
                    now_ms: int) -> tuple[ErrorCode, list[tuple[str, str | None, ErrorCode]]]:
        """(top-level error, [(member id, group instance id, error)])."""
        err = self.validate_group_status(group_id, "LeaveGroup")
        if err is not None:
            return err, []
        if group_id in self.consumer_groups:
            return attached(self.consumer).classic_leave(group_id, members, now_ms)
        group = self.groups.get(group_id)
        if group is None:
            return ErrorCode.NONE, [(mid, iid, ErrorCode.UNKNOWN_MEMBER_ID) for mid, iid in members]
        if group.is_(GroupState.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        out = []
        for mid, iid in members:
            if mid == UNKNOWN_MEMBER_ID:
                # Administrative removal by group.instance.id.
                current = group.static_members.get(iid) if iid is not None else None
                if current is None:
                    out.append((mid, iid, ErrorCode.UNKNOWN_MEMBER_ID))
                else:
                    self._remove_member_and_update_group(group, group.members[current], now_ms)
                    out.append((mid, iid, ErrorCode.NONE))
            elif mid in group.pending_members:
                self._remove_pending_member_and_update_group(group, mid, now_ms)
                out.append((mid, iid, ErrorCode.NONE))
            else:
                e = self._validate_current_member(group, mid, iid)
                if e is None:
                    log.info("Member %s has left group %s through explicit `LeaveGroup`", mid, group_id)
                    self._remove_member_and_update_group(group, group.members[mid], now_ms)
                    e = ErrorCode.NONE
                out.append((mid, iid, e))
        return ErrorCode.NONE, out

    # ================================================================ timers
    def _fire_member_timers(self, group: ClassicGroup, now_ms: int) -> None:
        """Session and pending-member expiry, join (rebalance / initial delay)
        completion and pending-sync expiry of one group at `now_ms`."""
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
                log.info("Member %s in group %s has failed, removing it from the group",
                         m.member_id, group.group_id)
                self._remove_member_and_update_group(group, m, now_ms)
        if (group.is_(GroupState.PREPARING_REBALANCE) and group.join_deadline is not None
                and now_ms >= group.join_deadline):
            if group.initial_delay_active:
                self._on_initial_delay_expired(group, now_ms)
            else:
                self._on_complete_join(group, now_ms)
        if group.sync_deadline is not None and now_ms >= group.sync_deadline:
            self._on_expire_pending_sync(group, now_ms)

    def fail_parked(self, group: ClassicGroup, error: ErrorCode) -> None:
        for m in group.members.values():
            self._invoke_join(group, m, JoinResult(error, m.member_id))
            self._invoke_sync(m, SyncResult(error))
