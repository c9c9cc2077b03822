"""Descriptors and mappings a partition holds: none while empty, the ``.log`` once written,
never one per index (indexes are mapped on first use, and unloaded when inactive)."""

from __future__ import annotations

import os
import struct

from kafpy.storage.index import OffsetIndex
from kafpy.storage.mapping import FileMapping
from tests.unit.storage.helpers import batch_of, open_log, reopen


def _fds() -> set[str]:
    out = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            out.add(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    return out


def _maps(directory) -> list[str]:
    with open("/proc/self/maps") as f:
        return [line for line in f if str(directory) in line]


def test_a_new_partition_holds_no_descriptor_and_no_mapping(tmp_path):
    before = _fds()
    lg = open_log(tmp_path)
    opened = {p for p in _fds() - before if str(tmp_path) in p}
    assert opened == set()
    assert _maps(tmp_path) == []
    names = sorted(os.listdir(lg.dir))
    assert "00000000000000000000.log" in names and "00000000000000000000.index" in names
    assert "00000000000000000000.timeindex" in names
    lg.close()


def test_an_appended_partition_holds_only_its_log_file(tmp_path):
    before = _fds()
    lg = open_log(tmp_path, index_interval_bytes=100)
    for i in range(5):
        lg.append_as_leader(batch_of(3, start=i * 3), 0)
    opened = sorted(p for p in _fds() - before if str(tmp_path) in p)
    assert [os.path.basename(p) for p in opened] == ["00000000000000000000.log"]
    mapped = {line.split()[-1].rsplit("/", 1)[-1] for line in _maps(tmp_path)}
    assert mapped == {"00000000000000000000.index", "00000000000000000000.timeindex"}
    assert lg.read(0, 1 << 20).records.read_bytes()
    lg.close()
    assert not {p for p in _fds() - before if str(tmp_path) in p}
    assert _maps(tmp_path) == []


def test_inactive_indexes_are_unloaded_at_startup_and_mapped_on_lookup(tmp_path):
    lg = open_log(tmp_path, index_interval_bytes=100, segment_bytes=2000)
    for i in range(20):
        lg.append_as_leader(batch_of(3, start=i * 3), 0)
    assert len(lg.segments) > 2
    lg = reopen(lg)
    inactive = lg.segments[0]
    assert not [line for line in _maps(tmp_path) if os.path.basename(inactive.offset_index.path) in line]
    assert lg.read(1, 1 << 20).records is not None  # a lookup maps it again
    assert [line for line in _maps(tmp_path) if os.path.basename(inactive.offset_index.path) in line]
    inactive.unload_indexes()
    assert not [line for line in _maps(tmp_path) if os.path.basename(inactive.offset_index.path) in line]
    assert lg.fetch_offset_by_timestamp(-2)[0] == 0
    lg.close()


def test_unloading_keeps_the_entries(tmp_path):
    p = str(tmp_path / "00000000000000000000.index")
    idx = OffsetIndex(p, 0, max_index_size=800, writable=True)
    for i in range(1, 8):
        idx.append(i * 3, i * 1000)
    idx.trim()
    idx.unload()
    assert idx.lookup(10) == (9, 3000)
    idx.unload()
    assert idx.entries == 7
    idx.close()


def test_a_file_mapping_outlives_its_descriptor(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(bytes(16))
    fd = os.open(p, os.O_RDWR)
    m = FileMapping(fd, 16)
    os.close(fd)
    struct.pack_into(">ii", m.view, 8, 7, 9)
    m.flush()
    m.close()
    m.close()
    assert struct.unpack(">ii", p.read_bytes()[8:]) == (7, 9)


def test_create_logs_is_all_or_nothing(tmp_path):
    from kafpy.storage import KafkaStorageError, LogConfig, LogManager

    lm = LogManager([str(tmp_path)], LogConfig(), start_cleaner=False)
    lm.startup(cluster_id="c", broker_id=0)
    lm.get_or_create_log("t", 0)
    (tmp_path / "t-3").write_bytes(b"")  # a file where partition 3's directory must go
    try:
        lm.create_logs([("t", i, None, None) for i in range(5)])
    except KafkaStorageError as e:
        assert e.error_code == 56 and e.errno is not None
    else:
        raise AssertionError("creating t-3 should have failed")
    assert sorted(lm.logs()) == [("t", 0)]  # the log that was there stays
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith("t-") and not n.endswith("-delete")) == ["t-0", "t-3"]
    (tmp_path / "t-3").unlink()
    assert len(lm.create_logs([("t", i, None, None) for i in range(5)])) == 5
    assert sorted(lm.logs()) == [("t", i) for i in range(5)]
    lm.shutdown()
