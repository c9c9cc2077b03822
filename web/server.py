"""The HTTP server the broker's HTTP components share: one ``aiohttp`` application served on
the broker's own event loop.

Who may call it: the broker builds one when ``kafpy.http.listeners`` is set and starts it
after the socket server; components add their routes before ``start`` with ``mount``
(``kafpy.web.metrics_endpoint``, ``kafpy.web.status_page``; the Schema Registry and the REST
Proxy will mount theirs the same way).

Why on the broker's loop rather than in a thread beside it: every page reads the broker's
state (partitions, groups, connections) which only the loop changes; read on the loop, it
is never half updated and needs no lock or copy. A thread would buy no parallelism (one
GIL) and would race with the loop. The price is that a page's work runs between two
requests' callbacks, so every route keeps its work bounded (pages walk partitions once, no
unbounded query parameters) and the server bounds the rest:

- request bodies over ``kafpy.http.max.request.bytes`` are refused (413) before being read;
- at most ``MAX_CONCURRENT`` requests are handled at once, the others answered 503;
- with ``auth`` (``kafpy.web.basic_auth.BasicAuth``) every request but those of its open paths
  needs HTTP Basic credentials, checked before the route's handler runs;
- only the mounted routes exist: no file is ever served from disk, so no path can escape,
  and a path with ``..`` or ``//`` segments (raw, or once ``%2F`` is decoded) is answered 404
  before routing.
"""
from __future__ import annotations

import logging
import socket
import ssl
from typing import Awaitable, Callable

from aiohttp import web

from kafpy.web.basic_auth import BasicAuth
from kafpy.web.listeners import HttpListener

log = logging.getLogger("kafka.http.HttpServer")

MAX_CONCURRENT = 32
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class HttpServer:
    """Keeps the aiohttp application, its runner and the ports it bound (``bound_ports``,
    scheme -> port, so tests may listen on port 0)."""

    def __init__(self, listeners: list[HttpListener], max_request_bytes: int,
                 ssl_context: Callable[[HttpListener], ssl.SSLContext] | None = None,
                 auth: BasicAuth | None = None) -> None:
        self.listeners = listeners
        self.ssl_context = ssl_context
        middlewares = [self._bounded, self._no_escapes] + ([auth.middleware] if auth is not None else [])
        self.app = web.Application(client_max_size=max_request_bytes, middlewares=middlewares)
        self._in_flight = 0
        self._runner: web.AppRunner | None = None
        self.bound_ports: dict[str, int] = {}

    def mount(self, routes: list[tuple[str, str, Handler]]) -> None:
        """Adds (method, path, handler) routes; a path mounted twice is a ValueError."""
        for method, path, handler in routes:
            try:
                self.app.router.add_route(method, path, handler)
            except RuntimeError as e:   # aiohttp: a route added twice / after start
                raise ValueError(f"Cannot mount {method} {path}: {e}") from None

    @web.middleware
    async def _bounded(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if self._in_flight >= MAX_CONCURRENT:
            return web.Response(status=503, text="Too many requests in progress\n", headers={"Retry-After": "1"})
        self._in_flight += 1
        try:
            return await handler(request)
        finally:
            self._in_flight -= 1

    @web.middleware
    async def _no_escapes(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        raw = request.raw_path.split("?", 1)[0]
        # an encoded slash stays inside its segment when routing (the registry's subjects
        # "pkg/address.proto" arrive as pkg%2Faddress.proto); decoded, it may not form ".."
        if (".." in raw.split("/") or ".." in request.path.split("/") or "//" in raw or "%2e" in raw.lower()
                or "\\" in raw):
            raise web.HTTPNotFound()
        response = await handler(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        for li in self.listeners:
            ctx = self.ssl_context(li) if li.scheme == "https" and self.ssl_context is not None else None
            # our own listening socket, so the port it got (port 0 in tests) is known
            family = socket.AF_INET6 if ":" in li.host else socket.AF_INET
            sock = socket.create_server((li.host, li.port), family=family, reuse_port=False, backlog=128)
            site = web.SockSite(self._runner, sock, ssl_context=ctx)
            await site.start()
            port = sock.getsockname()[1]
            self.bound_ports[li.scheme] = port
            log.info("HTTP listener %s bound to port %d", li, port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
