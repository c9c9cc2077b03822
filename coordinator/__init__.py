"""Group coordinator (classic protocol) and committed offsets in `__consumer_offsets`."""

from coordinator.config import GroupCoordinatorConfig
from coordinator.coordinator import GroupCoordinator
from coordinator.group import ClassicGroup, GroupState, Member
from coordinator.offsets_log import Completion, ImmediateFuture, InMemoryOffsetsLog, OffsetsLog
from coordinator.records import OffsetAndMetadata
from coordinator.results import (
    FetchedOffset, GroupOverview, GroupSummary, JoinResult, MemberSummary, SyncResult)

__all__ = [
    "ClassicGroup", "Completion", "FetchedOffset", "GroupCoordinator",
    "GroupCoordinatorConfig", "GroupCoordinatorService", "GroupOverview", "GroupState",
    "GroupSummary", "ImmediateFuture", "InMemoryOffsetsLog", "JoinResult", "Member",
    "MemberSummary", "OffsetAndMetadata", "OffsetsLog", "SyncResult",
]


def __getattr__(name: str):
    # The service needs asyncio and the broker's record builder; import it on demand.
    if name == "GroupCoordinatorService":
        from coordinator.service import GroupCoordinatorService
        return GroupCoordinatorService
    raise AttributeError(name)
