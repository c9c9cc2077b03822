"""Kafka's Throttler: holds its callers to a rate (units per second) by making them sleep.

Who may call it: the log cleaner threads, which share one (``log.cleaner.io.max.bytes.per.second``
caps their reads and writes together, as in Kafka). Keeps nothing on disk. Thread-safe: the nap
is taken under the lock, so while one caller sleeps the others wait too, and the rate holds for
all of them at once. The clock and the sleep are passed in (tests give fake ones; the cleaner
gives a sleep its shutdown interrupts).
"""
from __future__ import annotations

import sys
import threading
import time
from typing import Callable


class Throttler:
    """Counts what callers report; every ``check_interval_s`` it compares the rate seen since
    the last check with ``rate_per_s`` and, when above it, sleeps long enough to bring that
    period back down to the rate. Kafka's default rate, the largest double (or an infinite
    one), costs one comparison."""

    def __init__(self, rate_per_s: float, check_interval_s: float = 0.3,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], object] = time.sleep) -> None:
        self.rate_per_s = rate_per_s
        self.check_interval_s = check_interval_s
        self.clock = clock
        self.sleep = sleep
        self._lock = threading.Lock()
        self._period_start = clock()
        self._observed = 0.0
        self.slept_s = 0.0   # all naps so far (a gauge for tests and logs)

    def maybe_throttle(self, observed: float) -> None:
        """Reports ``observed`` units done; may sleep before returning."""
        if self.rate_per_s >= sys.float_info.max:
            return
        with self._lock:
            self._observed += observed
            now = self.clock()
            elapsed = now - self._period_start
            if elapsed <= self.check_interval_s or self._observed <= 0:
                return
            if self._observed / elapsed > self.rate_per_s:
                nap = self._observed / self.rate_per_s - elapsed
                if nap > 0:
                    self.sleep(nap)
                    self.slept_s += nap
            self._period_start = self.clock()
            self._observed = 0.0
