"""The Schema Registry and the REST Proxy served in the test process: their own event loop
in a thread, an aiohttp server on a free loopback port, talking to the given brokers.

This is the tests' own wiring (``standalone_app`` of ``kafpy.registry.app`` and
``kafpy.rest.app``); a broker with the HTTP stack mounts the same routes on its listener.
"""
from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable

from tests.support.ports import LOOPBACK, free_port


class AppServer:
    """``.url``, ``.component``; ``start()`` returns once the component has started."""

    registry_url: str   # set by the REST Proxy fixture: the Schema Registry beside it

    def __init__(self, make: Callable[[], tuple[Any, Any]]) -> None:
        self.make = make   # () -> (component, aiohttp application), called on the server's loop
        self.port = free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True, name=f"http-{self.port}")
        self._runner: Any = None
        self.component: Any = None

    def start(self, timeout: float = 60.0) -> "AppServer":
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout)
        return self

    async def _start(self) -> None:
        from aiohttp import web
        self.component, app = self.make()
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        await web.TCPSite(self._runner, LOOPBACK, self.port).start()

    def stop(self) -> None:
        try:
            if self._runner is not None:
                asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self.loop).result(30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)


def RegistryServer(bootstrap: str, **kwargs: Any) -> AppServer:
    def make() -> tuple[Any, Any]:
        from kafpy.registry.app import RegistryApp, standalone_app
        registry = RegistryApp(bootstrap, **kwargs)
        return registry, standalone_app(registry)
    return AppServer(make)


def RestProxyServer(bootstrap: str, **kwargs: Any) -> AppServer:
    def make() -> tuple[Any, Any]:
        from kafpy.rest.app import RestProxyApp, standalone_app
        proxy = RestProxyApp(bootstrap, **kwargs)
        return proxy, standalone_app(proxy)
    return AppServer(make)
