"""Writing responses to a client socket without the transport: ``os.writev`` for bytes,
``os.sendfile`` for record slices, waiting for writability through the event loop.

Used by the socket server (one ``SocketWriter`` per connection; ``TrafficStats`` for the
whole server) and by benchmarks that drive a connection in process. Holds nothing on disk.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import os
import socket
from typing import Any, Union

from kafpy.storage.file_records import FileRecordsSlice

log = logging.getLogger("kafka.network")

# A piece of a response frame: bytes, or a region of a segment file (sent with sendfile).
Chunk = Union[bytes, bytearray, memoryview, FileRecordsSlice]

# KAFPY_ZERO_COPY=0 sends record data by reading it into memory first: only for measuring
# what sendfile gains (bench/fetch_zero_copy.py).
ZERO_COPY = os.environ.get("KAFPY_ZERO_COPY", "1") != "0"
IOV_MAX = 1024
# KAFPY_TCP_CORK=1 corks the socket around responses with record slices. Off by default:
# on loopback it cost more system time (two setsockopt calls per response, and uvloop's
# socket wrapper adds a getsockname to each) than the fewer packets saved.
TCP_CORK = os.environ.get("KAFPY_TCP_CORK", "0") == "1"


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

    def __init__(self, loop: asyncio.AbstractEventLoop, sock: socket.socket, stats: "TrafficStats",
                 cork: bool = TCP_CORK) -> None:
        self.loop = loop
        self.sock = sock
        # Writes go to the transport's own descriptor: the transport closes it only after
        # calling connection_lost (uvloop and asyncio's selector loop both), and
        # connection_lost closes this writer first, so a number reused by a newer
        # connection is never written to. Waiting for writability needs a descriptor of our
        # own (the event loop already polls the transport's), made the first time a
        # response does not fit the socket buffer: most connections never need one, and an
        # idle connection then costs one descriptor, not two.
        self.fd = sock.fileno()
        self.wait_fd = -1
        self.stats = stats
        self.cork = cork and hasattr(socket, "TCP_CORK")
        self.corked = False

    def close(self) -> None:
        self.fd = -1
        if self.wait_fd >= 0:
            try:
                self.loop.remove_writer(self.wait_fd)
            except Exception:  # noqa: BLE001,S110 - the fd is closed next: a loop that no longer watches it is the goal
                pass
            os.close(self.wait_fd)
            self.wait_fd = -1

    async def write(self, chunks: list[Any]) -> None:
        await self.finish(self.write_now(chunks))

    async def finish(self, rest: list[Any] | None) -> None:
        """Writes ``rest`` (what ``write_now`` left) as the socket drains.

        The writes happen in the event loop's writability callback, which stays registered
        until the last byte is out: a large fetch response through a small send buffer
        (``socket.send.buffer.bytes``) takes dozens of rounds, and each round costs one
        callback instead of a future, a task step and a re-registration."""
        if not rest:
            return
        if self.wait_fd < 0:
            if self.fd < 0:
                raise OSError(errno.EBADF, "connection closed")
            self.wait_fd = os.dup(self.fd)
        fut = self.loop.create_future()
        pending = rest

        def on_writable() -> None:
            nonlocal pending
            if fut.done():
                return
            try:
                left = self.write_now(pending)
            except OSError as e:
                fut.set_exception(e)
                return
            if left is None:
                fut.set_result(None)
            else:
                pending = left

        self.loop.add_writer(self.wait_fd, on_writable)
        try:
            await fut
        finally:
            if self.wait_fd >= 0:
                self.loop.remove_writer(self.wait_fd)

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


class TrafficStats:
    """Byte counters for the whole server: everything sent, and the part sent by sendfile."""

    __slots__ = ("bytes_sent", "sendfile_bytes", "requests")

    def __init__(self) -> None:
        self.bytes_sent = 0
        self.sendfile_bytes = 0
        self.requests = 0
