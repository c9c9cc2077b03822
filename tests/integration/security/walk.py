"""Sends every API the broker advertises one request naming a topic, a group and a
transactional id (the message built from its schema, arrays given one element), and says
what came back: the authorization error found in the answer, "closed", "empty" (a list
answer filtered to nothing), "unchecked" (APIs served to anyone) or the leaked answer."""
from __future__ import annotations

import socket
from typing import Any

from kafpy.protocol import codec
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Struct
from kafpy.protocol.records import build_batch
from tests.integration.broker.raw import RawConnection
from tests.support.wire import api_versions

ACCEPTABLE = {"closed", "empty", "unchecked"}
AUTH_ERRORS = {e.name for e in (ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.GROUP_AUTHORIZATION_FAILED,
                                ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                                ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)}
# ApiVersions and the SASL exchange are served to anyone; DescribeCluster too (as in Kafka:
# it tells only what Metadata tells about brokers)
UNCHECKED = {18, 17, 36, 60}
FILTER_APIS = {29, 31}  # ACL filters: ANY


def _string(name: str, topic: str, group: str) -> str | None:
    if "group" in name or name in ("key", "coordinator_keys", "groups"):
        return group
    if "transactional" in name:
        return "txn-walk"
    if name == "principal" or name == "principal_filter":
        return "User:ANONYMOUS"
    if name in ("host", "host_filter"):
        return "*"
    if name in ("protocol_type", "protocol_name"):   # SyncGroup v5+ without them is refused before any check
        return "consumer" if name == "protocol_type" else "range"
    if name in ("name", "topic", "topic_name", "resource_name", "topic_names", "resource_name_filter"):
        return topic
    return None


def fill(cls: type[Struct], owner: type, api_key: int, version: int, topic: str, group: str,
         topic_id: bytes = bytes(16)) -> Any:
    obj = cls()
    for f in cls.FIELDS:
        lo, hi = f.versions or (0, -1)
        if not lo <= version <= hi:
            continue
        t, n = f.type, f.name
        if t == "string":
            v = _string(n, topic, group)
            if v is not None:
                setattr(obj, n, v)
        elif t == "[]string":
            v = _string(n, topic, group)
            setattr(obj, n, [v] if v is not None else [])
        elif t == "[]int32" and "partition" in n:
            setattr(obj, n, [0])
        elif t == "uuid" and n == "topic_id":
            setattr(obj, n, topic_id)
        elif t == "records":
            setattr(obj, n, build_batch([(None, b"walk")]))
        elif t.startswith("[]") and hasattr(owner, t[2:]):
            setattr(obj, n, [fill(getattr(owner, t[2:]), owner, api_key, version, topic, group, topic_id)])
        elif t in ("int8", "int16", "int32", "int64"):
            any_ = api_key in FILTER_APIS
            special = {"acks": -1, "resource_type": 2, "resource_type_filter": 1 if any_ else 2,
                       "pattern_type_filter": 1, "resource_pattern_type": 3, "operation": 1 if any_ else 3,
                       "permission_type": 1 if any_ else 3, "timeout_ms": 1000, "max_bytes": 1 << 20,
                       "partition_max_bytes": 1 << 20, "num_partitions": 2, "count": 3, "replication_factor": 1,
                       "session_timeout_ms": 10000, "rebalance_timeout_ms": 10000, "offset": 0}
            if n in special:
                setattr(obj, n, special[n])
        elif hasattr(owner, t) and t not in ("bool", "uuid", "bytes", "float64"):
            setattr(obj, n, fill(getattr(owner, t), owner, api_key, version, topic, group, topic_id))
    return obj


def _errors(obj: Any, out: list[int]) -> None:
    for f in getattr(type(obj), "FIELDS", ()):
        v = getattr(obj, f.name, None)
        if f.name.endswith("error_code") and isinstance(v, int):
            out.append(v)
        elif isinstance(v, list):
            for item in v:
                _errors(item, out)
        elif hasattr(type(v), "FIELDS"):
            _errors(v, out)


def classify(api_key: int, resp: Any) -> str:
    codes: list[int] = []
    _errors(resp, codes)
    for c in codes:
        if ErrorCode(c).name in AUTH_ERRORS:
            return ErrorCode(c).name
    lists = [getattr(resp, f.name) for f in type(resp).FIELDS if f.type.startswith("[]")]
    if lists and not any(lists):
        return "empty"
    return f"LEAK {resp!r}"[:400]


def walk_every_api(port: int, topic: str, group: str, topic_id: bytes) -> dict[int, str]:
    served = api_versions("127.0.0.1", port)
    out: dict[int, str] = {}
    for api_key, (_lo, hi) in sorted(served.items()):
        if api_key in UNCHECKED:
            out[api_key] = "unchecked"
            continue
        version = min(hi, codec.SPECS[api_key].max_version)
        req = fill(codec.request_class(api_key, version), codec.request_class(api_key, version), api_key, version,
                   topic, group, topic_id)
        with RawConnection("127.0.0.1", port, timeout=15) as c:
            try:
                c.sock.sendall(c.frame(api_key, version, req))
                _, resp = codec.decode_response(api_key, version, c.read_frame())
            except (ConnectionError, socket.timeout, OSError):
                out[api_key] = "closed"
                continue
        out[api_key] = classify(api_key, resp)
    return out


