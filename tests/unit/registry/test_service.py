"""The registry's operations over an in-memory log: what is written to ``_schemas`` (in
Confluent's JSON) and what is answered, including Confluent's error codes."""
import asyncio
import json

import pytest

from kafpy.registry.errors import RestError
from kafpy.registry.service import SchemaRegistry
from kafpy.registry.state import RegistryState


class MemoryLog:
    """A stand-in for ``_schemas``: appends and applies at once, keeps every record."""

    def __init__(self):
        self.state = RegistryState()
        self.records = []

    async def write(self, batch):
        for key, value in batch:
            self.records.append((key, value))
            self.state.apply(len(self.records) - 1, key, value)

    def replay(self):
        state = RegistryState()
        for i, (k, v) in enumerate(self.records):
            state.apply(i, k, v)
        return state


@pytest.fixture
def log():
    return MemoryLog()


@pytest.fixture
def sr(log):
    return SchemaRegistry(log.state, log.write)


def run(coro):
    return asyncio.run(coro)


def avro(*fields):
    return {"schema": json.dumps({"type": "record", "name": "User", "fields": list(fields)})}


NAME = {"name": "name", "type": "string"}


def code_of(fn):
    with pytest.raises(RestError) as e:
        fn()
    return e.value.code, e.value.status


def test_register_gives_global_stable_ids_and_versions(sr, log):
    assert run(sr.register("a-value", avro(NAME))) == 1
    assert run(sr.register("a-value", avro(NAME))) == 1           # same schema: same id, no write
    assert run(sr.register("b-value", avro(NAME))) == 1           # same schema elsewhere: same id
    assert len(log.records) == 2
    assert run(sr.register("a-value", avro(NAME, {"name": "age", "type": "int", "default": 1}))) == 2
    assert [sv.version for sv in log.state.versions("a-value")] == [1, 2]
    key, value = log.records[0]
    assert json.loads(key) == {"keytype": "SCHEMA", "subject": "a-value", "version": 1, "magic": 1}
    assert list(json.loads(key)) == ["keytype", "subject", "version", "magic"]
    v = json.loads(value)
    assert v["subject"] == "a-value" and v["version"] == 1 and v["id"] == 1 and v["deleted"] is False
    assert "schemaType" not in v


def test_backward_breaking_refused_with_409_nothing_written(sr, log):
    run(sr.register("s", avro(NAME)))
    n = len(log.records)
    assert code_of(lambda: run(sr.register("s", avro(NAME, {"name": "age", "type": "int"})))) == (409, 409)
    assert len(log.records) == n


def test_invalid_schema_422(sr):
    assert code_of(lambda: run(sr.register("s", {"schema": "{not json"}))) == (42201, 422)
    assert code_of(lambda: run(sr.register("s", {"schema": '{"type":"record","name":"X"}'}))) == (42201, 422)
    assert code_of(lambda: run(sr.register("s", {"schema": "message {", "schemaType": "PROTOBUF"}))) == (42201, 422)


def test_lookups_and_404s(sr):
    run(sr.register("s", avro(NAME)))
    assert sr.lookup("s", avro(NAME)).id == 1
    assert code_of(lambda: sr.lookup("nope", avro(NAME))) == (40401, 404)
    assert code_of(lambda: sr.lookup("s", avro({"name": "x", "type": "int"}))) == (40403, 404)
    assert code_of(lambda: sr.version("s", "7")) == (40402, 404)
    assert code_of(lambda: sr.version("s", "0")) == (42202, 422)
    assert code_of(lambda: sr.schema_by_id(99)) == (40403, 404)
    assert sr.version("s", "latest").version == 1


def test_soft_then_hard_delete(sr, log):
    run(sr.register("s", avro(NAME)))
    assert code_of(lambda: run(sr.delete_subject("s", permanent=True))) == (40405, 404)
    assert run(sr.delete_subject("s", permanent=False)) == [1]
    assert log.state.versions("s") == []
    assert code_of(lambda: run(sr.delete_subject("s", permanent=False))) == (40404, 404)
    assert sr.schema_by_id(1).schema                        # ids still resolve after a soft delete
    assert run(sr.delete_subject("s", permanent=True)) == [1]
    assert log.replay().subjects == {}
    assert json.loads(log.records[1][0])["keytype"] == "DELETE_SUBJECT"
    assert log.records[-1][1] is None                       # hard delete is a tombstone
    # a new registration after deletion takes a fresh id? No: same schema keeps its id
    assert run(sr.register("s", avro(NAME))) == 1


def test_versions_continue_after_soft_delete(sr, log):
    run(sr.register("s", avro(NAME)))
    run(sr.delete_version("s", "1", permanent=False))
    run(sr.register("s", avro(NAME, {"name": "a", "type": "int", "default": 0})))
    assert [sv.version for sv in log.state.versions("s", include_deleted=True)] == [1, 2]
    assert code_of(lambda: run(sr.delete_version("s", "2", permanent=True))) == (40407, 404)


def test_config_levels(sr, log):
    assert log.state.compatibility("s") == "BACKWARD"
    assert code_of(lambda: run(sr.set_compatibility(None, "SIDEWAYS"))) == (42203, 422)
    run(sr.set_compatibility("s", "NONE"))
    run(sr.register("s", avro(NAME)))
    assert run(sr.register("s", {"schema": '"string"'})) == 2     # NONE: anything goes
    assert json.loads(log.records[0][0]) == {"keytype": "CONFIG", "subject": "s", "magic": 0}
    run(sr.set_compatibility("s", "FORWARD"))
    # FORWARD: old schema must read new data; a new field without default is fine
    run(sr.set_compatibility("t", "FORWARD"))
    run(sr.register("t", avro(NAME)))
    run(sr.register("t", avro(NAME, {"name": "age", "type": "int"})))
    run(sr.set_compatibility("t", "FULL"))
    # FULL: the reader side lacks a default for a field the writer lacks
    assert code_of(lambda: run(sr.register("t", avro(NAME, {"name": "other", "type": "int"})))) == (409, 409)


def test_transitive_checks_every_live_version(sr):
    run(sr.set_compatibility(None, "BACKWARD_TRANSITIVE"))
    run(sr.register("s", avro(NAME)))
    run(sr.register("s", avro(NAME, {"name": "a", "type": "int", "default": 0})))
    # drops name's... reads v2 fine but v1 lacks "b" without default? b has no default: refused
    assert code_of(lambda: run(sr.register("s", avro({"name": "a", "type": "int", "default": 0},
                                                       {"name": "b", "type": "int"})))) == (409, 409)


def test_modes(sr):
    assert code_of(lambda: run(sr.set_mode(None, "SIDEWAYS"))) == (42204, 422)
    run(sr.set_mode("s", "READONLY"))
    assert code_of(lambda: run(sr.register("s", avro(NAME)))) == (42205, 422)
    run(sr.set_mode("imp", "IMPORT"))
    assert run(sr.register("imp", dict(avro(NAME), id=42, version=3))) == 42
    assert sr.version("imp", "3").id == 42
    assert code_of(lambda: run(sr.register("rw", dict(avro(NAME), id=7)))) == (42205, 422)


def test_import_under_version_latest_is_refused_and_writes_nothing(sr, log):
    """An import names the version it stores under: "latest" names none (it wrote a
    record whose version no replay could read)."""
    run(sr.set_mode("imp", "IMPORT"))
    written = len(log.records)
    assert code_of(lambda: run(sr.register("imp", dict(avro(NAME), id=42, version="latest")))) == (42202, 422)
    assert len(log.records) == written
    assert log.replay().subjects.get("imp", {}) == {}


def test_references_resolve_named_types(sr):
    addr = {"type": "record", "name": "Address", "namespace": "ex", "fields": [{"name": "city", "type": "string"}]}
    run(sr.register("addr", {"schema": json.dumps(addr)}))
    user = {"type": "record", "name": "User", "namespace": "ex", "fields": [{"name": "home", "type": "ex.Address"}]}
    ref = [{"name": "ex.Address", "subject": "addr", "version": 1}]
    assert run(sr.register("user", {"schema": json.dumps(user), "references": ref})) == 2
    assert code_of(lambda: run(sr.register("u2", {"schema": json.dumps(user)}))) == (42201, 422)


def test_json_schema_compatibility(sr):
    js = lambda props, req=(): {"schemaType": "JSON", "schema": json.dumps(
        {"type": "object", "properties": props, "required": list(req), "additionalProperties": False})}
    run(sr.register("j", js({"name": {"type": "string"}})))
    assert run(sr.register("j", js({"name": {"type": "string"}, "age": {"type": "integer"}}))) == 2
    assert code_of(lambda: run(sr.register("j", js({"name": {"type": "string"}, "age": {"type": "integer"},
                                                      "x": {"type": "string"}}, ["x"])))) == (409, 409)
    assert code_of(lambda: run(sr.register("j2", {"schemaType": "JSON", "schema": '{"type": 12}'}))) == (42201, 422)


def test_state_replays_to_the_same(sr, log):
    run(sr.register("s", avro(NAME)))
    run(sr.set_compatibility(None, "FULL"))
    run(sr.set_mode("s", "READONLY"))
    replay = log.replay()
    assert replay.compatibility("s") == "FULL" and replay.mode("s") == "READONLY" and replay.max_id == 1


def test_protobuf_registration_references_and_compatibility(sr):
    pb = lambda text, refs=None: {"schemaType": "PROTOBUF", "schema": text, "references": refs or []}
    user = 'syntax = "proto3"; package ex; message User { string name = 1; }'
    assert run(sr.register("user", pb(user))) == 1
    assert run(sr.register("user", pb('syntax = "proto3"; package ex; message User { string name = 1; int64 age = 2; }'))) == 2
    # a field's type changed across kinds: refused
    assert code_of(lambda: run(sr.register("user", pb('syntax = "proto3"; package ex; message User { double name = 1; }')))) == (409, 409)
    # wire-compatible scalars (int32 -> int64) accepted
    run(sr.register("n", pb('syntax = "proto3"; message N { int32 v = 1; }')))
    run(sr.register("n", pb('syntax = "proto3"; message N { int64 v = 1; }')))
    order = 'syntax = "proto3"; import "ex/user.proto"; message Order { ex.User buyer = 1; }'
    assert run(sr.register("order", pb(order, [{"name": "ex/user.proto", "subject": "user", "version": 1}]))) == 5
    assert code_of(lambda: run(sr.register("order2", pb(order)))) == (42201, 422)   # import unresolved


def test_avro_property_order_and_wrapping_do_not_make_a_new_schema(sr):
    a = {"type": "record", "name": "P", "fields": [{"name": "id", "type": "string"}]}
    b = {"fields": [{"type": {"type": "string"}, "name": "id"}], "name": "P", "type": "record"}
    assert run(sr.register("p", {"schema": json.dumps(a)})) == 1
    assert run(sr.register("p", {"schema": json.dumps(b)})) == 1
    assert sr.lookup("p", {"schema": json.dumps(b)}).version == 1
    assert sr.schema_by_id(1).schema == '{"type":"record","name":"P","fields":[{"name":"id","type":"string"}]}'
