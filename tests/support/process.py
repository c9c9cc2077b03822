"""Helpers to run and stop the long-lived processes that tests start (brokers, ZooKeeper).

Every wait here is bounded; a process that dies while being waited for raises at once with
the tail of its output, so a failing start is reported instead of timing out silently.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable


class ProcessFailed(RuntimeError):
    """A started process exited early or did not become ready in time."""


def tail(path: Path | str | None, lines: int = 60) -> str:
    """The last `lines` lines of a text file ('' when absent)."""
    if path is None:
        return ""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return ""
    text = data[-256 * 1024:].decode("utf-8", "replace")
    return "\n".join(text.splitlines()[-lines:])


def bind_failed(output: str) -> bool:
    """True when a server's output says its listening port was taken (Python or Java)."""
    text = output.lower()
    return "address already in use" in text or "eaddrinuse" in text


def wait_for(ready: Callable[[], bool], *, timeout: float, what: str,
             proc: subprocess.Popen | None = None, log_path: Path | str | None = None,
             interval: float = 0.1) -> None:
    """Poll `ready()` until it returns True; raise ProcessFailed on timeout or early exit.

    Exceptions from `ready()` count as "not yet".
    """
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise ProcessFailed(f"{what}: process exited with {proc.returncode} before it was "
                                f"ready; output tail:\n{tail(log_path)}")
        try:
            if ready():
                return
        except Exception:  # noqa: BLE001 - a probe failing means "not ready yet"
            pass
        if time.monotonic() >= deadline:
            raise ProcessFailed(f"{what}: not ready after {timeout:.0f} s; output tail:\n"
                                f"{tail(log_path)}")
        time.sleep(interval)


def terminate(proc: subprocess.Popen, timeout: float = 30.0, sig: int = signal.SIGTERM) -> int:
    """Send `sig` (SIGTERM), wait up to `timeout`, then SIGKILL. Returns the exit code.

    Signals the process group when the process leads one (started with
    start_new_session=True), so helper children go too.
    """
    if proc.poll() is not None:
        return proc.returncode
    _signal(proc, sig)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _signal(proc, signal.SIGKILL)
        return proc.wait(timeout=30)


def kill(proc: subprocess.Popen) -> int:
    """SIGKILL at once (a crash, as far as the process can tell)."""
    if proc.poll() is None:
        _signal(proc, signal.SIGKILL)
    return proc.wait(timeout=30)


def _signal(proc: subprocess.Popen, sig: int) -> None:
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
    except ProcessLookupError:
        pass


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
