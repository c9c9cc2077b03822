import os

from kafpy.protocol.records import iter_batches, parse_header, set_base_offset

from kafpy.storage.segment import LogSegment, log_filename

from .helpers import batch_of


def fill(seg, n, base=0, size=200):
    offset = base
    for i in range(n):
        b = bytearray(batch_of(2, size=size))
        set_base_offset(b, 0, offset)
        h = parse_header(b)
        seg.append(b, [(0, len(b), h.last_offset, h.max_timestamp)])
        offset = h.last_offset + 1
    return offset


def test_file_names():
    assert log_filename(42) == "00000000000000000042"


def test_append_translate_read(tmp_path):
    seg = LogSegment(str(tmp_path), 100, index_interval_bytes=300, active=True)
    end = fill(seg, 10, base=100)
    assert end == 120 and seg.read_next_offset() == 120
    assert seg.offset_index.entries > 0
    bp = seg.translate_offset(107)
    assert (bp.base_offset, bp.last_offset) == (106, 107)
    assert seg.translate_offset(120) is None
    sl = seg.read(107, 1)
    hs = [h for _, h in iter_batches(sl.read_bytes())]
    assert [h.base_offset for h in hs] == [106]
    sl = seg.read(100, 10_000, max_position=bp.position)
    hs = [h for _, h in iter_batches(sl.read_bytes())]
    assert hs[-1].last_offset == 105
    assert seg.read(100, 1, min_one_message=False) is None


def test_recover_rebuilds_indexes_and_cuts_garbage(tmp_path):
    seg = LogSegment(str(tmp_path), 0, index_interval_bytes=300, active=True)
    fill(seg, 8)
    entries = [seg.offset_index.entry(i) for i in range(seg.offset_index.entries)]
    good_size = seg.size
    with open(seg.log_path, "ab") as f:
        f.write(b"\x00" * 30 + b"garbage")
    seen = []
    truncated = seg.recover(1 << 20, on_batch=seen.append)
    assert truncated == 37 and seg.size == good_size == os.path.getsize(seg.log_path)
    assert len(seen) == 8
    assert [seg.offset_index.entry(i) for i in range(seg.offset_index.entries)] == entries
    assert seg.largest_timestamp == max(h.max_timestamp for h in seen)


def test_truncate_and_inactive_trim(tmp_path):
    seg = LogSegment(str(tmp_path), 0, index_interval_bytes=300, active=True)
    fill(seg, 8)
    removed = seg.truncate_to(9)  # batch 8-9 and later go
    assert removed > 0 and seg.read_next_offset() == 8
    seg.on_become_inactive()
    assert os.path.getsize(seg.offset_index.path) == seg.offset_index.entries * 8
    assert os.path.getsize(seg.time_index.path) == seg.time_index.entries * 12
    seg.close()
    again = LogSegment(str(tmp_path), 0)
    assert again.read_next_offset() == 8 and again.largest_timestamp >= 0


def test_rename_for_deletion_keeps_open_slices(tmp_path):
    seg = LogSegment(str(tmp_path), 0, active=True)
    fill(seg, 3)
    sl = seg.read(0, 1 << 20)
    data = sl.read_bytes()
    seg.rename_suffix("", ".deleted")
    assert seg.log_path.endswith(".log.deleted") and os.path.exists(seg.log_path)
    seg.delete_files()
    assert not os.path.exists(seg.log_path)
    assert sl.read_bytes() == data
