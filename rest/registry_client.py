"""A small asyncio client of a Schema Registry (Confluent's REST API) for the REST Proxy's
embedded formats: registers a schema under a subject, fetches one by id; both cached, since
ids never change meaning.

When the HTTP stack checks logins (``kafpy.http.authentication.method=BASIC``) the proxy calls
the registry with its own caller's credentials, as Confluent's proxy can
(``CALLER_AUTHORIZATION``, set by the v2 handlers for the request they serve): the caller
needs the registry rights on the subjects its records use."""
from __future__ import annotations

import json
from contextvars import ContextVar
from typing import TYPE_CHECKING

from kafpy.registry.errors import RestError

if TYPE_CHECKING:
    from aiohttp import ClientSession

CT = "application/vnd.schemaregistry.v1+json"
CALLER_AUTHORIZATION: ContextVar[str | None] = ContextVar("CALLER_AUTHORIZATION", default=None)
"""The ``Authorization`` header of the HTTP request being served, passed on to the registry."""


class RegistryClient:
    """Keeps one aiohttp session and the schemas seen, by id and by (subject, text)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self._session: ClientSession | None = None
        self._by_id: dict[int, tuple[str, str]] = {}
        self._ids: dict[tuple[str, str, str], int] = {}

    async def _call(self, method: str, path: str, body: dict | None = None) -> dict:
        import aiohttp
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        headers = {"Content-Type": CT}
        authorization = CALLER_AUTHORIZATION.get()
        if authorization is not None:
            headers["Authorization"] = authorization
        async with self._session.request(method, self.url + path, data=json.dumps(body) if body else None,
                                         headers=headers) as r:
            payload = await r.json(content_type=None)
            if r.status != 200:
                raise RestError(payload.get("error_code", r.status) if isinstance(payload, dict) else r.status,
                                payload.get("message", str(payload)) if isinstance(payload, dict) else str(payload))
            return payload   # both calls' answers are objects (the registry's register and schema)

    async def register(self, subject: str, schema_type: str, schema: str) -> int:
        key = (subject, schema_type, schema)
        if key not in self._ids:
            body = {"schema": schema} if schema_type == "AVRO" else {"schema": schema, "schemaType": schema_type}
            self._ids[key] = (await self._call("POST", f"/subjects/{subject}/versions", body))["id"]
            self._by_id.setdefault(self._ids[key], (schema_type, schema))
        return self._ids[key]

    async def schema(self, schema_id: int) -> tuple[str, str]:
        if schema_id not in self._by_id:
            got = await self._call("GET", f"/schemas/ids/{schema_id}")
            self._by_id[schema_id] = (got.get("schemaType", "AVRO"), got["schema"])
        return self._by_id[schema_id]

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
