import os
import struct

import pytest

from kafpy.storage.errors import CorruptIndexError
from kafpy.storage.index import OffsetIndex, TimeIndex


def test_offset_index_lookup_and_preallocation(tmp_path):
    p = str(tmp_path / "00000000000000000100.index")
    idx = OffsetIndex(p, 100, max_index_size=1024, writable=True)
    for i in range(1, 11):
        idx.append(100 + i * 10, i * 4096)
    assert os.path.getsize(p) == 1024  # preallocated
    assert idx.lookup(99) == (100, 0)
    assert idx.lookup(110) == (110, 4096)
    assert idx.lookup(115) == (110, 4096)
    assert idx.lookup(10_000) == (200, 40960)
    assert idx.position_at_or_before(5000) == 4096
    assert idx.position_at_or_before(100) == 0
    idx.close()
    assert os.path.getsize(p) == 10 * 8  # trimmed on close
    with open(p, "rb") as f:
        assert struct.unpack(">ii", f.read(8)) == (10, 4096)


def test_offset_index_recognises_preallocated_tail_after_crash(tmp_path):
    p = str(tmp_path / "00000000000000000000.index")
    idx = OffsetIndex(p, 0, max_index_size=800, writable=True)
    for i in range(1, 8):
        idx.append(i * 3, i * 1000)
    idx.flush()
    idx.close_without_trim()  # crash: file stays 800 bytes
    assert os.path.getsize(p) == 800
    again = OffsetIndex(p, 0, max_index_size=800)
    assert again.entries == 7
    assert again.lookup(100) == (21, 7000)


def test_offset_index_truncate_and_order(tmp_path):
    idx = OffsetIndex(str(tmp_path / "0.index"), 0, max_index_size=80, writable=True)
    for i in range(1, 6):
        idx.append(i * 10, i * 100)
    idx.truncate_to(30)
    assert idx.entries == 2 and idx.lookup(1000) == (20, 200)
    with pytest.raises(CorruptIndexError):
        idx.append(15, 900)
    idx.append(25, 250)
    assert idx.lookup(26) == (25, 250)
    for i in range(7):
        idx.append(100 + i, 1000 + i)
    assert idx.is_full()


def test_time_index(tmp_path):
    p = str(tmp_path / "00000000000000000050.timeindex")
    ti = TimeIndex(p, 50, max_index_size=120, writable=True)
    assert ti.last_entry() == (-1, 50)
    ti.maybe_append(1000, 55)
    ti.maybe_append(1000, 60)  # not larger: ignored
    ti.maybe_append(2000, 70)
    assert ti.entries == 2
    assert ti.lookup(999) == (-1, 50)
    assert ti.lookup(1500) == (1000, 55)
    assert ti.lookup(5000) == (2000, 70)
    ti.truncate_to(70)
    assert ti.last_entry() == (1000, 55)
    ti.close()
    assert os.path.getsize(p) == 12
    assert TimeIndex(p, 50).last_entry() == (1000, 55)


def test_sanity_check_detects_garbage(tmp_path):
    p = tmp_path / "00000000000000000000.index"
    p.write_bytes(struct.pack(">ii", 5, 999999) + struct.pack(">ii", 3, 10))
    idx = OffsetIndex(str(p), 0)
    with pytest.raises(CorruptIndexError):
        idx.sanity_check(log_size=5000)
