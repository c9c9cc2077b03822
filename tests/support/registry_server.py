"""A Schema Registry served in the test process: its own event loop in a thread, an aiohttp
server on a free loopback port, reading and writing ``_schemas`` on the given brokers.

This is the test's own wiring (``kafpy.registry.app.standalone_app``); a broker with the
HTTP stack mounts the same routes on its own listener.
"""
from __future__ import annotations

import asyncio
import threading
from typing import Any

from tests.support.ports import LOOPBACK, free_port


class RegistryServer:
    """``.url``; ``start()`` returns once ``_schemas`` has been read to its end."""

    def __init__(self, bootstrap: str, **registry_kwargs: Any) -> None:
        self.bootstrap = bootstrap
        self.port = free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        self.registry_kwargs = registry_kwargs
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True, name=f"registry-{self.port}")
        self._runner: Any = None
        self.app: Any = None

    def start(self, timeout: float = 60.0) -> "RegistryServer":
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout)
        return self

    async def _start(self) -> None:
        from aiohttp import web

        from kafpy.registry.app import RegistryApp, standalone_app
        self.app = RegistryApp(self.bootstrap, **self.registry_kwargs)
        self._runner = web.AppRunner(standalone_app(self.app), access_log=None, handle_signals=False)
        await self._runner.setup()
        await web.TCPSite(self._runner, LOOPBACK, self.port).start()

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
