"""A TLS listener's server context that can change while the listener keeps its socket
(Kafka's ``SslFactory.reconfigure`` behind ``DynamicListenerConfig``).

An asyncio server is bound to the ``ssl.SSLContext`` it was started with, so that context
stays: once the stores first change, its SNI callback (called by OpenSSL for every
handshake, with or without a server name) hands each new connection the context in force, built from the listener's current
``ssl.*`` settings. Connections already open keep the certificate they were made with, as
in Kafka. The verify mode (``ssl.client.auth``, not dynamic) stays the first context's;
certificate, key and trusted CAs come from the one in force.

Who may call it: ``ListenerSecurity`` makes one per TLS listener at startup; the socket
server calls ``reconfigure`` when the dynamic broker configs changed, and the config
handlers call ``server_context`` to check a proposed change before storing it.
"""
from __future__ import annotations

import logging
import os
import ssl

from kafpy.broker.security.ssl_factory import Getter, server_context

log = logging.getLogger("kafka.network.SocketServer")

# the listener settings Kafka reconfigures without a restart (SslConfigs.RECONFIGURABLE_CONFIGS)
RECONFIGURABLE_SSL_CONFIGS = (
    "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
    "ssl.keystore.certificate.chain", "ssl.keystore.key",
    "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.certificates",
)


def _fingerprint(get: Getter) -> tuple[object, ...]:
    """What decides the stores: their settings and the files' modification times (Kafka
    reloads a store whose file changed even when its path did not)."""
    values = tuple(get(k) for k in RECONFIGURABLE_SSL_CONFIGS)
    mtimes = []
    for key in ("ssl.keystore.location", "ssl.truststore.location"):
        path = get(key)
        try:
            mtimes.append(os.stat(path).st_mtime_ns if path else None)
        except OSError:
            mtimes.append(None)
    return values + tuple(mtimes)


class ReconfigurableServerSsl:
    """Keeps ``context`` (the one the server was started with) and ``current`` (the one new
    connections get)."""

    def __init__(self, get: Getter, listener: str) -> None:
        self.listener = listener
        self.context = server_context(get, listener)
        self.current = self.context
        self._fingerprint = _fingerprint(get)

    def _select(self, conn: ssl.SSLObject, _server_name: str | None, ctx: ssl.SSLContext) -> None:
        current = self.current
        if current is not ctx:
            conn.context = current

    def reconfigure(self, get: Getter) -> bool:
        """Builds a new context when the stores' settings or files changed; True if it did.
        Raises ConfigError (and keeps the context in force) when they do not load."""
        fingerprint = _fingerprint(get)
        if fingerprint == self._fingerprint:
            return False
        self.current = server_context(get, self.listener)
        self._fingerprint = fingerprint
        self.context.sni_callback = self._select   # from now on; until then handshakes pay nothing
        log.info("Listener %s: new TLS connections use the reconfigured keystore %s", self.listener,
                 get("ssl.keystore.location") or "(inline PEM)")
        return True
