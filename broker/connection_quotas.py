"""Connection limits as Kafka's ``ConnectionQuotas`` enforces them: a pure count keeper.

Keeps, in memory only, the open connections per client IP, per listener and for the whole
broker. Only the socket server calls it, once per accepted connection and once per closed
one. It decides; the server acts:

- ``max.connections`` and ``listener.name.<listener>.max.connections``: when the listener
  or the broker is full, a new connection *waits* (``slot_available`` is False): Kafka's
  acceptor blocks, the connection it holds is not read, and nothing more is accepted on
  that listener until a slot frees. The inter-broker listener is exempt from the
  broker-wide limit when there is more than one listener; a connection it takes over the
  limit makes the broker close the least recently used connection of another listener
  (``over_broker_limit``).
- ``max.connections.per.ip`` and ``max.connections.per.ip.overrides``: a connection from
  an address that already has its maximum is closed at once (``admit`` is False).
"""
from __future__ import annotations

import logging
import socket
from typing import Iterable

log = logging.getLogger("kafka.network")


def parse_ip_overrides(entries: Iterable[str]) -> dict[str, int]:
    """``host:count`` entries (``max.connections.per.ip.overrides``) as {address: count}.
    Host names are resolved once, to one address, as Kafka's ``InetAddress.getByName``
    does. Raises ValueError for an entry that is not ``host:count``."""
    out: dict[str, int] = {}
    for entry in entries:
        host, sep, count = entry.strip().rpartition(":")
        if not sep or not host or not count.strip().isdigit():
            raise ValueError(f"{entry!r} is not host:count")
        host = host.strip("[]")
        try:
            address = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)[0][4][0]
        except OSError as e:
            raise ValueError(f"cannot resolve {host!r}: {e}") from None
        out[str(address)] = int(count)
    return out


class ConnectionQuotas:
    """Counts per IP, per listener and in total. ``listeners`` are the listener names;
    ``listener_max`` the listeners with their own ``max.connections``;
    ``inter_broker_listener`` the one exempt from the broker-wide limit."""

    def __init__(self, listeners: Iterable[str], *, max_connections: int, max_per_ip: int,
                 per_ip_overrides: dict[str, int] | None = None,
                 listener_max: dict[str, int] | None = None,
                 inter_broker_listener: str | None = None) -> None:
        self.max_connections = max_connections
        self.max_per_ip = max_per_ip
        self.per_ip_overrides = dict(per_ip_overrides or {})
        self.listener_counts: dict[str, int] = {name: 0 for name in listeners}
        self.listener_max = dict(listener_max or {})
        self.inter_broker_listener = inter_broker_listener
        self.ip_counts: dict[str, int] = {}
        self.total = 0

    def protected(self, listener: str) -> bool:
        """The inter-broker listener, when it is not the only one."""
        return listener == self.inter_broker_listener and len(self.listener_counts) > 1

    def slot_available(self, listener: str) -> bool:
        """Whether a connection on ``listener`` may be admitted now (else it waits)."""
        if self.listener_counts.get(listener, 0) >= self.listener_max.get(listener, 2**31 - 1):
            return False
        return self.protected(listener) or self.total < self.max_connections

    def max_for(self, ip: str) -> int:
        return self.per_ip_overrides.get(ip, self.max_per_ip)

    def admit(self, listener: str, ip: str) -> bool:
        """Counts a connection that had a slot; False (and nothing counted) when ``ip``
        already has its maximum: the caller closes the connection."""
        count = self.ip_counts.get(ip, 0)
        if count >= self.max_for(ip):
            return False
        self.ip_counts[ip] = count + 1
        self.listener_counts[listener] = self.listener_counts.get(listener, 0) + 1
        self.total += 1
        return True

    def release(self, listener: str, ip: str) -> None:
        """An admitted connection closed."""
        count = self.ip_counts.get(ip, 0)
        if count <= 0:
            log.error("Attempted to decrease connection count for address with no connections, address: %s", ip)
            return
        if count == 1:
            del self.ip_counts[ip]
        else:
            self.ip_counts[ip] = count - 1
        self.total -= 1
        self.listener_counts[listener] -= 1

    def over_broker_limit(self) -> bool:
        """More connections than ``max.connections`` (possible only through the exempt
        inter-broker listener): one on another listener should be closed."""
        return self.total > self.max_connections

    def count(self, ip: str) -> int:
        return self.ip_counts.get(ip, 0)
