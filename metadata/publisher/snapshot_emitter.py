"""Writes a metadata image into a snapshot of the metadata log, as Kafka's ``SnapshotEmitter``
(with ``KafkaRaftClient.createSnapshot``'s part: the header's timestamp, kraft.version and
voters).

Who calls it: the node's ``SnapshotPublisher`` when its ``SnapshotGenerator`` asks for a
snapshot: ``prepare`` on the event loop (the log's checks), then ``write_in_steps`` (on the
loop a few hundred records at a time, the fsync on a worker thread) or ``write`` (all at once).
The snapshot is named after the image's provenance (end offset and epoch of its last record),
so it must be at or below the log's high watermark; the log refuses (None) one that exists or
is below its start. Records are appended ``batch_size`` at a time and fill batches of up
to 8 MiB (a snapshot's batches never linger out, as Kafka's accumulator for snapshots), framed
as ``record_serde`` frames them, features first so a reader knows the metadata.version
first."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
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
    """Keeps the log to write into, the clock, and where the kraft.version and voter set
    the header carries come from (asked for at each snapshot with its last contained offset,
    as Kafka's ``createSnapshot`` reads them at that offset)."""

    def __init__(self, node_id: int, log_: SnapshotLog, now_ms: Callable[[], int], *,
                 kraft_version: Callable[[int], int] = lambda _offset: 0,
                 voters: Callable[[int], VotersRecord | None] = lambda _offset: None,
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
        """Write ``image`` as the snapshot its provenance names, here and now; its path, or
        None when the log already has it (or it is below the log start)."""
        job = self.prepare(image)
        return None if job is None else self.write(job)

    def prepare(self, image: MetadataImage) -> SnapshotJob | None:
        """The caller's part (on the thread that owns the log): open the snapshot in the log
        and read the header's kraft.version and voters. None when the log already has it."""
        provenance = image.provenance
        raw = self.log.create_new_snapshot(provenance.snapshot_id())
        if raw is None:
            log.error("[SnapshotEmitter id=%d] Not generating %s because it already exists.",
                      self.node_id, provenance.snapshot_name())
            return None
        offset = provenance.last_contained_offset
        kraft_version = self.kraft_version(offset)
        return SnapshotJob(image, raw, kraft_version, self.voters(offset) if kraft_version >= 1 else None)

    async def write_in_steps(self, job: SnapshotJob, step_records: int) -> Path:
        """``write`` on the event loop, ``step_records`` records encoded at a time with the
        loop free in between (the image is immutable, so it may change under no step); the
        last batch, the footer, the fsync and the rename run on a worker thread."""
        provenance = job.image.provenance
        name = provenance.snapshot_name()
        writer: RecordsSnapshotWriter[ApiMessageAndVersion] = RecordsSnapshotWriter(
            job.raw, write_record, self.now_ms, last_contained_log_timestamp=provenance.last_contained_log_time_ms,
            kraft_version=job.kraft_version, voters=job.voters)
        try:
            pending: list[ApiMessageAndVersion] = []
            for chunk in job.image.record_chunks():
                pending += chunk
                if len(pending) >= step_records:
                    writer.append(pending)
                    pending = []
                    await asyncio.sleep(0)
            if pending:
                writer.append(pending)
            path = await asyncio.to_thread(writer.freeze)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.error("[SnapshotEmitter id=%d] Encountered error while writing %s", self.node_id, name, exc_info=True)
            raise
        finally:
            writer.close()
        self.latest_snapshot_generated_time_ms = self.now_ms()
        self.latest_snapshot_generated_bytes = path.stat().st_size
        log.info("[SnapshotEmitter id=%d] Successfully wrote %s", self.node_id, name)
        return path

    def write(self, job: SnapshotJob) -> Path:
        """Encode and write the image and freeze the file: pure CPU and file I/O over an
        immutable image, so it may run on a worker thread (the log learns of the frozen
        snapshot under its lock)."""
        provenance = job.image.provenance
        name = provenance.snapshot_name()
        writer: RecordsSnapshotWriter[ApiMessageAndVersion] = RecordsSnapshotWriter(
            job.raw, write_record, self.now_ms, last_contained_log_timestamp=provenance.last_contained_log_time_ms,
            kraft_version=job.kraft_version, voters=job.voters)
        try:
            records = job.image.records()
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


@dataclass(frozen=True)
class SnapshotJob:
    """One snapshot to write: the image, the log's writer for it, and the header's
    kraft.version and voters as the log had them when it was opened."""

    image: MetadataImage
    raw: RawSnapshotWriter
    kraft_version: int
    voters: VotersRecord | None
