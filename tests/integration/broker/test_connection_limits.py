"""Connection limits on a live broker, as Kafka enforces them: a connection over
max.connections.per.ip is closed at once while the others are served; a connection over
max.connections waits, unanswered, until another closes."""
from __future__ import annotations

import socket
import struct
from typing import Iterator

import pytest

from tests.support import process, wire
from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK

PER_IP = 2
OTHER_IP = "127.0.0.2"   # also loopback on Linux: a second client address
OTHER_IP_MAX = 3
MAX_CONNECTIONS = PER_IP + OTHER_IP_MAX - 1


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafpyBroker]:
    work = tmp_path_factory.mktemp("kafpy-limits")
    b = KafpyBroker(work_dir=work, log_dir=work / "logs", start_timeout=150, overrides={
        "max.connections.per.ip": PER_IP,
        "max.connections.per.ip.overrides": f"{OTHER_IP}:{OTHER_IP_MAX}",
        "max.connections": MAX_CONNECTIONS,
    })
    b.start()
    try:
        yield b
    finally:
        b.stop()


def connect(port: int, source: str = LOOPBACK) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(30)
    s.bind((source, 0))
    s.connect((LOOPBACK, port))
    return s


def api_versions(s: socket.socket, corr: int = 1) -> int:
    """Sends ApiVersions v0 and returns its error code."""
    s.sendall(wire.encode_request(wire.API_VERSIONS, 0, corr))
    frame = wire.read_frame(s)
    got, error = struct.unpack_from(">ih", frame)
    assert got == corr
    return error


def closed_by_peer(s: socket.socket) -> bool:
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


def wait_for_log(b: KafpyBroker, text: str) -> None:
    process.wait_for(lambda: text in b.log_text(), timeout=30, what=f"{text!r} in the broker's log")


def test_limits(limited: KafpyBroker) -> None:
    # Every connection is closed by this test, so the broker starts and ends with none
    # of ours (the fixture's readiness probe closed its own).
    port = limited.port
    first = [connect(port) for _ in range(PER_IP)]
    other: list[socket.socket] = []
    try:
        for s in first:
            assert api_versions(s) == 0
        # the next one from the same address is closed at once, without an answer
        extra = connect(port)
        with extra:
            assert closed_by_peer(extra)
        wait_for_log(limited, f"Rejected connection from {LOOPBACK}, address already has the configured "
                              f"maximum of {PER_IP} connections.")
        for i, s in enumerate(first):          # the others are still served
            assert api_versions(s, 10 + i) == 0

        # another address has its own maximum, but the broker as a whole is full at
        # MAX_CONNECTIONS: the last one waits (accepted, not read) until a slot frees
        other += [connect(port, OTHER_IP) for _ in range(MAX_CONNECTIONS - PER_IP)]
        for s in other:
            assert api_versions(s) == 0
        waiting = connect(port, OTHER_IP)
        other.append(waiting)
        waiting.sendall(wire.encode_request(wire.API_VERSIONS, 0, 77))
        wait_for_log(limited, "Listener PLAINTEXT stopped accepting")
        first.pop().close()
        frame = wire.read_frame(waiting)       # answered once a connection has closed
        assert struct.unpack_from(">ih", frame) == (77, 0)
        wait_for_log(limited, "Listener PLAINTEXT accepting again")
        assert api_versions(waiting, 78) == 0
    finally:
        for s in first + other:
            s.close()
