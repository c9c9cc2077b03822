"""The registry's HTTP answers to bad input, as Confluent's: 415 for a wrong content type,
413 past the request bound, 400 for a body that is not JSON, 422/404 bodies with
``error_code``; and the registry keeps serving afterwards."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

CT = "application/vnd.schemaregistry.v1+json"


def call(url: str, method: str = "GET", body: bytes | None = None, ctype: str = CT) -> tuple[int, Any, str]:
    req = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": ctype} if body is not None else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null"), resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null"), e.headers.get("Content-Type", "")


def test_bad_input_answers(registry):
    base = registry.url
    schema = json.dumps({"schema": '"string"'}).encode()
    status, body, _ = call(f"{base}/subjects/s/versions", "POST", schema, "text/plain")
    assert status == 415 and body["error_code"] == 415
    status, body, _ = call(f"{base}/subjects/s/versions", "POST", b"{nope")
    assert status == 400 and body["error_code"] == 400
    big = json.dumps({"schema": json.dumps({"type": "enum", "name": "E", "symbols": [f"S{i}" for i in range(200000)]})}).encode()
    status, body, _ = call(f"{base}/subjects/s/versions", "POST", big)
    assert status == 413
    status, body, _ = call(f"{base}/subjects/s/versions/abc")
    assert (status, body["error_code"]) == (422, 42202)
    status, body, _ = call(f"{base}/schemas/ids/12345")
    assert (status, body["error_code"]) == (404, 40403)
    status, body, _ = call(f"{base}/config", "PUT", json.dumps({"compatibility": "SIDEWAYS"}).encode())
    assert (status, body["error_code"]) == (422, 42203)
    status, body, _ = call(f"{base}/mode", "PUT", json.dumps({"mode": "WHATEVER"}).encode())
    assert (status, body["error_code"]) == (422, 42204)
    status, body, _ = call(f"{base}/config/s")
    assert (status, body["error_code"]) == (404, 40408)
    status, body, ctype = call(f"{base}/subjects/s/versions", "POST", schema)
    assert status == 200 and body == {"id": 1} and ctype.startswith(CT)
    assert call(f"{base}/subjects")[1] == ["s"]
    status, body, _ = call(f"{base}/compatibility/subjects/s/versions/latest?verbose=true", "POST",
                           json.dumps({"schema": '"int"'}).encode())
    assert status == 200 and body["is_compatible"] is False and body["messages"]
    assert call(f"{base}/schemas/types")[1] == ["JSON", "PROTOBUF", "AVRO"]


def _get(url: str, accept: str) -> tuple[int, object]:
    req = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def check_confluent_answers(base: str) -> None:
    """What issue 32 found answered otherwise than by Confluent's registry, over HTTP; shared
    with the broker-mounted registry's test."""
    assert call(f"{base}/schemas/ids/abc")[:2] == (404, {"error_code": 404, "message": "HTTP 404 Not Found"})
    assert _get(f"{base}/subjects", "text/html") == (406, {"error_code": 406, "message": "HTTP 406 Not Acceptable"})
    assert _get(f"{base}/subjects", "application/json;q=0")[0] == 406
    assert _get(f"{base}/subjects", "text/html, application/vnd.schemaregistry.v1+json;q=0.9")[0] == 200
    assert _get(f"{base}/subjects", "*/*")[0] == 200
    addr = 'syntax = "proto3"; package pkg; message Address { string city = 1; }'
    for subject, quoted in (("pkg/address.proto", "pkg%2Faddress.proto"), ("{curly}", "%7Bcurly%7D"),
                            ("{raw}", "{raw}")):
        body = json.dumps({"schemaType": "PROTOBUF", "schema": addr}).encode()
        status, answer, _ = call(f"{base}/subjects/{quoted}/versions", "POST", body)
        assert status == 200 and "id" in answer, (subject, status, answer)
        status, answer, _ = call(f"{base}/subjects/{quoted}/versions/1")
        assert status == 200 and answer["subject"] == subject, (subject, answer)
    assert {"pkg/address.proto", "{curly}", "{raw}"} <= set(call(f"{base}/subjects")[1])
    # a version another subject references: 42206, soft and permanent
    user = 'syntax = "proto3"; import "pkg/address.proto"; message User { pkg.Address home = 1; }'
    refs = [{"name": "pkg/address.proto", "subject": "pkg/address.proto", "version": -1}]
    status, answer, _ = call(f"{base}/subjects/user-value/versions", "POST",
                             json.dumps({"schemaType": "PROTOBUF", "schema": user, "references": refs}).encode())
    assert status == 200, answer
    assert call(f"{base}/subjects/user-value/versions/1")[1]["references"][0]["version"] == 1
    for path in ("/subjects/pkg%2Faddress.proto/versions/1", "/subjects/pkg%2Faddress.proto"):
        status, answer, _ = call(f"{base}{path}", "DELETE")
        assert (status, answer["error_code"]) == (422, 42206), (path, answer)
    assert call(f"{base}/subjects/user-value/versions/1", "DELETE")[:2] == (200, 1)
    assert call(f"{base}/subjects/user-value/versions/1", "DELETE")[1]["error_code"] == 40406
    status, answer, _ = call(f"{base}/subjects/pkg%2Faddress.proto/versions/1?permanent=true", "DELETE")
    assert (status, answer["error_code"]) == (422, 42206)
    status, answer, _ = call(f"{base}/compatibility/subjects/missing/versions/1", "POST",
                             json.dumps({"schema": '"string"'}).encode())
    assert (status, answer["error_code"]) == (404, 40402)


def test_confluent_answers_standalone(registry):
    check_confluent_answers(registry.url)


def test_a_body_near_the_bound_is_read_whole(registry):
    """An 899 KB body (under the 1 MiB bound) arrives in many TCP reads; the registry reads
    all of it (it used to parse only the first read: 400 "Unterminated string")."""
    base = registry.url
    symbols = [f"SYMBOL_{i:07d}" for i in range(45000)]
    big = json.dumps({"schema": json.dumps({"type": "enum", "name": "E", "symbols": symbols})}).encode()
    assert 850_000 < len(big) < 1 << 20
    status, body, _ = call(f"{base}/subjects/big/versions", "POST", big)
    assert status == 200 and body == {"id": 1}
    status, body, _ = call(f"{base}/subjects/big/versions/1")
    assert status == 200 and json.loads(body["schema"])["symbols"][-1] == symbols[-1]
