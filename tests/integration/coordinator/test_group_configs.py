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


# Kafka 4.4's group configs beyond the bounded ones, with values each refuses or takes; the
# internal ones (offload switches, three of Streams') are described only once set
ALTERATIONS = [
    ("consumer.assignment.interval.ms", "500"), ("consumer.assignment.interval.ms", "-1"),
    ("consumer.assignment.interval.ms", "x"), ("consumer.assignor.offload.enable", "false"),
    ("consumer.assignor.offload.enable", "x"), ("errors.deadletterqueue.copy.record.enable", "true"),
    ("errors.deadletterqueue.copy.record.enable", "x"), ("errors.deadletterqueue.topic.name", "dlq.mine"),
    ("share.assignment.interval.ms", "500"), ("share.assignment.interval.ms", "-1"),
    ("share.assignor.offload.enable", "false"), ("streams.assignor.name", "sticky"),
    ("streams.assignor.name", "nope"), ("streams.assignor.offload.enable", "false"),
    ("streams.rack.aware.assignment.tags", "zone"), ("streams.task.offset.interval.ms", "7000"),
    ("streams.num.warmup.replicas", "70"), ("streams.acceptable.recovery.lag", "7000"),
]


def _steps(bootstrap: str) -> list[str]:
    """What kafka-configs printed (describe --all, each alteration's outcome, describe --all
    and describe), the broker's address masked."""
    def tool(*args: str) -> str:
        out = run_tool("4", "kafka-configs", ["--bootstrap-server", bootstrap, "--entity-type", "groups",
                                              "--entity-name", "g1", *args], timeout=120, check=False)
        lines = (out.stdout + out.stderr).replace(bootstrap, "<broker>").splitlines()
        return "\n".join([line for line in lines if "Exception:" in line][:1] or lines)
    return [tool("--describe", "--all"),
            *(tool("--alter", "--add-config", f"{name}={value}") for name, value in ALTERATIONS),
            tool("--describe", "--all"), tool("--describe")]


def test_group_configs_are_kafka_44s(reference_kafka_factory, broker_factory):
    """Names, defaults, synonyms (the override, then the broker setting it stands in for),
    checks and messages, side by side with an Apache Kafka 4.4 broker."""
    kafka = reference_kafka_factory("4")
    theirs = _steps(kafka.bootstrap)
    kafka.stop()
    ours = _steps(broker_factory().bootstrap)   # both on their defaults
    assert "streams.assignor.name 'nope' is not a registered task assignor" in "\n".join(ours)
    assert "DYNAMIC_GROUP_CONFIG:consumer.assignment.interval.ms=500, " \
           "DEFAULT_CONFIG:group.consumer.assignment.interval.ms=1000" in ours[-1]
    for step, (mine, apache) in enumerate(zip(ours, theirs)):
        assert mine == apache, f"step {step}:\nkafpy:\n{mine}\napache:\n{apache}"
