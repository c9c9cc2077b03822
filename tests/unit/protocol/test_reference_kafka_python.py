"""Byte-exact comparison with kafka-python 3's own protocol encoder, an independent codec.

For every API both implement, at every version both know, the same message built with
representative values must encode to identical bytes (header included), and our decoder
must read kafka-python's bytes back to the same message.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from kafka.protocol.api_message import ApiMessage

from kafpy.protocol import codec
from kafpy.protocol import messages as M

from .samples import owner, present, sample

_MODULES = ("kafka.protocol.metadata", "kafka.protocol.producer", "kafka.protocol.consumer", "kafka.protocol.admin")


def _kp_classes() -> dict[str, type[ApiMessage]]:
    found: dict[str, type[ApiMessage]] = {}
    for modname in _MODULES:
        mod = importlib.import_module(modname)
        for name in dir(mod):
            obj: type[ApiMessage] = getattr(mod, name)   # once the checks below hold (kafka-python is untyped)
            if (
                isinstance(obj, type)
                and issubclass(obj, ApiMessage)
                and obj is not ApiMessage
                and getattr(obj, "_json", None) is not None
                and obj._json.get("type") in ("request", "response")
            ):
                found[obj.name] = obj
    return found


KP = _kp_classes()


def _cases(kind: str) -> list[tuple[int, int]]:
    out = []
    for key, spec in sorted(M.API_KEYS.items()):
        cls = spec.request_class if kind == "request" else spec.response_class
        kp = KP.get(cls.NAME)
        if kp is None:
            continue
        lo, hi = kp._valid_versions
        for v in range(max(lo, spec.min_version), min(hi, spec.max_version) + 1):
            out.append((key, v))
    return out


REQUESTS = _cases("request")
RESPONSES = _cases("response")


def test_reference_covers_the_main_apis() -> None:
    names = {M.API_KEYS[k].name for k, _ in REQUESTS}
    for name in ("Produce", "Fetch", "Metadata", "ApiVersions", "FindCoordinator", "JoinGroup",
                 "SyncGroup", "OffsetCommit", "OffsetFetch", "ListOffsets", "CreateTopics"):
        assert name in names
    assert len(REQUESTS) > 200 and len(RESPONSES) > 200


def to_kp(obj: Any, kp_cls: type, version: int) -> Any:
    kwargs = {}
    for f in type(obj).FIELDS:
        if not present(f, version):
            continue
        value = getattr(obj, f.name)
        if f.name.endswith("authorized_operations") and f.type == "int32":
            continue  # kafka-python maps these bit sets to its own type; see _plain()
        elem = f.type[2:] if f.type.startswith("[]") else f.type
        if value is not None and hasattr(owner(type(obj)), elem) and elem[0].isupper():
            kp_sub = getattr(kp_cls, elem)
            if f.type.startswith("[]"):
                value = [to_kp(e, kp_sub, version) for e in value]
            else:
                value = to_kp(value, kp_sub, version)
        elif f.type == "uuid" and value is not None:
            import uuid

            # Kafka leaves out a tagged field at its default (the zero UUID here);
            # kafka-python leaves out only None, so hand it None for the same bytes
            tagged = f.tagged is not None and f.tagged[0] <= version <= f.tagged[1]
            value = None if tagged and value == bytes(16) else uuid.UUID(bytes=value)
        elif f.type == "[]uuid" and value is not None:
            import uuid

            value = [uuid.UUID(bytes=e) for e in value]
        kwargs[f.name] = value
    return kp_cls(**kwargs)


def _plain(obj: Any) -> Any:
    """Reset the authorized-operations bit sets to Kafka's "not requested" value, recursively."""
    for f in type(obj).FIELDS:
        value = getattr(obj, f.name)
        if f.name.endswith("authorized_operations") and f.type == "int32":
            setattr(obj, f.name, -2147483648)
        elif isinstance(value, list):
            for e in value:
                if isinstance(e, M.Struct):
                    _plain(e)
        elif isinstance(value, M.Struct):
            _plain(value)
    return obj


def _ids(params):
    return [f"{M.API_KEYS[k].name}-v{v}" for k, v in params]


@pytest.mark.parametrize("api_key,version", REQUESTS, ids=_ids(REQUESTS))
def test_request_bytes_match_kafka_python(api_key: int, version: int) -> None:
    spec = M.API_KEYS[api_key]
    body = sample(spec.request_class, version)
    header = M.RequestHeader(request_api_key=api_key, request_api_version=version,
                             correlation_id=99, client_id="ref-client")
    ours = codec.encode_request(header, body)[4:]
    kp = to_kp(body, KP[spec.request_class.NAME][version], version)
    kp.with_header(correlation_id=99, client_id="ref-client")
    theirs = bytes(kp.encode(header=True))
    assert ours == theirs
    got_header, got_body = codec.decode_request(theirs)
    assert got_header == header and got_body == body


@pytest.mark.parametrize("api_key,version", RESPONSES, ids=_ids(RESPONSES))
def test_response_bytes_match_kafka_python(api_key: int, version: int) -> None:
    spec = M.API_KEYS[api_key]
    body = _plain(sample(spec.response_class, version))
    ours = codec.encode_response(api_key, version, 4242, body)[4:]
    kp = to_kp(body, KP[spec.response_class.NAME][version], version)
    kp.with_header(correlation_id=4242)
    theirs = bytes(kp.encode(header=True))
    assert ours == theirs
    cid, got = codec.decode_response(api_key, version, theirs)
    assert cid == 4242 and got == body


_RANDOM_APIS = [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 19, 22]


def _random_case():
    from hypothesis import strategies as st

    from .samples import strategy

    @st.composite
    def case(draw):
        key = draw(st.sampled_from(_RANDOM_APIS))
        spec = M.API_KEYS[key]
        kp = KP[spec.request_class.NAME]
        lo, hi = max(spec.min_version, kp._valid_versions[0]), min(spec.max_version, kp._valid_versions[1])
        version = draw(st.integers(lo, hi))
        return key, version, draw(strategy(spec.request_class, version))

    return case()


def test_random_requests_match_kafka_python() -> None:
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=300, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(_random_case())
    def check(case) -> None:
        key, version, body = case
        spec = M.API_KEYS[key]
        header = M.RequestHeader(request_api_key=key, request_api_version=version, correlation_id=1, client_id="r")
        ours = codec.encode_request(header, body)[4:]
        kp = to_kp(body, KP[spec.request_class.NAME][version], version)
        kp.with_header(correlation_id=1, client_id="r")
        assert ours == bytes(kp.encode(header=True))

    check()
