"""Group coordinator (classic protocol) and committed offsets in `__consumer_offsets`."""

if not __name__.startswith("kafpy."):
    # Reached as a bare top-level name (the checkout on sys.path): refuse, or every module below
    # would load a second time beside its kafpy.* self.
    raise ImportError(f"import kafpy.{__name__}, not {__name__}")

from kafpy.coordinator.config import GroupCoordinatorConfig
from kafpy.coordinator.coordinator import GroupCoordinator
from kafpy.coordinator.group import ClassicGroup, GroupState, Member
from kafpy.coordinator.offsets_log import Completion, ImmediateFuture, InMemoryOffsetsLog, OffsetsLog
from kafpy.coordinator.records import OffsetAndMetadata
from kafpy.coordinator.results import (
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
        from kafpy.coordinator.service import GroupCoordinatorService
        return GroupCoordinatorService
    raise AttributeError(name)
