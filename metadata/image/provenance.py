"""Where an image comes from: the last record of the metadata log it contains.

Kafka's ``MetadataProvenance``: the offset and leader epoch of the last record applied, and
the append time of its batch, and whether it ends at a batch's end. Carried by every ``MetadataImage``; a snapshot of the image is
named after ``last_contained_offset + 1`` and ``last_contained_epoch``."""

from __future__ import annotations

from dataclasses import dataclass

from kafpy.raft.snapshot import SnapshotId, snapshot_filename


@dataclass(frozen=True)
class MetadataProvenance:
    """The offset and epoch of the last record an image contains (-1 for none)."""

    last_contained_offset: int
    last_contained_epoch: int
    last_contained_log_time_ms: int = -1
    # False when the image ends inside a batch (the loader published the records before a
    # metadata transaction began): no snapshot may be named after it.
    is_offset_batch_aligned: bool = True

    def snapshot_id(self) -> SnapshotId:
        """The id of a snapshot of the image: end offset (exclusive) and epoch."""
        return SnapshotId(self.last_contained_offset + 1, self.last_contained_epoch)

    def snapshot_name(self) -> str:
        """The snapshot id Kafka gives an image: end offset (exclusive) and epoch, as in
        ``00000000000000000100-0000000001``."""
        return snapshot_filename(self.snapshot_id())


EMPTY_PROVENANCE = MetadataProvenance(-1, -1, -1)
