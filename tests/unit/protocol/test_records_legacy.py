"""Magic 0/1 message sets: recognition and up-conversion to v2 batches."""

import struct
import zlib

import lz4.frame
import pytest
from kafka.record.default_records import DefaultRecordBatch
from kafka.record.legacy_records import LegacyRecordBatchBuilder

from kafpy.protocol import compression as c
from kafpy.protocol import legacy
from kafpy.protocol import records as r
from kafpy.protocol.errors import CorruptRecord, UnsupportedCompression


def kp_legacy(magic, codec, n=6, ts=1_600_000_000_000):
    b = LegacyRecordBatchBuilder(magic=magic, compression_type=codec, batch_size=1 << 20)
    for i in range(n):
        b.append(i, timestamp=ts + i if magic else None,
                 key=None if i % 2 else b"k%d" % i, value=None if i == 3 else b"value-%d" % i)
    return bytes(b.build())


def message(offset, magic, attributes, key, value, timestamp=0, crc=None):
    body = bytes((magic, attributes))
    if magic == 1:
        body += struct.pack(">q", timestamp)
    for field in (key, value):
        body += struct.pack(">i", -1) if field is None else struct.pack(">i", len(field)) + field
    crc = zlib.crc32(body) if crc is None else crc
    msg = struct.pack(">I", crc) + body
    return struct.pack(">qi", offset, len(msg)) + msg


def converted(v2):
    out = []
    for pos, _ in r.iter_batches(v2, strict=True):
        h, recs = r.decode_batch(v2, pos)
        kb = DefaultRecordBatch(v2[pos:pos + h.total_size])
        assert kb.validate_crc()
        assert [(x.offset, x.key, x.value) for x in kb] == [(x.offset(h), x.key, x.value) for x in recs]
        out += [(x.offset(h), x.timestamp(h), x.key, x.value) for x in recs]
    return out


# magic 0 + lz4 needs kafka-python's xxhash extra; test_upconvert_magic0_lz4_... covers it
@pytest.mark.parametrize("magic,codec", [
    (m, k) for m in (0, 1) for k in (c.NONE, c.GZIP, c.SNAPPY, c.LZ4) if (m, k) != (0, c.LZ4)])
def test_upconvert_kafka_python_message_sets(magic, codec):
    buf = kp_legacy(magic, codec)
    assert r.is_legacy(buf)
    v2 = r.upconvert_legacy(buf)
    assert not r.is_legacy(v2)
    batches = list(r.iter_batches(v2, strict=True))
    assert len(batches) == 1
    assert batches[0][1].compression == codec
    ts = [1_600_000_000_000 + i if magic else -1 for i in range(6)]
    assert converted(v2) == [
        (i, ts[i], None if i % 2 else b"k%d" % i, None if i == 3 else b"value-%d" % i)
        for i in range(6)]


def test_upconvert_magic0_lz4_with_kafka3160_checksum():
    inner = b"".join(message(i, 0, 0, None, b"v%d" % i) for i in range(4))
    good = lz4.frame.compress(inner, store_size=False, block_linked=False)
    broken_hc = (c.xxh32(good[:6]) >> 8) & 0xFF
    frame = good[:6] + bytes((broken_hc,)) + good[7:]
    v2 = r.upconvert_legacy(message(3, 0, c.LZ4, None, frame))
    assert [(o, v) for o, _, _, v in converted(v2)] == [(i, b"v%d" % i) for i in range(4)]


def test_mixed_runs_become_separate_batches():
    inner = b"".join(message(i, 1, 0, None, b"in%d" % i, timestamp=50 + i) for i in range(3))
    blob = (message(0, 1, 0, b"a", b"plain0", 10) + message(1, 1, 0, b"b", b"plain1", 11)
            + message(4, 1, c.GZIP, None, zlib.compress(inner), 52)
            + message(5, 1, 0, None, b"plain2", 60))
    v2 = r.upconvert_legacy(blob)
    hs = [h for _, h in r.iter_batches(v2)]
    assert [h.compression for h in hs] == [0, c.GZIP, 0]
    assert [h.records_count for h in hs] == [2, 3, 1]
    assert converted(v2) == [
        (0, 10, b"a", b"plain0"), (1, 11, b"b", b"plain1"),
        (2, 50, None, b"in0"), (3, 51, None, b"in1"), (4, 52, None, b"in2"),
        (5, 60, None, b"plain2")]


def test_log_append_time_wrapper_overrides_inner_timestamps():
    inner = b"".join(message(i, 1, 0, None, b"x", timestamp=5) for i in range(2))
    wrapper = message(1, 1, c.GZIP | 0x08, None, zlib.compress(inner), timestamp=999)
    v2 = r.upconvert_legacy(wrapper)
    h = r.parse_header(v2)
    assert h.timestamp_type == 1 and h.max_timestamp == 999
    assert [t for _, t, _, _ in converted(v2)] == [999, 999]


def test_all_zero_producer_offsets_get_sequential_deltas():
    blob = b"".join(message(0, 0, 0, None, b"m%d" % i) for i in range(3))
    assert [o for o, *_ in converted(r.upconvert_legacy(blob))] == [0, 1, 2]


def test_iter_legacy_messages_shallow_and_deep():
    buf = kp_legacy(1, c.SNAPPY, n=3)
    ((shallow, codec, deep),) = list(legacy.iter_legacy_messages(buf))
    assert codec == c.SNAPPY and shallow.compression == c.SNAPPY
    assert [m.value for m in deep] == [b"value-0", b"value-1", b"value-2"]


def test_partial_trailing_message():
    blob = message(0, 1, 0, None, b"a", 1) + message(1, 1, 0, None, b"b", 2)
    with pytest.raises(CorruptRecord):
        r.upconvert_legacy(blob[:-3])
    assert len(converted(r.upconvert_legacy(blob[:-3], strict=False))) == 1


@pytest.mark.parametrize("blob", [
    message(0, 1, 0, None, b"a", crc=12345),                                  # bad CRC
    struct.pack(">qi", 0, 5) + b"\x00" * 5,                                   # size too small
    message(0, 1, 0, None, b"a")[:-1] + b"",                                  # truncated (strict)
    message(0, 1, c.GZIP, None, b"not gzip"),                                 # bad compressed data
    message(0, 1, c.GZIP, None, None),                                        # null wrapper value
    message(0, 1, c.GZIP, None, zlib.compress(message(0, 1, c.GZIP, None, b"x"))),  # nested
    message(0, 1, c.GZIP, None, zlib.compress(message(0, 0, 0, None, b"x"))),  # magic differs
    message(0, 1, c.GZIP, None, zlib.compress(b"")),                           # empty wrapper
])
def test_bad_legacy_input(blob):
    with pytest.raises(CorruptRecord):
        r.upconvert_legacy(blob)


def test_bad_key_length_and_stray_bytes():
    body = bytes((1, 0)) + struct.pack(">q", 0) + struct.pack(">i", -7) + struct.pack(">i", -1)
    blob = struct.pack(">qi", 0, 4 + len(body)) + struct.pack(">I", zlib.crc32(body)) + body
    with pytest.raises(CorruptRecord):
        r.upconvert_legacy(blob)
    body = bytes((1, 0)) + struct.pack(">q", 0) + struct.pack(">ii", -1, -1) + b"zz"
    blob = struct.pack(">qi", 0, 4 + len(body)) + struct.pack(">I", zlib.crc32(body)) + body
    with pytest.raises(CorruptRecord):
        r.upconvert_legacy(blob)


@pytest.mark.parametrize("codec", [c.ZSTD, 5, 7])
def test_legacy_zstd_or_unknown_codec(codec):
    with pytest.raises(UnsupportedCompression):
        r.upconvert_legacy(message(0, 1, codec, None, b"xx"))


def test_is_legacy():
    assert r.is_legacy(kp_legacy(0, 0)) and r.is_legacy(kp_legacy(1, 0))
    assert not r.is_legacy(r.build_batch([(None, b"x")]))
    assert not r.is_legacy(b"\x00" * 10)
