"""Record decoding and building, cross-checked against kafka-python's independent codec."""

import struct

import pytest
from kafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords, MemoryRecordsBuilder

from kafpy.protocol import records as r
from kafpy.protocol.batch_header import pack_batch
from kafpy.protocol.compression import GZIP, LZ4, NONE, SNAPPY, ZSTD
from kafpy.protocol.errors import CorruptRecord, ProtocolError, UnsupportedCompression

CODECS = [NONE, GZIP, SNAPPY, LZ4, ZSTD]
BASE_TS = 1_700_000_000_000


def sample(n):
    """Records with nulls, empty values, unicode and null-valued headers, big values."""
    out = []
    for i in range(n):
        key = None if i % 3 == 0 else b"key-%d" % i
        value = None if i % 7 == 5 else (b"" if i % 5 == 4 else bytes([i % 251]) * (i * 37 % 3000))
        headers = [] if i % 2 else [("h\u00e9%d" % i, b"x" * i), ("nul", None)]
        out.append((key, value, headers, BASE_TS + i * 3 - (i % 4)))
    return out


def kp_build(items, compression, **kw):
    b = DefaultRecordBatchBuilder(
        magic=2, compression_type=compression, is_transactional=kw.get("transactional", False),
        producer_id=kw.get("producer_id", -1), producer_epoch=kw.get("producer_epoch", -1),
        base_sequence=kw.get("base_sequence", -1), batch_size=1 << 24)
    for i, (k, v, h, ts) in enumerate(items):
        b.append(i, timestamp=ts, key=k, value=v, headers=[(hk, hv) for hk, hv in h])
    return bytes(b.build())


@pytest.mark.parametrize("codec", CODECS)
def test_decode_kafka_python_batches(codec):
    items = sample(60)
    buf = kp_build(items, codec, producer_id=9, producer_epoch=2, base_sequence=100)
    header, recs = r.decode_batch(buf)
    assert header.compression == codec
    assert header.records_count == len(items) == len(recs)
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (9, 2, 100)
    for i, (rec, (k, v, h, ts)) in enumerate(zip(recs, items)):
        assert rec.offset(header) == i
        assert rec.timestamp(header) == ts
        assert rec.key == k and rec.value == v
        assert list(rec.headers) == list(h)


@pytest.mark.parametrize("codec", CODECS)
def test_kafka_python_reads_our_batches(codec):
    items = sample(60)
    buf = r.build_batch(items, base_offset=1000, compression=codec, producer_id=5,
                        producer_epoch=1, base_sequence=7, partition_leader_epoch=3)
    kb = DefaultRecordBatch(buf)
    assert kb.validate_crc()
    assert kb.compression_type == codec
    assert (kb.producer_id, kb.producer_epoch, kb.base_sequence) == (5, 1, 7)
    assert kb.base_offset == 1000 and kb.last_offset_delta == 59
    got = [(x.offset, x.timestamp, x.key, x.value, list(x.headers)) for x in kb]
    want = [(1000 + i, ts, k, v, list(h)) for i, (k, v, h, ts) in enumerate(items)]
    assert got == want
    h = r.parse_header(buf)
    assert h.base_timestamp == items[0][3]
    assert h.max_timestamp == max(ts for *_, ts in items)
    assert h.partition_leader_epoch == 3
    r.verify_crc(buf, 0, h)


def test_memory_records_roundtrip_multiple_batches():
    blob = b"".join(
        r.build_batch([(b"k", b"v%d" % i, [], BASE_TS)] * 3, base_offset=3 * i, compression=c)
        for i, c in enumerate(CODECS))
    mr = MemoryRecords(blob)
    offsets = []
    while mr.has_next():
        batch = mr.next_batch()
        offsets += [x.offset for x in batch]
    assert offsets == list(range(15))
    b = MemoryRecordsBuilder(magic=2, compression_type=GZIP, batch_size=1 << 20)
    for i in range(10):
        b.append(timestamp=BASE_TS + i, key=None, value=b"m%d" % i, headers=[])
    b.close()
    data = bytes(b.buffer())
    ((pos, h),) = list(r.iter_batches(data, strict=True))
    _, recs = r.decode_batch(data, pos)
    assert [x.value for x in recs] == [b"m%d" % i for i in range(10)]


def test_build_from_record_objects_keeps_deltas():
    recs = [r.Record(0, 0, b"a", b"1", [], 0), r.Record(2, 50, None, b"2", [("x", b"y")], 0)]
    buf = r.build_batch(recs, base_timestamp=BASE_TS, base_offset=10)
    h, got = r.decode_batch(buf)
    assert h.last_offset_delta == 2 and h.max_timestamp == BASE_TS + 50
    assert [(x.offset_delta, x.timestamp_delta, x.key, x.value, list(x.headers)) for x in got] == [
        (0, 0, b"a", b"1", []), (2, 50, None, b"2", [("x", b"y")])]
    assert [x.offset for x in DefaultRecordBatch(buf)] == [10, 12]


def test_build_empty_batch():
    buf = r.build_batch([], base_timestamp=BASE_TS, last_offset_delta=4, producer_id=1,
                        producer_epoch=0, base_sequence=10)
    h, recs = r.decode_batch(buf)
    assert recs == [] and h.records_count == 0 and h.last_offset_delta == 4
    assert len(buf) == r.BATCH_HEADER_SIZE
    # no records, no stream: written uncompressed whatever the codec asked for
    assert r.parse_header(r.build_batch([], compression=ZSTD)).compression == NONE


def test_large_varints_and_negative_deltas():
    big = b"z" * 70000  # length needs a 3-byte varint
    items = [(b"k", big, [], BASE_TS), (b"k", b"v", [], BASE_TS - 10**9), (b"k", b"v", [], 2**62)]
    buf = r.build_batch(items)
    h, recs = r.decode_batch(buf)
    assert [x.timestamp(h) for x in recs] == [BASE_TS, BASE_TS - 10**9, 2**62]
    assert recs[0].value == big
    assert [x.timestamp for x in DefaultRecordBatch(buf)] == [BASE_TS, BASE_TS - 10**9, 2**62]


def test_flags_and_log_append_time():
    buf = r.build_batch([(b"k", b"v", [], 5)], timestamp_type=1, is_transactional=True,
                        producer_id=3, producer_epoch=0, base_sequence=0)
    h = r.parse_header(buf)
    assert h.timestamp_type == 1 and h.is_transactional and not h.is_control
    kb = DefaultRecordBatch(buf)
    assert kb.is_transactional and kb.timestamp_type == 1


@pytest.mark.parametrize("control_type", [r.CONTROL_ABORT, r.CONTROL_COMMIT])
def test_control_batches(control_type):
    buf = r.build_control_batch(control_type, producer_id=77, producer_epoch=4,
                                coordinator_epoch=12, base_offset=500, timestamp=BASE_TS)
    h, recs = r.decode_batch(buf)
    assert h.is_control and h.is_transactional and h.records_count == 1
    assert h.producer_id == 77 and h.producer_epoch == 4
    marker = r.parse_control_record(recs[0])
    assert marker == r.ControlRecord(0, control_type, 12)
    kb = DefaultRecordBatch(buf)
    assert kb.is_control_batch and kb.validate_crc()


def test_parse_kafka_python_control_batch():
    class ControlBuilder(DefaultRecordBatchBuilder):
        # kafka-python only reads control batches; set the control bit on top of its own
        def _get_attributes(self, include_compression_type=True):
            return super()._get_attributes(include_compression_type) | r.CONTROL_MASK

    b = ControlBuilder(magic=2, compression_type=0, is_transactional=True, producer_id=8,
                       producer_epoch=1, base_sequence=-1, batch_size=1 << 20)
    b.append(0, timestamp=BASE_TS, key=struct.pack(">hh", 0, 1), value=struct.pack(">hi", 0, 3),
             headers=[])
    h, recs = r.decode_batch(bytes(b.build()))
    assert h.is_control
    assert r.parse_control_record(recs[0]) == r.ControlRecord(0, r.CONTROL_COMMIT, 3)


def test_parse_control_record_rejects_short_key():
    with pytest.raises(CorruptRecord):
        r.parse_control_record(r.Record(0, 0, b"\x00", None, [], 0))
    with pytest.raises(CorruptRecord):
        r.parse_control_record(r.Record(0, 0, struct.pack(">hh", 0, 0), b"\x00", [], 0))


@pytest.mark.parametrize("src", CODECS)
@pytest.mark.parametrize("dst", CODECS)
def test_recompress_keeps_everything_but_codec(src, dst):
    items = sample(40)
    buf = bytearray(r.build_batch(items, base_offset=77, compression=src, producer_id=11,
                                  producer_epoch=2, base_sequence=300, is_transactional=True,
                                  partition_leader_epoch=6))
    before = r.parse_header(buf)
    out = r.recompress_batch(buf, 0, dst)
    after = r.parse_header(out)
    r.verify_crc(out, 0, after)
    assert after.compression == dst
    assert after.total_size == len(out)
    for field in ("base_offset", "partition_leader_epoch", "last_offset_delta", "base_timestamp",
                  "max_timestamp", "producer_id", "producer_epoch", "base_sequence",
                  "records_count", "is_transactional", "timestamp_type"):
        assert getattr(after, field) == getattr(before, field), field
    assert r.decode_batch(out)[1] == r.decode_batch(buf)[1]
    kb = DefaultRecordBatch(out)
    assert [x.value for x in kb] == [v for _, v, _, _ in items]


def test_recompress_at_position_and_rejects_bad_crc():
    a = r.build_batch([(b"a", b"1")], base_timestamp=BASE_TS)
    b = r.build_batch([(b"b", b"2")] * 5, base_timestamp=BASE_TS, compression=GZIP)
    blob = a + b
    out = r.recompress_batch(blob, len(a), ZSTD)
    assert [x.key for x in r.decode_batch(out)[1]] == [b"b"] * 5
    bad = bytearray(blob)
    bad[-1] ^= 0xFF
    with pytest.raises(CorruptRecord):
        r.recompress_batch(bad, len(a), NONE)
    with pytest.raises(UnsupportedCompression):
        r.recompress_batch(blob, 0, 5)


# --------------------------------------------------------------------------- bad input


def rebuild(buf, records_section=None, count=None, attributes=None):
    """Re-pack a batch with a doctored records section / count and a valid CRC."""
    h = r.parse_header(buf)
    section = buf[r.RECORDS_OFFSET:] if records_section is None else records_section
    return pack_batch(
        section, base_offset=h.base_offset, partition_leader_epoch=h.partition_leader_epoch,
        attributes=h.attributes if attributes is None else attributes,
        last_offset_delta=h.last_offset_delta, base_timestamp=h.base_timestamp,
        max_timestamp=h.max_timestamp, producer_id=h.producer_id,
        producer_epoch=h.producer_epoch, base_sequence=h.base_sequence,
        records_count=h.records_count if count is None else count)


def good():
    return r.build_batch([(b"k", b"v" * 10, [("a", b"b")]), (None, b"w", [])],
                         base_timestamp=BASE_TS)


def test_bad_crc_raises():
    buf = bytearray(good())
    buf[-2] ^= 0x40
    with pytest.raises(CorruptRecord):
        r.decode_batch(buf)
    # without the CRC check the damaged value is simply returned
    r.decode_batch(buf, verify=False)


@pytest.mark.parametrize("count", [0, 1, 3, 1000, 2**31 - 1])
def test_records_count_mismatch(count):
    with pytest.raises(CorruptRecord):
        r.decode_batch(rebuild(good(), count=count))


@pytest.mark.parametrize("codec", [5, 6, 7])
def test_unknown_codec(codec):
    buf = rebuild(good(), attributes=codec)
    with pytest.raises(UnsupportedCompression):
        r.decode_batch(buf)
    assert r.parse_header(buf).compression == codec  # the header itself still parses


def test_batch_length_past_buffer():
    buf = bytearray(good())
    struct.pack_into(">i", buf, 8, len(buf))
    with pytest.raises(CorruptRecord):
        r.decode_batch(buf)
    with pytest.raises(CorruptRecord):
        r.verify_crc(buf, 0)
    with pytest.raises(CorruptRecord):
        list(r.iter_batches(buf, strict=True))


@pytest.mark.parametrize("section", [
    b"\x80" * 7,                               # varint runs off the end
    b"\xff" * 11,                              # varint longer than 10 bytes
    b"\x01" + b"\x00" * 6,                     # negative record length (zigzag -1)
    b"\x0c\x00\x00\x00\x03\x02\x00\x00",       # key length -2
    b"\x0e\x00\x00\x00\x01\x7e\x00\x00",       # value length runs past record
    b"\x0c\x00\x00\x00\x01\x01\x03",           # header count -2 (record short too)
    b"\x10\x00\x00\x00\x01\x01\x02\x01\x00",   # header key length -1
    b"\x0e\x00\x00\x00\x01\x01\x00\x00",       # record length larger than its fields
    b"\x0a\x00\x00\x00\x01\x01\x00",           # length 5: shorter than any record
])
def test_malformed_records_section(section):
    with pytest.raises(CorruptRecord):
        r.decode_batch(rebuild(good(), records_section=section, count=1))


def test_trailing_bytes_after_last_record():
    buf = good()
    with pytest.raises(CorruptRecord):
        r.decode_batch(rebuild(buf, records_section=buf[r.RECORDS_OFFSET:] + b"\x00"))


def test_compressed_garbage_and_bomb():
    with pytest.raises(CorruptRecord):
        r.decode_batch(rebuild(good(), records_section=b"not gzip at all", attributes=GZIP))
    bomb = r.build_batch([(None, b"\x00" * (4 << 20))], compression=ZSTD)
    assert len(bomb) < 4096
    with pytest.raises(CorruptRecord):
        r.decode_batch(bomb, max_size=1 << 20)
    assert r.decode_batch(bomb)[1][0].value == b"\x00" * (4 << 20)


def test_all_errors_are_protocol_errors():
    assert issubclass(CorruptRecord, ProtocolError)
    assert issubclass(UnsupportedCompression, ProtocolError)


def test_non_utf8_header_key_round_trips():
    # Kafka accepts any bytes as a header key; compaction must write them back unchanged
    section = b"\x12\x00\x00\x00\x01\x01\x02\x02\xff\x01"
    buf = rebuild(good(), records_section=section, count=1)
    h, (rec,) = r.decode_batch(buf)
    assert rec.headers == [("\udcff", None)]
    again = r.build_batch([rec], base_timestamp=h.base_timestamp)
    assert again[r.RECORDS_OFFSET:] == section


def test_empty_batch_with_compression_bit():
    buf = rebuild(r.build_batch([], base_timestamp=BASE_TS), attributes=GZIP, count=0)
    assert r.decode_batch(buf) == (r.parse_header(buf), [])


def test_ten_byte_varint_wraps_like_java():
    # timestamp delta encoded in 10 bytes with excess high bits: Java keeps the low 64
    rec = b"\x00" + b"\xfe" + b"\xff" * 8 + b"\x7f" + b"\x00\x01\x01\x00"
    section = bytes([len(rec) * 2]) + rec
    h, (got,) = r.decode_batch(rebuild(good(), records_section=section, count=1))
    assert got.timestamp_delta == 2**63 - 1
