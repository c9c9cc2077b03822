"""Process helpers for tests: kafpy's own (kafpy._process, shared with kafpy.embedded) plus
a line reader for children whose output a test reads as it comes."""
from __future__ import annotations

import time

from kafpy._process import ProcessFailed, bind_failed, kill, tail, terminate, wait_for

__all__ = ["LineReader", "ProcessFailed", "bind_failed", "kill", "tail", "terminate", "wait_for"]


class LineReader:
    """Reads a child's output stream line by line on a daemon thread, so tests can wait for
    lines with a deadline instead of blocking on readline() forever."""

    def __init__(self, stream):
        import queue
        import threading

        self._queue: "queue.Queue[str | None]" = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream) -> None:
        try:
            for line in stream:
                self._queue.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self._queue.put(None)

    def lines(self, count: int, timeout: float) -> list:
        """The next `count` lines (newline stripped); TimeoutError with what arrived when
        they do not all arrive within `timeout` seconds, EOFError if the stream ends."""
        import queue

        deadline = time.monotonic() + timeout
        got: list = []
        while len(got) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"{len(got)} of {count} lines after {timeout} s: {got!r}")
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise EOFError(f"stream ended after {len(got)} of {count} lines: {got!r}")
            got.append(line.rstrip("\r\n") if isinstance(line, str) else line.rstrip(b"\r\n"))
        return got
