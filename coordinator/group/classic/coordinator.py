"""The classic-protocol group coordinator: a state machine with the clock passed in.

Who calls it: only the broker glue (broker/handlers/group.py), the service
(coordinator/group/service.py: leadership changes, the timer calling `poll`), tests and
tools, all on one thread, so nothing here locks. Every request method takes `now_ms`.
JoinGroup, SyncGroup and OffsetCommit return a future (made by `future_factory`; the
broker passes `loop.create_future`) that the state machine resolves now or later;
everything else answers at once.

What it keeps on disk: nothing itself. Offsets and group metadata go through an
OffsetsLog (one `__consumer_offsets` partition per group) in Kafka's record formats,
and every write is asynchronous: what depends on it (a commit's visibility, the
leader's assignment) happens in the write's completion callback, which may run much
later, after other requests changed the group; callbacks check that first.

Built from two halves along Kafka's own seam: `Membership` (membership.py: JoinGroup,
SyncGroup, Heartbeat, LeaveGroup, rebalances) and `OffsetManager` (offsets.py). This
module adds what spans both: loading and unloading partitions, timers, group
deletion and the admin views.
"""

from __future__ import annotations

import heapq
from typing import Iterable

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.base import DELETE_GROUPS, DESCRIBE_GROUPS, attached
from kafpy.coordinator.group.classic.group import GroupState
from kafpy.coordinator.group.classic.membership import Membership
from kafpy.coordinator.group.offsets import OffsetManager
from kafpy.coordinator.group.offsets_log import LogEntry
from kafpy.coordinator.group.results import (
    FetchedOffset, GroupOverview, GroupSummary, JoinResult, MemberSummary, SyncResult)

__all__ = ["FetchedOffset", "GroupCoordinator", "GroupOverview", "GroupSummary",
           "JoinResult", "MemberSummary", "SyncResult"]


class GroupCoordinator(Membership, OffsetManager):
    """All classic groups whose `__consumer_offsets` partition this broker leads."""

    # ================================================================ DeleteGroups
    def delete_groups(self, group_ids: list[str], now_ms: int) -> dict[str, ErrorCode]:
        result: dict[str, ErrorCode] = {}
        for gid in group_ids:
            err = self.validate_group_status(gid, DELETE_GROUPS)
            if err is not None:
                result[gid] = err
                continue
            group = self.groups.get(gid)
            if gid in self.consumer_groups:
                result[gid] = attached(self.consumer).delete_group(self.consumer_groups[gid], now_ms)
            elif gid in self.share_groups:
                result[gid] = attached(self.share).delete_group(self.share_groups[gid], now_ms)
            elif gid in self.streams_groups:
                result[gid] = attached(self.streams).delete_group(self.streams_groups[gid], now_ms)
            elif group is None or group.is_(GroupState.DEAD):
                result[gid] = ErrorCode.GROUP_ID_NOT_FOUND
            elif group.is_(GroupState.EMPTY):
                group.transition_to(GroupState.DEAD, now_ms)
                self._cleanup_group(
                    group, lambda g: g.remove_offsets([*g.offsets, *g.pending_offset_commits]),
                    now_ms)
                result[gid] = ErrorCode.NONE
            else:
                result[gid] = ErrorCode.NON_EMPTY_GROUP
        return result

    # ================================================================ admin
    def list_groups(self, states: list[str] | None = None, types: list[str] | None = None
                    ) -> tuple[ErrorCode, list[GroupOverview]]:
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        err = ErrorCode.COORDINATOR_LOAD_IN_PROGRESS if self.loading_partitions else ErrorCode.NONE
        kinds = {t.lower() for t in types} if types else {"classic", "consumer", "share", "streams"}
        wanted = {s.lower() for s in states} if states else None
        out = []
        if "classic" in kinds:
            out = [GroupOverview(g.group_id, g.protocol_type or "", g.state.value)
                   for g in self.groups.values()
                   if not g.is_(GroupState.DEAD)
                   and (wanted is None or g.state.value.lower() in wanted)]
        if self.consumer is not None and "consumer" in kinds:
            out += [GroupOverview(gid, "consumer", state, "consumer")
                    for gid, state in self.consumer.overviews(wanted)]
        if self.share is not None and "share" in kinds:
            out += [GroupOverview(gid, "share", state, "share")
                    for gid, state in self.share.overviews(wanted)]
        if self.streams is not None and "streams" in kinds:
            out += [GroupOverview(gid, "streams", state, "streams")
                    for gid, state in self.streams.overviews(wanted)]
        return err, out

    def describe_group(self, group_id: str) -> GroupSummary:
        err = self.validate_group_status(group_id, DESCRIBE_GROUPS)
        if err is not None:
            return GroupSummary(group_id, err, "", "", "")
        if group_id in self.consumer_groups:
            return attached(self.consumer).describe_as_classic(group_id)
        if group_id in self.share_groups:
            # Kafka describes a share group to DescribeGroups as a dead group of no protocol
            return GroupSummary(group_id, ErrorCode.NONE, GroupState.DEAD.value, "", "",
                                message=f"Group {group_id} is not a classic group.")
        if group_id in self.streams_groups:
            # Kafka's describeGroups describes a group of another type as a Dead classic
            # group (v6+: GROUP_ID_NOT_FOUND, as the handler answers for a missing one)
            return GroupSummary(group_id, ErrorCode.NONE, GroupState.DEAD.value, "", "")
        group = self.groups.get(group_id)
        if group is None:
            return GroupSummary(group_id, ErrorCode.NONE, GroupState.DEAD.value, "", "")
        stable = group.is_(GroupState.STABLE)
        proto = (group.protocol_name or "") if stable else ""
        members = [MemberSummary(m.member_id, m.group_instance_id, m.client_id, m.client_host,
                                 m.metadata(proto) if stable else b"",
                                 m.assignment if stable else b"")
                   for m in group.members.values()]
        return GroupSummary(group_id, ErrorCode.NONE, group.state.value,
                            group.protocol_type or "", proto, members)

    # ================================================================ timers
    def next_deadline(self) -> int | None:
        """The earliest time `poll` may have work to do (None: nothing scheduled)."""
        return self._wakeups[0] if self._wakeups else None

    def poll(self, now_ms: int) -> None:
        """Fire every timer due at `now_ms`: member and rebalance timers of every group
        (membership.py), then offset expiry every offsets.retention.check.interval.ms."""
        self.last_poll_ms = max(self.last_poll_ms, now_ms)
        if self.consumer is not None:
            self.consumer.poll(now_ms)
        if self.share is not None:
            self.share.poll(now_ms)
        if self.streams is not None:
            self.streams.poll(now_ms)
        if self._next_offsets_expiry is not None:
            if not self._wakeups or self._wakeups[0] > now_ms:
                return
            while self._wakeups and self._wakeups[0] <= now_ms:
                heapq.heappop(self._wakeups)
        for group in list(self.groups.values()):
            if not group.is_(GroupState.DEAD):
                self._fire_member_timers(group, now_ms)
        if self._next_offsets_expiry is None:
            self._next_offsets_expiry = self._wake(
                now_ms + self.config.offsets_retention_check_interval_ms)
        elif now_ms >= self._next_offsets_expiry:
            self._next_offsets_expiry = self._wake(
                now_ms + self.config.offsets_retention_check_interval_ms)
            self.expire_offsets(now_ms)

    # ================================================================ partitions
    def load_partition(self, partition: int, now_ms: int) -> int:
        """Become coordinator of `partition`: replay it into groups. Returns how many
        groups were loaded."""
        self.begin_load(partition)
        return self.complete_load(partition, self.log.read(partition), now_ms)

    def begin_load(self, partition: int) -> None:
        """Until `complete_load`, groups of `partition` answer COORDINATOR_LOAD_IN_PROGRESS
        (the service reads the log meanwhile, off the LeaderAndIsr path)."""
        self.loading_partitions.add(partition)

    def complete_load(self, partition: int, entries: Iterable[LogEntry], now_ms: int) -> int:
        """Replay `partition`'s records (`entries`, in log order) into groups and own it.
        Returns how many groups were loaded; 0 when the load was abandoned meanwhile
        (`unload_partition`: the partition is no longer loading)."""
        if partition not in self.loading_partitions:
            return 0
        try:
            loaded = self.store.replay(partition, entries, now_ms)
            for gid, group in loaded.items():
                old = self.groups.get(gid)
                if old is not None:
                    self.fail_parked(old, ErrorCode.NOT_COORDINATOR)
                self.groups[gid] = group
                for m in group.members.values():
                    self.schedule_heartbeat(m, now_ms)
                if group.size > self.config.group_max_size:
                    self.prepare_rebalance(group, now_ms)
            if self.consumer is not None:
                self.consumer.load_partition(partition, now_ms)
            if self.share is not None:
                self.share.load_partition(partition, now_ms)
            if self.streams is not None:
                self.streams.load_partition(partition, now_ms)
            self.owned_partitions.add(partition)
            return len(loaded)
        finally:
            self.loading_partitions.discard(partition)

    def unload_partition(self, partition: int) -> None:
        """Stop coordinating `partition` (leadership moved or shutdown). Writes still in
        flight for its groups complete later without touching any group; a load in
        progress is abandoned."""
        self.owned_partitions.discard(partition)
        self.loading_partitions.discard(partition)
        if self.consumer is not None:
            self.consumer.unload_partition(partition)
        if self.share is not None:
            self.share.unload_partition(partition)
        if self.streams is not None:
            self.streams.unload_partition(partition)
        for gid, group in list(self.groups.items()):
            if self.partition_for(gid) == partition:
                self.fail_parked(group, ErrorCode.NOT_COORDINATOR)
                group.state = GroupState.DEAD
                del self.groups[gid]

    def shutdown(self) -> None:
        """Answer every parked JoinGroup/SyncGroup with NOT_COORDINATOR and stop."""
        self.active = False
        for group in self.groups.values():
            self.fail_parked(group, ErrorCode.NOT_COORDINATOR)
