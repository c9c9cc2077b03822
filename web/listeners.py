"""``kafpy.http.listeners``: where the HTTP stack listens, written as Kafka writes its
``listeners`` (``http://0.0.0.0:8080,https://:8443``; an empty host binds every interface,
port 0 picks a free one).

An ``https`` listener takes its certificate from the broker's TLS settings, as a Kafka
listener named HTTPS would: ``listener.name.https.ssl.keystore.location`` and the rest, or
the unprefixed ``ssl.*`` keys.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

SCHEMES = ("http", "https")
_SPEC = re.compile(r"^([A-Za-z]+)://(\[[^\]]*\]|[^:/]*):(\d+)/?$")


@dataclass(frozen=True)
class HttpListener:
    scheme: str   # http or https
    host: str     # "" binds every interface
    port: int

    @property
    def name(self) -> str:
        """The listener name its TLS settings are prefixed with (listener.name.https.)."""
        return self.scheme.upper()

    def __str__(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"


def parse_http_listener(spec: str) -> HttpListener:
    """``http://host:port`` -> HttpListener; ValueError naming what is wrong."""
    m = _SPEC.match(spec.strip())
    if not m:
        raise ValueError(f"{spec!r} is not of the form http://host:port or https://host:port")
    scheme = m.group(1).lower()
    if scheme not in SCHEMES:
        raise ValueError(f"{spec!r}: the scheme must be http or https")
    host = m.group(2)
    if host.startswith("["):
        host = host[1:-1]
    port = int(m.group(3))
    if port > 65535:
        raise ValueError(f"{spec!r}: port {port} is out of range")
    return HttpListener(scheme, host, port)


def parse_http_listeners(specs: list[str]) -> list[HttpListener]:
    listeners = [parse_http_listener(s) for s in specs]
    seen: set[int] = set()
    for li in listeners:
        if li.port and li.port in seen:
            raise ValueError(f"Each HTTP listener must have a different port, {li.port} is used twice")
        seen.add(li.port)
    return listeners
