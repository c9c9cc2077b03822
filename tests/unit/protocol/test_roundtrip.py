"""Encode then decode every request/response of every API at every version."""

from __future__ import annotations

import pytest

from kafpy.protocol import codec
from kafpy.protocol import messages as M

from .samples import all_api_versions, data_messages, sample

API_VERSIONS = all_api_versions()


def _ids(params):
    return [f"{M.API_KEYS[k].name}-v{v}" for k, v in params]


@pytest.mark.parametrize("nulls", [False, True], ids=["values", "nulls"])
@pytest.mark.parametrize("api_key,version", API_VERSIONS, ids=_ids(API_VERSIONS))
def test_request_roundtrip(api_key: int, version: int, nulls: bool) -> None:
    spec = M.API_KEYS[api_key]
    body = sample(spec.request_class, version, nulls=nulls)
    header = M.RequestHeader(
        request_api_key=api_key, request_api_version=version, correlation_id=12345,
        client_id=None if nulls else "client-é",
    )
    if codec.request_header_version(api_key, version) == 0:
        header.client_id = ""  # header v0 (ControlledShutdown v0) carries no client id
    frame = codec.encode_request(header, body)
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    got_header, got_body = codec.decode_request(frame[4:])
    assert got_header == header
    assert got_body == body
    assert codec.encode_request(got_header, got_body) == frame


@pytest.mark.parametrize("nulls", [False, True], ids=["values", "nulls"])
@pytest.mark.parametrize("api_key,version", API_VERSIONS, ids=_ids(API_VERSIONS))
def test_response_roundtrip(api_key: int, version: int, nulls: bool) -> None:
    spec = M.API_KEYS[api_key]
    body = sample(spec.response_class, version, nulls=nulls)
    frame = codec.encode_response(api_key, version, 777, body)
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    cid, got = codec.decode_response(api_key, version, frame[4:])
    assert cid == 777
    assert got == body
    assert codec.encode_response(api_key, version, 777, got) == frame


@pytest.mark.parametrize(
    "cls,version", data_messages(), ids=[f"{c.NAME}-v{v}" for c, v in data_messages()]
)
def test_data_roundtrip(cls: type, version: int) -> None:
    obj = sample(cls, version)
    data = codec.encode_data(obj, version)
    assert codec.decode_data(cls, version, data) == obj
    assert codec.decode_data(cls, version, memoryview(data)) == obj


def test_default_instances_encode_at_every_version() -> None:
    for api_key, version in API_VERSIONS:
        spec = M.API_KEYS[api_key]
        req = spec.request_class()
        header = M.RequestHeader(request_api_key=api_key, request_api_version=version)
        frame = codec.encode_request(header, req)
        assert codec.decode_request(frame[4:])[1] == req
