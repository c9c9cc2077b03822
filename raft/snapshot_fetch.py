"""FetchSnapshot's two halves, as Kafka's ``KafkaRaftClient`` does them, for ``raft_core``.

The leader (``serve_fetch_snapshot``) answers a chunk of a snapshot it holds: at most the
request's MaxBytes from its Position, with the snapshot's id and whole size; SNAPSHOT_NOT_FOUND
for one it does not have and for the bootstrap snapshot ``0-0`` (the first leader put its
content into the log, so it is never replicated); POSITION_OUT_OF_RANGE outside the file.

The follower (``append_snapshot_chunk``) appends each chunk to the ``.part`` file its log
gave it (the position must be its size so far), and, once the size is the snapshot's, freezes
it and truncates its log fully to it; it then fetches from the snapshot's end offset.
``handle_fetch_snapshot_request`` and ``handle_fetch_snapshot_response`` are the core's request and
response handlers around them (its epoch and leadership checks), kept here for its size.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchSnapshotRequest, FetchSnapshotResponse
from kafpy.raft.replicated_log import RawSnapshotWriterProtocol, ReplicatedLog
from kafpy.raft import raft_messages as msg
from kafpy.raft.core_view import RaftCoreView as RaftCore
from kafpy.raft.core_view import handle_partition_answer
from kafpy.raft.epoch_state import FollowerState
from kafpy.raft.leader_state import LeaderState
from kafpy.raft.snapshot import BOOTSTRAP_SNAPSHOT_ID, SnapshotId

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SnapshotChunk:
    """The leader's answer before it is put in a response: an error, or the chunk."""

    error: ErrorCode
    snapshot_id: SnapshotId | None = None
    size: int = 0
    position: int = 0
    records: bytes = b""


def serve_fetch_snapshot(log_: ReplicatedLog, partition: FetchSnapshotRequest.PartitionSnapshot,
                         max_bytes: int) -> SnapshotChunk:
    """Kafka's ``handleFetchSnapshotRequest`` once the leader checks passed."""
    snapshot_id = SnapshotId(partition.snapshot_id.end_offset, partition.snapshot_id.epoch)
    reader = log_.read_snapshot(snapshot_id)
    if reader is None or snapshot_id == BOOTSTRAP_SNAPSHOT_ID:
        return SnapshotChunk(ErrorCode.SNAPSHOT_NOT_FOUND)
    size = reader.size_in_bytes()
    if partition.position < 0 or partition.position >= size:
        return SnapshotChunk(ErrorCode.POSITION_OUT_OF_RANGE)
    records = reader.slice(partition.position, min(max_bytes, size))
    return SnapshotChunk(ErrorCode.NONE, snapshot_id, size, partition.position, records)


class SnapshotFetchError(RuntimeError):
    """A FetchSnapshot answer that cannot belong to the snapshot being fetched (Kafka's
    ``IllegalStateException``)."""


def append_snapshot_chunk(log_: ReplicatedLog, writer: RawSnapshotWriterProtocol,
                          partition: FetchSnapshotResponse.PartitionSnapshot) -> bool:
    """Append the chunk; True when the snapshot is complete (frozen, the log truncated to it)."""
    snapshot_id = SnapshotId(partition.snapshot_id.end_offset, partition.snapshot_id.epoch)
    if writer.snapshot_id != snapshot_id:
        raise SnapshotFetchError(f"Received fetch snapshot response with an invalid id. Expected "
                                 f"{writer.snapshot_id}; Received {snapshot_id}")
    if writer.size_in_bytes() != partition.position:
        raise SnapshotFetchError(f"Received fetch snapshot response with an invalid position. Expected "
                                 f"{writer.size_in_bytes()}; Received {partition.position}")
    records = partition.unaligned_records
    writer.append(bytes(records) if records is not None else b"")
    if writer.size_in_bytes() != partition.size:
        return False
    writer.freeze()
    if not log_.truncate_to_latest_snapshot():
        raise SnapshotFetchError(
            f"Full log truncation expected but didn't happen. Snapshot of {snapshot_id}, log end offset "
            f"{log_.end_offset()}, last fetched {log_.last_fetched_epoch()}")
    log.info("Fully truncated the log at (%s, %s) after downloading snapshot %s", log_.end_offset(),
             log_.last_fetched_epoch(), snapshot_id)
    return True


def handle_fetch_snapshot_request(core: RaftCore, request: FetchSnapshotRequest,
                                   now_ms: int) -> FetchSnapshotResponse:
    if not core._valid_cluster_id(request.cluster_id):
        return msg.fetch_snapshot_response(ErrorCode.INCONSISTENT_CLUSTER_ID)
    if not request.topics or not request.topics[0].partitions or (
            len(request.topics) != 1 and len(request.topics[0].partitions) != 1):
        return msg.fetch_snapshot_response(ErrorCode.INVALID_REQUEST)
    p = msg.fetch_snapshot_partition(request.topics)
    leader_id = core.quorum.leader_id()
    if p is None:
        first = request.topics[0]
        return msg.fetch_snapshot_response(
            ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, topic=first.name,
            partition=first.partitions[0].partition, epoch=core.epoch, leader_id=leader_id)
    state = core.quorum.state
    error: ErrorCode | None = None
    if p.current_leader_epoch < core.epoch:
        error = ErrorCode.FENCED_LEADER_EPOCH
    elif p.current_leader_epoch > core.epoch:
        error = ErrorCode.UNKNOWN_LEADER_EPOCH
    elif not isinstance(state, LeaderState):
        error = ErrorCode.NOT_LEADER_OR_FOLLOWER
    if error is not None or not isinstance(state, LeaderState):
        return msg.fetch_snapshot_response(ErrorCode.NONE, error or ErrorCode.NOT_LEADER_OR_FOLLOWER,
                                           epoch=core.epoch, leader_id=leader_id)
    chunk = serve_fetch_snapshot(core.log, p, request.max_bytes)
    if chunk.error != ErrorCode.NONE or chunk.snapshot_id is None:
        return msg.fetch_snapshot_response(ErrorCode.NONE, chunk.error, epoch=core.epoch, leader_id=leader_id)
    state.update_check_quorum_for_following_voter(request.replica_id, now_ms)
    return msg.fetch_snapshot_response(
        ErrorCode.NONE, epoch=core.epoch, leader_id=leader_id,
        snapshot_id=(chunk.snapshot_id.end_offset, chunk.snapshot_id.epoch), size=chunk.size,
        position=chunk.position, records=chunk.records)


def handle_fetch_snapshot_response(core: RaftCore, source: int, response: FetchSnapshotResponse, now_ms: int) -> bool:
    p = msg.fetch_snapshot_response_partition(response)
    error, handled = handle_partition_answer(core, response.error_code, p, now_ms)
    if handled is not None:
        return handled
    assert p is not None  # handle_partition_answer settled an answer without one
    state = core.quorum.state
    if not isinstance(state, FollowerState) or state.leader_id != source:
        return True
    if error == ErrorCode.SNAPSHOT_NOT_FOUND or p.snapshot_id.end_offset < 0 or p.snapshot_id.epoch < 0:
        # the leader deleted it meanwhile: start over with a Fetch
        log.info("Leader doesn't know about snapshot %s, returned error %s", p.snapshot_id, error.name)
        core._set_fetching_snapshot(None)
        state.reset_fetch_timeout_for_successful_fetch(now_ms)
        return True
    if error != ErrorCode.NONE:
        return False
    writer = core.fetching_snapshot
    if writer is None:
        raise RuntimeError(f"Received unexpected fetch snapshot response: {p.snapshot_id}")
    if append_snapshot_chunk(core.log, writer, p):
        core.fetching_snapshot = None  # frozen: the log keeps it
        core.voter_history.reset()  # the log is the snapshot now: read it again from there
        core._log_appended(now_ms)
        if state.update_high_watermark(max(core.log.end_offset(), state.high_watermark or 0)):
            core._on_high_watermark(state.high_watermark)
    state.reset_fetch_timeout_for_successful_fetch(now_ms)
    return True
