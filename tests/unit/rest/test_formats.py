"""The v2 embedded formats' encoding, against a registry stand-in: Confluent's wire format
(magic 0, 4-byte id, payload) for Avro and JSON Schema, base64 for binary, 42203 on a value
the schema refuses, 42202 for values without a schema."""
import asyncio
import json
import struct

import pytest

from kafpy.registry.errors import RestError
from kafpy.rest.formats import Encoder, decode

USER = json.dumps({"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]})


class FakeRegistry:
    def __init__(self):
        self.schemas = {}
        self.subjects = {}

    async def register(self, subject, schema_type, schema):
        sid = len(self.schemas) + 1
        self.schemas[sid] = (schema_type, schema)
        self.subjects[subject] = sid
        return sid

    async def schema(self, sid):
        return self.schemas[sid]


def run(coro):
    return asyncio.run(coro)


def test_avro_wire_format_round_trip():
    reg = FakeRegistry()
    enc = Encoder("avro", reg)
    sid = run(enc.schema_id("users", "value", {"value_schema": USER}))
    assert reg.subjects == {"users-value": sid}
    raw = run(enc.encode({"name": "testUser"}, sid, "value"))
    assert raw[0] == 0 and struct.unpack(">I", raw[1:5])[0] == sid
    assert run(decode("avro", raw, reg)) == {"name": "testUser"}


def test_avro_value_not_matching_schema_is_42203():
    reg = FakeRegistry()
    enc = Encoder("avro", reg)
    sid = run(enc.schema_id("users", "value", {"value_schema": USER}))
    with pytest.raises(RestError) as e:
        run(enc.encode({"nom": 1}, sid, "value"))
    assert e.value.code == 42203


def test_schema_based_values_need_a_schema():
    with pytest.raises(RestError) as e:
        run(Encoder("avro", FakeRegistry()).encode({"a": 1}, None, "value"))
    assert e.value.code == 42202
    with pytest.raises(RestError) as e:
        run(Encoder("avro", FakeRegistry()).encode({"a": 1}, None, "key"))
    assert e.value.code == 42201


def test_jsonschema_validates_and_prefixes():
    reg = FakeRegistry()
    enc = Encoder("jsonschema", reg)
    schema = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    sid = run(enc.schema_id("t", "value", {"value_schema": schema}))
    raw = run(enc.encode({"n": 3}, sid, "value"))
    assert raw[:5] == b"\0" + struct.pack(">I", sid) and json.loads(raw[5:]) == {"n": 3}
    assert run(decode("jsonschema", raw, reg)) == {"n": 3}
    with pytest.raises(RestError) as e:
        run(enc.encode({"n": "x"}, sid, "value"))
    assert e.value.code == 42203


def test_binary_and_json():
    enc = Encoder("binary", None)
    assert run(enc.encode("S2Fma2E=", None, "value")) == b"Kafka"
    assert run(decode("binary", b"Kafka", None)) == "S2Fma2E="
    with pytest.raises(RestError):
        run(enc.encode("!!", None, "value"))
    assert run(Encoder("json", None).encode({"foo": "bar"}, None, "value")) == b'{"foo":"bar"}'
    assert run(decode("json", b'{"foo":"bar"}', None)) == {"foo": "bar"}
    assert run(enc.encode(None, None, "key")) is None
