"""Confluent's verdicts on references and on the smaller cases of issue 32: a version another
schema references cannot be deleted (42206), soft-deleting twice (40406), compatibility
against a missing subject or version, references to version -1 (latest), ``?normalize=true``."""
import json

from tests.unit.registry.test_service import MemoryLog, code_of, run  # noqa: F401 (fixtures below)

import pytest

from kafpy.registry.service import SchemaRegistry

ADDR = {"type": "record", "name": "Address", "namespace": "ex", "fields": [{"name": "city", "type": "string"}]}
USER = {"type": "record", "name": "User", "namespace": "ex", "fields": [{"name": "home", "type": "ex.Address"}]}


@pytest.fixture
def log():
    return MemoryLog()


@pytest.fixture
def sr(log):
    return SchemaRegistry(log.state, log.write)


def _with_reference(sr, version=1):
    run(sr.register("addr", {"schema": json.dumps(ADDR)}))
    ref = [{"name": "ex.Address", "subject": "addr", "version": version}]
    return run(sr.register("user", {"schema": json.dumps(USER), "references": ref}))


def test_a_referenced_version_cannot_be_deleted_soft_or_permanent(sr, log):
    _with_reference(sr)
    n = len(log.records)
    assert code_of(lambda: run(sr.delete_version("addr", "1", permanent=False))) == (42206, 422)
    assert code_of(lambda: run(sr.delete_subject("addr", permanent=False))) == (42206, 422)
    assert len(log.records) == n and log.state.versions("addr")
    # once the referrer is soft-deleted, a soft delete is allowed, a permanent one still not
    run(sr.delete_version("user", "1", permanent=False))
    assert run(sr.delete_version("addr", "1", permanent=False)) == 1
    assert code_of(lambda: run(sr.delete_version("addr", "1", permanent=True))) == (42206, 422)
    assert code_of(lambda: run(sr.delete_subject("addr", permanent=True))) == (42206, 422)
    run(sr.delete_version("user", "1", permanent=True))
    assert run(sr.delete_version("addr", "1", permanent=True)) == 1
    assert log.replay().subjects == {}


def test_a_subject_referencing_itself_may_be_deleted(sr):
    run(sr.set_compatibility("both", "NONE"))
    run(sr.register("both", {"schema": json.dumps(ADDR)}))
    ref = [{"name": "ex.Address", "subject": "both", "version": 1}]
    run(sr.register("both", {"schema": json.dumps(USER), "references": ref}))
    assert run(sr.delete_subject("both", permanent=False)) == [1, 2]


def test_referenced_by_lists_live_referrers(sr, log):
    uid = _with_reference(sr)
    assert log.state.referrers("addr", 1) == {uid}
    run(sr.delete_version("user", "1", permanent=False))
    assert log.state.referrers("addr", 1) == set()
    assert log.state.referrers("addr", 1, include_deleted=True) == {uid}


def test_soft_deleting_a_version_twice_is_40406(sr):
    run(sr.register("s", {"schema": json.dumps(ADDR)}))
    run(sr.register("s", {"schema": json.dumps({**ADDR, "fields": ADDR["fields"] + [
        {"name": "zip", "type": "string", "default": ""}]})}))
    assert run(sr.delete_version("s", "1", permanent=False)) == 1
    assert code_of(lambda: run(sr.delete_version("s", "1", permanent=False))) == (40406, 404)
    assert code_of(lambda: run(sr.delete_version("s", "7", permanent=False))) == (40402, 404)
    assert code_of(lambda: run(sr.delete_version("nope", "1", permanent=False))) == (40401, 404)


def test_compatibility_against_a_missing_subject_or_version(sr):
    body = {"schema": json.dumps(ADDR)}
    assert code_of(lambda: sr.check_compatibility("nope", "1", body)) == (40402, 404)
    assert sr.check_compatibility("nope", "latest", body) == []
    assert sr.check_compatibility("nope", None, body) == []
    run(sr.register("s", body))
    assert code_of(lambda: sr.check_compatibility("s", "2", body)) == (40402, 404)
    assert sr.check_compatibility("s", "-1", {"schema": '"int"'})   # latest, incompatible


def test_a_reference_to_version_minus_one_is_stored_as_the_latest(sr, log):
    run(sr.register("addr", {"schema": json.dumps(ADDR)}))
    wider = {**ADDR, "fields": ADDR["fields"] + [{"name": "zip", "type": "string", "default": ""}]}
    run(sr.register("addr", {"schema": json.dumps(wider)}))
    ref = [{"name": "ex.Address", "subject": "addr", "version": -1}]
    uid = run(sr.register("user", {"schema": json.dumps(USER), "references": ref}))
    assert log.state.versions("user")[0].references == [{"name": "ex.Address", "subject": "addr", "version": 2}]
    assert sr.lookup("user", {"schema": json.dumps(USER), "references": ref}).id == uid
    assert code_of(lambda: run(sr.register("u2", {"schema": json.dumps(USER), "references": [
        {"name": "ex.Address", "subject": "nothing", "version": -1}]}))) == (42201, 422)


def test_normalize_compares_json_schemas_in_canonical_form(sr, log):
    a = {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}}
    b = {"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "type": "object"}
    js = lambda o: {"schemaType": "JSON", "schema": json.dumps(o)}
    sid = run(sr.register("j", js(a)))
    assert code_of(lambda: sr.lookup("j", js(b))) == (40403, 404)   # not asked: texts differ
    assert sr.lookup("j", js(b), normalize=True).id == sid
    assert run(sr.register("j", js(b), normalize=True)) == sid       # nothing new written
    assert len(log.state.versions("j")) == 1
    assert run(sr.register("k", js(b), normalize=True)) != sid       # stored sorted ...
    assert log.state.versions("k")[0].schema == json.dumps(b, sort_keys=True, separators=(",", ":"))
