"""The history of one fault run, one JSON object a line, written as things happen (so a run
that dies still leaves what it saw). Every event has ``t`` (seconds since the run began) and
``kind``: send, ack, error (producers), consume, commit (group consumers), committed (the
group's offsets as OffsetFetch answers them), fault, heal, converged, crash, final (the log of a
partition read back after healing), batches (a partition's idempotent batch headers as ranges,
read from a stopped replica's files), schedule."""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Iterator


class History:
    """Appends events to ``path``; any thread may call ``record``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = open(path, "w", buffering=1 << 16)
        self._lock = threading.Lock()
        self._start = time.monotonic()

    def now(self) -> float:
        return round(time.monotonic() - self._start, 3)

    def record(self, kind: str, **fields: Any) -> None:
        line = json.dumps({"t": self.now(), "kind": kind, **fields}, separators=(",", ":"))
        with self._lock:
            if not self._file.closed:
                self._file.write(line + "\n")

    def close(self) -> None:
        with self._lock:
            self._file.close()


def read(path: Path) -> Iterator[dict]:
    with open(path) as f:
        for line in f:
            if line.strip():
                yield json.loads(line)
