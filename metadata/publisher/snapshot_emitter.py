"""Writes a metadata image into a snapshot of the metadata log, as Kafka's ``SnapshotEmitter``
(with ``KafkaRaftClient.createSnapshot``'s part: the header's timestamp, kraft.version and
voters).

Who calls it: the node's metadata listener when its ``SnapshotGenerator`` asks for a snapshot.
The snapshot is named after the image's provenance (end offset and epoch of its last record),
so it must be at or below the log's high watermark; the log refuses (None) one that exists or
is below its start. Records are appended ``batch_size`` at a time and fill batches of up
to 8 MiB (a snapshot's batches never linger out, as Kafka's accumulator for snapshots), framed
as ``record_serde`` frames them, features first so a reader knows the metadata.version
first."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.image.writer import ApiMessageAndVersion
from kafpy.metadata.record_serde import write_record
from kafpy.protocol.messages import VotersRecord
from kafpy.raft.snapshot import RawSnapshotWriter, RecordsSnapshotWriter, SnapshotId

log = logging.getLogger(__name__)

# SnapshotEmitter.DEFAULT_BATCH_SIZE: records per batch of a generated snapshot
DEFAULT_BATCH_SIZE = 1024


class SnapshotLog(Protocol):
    """What the emitter needs of the metadata log (``KafkaMetadataLog``)."""

    def create_new_snapshot(self, snapshot_id: SnapshotId) -> RawSnapshotWriter | None: ...


class SnapshotEmitter:
    """Keeps the log to write into, the clock, and the kraft.version and voter set the
    header carries (asked for at each snapshot: they can change with the log)."""

    def __init__(self, node_id: int, log_: SnapshotLog, now_ms: Callable[[], int], *,
                 kraft_version: Callable[[], int] = lambda: 0,
                 voters: Callable[[], VotersRecord | None] = lambda: None,
                 batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        self.node_id = node_id
        self.log = log_
        self.now_ms = now_ms
        self.kraft_version = kraft_version
        self.voters = voters
        self.batch_size = batch_size
        self.latest_snapshot_generated_bytes = -1
        self.latest_snapshot_generated_time_ms = -1

    def maybe_emit(self, image: MetadataImage) -> Path | None:
        """Write ``image`` as the snapshot its provenance names; its path, or None when the
        log already has it (or it is below the log start)."""
        provenance = image.provenance
        name = provenance.snapshot_name()
        raw = self.log.create_new_snapshot(provenance.snapshot_id())
        if raw is None:
            log.error("[SnapshotEmitter id=%d] Not generating %s because it already exists.", self.node_id, name)
            return None
        kraft_version = self.kraft_version()
        writer: RecordsSnapshotWriter[ApiMessageAndVersion] = RecordsSnapshotWriter(
            raw, write_record, self.now_ms, last_contained_log_timestamp=provenance.last_contained_log_time_ms,
            kraft_version=kraft_version, voters=self.voters() if kraft_version >= 1 else None)
        try:
            records = image.records()
            for start in range(0, len(records), self.batch_size):
                writer.append(records[start:start + self.batch_size])
            path = writer.freeze()
        except Exception:
            log.error("[SnapshotEmitter id=%d] Encountered error while writing %s", self.node_id, name, exc_info=True)
            raise
        finally:
            writer.close()
        self.latest_snapshot_generated_time_ms = self.now_ms()
        self.latest_snapshot_generated_bytes = path.stat().st_size
        log.info("[SnapshotEmitter id=%d] Successfully wrote %s", self.node_id, name)
        return path
