"""confluent-kafka's Schema Registry client and serializers against kafpy's registry and a
kafpy broker: typed records produced and consumed, Confluent documentation's evolution
examples (a field added with a default is BACKWARD compatible, one without is refused)."""
from __future__ import annotations

import json
import time
import uuid

import pytest
from confluent_kafka import Consumer, Message, Producer
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

USER_V1 = {"type": "record", "name": "User", "namespace": "example.avro", "fields": [
    {"name": "name", "type": "string"},
    {"name": "favorite_number", "type": ["int", "null"]},
    {"name": "favorite_color", "type": ["string", "null"]}]}


def consume_all(bootstrap: str, topic: str, n: int, timeout: float = 30.0) -> list:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex[:6]}",
                         "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    out: list[Message] = []
    deadline = time.monotonic() + timeout
    try:
        while len(out) < n and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                out.append(msg)
    finally:
        consumer.close()
    return out


def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for v in values:
        producer.produce(topic, value=v)
    assert producer.flush(30) == 0


def test_avro_serializer_round_trip(registry, broker):
    client = SchemaRegistryClient({"url": registry.url})
    topic = f"users-{uuid.uuid4().hex[:6]}"
    ser = AvroSerializer(client, json.dumps(USER_V1))
    de = AvroDeserializer(client)
    users = [{"name": f"u{i}", "favorite_number": i, "favorite_color": None} for i in range(5)]
    ctx = SerializationContext(topic, MessageField.VALUE)
    produce(broker.bootstrap, topic, [ser(u, ctx) for u in users])
    got = [de(m.value(), ctx) for m in consume_all(broker.bootstrap, topic, 5)]
    assert got == users
    latest = client.get_latest_version(f"{topic}-value")
    assert latest.version == 1 and latest.schema_id >= 1
    assert client.get_schema(latest.schema_id).schema_type == "AVRO"


def test_json_serializer_round_trip(registry, broker):
    client = SchemaRegistryClient({"url": registry.url})
    topic = f"orders-{uuid.uuid4().hex[:6]}"
    schema = json.dumps({"$schema": "http://json-schema.org/draft-07/schema#", "title": "Order",
                         "type": "object", "properties": {"id": {"type": "integer"}, "item": {"type": "string"}},
                         "required": ["id"]})
    ser = JSONSerializer(schema, client)
    de = JSONDeserializer(schema, schema_registry_client=client)
    ctx = SerializationContext(topic, MessageField.VALUE)
    orders = [{"id": i, "item": f"thing {i}"} for i in range(3)]
    produce(broker.bootstrap, topic, [ser(o, ctx) for o in orders])
    assert [de(m.value(), ctx) for m in consume_all(broker.bootstrap, topic, 3)] == orders
    assert client.get_latest_version(f"{topic}-value").schema.schema_type == "JSON"
    with pytest.raises(Exception):
        ser({"item": "no id"}, ctx)     # the serializer validates against the registered schema


def test_documented_evolution_backward(registry):
    """Confluent's schema-evolution tutorial: adding a field with a default keeps BACKWARD,
    adding one without a default is refused with 409."""
    client = SchemaRegistryClient({"url": registry.url})
    subject = f"transactions-{uuid.uuid4().hex[:6]}-value"
    v1 = {"type": "record", "name": "Payment", "namespace": "io.confluent.examples.clients.basicavro",
          "fields": [{"name": "id", "type": "string"}, {"name": "amount", "type": "double"}]}
    id1 = client.register_schema(subject, Schema(json.dumps(v1), "AVRO"))
    bad = dict(v1, fields=v1["fields"] + [{"name": "region", "type": "string"}])
    assert client.test_compatibility(subject, Schema(json.dumps(bad), "AVRO")) is False
    with pytest.raises(SchemaRegistryError) as e:
        client.register_schema(subject, Schema(json.dumps(bad), "AVRO"))
    assert e.value.http_status_code == 409 and e.value.error_code == 409
    good = dict(v1, fields=v1["fields"] + [{"name": "region", "type": "string", "default": ""}])
    assert client.test_compatibility(subject, Schema(json.dumps(good), "AVRO")) is True
    id2 = client.register_schema(subject, Schema(json.dumps(good), "AVRO"))
    assert id2 > id1
    assert client.get_versions(subject) == [1, 2]
    assert client.register_schema(subject, Schema(json.dumps(v1), "AVRO")) == id1   # already there


def test_config_mode_delete_and_errors(registry):
    client = SchemaRegistryClient({"url": registry.url})
    subject = f"s-{uuid.uuid4().hex[:6]}"
    assert client.get_compatibility() == "BACKWARD"
    client.set_compatibility(subject_name=subject, level="FULL")
    assert client.get_compatibility(subject) == "FULL"
    sid = client.register_schema(subject, Schema('"string"', "AVRO"))
    with pytest.raises(SchemaRegistryError) as e:
        client.register_schema(subject, Schema('{"type": "nonsense"}', "AVRO"))
    assert (e.value.http_status_code, e.value.error_code) == (422, 42201)
    with pytest.raises(SchemaRegistryError) as e:
        client.get_version(subject, 9)
    assert (e.value.http_status_code, e.value.error_code) == (404, 40402)
    with pytest.raises(SchemaRegistryError) as e:
        client.get_latest_version("no-such-subject")
    assert (e.value.http_status_code, e.value.error_code) == (404, 40401)
    assert client.delete_subject(subject) == [1]
    assert subject not in client.get_subjects()
    assert client.delete_subject(subject, permanent=True) == [1]
    client.update_global_mode("READONLY")
    assert client.get_global_mode() == "READONLY"
    try:
        with pytest.raises(SchemaRegistryError) as e:
            client.register_schema(subject, Schema('"string"', "AVRO"))
        assert (e.value.http_status_code, e.value.error_code) == (422, 42205)
    finally:
        client.update_global_mode("READWRITE")
    assert client.register_schema(subject, Schema('"string"', "AVRO")) == sid   # ids are stable


def test_state_survives_a_new_registry_and_is_confluents_json(registry, broker):
    from tests.support.registry_server import RegistryServer
    client = SchemaRegistryClient({"url": registry.url})
    sid = client.register_schema("persist-value", Schema(json.dumps(USER_V1), "AVRO"))
    client.set_compatibility(level="FULL_TRANSITIVE")
    second = RegistryServer(broker.bootstrap).start()
    try:
        other = SchemaRegistryClient({"url": second.url})
        assert json.loads(other.get_schema(sid).schema_str) == USER_V1
        assert other.get_compatibility() == "FULL_TRANSITIVE"
    finally:
        second.stop()
    keys = [json.loads(m.key()) for m in consume_all(broker.bootstrap, "_schemas", 2)]
    assert {"keytype": "SCHEMA", "subject": "persist-value", "version": 1, "magic": 1} in keys
    assert {"keytype": "CONFIG", "subject": None, "magic": 0} in keys


def test_protobuf_schemas_through_the_client(registry):
    client = SchemaRegistryClient({"url": registry.url})
    subject = f"pb-{uuid.uuid4().hex[:6]}-value"
    v1 = 'syntax = "proto3";\npackage ex;\nmessage Payment { string id = 1; double amount = 2; }\n'
    sid = client.register_schema(subject, Schema(v1, "PROTOBUF"))
    got = client.get_schema(sid)
    assert got.schema_type == "PROTOBUF" and "message Payment" in got.schema_str
    # stored and answered as the text protoc's descriptor prints to, the descriptor when asked
    assert got.schema_str == 'syntax = "proto3";\npackage ex;\n\nmessage Payment {\n  string id = 1;\n  double amount = 2;\n}\n'
    import base64
    import urllib.request

    from google.protobuf import descriptor_pb2
    # a client of its own: the client's cache of schemas by id does not key on the format
    serialized = SchemaRegistryClient({"url": registry.url}).get_schema(sid, fmt="serialized").schema_str
    assert [f.name for f in descriptor_pb2.FileDescriptorProto.FromString(
        base64.b64decode(serialized)).message_type[0].field] == ["id", "amount"]
    with urllib.request.urlopen(f"{registry.url}/schemas/ids/{sid}/schema?format=serialized") as raw:
        assert raw.read().decode() == serialized
    with urllib.request.urlopen(f"{registry.url}/schemas/ids/{sid}/schema") as raw:
        assert raw.read().decode() == got.schema_str
    assert client.register_schema(subject, Schema(serialized, "PROTOBUF")) == sid
    v2 = v1.replace("double amount = 2;", "double amount = 2; string region = 3;")
    assert client.test_compatibility(subject, Schema(v2, "PROTOBUF")) is True
    bad = v1.replace("string id = 1;", "int32 id = 1;")
    with pytest.raises(SchemaRegistryError) as e:
        client.register_schema(subject, Schema(bad, "PROTOBUF"))
    assert e.value.http_status_code == 409


READING_PROTO = '''syntax = "proto3";
package kafpy.test;
import "google/protobuf/timestamp.proto";
message Reading {
  string rig = 1;
  double pressure = 2;
  google.protobuf.Timestamp at = 3;
  repeated string tags = 4;
}
'''


def _compiled_reading(tmp_path):
    """The generated Python module of READING_PROTO (protoc in process, as the registry has it)."""
    import importlib.util
    import sys

    import grpc_tools
    from grpc_tools import protoc
    (tmp_path / "reading.proto").write_text(READING_PROTO)
    include = str(__import__("pathlib").Path(grpc_tools.__file__).parent / "_proto")
    assert protoc.main(["protoc", f"-I{tmp_path}", f"-I{include}", f"--python_out={tmp_path}",
                        str(tmp_path / "reading.proto")]) == 0
    spec = importlib.util.spec_from_file_location(f"reading_pb2_{uuid.uuid4().hex[:6]}", tmp_path / "reading_pb2.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_protobuf_serializer_round_trip(registry, broker, tmp_path):
    """confluent-kafka's ProtobufSerializer registers the schema, whose import of the
    well-known google/protobuf/timestamp.proto the registry resolves itself, as Confluent's
    does, and the deserializer reads the records back."""
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
    pb = _compiled_reading(tmp_path)
    client = SchemaRegistryClient({"url": registry.url})
    topic = f"readings-{uuid.uuid4().hex[:6]}"
    ser = ProtobufSerializer(pb.Reading, client, {"use.deprecated.format": False})
    de = ProtobufDeserializer(pb.Reading, {"use.deprecated.format": False})
    ctx = SerializationContext(topic, MessageField.VALUE)
    readings = [pb.Reading(rig=f"r{i}", pressure=1.5 * i, tags=["a", str(i)]) for i in range(3)]
    readings[0].at.seconds = 1700000000
    produce(broker.bootstrap, topic, [ser(r, ctx) for r in readings])
    got = [de(m.value(), ctx) for m in consume_all(broker.bootstrap, topic, 3)]
    assert got == readings
    latest = client.get_latest_version(f"{topic}-value")
    assert latest.schema.schema_type == "PROTOBUF"
    # the client sends no reference for a well-known type: the registry resolves the import itself;
    # it stores and answers .proto text, as Confluent's, and the descriptor for format=serialized
    import base64

    from google.protobuf import descriptor_pb2
    assert latest.schema.references == []
    assert latest.schema.schema_str.startswith('syntax = "proto3";\npackage kafpy.test;\n\n'
                                               'import "google/protobuf/timestamp.proto";\n')
    assert "  .google.protobuf.Timestamp at = 3;" in latest.schema.schema_str.splitlines()
    served = client.get_version(f"{topic}-value", latest.version, fmt="serialized")
    stored = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(served.schema.schema_str))
    assert list(stored.dependency) == ["google/protobuf/timestamp.proto"]
    assert [m.name for m in stored.message_type] == ["Reading"]
    # the same schema sent as text is the same schema: same id, no new version
    assert client.register_schema(f"{topic}-value", Schema(READING_PROTO, "PROTOBUF")) == latest.schema_id
    assert client.get_versions(f"{topic}-value") == [latest.version]
