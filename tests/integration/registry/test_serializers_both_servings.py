"""confluent-kafka's serializers against kafpy's registry served two ways in one test: mounted
on a broker's HTTP listener, and by ``python -m kafpy.registry`` beside another broker. On
each: Avro with a data contract (metadata and a rule set kept, ``use.latest.with.metadata``
picking the version by its metadata, ``use.latest.version``), JSON Schema, and Protobuf with a
dependency registered under a path with a directory (``pkg/address.proto``) and the
well-known imports confluent-kafka does not register (``google/type/date.proto``,
``google/protobuf/timestamp.proto``). confluent-kafka's rule executors need cel-python and
jsonata, which the test extra does not install: rules are checked as stored and answered."""
from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.schema_registry import Metadata, RuleSet, Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.schema_registry.rule_registry import RuleRegistry
from confluent_kafka.schema_registry.serde import RuleContext, RuleExecutor
from confluent_kafka.serialization import MessageField, SerializationContext, SerializationError

from tests.integration.registry.test_confluent_clients import consume_all, produce
from tests.integration.registry.test_primary_failover import REPO, http
from tests.support.ports import LOOPBACK, free_port

ADDRESS_PROTO = '''syntax = "proto3";
package pkg;
message Address { string city = 1; int32 zip = 2; }
'''
PERSON_PROTO = '''syntax = "proto3";
package app;
import "pkg/address.proto";
import "google/type/date.proto";
import "google/protobuf/timestamp.proto";
message Person {
  string name = 1;
  pkg.Address home = 2;
  google.type.Date birthday = 3;
  google.protobuf.Timestamp seen = 4;
}
'''


def compile_protos(tmp_path: Path) -> object:
    """Compiles the two .proto files with grpcio-tools into importable modules."""
    import importlib.resources

    from grpc_tools import protoc
    src, out = tmp_path / "proto", tmp_path / "gen"
    (src / "pkg").mkdir(parents=True)
    out.mkdir()
    (src / "pkg" / "address.proto").write_text(ADDRESS_PROTO)
    (src / "person.proto").write_text(PERSON_PROTO)
    import google.type.date_pb2 as date
    google_root = Path(date.__file__).parents[2]
    well_known = importlib.resources.files("grpc_tools") / "_proto"
    assert protoc.main(["protoc", f"-I{src}", f"-I{well_known}", f"-I{google_root}", f"--python_out={out}",
                        "pkg/address.proto", "person.proto"]) == 0
    sys.path.insert(0, str(out))
    try:
        return importlib.import_module("person_pb2")
    finally:
        sys.path.remove(str(out))


def wait_ready(url: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if http(f"{url}/subjects")[0] == 200:
                return
        except OSError:   # not listening yet
            pass
        assert time.monotonic() < deadline, f"registry at {url} never became ready"
        time.sleep(0.5)


class NonEmptyName(RuleExecutor):
    """A CONDITION rule executor through confluent-kafka's own extension point (its CEL and
    JSONata executors need packages the test extra does not install): the field the rule's
    ``expr`` names must not be empty."""
    TYPE = "NONEMPTY"

    def type(self) -> str:
        return self.TYPE

    def transform(self, ctx: RuleContext, message: dict) -> bool:
        return bool(message.get(ctx.rule.expr))


USER: dict[str, Any] = {"type": "record", "name": "User", "namespace": "ex", "fields": [{"name": "name", "type": "string"}]}
USER_V2 = {**USER, "fields": USER["fields"] + [{"name": "email", "type": "string", "default": ""}]}


def exercise(url: str, bootstrap: str, person_pb2: object) -> None:
    client = SchemaRegistryClient({"url": url})
    tag = uuid.uuid4().hex[:6]

    # Avro with a data contract; the serializer picks the version by its metadata
    topic = f"users-{tag}"
    subject = f"{topic}-value"
    rules = RuleSet.from_dict({"domainRules": [{"name": "checkName", "kind": "CONDITION", "mode": "WRITE",
                                                "type": NonEmptyName.TYPE, "expr": "name"}]})
    v1 = client.register_schema(subject, Schema(json.dumps(USER), "AVRO", [],
                                                Metadata.from_dict({"properties": {"major": "1"}}), rules))
    v2 = client.register_schema(subject, Schema(json.dumps(USER_V2), "AVRO", [],
                                                Metadata.from_dict({"properties": {"major": "2"}}), rules))
    assert v1 != v2
    latest = client.get_latest_version(subject)
    metadata, rule_set = latest.schema.metadata, latest.schema.rule_set
    assert metadata is not None and metadata.properties is not None
    assert metadata.properties.properties == {"major": "2"}
    assert rule_set is not None and [r.name for r in rule_set.domain_rules or []] == ["checkName"]
    assert client.get_latest_with_metadata(subject, {"major": "1"}).schema_id == v1
    ctx = SerializationContext(topic, MessageField.VALUE)
    registry = RuleRegistry()
    registry.register_executor(NonEmptyName())
    pinned = AvroSerializer(client, None, conf={"auto.register.schemas": False,
                                                "use.latest.with.metadata": {"major": "1"}}, rule_registry=registry)
    newest = AvroSerializer(client, None, conf={"auto.register.schemas": False, "use.latest.version": True},
                            rule_registry=registry)
    produce(bootstrap, topic, [pinned({"name": "old"}, ctx), newest({"name": "new", "email": "n@x"}, ctx)])
    # the condition the registry keeps with the version is the one the serializer runs
    with pytest.raises(SerializationError):
        newest({"name": "", "email": ""}, ctx)
    got = consume_all(bootstrap, topic, 2)
    assert [int.from_bytes(m.value()[1:5], "big") for m in got] == [v1, v2]
    de = AvroDeserializer(client)
    assert [de(m.value(), ctx) for m in got] == [{"name": "old"}, {"name": "new", "email": "n@x"}]

    # JSON Schema
    topic = f"orders-{tag}"
    ctx = SerializationContext(topic, MessageField.VALUE)
    order = json.dumps({"type": "object", "properties": {"id": {"type": "integer"},
                                                         "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                        "required": ["id"]})
    produce(bootstrap, topic, [JSONSerializer(order, client)({"id": 7, "note": None}, ctx)])
    assert JSONDeserializer(order, schema_registry_client=client)(consume_all(bootstrap, topic, 1)[0].value(),
                                                                  ctx) == {"id": 7, "note": None}

    # Protobuf: the dependency registered as "pkg/address.proto", well-known imports resolved
    topic = f"people-{tag}"
    ctx = SerializationContext(topic, MessageField.VALUE)
    Person = getattr(person_pb2, "Person")
    person = Person(name="ada")
    person.home.city, person.home.zip = "London", 1815
    person.birthday.year, person.birthday.month, person.birthday.day = 1815, 12, 10
    person.seen.seconds = 1_700_000_000
    ser = ProtobufSerializer(Person, client, {"use.deprecated.format": False})
    produce(bootstrap, topic, [ser(person, ctx)])
    back = ProtobufDeserializer(Person, {"use.deprecated.format": False})(consume_all(bootstrap, topic, 1)[0].value(),
                                                                           ctx)
    assert back == person
    assert "pkg/address.proto" in client.get_subjects()
    refs = client.get_latest_version(f"{topic}-value").schema.references or []
    assert [(r.name, r.subject) for r in refs] == [("pkg/address.proto", "pkg/address.proto")]
    # the referenced version cannot go while the person schema names it
    status, answer = http_delete(f"{url}/subjects/pkg%2Faddress.proto/versions/1")
    assert (status, answer["error_code"]) == (422, 42206)


def http_delete(url: str) -> tuple[int, dict]:
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_serializers_round_trip_on_the_broker_and_standalone(broker_factory, tmp_path):
    person_pb2 = compile_protos(tmp_path)
    port = free_port()
    mounted = broker_factory({"kafpy.http.listeners": f"http://{LOOPBACK}:{port}",
                              "kafpy.schema.registry.enable": "true"})
    plain = broker_factory()
    standalone_url = f"http://{LOOPBACK}:{free_port()}"
    log = open(tmp_path / "registry.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "kafpy.registry", "--bootstrap-server", plain.bootstrap,
                             "--listener", standalone_url, "--replication-factor", "1"],
                            cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    try:
        for url, bootstrap in ((f"http://{LOOPBACK}:{port}", mounted.bootstrap), (standalone_url, plain.bootstrap)):
            wait_ready(url)
            exercise(url, bootstrap, person_pb2)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()
