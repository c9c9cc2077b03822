import os

import pytest

from kafpy.protocol.records import iter_batches, parse_header, decode_batch
from kafpy.storage import (
    CorruptRecordError,
    InvalidRecordError,
    OffsetOutOfRangeError,
    RecordListTooLargeError,
    RecordTooLargeError,
)
from kafpy.storage.log import parse_topic_partition

from .helpers import FakeClock, batch_of, decode_all, kp_batch, open_log, reopen


def headers_in(data):
    return [h for _, h in iter_batches(data, strict=True)]


def test_parse_topic_partition():
    assert parse_topic_partition("my-topic-12") == ("my-topic", 12)
    assert parse_topic_partition("__consumer_offsets-0") == ("__consumer_offsets", 0)
    with pytest.raises(ValueError):
        parse_topic_partition("lost+found")


def test_append_assigns_offsets_and_epoch(tmp_path):
    lg = open_log(tmp_path)
    a = lg.append_as_leader(batch_of(3), leader_epoch=4)
    b = lg.append_as_leader(batch_of(2, start=3), leader_epoch=4)
    assert (a.first_offset, a.last_offset, a.records_count) == (0, 2, 3)
    assert (b.first_offset, b.last_offset) == (3, 4)
    assert a.log_append_time == -1 and not a.duplicate
    assert lg.log_end_offset == 5 and lg.high_watermark == 0
    data = lg.read(0, 1 << 20).records.read_bytes()
    hs = headers_in(data)
    assert [(h.base_offset, h.partition_leader_epoch) for h in hs] == [(0, 4), (3, 4)]
    assert [r[0] for r in decode_all(data)] == [0, 1, 2, 3, 4]
    assert lg.leader_epoch_cache.entries() == [(4, 0)]


def test_append_multiple_batches_in_one_call_single_write(tmp_path, monkeypatch):
    lg = open_log(tmp_path)
    lg.append_as_leader(batch_of(1), 0)
    calls = []
    real, real_v = os.write, os.writev
    seg_fd = lg.active_segment.file.fileno()

    def counting(fd, data):
        if fd == seg_fd:
            calls.append(len(data))
        return real(fd, data)

    def counting_v(fd, bufs):
        if fd == seg_fd:
            calls.append(sum(len(b) for b in bufs))
        return real_v(fd, bufs)
    monkeypatch.setattr(os, "write", counting)
    monkeypatch.setattr(os, "writev", counting_v)
    info = lg.append_as_leader(batch_of(2) + batch_of(3, start=2), 0)
    assert (info.first_offset, info.last_offset) == (1, 5)
    assert len(calls) == 1


def test_read_from_inside_a_batch_returns_whole_batch(tmp_path):
    lg = open_log(tmp_path)
    for i in range(5):
        lg.append_as_leader(batch_of(10, start=i * 10), 0)
    res = lg.read(23, 1 << 20)
    hs = headers_in(res.records.read_bytes())
    assert hs[0].base_offset == 20 and hs[-1].last_offset == 49


def test_read_respects_max_bytes_and_min_one_message(tmp_path):
    lg = open_log(tmp_path)
    for i in range(4):
        lg.append_as_leader(batch_of(1, size=1000, start=i), 0)
    one = headers_in(lg.read(0, 1).records.read_bytes())
    assert len(one) == 1  # bigger than max_bytes, still one whole batch
    assert lg.read(0, 1, min_one_message=False).records is None
    size = parse_header(lg.read(0, 1).records.read_bytes()).total_size
    two = lg.read(0, 2 * size + 10).records
    assert two.size == 2 * size and len(headers_in(two.read_bytes())) == 2


def test_read_stops_below_max_offset(tmp_path):
    lg = open_log(tmp_path)
    for i in range(4):
        lg.append_as_leader(batch_of(2, start=i * 2), 0)
    lg.update_high_watermark(4)
    hs = headers_in(lg.read(0, 1 << 20, max_offset=lg.high_watermark).records.read_bytes())
    assert hs[-1].last_offset == 3
    assert lg.read(4, 1 << 20, max_offset=4).records is None
    assert lg.read(lg.log_end_offset, 100).records is None


def test_read_out_of_range(tmp_path):
    lg = open_log(tmp_path)
    lg.append_as_leader(batch_of(2), 0)
    with pytest.raises(OffsetOutOfRangeError) as e:
        lg.read(3, 100)
    assert e.value.error_code == 1
    with pytest.raises(OffsetOutOfRangeError):
        lg.read(-1, 100)


def test_segments_roll_by_size_and_reads_cross_segments(tmp_path):
    lg = open_log(tmp_path, segment_bytes=3000, index_interval_bytes=200)
    for i in range(30):
        lg.append_as_leader(batch_of(1, size=500, start=i), 0)
    assert len(lg.segments) > 5
    names = sorted(os.listdir(lg.dir))
    assert "00000000000000000000.log" in names
    assert all(len(n.split(".")[0]) == 20 for n in names if n.endswith(".log"))
    for off in range(30):
        hs = headers_in(lg.read(off, 1).records.read_bytes())
        assert hs[0].base_offset == off
    # every inactive index is trimmed to its entries
    for seg in lg.segments[:-1]:
        assert os.path.getsize(seg.offset_index.path) % 8 == 0
        assert os.path.getsize(seg.offset_index.path) < 1024


def test_roll_by_time_uses_first_batch_timestamp(tmp_path):
    clock = FakeClock()
    lg = open_log(tmp_path, clock=clock, segment_ms=1000)
    lg.append_as_leader(kp_batch([(b"a", b"1")], timestamp=clock.ms), 0)
    clock.advance(500)
    lg.append_as_leader(kp_batch([(b"a", b"2")], timestamp=clock.ms), 0)
    assert len(lg.segments) == 1
    clock.advance(600)
    lg.append_as_leader(kp_batch([(b"a", b"3")], timestamp=clock.ms), 0)
    assert [s.base_offset for s in lg.segments] == [0, 2]


def test_roll_on_full_index(tmp_path):
    lg = open_log(tmp_path, segment_index_bytes=24, index_interval_bytes=1)
    for i in range(10):
        lg.append_as_leader(batch_of(1, start=i), 0)
    assert len(lg.segments) >= 2


def test_validation_errors(tmp_path):
    lg = open_log(tmp_path, max_message_bytes=500)
    good = bytearray(batch_of(1, size=10))
    bad_crc = bytearray(good)
    bad_crc[-1] ^= 0xFF
    with pytest.raises(CorruptRecordError) as e:
        lg.append_as_leader(bad_crc, 0)
    assert e.value.error_code == 2
    with pytest.raises(CorruptRecordError):
        lg.append_as_leader(good[:-3], 0)
    with pytest.raises(RecordTooLargeError) as e:
        lg.append_as_leader(batch_of(1, size=1000), 0)
    assert e.value.error_code == 10
    with pytest.raises(InvalidRecordError):
        lg.append_as_leader(b"", 0)
    assert lg.log_end_offset == 0
    lg2 = open_log(tmp_path, name="t-1", segment_bytes=200)
    with pytest.raises(RecordListTooLargeError):
        lg2.append_as_leader(batch_of(3, size=100), 0)


def test_log_append_time(tmp_path):
    clock = FakeClock(1_800_000_000_000)
    lg = open_log(tmp_path, clock=clock, message_timestamp_type="LogAppendTime")
    info = lg.append_as_leader(batch_of(2, timestamp=5), 0)
    assert info.log_append_time == clock.ms and info.max_timestamp == clock.ms
    h, recs = decode_batch(lg.read(0, 1 << 20).records.read_bytes())  # CRC verified
    assert h.timestamp_type == 1 and h.max_timestamp == clock.ms


@pytest.mark.parametrize("target,codec", [("gzip", 1), ("lz4", 3), ("zstd", 4), ("none", 0)])
def test_compression_type_recompresses(tmp_path, target, codec):
    lg = open_log(tmp_path, compression_type=target)
    src = kp_batch([(b"k%d" % i, b"v" * 50, [("h", b"x")]) for i in range(5)], compression=2)
    lg.append_as_leader(src, 0)
    data = lg.read(0, 1 << 20).records.read_bytes()
    assert parse_header(data).compression == codec
    assert decode_all(data) == [(i, b"k%d" % i, b"v" * 50, [("h", b"x")]) for i in range(5)]


def test_producer_compression_is_kept(tmp_path):
    lg = open_log(tmp_path)
    src = kp_batch([(b"k", b"v" * 100)], compression=1)
    lg.append_as_leader(src, 0)
    data = lg.read(0, 1 << 20).records.read_bytes()
    assert data[12:] == src[12:] or parse_header(data).compression == 1
    assert data[21:] == src[21:]  # only base offset / epoch rewritten


def test_legacy_message_set_is_upconverted(tmp_path):
    from kafka.record.legacy_records import LegacyRecordBatchBuilder

    b = LegacyRecordBatchBuilder(magic=1, compression_type=0, batch_size=1 << 20)
    b.append(0, 1_700_000_000_000, b"k", b"v")
    b.append(1, 1_700_000_000_001, b"k2", b"v2")
    lg = open_log(tmp_path)
    info = lg.append_as_leader(bytes(b.build()), 0)
    assert (info.first_offset, info.last_offset) == (0, 1)
    assert [(o, k, v) for o, k, v, _ in decode_all(lg.read(0, 1 << 20).records.read_bytes())] == \
        [(0, b"k", b"v"), (1, b"k2", b"v2")]


def test_a_client_batch_must_start_at_base_offset_0(tmp_path):
    """Kafka's analyzeAndValidateRecords: a client's magic-2 batch at another base offset
    (a fetched batch sent back as it was) is INVALID_RECORD; a follower's keeps its own, and
    a legacy message set's offsets are not judged."""
    import struct

    from kafka.record.legacy_records import LegacyRecordBatchBuilder

    from kafpy.storage.errors import InvalidRecordError
    lg = open_log(tmp_path)
    moved = bytearray(batch_of(2))
    struct.pack_into(">q", moved, 0, 7)
    with pytest.raises(InvalidRecordError, match="should be 0, but it is 7"):
        lg.append_as_leader(bytes(moved), 0)
    assert lg.log_end_offset == 0
    assert lg.append_as_leader(batch_of(2), 0).last_offset == 1
    follower = open_log(tmp_path, name="follower-0")
    assert follower.append_as_follower(bytes(moved)).last_offset == 8
    legacy = LegacyRecordBatchBuilder(magic=1, compression_type=0, batch_size=1 << 20)
    legacy.append(5, 1_700_000_000_000, b"k", b"v")
    assert lg.append_as_leader(bytes(legacy.build()), 0).last_offset == 2


def test_offset_by_timestamp_holds_a_compressed_batch_to_the_decompressed_limit(tmp_path):
    """A limit lowered below a record already written: the search that must look into that
    compressed batch is INVALID_RECORD (Kafka 4.4); past it, or in a plain batch, it answers."""
    import dataclasses

    from kafpy.storage.errors import InvalidRecordError
    lg = open_log(tmp_path)
    lg.append_as_leader(kp_batch([(b"k", b"x" * 5000), (b"k", b"y")], timestamp=1000, compression=1), 0)
    lg.append_as_leader(kp_batch([(b"k", b"x" * 5000)], timestamp=2000), 0)
    assert lg.fetch_offset_by_timestamp(1000)[0] == 0
    lg.update_config(dataclasses.replace(lg.config, max_decompressed_message_bytes=1000))
    with pytest.raises(InvalidRecordError):
        lg.fetch_offset_by_timestamp(1000)
    assert lg.fetch_offset_by_timestamp(1500)[0] == 2     # the plain batch is not looked into
    assert lg.fetch_offset_by_timestamp(3000) is None


def test_fetch_offset_by_timestamp(tmp_path):
    lg = open_log(tmp_path, segment_bytes=400)
    for i in range(10):
        lg.append_as_leader(kp_batch([(b"k", b"v" * 20), (b"k", b"w" * 20)], timestamp=1000 + i * 100), 2)
    # records: offset 2i at ts 1000+100i, 2i+1 at 1001+100i
    assert lg.fetch_offset_by_timestamp(1000) == (0, 1000, 2)
    assert lg.fetch_offset_by_timestamp(1001) == (1, 1001, 2)
    assert lg.fetch_offset_by_timestamp(1050) == (2, 1100, 2)
    assert lg.fetch_offset_by_timestamp(1901) == (19, 1901, 2)
    assert lg.fetch_offset_by_timestamp(5000) is None
    assert lg.fetch_offset_by_timestamp(-2) == (0, -1, 2)
    assert lg.fetch_offset_by_timestamp(-1) == (20, -1, 2)
    assert lg.fetch_offset_by_timestamp(-3) == (19, 1901, 2)
    assert len(lg.segments) > 1
    lg2 = reopen(lg)
    assert lg2.fetch_offset_by_timestamp(1550) == (12, 1600, 2)


def test_truncate_to(tmp_path):
    lg = open_log(tmp_path, segment_bytes=500)
    for i in range(10):
        lg.append_as_leader(batch_of(2, size=50, start=2 * i), i)
    lg.update_high_watermark(20)
    assert lg.truncate_to(7)  # inside batch 6-7: batch kept only if wholly below -> cut at 6
    assert lg.log_end_offset == 6
    assert lg.high_watermark == 6
    assert lg.leader_epoch_cache.latest_epoch == 2
    info = lg.append_as_leader(batch_of(1), 11)
    assert info.first_offset == 6
    assert lg.leader_epoch_cache.entries()[-1] == (11, 6)
    lg.truncate_fully_and_start_at(100)
    assert (lg.log_start_offset, lg.log_end_offset) == (100, 100)
    assert lg.append_as_leader(batch_of(1), 12).first_offset == 100


def test_delete_records_before(tmp_path):
    lg = open_log(tmp_path, segment_bytes=500)
    for i in range(10):
        lg.append_as_leader(batch_of(2, size=50), 0)
    with pytest.raises(OffsetOutOfRangeError):
        lg.delete_records_before(5)
    lg.update_high_watermark(20)
    assert lg.delete_records_before(9) == 9
    assert lg.log_start_offset == 9
    assert lg.segments[0].base_offset <= 9
    with pytest.raises(OffsetOutOfRangeError):
        lg.read(8, 100)
    assert headers_in(lg.read(9, 1).records.read_bytes())[0].base_offset == 8


def test_retention_by_time_and_size(tmp_path):
    clock = FakeClock()
    lg = open_log(tmp_path, clock=clock, segment_bytes=400, retention_ms=10_000, file_delete_delay_ms=1000)
    for i in range(10):
        lg.append_as_leader(batch_of(1, size=100, timestamp=clock.ms + i), 0)
    n_segs = len(lg.segments)
    assert n_segs >= 3
    assert lg.delete_old_segments(clock.ms) == 0  # nothing old
    clock.advance(20_000)
    assert lg.delete_old_segments(clock.ms) == 0  # nothing below the high watermark
    lg.update_high_watermark(lg.log_end_offset)
    assert lg.delete_old_segments(clock.ms) == n_segs  # the active one too, after a roll
    assert lg.log_start_offset == lg.log_end_offset == 10
    assert len(lg.segments) == 1 and lg.segments[0].size == 0
    assert any(n.endswith(".deleted") for n in os.listdir(lg.dir))
    lg.delete_pending_files(clock.ms + 999)
    assert any(n.endswith(".deleted") for n in os.listdir(lg.dir))
    lg.delete_pending_files(clock.ms + 1000)
    assert not any(n.endswith(".deleted") for n in os.listdir(lg.dir))

    sz = open_log(tmp_path, name="s-0", clock=clock, segment_bytes=400, retention_bytes=800)
    for i in range(10):
        sz.append_as_leader(batch_of(1, size=100, timestamp=clock.ms), 0)
    sz.update_high_watermark(sz.log_end_offset)
    sz.delete_old_segments(clock.ms)
    assert sz.size_in_bytes() >= 800 - 400 and sum(s.size for s in sz.segments[1:]) < 800
    assert sz.log_start_offset == sz.segments[0].base_offset > 0


def test_read_slice_survives_segment_deletion(tmp_path):
    clock = FakeClock()
    lg = open_log(tmp_path, clock=clock, segment_bytes=400, retention_ms=1)
    for i in range(6):
        lg.append_as_leader(batch_of(1, size=100, timestamp=clock.ms), 0)
    res = lg.read(0, 1 << 20).records
    expected = res.read_bytes()
    clock.advance(10)
    lg.update_high_watermark(lg.log_end_offset)
    assert lg.delete_old_segments(clock.ms) > 0
    lg.delete_pending_files(clock.ms + 10**9)
    assert res.read_bytes() == expected
    assert os.pread(res.fileno(), res.size, res.position) == expected


def test_compacted_topic_rejects_null_keys(tmp_path):
    from kafpy.storage.errors import RecordValidationError

    lg = open_log(tmp_path, cleanup_policy="compact")
    with pytest.raises(RecordValidationError) as e:
        lg.append_as_leader(kp_batch([(None, b"v")]), 0)
    assert e.value.error_code == 87
    lg.append_as_leader(kp_batch([(b"k", None)]), 0)


def test_compacted_topic_names_each_record_without_a_key(tmp_path):
    """KIP-467 as Kafka's LogValidator: the batch fails whole (INVALID_RECORD) and lists
    every keyless record by its index in the batch; the message shows the first three."""
    from kafpy.storage.errors import RecordValidationError

    lg = open_log(tmp_path, name="c-3", cleanup_policy="compact")
    keyless = {7, 15, 23, 31, 39, 47, 55, 63, 71, 99}
    batch = kp_batch([(None if i in keyless else b"k%d" % i, b"v") for i in range(100)])
    with pytest.raises(RecordValidationError) as e:
        lg.append_as_leader(batch, 0)
    why = "Compacted topic cannot accept message without key in topic partition c-3"
    assert e.value.error_code == 87
    assert e.value.record_errors == [(i, why) for i in sorted(keyless)]
    assert str(e.value) == (
        "One or more records have been rejected due to 10 record errors in total, and only "
        f"showing the first three errors at most: [RecordError(batchIndex=7, message='{why}'), "
        f"RecordError(batchIndex=15, message='{why}'), RecordError(batchIndex=23, message='{why}')]")
    assert lg.log_end_offset == 0


def test_follower_append_keeps_offsets(tmp_path):
    leader = open_log(tmp_path, name="l-0")
    for i in range(3):
        leader.append_as_leader(batch_of(2, start=2 * i), 5 + i)
    data = leader.read(0, 1 << 20).records.read_bytes()
    follower = open_log(tmp_path, name="f-0")
    info = follower.append_as_follower(data)
    assert (info.first_offset, info.last_offset) == (0, 5)
    assert follower.read(0, 1 << 20).records.read_bytes() == data
    assert follower.leader_epoch_cache.entries() == [(5, 0), (6, 2), (7, 4)]
    with pytest.raises(InvalidRecordError):
        follower.append_as_follower(data)


def test_clean_reopen_keeps_everything(tmp_path):
    lg = open_log(tmp_path, segment_bytes=600, index_interval_bytes=100)
    for i in range(20):
        lg.append_as_leader(batch_of(1, size=100, start=i), 1)
    lg.update_high_watermark(15)
    before = [lg.read(o, 1).records.read_bytes() for o in range(20)]
    lg2 = reopen(lg)
    assert lg2.log_end_offset == 20 and lg2.high_watermark == 15
    assert [lg2.read(o, 1).records.read_bytes() for o in range(20)] == before
    assert lg2.append_as_leader(batch_of(1), 1).first_offset == 20


def test_create_time_bounds(tmp_path):
    from kafpy.storage.errors import RecordValidationError

    clock = FakeClock(1_800_000_000_000)
    lg = open_log(tmp_path, clock=clock, message_timestamp_before_max_ms=1000,
                  message_timestamp_after_max_ms=500)
    lg.append_as_leader(batch_of(1, timestamp=clock.ms - 999), 0)
    with pytest.raises(RecordValidationError) as e:
        lg.append_as_leader(batch_of(1, timestamp=clock.ms - 1001), 0)
    assert e.value.error_code == 32
    assert str(e.value) == "One or more records have been rejected due to invalid timestamp"
    assert e.value.record_errors == [(0, (
        f"Timestamp {clock.ms - 1001} of message with offset 0 is out of range. The timestamp "
        f"should be within [{clock.ms - 1000}, {clock.ms + 500}]"))]
    with pytest.raises(RecordValidationError):
        lg.append_as_leader(batch_of(1, timestamp=clock.ms + 501), 0)
    # only the records out of range are named
    ts = [clock.ms, clock.ms + 600, clock.ms, clock.ms + 700]
    batch = kp_batch([(b"k", b"v", [], t) for t in ts])
    with pytest.raises(RecordValidationError) as e:
        lg.append_as_leader(batch, 0)
    assert [i for i, _ in e.value.record_errors] == [1, 3]
    from kafpy.storage import LogConfig

    assert LogConfig.from_properties({"message.timestamp.difference.max.ms": "7"}).timestamp_bounds() == (7, 7)


def test_max_timestamp_of_active_segment_survives_clean_restart(tmp_path):
    lg = open_log(tmp_path, index_interval_bytes=1 << 20)
    for i in range(5):
        lg.append_as_leader(kp_batch([(b"k", b"v")], timestamp=1000 + i * 10), 0)
    lg2 = reopen(lg)
    assert lg2.active_segment.largest_timestamp == 1040
    assert lg2.fetch_offset_by_timestamp(-3) == (4, 1040, 0)


def test_maybe_increment_high_watermark_only_moves_forwards_and_up_to_the_log_end(tmp_path):
    lg = open_log(tmp_path)
    for i in range(3):
        lg.append_as_leader(batch_of(2, start=i), 0)
    assert lg.log_end_offset == 6
    assert lg.maybe_increment_high_watermark(4) is True
    assert lg.high_watermark == 4
    assert lg.maybe_increment_high_watermark(3) is False  # never backwards
    assert lg.maybe_increment_high_watermark(4) is False
    assert lg.high_watermark == 4
    assert lg.maybe_increment_high_watermark(100) is True  # clamped to the LEO
    assert lg.high_watermark == 6
    # a follower or recovery may set it backwards, within [log start, LEO]
    assert lg.update_high_watermark(2) == 2
    assert lg.update_high_watermark(-5) == 0


def test_a_key_check_run_ahead_is_used_by_the_append_of_that_buffer(tmp_path, monkeypatch):
    from kafpy.storage.errors import RecordValidationError
    from kafpy.storage import log_validator
    lg = open_log(tmp_path, cleanup_policy="compact")
    bad = bytearray(kp_batch([(b"k", b"v"), (None, b"v")]))
    good = bytearray(kp_batch([(b"k", b"v")] * 3))
    assert lg.records_to_check_ahead(good) == 3
    lg.check_ahead(bad)
    lg.check_ahead(good)   # the last one checked is the one kept
    monkeypatch.setattr(log_validator, "has_null_key", lambda *a, **k: pytest.fail("decoded again"))
    assert lg.append_as_leader(good, 0).last_offset == 2
    good[:8] = bytes(8)   # the append wrote its offset into the buffer: a client's is 0
    monkeypatch.undo()
    with pytest.raises(RecordValidationError) as refused:
        lg.append_as_leader(bad, 0)          # not the buffer checked: checked now, record by record
    assert [i for i, _ in refused.value.record_errors] == [1]
    bad[:8] = bytes(8)    # the same: the refused append had written its offset too
    lg.check_ahead(bad)
    monkeypatch.setattr(log_validator, "has_null_key", lambda *a, **k: pytest.fail("decoded again"))
    with pytest.raises(RecordValidationError) as ahead:
        lg.append_as_leader(bad, 0)          # the error found ahead, the same
    assert (str(ahead.value), ahead.value.record_errors) == (str(refused.value), refused.value.record_errors)


def test_a_key_check_done_ahead_lists_the_records_at_fault_as_the_append_does(tmp_path):
    """work_ahead's error (a worker process runs it, and sends it back pickled) is the
    append's own: every keyless record by its index, and the first batch at fault's, a
    timestamp out of range in an earlier batch winning over keys missing in a later one."""
    import pickle
    from kafpy.storage import log_validator
    from kafpy.storage.errors import RecordValidationError
    lg = open_log(tmp_path, cleanup_policy="compact", message_timestamp_before_max_ms=3_600_000)
    now = 1_700_000_000_000
    keyless = bytes(kp_batch([(None if i in (2, 5) else b"k", b"v") for i in range(8)], timestamp=now))
    outcome = log_validator.work_ahead(keyless, *lg.ahead_settings())
    error = pickle.loads(pickle.dumps(outcome[0]))
    assert isinstance(error, RecordValidationError) and error.error_code == 87
    assert [i for i, _ in error.record_errors] == [2, 5] and str(error) == str(outcome[0])
    with pytest.raises(RecordValidationError) as on_append:
        lg.append_as_leader(bytearray(keyless), 0)
    assert (str(on_append.value), on_append.value.record_errors) == (str(error), error.record_errors)
    late = kp_batch([(b"k", b"v", [], now - (7_200_000 if i == 0 else 0)) for i in range(3)])
    outcome = log_validator.work_ahead(late + keyless, *lg.ahead_settings())
    assert outcome[0].error_code == 32 and [i for i, _ in outcome[0].record_errors] == [0]


def test_a_recompression_done_ahead_is_what_the_append_writes(tmp_path, monkeypatch):
    from kafpy.protocol.compression import GZIP
    from kafpy.storage import log_validator
    lg = open_log(tmp_path, compression_type="gzip")
    batch = bytearray(kp_batch([(b"k%d" % i, b"v" * 100) for i in range(50)]))
    assert lg.records_to_check_ahead(batch) == 50
    assert lg.ahead_settings()[:4] == (False, GZIP, lg.config.max_message_bytes, f"{lg.topic}-{lg.partition}")
    outcome = log_validator.work_ahead(bytes(batch), *lg.ahead_settings())
    assert outcome[0] is None and outcome[1] is not None
    lg.checked_ahead(batch, outcome)
    monkeypatch.setattr(log_validator, "recompress_batch", lambda *a, **k: pytest.fail("recompressed again"))
    info = lg.append_as_leader(batch, 0)
    assert (info.first_offset, info.last_offset) == (0, 49)
    monkeypatch.undo()
    [(header, records)] = [decode_batch(lg.read(0, 1 << 20).records.read_bytes(), 0)]
    assert header.attributes & 7 == GZIP and [r.key for r in records] == [b"k%d" % i for i in range(50)]
    plain = open_log(tmp_path, name="p-0")
    assert plain.records_to_check_ahead(batch) == 0


def test_only_compacted_topics_count_records_to_check_ahead(tmp_path):
    lg = open_log(tmp_path)
    assert lg.records_to_check_ahead(kp_batch([(b"k", b"v")] * 3)) == 0


@pytest.mark.parametrize("codec,fast,small", [("gzip", 1, 9), ("lz4", 1, 17), ("zstd", 1, 19)])
def test_recompression_uses_the_topics_compression_level(tmp_path, codec, fast, small):
    """compression.<codec>.level (KIP-390): what the broker recompresses a producer's batch
    with when compression.type names a codec; on the append path and in work_ahead alike."""
    import random
    from kafpy.storage import log_validator
    rnd = random.Random(7)
    words = [bytes(rnd.choice(b"abcdefghij") for _ in range(6)) for _ in range(40)]
    values = [b" ".join(rnd.choice(words) for _ in range(200)) for _ in range(60)]
    batch = bytes(kp_batch([(b"k%d" % i, v) for i, v in enumerate(values)]))
    sizes = {}
    for level in (fast, small):
        lg = open_log(tmp_path, name=f"{codec}{level}-0", compression_type=codec,
                      **{f"compression_{codec}_level": level})
        assert lg.ahead_settings()[6] == level
        info = lg.append_as_leader(bytearray(batch), 0)
        stored = lg.read(0, 1 << 22).records.read_bytes()
        assert (info.first_offset, info.last_offset) == (0, 59)
        assert [r.value for r in decode_batch(stored, 0)[1]] == values
        ahead = log_validator.work_ahead(batch, *lg.ahead_settings())[1]
        assert ahead is not None and len(ahead) == len(stored)   # the same bytes' length either way
        sizes[level] = len(stored)
    assert sizes[small] < sizes[fast], sizes
