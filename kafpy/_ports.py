"""Free loopback TCP ports for the brokers and servers kafpy.embedded and the tests start.

Ports are drawn at random from below the kernel's ephemeral range
(``/proc/sys/net/ipv4/ip_local_port_range``) and kept only if they can be bound a moment
ago. Outside that range the kernel never hands the port to an outgoing connection or to
another ``bind(0)``, so between the check and the server's own bind only another test process
drawing the same number can take it; test workers (pytest-xdist) run side by side, so each
draws from a slice of the range of its own and two workers never draw the same port (a
broker restarted in a test gets its port back, which another worker could otherwise have
drawn meanwhile). `free_ports(n)` keeps all n sockets open until every port is picked, so the n ports are
distinct, and the last ``_REMEMBERED`` ports handed out are not handed out again by this
process: a fixture that draws an HTTP port and then starts a broker that draws its own
must not get the same number twice (it did once in CI: the HTTP listener's bind then failed).
"""
from __future__ import annotations

import os
import random
import socket
from collections import deque

LOOPBACK = "127.0.0.1"
_LOWEST = 10000
_random = random.SystemRandom()
_REMEMBERED = 512
_handed_out: deque[int] = deque(maxlen=_REMEMBERED)


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _worker_slice(low: int, high: int) -> tuple[int, int]:
    """This test worker's part of [low, high]: all of it outside pytest-xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or not worker[2:].isdigit() or count < 2:
        return low, high
    size = (high - low + 1) // count
    index = int(worker[2:]) % count
    return low + index * size, low + (index + 1) * size - 1


_LOWEST, _HIGHEST = _worker_slice(_LOWEST, max(_LOWEST + 1000, _ephemeral_low()) - 1)


def free_ports(count: int, host: str = LOOPBACK) -> list[int]:
    """Return `count` distinct ports that were free on `host` a moment ago."""
    socks: list[socket.socket] = []
    try:
        while len(socks) < count:
            port = _random.randint(_LOWEST, _HIGHEST)
            if port in _handed_out:
                continue
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind((host, port))
            except OSError:   # in use (or just released, in TIME_WAIT): draw again
                s.close()
                continue
            socks.append(s)
        ports = [s.getsockname()[1] for s in socks]
        _handed_out.extend(ports)
        return ports
    finally:
        for s in socks:
            s.close()


def free_port(host: str = LOOPBACK) -> int:
    """One free port on `host`."""
    return free_ports(1, host)[0]


def port_is_open(port: int, host: str = LOOPBACK, timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False
