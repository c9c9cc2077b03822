"""Property tests: whatever build_batch writes, decode_batch and kafka-python read back."""

from hypothesis import given, settings, strategies as st
from kafka.record.default_records import DefaultRecordBatch

from kafpy.protocol import records as r

INT64 = st.integers(-(2**63), 2**63 - 1)
blobs = st.one_of(st.none(), st.binary(max_size=300))
header_lists = st.lists(st.tuples(st.text(max_size=12), blobs), max_size=4)
timestamps = st.integers(0, 2**50)
record_lists = st.lists(st.tuples(blobs, blobs, header_lists, timestamps), max_size=40)


@settings(max_examples=150, deadline=None)
@given(records=record_lists, codec=st.integers(0, 4), base_offset=st.integers(0, 2**62),
       producer_id=st.integers(-1, 2**62), epoch=st.integers(-1, 2**15 - 1),
       seq=st.integers(-1, 2**31 - 1), ple=st.integers(-1, 2**31 - 1),
       transactional=st.booleans())
def test_build_decode_roundtrip(records, codec, base_offset, producer_id, epoch, seq, ple,
                                transactional):
    buf = r.build_batch(records, base_offset=base_offset, compression=codec,
                        producer_id=producer_id, producer_epoch=epoch, base_sequence=seq,
                        partition_leader_epoch=ple, is_transactional=transactional,
                        base_timestamp=records[0][3] if records else 0)
    h, recs = r.decode_batch(buf)
    assert h.total_size == len(buf)
    assert (h.base_offset, h.producer_id, h.producer_epoch, h.base_sequence,
            h.partition_leader_epoch, h.is_transactional, h.compression) == (
        base_offset, producer_id, epoch, seq, ple, transactional, codec if records else 0)
    assert h.records_count == len(records)
    assert [(x.offset(h), x.timestamp(h), x.key, x.value, list(x.headers)) for x in recs] == [
        (base_offset + i, ts, k, v, hs) for i, (k, v, hs, ts) in enumerate(records)]
    kb = DefaultRecordBatch(buf)
    assert kb.validate_crc()
    assert [(x.offset, x.timestamp, x.key, x.value, list(x.headers)) for x in kb] == [
        (base_offset + i, ts, k, v, hs) for i, (k, v, hs, ts) in enumerate(records)]
    # recompressing to another codec changes nothing a reader sees
    other = r.recompress_batch(buf, 0, (codec + 1) % 5)
    assert r.decode_batch(other)[1] == recs


@settings(max_examples=100, deadline=None)
@given(offset=INT64, epoch=st.integers(-(2**31), 2**31 - 1), ts=INT64, ts_type=st.integers(0, 1))
def test_header_rewrites(offset, epoch, ts, ts_type):
    buf = bytearray(r.build_batch([(b"k", b"v")] * 3, base_timestamp=10, compression=3))
    r.set_base_offset(buf, 0, offset)
    r.set_partition_leader_epoch(buf, 0, epoch)
    r.set_max_timestamp(buf, 0, ts, ts_type)
    h = r.parse_header(buf)
    r.verify_crc(buf, 0, h)
    assert (h.base_offset, h.partition_leader_epoch, h.max_timestamp, h.timestamp_type) == (
        offset, epoch, ts, ts_type)
    assert [x.value for x in r.decode_batch(buf)[1]] == [b"v"] * 3
