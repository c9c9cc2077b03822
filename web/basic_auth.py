"""HTTP Basic authentication (RFC 7617) and per-request authorization on the HTTP stack, as
Confluent's REST Proxy and Schema Registry do with ``authentication.method=BASIC``.

Who may call it: ``HttpServer`` runs ``BasicAuth.middleware`` on every request when the broker
configures one (``kafpy.broker.http_auth`` builds it from the broker's SASL users and ACLs;
this floor knows neither). The middleware runs after routing, so ``authorize`` sees the
matched route's template and parameters (``/topics/{topic}`` with ``topic``).

Answers, as Confluent's: no or bad credentials -> 401 with ``WWW-Authenticate: Basic
realm="<realm>"``; authenticated but not allowed -> 403 with error code 40301. Paths in
``skip_paths`` (by default ``/metrics``, which Prometheus scrapes without credentials as it
scrapes Kafka's JMX exporter) are served to anyone. The principal, ``User:<name>``, is kept
in ``request[PRINCIPAL_KEY]``; the authorizer may leave in ``request[MAY_KEY]`` what the
handlers ask of it for rights the route alone does not name (``kafpy.web.access``).
"""
from __future__ import annotations

import base64
import binascii
import json
from typing import Awaitable, Callable

from aiohttp import web

from kafpy.web.access import PRINCIPAL_KEY

Authenticate = Callable[[str, str], Awaitable[bool]]
"""(username, password) -> whether they are a user's valid credentials."""
Authorize = Callable[[web.Request, str], Awaitable[bool]]
"""(request, principal) -> whether the principal may make the request."""
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

UNAUTHORIZED_CODE = 40101
FORBIDDEN_CODE = 40301


def parse_basic(header: str | None) -> tuple[str, str] | None:
    """``Basic base64(user:password)`` -> (user, password); None when absent or malformed."""
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "basic" or not token.strip():
        return None
    try:
        text = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    user, sep, password = text.partition(":")
    if not sep or not user:
        return None
    return user, password


def _error(status: int, code: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(status=status, text=json.dumps({"error_code": code, "message": message}),
                        content_type="application/json", headers=headers)


class BasicAuth:
    """Keeps how credentials are checked (``authenticate``), what a principal may do
    (``authorize``, None when the broker has no authorizer), the realm and the open paths."""

    def __init__(self, authenticate: Authenticate, authorize: Authorize | None = None, *,
                 realm: str = "kafpy", skip_paths: frozenset[str] = frozenset({"/metrics"})) -> None:
        self.authenticate = authenticate
        self.authorize = authorize
        self.realm = realm
        self.skip_paths = skip_paths

    def unauthorized(self) -> web.Response:
        return _error(401, UNAUTHORIZED_CODE, "Unauthorized",
                      {"WWW-Authenticate": f'Basic realm="{self.realm}"'})

    async def login(self, request: web.Request) -> web.Response | None:
        """Checks the request's credentials: None when it may go on (``request[PRINCIPAL_KEY]``
        set, unless the path is open), else the 401 to answer."""
        if request.path in self.skip_paths:
            return None
        credentials = parse_basic(request.headers.get("Authorization"))
        if credentials is None or not await self.authenticate(*credentials):
            return self.unauthorized()
        request[PRINCIPAL_KEY] = f"User:{credentials[0]}"
        return None

    async def check(self, request: web.Request) -> web.Response | None:
        """Whether the logged-in principal may make the request: None, or the 403 to answer."""
        principal = request.get(PRINCIPAL_KEY)
        if principal is None or self.authorize is None or await self.authorize(request, principal):
            return None
        return _error(403, FORBIDDEN_CODE, f"Principal {principal} is not authorized for {request.method} "
                                           f"{request.path}")

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """``login`` then ``check`` in one middleware, for an application of its own (the
        broker's ``HttpServer`` runs them apart, with the body read between them)."""
        refused = await self.login(request) or await self.check(request)
        return refused if refused is not None else await handler(request)
