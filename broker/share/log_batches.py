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
from typing import Any, Sequence

from kafpy.protocol.batch_header import (ATTRIBUTES_FIELD, BASE_OFFSET_FIELD, BATCH_HEADER_SIZE,
                                         BATCH_LENGTH_FIELD, CONTROL_MASK, HEADER_STRUCT,
                                         LAST_OFFSET_DELTA_FIELD, LOG_OVERHEAD, PRODUCER_ID_FIELD,
                                         TRANSACTIONAL_MASK)

_unpack = HEADER_STRUCT.unpack_from


@dataclass
class BatchScan:
    """What a read holds: `batches` ((first, last) offsets, in order) and `skipped` ranges
    that are to be archived rather than delivered."""

    batches: list[tuple[int, int]] = field(default_factory=list)
    skipped: list[tuple[int, int]] = field(default_factory=list)


def _headers(records: Any):
    """(header tuple) per batch of a file region (``FileRecordsSlice``) or of bytes."""
    if isinstance(records, (bytes, bytearray, memoryview)):
        pos, end = 0, len(records)
        while pos + BATCH_HEADER_SIZE <= end:
            h = _unpack(records, pos)
            yield h
            pos += h[BATCH_LENGTH_FIELD] + LOG_OVERHEAD
        return
    fd = records.fileno()
    pos, end = records.position, records.position + records.size
    while pos + BATCH_HEADER_SIZE <= end:
        buf = os.pread(fd, BATCH_HEADER_SIZE, pos)
        if len(buf) < BATCH_HEADER_SIZE:
            return
        h = _unpack(buf, 0)
        yield h
        pos += h[BATCH_LENGTH_FIELD] + LOG_OVERHEAD


def scan_batches(records: Any, aborted: Sequence[tuple[int, int]] | None = None) -> BatchScan:
    """The batches of `records` (whole batches only: a batch cut off by the byte limit is
    left for the next read). `aborted` is the read's aborted transactions as
    (producer id, first offset): a transactional batch of such a producer at or after its
    first offset, up to its abort marker, is skipped, as a read_committed consumer drops it."""
    out = BatchScan()
    open_aborts: dict[int, int] = {}
    pending = sorted(aborted or (), key=lambda a: a[1])
    i = 0
    for h in _headers(records):
        first = h[BASE_OFFSET_FIELD]
        last = first + h[LAST_OFFSET_DELTA_FIELD]
        attrs = h[ATTRIBUTES_FIELD]
        while i < len(pending) and pending[i][1] <= first:
            open_aborts[pending[i][0]] = pending[i][1]
            i += 1
        out.batches.append((first, last))
        if attrs & CONTROL_MASK:
            out.skipped.append((first, last))
            open_aborts.pop(h[PRODUCER_ID_FIELD], None)   # the marker ends that transaction
        elif attrs & TRANSACTIONAL_MASK and h[PRODUCER_ID_FIELD] in open_aborts:
            out.skipped.append((first, last))
    return out
