"""Per-group configs with Apache Kafka 4.4's `kafka-configs.sh --entity-type groups`:
set, describe and delete a consumer-protocol group's heartbeat interval; a value outside
the broker's group.consumer.min/max bounds is refused. (That members are told the
override is the state machine's unit test.)"""
from __future__ import annotations

import pytest

from tests.integration.coordinator.test_consumer_protocol import CONSUMER_GROUP_BROKER
from tests.support.kafka_dist import ToolFailed, run_tool


def _configs(bootstrap: str, *args: str) -> str:
    return run_tool("4", "kafka-configs", ["--bootstrap-server", bootstrap, "--entity-type", "groups",
                                           "--entity-name", "cfg-group", *args], timeout=120).stdout


def test_group_configs_with_kafka_configs_tool(broker_factory):
    b = broker_factory(CONSUMER_GROUP_BROKER)
    _configs(b.bootstrap, "--alter", "--add-config", "consumer.heartbeat.interval.ms=1500")
    described = _configs(b.bootstrap, "--describe")
    assert "consumer.heartbeat.interval.ms=1500" in described, described
    with pytest.raises(ToolFailed) as refused:
        _configs(b.bootstrap, "--alter", "--add-config", "consumer.heartbeat.interval.ms=99999")
    assert "consumer.heartbeat.interval.ms" in str(refused.value)
    b.restart()
    assert "consumer.heartbeat.interval.ms=1500" in _configs(b.bootstrap, "--describe")
    _configs(b.bootstrap, "--alter", "--delete-config", "consumer.heartbeat.interval.ms")
    assert "consumer.heartbeat.interval.ms=1500" not in _configs(b.bootstrap, "--describe")
