"""The Schema Registry and the REST Proxy on the broker's HTTP stack: the one place the
broker's side reaches them.

Who may call: the HTTP stack's start-up (``kafpy.broker.http_routes.start_http_server``),
when ``kafpy.schema.registry.enable`` or ``kafpy.rest.proxy.enable`` is set:

    ecosystem = Ecosystem.from_config(broker.config, bootstrap)   # before server.start()
    server.mount(ecosystem.routes())
    await server.start()
    ecosystem.start(http_url)                                      # background, see below
    ...
    await ecosystem.stop()                                         # before server.stop()

``start`` returns at once and starts the components in a task: the registry reads
``_schemas`` through the broker's own listener, which must not hold up the broker's start
(the registry answers 50001 until it has read it). ``http_url`` is the URL other brokers'
registries reach this one at (the advertised host and the HTTP listener's bound port): the
registry joins the primary election with it.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Protocol
from urllib.parse import urlsplit
from kafpy.replication.tasks import cancel_and_wait

log = logging.getLogger("kafka.rest.Ecosystem")


class ConfigSource(Protocol):
    """What ``from_config`` reads of the broker's ``KafkaConfig`` (a floor above): the
    switches and limits, all ints or booleans."""

    def get(self, key: str, default: int) -> int: ...


class Ecosystem:
    """Keeps the registry and the proxy a broker serves, and the task starting them."""

    def __init__(self, bootstrap: str, *, registry: bool, rest_proxy: bool, max_request_bytes: int = 1 << 20,
                 client_config: dict | None = None, max_consumer_instances: int = 100,
                 max_consumer_instances_per_principal: int = 10) -> None:
        from kafpy.registry.app import RegistryApp
        from kafpy.rest.app import RestProxyApp
        self.registry = RegistryApp(bootstrap, max_request_bytes=max_request_bytes,
                                    client_config=client_config) if registry else None
        self.rest_proxy = RestProxyApp(
            bootstrap, max_request_bytes=max_request_bytes, client_config=client_config,
            max_consumer_instances=max_consumer_instances,
            max_consumer_instances_per_principal=max_consumer_instances_per_principal) if rest_proxy else None
        self._task: asyncio.Task | None = None

    @classmethod
    def from_config(cls, config: ConfigSource, bootstrap: str, client_config: dict | None = None) -> "Ecosystem":
        """``client_config``: the aiokafka security settings of the clients reaching ``bootstrap``."""
        return cls(bootstrap, registry=bool(config.get("kafpy.schema.registry.enable", False)),
                   rest_proxy=bool(config.get("kafpy.rest.proxy.enable", False)),
                   max_request_bytes=int(config.get("kafpy.http.max.request.bytes", 1 << 20)),
                   client_config=client_config,
                   max_consumer_instances=int(config.get("kafpy.rest.consumer.instances.max", 100)),
                   max_consumer_instances_per_principal=int(
                       config.get("kafpy.rest.consumer.instances.max.per.principal", 10)))

    def routes(self) -> list:
        out: list = []
        for component in (self.registry, self.rest_proxy):
            if component is not None:
                out += component.routes()
        return out

    def start(self, http_url: str) -> None:
        from kafpy.registry.election import Identity
        from kafpy.rest.registry_client import RegistryClient
        url = urlsplit(http_url)
        if self.registry is not None:
            self.registry.elect_with(Identity(url.hostname or "localhost", url.port or 80, url.scheme))
        if self.rest_proxy is not None and self.registry is not None:
            self.rest_proxy.registry = self.rest_proxy.v2.registry = RegistryClient(http_url)
        self._task = asyncio.ensure_future(self._start())

    async def _start(self) -> None:
        for name, component in (("Schema Registry", self.registry), ("REST Proxy", self.rest_proxy)):
            if component is None:
                continue
            while True:
                try:
                    await component.start()
                    log.info("%s started", name)
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as e:  # noqa: BLE001 - the cluster not ready yet (a lone broker's RF, ...)
                    log.warning("%s not started (%s); retrying", name, e)
                    await asyncio.sleep(2)

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
        for component in (self.rest_proxy, self.registry):
            if component is not None:
                try:
                    await component.stop()
                except Exception:
                    log.exception("Error stopping %s", type(component).__name__)
