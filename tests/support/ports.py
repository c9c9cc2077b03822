"""Free loopback TCP ports for test servers.

Ports are drawn at random from below the kernel's ephemeral range
(``/proc/sys/net/ipv4/ip_local_port_range``) and kept only if they can be bound a moment
ago. Outside that range the kernel never hands the port to an outgoing connection or to
another ``bind(0)``, so between the check and the server's own bind only another test process
drawing the same number (about one chance in 20,000) can take it: test workers run side by
side. `free_ports(n)` keeps all n sockets open until every port is picked, so the n ports are
distinct.
"""
from __future__ import annotations

import random
import socket

LOOPBACK = "127.0.0.1"
_LOWEST = 10000
_random = random.SystemRandom()


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


_HIGHEST = max(_LOWEST + 1000, _ephemeral_low()) - 1


def free_ports(count: int, host: str = LOOPBACK) -> list[int]:
    """Return `count` distinct ports that were free on `host` a moment ago."""
    socks: list[socket.socket] = []
    try:
        while len(socks) < count:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind((host, _random.randint(_LOWEST, _HIGHEST)))
            except OSError:   # in use (or just released, in TIME_WAIT): draw again
                s.close()
                continue
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
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
