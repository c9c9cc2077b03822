"""The Schema Registry put together: state, ``_schemas`` store, service and routes.

Who may call: whatever serves HTTP. Inside a broker, the HTTP stack mounts
``RegistryApp.routes()`` (``HttpServer.mount``) and awaits ``start``/``stop`` with its own;
``standalone_app`` serves the registry on an aiohttp application of its own (tests, tools).
"""
from __future__ import annotations

from aiohttp import web

from kafpy.registry.election import Identity, LeaderElector
from kafpy.registry.kafka_store import KafkaStore
from kafpy.registry.rest import MAX_REQUEST_BYTES, Forwarder, Handler, RegistryResource
from kafpy.registry.service import SchemaRegistry
from kafpy.registry.state import RegistryState


class RegistryApp:
    """Keeps one registry's state, store, service and REST resource."""

    def __init__(self, bootstrap: str, *, topic: str = "_schemas", replication_factor: int = 3,
                 max_request_bytes: int = MAX_REQUEST_BYTES, client_config: dict | None = None,
                 identity: Identity | None = None, session_timeout_ms: int = 10000) -> None:
        """``identity`` (the URL this instance is reached at) turns on primary election: every
        instance given one joins the group and forwards writes to the primary. Without one the
        instance is alone and writes itself."""
        self.bootstrap = bootstrap
        self.client_config = client_config
        self.session_timeout_ms = session_timeout_ms
        self.state = RegistryState()
        self.store = KafkaStore(bootstrap, self.state, topic, replication_factor, client_config=client_config)
        self.elector: LeaderElector | None = None
        self.forwarder: Forwarder | None = None
        self.started = False
        self.registry = SchemaRegistry(self.state, self.store.write, self._is_primary)
        self.resource = RegistryResource(self.registry, max_request_bytes, None, lambda: self.started)
        if identity is not None:
            self.elect_with(identity)

    def elect_with(self, identity: Identity) -> None:
        """Joins the primary election as ``identity`` (the URL other instances forward
        to); called before ``start``, once the listener's port is known."""
        self.elector = LeaderElector(self.bootstrap, identity, self.store.catch_up,
                                     session_timeout_ms=self.session_timeout_ms, client_config=self.client_config)
        self.forwarder = self.resource.forwarder = Forwarder(self.elector)

    def _is_primary(self) -> bool:
        return self.elector is None or self.elector.is_primary

    def routes(self) -> list[tuple[str, str, Handler]]:
        return self.resource.routes()

    async def start(self) -> None:
        await self.store.start()
        if self.elector is not None:
            await self.elector.start()
        self.started = True

    async def stop(self) -> None:
        if self.elector is not None:
            await self.elector.stop()
        if self.forwarder is not None:
            await self.forwarder.close()
        await self.store.stop()
        from kafpy.registry.protobuf_compiler import COMPILER
        COMPILER.close()   # its worker processes, if a big schema started them


def standalone_app(registry: RegistryApp, max_request_bytes: int = MAX_REQUEST_BYTES) -> web.Application:
    """An aiohttp application serving only ``registry`` (started and stopped with it)."""
    app = web.Application(client_max_size=max_request_bytes)
    for method, path, handler in registry.routes():
        app.router.add_route(method, path, handler)

    async def on_startup(_: web.Application) -> None:
        await registry.start()

    async def on_cleanup(_: web.Application) -> None:
        await registry.stop()
    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
    return app
