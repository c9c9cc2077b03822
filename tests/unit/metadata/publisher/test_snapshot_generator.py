"""SnapshotGenerator: when a node asks for a snapshot of its image, as Kafka decides."""
from __future__ import annotations

import logging

import pytest

from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.metadata.publisher.snapshot_generator import SnapshotGenerator

AT_9 = MetadataProvenance(9, 2, 5000)
MID_BATCH = MetadataProvenance(9, 2, 5000, is_offset_batch_aligned=False)


def gen(max_bytes: int = 100, max_ms: int = 60_000, now: int = 0, disabled: str | None = None) -> SnapshotGenerator:
    return SnapshotGenerator(1, max_bytes, max_ms, now, disabled)


def test_asks_once_the_bytes_replayed_reach_the_limit_then_counts_again():
    g = gen()
    assert g.publish_log_delta(AT_9, 60, now_ms=10) is None
    reason = g.publish_log_delta(AT_9, 40, now_ms=20)
    assert reason == "we have replayed at least 100 bytes"
    g.begin_emit(AT_9, reason, now_ms=30)
    g.emit_done()
    assert g.bytes_since_last_snapshot == 0 and g.last_snapshot_time_ms == 30
    assert g.publish_log_delta(AT_9, 99, now_ms=40) is None


def test_asks_once_the_interval_passed_and_never_when_it_is_zero():
    g = gen(max_ms=120_000, now=1000)
    assert g.publish_log_delta(AT_9, 1, now_ms=120_999) is None
    assert g.publish_log_delta(AT_9, 1, now_ms=121_000) == "we have waited at least 2 minute(s)"
    off = gen(max_ms=0)
    assert off.publish_log_delta(AT_9, 1, now_ms=10**12) is None


def test_no_second_snapshot_while_one_is_being_written():
    g = gen()
    reason = g.publish_log_delta(AT_9, 100, now_ms=1)
    assert reason is not None
    assert g.publish_log_delta(AT_9, 500, now_ms=2) is None  # not begun yet: still pending
    g.begin_emit(AT_9, reason, now_ms=3)
    assert g.publish_log_delta(AT_9, 500, now_ms=4) is None  # being written
    g.emit_done()
    assert g.publish_log_delta(AT_9, 0, now_ms=5) == "we have replayed at least 100 bytes"


def test_an_image_ending_inside_a_batch_or_disabled_snapshots_get_none(caplog: pytest.LogCaptureFixture):
    g = gen()
    assert g.publish_log_delta(MID_BATCH, 100, now_ms=1) is None
    assert not g.emitting
    assert g.publish_log_delta(AT_9, 0, now_ms=2) is not None  # the next aligned image is taken
    disabled = gen(disabled="the node is shutting down")
    with caplog.at_level(logging.ERROR):
        assert disabled.publish_log_delta(AT_9, 100, now_ms=1) is None
    assert ("Not emitting 00000000000000000010-0000000002 despite the fact that we have replayed at "
            "least 100 bytes because snapshots are disabled; the node is shutting down") in caplog.text


def test_an_image_loaded_from_a_snapshot_resets_the_counters():
    g = gen(now=0)
    assert g.publish_log_delta(AT_9, 99, now_ms=10) is None
    g.publish_snapshot(AT_9, now_ms=50)
    assert g.bytes_since_last_snapshot == 0 and g.last_snapshot_time_ms == 50
    assert g.publish_log_delta(AT_9, 99, now_ms=60) is None
