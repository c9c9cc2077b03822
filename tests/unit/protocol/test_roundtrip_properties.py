"""Property test: random field values survive encode/decode for the busiest APIs, all versions."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafpy.protocol import codec
from kafpy.protocol import messages as M

from .samples import strategy

APIS = [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 18, 19, 22]


@st.composite
def messages(draw: Any) -> tuple[int, int, bool, Any]:
    key = draw(st.sampled_from(APIS))
    spec = M.API_KEYS[key]
    version = draw(st.integers(spec.min_version, spec.max_version))
    is_request = draw(st.booleans())
    cls = spec.request_class if is_request else spec.response_class
    return key, version, is_request, draw(strategy(cls, version))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(messages(), st.integers(-(2**31), 2**31 - 1))
def test_random_values_roundtrip(msg: tuple, correlation_id: int) -> None:
    key, version, is_request, body = msg
    if is_request:
        header = M.RequestHeader(request_api_key=key, request_api_version=version,
                                 correlation_id=correlation_id, client_id="c")
        frame = codec.encode_request(header, body)
        got_header, got = codec.decode_request(frame[4:])
        assert got_header == header
    else:
        frame = codec.encode_response(key, version, correlation_id, body)
        cid, got = codec.decode_response(key, version, frame[4:])
        assert cid == correlation_id
    assert got == body
