"""Kafka's length-prefixed framing: a 4-byte big-endian size, then that many bytes.

Who may call it: the broker's connection handler, clients in tests and tools. The
limit is the broker's ``socket.request.max.bytes`` (default 104857600), passed in by
the caller; a size prefix above it (or negative) raises ``FrameTooLarge`` before any
buffer is sized by it.
"""

from __future__ import annotations

import struct

from protocol.errors import FrameTooLarge, TruncatedFrame

__all__ = ["DEFAULT_MAX_FRAME", "SIZE_PREFIX", "read_size", "frame", "split_frame", "FrameReader"]

DEFAULT_MAX_FRAME = 104857600
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
    """Incremental splitter: ``feed()`` bytes as they arrive, get back whole frame payloads.

    Keeps at most one partial frame buffered. Frames are returned as ``bytes`` (each a
    private copy, so the caller may keep them while more data is fed).
    """

    __slots__ = ("limit", "_buf", "_need")

    def __init__(self, limit: int = DEFAULT_MAX_FRAME) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._need = -1  # payload size of the frame being read, -1 while reading its prefix

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """Append ``data``; return every frame it completes, in order."""
        buf = self._buf
        buf += data
        frames: list[bytes] = []
        pos = 0
        n = len(buf)
        view = memoryview(buf)
        try:
            while True:
                if self._need < 0:
                    if n - pos < SIZE_PREFIX:
                        break
                    (size,) = _SIZE.unpack_from(buf, pos)
                    if size < 0 or size > self.limit:
                        raise FrameTooLarge(size, self.limit)
                    self._need = size
                    pos += SIZE_PREFIX
                if n - pos < self._need:
                    break
                frames.append(bytes(view[pos:pos + self._need]))  # the frame's only copy
                pos += self._need
                self._need = -1
        finally:
            view.release()
        if pos:
            del buf[:pos]
        return frames

    @property
    def buffered(self) -> int:
        """Bytes held for the frame not yet complete (its prefix is dropped once read)."""
        return len(self._buf)

    @property
    def pending(self) -> int:
        """Payload bytes still missing for the current frame, or -1 when between frames."""
        if self._need < 0:
            return -1
        return self._need - len(self._buf)
