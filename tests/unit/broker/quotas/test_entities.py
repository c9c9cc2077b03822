"""Quota entities: paths as Kafka stores them, the precedence of Kafka's
DefaultQuotaCallback, and the DescribeClientQuotas / AlterClientQuotas rules."""
from __future__ import annotations

import pytest

from kafpy.broker.handlers.quotas import InvalidQuotaRequest, altered_configs, describe_entities, parse_entity
from kafpy.broker.quotas.client_quotas import ClientQuotas
from kafpy.broker.quotas.entity import DEFAULT, QuotaEntity, resolve, sanitize
from kafpy.broker.quotas.entity_configs import EntityConfigs


def test_paths_are_sanitized_and_read_back():
    e = QuotaEntity("CN=alice,O=x", "app/1")
    assert e.config_path() == ("users", "CN%3Dalice%2CO%3Dx/clients/app%2F1")
    assert QuotaEntity.from_config_path(*e.config_path()) == e
    assert QuotaEntity(DEFAULT, None).config_path() == ("users", "<default>")
    assert QuotaEntity(None, DEFAULT).config_path() == ("clients", "<default>")
    assert sanitize("a b*~") == "a%20b%2A%7E"
    with pytest.raises(ValueError):
        QuotaEntity.from_config_path("topics", "t")


ORDER = [
    QuotaEntity("u", "c"), QuotaEntity("u", DEFAULT), QuotaEntity("u", None), QuotaEntity(DEFAULT, "c"),
    QuotaEntity(DEFAULT, DEFAULT), QuotaEntity(DEFAULT, None), QuotaEntity(None, "c"), QuotaEntity(None, DEFAULT),
]


def test_the_most_specific_entity_wins_in_kafkas_order():
    levels = 1 | 2 | 4
    for i, entity in enumerate(ORDER):
        overrides = {e: float(j) for j, e in enumerate(ORDER[i:], start=i)}
        assert resolve(overrides, levels, "u", "c")[1] == float(i), entity


def test_a_single_level_shares_the_quota_as_kafka_tags_it():
    # only client-id quotas: every user of client id c shares one rate
    assert resolve({QuotaEntity(None, "c"): 5.0}, 1, "u", "c") == (("", "c"), 5.0)
    # only user quotas: all client ids of the user share one
    assert resolve({QuotaEntity("u", None): 7.0}, 2, "u", "c") == (("u", ""), 7.0)
    assert resolve({}, 2, "v", "c") == (("v", ""), None)


def test_client_quotas_follow_entity_configs_and_ignore_other_keys():
    store = EntityConfigs()
    quotas = ClientQuotas()
    store.add_listener(quotas.apply_entity_config)
    assert not quotas.active
    store.set("users", "alice", {"SCRAM-SHA-256": "salt=...", "consumer_byte_rate": "2048"})
    assert quotas.active
    assert quotas.fetch.quota("alice", "any") == 2048
    assert quotas.produce.quota("alice", "any") is None
    store.set("users", "alice", {"SCRAM-SHA-256": "salt=..."})
    assert quotas.fetch.quota("alice", "any") is None
    assert QuotaEntity("alice", None) not in quotas.configs


def test_alter_ops_validate_keys_and_types():
    cur = {"SCRAM-SHA-256": "x", "producer_byte_rate": "10"}
    assert altered_configs(cur, [("producer_byte_rate", 1024.0, False), ("request_percentage", 12.5, False)]) == {
        "SCRAM-SHA-256": "x", "producer_byte_rate": "1024", "request_percentage": "12.5"}
    assert altered_configs(cur, [("producer_byte_rate", 0.0, True)]) == {"SCRAM-SHA-256": "x"}
    for bad in (("nope", 1.0, False), ("producer_byte_rate", 1.5, False), ("consumer_byte_rate", -1.0, False)):
        with pytest.raises(InvalidQuotaRequest):
            altered_configs({}, [bad])


def test_entity_parsing():
    assert parse_entity([("user", None), ("client-id", "c")]) == QuotaEntity(DEFAULT, "c")
    for bad in ([], [("user", "a"), ("user", "b")], [("topic", "t")]):
        with pytest.raises(InvalidQuotaRequest):
            parse_entity(bad)


def test_describe_filters_strict_and_not():
    store = EntityConfigs()
    store.set("users", "alice", {"producer_byte_rate": "1"})
    store.set("users", "alice/clients/c1", {"consumer_byte_rate": "2"})
    store.set("clients", "<default>", {"request_percentage": "50"})
    store.set("users", "bob", {"SCRAM-SHA-512": "only credentials"})

    def names(components, strict):
        return [e for e, _ in describe_entities(store, components, strict)]

    assert names([("user", 0, "alice")], True) == [QuotaEntity("alice", None)]
    assert names([("user", 0, "alice")], False) == [QuotaEntity("alice", None), QuotaEntity("alice", "c1")]
    assert names([("client-id", 1, None)], False) == [QuotaEntity(None, DEFAULT)]
    assert len(names([], False)) == 3
    with pytest.raises(InvalidQuotaRequest):
        describe_entities(store, [("user", 2, None), ("user", 2, None)], False)
