"""confluent-kafka's serializers against kafpy's registry served two ways in one test: mounted
on a broker's HTTP listener, and by ``python -m kafpy.registry`` beside another broker. On
each: Avro with a data contract (metadata and a rule set kept, ``use.latest.with.metadata``
picking the version by its metadata, ``use.latest.version``), JSON Schema, and Protobuf with a
dependency registered under a path with a directory (``pkg/address.proto``) and the
well-known imports confluent-kafka does not register (``google/type/date.proto``,
``google/protobuf/timestamp.proto``). The data contract's rules run in confluent-kafka's own
CEL, CEL_FIELD and JSONata executors (cel-python and jsonata-python, in the test extra), taken
from what the registry stored and answered: a CEL condition, a CEL_FIELD transform of a tagged
field and a JSONata UPGRADE migration between two major versions."""
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
from confluent_kafka.schema_registry.rules.cel.cel_executor import CelExecutor
from confluent_kafka.schema_registry.rules.cel.cel_field_executor import CelFieldExecutor
from confluent_kafka.schema_registry.rules.jsonata.jsonata_executor import JsonataExecutor
from confluent_kafka.schema_registry.serde import RuleConditionError
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


def real_executors() -> RuleRegistry:
    """confluent-kafka's own CEL, CEL_FIELD and JSONata executors (cel-python and
    jsonata-python, in the test extra), in a registry of their own so the test does not depend
    on what other tests registered globally."""
    registry = RuleRegistry()
    for executor in (CelExecutor(), CelFieldExecutor(), JsonataExecutor()):
        registry.register_executor(executor)
    return registry


PII = {"name": "ssn", "type": "string", "confluent:tags": ["PII"]}
USER: dict[str, Any] = {"type": "record", "name": "User", "namespace": "ex",
                        "fields": [{"name": "name", "type": "string"}, PII]}
# major version 2 renames a field: incompatible, so readers on version 2 need the migration
USER_V2: dict[str, Any] = {**USER, "fields": [{"name": "full_name", "type": "string"}, PII]}
# the tagged field rewritten on write (the guard before ";" picks string fields)
MASK = "typeName == 'STRING' ; value + '#masked'"
UPGRADE = "$merge([$sift($, function($v, $k) {$k != 'name'}), {'full_name': $.'name'}])"


def contract(major: str, rules: dict) -> tuple[Metadata, RuleSet]:
    return Metadata.from_dict({"properties": {"major": major}}), RuleSet.from_dict(rules)


def exercise_data_contract(client: SchemaRegistryClient, bootstrap: str, tag: str) -> None:
    """Avro with rules the registry keeps with each version and confluent-kafka's executors run:
    a CEL condition refuses a record on write, a CEL_FIELD transform rewrites the PII-tagged
    field on write, a JSONata migration upgrades version 1's records for a reader pinned to
    major version 2 with ``use.latest.with.metadata``."""
    topic = f"users-{tag}"
    subject = f"{topic}-value"
    client.set_compatibility(subject, "NONE")
    v1 = client.register_schema(subject, Schema(json.dumps(USER), "AVRO", [], *contract("1", {"domainRules": [
        {"name": "checkName", "kind": "CONDITION", "mode": "WRITE", "type": "CEL", "expr": "message.name != ''",
         "doc": "v1: name must not be empty"},
        {"name": "maskPii", "kind": "TRANSFORM", "mode": "WRITE", "type": "CEL_FIELD", "tags": ["PII"],
         "expr": MASK}]})))
    v2 = client.register_schema(subject, Schema(json.dumps(USER_V2), "AVRO", [], *contract("2", {
        "domainRules": [{"name": "checkFullName", "kind": "CONDITION", "mode": "WRITE", "type": "CEL",
                         "expr": "message.full_name != ''", "doc": "v2: full_name must not be empty"},
                        {"name": "maskPii", "kind": "TRANSFORM", "mode": "WRITE", "type": "CEL_FIELD",
                         "tags": ["PII"], "expr": MASK}],
        "migrationRules": [{"name": "nameToFullName", "kind": "TRANSFORM", "mode": "UPGRADE", "type": "JSONATA",
                            "expr": UPGRADE}]})))
    assert v1 != v2
    latest = client.get_latest_version(subject)
    metadata, rule_set = latest.schema.metadata, latest.schema.rule_set
    assert metadata is not None and metadata.properties is not None
    assert metadata.properties.properties == {"major": "2"}
    assert rule_set is not None and [r.name for r in rule_set.migration_rules or []] == ["nameToFullName"]
    assert client.get_latest_with_metadata(subject, {"major": "1"}).schema_id == v1

    ctx = SerializationContext(topic, MessageField.VALUE)
    registry = real_executors()
    # no schema and no rules given here: both come from what the registry answers
    pinned = AvroSerializer(client, None, conf={"auto.register.schemas": False,
                                                "use.latest.with.metadata": {"major": "1"}}, rule_registry=registry)
    newest = AvroSerializer(client, None, conf={"auto.register.schemas": False, "use.latest.version": True},
                            rule_registry=registry)
    produce(bootstrap, topic, [pinned({"name": "ada", "ssn": "123"}, ctx),
                               newest({"full_name": "grace", "ssn": "456"}, ctx)])
    # each version's CEL condition refuses the record it does not hold
    for serializer, record, doc in ((pinned, {"name": "", "ssn": "1"}, "v1: name must not be empty"),
                                    (newest, {"full_name": "", "ssn": "1"}, "v2: full_name must not be empty")):
        with pytest.raises(SerializationError) as refused:
            serializer(record, ctx)
        assert isinstance(refused.value.__cause__, RuleConditionError)
        assert str(refused.value.__cause__) == doc
    got = consume_all(bootstrap, topic, 2)
    assert [int.from_bytes(m.value()[1:5], "big") for m in got] == [v1, v2]
    # as written: each record in its own version, the tagged field rewritten, nothing migrated
    as_written = AvroDeserializer(client, rule_registry=registry)
    assert [as_written(m.value(), ctx) for m in got] == [{"name": "ada", "ssn": "123#masked"},
                                                         {"full_name": "grace", "ssn": "456#masked"}]
    # a reader on major version 2 gets version 1's record upgraded by version 2's migration rule
    on_v2 = AvroDeserializer(client, conf={"use.latest.with.metadata": {"major": "2"}}, rule_registry=registry)
    assert [on_v2(m.value(), ctx) for m in got] == [{"full_name": "ada", "ssn": "123#masked"},
                                                    {"full_name": "grace", "ssn": "456#masked"}]


def exercise(url: str, bootstrap: str, person_pb2: object) -> None:
    client = SchemaRegistryClient({"url": url})
    tag = uuid.uuid4().hex[:6]
    exercise_data_contract(client, bootstrap, tag)

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
