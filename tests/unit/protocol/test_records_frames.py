"""Record batches in frames captured from real clients and from Apache Kafka itself.

Produce requests of the Java client, librdkafka and kafka-python, one per codec, and
Kafka's Fetch responses (tests/data/frames, see its README) must parse, pass the CRC
check and decode to the payloads the capture wrote: ``<client>-<codec>-<nnn> ...``.
"""

import re
from pathlib import Path

import pytest

from kafpy.protocol import records as r
from kafpy.protocol.codec import decode_request, decode_response

FRAMES = Path(__file__).resolve().parents[2] / "data" / "frames"
CODEC_IDS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
PRODUCE = re.compile(r"produce_v(\d+)_(java|librdkafka|kafka_python)_(\w+)\.bin$")
FETCH = re.compile(r"fetch_v(\d+)_(java|librdkafka|kafka_python)\.resp\.bin$")


def produce_frames():
    return sorted(p for p in FRAMES.glob("produce_*.bin") if PRODUCE.search(p.name))


def fetch_responses():
    return sorted(p for p in FRAMES.glob("fetch_*.resp.bin") if FETCH.search(p.name))


def test_java_client_frames_cover_every_codec():
    java = {PRODUCE.search(p.name).group(3) for p in produce_frames() if "_java_" in p.name}
    assert java == set(CODEC_IDS)


@pytest.mark.parametrize("path", produce_frames(), ids=lambda p: p.name)
def test_produce_request_batches(path):
    _, client, codec_name = PRODUCE.search(path.name).groups()
    _, body = decode_request(path.read_bytes())
    seen = 0
    for topic in body.topic_data:
        for part in topic.partition_data:
            blob = part.records
            batches = list(r.iter_batches(blob, strict=True))
            assert batches
            for pos, h in batches:
                r.verify_crc(blob, pos, h)
                _, recs = r.decode_batch(blob, pos)
                assert len(recs) == h.records_count == h.last_offset_delta + 1
                for rec in recs:
                    value = bytes(rec.value)
                    assert value.startswith(f"{client}-".encode()), value[:40]
                # the payload names the codec it was produced with; the file name gives
                # the codec of the request's first batch
                assert {bytes(x.value)[len(client) + 1:].split(b"-")[0] for x in recs} == {
                    codec_name.encode()}
                if not seen:
                    assert h.compression == CODEC_IDS[codec_name]
                # what the broker would do with it: recompress, reassign, still valid
                for target in CODEC_IDS.values():
                    out = bytearray(r.recompress_batch(blob, pos, target))
                    r.set_base_offset(out, 0, 12345)
                    r.set_partition_leader_epoch(out, 0, 7)
                    r.set_max_timestamp(out, 0, 1_800_000_000_000, 1)
                    r.verify_crc(out, 0)
                    assert r.decode_batch(out)[1] == recs
                seen += 1
    assert seen


@pytest.mark.parametrize("path", fetch_responses(), ids=lambda p: p.name)
def test_kafka_fetch_response_batches(path):
    version = int(FETCH.search(path.name).group(1))
    _, body = decode_response(1, version, path.read_bytes())
    codecs = set()
    decoded = 0
    for topic in body.responses:
        for part in topic.partitions:
            if part.records is None:
                continue
            for pos, h in r.iter_batches(part.records):
                r.verify_crc(part.records, pos, h)
                _, recs = r.decode_batch(part.records, pos)
                assert [x.offset(h) for x in recs] == list(range(h.base_offset, h.last_offset + 1))
                codecs.add(h.compression)
                decoded += len(recs)
    assert decoded
    assert codecs == set(CODEC_IDS.values())
