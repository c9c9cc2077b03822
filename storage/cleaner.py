"""Log compaction (placeholder thread until the cleaner lands)."""
from __future__ import annotations
import threading


class LogCleaner:
    def __init__(self, manager, clock=None):
        self.manager = manager
        self._stop = threading.Event()

    def start(self) -> None:
        pass

    def abort(self, tp) -> None:
        pass

    def shutdown(self) -> None:
        self._stop.set()
