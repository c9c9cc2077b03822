"""Malformed requests become typed ProtocolError subclasses, never another exception."""

from __future__ import annotations

import random
import struct

import pytest

from kafpy.protocol import codec
from kafpy.protocol import messages as M
from kafpy.protocol.errors import (
    ErrorCode,
    InvalidRequest,
    ProtocolError,
    TruncatedFrame,
    UnknownApiKey,
    UnsupportedVersion,
)

from .samples import sample


def _frame(api_key: int, version: int, body=None, client_id: str | None = "c") -> bytes:
    spec = M.API_KEYS[api_key]
    body = sample(spec.request_class, version) if body is None else body
    header = M.RequestHeader(request_api_key=api_key, request_api_version=version,
                             correlation_id=31337, client_id=client_id)
    return codec.encode_request(header, body)[4:]


def _produce(version: int, records: bytes = b"x" * 64) -> M.ProduceRequest:
    P = M.ProduceRequest
    return P(acks=-1, timeout_ms=1000, topic_data=[
        P.TopicProduceData(name="topic", partition_data=[P.PartitionProduceData(index=0, records=records)])
    ])


@pytest.mark.parametrize("api_key,version", [(0, 3), (0, 9), (1, 4), (1, 12), (3, 1), (3, 12), (18, 3), (11, 7)])
def test_every_truncation_is_a_protocol_error(api_key: int, version: int) -> None:
    frame = _frame(api_key, version)
    for n in range(len(frame)):
        with pytest.raises(ProtocolError):
            codec.decode_request(frame[:n])


def test_short_header_is_truncated() -> None:
    with pytest.raises(TruncatedFrame):
        codec.decode_request(b"\x00\x03\x00")


def test_unknown_api_key_keeps_header() -> None:
    frame = struct.pack(">hhih", 999, 0, 55, 1) + b"c"
    with pytest.raises(UnknownApiKey) as info:
        codec.decode_request(frame)
    assert info.value.api_key == 999
    assert info.value.header is not None
    assert info.value.header.correlation_id == 55
    assert info.value.error_code == ErrorCode.INVALID_REQUEST


def test_unsupported_version_keeps_header() -> None:
    frame = struct.pack(">hhih", 0, 99, 77, 3) + b"cli" + b"\x00"
    with pytest.raises(UnsupportedVersion) as info:
        codec.decode_request(frame)
    exc = info.value
    assert (exc.api_key, exc.version) == (0, 99)
    assert exc.header is not None
    assert exc.header.correlation_id == 77 and exc.header.client_id == "cli"
    assert exc.error_code == ErrorCode.UNSUPPORTED_VERSION == 35


def test_api_versions_beyond_max_reads_a_flexible_header() -> None:
    # A newer client's ApiVersions: header v2 (client id, then tagged fields), unknown body.
    frame = struct.pack(">hhih", 18, 42, 8, 4) + b"java" + b"\x00" + b"\x05junk"
    with pytest.raises(UnsupportedVersion) as info:
        codec.decode_request(frame)
    assert info.value.header is not None
    assert info.value.header.client_id == "java"
    assert info.value.header.correlation_id == 8


def test_negative_string_length() -> None:
    # Metadata v1: topics array of 1, name length -5
    frame = struct.pack(">hhih", 3, 1, 1, -1) + struct.pack(">ih", 1, -5)
    with pytest.raises(InvalidRequest):
        codec.decode_request(frame)


def test_null_in_non_nullable_string() -> None:
    frame = struct.pack(">hhih", 3, 1, 1, -1) + struct.pack(">ih", 1, -1)
    with pytest.raises(InvalidRequest):
        codec.decode_request(frame)


def test_huge_array_count_is_rejected_before_allocation() -> None:
    frame = struct.pack(">hhih", 3, 1, 1, -1) + struct.pack(">i", 0x7FFFFFFF) + b"\x00\x01a"
    with pytest.raises(InvalidRequest):
        codec.decode_request(frame)


def test_huge_compact_array_count() -> None:
    # Metadata v9 (flexible): header v2, topics compact array with count 2**31
    frame = struct.pack(">hhih", 3, 9, 1, -1) + b"\x00" + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x07])
    with pytest.raises(InvalidRequest):
        codec.decode_request(frame)


def test_varint_longer_than_five_bytes() -> None:
    frame = struct.pack(">hhih", 3, 9, 1, -1) + b"\x00" + b"\xff" * 6 + b"\x01"
    with pytest.raises(InvalidRequest):
        codec.decode_request(frame)


def test_invalid_utf8_in_client_id_and_topic() -> None:
    frame = struct.pack(">hhih", 3, 1, 1, 2) + b"\xc3\x28" + struct.pack(">ih", 1, 1) + b"a"
    with pytest.raises(InvalidRequest):
        codec.decode_request(frame)
    frame = struct.pack(">hhih", 3, 1, 1, -1) + struct.pack(">ih", 1, 2) + b"\xff\xfe"
    with pytest.raises(InvalidRequest):
        codec.decode_request(frame)


def test_records_length_past_the_end() -> None:
    good = _frame(0, 3, _produce(3))
    # the records length is the int32 right before the 64 record bytes at the end
    at = len(good) - 64 - 4
    assert struct.unpack_from(">i", good, at)[0] == 64
    bad = good[:at] + struct.pack(">i", 65) + good[at + 4:]
    with pytest.raises(InvalidRequest):
        codec.decode_request(bad)
    bad = good[:at] + struct.pack(">i", -7) + good[at + 4:]
    with pytest.raises(InvalidRequest):
        codec.decode_request(bad)


def test_records_decode_as_a_slice_of_the_frame() -> None:
    frame = bytearray(_frame(0, 9, _produce(9, b"R" * 100)))
    _h, body = codec.decode_request(frame)
    assert isinstance(body, M.ProduceRequest)
    records = body.topic_data[0].partition_data[0].records
    assert isinstance(records, memoryview) and bytes(records) == b"R" * 100
    frame[-4] = ord("Z")  # after the records: 3 tagged-field sections. The slice sees the frame's bytes: nothing was copied
    assert bytes(records)[-1:] == b"Z"


def test_garbage_tagged_fields() -> None:
    frame = _frame(3, 9, M.MetadataRequest(topics=None))
    # body = topics (null: 0x00), allow_auto_topic_creation, include_topic_authorized_operations, tags
    head = frame[:-1]
    for tail in (
        b"\x05",                      # five tagged fields announced, none present
        b"\x01\x00\x10abc",          # one field of 16 bytes, 3 present
        b"\x01\x00",                  # size missing
        b"\x01" + b"\xff" * 6,        # overlong varint for the tag
        b"\x81\x80\x80\x80\x08",      # huge count
    ):
        with pytest.raises(ProtocolError):
            codec.decode_request(head + tail)
    # unknown tags are skipped
    _h, body = codec.decode_request(head + b"\x02\x07\x02ab\x09\x00")
    assert isinstance(body, M.MetadataRequest) and body.topics is None


def test_known_tagged_field_with_wrong_size() -> None:
    # Fetch v12 request's ClusterId is tag 0 (nullable compact string)
    base = _frame(1, 12, M.FetchRequest())
    assert base.endswith(b"\x00")
    bad = base[:-1] + b"\x01\x00\x05\x02ab"  # says 5 bytes, the string uses 3
    with pytest.raises(InvalidRequest):
        codec.decode_request(bad + b"\x00\x00")
    good = base[:-1] + b"\x01\x00\x03\x03ab"
    fetch = codec.decode_request(good)[1]
    assert isinstance(fetch, M.FetchRequest) and fetch.cluster_id == "ab"


def _mutations(rng: random.Random, frame: bytes) -> bytes:
    data = bytearray(frame)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        if op == 0 and data:
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif op == 1 and data:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif op == 2:
            del data[rng.randrange(len(data) + 1):]
        elif op == 3:
            i = rng.randrange(len(data) + 1)
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 4 and len(data) > 8:
            i = rng.randrange(8, len(data))
            data[i:i + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x7f\xff\xff\xff", b"\x80\x00\x00\x00", b"\x00\x00\x00\x00"])
    return bytes(data)


def test_fuzz_only_protocol_errors() -> None:
    rng = random.Random(20240611)
    seeds = []
    for key, spec in sorted(M.API_KEYS.items()):
        for v in {spec.min_version, spec.max_version, (spec.min_version + spec.max_version) // 2}:
            seeds.append(_frame(key, v))
    cases = 0
    decoded = 0
    for i in range(20000):
        if i % 10 == 0:
            frame = bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
            if len(frame) >= 2 and rng.random() < 0.7:
                # a plausible api key and version, random rest
                frame = struct.pack(">hh", rng.choice(list(M.API_KEYS)), rng.randrange(18)) + frame[4:]
        else:
            frame = _mutations(rng, rng.choice(seeds))
        cases += 1
        try:
            codec.decode_request(frame)
            decoded += 1
        except ProtocolError:
            pass
    assert cases == 20000
    assert 0 < decoded < cases  # the mutations exercise both outcomes


def test_fuzz_responses_and_internal_records_only_protocol_errors() -> None:
    rng = random.Random(977)
    seeds = []
    for key, spec in sorted(M.API_KEYS.items()):
        for v in (spec.min_version, spec.max_version):
            body = sample(spec.response_class, v)
            seeds.append((key, v, codec.encode_response(key, v, 1, body)[4:]))
    data_seeds = [
        (cls, v, codec.encode_data(sample(cls, v), v))
        for cls in M.MESSAGES.values() if cls.KIND == "data"
        for v in (cls.VALID_VERSIONS[0], cls.VALID_VERSIONS[1])
    ]
    decoded = 0
    for i in range(6000):
        try:
            if i % 3 == 0:
                cls, v, data = rng.choice(data_seeds)
                codec.decode_data(cls, v, _mutations(rng, data))
            else:
                key, v, frame = rng.choice(seeds)
                codec.decode_response(key, v, _mutations(rng, frame))
            decoded += 1
        except ProtocolError:
            pass
    assert 0 < decoded < 6000
