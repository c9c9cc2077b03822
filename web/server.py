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
- a body is read whole before the handler runs, within ``HttpLimits.body_read_timeout_s``
  (``kafpy.http.request.body.read.timeout.ms``; 408 and the connection closed past it), so a
  client sending its body a byte at a time holds a slot that long at most;
- requests in progress are bounded per client and in total (``kafpy.web.admission``): past a
  client's share 429, past the total 503, both with ``Retry-After``; long polls (handlers
  marked with ``long_poll``) have a budget of their own;
- with ``auth`` (``kafpy.web.basic_auth.BasicAuth``) every request but those of its open paths
  needs HTTP Basic credentials, checked before the route's handler runs (authentication
  before the body is read, authorization after, as the route's rights may depend on it);
- only the mounted routes exist: no file is ever served from disk, so no path can escape,
  and a path with ``..`` or ``//`` segments (raw, or once ``%2F`` is decoded) is answered 404
  before routing.
"""
from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from dataclasses import dataclass
from typing import Awaitable, Callable

from aiohttp import web

from kafpy.web.access import BODY_KEY, PRINCIPAL_KEY
from kafpy.web.admission import Admission, Bound, Budget, Refusal
from kafpy.web.basic_auth import BasicAuth
from kafpy.web.listeners import HttpListener

log = logging.getLogger("kafka.http.HttpServer")

MAX_CONCURRENT = 32
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
LONG_POLL_ATTR = "kafpy_long_poll"


def long_poll(handler: Handler) -> Handler:
    """Marks ``handler`` as one that waits for data by design: its requests count against the
    long-poll budget, not the short requests'. Wrapped, since a bound method takes no attribute."""
    async def waiting(request: web.Request) -> web.StreamResponse:
        return await handler(request)
    setattr(waiting, LONG_POLL_ATTR, True)
    return waiting


def is_long_poll(handler: object) -> bool:
    return bool(getattr(handler, LONG_POLL_ATTR, False))


@dataclass(frozen=True)
class HttpLimits:
    """The bounds of ``kafpy.web.admission`` and the body read timeout; the defaults are the
    broker config's (``kafpy.http.*``)."""
    max_concurrent: int = MAX_CONCURRENT
    per_principal: int = 8
    authenticating_per_address: int = 8
    max_long_polls: int = 32
    long_polls_per_principal: int = 4
    body_read_timeout_s: float = 10.0

    def bounds(self) -> dict[Budget, Bound]:
        return {Budget.SHORT: Bound(self.max_concurrent, self.per_principal),
                Budget.AUTHENTICATING: Bound(self.max_concurrent, self.authenticating_per_address),
                Budget.LONG_POLL: Bound(self.max_long_polls, self.long_polls_per_principal)}


def _busy(refusal: Refusal) -> web.Response:
    if refusal is Refusal.CLIENT:
        return web.json_response({"error_code": 429, "message": "Too many requests in progress for this client"},
                                 status=429, headers={"Retry-After": "1"})
    return web.json_response({"error_code": 503, "message": "Too many requests in progress"},
                             status=503, headers={"Retry-After": "1"})


class HttpServer:
    """Keeps the aiohttp application, its runner and the ports it bound (``bound_ports``,
    scheme -> port, so tests may listen on port 0)."""

    def __init__(self, listeners: list[HttpListener], max_request_bytes: int,
                 ssl_context: Callable[[HttpListener], ssl.SSLContext] | None = None,
                 auth: BasicAuth | None = None, limits: HttpLimits | None = None) -> None:
        self.listeners = listeners
        self.ssl_context = ssl_context
        self.auth = auth
        self.limits = limits or HttpLimits()
        self.admission = Admission(self.limits.bounds())
        middlewares = [self._no_escapes, self._authenticate, self._bounded, self._read_body, self._authorize]
        self.app = web.Application(client_max_size=max_request_bytes, middlewares=middlewares)
        self.max_request_bytes = max_request_bytes
        self._runner: web.AppRunner | None = None
        self.bound_ports: dict[str, int] = {}

    def mount(self, routes: list[tuple[str, str, Handler]]) -> None:
        """Adds (method, path, handler) routes; a path mounted twice is a ValueError."""
        for method, path, handler in routes:
            try:
                self.app.router.add_route(method, path, handler)
            except RuntimeError as e:   # aiohttp: a route added twice / after start
                raise ValueError(f"Cannot mount {method} {path}: {e}") from None

    @staticmethod
    def client_of(request: web.Request) -> str:
        """Whose share a request counts against: its principal once logged in, else its address."""
        principal = request.get(PRINCIPAL_KEY)
        return principal if principal is not None else f"address:{request.remote or ''}"

    @web.middleware
    async def _authenticate(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if self.auth is None:
            return await handler(request)
        address = f"address:{request.remote or ''}"
        refusal = self.admission.admit(Budget.AUTHENTICATING, address)
        if refusal is not None:
            return _busy(refusal)
        try:
            refused = await self.auth.login(request)
        finally:
            self.admission.release(Budget.AUTHENTICATING, address)
        return refused if refused is not None else await handler(request)

    @web.middleware
    async def _bounded(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        budget = Budget.LONG_POLL if is_long_poll(request.match_info.handler) else Budget.SHORT
        client = self.client_of(request)
        refusal = self.admission.admit(budget, client)
        if refusal is not None:
            log.debug("%s %s from %s refused: %s share taken", request.method, request.path, client, refusal.value)
            return _busy(refusal)
        try:
            return await handler(request)
        finally:
            self.admission.release(budget, client)

    @web.middleware
    async def _read_body(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Reads a request's body whole (413 past the bound, 408 past the timeout) into
        ``request[BODY_KEY]``, which handlers read instead of the consumed stream."""
        too_large = request.content_length is not None and request.content_length > self.max_request_bytes
        if request.body_exists and BODY_KEY not in request and not too_large:   # too large: the handler's 413
            try:
                request[BODY_KEY] = await asyncio.wait_for(request.read(), self.limits.body_read_timeout_s)
            except asyncio.TimeoutError:
                log.info("Closing the connection of %s: its %s %s body took over %.1f s", self.client_of(request),
                         request.method, request.path, self.limits.body_read_timeout_s)
                response = web.json_response({"error_code": 408, "message": "Timed out reading the request body"},
                                             status=408)
                response.force_close()
                # answered and closed now: aiohttp would otherwise linger, reading the rest of
                # the body for its lingering time (asyncio flushes the answer before closing)
                await response.prepare(request)
                await response.write_eof()
                if request.transport is not None:
                    request.transport.close()
                return response
        return await handler(request)

    @web.middleware
    async def _authorize(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if self.auth is not None:
            refused = await self.auth.check(request)
            if refused is not None:
                return refused
        return await handler(request)

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
