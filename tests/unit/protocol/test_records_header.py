"""Header-level record batch API: parse, iterate, CRC, in-place rewrites."""

import struct

import pytest
from kafka.record.default_records import DefaultRecordBatchBuilder, DefaultRecordBatch

from kafpy.protocol import records as r
from kafpy.protocol.errors import CorruptRecord, ProtocolError


def kp_batch(n=3, compression=0, producer_id=-1, producer_epoch=-1, base_sequence=-1,
             transactional=False, base_ts=1_700_000_000_000):
    b = DefaultRecordBatchBuilder(
        magic=2, compression_type=compression, is_transactional=transactional,
        producer_id=producer_id, producer_epoch=producer_epoch, base_sequence=base_sequence,
        batch_size=1 << 20)
    for i in range(n):
        b.append(i, timestamp=base_ts + 10 * i, key=b"k%d" % i, value=b"v" * i, headers=[])
    return bytes(b.build())


def test_parse_header_fields():
    buf = kp_batch(n=4, producer_id=42, producer_epoch=3, base_sequence=17, transactional=True)
    h = r.parse_header(buf)
    assert r.BATCH_HEADER_SIZE == 61
    assert h.magic == 2
    assert h.records_count == 4
    assert h.last_offset_delta == 3
    assert h.last_offset == h.base_offset + 3
    assert h.producer_id == 42 and h.producer_epoch == 3 and h.base_sequence == 17
    assert h.is_transactional and not h.is_control
    assert h.compression == 0 and h.timestamp_type == 0
    assert h.base_timestamp == 1_700_000_000_000
    assert h.max_timestamp == 1_700_000_000_030
    assert h.total_size == len(buf)
    assert h.last_sequence == 20
    r.verify_crc(buf, 0, h)


def test_parse_header_at_position_in_memoryview():
    buf = b"\x00" * 5 + kp_batch()
    h = r.parse_header(memoryview(buf), 5)
    assert h.records_count == 3
    r.verify_crc(memoryview(buf), 5, h)


@pytest.mark.parametrize("cut", [0, 1, 16, 17, 60])
def test_parse_header_short(cut):
    with pytest.raises(CorruptRecord):
        r.parse_header(kp_batch()[:cut])


def test_parse_header_wrong_magic():
    buf = bytearray(kp_batch())
    buf[16] = 1
    with pytest.raises(CorruptRecord):
        r.parse_header(buf)


@pytest.mark.parametrize("length", [-1, 0, 48, -(2**31)])
def test_parse_header_bad_length(length):
    buf = bytearray(kp_batch())
    struct.pack_into(">i", buf, 8, length)
    with pytest.raises(CorruptRecord):
        r.parse_header(buf)
    with pytest.raises(CorruptRecord):
        list(r.iter_batches(buf))


def test_parse_header_negative_count():
    buf = bytearray(kp_batch())
    struct.pack_into(">i", buf, 57, -3)
    with pytest.raises(CorruptRecord):
        r.parse_header(buf)


def test_iter_batches_positions_and_partial_tail():
    a, b = kp_batch(2), kp_batch(5)
    blob = a + b + b[:40]
    got = list(r.iter_batches(blob))
    assert [p for p, _ in got] == [0, len(a)]
    assert [h.records_count for _, h in got] == [2, 5]
    with pytest.raises(CorruptRecord):
        list(r.iter_batches(blob, strict=True))
    with pytest.raises(CorruptRecord):
        list(r.iter_batches(a + b[:5], strict=True))
    assert [p for p, _ in r.iter_batches(a + b[:5])] == [0]
    assert list(r.iter_batches(b"")) == []


def test_iter_batches_bad_magic_in_middle():
    a = kp_batch(2)
    bad = bytearray(a)
    bad[16] = 0
    with pytest.raises(CorruptRecord):
        list(r.iter_batches(a + bytes(bad)))


def test_verify_crc_detects_flip_anywhere_after_crc():
    buf = kp_batch(3)
    for i in range(21, len(buf)):
        mutated = bytearray(buf)
        mutated[i] ^= 0x01
        with pytest.raises(CorruptRecord):
            r.verify_crc(mutated, 0, r.parse_header(mutated))


def test_verify_crc_truncated_batch():
    buf = kp_batch(3)
    with pytest.raises(CorruptRecord):
        r.verify_crc(buf[:-1], 0, r.parse_header(buf))


def test_rewrites_outside_crc():
    buf = bytearray(kp_batch(3))
    crc = r.parse_header(buf).crc
    r.set_base_offset(buf, 0, 123456789012)
    r.set_partition_leader_epoch(buf, 0, 9)
    h = r.parse_header(buf)
    assert (h.base_offset, h.partition_leader_epoch, h.crc) == (123456789012, 9, crc)
    r.verify_crc(buf, 0, h)
    # kafka-python's reader agrees
    kb = DefaultRecordBatch(bytes(buf))
    assert kb.base_offset == 123456789012
    assert kb.validate_crc()
    assert [rec.offset for rec in kb] == [123456789012, 123456789013, 123456789014]


def test_rewrites_through_memoryview_at_position():
    blob = bytearray(kp_batch(1) + kp_batch(2))
    view = memoryview(blob)
    (_, _), (pos, _) = list(r.iter_batches(view))
    r.set_base_offset(view, pos, 77)
    r.set_partition_leader_epoch(view, pos, 4)
    h = r.parse_header(blob, pos)
    assert h.base_offset == 77 and h.partition_leader_epoch == 4
    assert r.parse_header(blob, 0).base_offset == 0


def test_set_max_timestamp_log_append_time():
    buf = bytearray(kp_batch(3))
    r.set_max_timestamp(buf, 0, 1_800_000_000_000, 1)
    h = r.parse_header(buf)
    assert h.timestamp_type == 1 and h.max_timestamp == 1_800_000_000_000
    r.verify_crc(buf, 0, h)
    kb = DefaultRecordBatch(bytes(buf))
    assert kb.validate_crc()
    assert kb.timestamp_type == 1
    assert [rec.timestamp for rec in kb] == [1_800_000_000_000] * 3
    r.set_max_timestamp(buf, 0, 5, 0)
    h = r.parse_header(buf)
    assert h.timestamp_type == 0 and h.max_timestamp == 5
    r.verify_crc(buf, 0, h)


def test_errors_are_protocol_errors():
    assert issubclass(CorruptRecord, ProtocolError)
