"""Writing responses on a TLS connection, where zero-copy cannot work.

``os.sendfile`` copies file pages straight to the socket, but TLS encrypts in user space (in
the ``ssl`` module, through the event loop's SSL transport), so on SSL and SASL_SSL
listeners the broker reads each record slice of a Fetch response into memory
(``slice.read_bytes()``, one ``pread`` per partition slice, no per-record work) and writes
it through the transport, which encrypts and sends it. The cost is one read copy plus the
encryption; bench/security.py measures it against PLAINTEXT.

Same interface as ``kafpy.broker.server.SocketWriter`` (``write_now``, ``finish``, ``write``,
``close``), so the connection need not know which it has. Back-pressure: once the
transport's buffer passes its high-water mark (``pause_writing``), ``write_now`` hands the
rest back and ``finish`` waits for ``resume_writing``.
"""
from __future__ import annotations

import asyncio

from kafpy.broker.socket_writer import Chunk, TrafficStats

_BYTES = (bytes, bytearray, memoryview)


class TransportWriter:
    def __init__(self, loop: asyncio.AbstractEventLoop, transport: asyncio.Transport, stats: TrafficStats) -> None:
        self.loop = loop
        self.transport = transport
        self.stats = stats
        self._resumed: asyncio.Future | None = None
        self.paused = False

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)

    def close(self) -> None:
        self.resume_writing()

    def write_now(self, chunks: list[Chunk]) -> list[Chunk] | None:
        transport = self.transport
        if transport.is_closing():
            raise BrokenPipeError("connection closed")
        stats = self.stats
        for i, c in enumerate(chunks):
            if self.paused:
                return list(chunks[i:])
            data = c if isinstance(c, _BYTES) else c.read_bytes()
            transport.write(data)
            stats.bytes_sent += len(data)
        return None

    async def finish(self, rest: list[Chunk] | None) -> None:
        while rest:
            if self.paused:
                self._resumed = self.loop.create_future()
                await self._resumed
            rest = self.write_now(rest)

    async def write(self, chunks: list[Chunk]) -> None:
        await self.finish(self.write_now(chunks))
