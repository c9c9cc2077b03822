"""What the request handlers kept outside ``raft_core`` (``voter_changes``, ``snapshot_fetch``)
use of ``RaftCore``: a Protocol, so those modules do not import the core that imports them."""
from __future__ import annotations

from typing import Protocol

from kafpy.protocol.errors import ErrorCode
from kafpy.raft.pending_voter_change import PendingVoterChange
from kafpy.raft.quorum_config import QuorumConfig
from kafpy.raft.quorum_state import QuorumState
from kafpy.raft.replicated_log import RawSnapshotWriterProtocol, ReplicatedLog
from kafpy.raft.voter_set import Endpoint, VoterSet
from kafpy.raft.voter_set_history import KRaftControlRecordStateMachine


class RaftCoreView(Protocol):
    node_id: int
    cluster_id: str | None
    config: QuorumConfig
    log: ReplicatedLog
    quorum: QuorumState
    voter_history: KRaftControlRecordStateMachine
    listener_name: str
    local_endpoints: tuple[Endpoint, ...]
    pending_voter_change: PendingVoterChange | None
    fetching_snapshot: RawSnapshotWriterProtocol | None

    @property
    def epoch(self) -> int: ...

    def _valid_cluster_id(self, cluster_id: str | None) -> bool: ...

    def _handle_common(self, error: ErrorCode, leader_id: int | None, epoch: int, now_ms: int) -> bool | None: ...

    def _set_fetching_snapshot(self, writer: RawSnapshotWriterProtocol | None) -> None: ...

    def _log_appended(self, now_ms: int) -> None: ...

    def _on_high_watermark(self, high_watermark: int | None) -> None: ...

    def append_voters_record(self, voters: VoterSet, now_ms: int) -> int: ...
