"""When a KRaft node writes a snapshot of its metadata image, as Kafka's ``SnapshotGenerator``.

Who calls it: the node's metadata listener, after each image the loader publishes
(``publish_log_delta`` with the bytes of log batches the image took in, ``publish_snapshot``
when the image came from a snapshot), then ``begin_emit``/``emit_done`` around writing the
snapshot it asked for. Every KRaft node (controller or broker) writes its own snapshots.

Pure: the clock is passed in. Kafka decides in the same order: first by bytes
(``metadata.log.max.record.bytes.between.snapshots``), then by time
(``metadata.log.max.snapshot.interval.ms``, 0 turns it off); it asks for no second snapshot
while one is being written (Kafka: its event queue is not empty), none while snapshots are
disabled, and none of an image that ends inside a batch (a snapshot id is a batch's end)."""

from __future__ import annotations

import logging

from kafpy.metadata.image.provenance import MetadataProvenance

log = logging.getLogger(__name__)


class SnapshotGenerator:
    """Keeps the log bytes replayed and the time of the last snapshot, and whether one is
    being written."""

    def __init__(self, node_id: int, max_bytes_since_last_snapshot: int,
                 max_time_since_last_snapshot_ms: int, now_ms: int,
                 disabled_reason: str | None = None) -> None:
        self.node_id = node_id
        self.max_bytes_since_last_snapshot = max_bytes_since_last_snapshot
        self.max_time_since_last_snapshot_ms = max_time_since_last_snapshot_ms
        self.disabled_reason = disabled_reason
        self.bytes_since_last_snapshot = 0
        self.last_snapshot_time_ms = now_ms
        self.emitting = False

    def _reset(self, now_ms: int) -> None:
        self.bytes_since_last_snapshot = 0
        self.last_snapshot_time_ms = now_ms

    def publish_snapshot(self, provenance: MetadataProvenance, now_ms: int) -> None:
        """The image came from a snapshot: count from here."""
        log.debug("[SnapshotGenerator id=%d] Resetting the snapshot counters because we just read %s.",
                  self.node_id, provenance.snapshot_name())
        self._reset(now_ms)

    def publish_log_delta(self, provenance: MetadataProvenance, num_bytes: int, now_ms: int) -> str | None:
        """The image took in ``num_bytes`` of log batches; the reason to write a snapshot of
        it now, or None."""
        self.bytes_since_last_snapshot += num_bytes
        if self.bytes_since_last_snapshot >= self.max_bytes_since_last_snapshot:
            reason = f"we have replayed at least {self.max_bytes_since_last_snapshot} bytes"
        elif (self.max_time_since_last_snapshot_ms != 0
              and now_ms - self.last_snapshot_time_ms >= self.max_time_since_last_snapshot_ms):
            minutes = self.max_time_since_last_snapshot_ms // 60_000
            reason = f"we have waited at least {minutes} minute(s)"
        else:
            return None
        if self.emitting:
            return None
        name = provenance.snapshot_name()
        if self.disabled_reason is not None:
            log.error("[SnapshotGenerator id=%d] Not emitting %s despite the fact that %s because "
                      "snapshots are disabled; %s", self.node_id, name, reason, self.disabled_reason)
            return None
        if not provenance.is_offset_batch_aligned:
            log.debug("[SnapshotGenerator id=%d] Not emitting %s despite the fact that %s because "
                      "snapshots are disabled; metadata image is not batch aligned", self.node_id, name, reason)
            return None
        self.emitting = True
        return reason

    def begin_emit(self, provenance: MetadataProvenance, reason: str, now_ms: int) -> None:
        """The snapshot asked for is being written: count the next one from now."""
        self._reset(now_ms)
        log.info("[SnapshotGenerator id=%d] Creating new KRaft snapshot file %s because %s.",
                 self.node_id, provenance.snapshot_name(), reason)

    def emit_done(self) -> None:
        self.emitting = False
