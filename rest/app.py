"""The REST Proxy put together: cluster clients, consumer instances, the v2 and v3 routes.

Who may call: whatever serves HTTP. Inside a broker the HTTP stack mounts
``RestProxyApp.routes()`` (``HttpServer.mount``) and awaits ``start``/``stop``;
``standalone_app`` serves it on an aiohttp application of its own (tests, tools).
"""
from __future__ import annotations

from aiohttp import web

from kafpy.rest.cluster import ClusterClients
from kafpy.rest.consumers import ConsumerManager
from kafpy.rest.registry_client import RegistryClient
from kafpy.rest.v2 import Handler, V2Resource
from kafpy.rest.v3 import V3Resource


class RestProxyApp:
    """Keeps the clients and resources of one REST Proxy."""

    def __init__(self, bootstrap: str, *, schema_registry_url: str | None = None,
                 max_request_bytes: int = 1 << 20, client_config: dict | None = None,
                 max_consumer_instances: int = 100, max_consumer_instances_per_principal: int = 10) -> None:
        self.cluster = ClusterClients(bootstrap, client_config)
        self.consumers = ConsumerManager(bootstrap, client_config, max_consumer_instances,
                                         max_instances_per_principal=max_consumer_instances_per_principal)
        self.registry = RegistryClient(schema_registry_url) if schema_registry_url else None
        self.v2 = V2Resource(self.cluster, self.consumers, self.registry, max_request_bytes)
        self.v3 = V3Resource(self.cluster, max_request_bytes)

    def routes(self) -> list[tuple[str, str, Handler]]:
        return self.v2.routes() + self.v3.routes()

    async def start(self) -> None:
        await self.cluster.start()
        await self.v3.start()

    async def stop(self) -> None:
        await self.consumers.stop()
        await self.cluster.stop()
        if self.registry is not None:
            await self.registry.close()


def standalone_app(proxy: RestProxyApp, max_request_bytes: int = 1 << 20) -> web.Application:
    app = web.Application(client_max_size=max_request_bytes)
    for method, path, handler in proxy.routes():
        app.router.add_route(method, path, handler)

    async def on_startup(_: web.Application) -> None:
        await proxy.start()

    async def on_cleanup(_: web.Application) -> None:
        await proxy.stop()
    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
    return app
