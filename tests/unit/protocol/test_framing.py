from __future__ import annotations

import random
import struct
from typing import cast

import pytest

from kafpy.protocol.errors import FrameTooLarge, ProtocolError, TruncatedFrame
from kafpy.protocol.framing import DEFAULT_MAX_FRAME, GROW_FROM, FrameReader, frame, read_size, split_frame


def test_read_size_limits() -> None:
    assert read_size(struct.pack(">i", 10)) == 10
    assert read_size(struct.pack(">i", DEFAULT_MAX_FRAME)) == DEFAULT_MAX_FRAME
    with pytest.raises(FrameTooLarge) as info:
        read_size(struct.pack(">i", DEFAULT_MAX_FRAME + 1))
    assert info.value.size == DEFAULT_MAX_FRAME + 1 and isinstance(info.value, ProtocolError)
    with pytest.raises(FrameTooLarge):
        read_size(struct.pack(">i", 101), limit=100)
    with pytest.raises(FrameTooLarge):
        read_size(struct.pack(">i", -1))
    with pytest.raises(TruncatedFrame):
        read_size(b"\x00\x00")


def test_split_frame() -> None:
    assert bytes(split_frame(frame(b"hello") + b"extra")) == b"hello"
    with pytest.raises(TruncatedFrame):
        split_frame(frame(b"hello")[:-1])


def test_reader_any_chunking() -> None:
    rng = random.Random(7)
    payloads = [bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))) for _ in range(50)]
    stream = b"".join(frame(p) for p in payloads)
    for _ in range(20):
        reader = FrameReader()
        got: list[bytearray] = []
        pos = 0
        while pos < len(stream):
            step = rng.randint(1, 97)
            got += reader.feed(stream[pos:pos + step])
            pos += step
        assert got == payloads
        assert reader.pending == -1 and reader.buffered == 0


def test_reader_partial_state_and_limit() -> None:
    reader = FrameReader(limit=16)
    assert reader.feed(b"\x00\x00\x00\x05ab") == []
    assert reader.pending == 3
    assert reader.feed(memoryview(b"cde\x00")) == [b"abcde"]
    assert reader.buffered == 1
    with pytest.raises(FrameTooLarge):
        reader.feed(b"\x00\x00\x11")


def receive(reader: FrameReader, data: bytes, piece: int) -> list[bytearray]:
    """Drives the reader as a BufferedProtocol transport would: receive into get_buffer()
    at most ``piece`` bytes at a time, then take every whole frame."""
    frames: list[bytearray] = []
    pos = 0
    while pos < len(data):
        buf = reader.get_buffer(-1)
        assert len(buf) > 0
        n = min(len(buf), piece, len(data) - pos)
        buf[:n] = data[pos:pos + n]
        reader.buffer_updated(n)
        pos += n
        while (f := reader.next_frame()) is not None:
            frames.append(f)
    return frames


def test_many_frames_in_one_read_and_frames_split_across_reads() -> None:
    payloads = [b"a" * n for n in (1, 0, 30, 7, 0, 100)]
    stream = b"".join(frame(p) for p in payloads)
    assert receive(FrameReader(buffer_size=64), stream, 1 << 20) == payloads
    assert receive(FrameReader(buffer_size=64), stream, 3) == payloads
    # the buffer wraps around (compacts) many times
    assert receive(FrameReader(buffer_size=16), stream * 20, 5) == payloads * 20


def test_zero_length_frames() -> None:
    reader = FrameReader()
    assert reader.feed(frame(b"") * 3) == [b"", b"", b""]
    assert reader.feed(b"\x00\x00") == [] and reader.pending == -1
    assert reader.feed(b"\x00\x00") == [b""]
    assert reader.buffered == 0


def test_a_frame_larger_than_the_buffer_is_received_in_place() -> None:
    reader = FrameReader(buffer_size=32)
    big = bytes(range(256)) * 4
    stream = frame(b"s") + frame(big) + frame(b"t")
    buf = reader.get_buffer(-1)
    buf[:20] = stream[:20]          # the small frame and the start of the large one
    reader.buffer_updated(20)
    assert reader.next_frame() == b"s"
    assert reader.next_frame() is None
    assert reader.buffered == 20 - 5 - 4 and reader.pending == len(big) - 11
    target = reader.get_buffer(-1)  # the rest goes straight into the frame's own buffer
    assert len(target) == len(big) - 11
    target[:] = stream[20:20 + len(target)]
    reader.buffer_updated(len(target))
    got = reader.next_frame()
    assert got == big
    assert target.obj is got        # received in place: no copy after the first read
    assert reader.feed(stream[20 + len(target):]) == [b"t"]


def test_a_big_announced_frame_takes_memory_only_as_its_bytes_arrive() -> None:
    size = 100 * GROW_FROM
    reader = FrameReader(limit=DEFAULT_MAX_FRAME, buffer_size=64)
    reader.feed(struct.pack(">i", size) + b"a" * 10)
    assert reader.pending == size - 10
    first = reader.get_buffer(-1)
    assert len(cast(bytearray, first.obj)) == GROW_FROM          # not the 100 MB announced
    del first
    payload = bytes(range(256)) * (size // 256)
    sent = 10
    capacities = []
    while sent < 5 * GROW_FROM:                 # 5 MB arrive in reads of up to 1 MB
        target = reader.get_buffer(-1)
        capacities.append(len(cast(bytearray, target.obj)))
        n = min(len(target), GROW_FROM)
        target[:n] = payload[sent:sent + n]
        del target
        reader.buffer_updated(n)
        sent += n
    assert max(capacities) <= 2 * sent          # held at most twice what arrived
    assert reader.pending == size - sent and reader.next_frame() is None


def test_a_grown_frame_comes_out_whole_and_exact() -> None:
    size = 3 * GROW_FROM + 12345
    body = random.Random(7).randbytes(size)
    reader = FrameReader(buffer_size=4096)
    stream = frame(body) + frame(b"next")
    got = []
    pos = 0
    while pos < len(stream):
        target = reader.get_buffer(-1)
        n = min(len(target), 300_000, len(stream) - pos)
        target[:n] = stream[pos:pos + n]
        del target
        reader.buffer_updated(n)
        pos += n
        while (f := reader.next_frame()) is not None:
            got.append(bytes(f))
    assert got == [body, b"next"]


def test_limit_can_change_between_reads() -> None:
    reader = FrameReader(limit=100, buffer_size=64)
    assert reader.feed(frame(b"x" * 100)) == [b"x" * 100]
    reader.limit = 1000
    assert reader.feed(frame(b"y" * 500)) == [b"y" * 500]
    reader.limit = 100
    with pytest.raises(FrameTooLarge):
        reader.feed(frame(b"z" * 101))


def test_oversized_and_negative_sizes_are_refused_before_any_buffer_is_made() -> None:
    reader = FrameReader(limit=1000, buffer_size=64)
    reader.feed(struct.pack(">i", 1000) + b"x" * 10)    # exactly the limit is allowed
    assert reader.pending == 990
    for prefix in (struct.pack(">i", 1001), struct.pack(">i", -5)):
        fresh = FrameReader(limit=1000, buffer_size=64)
        fresh.get_buffer()[:4] = prefix
        fresh.buffer_updated(4)
        with pytest.raises(FrameTooLarge) as info:
            fresh.next_frame()
        assert info.value.limit == 1000
        assert fresh.buffered == 4     # nothing was sized by the bad prefix


def test_readers_sharing_one_scratch_buffer_keep_their_streams_apart() -> None:
    scratch = bytearray(64)
    a, b = FrameReader(buffer_size=64, scratch=scratch), FrameReader(buffer_size=64, scratch=scratch)
    sa = frame(b"alpha") + frame(b"x" * 40) + frame(b"omega")
    sb = frame(b"bravo") * 3 + frame(b"y" * 200)
    got_a: list[bytes] = []
    got_b: list[bytes] = []
    pa = pb = 0
    # interleaved reads of 7 bytes: each read lands in the same scratch buffer
    while pa < len(sa) or pb < len(sb):
        for reader, stream, pos, got in ((a, sa, pa, got_a), (b, sb, pb, got_b)):
            if pos >= len(stream):
                continue
            buf = reader.get_buffer(-1)
            n = min(len(buf), 7, len(stream) - pos)
            buf[:n] = stream[pos:pos + n]
            reader.buffer_updated(n)
            while (f := reader.next_frame()) is not None:
                got.append(bytes(f))
            if reader is a:
                pa += n
            else:
                pb += n
    assert got_a == [b"alpha", b"x" * 40, b"omega"]
    assert got_b == [b"bravo"] * 3 + [b"y" * 200]


def test_between_frames_a_reader_holds_only_a_partial_size_prefix() -> None:
    scratch = bytearray(64)
    reader = FrameReader(scratch=scratch)
    assert reader.feed(frame(b"abc") + b"\x00\x00") == [b"abc"]
    assert reader.buffered == 2 and reader.pending == -1
    scratch[:] = bytes(64)             # another connection's read overwrites the scratch
    assert reader.feed(b"\x00\x01z") == [b"z"]
    assert reader.buffered == 0


def test_frames_before_a_bad_size_prefix_are_returned_first() -> None:
    reader = FrameReader(limit=100)
    reader.get_buffer()[:13] = frame(b"ok") + struct.pack(">i", 101) + b"xyz"
    reader.buffer_updated(13)
    assert reader.next_frame() == b"ok"
    with pytest.raises(FrameTooLarge):
        reader.next_frame()
