"""Where an image comes from: the last record of the metadata log it contains.

Kafka's ``MetadataProvenance``: the offset and leader epoch of the last record applied, and
the append time of its batch. Carried by every ``MetadataImage``; a snapshot of the image is
named after ``last_contained_offset + 1`` and ``last_contained_epoch``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetadataProvenance:
    """The offset and epoch of the last record an image contains (-1 for none)."""

    last_contained_offset: int
    last_contained_epoch: int
    last_contained_log_time_ms: int = -1

    def snapshot_name(self) -> str:
        """The snapshot id Kafka gives an image: end offset (exclusive) and epoch, as in
        ``00000000000000000100-0000000001``."""
        return f"{self.last_contained_offset + 1:020d}-{self.last_contained_epoch:010d}"


EMPTY_PROVENANCE = MetadataProvenance(-1, -1, -1)
