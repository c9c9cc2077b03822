"""A node's snapshots of its own metadata image: the ``SnapshotGenerator``'s decision and the
``SnapshotEmitter``'s write, for each image the node's metadata listener publishes.

Who calls it: a KRaft node's metadata listener on the event loop: the broker's
``BrokerMetadataListener``, or on a controller (dedicated or combined) the
``ControllerEventManager`` with the quorum controller's image; each with the bytes of log
batches the image took in since the last call.

Why not all at once on the loop: encoding a large image (thousands of partitions) takes far
longer than a request may hold the loop (Kafka writes it on its own thread). By default it is
encoded on the loop ``step_records`` records at a time, the loop free between steps, and the
last batch, fsync and rename go to a worker thread: the loop's hold is bounded by a step's
CPU time (1.6 ms at 5,000 partitions), where a worker thread encoding the whole image holds
the GIL in slices of the interpreter's switch interval (5 ms); on the shared test machine both
measure alike in wall-clock lateness (``bench/snapshot_loop.py``). ``step_records=None``
writes it all on a worker thread. The image is immutable, so neither way can see it change;
the log is touched on the loop (``prepare``: its checks and the new ``.part`` file) and, once
frozen, the snapshot joins the log's set under the log's lock. One snapshot at a time: the
generator asks for none while one is being written."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.publisher.snapshot_emitter import SnapshotEmitter, SnapshotJob
from kafpy.metadata.publisher.snapshot_generator import SnapshotGenerator

log = logging.getLogger(__name__)

# records encoded per step on the event loop (a few milliseconds; bench/snapshot_loop.py)
STEP_RECORDS = 256


class SnapshotPublisher:
    """Keeps the generator, the emitter, the clock and the write in flight; ``written``
    lists the snapshot files this node wrote, oldest first; ``loaded`` the snapshot ids it
    started from (at start or fetched from the leader)."""

    def __init__(self, generator: SnapshotGenerator, emitter: SnapshotEmitter, now_ms: Callable[[], int], *,
                 step_records: int | None = STEP_RECORDS) -> None:
        self.generator = generator
        self.emitter = emitter
        self.now_ms = now_ms
        self.step_records = step_records
        self.written: list[Path] = []
        self.loaded: list[str] = []
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def on_snapshot_loaded(self, image: MetadataImage) -> None:
        """The image came from a snapshot (at start, or fetched from the leader)."""
        self.loaded.append(image.provenance.snapshot_name())
        self.generator.publish_snapshot(image.provenance, self.now_ms())

    def on_log_delta(self, image: MetadataImage, num_bytes: int) -> asyncio.Task[None] | None:
        """The image took in ``num_bytes`` of log batches; the task writing a snapshot of it
        on a worker thread, if the generator asks for one now."""
        job = self._begin(image, num_bytes)
        if job is None:
            return None
        task = asyncio.get_running_loop().create_task(self._write(job), name="snapshot-emitter")
        self._task = task
        return task

    def on_log_delta_now(self, image: MetadataImage, num_bytes: int) -> Path | None:
        """As ``on_log_delta`` but writing on the caller's thread (tools and unit tests)."""
        job = self._begin(image, num_bytes)
        if job is None:
            return None
        try:
            path = self.emitter.write(job)
        finally:
            self.generator.emit_done()
        self.written.append(path)
        return path

    def _begin(self, image: MetadataImage, num_bytes: int) -> SnapshotJob | None:
        if self._closed:
            return None
        reason = self.generator.publish_log_delta(image.provenance, num_bytes, self.now_ms())
        if reason is None:
            return None
        self.generator.begin_emit(image.provenance, reason, self.now_ms())
        try:
            job = self.emitter.prepare(image)
        except Exception:
            self.generator.emit_done()
            log.error("Cannot open snapshot %s in the log", image.provenance.snapshot_name(), exc_info=True)
            return None
        if job is None:
            self.generator.emit_done()
        return job

    async def _write(self, job: SnapshotJob) -> None:
        try:
            if self.step_records is None:
                path = await asyncio.to_thread(self.emitter.write, job)
            else:
                path = await self.emitter.write_in_steps(job, self.step_records)
        except Exception:  # noqa: BLE001 - logged by the emitter; the next image tries again
            return
        finally:
            self.generator.emit_done()
        self.written.append(path)

    async def close(self) -> None:
        """Let the snapshot being written finish (it is fsynced and renamed, or removed)."""
        self._closed = True
        task = self._task
        if task is not None and not task.done():
            await asyncio.shield(task)
