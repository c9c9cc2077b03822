"""Recovery validation of a stopped broker's log dir: every segment of every partition must be
whole batches with good CRCs and offsets that only increase, segment after segment, each batch
at or above its segment's base offset (what storage recovery would otherwise cut off). Reads
the files only; run it after the broker stopped."""
from __future__ import annotations

import os
from pathlib import Path

from protocol.errors import ProtocolError
from protocol.records import iter_batches, verify_crc


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


def leftovers(path: Path, names: tuple[str, ...]) -> list[str]:
    """Which of the harness's own ``names`` are still in a log dir (none once faults healed)."""
    return [f for f in os.listdir(path) if f in names]
