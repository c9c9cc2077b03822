"""What the request handlers kept outside ``raft_core`` (``voter_changes``, ``snapshot_fetch``)
use of ``RaftCore``: a Protocol, so those modules do not import the core that imports them;
and the handling Fetch and FetchSnapshot answers share (``handle_partition_answer``), which
the core and ``snapshot_fetch`` both call."""
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


class CurrentLeader(Protocol):
    """The leader and epoch a Fetch or FetchSnapshot answer names."""

    @property
    def leader_id(self) -> int: ...

    @property
    def leader_epoch(self) -> int: ...


class PartitionAnswer(Protocol):
    """The partition of a Fetch or FetchSnapshot answer, as far as both are handled alike."""

    @property
    def error_code(self) -> int: ...

    @property
    def current_leader(self) -> CurrentLeader: ...


def handle_partition_answer(core: RaftCoreView, top_error: int, partition: PartitionAnswer | None,
                            now_ms: int) -> tuple[ErrorCode, bool | None]:
    """What Fetch and FetchSnapshot answers share: a top-level error or no partition fails
    the answer; else the partition's error and the leader and epoch it names go through the
    core's ``_handle_common`` (Kafka's ``maybeHandleCommonResponse``). The partition's error,
    and True/False when that settled the answer (None: the caller goes on with it)."""
    if top_error != 0 or partition is None:
        return ErrorCode.NONE, False
    error = ErrorCode.of_known(partition.error_code)
    leader = partition.current_leader
    return error, core._handle_common(error, None if leader.leader_id < 0 else leader.leader_id,
                                      leader.leader_epoch, now_ms)
