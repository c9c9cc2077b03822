"""Event-loop lag: how late the loop runs a callback scheduled for a given time. A broker
whose loop is busy (a long request, a blocking call) answers everything late by that
much; the JVM has no equivalent, so it is exported under kafpy's own name
(``kafpy_event_loop_lag_seconds``: the largest lag seen in the last interval, and a
count of probes over 100 ms).

Who may call it: the metrics endpoint starts one probe per broker and stops it with the
HTTP server.
"""
from __future__ import annotations

import asyncio
import time
from typing import Callable

INTERVAL_S = 0.25
SLOW_S = 0.1


class EventLoopLagProbe:
    """Schedules a callback every ``INTERVAL_S`` and keeps how late it ran."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.max_lag_s = 0.0       # largest lag since the last read
        self.last_max_s = 0.0      # the previous window's largest lag (what a scrape reports)
        self.slow_probes = 0
        self._handle: asyncio.TimerHandle | None = None
        self._reads = 0

    def start(self) -> None:
        self._schedule()

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _schedule(self) -> None:
        due = self.loop.time() + INTERVAL_S
        self._handle = self.loop.call_at(due, self._ran, due)

    def _ran(self, due: float) -> None:
        lag = max(self.loop.time() - due, 0.0)
        if lag > self.max_lag_s:
            self.max_lag_s = lag
        if lag > SLOW_S:
            self.slow_probes += 1
        self._schedule()

    def read(self) -> float:
        """The largest lag since the previous read (or that read's value if none since)."""
        value = max(self.max_lag_s, 0.0)
        self.last_max_s, self.max_lag_s = value, 0.0
        return value


class LoopIdleRatio:
    """The share of wall time the event loop's thread did not spend on the CPU since the
    previous read: kafpy's loop is both Kafka's network processors and its request
    handlers, so it stands for both of Kafka's idle percentages
    (NetworkProcessorAvgIdlePercent, RequestHandlerAvgIdlePercent). Read on the loop's
    thread (``time.thread_time`` is per thread)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 cpu: Callable[[], float] = time.thread_time) -> None:
        self.clock = clock
        self.cpu = cpu
        self._wall = clock()
        self._cpu = cpu()

    def read(self) -> float:
        wall, cpu = self.clock(), self.cpu()
        elapsed = wall - self._wall
        busy = cpu - self._cpu
        self._wall, self._cpu = wall, cpu
        if elapsed <= 0:
            return 1.0
        return min(max(1.0 - busy / elapsed, 0.0), 1.0)

