"""Housekeeping unmaps the indexes of inactive segments; they map again on their next lookup."""
from __future__ import annotations

from kafpy.protocol.records import build_batch
from kafpy.storage import LogConfig
from kafpy.storage.log_manager import LogManager, descriptor_usage


def test_housekeeping_unloads_inactive_indexes_and_lookups_map_them_again(tmp_path):
    lm = LogManager([str(tmp_path)], LogConfig(segment_bytes=1024), start_cleaner=False)
    lm.startup()
    lg = lm.get_or_create_log("t", 0)
    for _ in range(20):
        lg.append(build_batch([(b"k", b"v" * 200)]), 0)
    inactive = lg.segments[:-1]
    assert len(inactive) >= 2
    for seg in inactive:
        seg.offset_index.lookup(seg.base_offset)
    assert all(seg.offset_index._loaded for seg in inactive)
    lm.run_housekeeping(checkpoint=False)
    assert not any(seg.offset_index._loaded for seg in inactive)
    assert lg.active_segment.offset_index._loaded or lg.active_segment.offset_index._writable
    first = inactive[0]
    assert first.offset_index.lookup(first.base_offset)[0] == first.base_offset
    assert first.offset_index._loaded
    lm.shutdown()


def test_descriptor_usage_names_the_limits():
    text = descriptor_usage()
    assert "descriptors open (limit soft" in text and "hard" in text
