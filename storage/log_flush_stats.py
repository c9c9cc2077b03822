"""Kafka's ``LogFlushStats``: the time of every log flush (an fsync of a log's segments below
an offset, on the loop or of a rolled segment in the background), for
``kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs``.

Who may call it: ``LocalLog`` when it flushed something (any thread: the counter's updates
and the bounded deque's appends are single bytecode-level operations under the GIL, and a
reader at scrape time tolerates seeing one flush less). One per process, as Kafka's is one
per JVM: flushes are rare next to appends, so keeping recent times costs nothing that
matters."""
from __future__ import annotations

import time
from collections import deque

RECENT = 1024   # flush times kept for percentiles (Kafka's histogram reservoir size)


class LogFlushStats:
    """Count and recent times (ms) of log flushes."""

    def __init__(self) -> None:
        self.count = 0
        self.recent: deque[float] = deque(maxlen=RECENT)

    def record(self, started: float) -> None:
        """A flush that began at ``time.perf_counter()`` value ``started`` just ended."""
        self.recent.append((time.perf_counter() - started) * 1000.0)
        self.count += 1


LOG_FLUSH_STATS = LogFlushStats()
