"""Data contracts: a version's metadata and rule set stored, answered and versioned as
Confluent's registry does (kept from the previous version when a registration names none,
merged under the config's defaults and overrides), found by metadata, written to
``_schemas`` in Confluent's JSON."""
import json

import pytest

from kafpy.registry.errors import RestError
from kafpy.registry.service import SchemaRegistry
from tests.unit.registry.test_service import MemoryLog, avro, code_of, run

NAME = {"name": "name", "type": "string"}
EMAIL = {"name": "email", "type": "string", "default": ""}
RULE = {"name": "checkName", "kind": "CONDITION", "mode": "WRITE", "type": "CEL", "expr": "message.name != ''"}
ENCRYPT = {"name": "encryptPII", "kind": "TRANSFORM", "mode": "WRITEREAD", "type": "ENCRYPT", "tags": ["PII"],
           "params": {"encrypt.kek.name": "k"}}


@pytest.fixture
def log():
    return MemoryLog()


@pytest.fixture
def sr(log):
    return SchemaRegistry(log.state, log.write)


def test_metadata_and_rules_are_stored_answered_and_replayed(sr, log):
    md = {"properties": {"owner": "team-a", "application.major.version": "1"}, "tags": {"name": ["PII"]}}
    rs = {"domainRules": [RULE]}
    sid = run(sr.register("s", {**avro(NAME), "metadata": md, "ruleSet": rs}))
    sv = log.state.versions("s")[0]
    assert (sv.metadata, sv.rule_set) == (md, rs)
    stored = json.loads(log.records[-1][1])
    assert stored["metadata"] == md and stored["ruleSet"] == rs
    assert log.replay().versions("s")[0].rule_set == rs
    assert sr.schema_by_id(sid).metadata == md


def test_a_registration_without_them_keeps_the_previous_versions(sr, log):
    md = {"properties": {"owner": "team-a"}}
    run(sr.register("s", {**avro(NAME), "metadata": md, "ruleSet": {"domainRules": [RULE]}}))
    assert run(sr.register("s", avro(NAME))) == 1            # the same schema, contract inherited: no new version
    run(sr.register("s", avro(NAME, EMAIL)))
    latest = log.state.versions("s")[-1]
    assert latest.version == 2 and latest.metadata == md and latest.rule_set == {"domainRules": [RULE]}


def test_other_rules_make_a_new_version_and_id(sr, log):
    first = run(sr.register("s", {**avro(NAME), "ruleSet": {"domainRules": [RULE]}}))
    second = run(sr.register("s", {**avro(NAME), "ruleSet": {"domainRules": [RULE, ENCRYPT]}}))
    assert second != first and [sv.version for sv in log.state.versions("s")] == [1, 2]
    # a lookup naming rules finds the version stored with them; one naming none finds the latest
    assert sr.lookup("s", {**avro(NAME), "ruleSet": {"domainRules": [RULE]}}).version == 1
    assert sr.lookup("s", avro(NAME)).version == 2


def test_config_defaults_and_overrides_merge_as_confluents(sr, log):
    run(sr.set_compatibility("s", None, {"defaultMetadata": {"properties": {"owner": "default", "tier": "1"}},
                                         "overrideMetadata": {"properties": {"tier": "gold"}},
                                         "defaultRuleSet": {"domainRules": [RULE]},
                                         "overrideRuleSet": {"domainRules": [ENCRYPT]}}))
    run(sr.register("s", {**avro(NAME), "metadata": {"properties": {"owner": "team-a"}}}))
    sv = log.state.versions("s")[0]
    assert sv.metadata == {"properties": {"owner": "team-a", "tier": "gold"}}
    assert sv.rule_set == {"domainRules": [RULE, ENCRYPT]}
    # a rule of the same name in the override replaces the default's
    run(sr.set_compatibility("t", None, {"defaultRuleSet": {"domainRules": [RULE]},
                                         "overrideRuleSet": {"domainRules": [{**RULE, "expr": "true"}]}}))
    run(sr.register("t", avro(NAME)))
    assert log.state.versions("t")[0].rule_set == {"domainRules": [{**RULE, "expr": "true"}]}
    # the level is kept when only contract fields change, and the other way round
    run(sr.set_compatibility("s", "FULL"))
    assert log.state.compatibility("s") == "FULL"
    assert log.state.config_docs["s"]["overrideMetadata"] == {"properties": {"tier": "gold"}}
    assert log.replay().config_docs["s"] == log.state.config_docs["s"]


def test_latest_with_metadata(sr):
    run(sr.register("s", {**avro(NAME), "metadata": {"properties": {"major": "1"}}}))
    run(sr.register("s", {**avro(NAME, EMAIL), "metadata": {"properties": {"major": "2"}}}))
    run(sr.register("s", {**avro(NAME, EMAIL, {"name": "x", "type": "int", "default": 0}),
                          "metadata": {"properties": {"major": "2", "minor": "1"}}}))
    assert sr.latest_with_metadata("s", {"major": "1"}).version == 1
    assert sr.latest_with_metadata("s", {"major": "2"}).version == 3
    assert code_of(lambda: sr.latest_with_metadata("s", {"major": "2", "minor": "0"})) == (40403, 404)
    assert code_of(lambda: sr.latest_with_metadata("s", {"major": "3"})) == (40403, 404)
    assert code_of(lambda: sr.latest_with_metadata("nope", {"major": "1"})) == (40401, 404)


def test_contract_fields_must_be_objects(sr):
    assert code_of(lambda: run(sr.register("s", {**avro(NAME), "metadata": "x"}))) == (42201, 422)
    assert code_of(lambda: run(sr.register("s", {**avro(NAME), "ruleSet": [1]}))) == (42201, 422)
    with pytest.raises(RestError):
        run(sr.set_compatibility("s", None, {"defaultRuleSet": "nope"}))


def test_a_compatibility_group_checks_only_versions_of_the_same_group(sr, log):
    # compatibilityGroup names a metadata property: a new major version may break the old
    # lineage, and within a lineage the level still holds (Confluent's compatibility groups)
    run(sr.set_compatibility("g", "BACKWARD", {"compatibilityGroup": "major"}))
    v1 = {"type": "record", "name": "U", "fields": [NAME]}
    renamed = {"type": "record", "name": "U", "fields": [{"name": "full_name", "type": "string"}]}
    run(sr.register("g", {"schema": json.dumps(v1), "metadata": {"properties": {"major": "1"}}}))
    with pytest.raises(RestError) as e:   # same group: the rename without a default is refused
        run(sr.register("g", {"schema": json.dumps(renamed), "metadata": {"properties": {"major": "1"}}}))
    assert e.value.status == 409
    assert sr.check_compatibility("g", None, {"schema": json.dumps(renamed),
                                              "metadata": {"properties": {"major": "2"}}}) == []
    run(sr.register("g", {"schema": json.dumps(renamed), "metadata": {"properties": {"major": "2"}}}))
    assert [sv.version for sv in log.state.versions("g")] == [1, 2]
    # without the group the same pair is refused
    run(sr.set_compatibility("h", "BACKWARD"))
    run(sr.register("h", {"schema": json.dumps(v1), "metadata": {"properties": {"major": "1"}}}))
    with pytest.raises(RestError):
        run(sr.register("h", {"schema": json.dumps(renamed), "metadata": {"properties": {"major": "2"}}}))
