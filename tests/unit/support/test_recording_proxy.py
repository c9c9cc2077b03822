"""Frame parsing and ApiVersions capping of the recording proxy (no sockets)."""
from __future__ import annotations

import struct

from tests.support.recording_proxy import (cap_api_versions_response, load_request_specs,
                                           produce_codec, request_header)


def _v0_response(entries, corr=9):
    body = struct.pack(">ihi", corr, 0, len(entries))
    return body + b"".join(struct.pack(">hhh", *e) for e in entries)


def _v3_response(entries, corr=9):
    body = struct.pack(">ih", corr, 0) + bytes([len(entries) + 1])
    body += b"".join(struct.pack(">hhh", *e) + b"\x00" for e in entries)
    return body + struct.pack(">i", 0) + b"\x00"  # throttle, no tagged fields


def test_cap_v0_narrows_and_drops():
    frame = _v0_response([(0, 0, 13), (1, 4, 18), (99, 0, 1), (2, 11, 12)])
    capped = cap_api_versions_response(frame, 0, {0: (0, 11), 1: (0, 17), 2: (0, 10)})
    assert capped == _v0_response([(0, 0, 11), (1, 4, 17)])


def test_cap_v3_keeps_the_tail():
    frame = _v3_response([(18, 0, 5), (3, 0, 13)])
    capped = cap_api_versions_response(frame, 4, {18: (0, 4), 3: (0, 12)})
    assert capped == _v3_response([(18, 0, 4), (3, 0, 12)])


def test_unsupported_version_answer_is_read_as_v0():
    frame = struct.pack(">ihi", 9, 35, 1) + struct.pack(">hhh", 18, 0, 4)
    assert cap_api_versions_response(frame, 7, {18: (0, 3)}) == \
        struct.pack(">ihi", 9, 35, 1) + struct.pack(">hhh", 18, 0, 3)


def _produce_v9(codec: int) -> bytes:
    header = struct.pack(">hhih", 0, 9, 42, 3) + b"cli" + b"\x00"
    batch = bytearray(61)
    batch[16] = 2
    struct.pack_into(">h", batch, 21, codec)
    body = b"\x00" + struct.pack(">hi", -1, 30000)  # null transactional id, acks, timeout
    body += b"\x02" + b"\x02t" + b"\x02" + struct.pack(">i", 0)
    body += bytes([len(batch) + 1]) + bytes(batch) + b"\x00\x00\x00"
    return header + body


def test_produce_codec_of_a_flexible_request():
    for codec, name in enumerate(["none", "gzip", "snappy", "lz4", "zstd"]):
        frame = _produce_v9(codec)
        api_key, version, corr, pos = request_header(frame, flexible=True)
        assert (api_key, version, corr) == (0, 9, 42)
        assert produce_codec(frame, version, pos, flexible=True) == name


def test_spec_names_are_snake_case():
    specs = load_request_specs()
    assert specs[0]["name"] == "produce"
    assert specs[22]["name"] == "init_producer_id"
    assert specs[18]["name"] == "api_versions" and specs[18]["flexible_min"] == 3
    assert specs[1]["max"] >= 12


def _produce_v13(codec: int, topic_id: bytes) -> bytes:
    """Produce v13 (Kafka 4.x clients): the topic is named by its id, 16 bytes."""
    header = struct.pack(">hhih", 0, 13, 42, 3) + b"cli" + b"\x00"
    batch = bytearray(61)
    batch[16] = 2
    struct.pack_into(">h", batch, 21, codec)
    body = b"\x00" + struct.pack(">hi", -1, 30000)
    body += b"\x02" + topic_id + b"\x02" + struct.pack(">i", 0)
    body += bytes([len(batch) + 1]) + bytes(batch) + b"\x00\x00\x00"
    return header + body


def test_produce_codec_of_a_request_naming_its_topic_by_id():
    # an id of 0xff bytes read as a name's length was a varint over 5 bytes: the ValueError
    # killed the proxy's thread and closed the client's connection
    for topic_id in (b"\xff" * 16, bytes(16), bytes(range(16))):
        frame = _produce_v13(3, topic_id)
        _api_key, version, _corr, pos = request_header(frame, flexible=True)
        assert produce_codec(frame, version, pos, flexible=True) == "lz4"
