"""The codec's entry points: headers, zero-copy chunks, the ApiVersions special case."""

from __future__ import annotations

import struct

import pytest

from kafpy.protocol import codec
from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode, UnknownApiKey, UnsupportedVersion


class FakeSlice:
    """A stand-in for storage's FileRecordsSlice: ``size`` plus ``read_bytes()``."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.size = len(data)

    def read_bytes(self) -> bytes:
        return self.data


def _fetch_response(records: list) -> M.FetchResponse:
    F = M.FetchResponse
    return F(responses=[F.FetchableTopicResponse(topic="t", topic_id=bytes(range(16)), partitions=[
        F.PartitionData(partition_index=i, high_watermark=10, records=r) for i, r in enumerate(records)
    ])])


def _join(chunks: list) -> bytes:
    return b"".join(c if isinstance(c, bytes) else c.read_bytes() for c in chunks)


@pytest.mark.parametrize("version", [4, 11, 12, 16])
def test_chunks_keep_record_slices_uncopied(version: int) -> None:
    slices = [FakeSlice(b"A" * 1000), FakeSlice(b"B" * 3), None, b"inline-bytes"]
    body = _fetch_response(slices)
    chunks = codec.encode_response_chunks(1, version, 9, body)
    assert chunks[1] is slices[0] and chunks[3] is slices[1]
    assert all(isinstance(c, bytes) for i, c in enumerate(chunks) if i not in (1, 3))
    whole = _join(chunks)
    assert struct.unpack_from(">i", whole)[0] == len(whole) - 4
    sizes = sum(c.size if not isinstance(c, bytes) else len(c) for c in chunks)
    assert sizes == len(whole)
    # encode_response reads the slices and gives the same bytes
    assert codec.encode_response(1, version, 9, body) == whole
    cid, got = codec.decode_response(1, version, whole[4:])
    assert cid == 9 and isinstance(got, M.FetchResponse)
    recs = [p.records for p in got.responses[0].partitions]
    assert [None if r is None else bytes(r) for r in recs] == [b"A" * 1000, b"B" * 3, None, b"inline-bytes"]


def test_chunks_without_slices_is_one_item() -> None:
    chunks = codec.encode_response_chunks(1, 12, 3, _fetch_response([b"xyz"]))
    assert len(chunks) == 1 and chunks[0] == codec.encode_response(1, 12, 3, _fetch_response([b"xyz"]))


def test_large_chunks_without_slices_keep_the_body_apart() -> None:
    body = _fetch_response([b"x" * 70000, b"y" * 100])
    chunks = codec.encode_response_chunks(1, 12, 3, body)
    assert len(chunks) == 2 and len(chunks[0]) == 9  # size, correlation id, header tags
    assert b"".join(chunks) == codec.encode_response(1, 12, 3, body)


def test_slices_at_the_front_and_back() -> None:
    for version in (4, 12):
        s1, s2 = FakeSlice(b"first"), FakeSlice(b"second!")
        body = _fetch_response([s1, s2])
        chunks = codec.encode_response_chunks(1, version, 8, body)
        assert [c for c in chunks if not isinstance(c, bytes)] == [s1, s2]
        assert _join(chunks) == codec.encode_response(1, version, 8, _fetch_response([b"first", b"second!"]))
    # a slice in a request encodes by reading it
    P = M.ProduceRequest
    req = P(acks=1, topic_data=[P.TopicProduceData(name="t", partition_data=[
        P.PartitionProduceData(index=0, records=FakeSlice(b"abc"))])])
    hdr = M.RequestHeader(request_api_key=0, request_api_version=9)
    frame = codec.encode_request(hdr, req)
    decoded = codec.decode_request(frame[4:])[1]
    assert isinstance(decoded, P)
    assert bytes(decoded.topic_data[0].partition_data[0].records) == b"abc"


def test_records_memoryview_is_encoded_by_nbytes() -> None:
    mv = memoryview(bytearray(b"0123456789")).cast("B")[2:8]
    frame = codec.encode_response(1, 4, 1, _fetch_response([mv]))
    _cid, got = codec.decode_response(1, 4, frame[4:])
    assert isinstance(got, M.FetchResponse)
    assert bytes(got.responses[0].partitions[0].records) == b"234567"


def test_api_versions_response_header_is_always_v0() -> None:
    body = M.ApiVersionsResponse(api_keys=[M.ApiVersionsResponse.ApiVersion(api_key=0, min_version=0, max_version=11)])
    frame = codec.encode_response(18, 3, 0x01020304, body)
    # size, correlation id, then directly the error code (no header tagged-field byte)
    assert frame[4:8] == b"\x01\x02\x03\x04"
    assert frame[8:10] == b"\x00\x00"
    assert codec.response_header_version(18, 3) == 0
    assert codec.response_header_version(3, 9) == 1
    assert codec.response_header_version(3, 8) == 0


def test_request_header_versions() -> None:
    assert codec.request_header_version(18, 3) == 2
    assert codec.request_header_version(18, 2) == 1
    assert codec.request_header_version(7, 0) == 0
    assert codec.request_header_version(7, 1) == 1
    assert codec.request_header_version(0, 9) == 2


def test_unsupported_api_versions_response() -> None:
    frame = codec.unsupported_api_versions_response(17, [(0, 0, 11), (18, 0, 4)])
    assert struct.unpack_from(">i", frame)[0] == len(frame) - 4
    expected = (
        struct.pack(">i", 17) + struct.pack(">h", 35) + struct.pack(">i", 2)
        + struct.pack(">hhh", 0, 0, 11) + struct.pack(">hhh", 18, 0, 4)
    )
    assert frame[4:] == expected
    cid, body = codec.decode_response(18, 0, frame[4:])
    assert isinstance(body, M.ApiVersionsResponse)
    assert cid == 17 and body.error_code == ErrorCode.UNSUPPORTED_VERSION


def test_encode_request_and_response_reject_unknown_versions() -> None:
    with pytest.raises(UnsupportedVersion):
        codec.encode_response(0, 99, 1, M.ProduceResponse())
    with pytest.raises(UnknownApiKey):
        codec.encode_response(999, 0, 1, M.ProduceResponse())
    with pytest.raises(UnsupportedVersion):
        codec.encode_request(M.RequestHeader(request_api_key=0, request_api_version=99), M.ProduceRequest())


def test_non_nullable_none_is_refused_on_encode() -> None:
    with pytest.raises(ValueError):
        codec.encode_response(3, 1, 1, M.MetadataResponse(topics=None))  # type: ignore[arg-type]  # the None refused


def test_decode_accepts_bytes_bytearray_memoryview() -> None:
    h = M.RequestHeader(request_api_key=3, request_api_version=12, correlation_id=5, client_id="x")
    body = M.MetadataRequest(topics=[M.MetadataRequest.MetadataRequestTopic(name="a")])
    frame = codec.encode_request(h, body)[4:]
    for buf in (frame, bytearray(frame), memoryview(frame), memoryview(b"??" + frame)[2:]):
        assert codec.decode_request(buf) == (h, body)


def test_tagged_fields_written_only_when_not_default() -> None:
    P = M.ProduceResponse
    plain = P(responses=[P.TopicProduceResponse(name="t", partition_responses=[P.PartitionProduceResponse(index=0)])])
    tagged = P(responses=[P.TopicProduceResponse(name="t", partition_responses=[P.PartitionProduceResponse(
        index=0, current_leader=P.LeaderIdAndEpoch(leader_id=2, leader_epoch=5))])])
    a = codec.encode_response(0, 10, 1, plain)
    b = codec.encode_response(0, 10, 1, tagged)
    assert len(b) > len(a)
    assert codec.decode_response(0, 10, b[4:])[1] == tagged
    assert codec.decode_response(0, 10, a[4:])[1] == plain


def test_data_records_of_internal_topics() -> None:
    key = M.OffsetCommitKey(group="g", topic="t", partition=3)
    data = codec.encode_data(key, 1)
    assert data == b"\x00\x01g\x00\x01t\x00\x00\x00\x03"
    assert codec.decode_data(M.OffsetCommitKey, 1, data) == key
    value = M.OffsetCommitValue(offset=42, leader_epoch=7, metadata="", commit_timestamp=1000)
    assert codec.decode_data(M.OffsetCommitValue, 3, codec.encode_data(value, 3)) == value
    with pytest.raises(UnsupportedVersion):
        codec.encode_data(key, 5)


def test_precompile_builds_every_request_decoder_and_response_encoder() -> None:
    n = codec.precompile([0, 1])
    spec0, spec1 = M.API_KEYS[0], M.API_KEYS[1]
    expected = 2 * ((spec0.max_version - spec0.min_version + 1) + (spec1.max_version - spec1.min_version + 1)) + 3
    assert n == expected
    assert codec.decoder_for(M.ProduceRequest, spec0.max_version) is codec.decoder_for(M.ProduceRequest, spec0.max_version)


def test_concurrent_first_use_builds_consistent_functions() -> None:
    import threading

    results: list = []
    errors: list = []

    def work() -> None:
        try:
            for key in (19, 20, 32, 33, 37, 44):
                spec = M.API_KEYS[key]
                for v in range(spec.min_version, spec.max_version + 1):
                    body = spec.response_class()
                    frame = codec.encode_response(key, v, 5, body)
                    results.append(codec.decode_response(key, v, frame[4:])[1] == body)
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert results and all(results)
