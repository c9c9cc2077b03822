"""What a broker serves over HTTP, put together: the server of ``kafpy.http.listeners`` with
``/metrics`` and the status page mounted.

Who may call it: ``Broker._start_http``, only when the listener is configured (importing this
module imports aiohttp and prometheus_client). It sits in broker/ because it ties the broker's
config and TLS settings to the HTTP stack below it (``web/``, which imports nothing above it).
"""
from __future__ import annotations

import logging
import ssl
from typing import Any

from kafpy.web.metrics_endpoint import MetricsEndpoint
from kafpy.web.server import HttpServer
from kafpy.web.status_page import StatusPage

log = logging.getLogger("kafka.http")


def build_http_server(config: Any) -> HttpServer:
    """The HTTP server of ``config`` (a KafkaConfig whose kafpy.http.listeners is not empty)."""
    from kafpy.web.listeners import HttpListener, parse_http_listeners

    def tls(li: HttpListener) -> ssl.SSLContext:
        from kafpy.broker.security.ssl_factory import server_context
        return server_context(lambda key: config.listener_config(li.name, key), li.name)

    listeners = parse_http_listeners(config["kafpy.http.listeners"])
    return HttpServer(listeners, config["kafpy.http.max.request.bytes"], tls)


class BrokerHttp:
    """The broker's HTTP server and the components mounted on it; ``mount`` lets a later
    component (the Schema Registry, the REST Proxy) add its routes before ``start``."""

    def __init__(self, server: HttpServer, metrics: MetricsEndpoint, status: StatusPage,
                 ecosystem: Any = None) -> None:
        self.server = server
        self.metrics = metrics
        self.status = status
        self.ecosystem = ecosystem   # kafpy.rest.mount.Ecosystem when the registry or proxy is on

    @property
    def bound_ports(self) -> dict[str, int]:
        return self.server.bound_ports

    async def stop(self) -> None:
        if self.ecosystem is not None:
            await self.ecosystem.stop()
        self.metrics.stop()
        self.status.stop()
        await self.server.stop()


def _own_plaintext_address(broker: Any) -> tuple[str, str] | None:
    """(bootstrap, advertised host) of this broker's first PLAINTEXT listener: the Schema
    Registry and REST Proxy are Kafka clients of the cluster, and their clients speak
    PLAINTEXT only."""
    cfg = broker.config
    for li in cfg.listeners:
        if cfg.security_protocol(li.name) == "PLAINTEXT":
            port = broker.server.bound_ports.get(li.name, li.port)
            advertised = next((a.host for a in cfg.advertised_listeners if a.name == li.name), None)
            host = advertised or li.host or "localhost"
            return f"{host}:{port}", host
    return None


async def start_http_server(broker: Any) -> BrokerHttp:
    cfg = broker.config
    server = build_http_server(cfg)
    metrics = MetricsEndpoint(broker, broker.loop)
    server.mount(metrics.routes())
    status = StatusPage(broker, metrics)
    server.mount(status.routes())
    ecosystem = None
    if cfg.get("kafpy.schema.registry.enable", False) or cfg.get("kafpy.rest.proxy.enable", False):
        own = _own_plaintext_address(broker)
        if own is None:
            log.warning("kafpy.schema.registry.enable / kafpy.rest.proxy.enable need a PLAINTEXT "
                        "listener on this broker; neither is served")
        else:
            from kafpy.rest.mount import Ecosystem
            ecosystem = Ecosystem.from_config(cfg, own[0])
            server.mount(ecosystem.routes())
    status.start()
    metrics.start()
    await server.start()
    if ecosystem is not None:
        scheme, port = next(iter(server.bound_ports.items()))
        ecosystem.start(f"{scheme}://{own[1]}:{port}")
    return BrokerHttp(server, metrics, status, ecosystem)
