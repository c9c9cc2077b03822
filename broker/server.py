"""The socket server: accepts connections, frames requests, dispatches them, writes
responses in request order.

Reading uses a ``BufferedProtocol`` driving ``protocol.framing.FrameReader`` (the same
reader the broker-to-broker client uses): small requests are parsed out of one reusable
buffer; a large request (a big Produce) is received straight into its own bytearray, so its
record batches reach the log without another copy and can be rewritten in place.

Writing bypasses the transport: responses go out with ``os.writev`` and record data with
``os.sendfile`` on a ``dup()`` of the socket's fd (the transport owns the original, and may
close it while a response is being finished). uvloop implements neither ``loop.sendfile``
nor ``sock_sendfile`` (both raise NotImplementedError, even with ``fallback=True``), so we
wait for writability ourselves with ``add_writer`` on that dup. The transport is never asked to write, so the two paths cannot
interleave.

Each request's coroutine is started right in the read callback; most handlers finish
without waiting, and their response is written there and then when nothing is queued ahead
of it (no Task, no extra trip through the event loop). A handler that waits (a long-polling
Fetch, a JoinGroup) goes on in a Task. Responses are written strictly in the order the
requests arrived (clients rely on it); those that are ready together go out in one
``writev``. A connection with too many requests queued stops being read until its backlog
drains; so does one whose next request does not fit in ``queued.max.request.bytes``
(Kafka's memory pool, off by default) until requests in flight release theirs.
"""
from __future__ import annotations

import asyncio
import errno
import itertools
import logging
import os
import socket
import time
import types
from collections import deque
from typing import TYPE_CHECKING, Any, Callable

from protocol import codec
from protocol.errors import FrameTooLarge, ProtocolError, UnsupportedVersion
from protocol.framing import FrameReader
from protocol.memory_pool import MemoryPool

from broker.handler import CloseConnection, RequestContext

if TYPE_CHECKING:
    from broker.apis import ApiRegistry
    from broker.config import KafkaConfig

log = logging.getLogger("kafka.network")

READ_BUFFER_SIZE = 256 * 1024
# KAFPY_ZERO_COPY=0 sends record data by reading it into memory first: only for measuring
# what sendfile gains (bench/fetch_zero_copy.py).
ZERO_COPY = os.environ.get("KAFPY_ZERO_COPY", "1") != "0"
IOV_MAX = 1024
# KAFPY_TCP_CORK=1 corks the socket around responses with record slices. Off by default:
# on loopback it cost more system time (two setsockopt calls per response, and uvloop's
# socket wrapper adds a getsockname to each) than the fewer packets saved.
TCP_CORK = os.environ.get("KAFPY_TCP_CORK", "0") == "1"
MAX_QUEUED_REQUESTS = 100
API_VERSIONS_KEY = 18
_conn_ids = itertools.count()


class _FilePart:
    """What is left to send of a record slice: fd, position, bytes remaining."""

    __slots__ = ("fd", "position", "size")

    def __init__(self, fd: int, position: int, size: int) -> None:
        self.fd = fd
        self.position = position
        self.size = size


class SocketWriter:
    """Writes byte chunks and file slices to a non-blocking socket fd, waiting for
    writability through the event loop. One writer per connection; calls are serialised by
    the connection (an inline write only when no response task is writing).

    ``write_now`` writes what the socket takes without waiting and returns the rest, so a
    response computed synchronously goes out from the read callback with no task at all.
    Byte chunks are gathered into one ``writev`` up to the next file slice. With ``cork``
    a response with file slices is sent with ``TCP_CORK`` set, so its small headers and the
    sendfile data leave in full-sized segments instead of one packet per piece."""

    def __init__(self, loop: asyncio.AbstractEventLoop, sock: Any, stats: "TrafficStats",
                 cork: bool = TCP_CORK) -> None:
        self.loop = loop
        self.sock = sock
        # Our own descriptor of the socket, for writing and for waiting: the transport may
        # close its fd (abort) while a response is still being finished, and that number
        # could then be reused by another connection.
        self.fd = self.wait_fd = os.dup(sock.fileno())
        self.stats = stats
        self.cork = cork and hasattr(socket, "TCP_CORK")
        self.corked = False

    def close(self) -> None:
        if self.wait_fd >= 0:
            try:
                self.loop.remove_writer(self.wait_fd)
            except Exception:
                pass
            os.close(self.wait_fd)
            self.fd = self.wait_fd = -1

    async def _writable(self) -> None:
        fut = self.loop.create_future()
        self.loop.add_writer(self.wait_fd, lambda: fut.done() or fut.set_result(None))
        try:
            await fut
        finally:
            self.loop.remove_writer(self.wait_fd)

    async def write(self, chunks: list[Any]) -> None:
        rest = self.write_now(chunks)
        while rest:
            await self._writable()
            rest = self.write_now(rest)

    async def finish(self, rest: list[Any]) -> None:
        """Waits for writability and writes ``rest`` (what ``write_now`` left)."""
        while rest:
            await self._writable()
            rest = self.write_now(rest)

    def _set_cork(self, on: bool) -> None:
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1 if on else 0)
        except OSError:
            self.cork = False   # not TCP (a Unix socket in tests): nothing to cork
        self.corked = on

    def write_now(self, chunks: list[Any]) -> list[Any] | None:
        """Writes as much of ``chunks`` as the socket takes now; returns None when all is
        written, else the unwritten rest (to pass back here once writable). Raises OSError
        when the connection is broken."""
        fd = self.fd
        stats = self.stats
        i = 0
        n_chunks = len(chunks)
        cork = self.cork
        while i < n_chunks:
            # gather byte chunks up to the next file slice
            j = i
            while j < n_chunks and isinstance(chunks[j], (bytes, bytearray, memoryview)):
                j += 1
            if j > i:
                if cork and not self.corked and j < n_chunks:
                    self._set_cork(True)
                bufs = chunks[i:j] if (i or j < n_chunks) else chunks
                k = self._writev(bufs)
                if k is not None:
                    return list(bufs[k:]) + list(chunks[j:])
                i = j
                continue
            c = chunks[i]
            if not ZERO_COPY and not isinstance(c, _FilePart):
                chunks = list(chunks)
                chunks[i] = c.read_bytes()
                continue
            if isinstance(c, _FilePart):
                part = c
            else:
                size = c.size
                if size <= 0:
                    i += 1
                    continue
                part = _FilePart(c.fileno(), c.position, size)
            if cork and not self.corked:
                self._set_cork(True)
            while part.size > 0:
                try:
                    n = os.sendfile(fd, part.fd, part.position, part.size)
                except BlockingIOError:
                    return [part] + list(chunks[i + 1:])
                except InterruptedError:
                    continue
                if n == 0:
                    # The file is shorter than promised (truncated under us): keep the frame
                    # length honest; clients drop a partial trailing batch.
                    log.warning("Record file shrank during a fetch; padding %d bytes", part.size)
                    return [bytes(part.size)] + list(chunks[i + 1:])
                part.position += n
                part.size -= n
                stats.sendfile_bytes += n
                stats.bytes_sent += n
            i += 1
        if self.corked:
            self._set_cork(False)
        return None

    def _writev(self, bufs: list[Any]) -> int | None:
        """Writes ``bufs``; None when all went out, else the index of the first one not
        (completely) written, which is replaced in ``bufs`` by its unwritten tail."""
        fd = self.fd
        start = 0
        total = len(bufs)
        while start < total:
            batch = bufs[start:start + IOV_MAX] if (start or total > IOV_MAX) else bufs
            try:
                n = os.writev(fd, batch)
            except BlockingIOError:
                return start
            except InterruptedError:
                continue
            self.stats.bytes_sent += n
            for b in batch:
                ln = len(b)
                if n >= ln:
                    n -= ln
                    start += 1
                else:
                    bufs[start] = memoryview(b)[n:]
                    return start
        return None


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
        self.reader = FrameReader(server.max_request_size, READ_BUFFER_SIZE, server.memory_pool)
        self.queue: deque[Any] = deque()   # Tasks still running and _Ready results, in request order
        self.response_task: asyncio.Task | None = None
        self.paused = False  # too many requests queued
        self.muted = False  # the memory pool refused the next request
        self.closed = False
        self.last_active = self.clock()
        self.id = f"conn-{next(_conn_ids)}"
        self.peer = ("?", 0)

    # -- transport callbacks -------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        peer = transport.get_extra_info("peername") or ("?", 0)
        self.peer = (peer[0], peer[1])
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        self.writer = SocketWriter(self.loop, sock, self.server.stats)
        self.server.connections.add(self)
        log.debug("Accepted connection %s from %s:%d", self.id, *self.peer)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.server.connections.discard(self)
        for fut in self.queue:
            if type(fut) is not _Ready:
                fut.cancel()
        self.queue.clear()
        if self.response_task is not None:
            self.response_task.cancel()
        if self.writer is not None:
            self.writer.close()
        self.reader.close()
        if self.muted:
            self.server.memory_pool.forget(self._memory_freed)

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.reader.get_buffer(sizehint)

    def buffer_updated(self, nbytes: int) -> None:
        self.last_active = self.clock()
        self.reader.buffer_updated(nbytes)
        self._read_frames()

    def _read_frames(self) -> None:
        reader = self.reader
        try:
            while not self.closed:
                frame = reader.next_frame()
                if frame is None:
                    if reader.memory_blocked:
                        self._mute()
                    return
                self._dispatch(frame)
        except FrameTooLarge as e:
            log.warning("Closing connection from %s:%d: request size %d is outside 0..%d "
                        "(socket.request.max.bytes)", self.peer[0], self.peer[1], e.size, e.limit)
            self.abort()

    def eof_received(self) -> bool | None:
        return None

    def _mute(self) -> None:
        """No memory for the next request: stop reading until requests in flight free some."""
        if not self.muted and self.transport is not None:
            self.muted = True
            if not self.paused:
                self.transport.pause_reading()
        self.server.memory_pool.when_available(self._memory_freed)

    def _memory_freed(self) -> None:
        if self.closed:
            return
        self._read_frames()
        if self.muted and not self.reader.memory_blocked and self.transport is not None:
            self.muted = False
            if not self.paused:
                self.transport.resume_reading()

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
        coro = self._process(frame) if self.server.memory_pool is None else self._process_pooled(frame)
        try:
            pending = coro.send(None)
        except StopIteration as e:
            self._completed(e.value)
            return
        except Exception as e:  # outside the handler (decoding): close after earlier answers
            log.exception("Error processing a request from %s:%d", self.peer[0], self.peer[1])
            self._completed(e)
            return
        if getattr(pending, "_asyncio_future_blocking", False):
            # As a Task does on taking the future; another coroutine awaiting the same
            # future before our Task runs would otherwise fail.
            pending._asyncio_future_blocking = False
        self.queue.append(self.loop.create_task(_resume(coro, pending)))
        self._ensure_responder()

    def _completed(self, result: Any) -> None:
        if self.closed:
            return
        if self.queue or self._writing():
            self.queue.append(_Ready(result))
            self._ensure_responder()
            return
        if result is None:
            return
        if isinstance(result, BaseException):
            self.abort()
            return
        assert self.writer is not None
        try:
            rest = self.writer.write_now(result)
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

    async def _process_pooled(self, frame: bytearray) -> Any:
        """``_process``, then the request's bytes go back to the memory pool."""
        size = len(frame)
        try:
            return await self._process(frame)
        finally:
            self.server.memory_pool.release(size)

    async def _process(self, frame: bytes | bytearray) -> Any:
        """Decode, run the handler, encode. Returns response chunks, None (no response),
        or the exception that should close the connection."""
        apis = self.apis
        try:
            header, request = codec.decode_request(frame)
        except UnsupportedVersion as e:
            hdr = getattr(e, "header", None)
            if hdr is not None and hdr.request_api_key == API_VERSIONS_KEY:
                return [codec.unsupported_api_versions_response(hdr.correlation_id, apis.version_ranges())]
            log.warning("Closing connection from %s:%d: %s", self.peer[0], self.peer[1], e)
            return e
        except ProtocolError as e:
            log.warning("Closing connection from %s:%d: invalid request: %s", self.peer[0], self.peer[1], e)
            return e
        api_key = header.request_api_key
        handler = apis.handler_for(api_key, header.request_api_version)
        if handler is None:
            if api_key == API_VERSIONS_KEY:
                return [codec.unsupported_api_versions_response(header.correlation_id, apis.version_ranges())]
            err = UnsupportedVersion(api_key, header.request_api_version)
            log.warning("Closing connection from %s:%d: %s (client %s)", self.peer[0], self.peer[1], err,
                        header.client_id)
            return err
        ctx = RequestContext(self.services, header, self.peer[0], self.peer[1], self.id, self.listener)
        try:
            response = await handler.func(ctx, request)
        except asyncio.CancelledError:
            raise
        except CloseConnection as e:
            log.info("Closing connection from %s:%d (client %s): %s", self.peer[0], self.peer[1],
                     header.client_id, e)
            return e
        except Exception as e:  # a bug in a handler must not take the broker down
            log.exception("Error processing %s v%d from %s:%d (client %s)", apis.name(api_key),
                          header.request_api_version, self.peer[0], self.peer[1], header.client_id)
            return e
        if response is None:
            return None
        return codec.encode_response_chunks(api_key, header.request_api_version, header.correlation_id, response)

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
                if type(head) is not _Ready and not head.done():
                    await head
                chunks: list[Any] = []
                close = False
                while queue:
                    head = queue[0]
                    if type(head) is _Ready:
                        result = head.result
                    elif head.done():
                        result = head.result()
                    else:
                        break
                    queue.popleft()
                    if result is None:
                        continue
                    if isinstance(result, BaseException):
                        close = True
                        break
                    chunks.extend(result)
                if self.paused and len(queue) < MAX_QUEUED_REQUESTS // 2 and self.transport is not None:
                    self.paused = False
                    if not self.muted:
                        self.transport.resume_reading()
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
            except Exception:
                return
            await asyncio.sleep(0)


class _Ready:
    """A response computed before the ones ahead of it were written."""

    __slots__ = ("result",)

    def __init__(self, result: Any) -> None:
        self.result = result


@types.coroutine
def _continue(coro: Any, pending: Any) -> Any:
    """Drives ``coro`` on from its first suspension: re-yields what it was waiting on to the
    Task, passes the Task's wake-ups (and cancellation) back in."""
    if getattr(pending, "_asyncio_future_blocking", None) is not None:
        # _dispatch cleared the flag; the Task takes the yield as a future only when set.
        pending._asyncio_future_blocking = True
    try:
        while True:
            try:
                value = yield pending
            except BaseException as e:
                pending = coro.throw(e)
            else:
                pending = coro.send(value)
    except StopIteration as e:
        return e.value


async def _resume(coro: Any, pending: Any) -> Any:
    return await _continue(coro, pending)


class TrafficStats:
    """Byte counters for the whole server: everything sent, and the part sent by sendfile."""

    __slots__ = ("bytes_sent", "sendfile_bytes", "requests")

    def __init__(self) -> None:
        self.bytes_sent = 0
        self.sendfile_bytes = 0
        self.requests = 0


class SocketServer:
    """Listens on every configured listener; keeps the set of open connections.

    Made by the broker with what it needs and nothing more: the config (listeners,
    socket.request.max.bytes, socket.listen.backlog.size, connections.max.idle.ms), the API
    registry that dispatches requests, and ``services``, passed untouched to every
    ``RequestContext``. ``clock`` (monotonic seconds) times idle connections. With
    queued.max.request.bytes > 0, the requests received and not yet answered share that
    many bytes (``memory_pool``)."""

    def __init__(self, config: "KafkaConfig", apis: "ApiRegistry", services: object,
                 loop: asyncio.AbstractEventLoop, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.apis = apis
        self.services = services
        self.loop = loop
        self.clock = clock
        self.max_request_size: int = config["socket.request.max.bytes"]
        queued = config["queued.max.request.bytes"]
        # Kafka's server memory pool; none (unbounded) unless queued.max.request.bytes > 0
        self.memory_pool = MemoryPool(queued, self.max_request_size) if queued > 0 else None
        self.idle_s: float = config["connections.max.idle.ms"] / 1000
        self.connections: set[KafkaConnection] = set()
        self.servers: list[asyncio.AbstractServer] = []
        self.bound_ports: dict[str, int] = {}
        self.stats = TrafficStats()
        self._idle_task: asyncio.Task | None = None

    async def start(self) -> None:
        cfg = self.config
        for li in cfg.listeners:
            host = li.host or None
            srv = await self.loop.create_server(
                lambda name=li.name: KafkaConnection(self, name), host=host, port=li.port,
                reuse_address=True, backlog=max(cfg["socket.listen.backlog.size"], 128))
            self.servers.append(srv)
            port = srv.sockets[0].getsockname()[1]
            self.bound_ports[li.name] = port
            log.info("Awaiting socket connections on %s:%d (listener %s)", li.host or "0.0.0.0", port, li.name)
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
        for srv in self.servers:
            srv.close()
        for srv in self.servers:
            try:
                await asyncio.wait_for(srv.wait_closed(), 1)
            except Exception:
                pass
        if self._idle_task:
            self._idle_task.cancel()

    async def drain_and_close(self) -> None:
        await asyncio.gather(*(c.drain() for c in list(self.connections)), return_exceptions=True)
        for c in list(self.connections):
            c.abort()
        st = self.stats
        log.info("Served %d requests; sent %d bytes, %d of them by sendfile (zero-copy %s)", st.requests,
                 st.bytes_sent, st.sendfile_bytes, "on" if ZERO_COPY else "off")
