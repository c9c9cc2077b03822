"""Progress of loading the logs of each log dir at startup, logged as it goes.

Kafka's LogManager logs, per log dir, how many logs it is loading and then each log loaded
with "(n/total completed in <dir>)", so an operator watching a long restart sees it move.
Here one line per dir says how many logs it holds and whether they are recovered, then every
``interval_s`` a line per unfinished dir gives the logs loaded so far of its total, and a
last line per dir says when all are loaded: a few lines however many logs there are.

Who may call it: the LogManager's loading code; ``loaded`` from any of its loader threads
(the counts change under a lock). ``monotonic`` is passed in so that a test drives the clock.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

__all__ = ["LoadProgress"]

log = logging.getLogger("kafpy.storage.log_manager")


class LoadProgress:
    """Per log dir: logs to load and loaded so far; when the next progress line is due."""

    def __init__(self, interval_s: float = 5.0, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_s
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._total: dict[str, int] = {}
        self._loaded: dict[str, int] = {}
        self._started = monotonic()
        self._next_report = self._started + interval_s

    def start_dir(self, log_dir: str, total: int, clean: bool) -> None:
        """Announce ``total`` logs in ``log_dir``, opened as left by a clean shutdown or recovered."""
        with self._lock:
            self._total[log_dir] = total
            self._loaded[log_dir] = 0
        if total and clean:
            log.info("Skipping recovery of %d logs from %s since clean shutdown file was found", total, log_dir)
        elif total:
            log.info("Attempting recovery for all logs in %s since no clean shutdown file was found", log_dir)
        log.info("In the process of loading %d logs in log dir %s", total, log_dir)

    def loaded(self, log_dir: str) -> None:
        """One more log of ``log_dir`` is loaded; logs the progress when a line is due."""
        now = self._monotonic()
        with self._lock:
            self._loaded[log_dir] += 1
            n, total = self._loaded[log_dir], self._total[log_dir]
            if n == total:
                log.info("Loaded all %d logs in log dir %s in %.2f s", total, log_dir, now - self._started)
            if now < self._next_report:
                return
            self._next_report = now + self.interval_s
            for d, dir_total in self._total.items():
                if self._loaded[d] < dir_total:
                    log.info("Loaded %d/%d logs in log dir %s (%.1f s so far)", self._loaded[d], dir_total, d,
                             now - self._started)
