"""Reads stopped brokers' log dirs (the files only; run it after the broker stopped).

Recovery validation: every segment of every partition must be whole batches with good CRCs
and offsets that only increase, segment after segment, each batch at or above its segment's
base offset (what storage recovery would otherwise cut off).

Producer batches: the idempotent batches' headers of a topic's partitions (producer id and
epoch, sequences, offsets), recorded in the History so that the checker can judge an
idempotent producer's copies per producer id and epoch, as Kafka promises them."""
from __future__ import annotations

import os
from pathlib import Path

from typing import Sequence

from kafpy.protocol.errors import ProtocolError
from kafpy.protocol.records import iter_batches, verify_crc

from .history import History

SEQUENCE_MASK = 0x7FFFFFFF  # sequences wrap at int32, as in Kafka


def validate_log_dir(log_dir: Path) -> list[str]:
    """Problems found under ``log_dir`` (empty when every log is valid)."""
    problems = []
    for part in sorted(p for p in Path(log_dir).iterdir() if p.is_dir() and "-" in p.name):
        problems += validate_partition(part)
    return problems


def validate_partition(part: Path) -> list[str]:
    problems, next_offset = [], -1
    for seg in sorted(part.glob("*.log"), key=lambda s: int(s.stem)):
        base = int(seg.stem)
        data = seg.read_bytes()
        if base < next_offset:
            problems.append(f"{seg}: base offset {base} below the previous segment's end {next_offset}")
        end = 0
        try:
            for pos, h in iter_batches(data, strict=True):
                verify_crc(data, pos, h)
                if h.base_offset < max(base, next_offset):
                    problems.append(f"{seg}@{pos}: batch at offset {h.base_offset} below {max(base, next_offset)}")
                next_offset = h.last_offset + 1
                end = pos + h.total_size
        except ProtocolError as e:
            problems.append(f"{seg}@{end}: {type(e).__name__}: {e}")
        if end != len(data):
            problems.append(f"{seg}: {len(data) - end} trailing bytes after the last batch")
    return problems


def producer_ranges(part: Path) -> tuple[int, list[list[int]]]:
    """The log end offset of one partition's log dir and its idempotent batches as ranges
    ``[producer_id, producer_epoch, base_sequence, base_offset, last_offset]``, in offset
    order. Batches of one producer id and epoch whose offsets and sequences both continue the
    previous range are merged into it, so the History holds ranges, not one entry a batch.
    Raises ``ProtocolError`` on a corrupt segment (validate_log_dir says where)."""
    ranges: list[list[int]] = []
    end = 0
    for seg in sorted(part.glob("*.log"), key=lambda s: int(s.stem)):
        for _, h in iter_batches(seg.read_bytes(), strict=True):
            end = h.last_offset + 1
            if h.producer_id < 0 or h.is_control:
                continue
            last = ranges[-1] if ranges else None
            if (last is not None and last[:2] == [h.producer_id, h.producer_epoch]
                    and h.base_offset == last[4] + 1
                    and h.base_sequence == (last[2] + last[4] - last[3] + 1) & SEQUENCE_MASK):
                last[4] = h.last_offset
            else:
                ranges.append([h.producer_id, h.producer_epoch, h.base_sequence,
                               h.base_offset, h.last_offset])
    return end, ranges


def record_producer_batches(history: History, log_dirs: Sequence[Path], topic: str,
                            final: dict[int, list[tuple[int, str]]]) -> None:
    """One ``batches`` event a partition of ``topic``: the producer ranges of one stopped
    replica, the first (by broker index) whose log ends where the read-back ``final`` records
    end, else the longest log (the checker then judges the offsets past it strictly)."""
    for p, records in sorted(final.items()):
        want = records[-1][0] + 1 if records else 0
        best: tuple[int, int, list[list[int]]] | None = None
        for i, log_dir in enumerate(log_dirs):
            part = Path(log_dir) / f"{topic}-{p}"
            if not part.is_dir():
                continue
            try:
                end, ranges = producer_ranges(part)
            except ProtocolError:
                continue
            if end == want:
                best = (i, end, ranges)
                break
            if best is None or end > best[1]:
                best = (i, end, ranges)
        if best is not None:
            history.record("batches", partition=p, broker=best[0], log_end=best[1], ranges=best[2])


def leftovers(path: Path, names: tuple[str, ...]) -> list[str]:
    """Which of the harness's own ``names`` are still in a log dir (none once faults healed)."""
    return [f for f in os.listdir(path) if f in names]
