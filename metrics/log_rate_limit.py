"""Repeated identical warnings, rate-limited with a count: a client retrying a refused
request thousands of times gets its warning logged once per window, and at the end of
the window one line saying how many identical ones were held back. Nothing is dropped
without being counted.

Who may call it: ``broker.__main__`` installs one ``RepeatedWarningFilter`` on the root
handlers and calls ``flush`` from the loop every window (``RepeatedWarningFilter.run``).
Unit tests drive it with their own clock.
"""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

WINDOW_S = 60.0
MAX_KEYS = 10_000   # distinct messages remembered per window; past that, new ones pass through


class RepeatedWarningFilter(logging.Filter):
    """Passes the first of identical WARNING-or-worse records (same logger, level and
    formatted message) in each window and counts the rest; ``flush`` logs the counts."""

    def __init__(self, window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.window_s = window_s
        self.clock = clock
        self._window_start = clock()
        self._seen: dict[tuple[str, int, str], int] = {}   # -> identical records held back

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or getattr(record, "repeated_summary", False):
            return True
        if self.clock() - self._window_start >= self.window_s:
            self.flush()
        key = (record.name, record.levelno, record.getMessage())
        held = self._seen.get(key)
        if held is None:
            if len(self._seen) < MAX_KEYS:
                self._seen[key] = 0
            return True
        self._seen[key] = held + 1
        return False

    def flush(self) -> None:
        """Logs one line per message held back in the window that ends now, then starts
        a new window."""
        seen, self._seen = self._seen, {}
        elapsed = self.clock() - self._window_start
        self._window_start = self.clock()
        for key, held in seen.items():
            if held:
                name, level, message = key
                logging.getLogger(name).log(level, "%s (repeated %d more times in the last %.0f s)", message, held,
                                            elapsed, extra={"repeated_summary": True})

    async def run(self) -> None:
        """Flushes every window on the event loop until cancelled."""
        while True:
            await asyncio.sleep(self.window_s)
            self.flush()


def install(window_s: float = WINDOW_S) -> RepeatedWarningFilter:
    """Puts one filter on every handler of the root logger (where the broker's lines go)."""
    f = RepeatedWarningFilter(window_s)
    for h in logging.getLogger().handlers:
        h.addFilter(f)
    return f
