"""What a broker serves over HTTP, put together: the server of ``kafpy.http.listeners`` with
``/metrics`` and the status page mounted.

Who may call it: ``Broker._start_http``, only when the listener is configured (importing this
module imports aiohttp and prometheus_client). It sits in broker/ because it ties the broker's
config and TLS settings to the HTTP stack below it (``web/``, which imports nothing above it).
"""
from __future__ import annotations

import logging
import ssl
from typing import TYPE_CHECKING, Protocol

from kafpy.web.metrics_endpoint import MetricsEndpoint
from kafpy.web.basic_auth import BasicAuth
from kafpy.web.server import HttpLimits, HttpServer
from kafpy.web.status_page import StatusBroker, StatusPage

if TYPE_CHECKING:
    import asyncio

    from kafpy.broker.config import KafkaConfig
    from kafpy.broker.server import SocketServer
    from kafpy.broker.services import BrokerServices

log = logging.getLogger("kafka.http")


def build_http_server(config: KafkaConfig, auth: BasicAuth | None = None) -> HttpServer:
    """The HTTP server of ``config`` (a KafkaConfig whose kafpy.http.listeners is not empty);
    ``auth`` checks every request's HTTP Basic credentials."""
    from kafpy.web.listeners import HttpListener, parse_http_listeners

    def tls(li: HttpListener) -> ssl.SSLContext:
        from kafpy.broker.security.ssl_factory import server_context
        return server_context(lambda key: config.listener_config(li.name, key), li.name)

    listeners = parse_http_listeners(config["kafpy.http.listeners"])
    return HttpServer(listeners, config["kafpy.http.max.request.bytes"], tls, auth, http_limits(config))


def http_limits(config: KafkaConfig) -> HttpLimits:
    """What one HTTP client may hold, from ``kafpy.http.*``."""
    per_principal = config["kafpy.http.max.concurrent.requests.per.principal"]
    return HttpLimits(max_concurrent=config["kafpy.http.max.concurrent.requests"], per_principal=per_principal,
                      authenticating_per_address=per_principal,
                      max_long_polls=config["kafpy.http.max.long.polls"],
                      long_polls_per_principal=config["kafpy.http.max.long.polls.per.principal"],
                      body_read_timeout_s=config["kafpy.http.request.body.read.timeout.ms"] / 1000)


class Broker(StatusBroker, Protocol):
    """What this module reads of ``kafpy.broker.broker.Broker`` (which imports it)."""

    @property
    def config(self) -> KafkaConfig: ...

    @property
    def server(self) -> SocketServer | None: ...

    @property
    def services(self) -> BrokerServices | None: ...

    @property
    def loop(self) -> asyncio.AbstractEventLoop: ...


class _Ecosystem(Protocol):
    """What BrokerHttp needs of ``kafpy.rest.mount.Ecosystem`` (a floor above, not imported)."""

    async def stop(self) -> None: ...


class BrokerHttp:
    """The broker's HTTP server and the components mounted on it; ``mount`` lets a later
    component (the Schema Registry, the REST Proxy) add its routes before ``start``."""

    def __init__(self, server: HttpServer, metrics: MetricsEndpoint, status: StatusPage,
                 ecosystem: _Ecosystem | None = None) -> None:
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


def _own_client(broker: Broker) -> tuple[str, str, dict[str, object]]:
    """(bootstrap, advertised host, aiokafka client settings) through which the Schema Registry
    and the REST Proxy, Kafka clients of the cluster, reach it: this broker's inter-broker
    listener with the security the broker's own inter-broker client uses (TLS trust store and
    client certificate, the SASL mechanism and the JAAS username/password), so they work on a
    cluster that has only SSL or SASL listeners; their principal is the broker's own."""
    from kafpy.broker.security.client import ClientSecurity
    cfg = broker.config
    name = cfg.inter_broker_listener_name
    li = next(li for li in cfg.listeners if li.name == name)
    assert broker.server is not None, "the socket server starts before the HTTP server"
    port = broker.server.bound_ports.get(li.name, li.port)
    advertised = next((a.host for a in cfg.advertised_listeners if a.name == li.name), None)
    host = advertised or li.host or "localhost"
    security = ClientSecurity.inter_broker(cfg)
    client: dict[str, object] = {}
    if security is not None:
        client["security_protocol"] = security.protocol
        if security.ssl_context is not None:
            client["ssl_context"] = security.ssl_context
        if security.mechanism is not None:
            client.update(sasl_mechanism=security.mechanism, sasl_plain_username=security.username,
                          sasl_plain_password=security.password)
    return f"{host}:{port}", host, client


def _basic_auth(broker: Broker) -> BasicAuth | None:
    """kafpy.http.authentication.method=BASIC: logins are the SASL users of the broker's
    listeners (PLAIN's JAAS users, SCRAM credentials), rights its ACLs."""
    from kafpy.broker.http_auth import basic_auth
    plain: dict[str, str] = {}
    assert broker.server is not None, "the socket server starts before the HTTP server"
    for security in broker.server.security.values():
        plain.update(security.plain_users)
    services = broker.services   # None before the broker has built them
    return basic_auth(broker.config, plain, services.user_configs if services is not None else None,
                      services.authorizer if services is not None else None,
                      lambda topic: broker.metadata_cache is not None and broker.metadata_cache.topic(topic) is not None)


async def start_http_server(broker: Broker) -> BrokerHttp:   # the Broker imports this module
    cfg = broker.config
    server = build_http_server(cfg, _basic_auth(broker))
    metrics = MetricsEndpoint(broker, broker.loop)
    server.mount(metrics.routes())
    status = StatusPage(broker, metrics)
    server.mount(status.routes())
    ecosystem = None
    if cfg.get("kafpy.schema.registry.enable", False) or cfg.get("kafpy.rest.proxy.enable", False):
        from kafpy.rest.mount import Ecosystem
        own = _own_client(broker)
        ecosystem = Ecosystem.from_config(cfg, own[0], own[2])
        server.mount(ecosystem.routes())
    status.start()
    metrics.start()
    await server.start()
    if ecosystem is not None:
        scheme, port = next(iter(server.bound_ports.items()))
        ecosystem.start(f"{scheme}://{own[1]}:{port}")
    return BrokerHttp(server, metrics, status, ecosystem)
