"""The REST Proxy quickstart of Confluent's documentation, run with an HTTP client against
kafpy: produce JSON, binary and Avro (through the registry), a consumer instance created,
subscribed, read, committed and deleted, with the documented answers; v3's cluster, topic,
records and consumer-group lag resources; bad input answered with Confluent's codes."""
from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.request
import uuid

V2 = "application/vnd.kafka.v2+json"


def call(url: str, method: str = "GET", body: object = None, ctype: str = V2,
         accept: str = V2) -> tuple[int, object]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Accept": accept}
    if data is not None or method in ("POST", "PUT"):
        headers["Content-Type"] = ctype
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read()
        return e.code, json.loads(raw) if raw else None


def read_until(url: str, accept: str, n: int, timeout: float = 30) -> list:
    out: list = []
    deadline = time.monotonic() + timeout
    while len(out) < n and time.monotonic() < deadline:
        status, records = call(url, accept=accept)
        assert status == 200, records
        assert isinstance(records, list), records
        out += records
    return out


def test_quickstart_json(rest_proxy):
    base = rest_proxy.url
    topic = f"jsontest-{uuid.uuid4().hex[:6]}"
    status, body = call(f"{base}/topics/{topic}", "POST", {"records": [{"value": {"foo": "bar"}}]},
                        "application/vnd.kafka.json.v2+json")
    assert status == 200
    assert body == {"offsets": [{"partition": 0, "offset": 0, "error_code": None, "error": None}],
                    "key_schema_id": None, "value_schema_id": None}
    group = f"my_json_consumer_{uuid.uuid4().hex[:6]}"
    status, body = call(f"{base}/consumers/{group}", "POST",
                        {"name": "my_consumer_instance", "format": "json", "auto.offset.reset": "earliest"})
    assert status == 200
    assert body == {"instance_id": "my_consumer_instance",
                    "base_uri": f"{base}/consumers/{group}/instances/my_consumer_instance"}
    inst = body["base_uri"]
    assert call(f"{inst}/subscription", "POST", {"topics": [topic]}) == (204, None)
    assert call(f"{inst}/subscription") == (200, {"topics": [topic]})
    records = read_until(f"{inst}/records", "application/vnd.kafka.json.v2+json", 1)
    assert records == [{"topic": topic, "key": None, "value": {"foo": "bar"}, "partition": 0, "offset": 0}]
    status, body = call(f"{inst}/records", accept="application/vnd.kafka.binary.v2+json")
    assert (status, body["error_code"]) == (406, 40601)
    assert call(f"{inst}/offsets", "POST")[0] == 200
    assert call(f"{inst}/offsets", "GET", {"partitions": [{"topic": topic, "partition": 0}]})[1] == \
        {"offsets": [{"topic": topic, "partition": 0, "offset": 1, "metadata": ""}]}
    assert call(inst, "DELETE") == (204, None)
    status, body = call(f"{inst}/records", accept="application/vnd.kafka.json.v2+json")
    assert (status, body["error_code"]) == (404, 40403)


def test_quickstart_binary_with_assign_and_seek(rest_proxy):
    base = rest_proxy.url
    topic = f"binarytest-{uuid.uuid4().hex[:6]}"
    status, body = call(f"{base}/topics/{topic}", "POST",
                        {"records": [{"value": "S2Fma2E="}, {"key": "a2V5", "value": "bG9ncw=="}]},
                        "application/vnd.kafka.binary.v2+json")
    assert status == 200 and [o["offset"] for o in body["offsets"]] == [0, 1]
    group = f"my_binary_consumer_{uuid.uuid4().hex[:6]}"
    inst = call(f"{base}/consumers/{group}", "POST", {"name": "c1", "format": "binary"})[1]["base_uri"]
    assert call(f"{inst}/assignments", "POST", {"partitions": [{"topic": topic, "partition": 0}]})[0] == 204
    assert call(f"{inst}/positions", "POST", {"offsets": [{"topic": topic, "partition": 0, "offset": 1}]})[0] == 204
    records = read_until(f"{inst}/records", "application/vnd.kafka.binary.v2+json", 1)
    assert [(r["key"], r["value"], r["offset"]) for r in records] == [("a2V5", "bG9ncw==", 1)]
    assert call(f"{inst}/positions/beginning", "POST", {"partitions": [{"topic": topic, "partition": 0}]})[0] == 204
    records = read_until(f"{inst}/records", "application/vnd.kafka.binary.v2+json", 2)
    assert base64.b64decode(records[0]["value"]) == b"Kafka"
    assert call(inst, "DELETE")[0] == 204


def test_quickstart_avro_through_the_registry(rest_proxy):
    base = rest_proxy.url
    topic = f"avrotest-{uuid.uuid4().hex[:6]}"
    value_schema = json.dumps({"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]})
    status, body = call(f"{base}/topics/{topic}", "POST",
                        {"value_schema": value_schema, "records": [{"value": {"name": "testUser"}}]},
                        "application/vnd.kafka.avro.v2+json")
    assert status == 200, body
    assert body["offsets"] == [{"partition": 0, "offset": 0, "error_code": None, "error": None}]
    assert body["key_schema_id"] is None and isinstance(body["value_schema_id"], int)
    registered = call(f"{rest_proxy.registry_url}/subjects/{topic}-value/versions/latest",
                      accept="application/vnd.schemaregistry.v1+json")[1]
    assert registered["id"] == body["value_schema_id"]
    status, again = call(f"{base}/topics/{topic}", "POST",
                         {"value_schema_id": body["value_schema_id"], "records": [{"value": {"name": "second"}}]},
                         "application/vnd.kafka.avro.v2+json")
    assert status == 200 and again["offsets"][0]["offset"] == 1
    status, bad = call(f"{base}/topics/{topic}", "POST",
                       {"value_schema_id": body["value_schema_id"], "records": [{"value": {"nom": 1}}]},
                       "application/vnd.kafka.avro.v2+json")
    assert (status, bad["error_code"]) == (422, 42203)
    group = f"my_avro_consumer_{uuid.uuid4().hex[:6]}"
    inst = call(f"{base}/consumers/{group}", "POST",
                {"name": "my_consumer_instance", "format": "avro", "auto.offset.reset": "earliest"})[1]["base_uri"]
    call(f"{inst}/subscription", "POST", {"topics": [topic]})
    records = read_until(f"{inst}/records", "application/vnd.kafka.avro.v2+json", 2)
    assert [r["value"] for r in records] == [{"name": "testUser"}, {"name": "second"}]
    assert call(inst, "DELETE")[0] == 204


def test_avro_values_in_avros_json_encoding(rest_proxy):
    """Unions are objects naming their branch both ways ({"string": ...}), bytes are code
    points 0-255, as Confluent's proxy reads and writes Avro (Avro's JsonDecoder/JsonEncoder)."""
    base = rest_proxy.url
    topic = f"avrounion-{uuid.uuid4().hex[:6]}"
    ct = "application/vnd.kafka.avro.v2+json"
    schema = json.dumps({"type": "record", "name": "User", "namespace": "io.acme", "fields": [
        {"name": "name", "type": "string"}, {"name": "email", "type": ["null", "string"], "default": None},
        {"name": "home", "type": ["null", {"type": "record", "name": "Address",
                                            "fields": [{"name": "city", "type": "string"}]}]},
        {"name": "tag", "type": "bytes"}]})
    values = [{"name": "a", "email": {"string": "a@example.com"}, "home": {"io.acme.Address": {"city": "Oslo"}},
               "tag": "\u00ff\u0000"},
              {"name": "b", "email": None, "home": None, "tag": ""}]
    status, body = call(f"{base}/topics/{topic}", "POST",
                        {"value_schema": schema, "records": [{"value": v} for v in values]}, ct)
    assert status == 200, body
    sid = body["value_schema_id"]
    for bad in ({**values[0], "email": "a@example.com"}, {**values[0], "email": {"int": 1}},
                {**values[0], "home": {"Address": {"city": "Oslo"}}}):   # a named branch needs its full name
        status, answer = call(f"{base}/topics/{topic}", "POST", {"value_schema_id": sid, "records": [{"value": bad}]}, ct)
        assert (status, answer["error_code"]) == (422, 42203), bad
    group = f"union_{uuid.uuid4().hex[:6]}"
    inst = call(f"{base}/consumers/{group}", "POST",
                {"name": "c", "format": "avro", "auto.offset.reset": "earliest"})[1]["base_uri"]
    call(f"{inst}/subscription", "POST", {"topics": [topic]})
    assert [r["value"] for r in read_until(f"{inst}/records", ct, 2)] == values
    assert call(inst, "DELETE")[0] == 204


def test_jsonschema_embedded_format(rest_proxy):
    base = rest_proxy.url
    topic = f"jstest-{uuid.uuid4().hex[:6]}"
    schema = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    ct = "application/vnd.kafka.jsonschema.v2+json"
    status, body = call(f"{base}/topics/{topic}", "POST", {"value_schema": schema, "records": [{"value": {"n": 1}}]}, ct)
    assert status == 200 and body["value_schema_id"] >= 1
    status, body = call(f"{base}/topics/{topic}", "POST", {"value_schema": schema, "records": [{"value": {"n": "x"}}]}, ct)
    assert (status, body["error_code"]) == (422, 42203)


def test_v2_bad_input(rest_proxy):
    base = rest_proxy.url
    status, body = call(f"{base}/topics/t", "POST", {"records": []}, "text/plain")
    assert status == 415
    status, body = call(f"{base}/topics/t", "POST", {"records": [{"value": "!!"}]}, "application/vnd.kafka.binary.v2+json")
    assert (status, body["error_code"]) == (422, 42203)
    status, body = call(f"{base}/topics/t", "POST", {"records": [{"value": {"a": 1}}]}, "application/vnd.kafka.avro.v2+json")
    assert (status, body["error_code"]) == (422, 42202)
    status, body = call(f"{base}/consumers/g/instances/nobody/records", accept="application/vnd.kafka.json.v2+json")
    assert (status, body["error_code"]) == (404, 40403)
    status, body = call(f"{base}/consumers/g", "POST", {"format": "xml"})
    assert (status, body["error_code"]) == (422, 42204)


def test_v3_cluster_topics_records_and_lag(rest_proxy, broker):
    base = rest_proxy.url
    status, clusters = call(f"{base}/v3/clusters", accept="application/json")
    assert status == 200 and clusters["kind"] == "KafkaClusterList"
    cluster_id = clusters["data"][0]["cluster_id"]
    c = f"{base}/v3/clusters/{cluster_id}"
    brokers = call(f"{c}/brokers")[1]["data"]
    assert [b["broker_id"] for b in brokers] == [0] and brokers[0]["port"] == broker.port
    topic = f"v3-{uuid.uuid4().hex[:6]}"
    status, created = call(f"{c}/topics", "POST", {"topic_name": topic, "partitions_count": 3, "replication_factor": 1,
                                                   "configs": [{"name": "cleanup.policy", "value": "compact"}]},
                           "application/json")
    assert status == 201 and created["partitions_count"] == 3 and created["topic_name"] == topic
    assert call(f"{c}/topics", "POST", {"topic_name": topic}, "application/json")[0] == 400
    assert [p["partition_id"] for p in call(f"{c}/topics/{topic}/partitions")[1]["data"]] == [0, 1, 2]
    configs = {x["name"]: x for x in call(f"{c}/topics/{topic}/configs")[1]["data"]}
    assert configs["cleanup.policy"]["value"] == "compact"
    status, rec = call(f"{c}/topics/{topic}/records", "POST",
                       {"partition_id": 1, "key": {"type": "STRING", "data": "k"}, "value": {"type": "JSON", "data": {"a": 1}}},
                       "application/json")
    assert status == 200 and rec["error_code"] == 200 and rec["partition_id"] == 1 and rec["offset"] == 0
    assert rec["value"] == {"type": "JSON", "size": 7}
    status, rec = call(f"{c}/topics/{topic}/records", "POST", {"partition_id": 1, "key": {"type": "BINARY", "data": "AAE="}},
                       "application/json")
    assert status == 200 and rec["offset"] == 1 and "value" not in rec
    assert call(f"{c}/topics/nope/partitions")[0] == 404
    # a group that committed offset 1 of 2 lags by one
    group = f"lag-{uuid.uuid4().hex[:6]}"
    inst = call(f"{base}/consumers/{group}", "POST", {"name": "c", "format": "binary"})[1]["base_uri"]
    call(f"{inst}/assignments", "POST", {"partitions": [{"topic": topic, "partition": 1}]})
    assert call(f"{inst}/offsets", "POST", {"offsets": [{"topic": topic, "partition": 1, "offset": 1}]})[0] == 200
    lags = call(f"{c}/consumer-groups/{group}/lags")[1]["data"]
    assert [(x["partition_id"], x["current_offset"], x["log_end_offset"], x["lag"]) for x in lags] == [(1, 1, 2, 1)]
    assert call(f"{c}/consumer-groups/{group}/lag-summary")[1]["total_lag"] == 1
    call(inst, "DELETE")
    assert call(f"{c}/consumer-groups/no-such-group")[0] == 404
    assert call(f"{c}/topics/{topic}", "DELETE")[0] == 204
