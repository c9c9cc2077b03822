"""Connection limits as Kafka's ConnectionQuotas keeps them: per IP (closed at once), per
listener and broker-wide (wait for a slot), the inter-broker listener exempt."""
from __future__ import annotations

import pytest

from kafpy.broker.config import ConfigError, KafkaConfig
from kafpy.broker.connection_quotas import ConnectionQuotas, parse_ip_overrides
from kafpy.broker.server import connection_quotas

INT_MAX = 2**31 - 1


def quotas(**kw) -> ConnectionQuotas:
    kw.setdefault("max_connections", INT_MAX)
    kw.setdefault("max_per_ip", INT_MAX)
    listeners = kw.pop("listeners", ["PLAINTEXT"])
    return ConnectionQuotas(listeners, **kw)


def test_the_connection_over_the_per_ip_limit_is_refused_and_not_counted() -> None:
    q = quotas(max_per_ip=2)
    assert q.admit("PLAINTEXT", "10.0.0.1") and q.admit("PLAINTEXT", "10.0.0.1")
    assert not q.admit("PLAINTEXT", "10.0.0.1")
    assert q.count("10.0.0.1") == 2 and q.total == 2
    assert q.admit("PLAINTEXT", "10.0.0.2")          # other addresses are not affected
    q.release("PLAINTEXT", "10.0.0.1")
    assert q.admit("PLAINTEXT", "10.0.0.1")          # a slot freed by a close is usable again
    assert q.total == 3 and q.listener_counts["PLAINTEXT"] == 3


def test_overrides_replace_the_default_for_their_address_only() -> None:
    q = quotas(max_per_ip=0, per_ip_overrides={"127.0.0.1": 1})
    assert q.admit("PLAINTEXT", "127.0.0.1")
    assert not q.admit("PLAINTEXT", "127.0.0.1")
    assert not q.admit("PLAINTEXT", "10.0.0.9")      # default 0: nobody else


def test_override_entries_are_host_count_and_host_names_are_resolved() -> None:
    assert list(parse_ip_overrides(["localhost:100"]).values()) == [100]
    assert parse_ip_overrides(["127.0.0.1:7"]) == {"127.0.0.1": 7}
    assert parse_ip_overrides([]) == {}
    for bad in ("127.0.0.1", "127.0.0.1:x", ":5"):
        with pytest.raises(ValueError):
            parse_ip_overrides([bad])


def test_a_full_broker_has_no_slot_until_a_connection_closes() -> None:
    q = quotas(max_connections=2)
    assert q.slot_available("PLAINTEXT")
    q.admit("PLAINTEXT", "a")
    q.admit("PLAINTEXT", "b")
    assert not q.slot_available("PLAINTEXT")
    q.release("PLAINTEXT", "a")
    assert q.slot_available("PLAINTEXT")


def test_a_listener_limit_applies_to_its_listener_only() -> None:
    q = quotas(listeners=["CLIENT", "INTERNAL"], listener_max={"CLIENT": 1})
    q.admit("CLIENT", "a")
    assert not q.slot_available("CLIENT")
    assert q.slot_available("INTERNAL")


def test_the_inter_broker_listener_is_exempt_from_the_broker_limit_when_there_are_others() -> None:
    q = quotas(listeners=["CLIENT", "INTERNAL"], max_connections=1, inter_broker_listener="INTERNAL")
    q.admit("CLIENT", "a")
    assert not q.slot_available("CLIENT")
    assert q.protected("INTERNAL") and q.slot_available("INTERNAL")
    q.admit("INTERNAL", "b")
    assert q.over_broker_limit()                     # the server closes one CLIENT connection
    q.release("CLIENT", "a")
    assert not q.over_broker_limit() and not q.slot_available("CLIENT")
    # a single listener is never protected, even when it is the inter-broker one
    alone = quotas(max_connections=1, inter_broker_listener="PLAINTEXT")
    alone.admit("PLAINTEXT", "a")
    assert not alone.protected("PLAINTEXT") and not alone.slot_available("PLAINTEXT")


def test_the_config_keys_have_kafkas_defaults_and_checks() -> None:
    c = KafkaConfig({})
    assert c["max.connections"] == INT_MAX and c["max.connections.per.ip"] == INT_MAX
    assert c["max.connections.per.ip.overrides"] == []
    with pytest.raises(ConfigError):
        KafkaConfig({"max.connections.per.ip": "0"})      # zero needs overrides
    with pytest.raises(ConfigError):
        KafkaConfig({"max.connections.per.ip.overrides": "127.0.0.1"})
    with pytest.raises(ConfigError):
        KafkaConfig({"listener.name.plaintext.max.connections": "-1"})
    c = KafkaConfig({"listeners": "CLIENT://:9092,INTERNAL://:9093", "inter.broker.listener.name": "INTERNAL",
                     "listener.security.protocol.map": "CLIENT:PLAINTEXT,INTERNAL:PLAINTEXT",
                     "listener.name.client.max.connections": "5", "max.connections": "10",
                     "max.connections.per.ip": "0", "max.connections.per.ip.overrides": "127.0.0.1:3"})
    assert not c.unknown
    q = connection_quotas(c)
    assert q.listener_max == {"CLIENT": 5} and q.max_connections == 10
    assert q.max_for("127.0.0.1") == 3 and q.max_for("10.1.1.1") == 0
    assert q.protected("INTERNAL") and not q.protected("CLIENT")
    # without inter.broker.listener.name, the listener named after security.inter.broker.protocol
    assert connection_quotas(KafkaConfig({"listeners": "PLAINTEXT://:1,EXTERNAL://:2",
                                           "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,EXTERNAL:PLAINTEXT"})).protected("PLAINTEXT")
