"""Free loopback TCP ports for test servers.

A port is free when the OS hands it out for an ephemeral bind; it is released before being
returned, so a race with another process is possible but rare. `free_ports(n)` keeps all n
sockets open until every port is picked, so the n ports are distinct.
"""
from __future__ import annotations

import socket

LOOPBACK = "127.0.0.1"


def free_ports(count: int, host: str = LOOPBACK) -> list[int]:
    """Return `count` distinct ports that were free on `host` a moment ago."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
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
