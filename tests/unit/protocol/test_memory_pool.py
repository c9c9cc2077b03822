"""The request memory pool (queued.max.request.bytes) and the FrameReader that takes each
frame's bytes from it before holding them."""
from __future__ import annotations

import struct

import pytest

from kafpy.protocol.framing import FrameReader
from kafpy.protocol.memory_pool import MemoryPool


def framed(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


def test_a_pool_smaller_than_one_request_is_refused_as_kafka_does():
    with pytest.raises(ValueError):
        MemoryPool(100, 200)
    with pytest.raises(ValueError):
        MemoryPool(0, 0)


def test_non_strict_any_budget_left_lets_a_request_in_then_nothing_until_released():
    pool = MemoryPool(1000, 1000)
    assert pool.try_allocate(600) and pool.try_allocate(600)  # the second overdraws
    assert pool.available == -200 and pool.out_of_memory
    assert not pool.try_allocate(1)
    pool.release(600)
    assert pool.available == 400 and pool.try_allocate(1000)
    with pytest.raises(ValueError):
        pool.try_allocate(1001)


def test_waiters_are_called_back_once_in_order_when_budget_frees():
    pool = MemoryPool(10, 10)
    calls = []
    assert pool.try_allocate(10)
    pool.when_available(lambda: calls.append("a"))
    second = lambda: calls.append("b")  # noqa: E731
    pool.when_available(second)
    pool.when_available(second)  # asking twice is asking once
    gone = lambda: calls.append("gone")  # noqa: E731
    pool.when_available(gone)
    pool.forget(gone)
    pool.release(5)
    assert calls == ["a", "b"]
    pool.release(5)
    assert calls == ["a", "b"]


def test_reader_takes_each_frames_size_and_blocks_while_the_pool_is_empty():
    pool = MemoryPool(100, 100)
    reader = FrameReader(limit=100, buffer_size=64, pool=pool)
    frames = reader.feed(framed(b"a" * 30) + framed(b"b" * 80) + framed(b"c" * 10))
    assert [bytes(f) for f in frames] == [b"a" * 30, b"b" * 80]  # 110 taken: overdrawn
    assert reader.memory_blocked and pool.available == -10
    assert reader.next_frame() is None
    pool.release(30)
    assert bytes(reader.next_frame()) == b"c" * 10 and not reader.memory_blocked
    assert pool.available == 10


def test_a_large_frame_is_refused_before_its_buffer_exists_and_given_back_on_close():
    pool = MemoryPool(100, 100)
    reader = FrameReader(limit=100, buffer_size=16, pool=pool)
    assert reader.feed(struct.pack(">i", 90) + b"x" * 20) == []
    assert pool.available == 10 and reader.buffered == 20  # its own buffer, taken from the pool
    reader.close()
    assert pool.available == 100


def test_without_a_pool_nothing_changes():
    reader = FrameReader(limit=100, buffer_size=16)
    assert [bytes(f) for f in reader.feed(framed(b"q" * 90) * 2)] == [b"q" * 90] * 2
    assert not reader.memory_blocked


def test_a_refused_read_is_kept_apart_from_the_shared_scratch_buffer_and_resumed():
    pool = MemoryPool(100, 100)
    scratch = bytearray(256)
    reader = FrameReader(limit=100, scratch=scratch, pool=pool)
    other = FrameReader(limit=1000, scratch=scratch)
    assert pool.try_allocate(100)                      # spent by other requests
    stream = framed(b"d" * 20) + framed(b"e" * 90) + b"\0\0"
    assert reader.feed(stream) == []
    assert reader.memory_blocked and reader.buffered == len(stream) and reader.pending == -1
    assert [bytes(f) for f in other.feed(framed(b"z" * 200))] == [b"z" * 200]  # overwrites the scratch
    pool.release(100)
    assert bytes(reader.next_frame()) == b"d" * 20
    assert bytes(reader.next_frame()) == b"e" * 90     # overdraws: the pool is non-strict
    assert reader.next_frame() is None and not reader.memory_blocked
    assert reader.buffered == 2 and pool.available == -10
    assert [bytes(f) for f in reader.feed(b"\0\1q")] == []  # no budget: the next one waits
    assert reader.memory_blocked
    pool.release(110)
    assert bytes(reader.next_frame()) == b"q" and pool.available == 99


def test_a_partial_frame_refused_gets_its_buffer_only_once_memory_frees():
    pool = MemoryPool(100, 100)
    reader = FrameReader(limit=100, buffer_size=16, pool=pool)
    assert pool.try_allocate(100)
    assert reader.feed(struct.pack(">i", 50) + b"x" * 10) == []
    assert reader.memory_blocked and reader.pending == -1   # no 50-byte buffer yet
    pool.release(100)
    assert reader.next_frame() is None and not reader.memory_blocked
    assert reader.pending == 40 and pool.available == 50
    assert [bytes(f) for f in reader.feed(b"y" * 40)] == [b"x" * 10 + b"y" * 40]


def test_close_gives_back_frames_taken_but_never_returned():
    pool = MemoryPool(100, 100)
    reader = FrameReader(limit=100, pool=pool)
    buf = reader.get_buffer()
    data = framed(b"a" * 30) + framed(b"b" * 20) + struct.pack(">i", 40) + b"c"
    buf[:len(data)] = data
    reader.buffer_updated(len(data))
    assert pool.available == 10
    assert bytes(reader.next_frame()) == b"a" * 30     # the caller owes these 30
    reader.close()
    assert pool.available == 70
