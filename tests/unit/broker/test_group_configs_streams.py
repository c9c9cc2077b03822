"""Per-group Streams configs (the GROUP resource): bounded as Kafka 4.4's GroupConfig
bounds them, with a fixed minimum of 0 where Kafka's ConfigDef says `atLeast(0)`."""
from __future__ import annotations

import pytest

from kafpy.broker import group_configs
from kafpy.broker.config import KafkaConfig
from kafpy.broker.group_configs import InvalidGroupConfig, validate


@pytest.fixture
def broker() -> KafkaConfig:
    return KafkaConfig({"group.streams.max.standby.replicas": "2",
                        "group.streams.max.warmup.replicas": "5"})


@pytest.mark.parametrize("value", ["0", "1", "2"])
def test_standby_replicas_within_zero_and_the_broker_maximum(broker, value):
    validate(broker, {"streams.num.standby.replicas": value})


@pytest.mark.parametrize("value, message", [
    ("-1", "Invalid value -1 for configuration streams.num.standby.replicas: "
           "Value must be at least 0"),
    ("3", "streams.num.standby.replicas must be less than or equal to 2"),
    ("x", "Invalid value x for configuration streams.num.standby.replicas: "
          "Not a number of type INT"),
])
def test_standby_replicas_out_of_bounds_refused_with_kafkas_message(broker, value, message):
    with pytest.raises(InvalidGroupConfig) as e:
        validate(broker, {"streams.num.standby.replicas": value})
    assert str(e.value) == message


def test_other_streams_bounds(broker):
    validate(broker, {"streams.num.warmup.replicas": "5", "streams.assignment.interval.ms": "0",
                      "streams.acceptable.recovery.lag": "0"})
    for config, value, message in [
            ("streams.num.warmup.replicas", "6",
             "streams.num.warmup.replicas must be less than or equal to 5"),
            ("streams.assignment.interval.ms", "15001",
             "streams.assignment.interval.ms must be in the range 0 to 15000 inclusive."),
            ("streams.task.offset.interval.ms", "1000",
             "streams.task.offset.interval.ms must be greater than or equal to 15000"),
            ("streams.acceptable.recovery.lag", "-5", "Invalid value -5 for configuration "
             "streams.acceptable.recovery.lag: Value must be at least 0")]:
        with pytest.raises(InvalidGroupConfig) as e:
            validate(broker, {config: value})
        assert str(e.value) == message


def test_described_with_the_broker_defaults_and_overrides(broker):
    entries = group_configs.describe(broker, {"streams.num.standby.replicas": "1"}, None,
                                     lambda **kw: kw)
    by_name = {e["name"]: e for e in entries}
    assert by_name["streams.num.standby.replicas"]["value"] == "1"
    assert by_name["streams.num.standby.replicas"]["config_source"] == group_configs.GROUP_CONFIG_SOURCE
    assert by_name["streams.assignment.interval.ms"]["value"] == "1000"
    # Kafka's internal ones are listed once set, or when asked for by name
    assert "streams.num.warmup.replicas" not in by_name
    asked = {e["name"]: e for e in group_configs.describe(
        broker, {}, ["streams.num.warmup.replicas", "streams.acceptable.recovery.lag"], lambda **kw: kw)}
    assert asked["streams.num.warmup.replicas"]["value"] == "2"
    assert asked["streams.acceptable.recovery.lag"]["config_type"] == group_configs.TYPE_LONG
