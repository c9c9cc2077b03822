"""A node's snapshots of its own metadata image: the ``SnapshotGenerator``'s decision and the
``SnapshotEmitter``'s write, for each image the loader publishes.

Who calls it: a KRaft node's metadata listener (controller or broker), on the event loop,
with each published image and the bytes of log batches it took in. The snapshot is written
right there: a metadata image encodes in milliseconds (Kafka writes it on its own thread; a
thread here would race the log's set of snapshots, which the raft client reads)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.publisher.snapshot_emitter import SnapshotEmitter
from kafpy.metadata.publisher.snapshot_generator import SnapshotGenerator


class SnapshotPublisher:
    """Keeps the generator, the emitter and the clock; ``written`` lists the snapshot files
    this node wrote, oldest first."""

    def __init__(self, generator: SnapshotGenerator, emitter: SnapshotEmitter, now_ms: Callable[[], int]) -> None:
        self.generator = generator
        self.emitter = emitter
        self.now_ms = now_ms
        self.written: list[Path] = []

    def on_snapshot_loaded(self, image: MetadataImage) -> None:
        """The image came from a snapshot (at start, or fetched from the leader)."""
        self.generator.publish_snapshot(image.provenance, self.now_ms())

    def on_log_delta(self, image: MetadataImage, num_bytes: int) -> Path | None:
        """The image took in ``num_bytes`` of log batches; the snapshot written, if one was."""
        reason = self.generator.publish_log_delta(image.provenance, num_bytes, self.now_ms())
        if reason is None:
            return None
        self.generator.begin_emit(image.provenance, reason, self.now_ms())
        try:
            path = self.emitter.maybe_emit(image)
        finally:
            self.generator.emit_done()
        if path is not None:
            self.written.append(path)
        return path
