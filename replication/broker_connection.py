"""One outgoing connection to another broker: pipelined requests, responses matched by
correlation id in request order, per-request timeouts.

Who may call it: ``kafpy.replication.network_client.NetworkClient``, which opens, negotiates and
replaces these connections; tests drive it through an in-memory transport. It stands where
Kafka's ``KafkaChannel`` and ``InFlightRequests`` stand under ``NetworkClient``.

As in Kafka, a broker answers the requests of one connection in the order it received
them, so the response at the head of the stream must carry the correlation id of the
oldest request in flight; anything else (an id never sent, or one out of turn) means the
stream can no longer be trusted and the connection is closed. A request that times out
closes the connection too (Kafka's NetworkClient disconnects the node): its future fails
with ``RequestTimedOut``, every other pending one with ``Disconnected``.

Responses are framed by ``kafpy.protocol.framing.FrameReader`` straight from the transport's
buffer, so a large Fetch response is received into its own buffer and its record sets are
slices of it. Writes go to the transport as single frames; requests between brokers are
small and few in flight, so there is no write-side backpressure here.
"""
from __future__ import annotations

import asyncio
import logging
import socket
import struct
from collections import deque
from typing import Callable, Protocol

from kafpy.protocol import codec
from kafpy.protocol.errors import ErrorCode, KafkaError, ProtocolError, TruncatedFrame
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.framing import DEFAULT_BUFFER_SIZE, FrameReader
from kafpy.protocol.messages import Message, RequestHeader

log = logging.getLogger("kafka.network.BrokerConnection")

MAX_RESPONSE_BYTES = 2**31 - 1   # clients take responses of any size (Kafka: NetworkReceive.UNLIMITED)
_CORRELATION = struct.Struct(">i")
_ERROR_AFTER_V0_HEADER = struct.Struct(">ih")


class Timer(Protocol):
    """What a connection and the client need of time: the event loop's own ``time`` and
    ``call_later``, or a test's manual clock."""

    def time(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[..., object], *args: object) -> asyncio.TimerHandle: ...


class NetworkError(KafkaError):
    """Base of the broker-to-broker client's errors; ``error_code`` is what Kafka reports."""

    error_code: ErrorCode = ErrorCode.NETWORK_EXCEPTION


class Disconnected(NetworkError):
    """The connection closed (either side, or after a protocol error or a timeout) before
    the response came (Kafka's ``DisconnectException``). Retriable: a new connection may
    succeed."""

    error_code = ErrorCode.NETWORK_EXCEPTION


class RequestTimedOut(NetworkError):
    """No response within the request timeout (request.timeout.ms); the connection was
    closed (Kafka's ``TimeoutException`` from ``NetworkClient``)."""

    error_code = ErrorCode.REQUEST_TIMED_OUT


class CorrelationIdMismatch(ProtocolError):
    """A response whose correlation id is not the oldest request's in flight (Kafka's
    ``CorrelationIdMismatchException``)."""

    error_code = ErrorCode.UNKNOWN_SERVER_ERROR

    def __init__(self, received: int, expected: int | None) -> None:
        super().__init__(f"response with correlation id {received}, expected "
                         f"{'none (nothing in flight)' if expected is None else expected}")
        self.received = received
        self.expected = expected


class _InFlight:
    """A request sent and not yet answered."""

    __slots__ = ("correlation_id", "api_key", "api_version", "future", "timeout", "timeout_handle")

    def __init__(self, header: RequestHeader, future: asyncio.Future, timeout: float | None) -> None:
        self.correlation_id: int = header.correlation_id
        self.api_key: int = header.request_api_key
        self.api_version: int = header.request_api_version
        self.future = future
        self.timeout = timeout
        self.timeout_handle: asyncio.TimerHandle | None = None


def decode_response(api_key: int, api_version: int, frame: bytearray | bytes) -> Message:
    """The body of a response frame. A broker that does not know the ApiVersions version
    we asked for answers UNSUPPORTED_VERSION at v0 (so old clients can read it); that answer
    is decoded as v0, as Kafka's ``ApiVersionsResponse.parse`` does."""
    if (api_key == ApiKey.API_VERSIONS and api_version > 0 and len(frame) >= 6
            and _ERROR_AFTER_V0_HEADER.unpack_from(frame, 0)[1] == ErrorCode.UNSUPPORTED_VERSION):
        api_version = 0
    return codec.decode_response(api_key, api_version, frame)[1]


class BrokerConnection(asyncio.BufferedProtocol):
    """The protocol of one connection; made by the client's connector, one per connection.

    ``destination`` names the other side in logs and errors. ``on_close`` is called once,
    with this connection, when it closes for any reason."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timer: Timer, destination: str, *,
                 max_response_bytes: int = MAX_RESPONSE_BYTES, buffer_size: int = DEFAULT_BUFFER_SIZE,
                 on_close: Callable[["BrokerConnection"], None] | None = None) -> None:
        self.loop = loop
        self.timer = timer
        self.destination = destination
        self.reader = FrameReader(max_response_bytes, buffer_size)
        self.in_flight: deque[_InFlight] = deque()
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.close_reason: BaseException | None = None
        self._on_close = on_close

    # -- transport callbacks -------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass

    def connection_lost(self, exc: Exception | None) -> None:
        self._close(Disconnected(f"connection to {self.destination} was closed"
                                 + (f": {exc}" if exc else "")), abort=False)

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.reader.get_buffer(sizehint)

    def buffer_updated(self, nbytes: int) -> None:
        reader = self.reader
        reader.buffer_updated(nbytes)
        try:
            while not self.closed:
                frame = reader.next_frame()
                if frame is None:
                    return
                self._complete(frame)
        except ProtocolError as e:
            log.warning("Closing connection to %s: %s", self.destination, e)
            self._close(e)

    def eof_received(self) -> bool | None:
        return None

    # -- requests ------------------------------------------------------------------------
    def send(self, header: RequestHeader, body: Message, *, expect_response: bool = True,
             timeout: float | None = None) -> asyncio.Future:
        """Writes the request; returns the future of its decoded response body (None at once
        when no response is expected: Produce with acks=0). ``timeout`` in seconds."""
        if self.closed or self.transport is None:
            raise Disconnected(f"connection to {self.destination} is closed") from self.close_reason
        data = codec.encode_request(header, body)
        fut = self.loop.create_future()
        if expect_response:
            req = _InFlight(header, fut, timeout)
            if timeout is not None:
                req.timeout_handle = self.timer.call_later(timeout, self._timed_out, req)
            self.in_flight.append(req)
        else:
            fut.set_result(None)
        self.transport.write(data)
        return fut

    def close(self, reason: BaseException | None = None) -> None:
        """Closes the connection; every pending request fails with ``Disconnected``."""
        self._close(reason or Disconnected(f"connection to {self.destination} was closed by us"))

    # -- internals -----------------------------------------------------------------------
    def _complete(self, frame: bytearray) -> None:
        if len(frame) < 4:
            raise TruncatedFrame("response shorter than its header")
        (corr,) = _CORRELATION.unpack_from(frame, 0)
        in_flight = self.in_flight
        if not in_flight or in_flight[0].correlation_id != corr:
            raise CorrelationIdMismatch(corr, in_flight[0].correlation_id if in_flight else None)
        req = in_flight.popleft()
        if req.timeout_handle is not None:
            req.timeout_handle.cancel()
        try:
            body = decode_response(req.api_key, req.api_version, frame)
        except ProtocolError as e:
            if not req.future.done():
                req.future.set_exception(e)
            raise
        if not req.future.done():   # the caller may have stopped waiting
            req.future.set_result(body)

    def _timed_out(self, req: _InFlight) -> None:
        ms = round(req.timeout * 1000) if req.timeout is not None else 0
        err = RequestTimedOut(f"{codec.SPECS[req.api_key].name} v{req.api_version} (correlation id "
                              f"{req.correlation_id}) to {self.destination} had no response within {ms} ms")
        log.warning("Disconnecting from %s: %s", self.destination, err)
        if not req.future.done():
            req.future.set_exception(err)
        self._close(err)

    def _close(self, reason: BaseException, abort: bool = True) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        pending = list(self.in_flight)
        self.in_flight.clear()
        for req in pending:
            if req.timeout_handle is not None:
                req.timeout_handle.cancel()
            if not req.future.done():
                if isinstance(reason, Disconnected):
                    err = Disconnected(str(reason))
                    err.__cause__ = reason.__cause__
                else:
                    err = Disconnected(f"connection to {self.destination} was closed: {reason}")
                    err.__cause__ = reason
                req.future.set_exception(err)
        if abort and self.transport is not None:
            self.transport.abort()
        if self._on_close is not None:
            self._on_close(self)
