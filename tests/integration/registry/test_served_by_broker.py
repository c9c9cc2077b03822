"""The Schema Registry and the REST Proxy as a user turns them on: two broker properties beside
``kafpy.http.listeners``, served by the broker itself on its HTTP port, beside /metrics."""
from __future__ import annotations

import json
import time
import urllib.request
import uuid

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient

from kafpy._ports import LOOPBACK, free_port
from tests.integration.registry.test_http_errors import check_confluent_answers

SCHEMA = json.dumps({"type": "record", "name": "Reading", "fields": [{"name": "rig", "type": "string"}]})


def _http(method: str, url: str, body: dict | None = None, content_type: str = "application/json"):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": content_type})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, json.loads(r.read() or b"null")


def test_a_broker_serves_the_registry_and_the_rest_proxy_on_its_http_port(broker_factory):
    port = free_port()
    broker_factory({"kafpy.http.listeners": f"http://{LOOPBACK}:{port}",
                        "kafpy.schema.registry.enable": "true", "kafpy.rest.proxy.enable": "true"})
    url = f"http://{LOOPBACK}:{port}"
    client = SchemaRegistryClient({"url": url})
    subject = f"readings-{uuid.uuid4().hex[:8]}-value"
    deadline = time.monotonic() + 60
    while True:   # the registry answers 50001 until it has read _schemas
        try:
            schema_id = client.register_schema(subject, Schema(SCHEMA, "AVRO"))
            break
        except Exception:  # noqa: BLE001 - not ready yet: retried until the deadline
            assert time.monotonic() < deadline, "the broker's registry never became ready"
            time.sleep(0.5)
    assert client.get_schema(schema_id).schema_str.replace(" ", "") == SCHEMA.replace(" ", "")
    assert client.get_latest_version(subject).schema_id == schema_id

    status, answer = _http("POST", f"{url}/topics/served", {"records": [{"value": {"rig": "a"}}]},
                           "application/vnd.kafka.json.v2+json")
    assert status == 200 and answer["offsets"][0]["offset"] == 0, answer
    # subjects with an encoded "/" and with braces route on the broker's listener too
    check_confluent_answers(url)
    # and the same port still serves the metrics
    with urllib.request.urlopen(f"{url}/metrics", timeout=30) as r:
        assert b"kafka_server_brokertopicmetrics" in r.read()
