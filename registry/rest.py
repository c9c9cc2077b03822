"""Confluent Schema Registry's REST API as aiohttp handlers.

``RegistryResource.routes()`` gives (method, path, handler) triples, the shape the broker's
HTTP stack mounts (``HttpServer.mount``); ``standalone_app`` wires them on an application of
their own for tools and tests. Paths are Confluent's, at the root (``/subjects``,
``/schemas``, ``/config``, ``/mode``, ``/compatibility``), so clients take the listener's URL
as their ``schema.registry.url``.

Content types: requests may send ``application/vnd.schemaregistry.v1+json``,
``application/vnd.schemaregistry+json``, ``application/json`` or ``application/octet-stream``
(anything else is 415); answers are ``application/vnd.schemaregistry.v1+json``. Errors are
Confluent's ``{"error_code", "message"}``.
"""
from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Awaitable, Callable, Iterable

from aiohttp import web

from kafpy.registry import contracts
from kafpy.registry.errors import RegistryErrorCode, RestError
from kafpy.registry.records import SchemaValue
from kafpy.registry.schema_types import SUPPORTED_TYPES
from kafpy.registry.service import SchemaRegistry
from kafpy.web.access import BODY_KEY, allowed, subject_topic

if TYPE_CHECKING:
    from aiohttp import ClientSession

    from kafpy.registry.election import LeaderElector

log = logging.getLogger("kafka.schemaregistry.rest")

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
ACCEPTED_TYPES = {"application/vnd.schemaregistry.v1+json", "application/vnd.schemaregistry+json",
                  "application/json", "application/octet-stream", ""}
MAX_REQUEST_BYTES = 1 << 20
SUBJECT_SEGMENT = "{subject:[^/]+}"   # aiohttp's default excludes { and }
PRODUCED_TYPES = ("application/vnd.schemaregistry.v1+json", "application/vnd.schemaregistry+json",
                  "application/json")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def reply(body: object, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type=CONTENT_TYPE.split(";")[0])


def error_reply(e: RestError) -> web.Response:
    return reply({"error_code": e.code, "message": e.message}, e.status)


def _visible(request: web.Request, subjects: Iterable[str]) -> list[str]:
    """The subjects whose topic the caller may DESCRIBE: what a listing names (a topic listing
    is filtered the same way, as Kafka's Metadata is)."""
    return allowed(request, "TOPIC", "DESCRIBE", list(subjects), subject_topic)


def _flag(request: web.Request, name: str) -> bool:
    return request.query.get(name, "false").lower() == "true"


def acceptable(accept: str) -> bool:
    """Whether an ``Accept`` header admits one of the types answered (Jersey's 406 otherwise);
    no header, ``*/*`` and ``application/*`` admit them all, a range with ``q=0`` none."""
    if not accept.strip():
        return True
    for item in accept.split(","):
        media, *params = [p.strip() for p in item.split(";")]
        media = media.lower()
        q = next((p[2:] for p in params if p.lower().startswith("q=")), "1")
        try:
            if float(q) <= 0:
                continue
        except ValueError:
            continue
        if media in ("*/*", "*", "application/*") or media in PRODUCED_TYPES:
            return True
    return False


async def read_body(request: web.Request, limit: int) -> bytes | None:
    """The whole request body, or None when it is longer than ``limit`` (read no further).
    ``content.read(n)`` answers with what has arrived so far, not ``n`` bytes: a body that
    comes in several TCP reads needs the loop."""
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = await request.content.read(limit + 1 - total)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > limit:
            return None
        chunks.append(chunk)


def schema_json(sv: SchemaValue, with_subject: bool = True, text: str | None = None) -> dict[str, object]:
    """Confluent's answer for one schema; ``text`` replaces the stored text (``?format=``)."""
    out: dict[str, object] = {}
    if with_subject:
        out.update(subject=sv.subject, version=sv.version)
    out["id"] = sv.id
    if sv.schema_type != "AVRO":
        out["schemaType"] = sv.schema_type
    if sv.references:
        out["references"] = sv.references
    if sv.metadata is not None:
        out["metadata"] = sv.metadata
    if sv.rule_set is not None:
        out["ruleSet"] = sv.rule_set
    out["schema"] = sv.schema if text is None else text
    return out


class Forwarder:
    """Sends a write received by a secondary to the primary the elector names, and answers
    with the primary's answer (50003 when it cannot be reached, 50004 when none is known)."""

    def __init__(self, elector: LeaderElector, timeout_s: float = 30.0) -> None:
        self.elector = elector
        self.timeout_s = timeout_s
        self._session: ClientSession | None = None

    def is_primary(self) -> bool:
        return bool(self.elector.is_primary)

    async def forward(self, request: web.Request, max_bytes: int) -> web.StreamResponse:
        import aiohttp
        url = self.elector.primary_url
        if url is None or self.elector.primary == self.elector.identity:
            raise RestError(RegistryErrorCode.UNKNOWN_LEADER, "Primary not known")
        body = request.get(BODY_KEY)   # read whole by the HTTP server before the handler runs
        if body is None:
            body = await read_body(request, max_bytes)
        if body is None or len(body) > max_bytes:
            raise RestError(RegistryErrorCode.PAYLOAD_TOO_LARGE, "Request entity too large")
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.timeout_s))
        headers = {k: v for k, v in request.headers.items() if k.lower() in ("content-type", "accept", "authorization")}
        try:
            async with self._session.request(request.method, url + request.path_qs, data=body, headers=headers) as r:
                payload = await r.read()
                return web.Response(status=r.status, body=payload,
                                    headers={"Content-Type": r.headers.get("Content-Type", CONTENT_TYPE)})
        except (aiohttp.ClientError, TimeoutError) as e:
            raise RestError(RegistryErrorCode.REQUEST_FORWARDING_FAILED,
                            f"Error while forwarding the request to the primary {url}: {e}") from None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


class RegistryResource:
    """The handlers over one ``SchemaRegistry``."""

    def __init__(self, registry: SchemaRegistry, max_request_bytes: int = MAX_REQUEST_BYTES,
                 forwarder: "Forwarder | None" = None, ready: Callable[[], bool] = lambda: True) -> None:
        self.registry = registry
        self.max_request_bytes = max_request_bytes
        self.forwarder = forwarder
        self.ready = ready   # False until _schemas has been read: answers would be wrong before

    def routes(self) -> list[tuple[str, str, Handler]]:
        """Subjects may hold any character but ``/`` unencoded: ``%2F`` (a Protobuf
        dependency's ``pkg/address.proto``), ``{`` and ``}`` route as part of the subject."""
        h, w = self._handle, self._write
        return [(method, path.replace("{subject}", SUBJECT_SEGMENT), handler) for method, path, handler in [

            ("GET", "/schemas", h(self.list_schemas)),
            ("GET", "/schemas/types", h(self.types)),
            ("GET", "/schemas/ids/{id}", h(self.get_by_id)),
            ("GET", "/schemas/ids/{id}/schema", h(self.get_raw_by_id)),
            ("GET", "/schemas/ids/{id}/subjects", h(self.subjects_of_id)),
            ("GET", "/schemas/ids/{id}/versions", h(self.versions_of_id)),
            ("GET", "/subjects", h(self.list_subjects)),
            ("POST", "/subjects/{subject}", h(self.lookup)),
            ("DELETE", "/subjects/{subject}", w(self.delete_subject)),
            ("GET", "/subjects/{subject}/versions", h(self.list_versions)),
            ("GET", "/subjects/{subject}/metadata", h(self.latest_with_metadata)),
            ("POST", "/subjects/{subject}/versions", w(self.register)),
            ("GET", "/subjects/{subject}/versions/{version}", h(self.get_version)),
            ("GET", "/subjects/{subject}/versions/{version}/schema", h(self.get_raw_version)),
            ("GET", "/subjects/{subject}/versions/{version}/referencedby", h(self.referenced_by)),
            ("DELETE", "/subjects/{subject}/versions/{version}", w(self.delete_version)),
            ("POST", "/compatibility/subjects/{subject}/versions/{version}", h(self.compatibility)),
            ("POST", "/compatibility/subjects/{subject}/versions", h(self.compatibility)),
            ("GET", "/config", h(self.get_config)),
            ("PUT", "/config", w(self.put_config)),
            ("GET", "/config/{subject}", h(self.get_config)),
            ("PUT", "/config/{subject}", w(self.put_config)),
            ("DELETE", "/config/{subject}", w(self.delete_config)),
            ("GET", "/mode", h(self.get_mode)),
            ("PUT", "/mode", w(self.put_mode)),
            ("GET", "/mode/{subject}", h(self.get_mode)),
            ("PUT", "/mode/{subject}", w(self.put_mode)),
            ("DELETE", "/mode/{subject}", w(self.delete_mode)),
        ]]

    def _write(self, fn: Callable[[web.Request], Awaitable[object]]) -> Handler:
        """A write: served here on the primary, forwarded to it from any other instance."""
        local = self._handle(fn)

        async def handler(request: web.Request) -> web.StreamResponse:
            if self.forwarder is None or self.forwarder.is_primary() or not self.ready():
                return await local(request)
            try:
                return await self.forwarder.forward(request, self.max_request_bytes)
            except RestError as e:
                return error_reply(e)
        return handler

    def _handle(self, fn: Callable[[web.Request], Awaitable[object]]) -> Handler:
        async def handler(request: web.Request) -> web.StreamResponse:
            if not acceptable(request.headers.get("Accept", "")):
                return error_reply(RestError(RegistryErrorCode.NOT_ACCEPTABLE, "HTTP 406 Not Acceptable"))
            if not self.ready():
                return error_reply(RestError(RegistryErrorCode.STORE_ERROR,
                                             "The Schema Registry is starting: _schemas is still being read"))
            try:
                result = await fn(request)
            except RestError as e:
                return error_reply(e)
            except web.HTTPException:
                raise
            except Exception:   # a bug must not take the listener down; Confluent's 500 shape
                log.exception("Error handling %s %s", request.method, request.path)
                return error_reply(RestError(50001, "Error in the backend data store"))
            return result if isinstance(result, web.StreamResponse) else reply(result)
        return handler

    async def _body(self, request: web.Request) -> dict:
        ctype = request.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if ctype not in ACCEPTED_TYPES:
            raise RestError(RegistryErrorCode.UNSUPPORTED_MEDIA_TYPE, "HTTP 415 Unsupported Media Type")
        if request.content_length is not None and request.content_length > self.max_request_bytes:
            raise RestError(RegistryErrorCode.PAYLOAD_TOO_LARGE, "Request entity too large")
        raw = request.get(BODY_KEY)   # read whole by the HTTP server before the handler runs
        if raw is None:
            raw = await read_body(request, self.max_request_bytes)
        if raw is None or len(raw) > self.max_request_bytes:
            raise RestError(RegistryErrorCode.PAYLOAD_TOO_LARGE, "Request entity too large")
        try:
            body = json.loads(raw) if raw else {}
        except ValueError as e:
            raise RestError(RegistryErrorCode.BAD_REQUEST, f"Unexpected character: {e}") from None
        if not isinstance(body, dict):
            raise RestError(RegistryErrorCode.BAD_REQUEST, "Request body must be a JSON object")
        return body

    @staticmethod
    def _id(request: web.Request) -> int:
        try:
            return int(request.match_info["id"])
        except ValueError:   # Jersey matches an Integer path parameter or answers 404
            raise RestError(RegistryErrorCode.NOT_FOUND, "HTTP 404 Not Found") from None

    # ---------------------------------------------------------------- handlers
    async def types(self, request: web.Request) -> list[str]:
        return list(SUPPORTED_TYPES)

    async def list_schemas(self, request: web.Request) -> list[dict[str, object]]:
        deleted = _flag(request, "deleted")
        state = self.registry.state
        return [schema_json(sv) for s in _visible(request, state.subject_names(deleted)) for sv in state.versions(s, deleted)]

    def _text(self, request: web.Request, sv: SchemaValue) -> str:
        return self.registry.schema_text(sv, request.query.get("format"))

    async def get_by_id(self, request: web.Request) -> dict[str, object]:
        sv = self.registry.schema_by_id(self._id(request))
        return schema_json(sv, with_subject=False, text=self._text(request, sv))

    async def get_raw_by_id(self, request: web.Request) -> web.Response:
        sv = self.registry.schema_by_id(self._id(request))
        return web.Response(body=self._text(request, sv).encode(), content_type=CONTENT_TYPE)

    async def subjects_of_id(self, request: web.Request) -> list[str]:
        sid, deleted = self._id(request), _flag(request, "deleted")
        self.registry.schema_by_id(sid)
        state = self.registry.state
        return sorted({sv.subject for s in _visible(request, state.subject_names(deleted))
                       for sv in state.versions(s, deleted) if sv.id == sid})

    async def versions_of_id(self, request: web.Request) -> list[dict[str, object]]:
        sid, deleted = self._id(request), _flag(request, "deleted")
        self.registry.schema_by_id(sid)
        state = self.registry.state
        return [{"subject": sv.subject, "version": sv.version} for s in _visible(request, state.subject_names(deleted))
                for sv in state.versions(s, deleted) if sv.id == sid]

    async def list_subjects(self, request: web.Request) -> list[str]:
        prefix = request.query.get("subjectPrefix", "")
        return [s for s in _visible(request, self.registry.state.subject_names(_flag(request, "deleted")))
                if s.startswith(prefix)]

    async def list_versions(self, request: web.Request) -> list[int]:
        subject = request.match_info["subject"]
        versions = self.registry.state.versions(subject, _flag(request, "deleted"))
        if not versions:
            from kafpy.registry.errors import subject_not_found
            raise subject_not_found(subject)
        return [sv.version for sv in versions]

    async def latest_with_metadata(self, request: web.Request) -> dict[str, object]:
        keys, values = request.query.getall("key", []), request.query.getall("value", [])
        sv = self.registry.latest_with_metadata(request.match_info["subject"], dict(zip(keys, values)),
                                                _flag(request, "deleted"))
        return schema_json(sv, text=self._text(request, sv))

    async def register(self, request: web.Request) -> dict[str, int]:
        body = await self._body(request)
        await self.registry.prepare(body)   # a big Protobuf schema compiles off the loop
        schema_id = await self.registry.register(request.match_info["subject"], body, _flag(request, "normalize"))
        return {"id": schema_id}

    async def lookup(self, request: web.Request) -> dict[str, object]:
        body = await self._body(request)
        await self.registry.prepare(body)   # a big Protobuf schema compiles off the loop
        return schema_json(self.registry.lookup(request.match_info["subject"], body, _flag(request, "deleted"),
                                                _flag(request, "normalize")))

    async def get_version(self, request: web.Request) -> dict[str, object]:
        sv = self.registry.version(request.match_info["subject"], request.match_info["version"], _flag(request, "deleted"))
        return schema_json(sv, text=self._text(request, sv))

    async def get_raw_version(self, request: web.Request) -> web.Response:
        sv = self.registry.version(request.match_info["subject"], request.match_info["version"], _flag(request, "deleted"))
        return web.Response(body=self._text(request, sv).encode(), content_type=CONTENT_TYPE)

    async def referenced_by(self, request: web.Request) -> list[int]:
        sv = self.registry.version(request.match_info["subject"], request.match_info["version"])
        return sorted(self.registry.state.referrers(sv.subject, sv.version))

    async def delete_subject(self, request: web.Request) -> list[int]:
        return await self.registry.delete_subject(request.match_info["subject"], _flag(request, "permanent"))

    async def delete_version(self, request: web.Request) -> int:
        return await self.registry.delete_version(request.match_info["subject"], request.match_info["version"],
                                                  _flag(request, "permanent"))

    async def compatibility(self, request: web.Request) -> dict[str, object]:
        body = await self._body(request)
        await self.registry.prepare(body)   # a big Protobuf schema compiles off the loop
        try:
            messages = self.registry.check_compatibility(request.match_info["subject"],
                                                         request.match_info.get("version"), body)
        except RestError as e:   # Confluent answers an invalid schema in the verdict when verbose
            if e.code != RegistryErrorCode.INVALID_SCHEMA or not _flag(request, "verbose"):
                raise
            messages = [e.message]
        out: dict[str, object] = {"is_compatible": not messages}
        if _flag(request, "verbose"):
            out["messages"] = messages
        return out

    async def get_config(self, request: web.Request) -> dict:
        subject = request.match_info.get("subject")
        state = self.registry.state
        if subject is not None and subject not in state.config_docs and not _flag(request, "defaultToGlobal"):
            raise RestError(RegistryErrorCode.SUBJECT_LEVEL_COMPATIBILITY_NOT_CONFIGURED,
                            f"Subject '{subject}' does not have subject-level compatibility configured")
        found = state.config_docs.get(subject) if subject is not None else None
        doc: dict = found if found is not None else (state.config_docs.get(None) or {})
        extra = {k: doc[k] for k in contracts.CONFIG_FIELDS if doc.get(k) is not None}
        return {"compatibilityLevel": state.compatibility(subject), **extra}

    async def put_config(self, request: web.Request) -> dict:
        body = await self._body(request)
        level = body.get("compatibility", body.get("compatibilityLevel"))
        level = level.upper() if isinstance(level, str) else level
        return await self.registry.set_compatibility(request.match_info.get("subject"), level, body)

    async def delete_config(self, request: web.Request) -> dict[str, str]:
        return {"compatibilityLevel": await self.registry.delete_compatibility(request.match_info["subject"])}

    async def get_mode(self, request: web.Request) -> dict[str, str]:
        subject = request.match_info.get("subject")
        state = self.registry.state
        if subject is not None and subject not in state.modes and not _flag(request, "defaultToGlobal"):
            raise RestError(RegistryErrorCode.SUBJECT_LEVEL_MODE_NOT_CONFIGURED,
                            f"Subject '{subject}' does not have subject-level mode configured")
        return {"mode": state.mode(subject)}

    async def put_mode(self, request: web.Request) -> dict[str, str]:
        body = await self._body(request)
        mode = body.get("mode")
        mode = mode.upper() if isinstance(mode, str) else mode
        return {"mode": await self.registry.set_mode(request.match_info.get("subject"), mode, _flag(request, "force"))}

    async def delete_mode(self, request: web.Request) -> dict[str, str]:
        return {"mode": await self.registry.delete_mode(request.match_info["subject"])}
