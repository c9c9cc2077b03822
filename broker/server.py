"""The socket server: accepts connections, frames requests, dispatches them, writes
responses in request order.

Reading uses a ``BufferedProtocol`` driving ``kafpy.protocol.framing.FrameReader`` (the same
reader the broker-to-broker client uses): every connection receives into one scratch buffer
shared by the server, whole requests are copied out of it, and a request that is not whole
after a read gets a buffer of exactly its size that the rest is received into (a big Produce
reaches the log without another copy and can be rewritten in place). An idle connection so
holds no read buffer.

Writing bypasses the transport (``kafpy.broker.socket_writer``): responses go out with
``os.writev`` and record data with ``os.sendfile`` on the socket's fd. uvloop implements
neither ``loop.sendfile`` nor ``sock_sendfile`` (both raise NotImplementedError, even with
``fallback=True``), so we wait for writability ourselves with ``add_writer`` on a ``dup()``
of the fd, made the first time a connection has to wait. The transport is never asked to write, so the two paths cannot
interleave. On a TLS listener (SSL, SASL_SSL) none of that applies: the SSL transport does
the writing and record data is read into memory first (``kafpy.broker.security.tls_writer``).

Security hooks (``kafpy.broker.security``): each connection gets an ``AuthSession`` when it is
made; before a request is dispatched the session says whether it may be served yet
(SASL: only ApiVersions and the SASL requests until authenticated) and gives the
principal put on the ``RequestContext``; after a failed login the answer is sent and the
connection closed.

Each request's coroutine is started right in the read callback; most handlers finish
without waiting, and their response is written there and then when nothing is queued ahead
of it (no Task, no extra trip through the event loop). A handler that waits (a long-polling
Fetch, a JoinGroup) goes on in a Task. Responses are written strictly in the order the
requests arrived (clients rely on it); those that are ready together go out in one
``writev``. A connection with too many requests queued stops being read until its backlog
drains; so does one whose next request does not fit in ``queued.max.request.bytes``
(Kafka's memory pool, off by default) until requests in flight give theirs back.

Client quotas (``kafpy.broker.quotas``): when any is configured, each response is given its
``throttle_time_ms`` and a throttled connection is muted (nothing more is read from it,
requests already read wait) until the throttle time is over, as Kafka's
ThrottledChannel does; the response itself goes out at once (KIP-219). The broker time a
connection's requests take (the request quota) is the time their coroutines ran before
first waiting, counted against the client on its next request.
"""
from __future__ import annotations

import asyncio
import errno
import functools
import itertools
import logging
import socket
import time
from collections import deque
from types import CoroutineType
from typing import TYPE_CHECKING, Any, Callable

from kafpy.protocol import codec
from kafpy.protocol.errors import FrameTooLarge, ProtocolError, UnsupportedVersion
from kafpy.protocol.framing import FrameReader
from kafpy.protocol.memory_pool import MemoryPool
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.config import ConfigError
from kafpy.broker.acceptor import Acceptor
from kafpy.broker.connection_quotas import ConnectionQuotas, parse_ip_overrides
from kafpy.broker.eager_coroutine import hand_over
from kafpy.broker.handler import CloseConnection, PreEncodedResponse, RequestContext
from kafpy.broker.quotas.throttling import throttle_response
from kafpy.broker.security.principal import ANONYMOUS
from kafpy.broker.security.session import AuthSession, ListenerSecurity, illegal_sasl_state_response
from kafpy.broker.security.tls_writer import TransportWriter
from kafpy.broker.response_frames import (ProcessResult, Ready, SendThenClose, error_answer, nothing, observe,
                                          raw_sasl_token)
from kafpy.broker.socket_writer import ZERO_COPY, Chunk, SocketWriter, TrafficStats

if TYPE_CHECKING:
    from kafpy.broker.apis import ApiRegistry
    from kafpy.broker.services import BrokerServices
    from kafpy.broker.config import KafkaConfig
    from kafpy.metrics.observer import RequestObserver

log = logging.getLogger("kafka.network")

READ_BUFFER_SIZE = 256 * 1024
MAX_QUEUED_REQUESTS = 100
_conn_ids = itertools.count()


def configure_accepted_socket(sock: socket.socket, send_buffer_bytes: int) -> None:
    """What Kafka's Acceptor sets on each accepted socket: no Nagle delay, TCP keep-alive
    (a peer that vanished without a FIN is found), and ``socket.send.buffer.bytes`` as
    SO_SNDBUF unless it is -1 (the OS's own, autotuned size)."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    if send_buffer_bytes != -1:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer_bytes)


class KafkaConnection(asyncio.BufferedProtocol):
    """One client connection. Made by ``SocketServer`` for each accepted socket; reads the
    server's ``apis``, ``services``, ``loop``, ``clock``, ``stats`` and ``connections``."""

    def __init__(self, server: "SocketServer", listener: str) -> None:
        self.server = server
        self.apis = server.apis
        self.services = server.services
        self.listener = listener
        self.loop = server.loop
        self.clock = server.clock
        self.transport: asyncio.Transport | None = None
        self.writer: SocketWriter | None = None
        self.pool: MemoryPool | None = server.memory_pool
        self.reader = FrameReader(server.max_request_size, scratch=server.scratch, pool=self.pool)
        # Tasks still running and Ready results, in request order (left untyped: the response loop
        # tells them apart with ``type(x) is Ready``, the fast check mypy does not narrow on)
        self.queue: deque[Any] = deque()
        self.response_task: asyncio.Task | None = None
        self.paused = False     # too many requests queued
        self.closed = False
        self.admitted = False   # counted by the server's ConnectionQuotas
        self.batch: list[Chunk] | None = None   # inline responses of the read being handled
        self.throttled = False   # muted by a client quota until its throttle time is over
        self._unmute_at = 0.0    # loop time the mute ends
        self.busy_s = 0.0        # broker time spent on requests not yet counted against a quota
        # broker.quotas.ClientQuotas: applied to responses once some quota is configured
        self.client_quotas = self.services.quotas
        self.last_active = self.clock()
        self.id = f"conn-{next(_conn_ids)}"
        self.peer = ("?", 0)
        self.session: AuthSession | None = None
        # The session when its SASL state decides what may be sent (a SASL listener), else
        # None: on PLAINTEXT and SSL it is AUTHENTICATED from the start and never changes, so
        # requests there skip its checks.
        self.sasl_session: AuthSession | None = None
        # metrics.observer.RequestObserver (per-request metrics, request log), or None
        self.observer: "RequestObserver | None" = server.observer

    # -- transport callbacks -------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        peer = transport.get_extra_info("peername") or ("?", 0)
        self.peer = (peer[0], peer[1])
        try:
            configure_accepted_socket(sock, self.server.send_buffer_bytes)
        except OSError:
            pass
        security = self.server.security.get(self.listener)
        if security is not None:
            self.session = security.new_session(transport, self.clock)
            if security.sasl:
                self.sasl_session = self.session
                self._set_receive_limit(self.session)
        if transport.get_extra_info("ssl_object") is not None:
            # a TLS connection's transport is a full Transport; the writer attribute takes either writer
            self.writer = TransportWriter(self.loop, transport, self.server.stats)  # type: ignore[arg-type, assignment]
        else:
            self.writer = SocketWriter(self.loop, sock, self.server.stats)
        self.server.acceptor.opened(self)
        log.debug("Accepted connection %s from %s:%d", self.id, *self.peer)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.server.acceptor.closed(self)
        share_partitions = self.services.share_partitions
        if share_partitions is not None:   # its share sessions end with it (Kafka 4.4)
            share_partitions.on_connection_closed(self.id)
        for fut in self.queue:
            if type(fut) is not Ready:
                fut.cancel()
        self.queue.clear()
        if self.response_task is not None:
            self.response_task.cancel()
        if self.writer is not None:
            self.writer.close()
        if self.pool is not None:
            self.reader.close()
            self.pool.forget(self._memory_available)

    def pause_writing(self) -> None:   # only a TLS transport's writer minds these
        getattr(self.writer, "pause_writing", nothing)()

    def resume_writing(self) -> None:
        getattr(self.writer, "resume_writing", nothing)()

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.reader.get_buffer(sizehint)

    def buffer_updated(self, nbytes: int) -> None:
        self.last_active = self.clock()
        if self.sasl_session is not None:
            self._set_receive_limit(self.sasl_session)
        self.reader.buffer_updated(nbytes)
        self._handle_frames()

    def _set_receive_limit(self, sasl: AuthSession) -> None:
        """Until a SASL connection has authenticated its frames are held to
        sasl.server.max.receive.size (never above socket.request.max.bytes), as Kafka's
        SaslServerAuthenticator reads them: an unauthenticated client costs at most that."""
        limit = self.server.max_request_size
        if sasl.authenticating:
            limit = min(limit, sasl.listener.max_receive_size)
        self.reader.limit = limit

    def _handle_frames(self) -> None:
        reader = self.reader
        # Responses computed inline for the requests of this one read are gathered and go
        # out in one write at its end (pipelined requests: one syscall, not one each).
        self.batch = []
        try:
            while not self.closed and not self.throttled:
                frame = reader.next_frame()
                if frame is None:
                    break
                self._dispatch(frame)
        except FrameTooLarge as e:
            sasl = self.sasl_session
            if sasl is not None and sasl.authenticating and e.size >= 0:
                # Kafka's Selector logs the authenticator's SaslAuthenticationException so
                log.info("Failed %sauthentication with %s:%d (channelId=%s) (Failing SASL authentication "
                         "due to invalid receive size: %d larger than %d, sasl.server.max.receive.size)",
                         "re-" if sasl.reauthenticating else "", self.peer[0], self.peer[1], self.id,
                         e.size, e.limit)
            else:
                log.warning("Closing connection from %s:%d: request size %d is outside 0..%d "
                            "(socket.request.max.bytes)", self.peer[0], self.peer[1], e.size, e.limit)
            self.abort()
        self._flush()
        self.batch = None
        if self.reader.memory_blocked and not self.closed:
            self._wait_for_memory()

    def eof_received(self) -> bool | None:
        return None

    def _resume_reading(self) -> None:
        """Reads again unless something still holds reading back: the request backlog, a
        quota's throttle, the memory pool."""
        if not (self.paused or self.throttled or self.reader.memory_blocked or self.closed) \
                and self.transport is not None:
            self.transport.resume_reading()

    def _wait_for_memory(self) -> None:
        """The pool refused the next request: read nothing more until requests in flight
        give memory back (the read already received waits in the reader)."""
        assert self.pool is not None and self.transport is not None
        self.transport.pause_reading()
        self.pool.when_available(self._memory_available)

    def _memory_available(self) -> None:
        # Called from inside MemoryPool.release, maybe in another connection's handling:
        # carry on from the event loop instead, where nothing is half done.
        self.loop.call_soon(self._memory_freed)

    def _memory_freed(self) -> None:
        if self.closed:
            return
        self._handle_frames()   # takes up the read the pool refused (or waits again)
        self._resume_reading()

    # -- request handling ----------------------------------------------------------------
    def abort(self) -> None:
        if not self.closed:
            self.closed = True
            if self.transport is not None:
                self.transport.abort()

    def _dispatch(self, frame: bytes | bytearray) -> None:
        """Runs the request's coroutine at once, in this read callback: most handlers never
        wait, and then neither a Task nor a trip through the event loop is needed, and the
        response is written right here when nothing is queued before it. A handler that
        does wait continues in a Task from where it stopped."""
        self.server.stats.requests += 1
        coro = self._process(frame) if self.pool is None else self._process_pooled(frame)
        # The request quota's broker time is measured only once some quota is configured.
        quotas = self.client_quotas
        timed = quotas is not None and quotas.active
        if timed:
            start = time.perf_counter()
        try:
            pending = coro.send(None)
        except StopIteration as e:
            if timed:
                self.busy_s += time.perf_counter() - start
            self._completed(e.value)
            return
        except Exception as e:  # outside the handler (decoding): close after earlier answers
            log.exception("Error processing a request from %s:%d", self.peer[0], self.peer[1])
            self._completed(e)
            return
        if timed:
            self.busy_s += time.perf_counter() - start
        self._flush()   # the responses before this one go first
        self.queue.append(self.loop.create_task(hand_over(coro, pending)))
        self._ensure_responder()

    def _completed(self, result: ProcessResult) -> None:
        if self.closed:
            return
        if self.queue or self._writing():
            self.queue.append(Ready(result))
            self._ensure_responder()
            return
        if result is None:
            return
        if isinstance(result, BaseException):
            self._flush()
            if isinstance(result, SendThenClose):   # its answer first, then close
                self.queue.append(Ready(result))
                self._ensure_responder()
                return
            if self._writing():   # close once the responses before it are written
                self.queue.append(Ready(result))
            else:
                self.abort()
            return
        batch = self.batch
        if batch is not None:
            batch.extend(result)
        else:
            self._write_inline(result)

    def _flush(self) -> None:
        batch = self.batch
        if batch:
            self.batch = []
            if not self.closed:
                self._write_inline(batch)

    def _write_inline(self, chunks: list[Chunk]) -> None:
        assert self.writer is not None
        try:
            rest = self.writer.write_now(chunks)
        except OSError as e:
            self._write_failed(e)
            return
        self.last_active = self.clock()
        if rest:
            self.response_task = self.loop.create_task(self._respond(rest))

    def _writing(self) -> bool:
        t = self.response_task
        return t is not None and not t.done()

    def _ensure_responder(self) -> None:
        if not self._writing():
            self.response_task = self.loop.create_task(self._respond(None))
        if len(self.queue) >= MAX_QUEUED_REQUESTS and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()

    def _write_failed(self, e: OSError) -> None:
        if e.errno not in (errno.EPIPE, errno.ECONNRESET, errno.EBADF):
            log.warning("Error writing to %s:%d: %s", self.peer[0], self.peer[1], e)
        self.abort()

    async def _process_pooled(self, frame: bytes | bytearray) -> ProcessResult:
        """``_process``, then the request's bytes go back to the memory pool (also when the
        connection goes away and its Task is cancelled)."""
        pool = self.pool
        assert pool is not None   # only called when the server has a memory pool
        try:
            return await self._process(frame)
        finally:
            pool.release(len(frame))

    async def _process(self, frame: bytes | bytearray) -> ProcessResult:
        """Decode, run the handler, encode. Returns response chunks, None (no response),
        or the exception that should close the connection. A handler that fails is
        answered with Kafka's error response (``kafpy.broker.error_responses``)."""
        apis = self.apis
        session = self.session
        sasl = self.sasl_session
        if sasl is not None and sasl.raw_tokens:
            return await raw_sasl_token(sasl, frame)
        try:
            header, request = codec.decode_request(frame)
        except UnsupportedVersion as e:
            hdr = getattr(e, "header", None)
            if hdr is not None and hdr.request_api_key == ApiKey.API_VERSIONS:
                return [codec.unsupported_api_versions_response(hdr.correlation_id, apis.version_ranges())]
            log.warning("Closing connection from %s:%d: %s", self.peer[0], self.peer[1], e)
            return e
        except ProtocolError as e:
            log.warning("Closing connection from %s:%d: invalid request: %s", self.peer[0], self.peer[1], e)
            return e
        api_key = header.request_api_key
        if sasl is not None and not sasl.admits(api_key):
            log.info("Closing connection from %s:%d: %s not allowed in SASL state %s (client %s)", self.peer[0],
                     self.peer[1], apis.name(api_key), sasl.state, header.client_id)
            refusal = illegal_sasl_state_response(api_key, header.request_api_version) \
                if sasl.answers_refusal() else None
            if refusal is not None:
                return SendThenClose(codec.encode_response_chunks(
                    api_key, header.request_api_version, header.correlation_id, refusal))
            return CloseConnection("request before authentication")
        handler = apis.handler_for(api_key, header.request_api_version)
        if handler is None:
            if api_key == ApiKey.API_VERSIONS:
                return [codec.unsupported_api_versions_response(header.correlation_id, apis.version_ranges())]
            err = UnsupportedVersion(api_key, header.request_api_version)
            log.warning("Closing connection from %s:%d: %s (client %s)", self.peer[0], self.peer[1], err,
                        header.client_id)
            return err
        ctx = RequestContext(self.services, header, self.peer[0], self.peer[1], self.id, self.listener,
                             session.principal if session is not None else ANONYMOUS, session)
        observer = self.observer
        started = time.perf_counter() if observer is not None else 0.0
        parked = 0.0   # when the handler first waited (Kafka's RemoteTimeMs starts there)
        try:
            call = handler.func(ctx, request)
            if type(call) is CoroutineType:
                # run to its first wait by hand, so that a handler which never waits costs no
                # clock read more; one that waits is timed from there
                try:
                    pending = call.send(None)
                except StopIteration as done:
                    response = done.value
                else:
                    if observer is not None:
                        parked = time.perf_counter()
                    response = await hand_over(call, pending)
            else:
                response = await call
        except asyncio.CancelledError:
            raise
        except CloseConnection as e:
            log.info("Closing connection from %s:%d (client %s): %s", self.peer[0], self.peer[1],
                     header.client_id, e)
            return e
        except Exception as e:  # a bug in a handler must not take the broker down
            log.exception("Error processing %s v%d from %s:%d (client %s)", apis.name(api_key),
                          header.request_api_version, self.peer[0], self.peer[1], header.client_id)
            if observer is not None:
                observe(observer, ctx, api_key, request, e, started, 0, parked)
            return error_answer(api_key, header, request, e)
        throttle_ms = 0
        quotas = self.client_quotas
        if quotas is not None and quotas.active:
            busy_s, self.busy_s = self.busy_s, 0.0
            throttle_ms = throttle_response(quotas, ctx, api_key, request, response, len(frame), busy_s,
                                            self.services.now_ms())
            if throttle_ms > 0:
                self.mute(throttle_ms)
        if observer is not None:
            observe(observer, ctx, api_key, request, response, started, throttle_ms, parked)
        if response is None:
            return None
        if isinstance(response, PreEncodedResponse):
            chunks = response.encode_chunks(header.request_api_version, header.correlation_id)
        else:
            chunks = codec.encode_response_chunks(api_key, header.request_api_version, header.correlation_id,
                                                  response)
        if sasl is not None and sasl.failed:
            return SendThenClose(chunks)
        return chunks

    def mute(self, throttle_ms: int) -> None:
        """Reads nothing more from this client for ``throttle_ms`` (a quota's throttle time);
        a longer throttle already running is kept."""
        if self.closed or self.transport is None:
            return
        if not self.throttled:
            self.throttled = True
            self.transport.pause_reading()
        until = self.loop.time() + throttle_ms / 1000
        if until > self._unmute_at:
            self._unmute_at = until
            self.loop.call_at(until, self._unmute, until)

    def _unmute(self, until: float) -> None:
        if self.closed or not self.throttled or until != self._unmute_at:
            return
        self.throttled = False
        self._handle_frames()   # requests read before the mute
        self._resume_reading()

    async def _respond(self, rest: list[Any] | None) -> None:
        """Writes queued responses in request order, first ``rest`` (what an inline write
        left). Responses that are ready together go out in one write."""
        writer = self.writer
        assert writer is not None
        queue = self.queue
        try:
            while True:
                if rest:
                    await writer.finish(rest)
                    rest = None
                    self.last_active = self.clock()
                if not queue:
                    return
                head = queue[0]
                if type(head) is not Ready and not head.done():
                    await head
                chunks: list[Chunk] = []
                close = False
                while queue:
                    head = queue[0]
                    if type(head) is Ready:
                        result = head.result
                    elif head.done():
                        result = head.result()
                    else:
                        break
                    queue.popleft()
                    if result is None:
                        continue
                    if isinstance(result, BaseException):
                        if isinstance(result, SendThenClose):
                            chunks.extend(result.chunks)
                        close = True
                        break
                    chunks.extend(result)
                if self.paused and len(queue) < MAX_QUEUED_REQUESTS // 2 and self.transport is not None:
                    self.paused = False
                    self._resume_reading()
                if chunks and not self.closed:
                    rest = writer.write_now(chunks)
                    self.last_active = self.clock()
                if close:
                    if rest:
                        await writer.finish(rest)
                    self.abort()
                    return
        except asyncio.CancelledError:
            pass
        except OSError as e:
            self._write_failed(e)

    async def drain(self) -> None:
        """Wait for requests already received to be answered (graceful shutdown)."""
        while (self.queue or self._writing()) and not self.closed:
            task = self.response_task
            if task is None or task.done():
                return
            try:
                await asyncio.wait_for(asyncio.shield(task), 30)
            except Exception:  # noqa: BLE001 - the response task reports its own failure; draining stops either way
                return
            await asyncio.sleep(0)


class SocketServer:
    """Listens on every configured listener; keeps the set of open connections.

    Made by the broker with what it needs and nothing more: the config (listeners,
    socket.request.max.bytes, socket.listen.backlog.size, connections.max.idle.ms, the
    connection limits), the API registry that dispatches requests, and ``services``, passed
    untouched to every ``RequestContext``. ``clock`` (monotonic seconds) times idle
    connections. With queued.max.request.bytes > 0 the requests received and not yet
    answered share that many bytes (``memory_pool``, Kafka's non-strict pool)."""

    def __init__(self, config: "KafkaConfig", apis: "ApiRegistry", services: "BrokerServices",
                 loop: asyncio.AbstractEventLoop, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.apis = apis
        self.services = services
        self.loop = loop
        self.clock = clock
        self.max_request_size: int = config["socket.request.max.bytes"]
        # SO_SNDBUF of every accepted socket and SO_RCVBUF of the listening ones (accepted
        # sockets inherit it), -1 for the OS's own autotuned sizes; read once, as Kafka does
        self.send_buffer_bytes: int = config["socket.send.buffer.bytes"]
        self.receive_buffer_bytes: int = config["socket.receive.buffer.bytes"]
        queued = config["queued.max.request.bytes"]
        # raises, as Kafka does at startup, when below socket.request.max.bytes
        self.memory_pool = MemoryPool(queued, self.max_request_size) if queued > 0 else None
        self.idle_s: float = config["connections.max.idle.ms"] / 1000
        self.connections: set[KafkaConnection] = set()
        self.bound_ports: dict[str, int] = {}
        self.stats = TrafficStats()
        # Every connection receives into this one buffer (see FrameReader): an idle
        # connection then holds no read buffer at all.
        self.scratch = bytearray(READ_BUFFER_SIZE)
        self.quotas = connection_quotas(config)
        self.acceptor = Acceptor(self.quotas, self.connections, self._serve, loop, clock)
        config.reconfigure_listeners.append(self._connection_limits_changed)
        # per listener name; raises ConfigError for a TLS listener without a usable keystore
        self.security: dict[str, ListenerSecurity] = {
            li.name: ListenerSecurity.from_config(config, li.name) for li in config.listeners}
        config.reconfigure_listeners.append(self._listener_stores_changed)
        self._idle_task: asyncio.Task | None = None
        # metrics.observer.RequestObserver: told of every request answered (None: no metrics)
        self._observer: "RequestObserver | None" = None

    @property
    def observer(self) -> "RequestObserver | None":
        """The per-request hook (metrics.observer), or None: then requests pay nothing for it."""
        return self._observer

    @observer.setter
    def observer(self, observer: "RequestObserver | None") -> None:
        # connections copy it when made (one attribute read per request); open ones are told
        self._observer = observer
        for c in self.connections:
            c.observer = observer

    def _connection_limits_changed(self) -> None:
        """max.connections, max.connections.per.ip and its overrides altered dynamically:
        new connections are held to the new limits (open ones are kept, as in Kafka), and
        connections waiting for a slot are admitted if the limit rose."""
        q = self.quotas
        new = (self.config["max.connections"], self.config["max.connections.per.ip"],
               parse_ip_overrides(self.config["max.connections.per.ip.overrides"]))
        if new != (q.max_connections, q.max_per_ip, q.per_ip_overrides):
            q.max_connections, q.max_per_ip, q.per_ip_overrides = new
            log.info("Connection limits now max.connections=%d, max.connections.per.ip=%d, overrides %s", *new)
            self.acceptor.limits_changed()

    def _listener_stores_changed(self) -> None:
        """A TLS listener's keystore or truststore altered dynamically: new connections
        get the new certificate (ssl_reconfig), open ones keep theirs, as in Kafka."""
        for name, sec in self.security.items():
            if sec.ssl_reconfig is None:
                continue
            try:   # checked before it was stored; a store changed on disk since then keeps the old one
                sec.ssl_reconfig.reconfigure(functools.partial(self.config.listener_config, name))
            except ConfigError as e:
                log.error("Listener %s keeps its TLS certificate: %s", name, e)

    async def _serve(self, listener: str, sock: socket.socket | None = None, host: str | None = None,
                     port: int | None = None) -> asyncio.AbstractServer:
        """Starts accepting on ``listener`` (a coroutine): on ``sock`` when it is already
        listening, else bound to ``host``:``port``."""
        backlog = max(self.config["socket.listen.backlog.size"], 128)
        ssl_context = self.security[listener].ssl_context
        if sock is not None:
            srv = await self.loop.create_server(lambda: KafkaConnection(self, listener), sock=sock,
                                                reuse_address=None, backlog=backlog, ssl=ssl_context)
        else:
            assert port is not None, "a listener without a socket is bound to its port"
            srv = await self.loop.create_server(lambda: KafkaConnection(self, listener), host=host, port=port,
                                                reuse_address=True, backlog=backlog, ssl=ssl_context)
        if self.receive_buffer_bytes != -1:
            # before any connection arrives: an accepted socket takes the listener's size,
            # and the TCP window scale offered in the handshake is chosen from it
            for listening in srv.sockets:
                listening.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.receive_buffer_bytes)
        return srv

    async def start(self) -> None:
        user_configs = self.services.user_configs
        for li in self.config.listeners:
            self.security[li.name].user_configs = user_configs
            srv = await self._serve(li.name, host=li.host or None, port=li.port)
            self.acceptor.add_server(li.name, srv)
            port = srv.sockets[0].getsockname()[1]  # type: ignore[attr-defined]  # asyncio's and uvloop's servers have sockets
            self.bound_ports[li.name] = port
            log.info("Awaiting socket connections on %s:%d (listener %s, %s)", li.host or "0.0.0.0", port, li.name,
                     self.security[li.name].protocol)
        self._idle_task = self.loop.create_task(self._close_idle())

    async def _close_idle(self) -> None:
        while True:
            await asyncio.sleep(min(30.0, max(self.idle_s / 4, 0.05)))
            self.close_idle_connections()

    def close_idle_connections(self) -> int:
        """Closes connections with nothing queued and no traffic for connections.max.idle.ms;
        returns how many."""
        now = self.clock()
        closed = 0
        for c in list(self.connections):
            if not c.closed and not c.queue and now - c.last_active > self.idle_s:
                log.debug("Closing idle connection %s from %s:%d", c.id, *c.peer)
                c.abort()
                closed += 1
        return closed

    async def stop_accepting(self) -> None:
        await self.acceptor.stop()
        if self._idle_task:
            self._idle_task.cancel()

    async def drain_and_close(self) -> None:
        await asyncio.gather(*(c.drain() for c in list(self.connections)), return_exceptions=True)
        for c in list(self.connections):
            c.abort()
        st = self.stats
        log.info("Served %d requests; sent %d bytes, %d of them by sendfile (zero-copy %s)", st.requests,
                 st.bytes_sent, st.sendfile_bytes, "on" if ZERO_COPY else "off")


def connection_quotas(config: "KafkaConfig") -> ConnectionQuotas:
    """The connection limits of ``config``: max.connections (and per listener),
    max.connections.per.ip and its overrides; the inter-broker listener is exempt from the
    broker-wide limit."""
    inter = config["inter.broker.listener.name"] or config["security.inter.broker.protocol"]
    return ConnectionQuotas(
        [li.name for li in config.listeners], max_connections=config["max.connections"],
        max_per_ip=config["max.connections.per.ip"],
        per_ip_overrides=parse_ip_overrides(config["max.connections.per.ip.overrides"]),
        listener_max=getattr(config, "listener_max_connections", {}), inter_broker_listener=inter)
