"""FetchSnapshot's two halves, as Kafka's ``KafkaRaftClient`` does them, for ``raft_core``.

The leader (``serve_fetch_snapshot``) answers a chunk of a snapshot it holds: at most the
request's MaxBytes from its Position, with the snapshot's id and whole size; SNAPSHOT_NOT_FOUND
for one it does not have and for the bootstrap snapshot ``0-0`` (the first leader put its
content into the log, so it is never replicated); POSITION_OUT_OF_RANGE outside the file.

The follower (``append_snapshot_chunk``) appends each chunk to the ``.part`` file its log
gave it (the position must be its size so far), and, once the size is the snapshot's, freezes
it and truncates its log fully to it; it then fetches from the snapshot's end offset.
Leader-epoch and leadership checks are the core's, done before these run.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchSnapshotRequest, FetchSnapshotResponse
from kafpy.raft.replicated_log import RawSnapshotWriterProtocol, ReplicatedLog
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
