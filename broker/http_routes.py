"""What a broker serves over HTTP, put together: the server of ``kafpy.http.listeners`` with
``/metrics`` and the status page mounted.

Who may call it: ``Broker._start_http``, only when the listener is configured (importing this
module imports aiohttp and prometheus_client). It sits in broker/ because it ties the broker's
config and TLS settings to the HTTP stack below it (``web/``, which imports nothing above it).
"""
from __future__ import annotations

import ssl
from typing import Any

from kafpy.web.metrics_endpoint import MetricsEndpoint
from kafpy.web.server import HttpServer
from kafpy.web.status_page import StatusPage


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

    def __init__(self, server: HttpServer, metrics: MetricsEndpoint, status: StatusPage) -> None:
        self.server = server
        self.metrics = metrics
        self.status = status

    @property
    def bound_ports(self) -> dict[str, int]:
        return self.server.bound_ports

    async def stop(self) -> None:
        self.metrics.stop()
        self.status.stop()
        await self.server.stop()


async def start_http_server(broker: Any) -> BrokerHttp:
    server = build_http_server(broker.config)
    metrics = MetricsEndpoint(broker, broker.loop)
    server.mount(metrics.routes())
    status = StatusPage(broker, metrics)
    server.mount(status.routes())
    status.start()
    metrics.start()
    await server.start()
    return BrokerHttp(server, metrics, status)
