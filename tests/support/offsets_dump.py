"""``__consumer_offsets`` segments as Apache Kafka 4.4's ``kafka-dump-log --offsets-decoder
--print-data-log`` decodes them: each record's key and value, as the tool prints them in JSON."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from tests.support.kafka_dist import run_tool

TOMBSTONES = ("", "<DELETE>", "null")


def dumped_records(segments: Iterable[Path]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """(key, value) of every record in ``segments``, oldest first; value None for a tombstone.
    Keys and values are the tool's JSON: ``{"type": ..., "data": {...}}`` and
    ``{"version": ..., "data": {...}}``."""
    files = [str(s) for s in segments]
    assert files, "no segments to dump"
    out = run_tool("4", "kafka-dump-log", ["--offsets-decoder", "--print-data-log", "--files", ",".join(files)],
                   timeout=120).stdout
    records: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    for line in out.splitlines():
        if " key: " in line and " payload: " in line:
            key, _, payload = line.split(" key: ", 1)[1].partition(" payload: ")
            records.append((json.loads(key), json.loads(payload) if payload.strip() not in TOMBSTONES else None))
    return records
