"""A listener's end point as ``listeners`` and ``advertised.listeners`` spell it
(``NAME://host:port``), and the prefix of per-listener keys (``listener.name.<name>.<key>``).

Parsed by KafkaConfig at startup and by dynamic listener changes (Kafka's ``EndPoint``); read by
the socket server, the controller server and the registrations. Holds nothing on disk."""
from __future__ import annotations

import re
from dataclasses import dataclass

LISTENER_PREFIX = "listener.name."
# host: a bracketed IPv6 address or anything up to the port's colon (empty: every interface)
_END_POINT = re.compile(r"^([A-Za-z0-9_]+)://(\[[^\]]*\]|[^:]*):(-?\d+)$")


@dataclass
class Listener:
    name: str
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.name}://{self.host}:{self.port}"


def parse_listener(spec: str) -> Listener:
    m = _END_POINT.match(spec.strip())
    if not m:
        raise ValueError(f"{spec!r} is not of the form NAME://host:port")
    host = m.group(2)
    if host.startswith("["):
        host = host[1:-1]
    return Listener(m.group(1).upper(), host, int(m.group(3)))
