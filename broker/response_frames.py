"""What handling one request frame gives the socket server, and the small pieces that build
it: a response after which the connection closes, a response ready before those ahead of it
were written, the SASL v0 raw-token answer, the error answer for a handler that raised, and
the per-request observer hook.

Who may call it: ``kafpy.broker.server`` (``KafkaConnection``) only; split out of it so the
connection's read/dispatch/write loop stays one module of its own size. No state.
"""
from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Union

from kafpy.protocol import codec
from kafpy.protocol.errors import error_code_for
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import RequestHeader

from kafpy.broker.error_responses import error_response
from kafpy.broker.handler import CloseConnection, RequestContext
from kafpy.broker.security.session import AuthSession
from kafpy.broker.socket_writer import Chunk

if TYPE_CHECKING:
    from kafpy.metrics.observer import RequestObserver

log = logging.getLogger("kafka.network")
# what handling one request frame gives: the response frame, nothing (no answer), or
# the exception that closes the connection (after its answer for SendThenClose)
ProcessResult = Union[list[Chunk], BaseException, None]


class SendThenClose(Exception):
    """A response after which the connection closes (a failed SASL login, a request out of
    order in the SASL exchange)."""

    def __init__(self, chunks: list[Chunk]) -> None:
        super().__init__("closing after a failed authentication")
        self.chunks = chunks


async def raw_sasl_token(session: AuthSession, frame: bytes | bytearray) -> ProcessResult:
    """SaslHandshake v0: frames are bare SASL tokens, answered with bare tokens; a failure
    closes the connection without an answer (v0 has no way to say why)."""
    error, _message, token, _lifetime = await session.authenticate(bytes(frame))
    if error:
        return CloseConnection("SASL authentication failed")
    return [len(token).to_bytes(4, "big") + token]


def observe(observer: "RequestObserver", ctx: RequestContext, api_key: int, request: Message,
             response: Message | BaseException | None,
             started: float, throttle_ms: int = 0, parked: float = 0.0) -> None:
    """The per-request hook (metrics, request log); a failure in it never fails the request.
    ``parked``: when the handler first waited (0: it never did)."""
    try:
        now = time.perf_counter()
        observer.completed(ctx, api_key, request, response, now - started, throttle_ms,
                           now - parked if parked else 0.0)
    except Exception:
        log.exception("Recording metrics of api %d failed", api_key)


def nothing() -> None:
    return None


def error_answer(api_key: int, header: RequestHeader, request: Message, exc: Exception) -> ProcessResult:
    """What answers a request whose handler raised ``exc``: Kafka's error response (every
    error field set), or ``exc`` itself (close the connection) where Kafka has none."""
    try:
        response = error_response(api_key, header.request_api_version, request, error_code_for(exc))
        if response is None:
            return exc
        return codec.encode_response_chunks(api_key, header.request_api_version, header.correlation_id, response)
    except Exception:
        log.exception("Could not build the error response to api %d v%d", api_key, header.request_api_version)
        return exc


class Ready:
    """A response computed before the ones ahead of it were written."""

    __slots__ = ("result",)

    def __init__(self, result: ProcessResult) -> None:
        self.result = result
