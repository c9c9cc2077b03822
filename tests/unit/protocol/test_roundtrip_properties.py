"""Property test: random field values survive encode/decode for the busiest APIs, all versions."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import codec
from protocol import messages as M

from .samples import owner, present

_RANGES = {
    "int8": (-(2**7), 2**7 - 1), "int16": (-(2**15), 2**15 - 1), "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-(2**63), 2**63 - 1),
}
APIS = [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 18, 19, 22]


def _in(rng, v):
    return rng is not None and rng[0] <= v <= rng[1]


def _scalar(t: str) -> st.SearchStrategy:
    if t in _RANGES:
        lo, hi = _RANGES[t]
        return st.integers(lo, hi)
    if t == "float64":
        return st.floats(allow_nan=False)
    if t == "bool":
        return st.booleans()
    if t == "string":
        return st.text(max_size=20)
    if t == "uuid":
        return st.binary(min_size=16, max_size=16)
    return st.binary(max_size=40)  # bytes, records


def _value(cls: type, f: M.Field, version: int, depth: int) -> st.SearchStrategy:
    t = f.type
    if t.startswith("[]"):
        elem = t[2:]
        if elem in _RANGES or elem in ("float64", "bool", "string", "uuid", "bytes", "records"):
            inner = _scalar(elem)
        else:
            inner = _struct(getattr(owner(cls), elem), version, depth + 1)
        base = st.lists(inner, max_size=3 if depth < 2 else 0)
    elif t in _RANGES or t in ("float64", "bool", "string", "uuid", "bytes", "records"):
        base = _scalar(t)
    else:
        base = _struct(getattr(owner(cls), t), version, depth + 1)
    if _in(f.nullable, version):
        return st.one_of(st.none(), base)
    return base


def _struct(cls: type, version: int, depth: int = 0) -> st.SearchStrategy:
    fields = [f for f in cls.FIELDS if present(f, version)]
    return st.fixed_dictionaries({f.name: _value(cls, f, version, depth) for f in fields}).map(
        lambda kw: cls(**kw)
    )


@st.composite
def messages(draw: Any) -> tuple[int, int, bool, Any]:
    key = draw(st.sampled_from(APIS))
    spec = M.API_KEYS[key]
    version = draw(st.integers(spec.min_version, spec.max_version))
    is_request = draw(st.booleans())
    cls = spec.request_class if is_request else spec.response_class
    return key, version, is_request, draw(_struct(cls, version))


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
