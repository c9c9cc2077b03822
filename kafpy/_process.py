"""Start, wait for and stop the long-lived child processes of kafpy.embedded and the tests
(brokers, ZooKeeper).

Every wait here is bounded; a process that dies while being waited for raises at once with
the tail of its output, so a failing start is reported instead of timing out silently.
"""
from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import time
from pathlib import Path
from typing import Callable, TypeVar


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
        except Exception:  # noqa: BLE001,S110 - a probe failing means "not ready yet"
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


_Child = TypeVar("_Child", bound="ChildProcess")


class ChildProcess:
    """What every long-lived child the tests and kafpy.embedded start shares: SIGKILL, its
    output file read back, and use as a context manager (start; stop, then clean up).
    A subclass has ``proc`` (a Popen, or None before start), ``output_path``, and its own
    ``start()``, ``stop()`` and ``cleanup()``."""

    proc: "subprocess.Popen | None"
    output_path: Path

    def kill(self) -> int | None:
        return kill(self.proc) if self.proc is not None else None

    def log_text(self) -> str:
        try:
            return self.output_path.read_text(errors="replace")
        except OSError:
            return ""

    def start(self: _Child) -> _Child:
        raise NotImplementedError

    def stop(self) -> object:
        raise NotImplementedError

    def cleanup(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Child) -> _Child:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.cleanup()


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


def answers_api_versions(host: str, port: int, timeout: float = 2.0) -> bool:
    """True when host:port answers a Kafka ApiVersions v0 request without error.

    Hand-encoded (request header v1, client id ``kafpy-probe``) so that a readiness probe does
    not import the broker's protocol package: importing it would cost the caller 0.1 s.
    """
    client_id = b"kafpy-probe"
    header = struct.pack(">hhih", 18, 0, 7, len(client_id)) + client_id
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(struct.pack(">i", len(header)) + header)
        head = _recv_exact(sock, 4)
        (size,) = struct.unpack(">i", head)
        if size < 6 or size > 1 << 20:
            return False
        correlation_id, error_code = struct.unpack_from(">ih", _recv_exact(sock, size))
    return correlation_id == 7 and error_code == 0


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError(f"connection closed after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


def partition_leaders(host: str, port: int, topic: str, timeout: float = 2.0) -> dict[int, int]:
    """{partition: leader id} of ``topic`` in this broker's own metadata; an unknown topic
    reads as {} (Metadata v4 with allow_auto_topic_creation false: probing creates nothing),
    a partition without a leader as -1."""
    client_id = b"kafpy-probe"
    name = topic.encode()
    header = struct.pack(">hhih", 3, 4, 9, len(client_id)) + client_id
    body = struct.pack(">ih", 1, len(name)) + name + b"\x00"
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(struct.pack(">i", len(header) + len(body)) + header + body)
        (size,) = struct.unpack(">i", _recv_exact(sock, 4))
        resp = _recv_exact(sock, size)
    pos = 8  # correlation id, throttle time
    (brokers,) = struct.unpack_from(">i", resp, pos)
    pos += 4
    for _ in range(brokers):  # node id, host, port, rack
        pos = _skip_string(resp, pos + 4) + 4
        pos = _skip_string(resp, pos)
    pos = _skip_string(resp, pos) + 4  # cluster id, controller id
    (topics,) = struct.unpack_from(">i", resp, pos)
    pos += 4
    leaders: dict[int, int] = {}
    for _ in range(topics):
        (error_code,) = struct.unpack_from(">h", resp, pos)
        pos = _skip_string(resp, pos + 2) + 1  # name, is_internal
        (partitions,) = struct.unpack_from(">i", resp, pos)
        pos += 4
        for _ in range(partitions):
            _p_error, index, leader, replicas = struct.unpack_from(">hiii", resp, pos)
            pos += 14 + 4 * replicas
            (isr,) = struct.unpack_from(">i", resp, pos)
            pos += 4 + 4 * isr
            if error_code == 0:
                leaders[index] = leader
    return leaders


def broker_count(host: str, port: int, timeout: float = 2.0) -> int:
    """How many brokers this broker's own Metadata lists (Metadata v4, no topics asked)."""
    client_id = b"kafpy-probe"
    header = struct.pack(">hhih", 3, 4, 9, len(client_id)) + client_id
    body = struct.pack(">i", 0) + b"\x00"
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(struct.pack(">i", len(header) + len(body)) + header + body)
        (size,) = struct.unpack(">i", _recv_exact(sock, 4))
        resp = _recv_exact(sock, size)
    (brokers,) = struct.unpack_from(">i", resp, 8)  # after the correlation id and throttle time
    return int(brokers)


def _skip_string(buf: bytes, pos: int) -> int:
    """The position after a nullable int16-length string."""
    (length,) = struct.unpack_from(">h", buf, pos)
    return pos + 2 + max(length, 0)
