"""The socket server: accepts connections, frames requests, dispatches them, writes
responses in request order.

Reading uses a ``BufferedProtocol``: small requests are parsed out of one reusable buffer; a
large request (a big Produce) is received straight into its own bytearray, so its record
batches reach the log without another copy and can be rewritten in place.

Writing bypasses the transport: responses go out with ``os.writev`` and record data with
``os.sendfile`` on the socket's fd. uvloop implements neither ``loop.sendfile`` nor
``sock_sendfile`` (see DESIGN.md section 3), so we wait for writability ourselves with
``add_writer`` on a ``dup()`` of the socket fd (the transport owns the original fd). The
transport is never asked to write, so the two paths cannot interleave.

Requests on one connection are processed concurrently, but responses are written strictly
in the order the requests arrived (clients rely on it). A connection with too many requests
queued stops being read until its backlog drains.
"""
from __future__ import annotations

import asyncio
import errno
import itertools
import logging
import os
import socket
import struct
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from protocol import codec
from protocol.errors import ProtocolError, UnsupportedVersion

from broker.handler import CloseConnection, RequestContext

if TYPE_CHECKING:
    from broker.broker import Broker

log = logging.getLogger("kafka.network")

READ_BUFFER_SIZE = 256 * 1024
# KAFPY_ZERO_COPY=0 sends record data by reading it into memory first: only for measuring
# what sendfile gains (bench/fetch_zero_copy.py).
ZERO_COPY = os.environ.get("KAFPY_ZERO_COPY", "1") != "0"
MAX_QUEUED_REQUESTS = 100
API_VERSIONS_KEY = 18
_conn_ids = itertools.count()


class SocketWriter:
    """Writes byte chunks and file slices to a non-blocking socket fd, waiting for
    writability through the event loop. One writer per connection; calls are serialised by
    the connection's response loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int, stats: "TrafficStats") -> None:
        self.loop = loop
        self.fd = fd
        self.wait_fd = os.dup(fd)
        self.stats = stats

    def close(self) -> None:
        if self.wait_fd >= 0:
            try:
                self.loop.remove_writer(self.wait_fd)
            except Exception:
                pass
            os.close(self.wait_fd)
            self.wait_fd = -1

    async def _writable(self) -> None:
        fut = self.loop.create_future()
        self.loop.add_writer(self.wait_fd, lambda: fut.done() or fut.set_result(None))
        try:
            await fut
        finally:
            self.loop.remove_writer(self.wait_fd)

    async def write(self, chunks: list[Any]) -> None:
        pending: list[bytes | memoryview] = []
        for c in chunks:
            if isinstance(c, (bytes, bytearray, memoryview)):
                if len(c):
                    pending.append(c)
            elif not ZERO_COPY:
                pending.append(c.read_bytes())
            else:
                if pending:
                    await self._writev(pending)
                    pending = []
                await self._sendfile(c)
        if pending:
            await self._writev(pending)

    async def _writev(self, bufs: list[bytes | memoryview]) -> None:
        views = [memoryview(b) for b in bufs]
        while views:
            try:
                n = os.writev(self.fd, views[:1024])
            except BlockingIOError:
                await self._writable()
                continue
            except InterruptedError:
                continue
            self.stats.bytes_sent += n
            while n and views:
                if n >= len(views[0]):
                    n -= len(views[0])
                    views.pop(0)
                else:
                    views[0] = views[0][n:]
                    n = 0

    async def _sendfile(self, region: Any) -> None:
        size = region.size
        if size <= 0:
            return
        fd_in = region.fileno()
        pos = region.position
        remaining = size
        while remaining > 0:
            try:
                n = os.sendfile(self.fd, fd_in, pos, remaining)
            except BlockingIOError:
                await self._writable()
                continue
            except InterruptedError:
                continue
            if n == 0:
                # The file is shorter than promised (truncated under us): keep the frame
                # length honest; clients drop a partial trailing batch.
                log.warning("Record file shrank during a fetch; padding %d bytes", remaining)
                await self._writev([bytes(remaining)])
                return
            pos += n
            remaining -= n
            self.stats.sendfile_bytes += n
            self.stats.bytes_sent += n


class KafkaConnection(asyncio.BufferedProtocol):
    """One client connection."""

    def __init__(self, server: "SocketServer", listener: str) -> None:
        self.server = server
        self.broker = server.broker
        self.listener = listener
        self.loop = server.loop
        self.max_request = server.max_request_size
        self.transport: asyncio.Transport | None = None
        self.writer: SocketWriter | None = None
        self.buf = bytearray(READ_BUFFER_SIZE)
        self.view = memoryview(self.buf)
        self.start = 0
        self.end = 0
        self.big: bytearray | None = None   # a large frame being received in place
        self.big_got = 0
        self.queue: deque[asyncio.Future] = deque()
        self.response_task: asyncio.Task | None = None
        self.paused = False
        self.closed = False
        self.last_active = time.monotonic()
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
        self.writer = SocketWriter(self.loop, sock.fileno(), self.server.stats)
        self.server.connections.add(self)
        log.debug("Accepted connection %s from %s:%d", self.id, *self.peer)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.server.connections.discard(self)
        for fut in self.queue:
            fut.cancel()
        self.queue.clear()
        if self.response_task is not None:
            self.response_task.cancel()
        if self.writer is not None:
            self.writer.close()

    def get_buffer(self, sizehint: int) -> memoryview:
        if self.big is not None:
            return memoryview(self.big)[self.big_got:]
        if self.end == len(self.buf):
            self._compact()
        return self.view[self.end:]

    def _compact(self) -> None:
        n = self.end - self.start
        if self.start:
            self.buf[:n] = self.buf[self.start:self.end]
        self.start, self.end = 0, n

    def buffer_updated(self, nbytes: int) -> None:
        self.last_active = time.monotonic()
        if self.big is not None:
            self.big_got += nbytes
            if self.big_got == len(self.big):
                frame = self.big
                self.big = None
                self._dispatch(frame)
            return
        self.end += nbytes
        buf = self.buf
        while not self.closed:
            avail = self.end - self.start
            if avail < 4:
                break
            (size,) = struct.unpack_from(">i", buf, self.start)
            if size < 0 or size > self.max_request:
                log.warning("Closing connection from %s:%d: request size %d is outside 0..%d "
                            "(socket.request.max.bytes)", self.peer[0], self.peer[1], size, self.max_request)
                self.abort()
                return
            if avail - 4 >= size:
                s = self.start + 4
                frame = buf[s:s + size]
                self.start = s + size
                self._dispatch(frame)
                continue
            if size + 4 > len(buf):
                # Receive the rest of this large frame directly into its own buffer.
                have = avail - 4
                self.big = bytearray(size)
                self.big[:have] = buf[self.start + 4:self.end]
                self.big_got = have
                self.start = self.end = 0
                return
            break
        if self.start == self.end:
            self.start = self.end = 0

    def eof_received(self) -> bool | None:
        return None

    # -- request handling ----------------------------------------------------------------
    def abort(self) -> None:
        if not self.closed:
            self.closed = True
            if self.transport is not None:
                self.transport.abort()

    def _dispatch(self, frame: bytes | bytearray) -> None:
        self.server.stats.requests += 1
        fut = self.loop.create_task(self._process(frame))
        self.queue.append(fut)
        if self.response_task is None or self.response_task.done():
            self.response_task = self.loop.create_task(self._respond())
        if len(self.queue) >= MAX_QUEUED_REQUESTS and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()

    async def _process(self, frame: bytes | bytearray) -> Any:
        """Decode, run the handler, encode. Returns response chunks, None (no response),
        or the exception that should close the connection."""
        broker = self.broker
        try:
            header, request = codec.decode_request(frame)
        except UnsupportedVersion as e:
            hdr = getattr(e, "header", None)
            if hdr is not None and hdr.request_api_key == API_VERSIONS_KEY:
                return [codec.unsupported_api_versions_response(hdr.correlation_id, broker.apis.version_ranges())]
            log.warning("Closing connection from %s:%d: %s", self.peer[0], self.peer[1], e)
            return e
        except ProtocolError as e:
            log.warning("Closing connection from %s:%d: invalid request: %s", self.peer[0], self.peer[1], e)
            return e
        api_key = header.request_api_key
        handler = broker.apis.handler_for(api_key, header.request_api_version)
        if handler is None:
            if api_key == API_VERSIONS_KEY:
                return [codec.unsupported_api_versions_response(header.correlation_id, broker.apis.version_ranges())]
            err = UnsupportedVersion(api_key, header.request_api_version)
            log.warning("Closing connection from %s:%d: %s (client %s)", self.peer[0], self.peer[1], err,
                        header.client_id)
            return err
        ctx = RequestContext(broker, header, self.peer[0], self.peer[1], self.id, self.listener)
        try:
            response = await handler.func(ctx, request)
        except asyncio.CancelledError:
            raise
        except CloseConnection as e:
            log.info("Closing connection from %s:%d (client %s): %s", self.peer[0], self.peer[1],
                     header.client_id, e)
            return e
        except Exception as e:  # a bug in a handler must not take the broker down
            log.exception("Error processing %s v%d from %s:%d (client %s)", broker.apis.name(api_key),
                          header.request_api_version, self.peer[0], self.peer[1], header.client_id)
            return e
        if response is None:
            return None
        return codec.encode_response_chunks(api_key, header.request_api_version, header.correlation_id, response)

    async def _respond(self) -> None:
        writer = self.writer
        assert writer is not None
        try:
            while self.queue:
                fut = self.queue[0]
                result = await fut
                self.queue.popleft()
                if self.paused and len(self.queue) < MAX_QUEUED_REQUESTS // 2 and self.transport is not None:
                    self.paused = False
                    self.transport.resume_reading()
                if result is None:
                    continue
                if isinstance(result, BaseException):
                    self.abort()
                    return
                await writer.write(result)
                self.last_active = time.monotonic()
        except asyncio.CancelledError:
            pass
        except OSError as e:
            if e.errno not in (errno.EPIPE, errno.ECONNRESET, errno.EBADF):
                log.warning("Error writing to %s:%d: %s", self.peer[0], self.peer[1], e)
            self.abort()

    async def drain(self) -> None:
        """Wait for requests already received to be answered (graceful shutdown)."""
        while self.queue and not self.closed:
            try:
                await asyncio.wait_for(asyncio.shield(self.queue[-1]), 30)
            except Exception:
                return
            await asyncio.sleep(0)


class TrafficStats:
    """Byte counters for the whole server: everything sent, and the part sent by sendfile."""

    __slots__ = ("bytes_sent", "sendfile_bytes", "requests")

    def __init__(self) -> None:
        self.bytes_sent = 0
        self.sendfile_bytes = 0
        self.requests = 0


class SocketServer:
    """Listens on every configured listener; keeps the set of open connections."""

    def __init__(self, broker: "Broker") -> None:
        self.broker = broker
        self.loop = broker.loop
        self.max_request_size = broker.config["socket.request.max.bytes"]
        self.connections: set[KafkaConnection] = set()
        self.servers: list[asyncio.AbstractServer] = []
        self.bound_ports: dict[str, int] = {}
        self.stats = TrafficStats()
        self._idle_task: asyncio.Task | None = None

    async def start(self) -> None:
        cfg = self.broker.config
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
        idle_s = self.broker.config["connections.max.idle.ms"] / 1000
        while True:
            await asyncio.sleep(min(30.0, max(idle_s / 4, 0.05)))
            now = time.monotonic()
            for c in list(self.connections):
                if not c.queue and now - c.last_active > idle_s:
                    log.debug("Closing idle connection %s from %s:%d", c.id, *c.peer)
                    c.abort()

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
