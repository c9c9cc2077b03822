"""The group coordinator: classic, consumer, share and Streams groups and their committed
offsets, kept in `__consumer_offsets`. `service.GroupCoordinatorService` builds one
coordinator per kind (`classic/`, `consumer/`, `share/`, `streams/`) and owns them by name;
the classic one owns the partitions and routes to the others."""

from kafpy.coordinator.group.config import GroupCoordinatorConfig
from kafpy.coordinator.group.classic.coordinator import GroupCoordinator
from kafpy.coordinator.group.classic.group import ClassicGroup, GroupState, Member
from kafpy.coordinator.group.offsets_log import Completion, ImmediateFuture, InMemoryOffsetsLog, OffsetsLog
from kafpy.coordinator.group.records import OffsetAndMetadata
from kafpy.coordinator.group.results import (
    FetchedOffset, GroupOverview, GroupSummary, JoinResult, MemberSummary, SyncResult)

__all__ = [
    "ClassicGroup", "Completion", "FetchedOffset", "GroupCoordinator",
    "GroupCoordinatorConfig", "GroupCoordinatorService", "GroupOverview", "GroupState",
    "GroupSummary", "ImmediateFuture", "InMemoryOffsetsLog", "JoinResult", "Member",
    "MemberSummary", "OffsetAndMetadata", "OffsetsLog", "SyncResult",
]


def __getattr__(name: str) -> type:
    # The service needs asyncio and the broker's record builder; import it on demand.
    if name == "GroupCoordinatorService":
        from kafpy.coordinator.group.service import GroupCoordinatorService
        return GroupCoordinatorService
    raise AttributeError(name)
