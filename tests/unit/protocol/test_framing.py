from __future__ import annotations

import random
import struct

import pytest

from protocol.errors import FrameTooLarge, ProtocolError, TruncatedFrame
from protocol.framing import DEFAULT_MAX_FRAME, FrameReader, frame, read_size, split_frame


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
        got: list[bytes] = []
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
