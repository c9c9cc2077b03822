"""Group coordinator (classic protocol) and committed offsets in `__consumer_offsets`."""

from coordinator.config import GroupCoordinatorConfig
from coordinator.coordinator import (
    FetchedOffset, GroupCoordinator, GroupOverview, GroupSummary, JoinResult, MemberSummary,
    SyncResult)
from coordinator.group import ClassicGroup, GroupState, Member
from coordinator.offsets_log import InMemoryOffsetsLog, OffsetsLog, OffsetsLogError
from coordinator.records import OffsetAndMetadata

__all__ = [
    "ClassicGroup", "FetchedOffset", "GroupCoordinator", "GroupCoordinatorConfig",
    "GroupCoordinatorService", "GroupOverview", "GroupState", "GroupSummary",
    "InMemoryOffsetsLog", "JoinResult", "Member", "MemberSummary", "OffsetAndMetadata",
    "OffsetsLog", "OffsetsLogError", "SyncResult",
]


def __getattr__(name: str):
    # The service needs asyncio and the broker's packages; import it on demand.
    if name == "GroupCoordinatorService":
        from coordinator.service import GroupCoordinatorService
        return GroupCoordinatorService
    raise AttributeError(name)
