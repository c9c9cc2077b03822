"""What every part of the group coordinator shares: its settings, the groups it owns,
the `__consumer_offsets` partitions it coordinates, and its timer heap.

Who uses it: `GroupCoordinator` is built from `Membership` (membership.py) and
`OffsetManager` (offsets.py), which both derive from `CoordinatorBase`; nothing else
should. Single-threaded (event loop), so nothing locks.
"""

from __future__ import annotations

import heapq
import uuid
from typing import TYPE_CHECKING, Callable, Iterable, TypeVar

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.config import GroupCoordinatorConfig
from kafpy.coordinator.group.classic.group import ClassicGroup, Member
from kafpy.coordinator.group.offsets_log import NO_PRODUCER_ID, Completion, ImmediateFuture, OffsetsLog, Record
from kafpy.coordinator.group.partitioner import partition_for
from kafpy.coordinator.group.persistence import GroupStore
from kafpy.coordinator.result import CoordinatorWriter

if TYPE_CHECKING:
    from kafpy.coordinator.group.consumer.coordinator import ConsumerGroupCoordinator
    from kafpy.coordinator.group.consumer.group import ConsumerGroup
    from kafpy.coordinator.group.share.coordinator import ShareGroupCoordinator
    from kafpy.coordinator.group.share.group import ShareGroup
    from kafpy.coordinator.group.streams.coordinator import StreamsGroupCoordinator
    from kafpy.coordinator.group.streams.group import StreamsGroup

# API names for group-id validation (Kafka accepts "" for these).
OFFSET_COMMIT, OFFSET_FETCH, DESCRIBE_GROUPS, DELETE_GROUPS = (
    "OffsetCommit", "OffsetFetch", "DescribeGroups", "DeleteGroups")
_EMPTY_ID_OK = {OFFSET_COMMIT, OFFSET_FETCH, DESCRIBE_GROUPS, DELETE_GROUPS}


K = TypeVar("K")


def attached(coordinator: K | None) -> K:
    """The coordinator of a group kind that has a group in its map (only an attached kind
    fills its map, so None here is a bug, not a request's fault)."""
    if coordinator is None:
        raise RuntimeError("a group of a kind whose coordinator is not attached")
    return coordinator


class CoordinatorBase:
    """State and small helpers of the coordinator; see GroupCoordinator."""

    def __init__(self, config: GroupCoordinatorConfig, offsets_log: OffsetsLog,
                 future_factory: Callable[[], Completion] = ImmediateFuture,
                 owned_partitions: Iterable[int] | None = None,
                 member_id_factory: Callable[[str], str] | None = None) -> None:
        self.config = config
        self.log = offsets_log
        self.store = GroupStore(offsets_log, self.partition_for)
        self.future_factory = future_factory
        # the one write path of every group kind (coordinator/result.py)
        self.writer = CoordinatorWriter(offsets_log, future_factory, "group coordinator")
        self.groups: dict[str, ClassicGroup] = {}
        # The groups of the other kinds by id and their coordinators, set by `attach`
        # (GroupCoordinatorService builds them; None: classic groups only). The classic
        # coordinator owns the partitions, so it hands them loads, unloads and timers.
        self.consumer_groups: dict[str, ConsumerGroup] = {}
        self.share_groups: dict[str, ShareGroup] = {}
        self.streams_groups: dict[str, StreamsGroup] = {}
        self.consumer: ConsumerGroupCoordinator | None = None
        self.share: ShareGroupCoordinator | None = None
        self.streams: StreamsGroupCoordinator | None = None
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
        # The latest time `poll` was given: a write completing later acts at least then
        # (the share coordinator's clock when the service gives it none).
        self.last_poll_ms = 0

    def attach(self, *, consumer: ConsumerGroupCoordinator | None = None,
               share: ShareGroupCoordinator | None = None,
               streams: StreamsGroupCoordinator | None = None) -> None:
        """Hand the coordinators of the other group kinds (built on this one) the
        partitions' loads, unloads, timers and the group APIs of every kind."""
        if consumer is not None:
            self.consumer = consumer
        if share is not None:
            self.share = share
        if streams is not None:
            self.streams = streams

    def _write(self, group_id: str, records: list[Record], now_ms: int,
               then: Callable[[ErrorCode], None] | None = None, *, what: str = "records",
               producer_id: int = NO_PRODUCER_ID, producer_epoch: int = -1) -> None:
        """Write `records` (none: nothing) to the group's partition through the one write
        path, `then(error)` once committed or failed; without `then` a failure is logged
        as a failed write of `what`."""
        if records:
            self.writer.write(self.partition_for(group_id), records, now_ms, then, what=what,
                              key=group_id, producer_id=producer_id, producer_epoch=producer_epoch)

    def new_member_id(self, prefix: str) -> str:
        """A member id for a classic member joining without one (`prefix`: its client id or
        group instance id)."""
        return self._member_id_factory(prefix)

    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self.config.offsets_topic_num_partitions)

    def validate_group_status(self, group_id: str | None, api: str) -> ErrorCode | None:
        if group_id is None or (group_id == "" and api not in _EMPTY_ID_OK):
            return ErrorCode.INVALID_GROUP_ID
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        p = self.partition_for(group_id)
        if p in self.loading_partitions:
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        if p not in self.owned_partitions:
            return ErrorCode.NOT_COORDINATOR
        return None

    def _is_current(self, group: ClassicGroup) -> bool:
        """Whether `group` is still the live one of its id (a write completing after an
        unload, reload or deletion must not touch it)."""
        return (self.groups.get(group.group_id) is group
                or self.consumer_groups.get(group.group_id) is group
                or self.streams_groups.get(group.group_id) is group)

    def _new_future(self, result: object = None) -> Completion:
        fut = self.future_factory()
        if result is not None:
            fut.set_result(result)
        return fut

    def _completion_time(self, request_ms: int) -> int:
        """The time a write's completion acts at: the request's, or the timer's if later."""
        return max(request_ms, self.last_poll_ms)

    def _wake(self, deadline: int) -> int:
        heapq.heappush(self._wakeups, deadline)
        return deadline

    def has_due(self, now_ms: int) -> bool:
        """Whether a timer is due at `now_ms` (a 0 ms one a request just set), so the
        caller has `poll` run soon instead of on the runtime's next tick."""
        return bool(self._wakeups) and self._wakeups[0] <= now_ms

    def schedule_heartbeat(self, member: Member, now_ms: int, timeout_ms: int | None = None) -> None:
        member.heartbeat_deadline = self._wake(
            now_ms + (member.session_timeout_ms if timeout_ms is None else timeout_ms))

    @staticmethod
    def _validate_current_member(group: ClassicGroup, member_id: str,
                                 group_instance_id: str | None) -> ErrorCode | None:
        if group_instance_id is not None:
            current = group.static_members.get(group_instance_id)
            if current is None:
                return ErrorCode.UNKNOWN_MEMBER_ID
            if current != member_id:
                return ErrorCode.FENCED_INSTANCE_ID
            return None
        return None if group.has(member_id) else ErrorCode.UNKNOWN_MEMBER_ID
