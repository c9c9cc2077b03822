"""Kafka's length-prefixed framing: a 4-byte big-endian size, then that many bytes.

Who may call it: the broker's socket server (requests in), the broker-to-broker client
(responses in), clients in tests and tools. No I/O here: bytes go in, whole frames come
out. The limit is the caller's (the broker's ``socket.request.max.bytes``, default
104857600); a size prefix above it (or negative) raises ``FrameTooLarge`` before any
buffer is sized by it.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from protocol.errors import FrameTooLarge, TruncatedFrame

if TYPE_CHECKING:
    from protocol.memory_pool import MemoryPool

__all__ = ["DEFAULT_MAX_FRAME", "DEFAULT_BUFFER_SIZE", "SIZE_PREFIX", "read_size", "frame", "split_frame",
           "FrameReader"]

DEFAULT_MAX_FRAME = 104857600
DEFAULT_BUFFER_SIZE = 256 * 1024
INITIAL_BUFFER_SIZE = 8 * 1024  # an idle connection holds this much; a busy one grows to buffer_size
SIZE_PREFIX = 4
_SIZE = struct.Struct(">i")


def read_size(prefix: bytes | bytearray | memoryview, limit: int = DEFAULT_MAX_FRAME) -> int:
    """The frame size announced by a 4-byte prefix; ``FrameTooLarge`` if negative or over ``limit``."""
    if len(prefix) < SIZE_PREFIX:
        raise TruncatedFrame("size prefix needs 4 bytes")
    (size,) = _SIZE.unpack_from(prefix, 0)
    if size < 0 or size > limit:
        raise FrameTooLarge(size, limit)
    return size


def frame(payload: bytes | bytearray | memoryview) -> bytes:
    """``payload`` with its size prefix."""
    return _SIZE.pack(len(payload)) + bytes(payload)


def split_frame(data: bytes | bytearray | memoryview, limit: int = DEFAULT_MAX_FRAME) -> memoryview:
    """The payload of one whole size-prefixed frame; ``TruncatedFrame`` if ``data`` is shorter."""
    size = read_size(data, limit)
    if len(data) < SIZE_PREFIX + size:
        raise TruncatedFrame(f"frame announces {size} bytes, {len(data) - SIZE_PREFIX} present")
    return memoryview(data)[SIZE_PREFIX:SIZE_PREFIX + size]


class FrameReader:
    """Splits a byte stream into frame payloads, shaped for ``asyncio.BufferedProtocol``.

    The transport receives straight into ``get_buffer()``, reports the count with
    ``buffer_updated(n)``, and the caller then takes frames with ``next_frame()`` until it
    returns None (it must do so before asking for the next buffer). Small frames are read
    into one reusable buffer (8 KiB, growing to ``buffer_size`` bytes once filled) and returned as a ``bytearray`` copy
    of their payload (the caller may keep it; record slices decoded from it stay valid). A
    frame larger than that buffer gets a ``bytearray`` of its own as soon as its prefix is
    read, and the rest of it is received directly into it: a big Produce or Fetch response
    is copied once, out of the first read, never again.

    ``feed(data)`` is the same for callers that are handed bytes (tests, plain protocols).
    One reader per connection; not thread-safe.

    With a ``pool`` (the broker's ``queued.max.request.bytes``), each frame's size is taken
    from it before the frame is held (a large one: before its buffer exists); the caller
    owns every frame returned and gives ``len(frame)`` back when done with it. While the pool
    refuses, ``next_frame()`` returns None and ``memory_blocked`` is true: stop reading, and
    call ``next_frame()`` again once the pool has memory. ``close()`` gives back what a frame
    still incomplete holds.
    """

    __slots__ = ("limit", "pool", "memory_blocked", "_max", "_buf", "_view", "_start", "_end", "_big",
                 "_big_got")

    def __init__(self, limit: int = DEFAULT_MAX_FRAME, buffer_size: int = DEFAULT_BUFFER_SIZE,
                 pool: "MemoryPool | None" = None) -> None:
        self.limit = limit
        self.pool = pool
        self.memory_blocked = False
        self._max = max(buffer_size, SIZE_PREFIX)
        # Small at first, as thousands of idle connections must not hold buffer_size each.
        self._buf = bytearray(min(self._max, max(INITIAL_BUFFER_SIZE, SIZE_PREFIX)))
        self._view = memoryview(self._buf)
        self._start = 0   # first unconsumed byte in _buf
        self._end = 0     # end of the received bytes in _buf
        self._big: bytearray | None = None   # a large frame being received in place
        self._big_got = 0

    def get_buffer(self, sizehint: int = -1) -> memoryview:
        """Where the next received bytes go (never empty)."""
        big = self._big
        if big is not None:
            return memoryview(big)[self._big_got:]
        if self._end == len(self._buf):
            n = self._end - self._start
            if len(self._buf) < self._max:  # it filled up: a busy connection, grow
                grown = bytearray(min(len(self._buf) * 4, self._max))
                grown[:n] = self._view[self._start:self._end]
                self._buf, self._view = grown, memoryview(grown)
            elif self._start:
                self._buf[:n] = self._buf[self._start:self._end]
            self._start, self._end = 0, n
        return self._view[self._end:]

    def buffer_updated(self, nbytes: int) -> None:
        """``nbytes`` were written at the start of the last ``get_buffer()``."""
        if self._big is not None:
            self._big_got += nbytes
        else:
            self._end += nbytes

    def next_frame(self) -> bytearray | None:
        """The next whole frame's payload, or None until more bytes arrive.

        Raises ``FrameTooLarge`` for a size prefix outside 0..limit; the stream cannot be
        read further after that."""
        big = self._big
        if big is not None:
            if self._big_got < len(big):
                return None
            self._big = None
            return big
        start = self._start
        avail = self._end - start
        if avail < SIZE_PREFIX:
            if not avail:
                self._start = self._end = 0
            return None
        buf = self._buf
        (size,) = _SIZE.unpack_from(buf, start)
        if size < 0 or size > self.limit:
            raise FrameTooLarge(size, self.limit)
        whole = avail - SIZE_PREFIX >= size
        if self.pool is not None and (whole or size + SIZE_PREFIX > len(buf)):
            self.memory_blocked = not self.pool.try_allocate(size)
            if self.memory_blocked:
                return None
        if whole:
            s = start + SIZE_PREFIX
            self._start = s + size
            return buf[s:s + size]
        if size + SIZE_PREFIX > len(buf):
            # Receive the rest of this large frame directly into its own buffer.
            have = avail - SIZE_PREFIX
            big = self._big = bytearray(size)
            big[:have] = self._view[start + SIZE_PREFIX:self._end]
            self._big_got = have
            self._start = self._end = 0
        return None

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytearray]:
        """Takes ``data`` (copied in); returns every frame it completes, in order."""
        frames: list[bytearray] = []
        src = memoryview(data)
        pos = 0
        total = len(src)
        while True:
            f = self.next_frame()
            while f is not None:
                frames.append(f)
                f = self.next_frame()
            if pos >= total:
                return frames
            dst = self.get_buffer(total - pos)
            n = min(len(dst), total - pos)
            dst[:n] = src[pos:pos + n]
            self.buffer_updated(n)
            pos += n

    def close(self) -> None:
        """The connection is gone: give the pool back what an incomplete large frame holds."""
        if self._big is not None and self.pool is not None:
            self.pool.release(len(self._big))
        self._big = None

    @property
    def buffered(self) -> int:
        """Bytes held for the frame not yet complete (with its prefix until that is read
        for a large frame)."""
        if self._big is not None:
            return self._big_got
        return self._end - self._start

    @property
    def pending(self) -> int:
        """Payload bytes still missing for the current frame, or -1 while its prefix is
        incomplete (or between frames)."""
        if self._big is not None:
            return len(self._big) - self._big_got
        avail = self._end - self._start
        if avail < SIZE_PREFIX:
            return -1
        (size,) = _SIZE.unpack_from(self._buf, self._start)
        return max(size - (avail - SIZE_PREFIX), 0)
