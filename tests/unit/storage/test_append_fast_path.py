"""The Produce hot path (``Log.append_as_leader`` for one plain batch) must leave exactly
the files the general path leaves: same segments, indexes, epochs and producer state,
and the same answers, duplicates and errors included."""

from __future__ import annotations

import os

import pytest

from kafpy.storage import segment as segment_mod
from kafpy.storage.errors import CorruptRecordError, OutOfOrderSequenceError, InvalidProducerEpochError
from kafpy.storage.log import Log

from .helpers import FakeClock, batch_of, kp_batch, open_log


def _workload():
    """(batch, leader epoch) pairs: plain and idempotent producers, a retry, a new epoch,
    varying sizes and timestamps (some going backwards), enough to roll segments and
    write index entries."""
    out = []
    seq = {7: 0, 8: 0}
    for i in range(120):
        n = 1 + i % 4
        ts = 1_700_000_000_000 + (i * 37) % 500
        if i % 3 == 0:
            out.append((batch_of(n, size=40 + i % 90, start=i, timestamp=ts), 1 + i // 50))
        else:
            pid = 7 if i % 3 == 1 else 8
            out.append((kp_batch([(b"k%d" % j, b"v" * (30 + j)) for j in range(n)], timestamp=ts,
                                 producer_id=pid, producer_epoch=0, base_sequence=seq[pid]),
                        1 + i // 50))
            seq[pid] += n
        if i == 61:
            out.append(out[-1])  # a retried batch: answered as a duplicate
    return out


def _run(lg: Log, work) -> list:
    answers = []
    for batch, epoch in work:
        info = lg.append_as_leader(batch, epoch)
        answers.append((info.first_offset, info.last_offset, info.max_timestamp, info.duplicate,
                        info.records_count))
    return answers


def _files(d: str) -> dict[str, bytes]:
    out = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
            out[name] = f.read()
    return out


@pytest.mark.parametrize("buffer", [bytes, bytearray])
def test_fast_path_writes_the_same_files_as_the_general_path(tmp_path, monkeypatch, buffer):
    # bytearray: a writable request buffer, which the hot path rewrites in place (each run
    # gets its own: a client sends every batch, a retry too, at base offset 0)
    batches = _workload()
    work = [(buffer(b), e) for b, e in batches]
    cfg = dict(segment_bytes=3000, index_interval_bytes=200)
    fast = open_log(tmp_path, name="fast-0", clock=FakeClock(), **cfg)
    fast_answers = _run(fast, work)
    assert fast.active_segment.base_offset > 0  # it rolled
    fast.close()

    calls = []
    monkeypatch.setattr(segment_mod.LogSegment, "fast_append",
                        lambda self, *a: calls.append(1) and False)
    slow = open_log(tmp_path, name="slow-0", clock=FakeClock(), **cfg)
    slow_answers = _run(slow, [(buffer(b), e) for b, e in batches])
    slow.close()
    assert calls  # the general path was really taken instead

    assert fast_answers == slow_answers
    assert any(a[3] for a in fast_answers)  # the retry was recognised
    fast_files = _files(fast.dir)
    slow_files = _files(slow.dir)
    assert fast_files.keys() == slow_files.keys()
    assert any(n.endswith(".index") and fast_files[n] for n in fast_files)
    for name in fast_files:
        assert fast_files[name] == slow_files[name], name


def test_fast_path_errors_match(tmp_path):
    lg = open_log(tmp_path, clock=FakeClock())
    lg.append_as_leader(kp_batch([(b"k", b"v")], producer_id=5, producer_epoch=1, base_sequence=0), 0)
    bad = bytearray(batch_of(2))
    bad[-1] ^= 1
    with pytest.raises(CorruptRecordError):
        lg.append_as_leader(bytes(bad), 0)
    with pytest.raises(OutOfOrderSequenceError):
        lg.append_as_leader(kp_batch([(b"k", b"v")], producer_id=5, producer_epoch=1, base_sequence=5), 0)
    with pytest.raises(InvalidProducerEpochError):
        lg.append_as_leader(kp_batch([(b"k", b"v")], producer_id=5, producer_epoch=0, base_sequence=1), 0)
    info = lg.append_as_leader(kp_batch([(b"k", b"v")], producer_id=5, producer_epoch=1, base_sequence=1), 0)
    assert (info.first_offset, info.duplicate) == (1, False)
    assert lg.log_end_offset == 2


def test_reserved_blocks_are_released_on_roll_and_close(tmp_path):
    lg = open_log(tmp_path, clock=FakeClock(), segment_bytes=200_000)
    for i in range(80):
        lg.append_as_leader(batch_of(4, size=1000, start=i), 0)
        if i == 0:
            # blocks are reserved ahead of the end, invisible in the size
            st = os.stat(lg.active_segment.log_path)
            assert st.st_size == lg.active_segment.size
            assert st.st_blocks * 512 >= 64 * 1024
    segs = list(lg.segments)
    assert len(segs) >= 2
    for s in segs:
        st = os.stat(s.log_path)
        assert st.st_size == s.size
    inactive = segs[0]
    # a rolled segment holds no blocks past its end (allowing the last partial block)
    assert os.stat(inactive.log_path).st_blocks * 512 < inactive.size + 8192
    active = lg.active_segment
    path, size = active.log_path, active.size
    lg.close()
    assert os.stat(path).st_size == size
    assert os.stat(path).st_blocks * 512 < size + 8192
