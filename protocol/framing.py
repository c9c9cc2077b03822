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

from kafpy.protocol.errors import FrameTooLarge, TruncatedFrame

if TYPE_CHECKING:
    from kafpy.protocol.memory_pool import MemoryPool

__all__ = ["DEFAULT_MAX_FRAME", "DEFAULT_BUFFER_SIZE", "SIZE_PREFIX", "read_size", "frame", "split_frame",
           "FrameReader"]

DEFAULT_MAX_FRAME = 104857600
DEFAULT_BUFFER_SIZE = 256 * 1024
# A frame up to this size gets its whole buffer when its prefix arrives; a bigger one starts
# with this much (or what the read brought) and doubles as its bytes arrive, so an announced
# size takes no memory before the bytes are there.
GROW_FROM = 1 << 20
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

    The transport receives straight into ``get_buffer()`` and reports the count with
    ``buffer_updated(n)``, which takes every whole frame out at once; the caller then pops
    them with ``next_frame()`` until it returns None. Bytes are received into a *scratch*
    buffer of ``buffer_size`` bytes; each whole frame in it is copied out as a ``bytearray``
    of its payload (the caller may keep it; record slices decoded from it stay valid). A
    frame that is not whole after a read gets a ``bytearray`` of its own and the rest of it
    is received directly into it: a big Produce is copied once, out of the first read, never
    again. That buffer is the frame's whole size up to ``GROW_FROM``; above, it starts at
    ``GROW_FROM`` and doubles whenever it is full (in ``get_buffer``, when no view of it is
    held), so a client announcing 100 MB and sending 10 holds about 10, never 100: the memory
    a frame takes follows the bytes that arrived (at most twice them). Between frames the
    reader holds at most 3 bytes of a size prefix, so an idle connection costs no buffer.

    ``limit`` may be changed between reads (the broker lowers it to
    ``sasl.server.max.receive.size`` until a SASL connection has authenticated).

    ``scratch`` lets many readers share one scratch buffer (the broker shares one among all
    its client connections): sound because ``buffer_updated`` leaves nothing in it, and
    because a ``BufferedProtocol`` transport of a selector loop or uvloop fills the buffer
    and reports it within one callback, on the loop's thread. Without it the reader makes
    its own on first use.

    ``feed(data)`` is the same for callers that are handed bytes (tests, plain protocols).
    One reader per connection; not thread-safe.

    With a ``pool`` (the broker's ``queued.max.request.bytes``) each frame's size is taken
    from it before the frame is held: before a whole frame is copied out of the scratch
    buffer, before a partial frame's buffer exists. The caller owns every frame returned and
    gives ``len(frame)`` back to the pool when done with it. When the pool refuses, the bytes
    of that read from the refused frame on (at most one read) are kept in a buffer of the
    reader's own and ``memory_blocked`` is true: the caller stops reading and calls
    ``next_frame()`` again once the pool has memory, which takes up where it stopped.
    ``close()`` gives back what the reader still holds. Without a pool the only cost is one
    ``None`` test per frame.
    """

    __slots__ = ("limit", "pool", "memory_blocked", "_size", "_buf", "_view", "_head", "_part", "_got",
                 "_want", "_frames", "_error", "_held")

    def __init__(self, limit: int = DEFAULT_MAX_FRAME, buffer_size: int = DEFAULT_BUFFER_SIZE,
                 scratch: bytearray | None = None, pool: "MemoryPool | None" = None) -> None:
        self.limit = limit
        self.pool = pool
        self.memory_blocked = False
        self._held: bytearray | None = None                  # a read the pool refused, from that frame on
        self._size = max(buffer_size, SIZE_PREFIX)
        self._buf = scratch                                  # the scratch buffer (maybe shared)
        self._view = memoryview(scratch) if scratch is not None else None
        self._head = b""                                     # up to 3 bytes of a size prefix
        self._part: bytearray | None = None                  # a frame being received in place
        self._got = 0                                        # bytes of it received
        self._want = 0                                       # its size (len(_part) may be less yet)
        self._frames: list[bytearray] | None = None          # whole frames, last one first
        self._error: FrameTooLarge | None = None

    def get_buffer(self, sizehint: int = -1) -> memoryview:
        """Where the next received bytes go (never empty)."""
        part = self._part
        if part is not None:
            got = self._got
            if got == len(part):   # full but not whole: double it (no view of it is held now)
                part += bytes(min(len(part), self._want - got))
            return memoryview(part)[got:]
        view = self._view
        if view is None:
            self._buf = bytearray(self._size)
            view = self._view = memoryview(self._buf)
        head = self._head
        if head:
            n = len(head)
            view[:n] = head
            return view[n:]
        return view

    def buffer_updated(self, nbytes: int) -> None:
        """``nbytes`` were written at the start of the last ``get_buffer()``; takes out every
        frame they complete."""
        if self._error is not None:
            return
        part = self._part
        if part is not None:
            self._got += nbytes
            if self._got == self._want:
                self._part = None
                self._push([part])
            return
        buf = self._buf
        assert buf is not None
        end = len(self._head) + nbytes
        self._head = b""
        if self._held is not None:   # fed while blocked (a caller that did not stop reading)
            self._held += buf[:end]
            return
        self._take(buf, end)

    def _take(self, buf: bytearray, end: int) -> None:
        """Takes out every frame in ``buf[:end]`` (the scratch buffer, or the read kept
        while the pool refused), with each one's size from the pool when there is one."""
        start = 0
        ready: list[bytearray] = []
        limit = self.limit
        pool = self.pool
        while True:
            avail = end - start
            if avail < SIZE_PREFIX:
                if avail:
                    self._head = bytes(buf[start:end])
                break
            (size,) = _SIZE.unpack_from(buf, start)
            if size < 0 or size > limit:
                self._head = bytes(buf[start:end])
                self._error = FrameTooLarge(size, limit)
                break
            if pool is not None and not pool.try_allocate(size):
                self._held = buf[start:end]
                self.memory_blocked = True
                break
            s = start + SIZE_PREFIX
            if avail - SIZE_PREFIX >= size:
                ready.append(buf[s:s + size])
                start = s + size
                continue
            # Not whole: the rest of this frame is received directly into its own buffer.
            have = end - s
            if size <= GROW_FROM:
                part = bytearray(size)
                part[:have] = buf[s:end]
            else:
                part = buf[s:end]
                part += bytes(max(GROW_FROM, have) - have)
            self._part = part
            self._got = have
            self._want = size
            break
        if ready:
            self._push(ready)

    def _push(self, ready: list[bytearray]) -> None:
        ready.reverse()
        if self._frames:
            ready += self._frames
        self._frames = ready

    def next_frame(self) -> bytearray | None:
        """The next whole frame's payload, or None until more bytes arrive.

        Raises ``FrameTooLarge`` for a size prefix outside 0..limit (after the frames before
        it); the stream cannot be read further after that."""
        frames = self._frames
        if frames:
            return frames.pop()
        if self._error is not None:
            raise self._error
        held = self._held
        if held is not None and not self.pool.out_of_memory:  # type: ignore[union-attr]
            self._held = None
            self.memory_blocked = False
            self._take(held, len(held))
            return self.next_frame()
        return None

    def close(self) -> None:
        """The connection is gone: gives the pool back what the reader holds (frames taken
        and not yet returned, the partial frame's buffer) and drops the kept read."""
        pool = self.pool
        if pool is not None:
            taken = sum(len(f) for f in self._frames or ())
            if self._part is not None:
                taken += self._want
            if taken:
                pool.release(taken)
        self._frames = None
        self._part = None
        self._held = None
        self.memory_blocked = False

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

    @property
    def buffered(self) -> int:
        """Bytes held for the frame not yet complete: its payload so far once the size prefix
        is read, else the prefix bytes; while ``memory_blocked``, the read kept."""
        if self._part is not None:
            return self._got
        if self._held is not None:
            return len(self._held)
        return len(self._head)

    @property
    def pending(self) -> int:
        """Payload bytes still missing for the current frame, or -1 while its prefix is
        incomplete (or between frames)."""
        if self._part is not None:
            return self._want - self._got
        return -1
