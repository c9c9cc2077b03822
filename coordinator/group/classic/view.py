"""What the consumer, share and Streams group coordinators may use of the classic one:
the `__consumer_offsets` partitions it owns and their log, the groups of every kind by
id (one id names one group of one kind), the status check every group API starts
with, and the three steps of a classic rebalance a consumer group with classic members
drives (consumer/migration.py).

Who uses it: coordinator/group/modern.py and the three modern coordinators type their
`classic` with it; `GroupCoordinator` (classic/coordinator.py) is the one
implementation. A Protocol, so that those modules need not import the classic
coordinator, which dispatches to them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.classic.group import ClassicGroup, Member
from kafpy.coordinator.group.offsets_log import Completion, OffsetsLog
from kafpy.coordinator.group.persistence import GroupStore
from kafpy.coordinator.result import CoordinatorWriter

if TYPE_CHECKING:
    from kafpy.coordinator.group.consumer.group import ConsumerGroup
    from kafpy.coordinator.group.share.group import ShareGroup
    from kafpy.coordinator.group.streams.group import StreamsGroup


class ClassicCoordinatorView(Protocol):
    """The classic coordinator as the other group kinds see it."""

    log: OffsetsLog
    writer: CoordinatorWriter
    store: GroupStore
    future_factory: Callable[[], Completion]
    owned_partitions: set[int]
    groups: dict[str, ClassicGroup]
    consumer_groups: dict[str, ConsumerGroup]
    share_groups: dict[str, ShareGroup]
    streams_groups: dict[str, StreamsGroup]
    last_poll_ms: int

    def partition_for(self, group_id: str) -> int: ...

    def validate_group_status(self, group_id: str | None, api: str) -> ErrorCode | None: ...

    def new_member_id(self, prefix: str) -> str: ...

    def schedule_heartbeat(self, member: Member, now_ms: int, timeout_ms: int | None = None) -> None: ...

    def prepare_rebalance(self, group: ClassicGroup, now_ms: int) -> None: ...

    def fail_parked(self, group: ClassicGroup, error: ErrorCode) -> None: ...
