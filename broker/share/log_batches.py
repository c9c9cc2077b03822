"""The batch boundaries of a log read, for acquiring (Kafka's ShareFetchUtils reads the
same): each batch's first and last offset, and which offsets a share partition must not
hand out (control batches; read_committed: batches of aborted transactions).

Only the 61-byte headers are read (``pread`` per batch on a file region); the records stay
opaque and go to the client as the log returned them.

Who calls it: the SharePartitionManager, on the event loop.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterator, Sequence, Union

from kafpy.storage.file_records import FileRecordsSlice
from kafpy.protocol.batch_header import (ATTRIBUTES_FIELD, BASE_OFFSET_FIELD, BATCH_HEADER_SIZE,
                                         BATCH_LENGTH_FIELD, CONTROL_MASK, HEADER_STRUCT,
                                         LAST_OFFSET_DELTA_FIELD, LOG_OVERHEAD, PRODUCER_ID_FIELD,
                                         TRANSACTIONAL_MASK)

_unpack = HEADER_STRUCT.unpack_from

# what a log read returns: a region of a segment file, or bytes
Records = Union[bytes, bytearray, memoryview, FileRecordsSlice]


@dataclass
class BatchScan:
    """What a read holds: `batches` ((first, last) offsets, in order), where each starts in
    the read (`positions`: (byte offset from the read's start, size)), and `skipped`
    ranges that are to be archived rather than delivered."""

    batches: list[tuple[int, int]] = field(default_factory=list)
    positions: list[tuple[int, int]] = field(default_factory=list)
    skipped: list[tuple[int, int]] = field(default_factory=list)

    def byte_range(self, first_offset: int, last_offset: int) -> tuple[int, int]:
        """(start, size) in bytes of the batches overlapping `first_offset`..`last_offset`."""
        start = end = -1
        for (first, last), (pos, size) in zip(self.batches, self.positions):
            if last < first_offset or first > last_offset:
                continue
            if start < 0:
                start = pos
            end = pos + size
        return (start, end - start) if start >= 0 else (0, 0)


def _headers(records: Records) -> Iterator[tuple[tuple[int, ...], int]]:
    """(header tuple, byte offset from the start) per whole batch of a file region
    (``FileRecordsSlice``) or of bytes."""
    if isinstance(records, (bytes, bytearray, memoryview)):
        pos, end = 0, len(records)
        while pos + BATCH_HEADER_SIZE <= end:
            h = _unpack(records, pos)
            size = h[BATCH_LENGTH_FIELD] + LOG_OVERHEAD
            if pos + size > end:
                return
            yield h, pos
            pos += size
        return
    fd = records.fileno()
    base = records.position
    pos, end = base, base + records.size
    while pos + BATCH_HEADER_SIZE <= end:
        buf = os.pread(fd, BATCH_HEADER_SIZE, pos)
        if len(buf) < BATCH_HEADER_SIZE:
            return
        h = _unpack(buf, 0)
        size = h[BATCH_LENGTH_FIELD] + LOG_OVERHEAD
        if pos + size > end:
            return
        yield h, pos - base
        pos += size


def scan_batches(records: Records, aborted: Sequence[tuple[int, int]] | None = None) -> BatchScan:
    """The batches of `records` (whole batches only: a batch cut off by the byte limit is
    left for the next read). `aborted` is the read's aborted transactions as
    (producer id, first offset): a transactional batch of such a producer at or after its
    first offset, up to its abort marker, is skipped, as a read_committed consumer drops it."""
    out = BatchScan()
    open_aborts: dict[int, int] = {}
    pending = sorted(aborted or (), key=lambda a: a[1])
    i = 0
    for h, pos in _headers(records):
        first = h[BASE_OFFSET_FIELD]
        last = first + h[LAST_OFFSET_DELTA_FIELD]
        attrs = h[ATTRIBUTES_FIELD]
        while i < len(pending) and pending[i][1] <= first:
            open_aborts[pending[i][0]] = pending[i][1]
            i += 1
        out.batches.append((first, last))
        out.positions.append((pos, h[BATCH_LENGTH_FIELD] + LOG_OVERHEAD))
        if attrs & CONTROL_MASK:
            out.skipped.append((first, last))
            open_aborts.pop(h[PRODUCER_ID_FIELD], None)   # the marker ends that transaction
        elif attrs & TRANSACTIONAL_MASK and h[PRODUCER_ID_FIELD] in open_aborts:
            out.skipped.append((first, last))
    return out
