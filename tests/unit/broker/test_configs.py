"""DescribeConfigs / IncrementalAlterConfigs / CreateTopics config reporting: values, sources
and synonyms as Kafka's ConfigHelper reports them."""
from __future__ import annotations

import asyncio

import pytest

from kafpy.protocol.messages import CreateTopicsRequest, DescribeConfigsRequest, IncrementalAlterConfigsRequest

from kafpy.broker.handlers.admin import handle_create_topics
from kafpy.broker.handlers.configs import handle_describe_configs, handle_incremental_alter_configs
from kafpy.broker.topic_config import DEFAULT_CONFIG, DYNAMIC_TOPIC_CONFIG, STATIC_BROKER_CONFIG
from tests.unit.broker.helpers import LocalBroker, call

TOPIC, BROKER = 2, 4
D = DescribeConfigsRequest
I = IncrementalAlterConfigsRequest
UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG = 3, 40


def make(tmp_path, **overrides):
    loop = asyncio.new_event_loop()
    return LocalBroker(str(tmp_path), loop, **overrides), loop


@pytest.fixture
def broker(tmp_path):
    # what config/server.properties sets, as in Kafka's own
    b, loop = make(tmp_path, **{"log.retention.hours": "168", "log.segment.bytes": "1073741824"})
    try:
        yield b
    finally:
        b.close()
        loop.close()


def describe(broker, name: str, keys=None, version: int = 4, rtype: int = TOPIC):
    resp = call(broker, handle_describe_configs, 32, version, D(
        resources=[D.DescribeConfigsResource(resource_type=rtype, resource_name=name, configuration_keys=keys)],
        include_synonyms=True, include_documentation=False))
    return resp.results[0]


def entries(result) -> dict:
    return {c.name: (c.value, c.config_source, [(s.name, s.value, s.source) for s in c.synonyms])
            for c in result.configs}


def test_static_hours_leave_retention_ms_a_default(broker):
    broker.create_topic("t")
    got = entries(describe(broker, "t", ["retention.ms", "segment.bytes", "max.message.bytes"]))
    assert got["retention.ms"] == ("604800000", DEFAULT_CONFIG, [])
    assert got["segment.bytes"] == ("1073741824", STATIC_BROKER_CONFIG,
                                    [("log.segment.bytes", "1073741824", STATIC_BROKER_CONFIG),
                                     ("log.segment.bytes", "1073741824", DEFAULT_CONFIG)])
    assert got["max.message.bytes"] == ("1048588", DEFAULT_CONFIG, [("message.max.bytes", "1048588", DEFAULT_CONFIG)])


def test_static_retention_ms_and_topic_override(tmp_path):
    b, loop = make(tmp_path, **{"log.retention.ms": "5000", "log.retention.hours": "1"})
    try:
        b.create_topic("t", configs={"max.message.bytes": "2000"})
        got = entries(describe(b, "t", ["retention.ms", "max.message.bytes"]))
        assert got["retention.ms"] == ("5000", STATIC_BROKER_CONFIG,
                                       [("log.retention.ms", "5000", STATIC_BROKER_CONFIG),
                                        ("log.retention.hours", "1", STATIC_BROKER_CONFIG),
                                        ("log.retention.hours", "168", DEFAULT_CONFIG)])
        assert got["max.message.bytes"] == ("2000", DYNAMIC_TOPIC_CONFIG,
                                            [("max.message.bytes", "2000", DYNAMIC_TOPIC_CONFIG),
                                             ("message.max.bytes", "1048588", DEFAULT_CONFIG)])
    finally:
        b.close()
        loop.close()


def test_unknown_topic(broker):
    r = describe(broker, "nope")
    assert r.error_code == UNKNOWN_TOPIC_OR_PARTITION and r.configs == []


def test_incremental_alter_set_append_subtract_delete(broker):
    broker.create_topic("t")

    def alter(*ops):
        resp = call(broker, handle_incremental_alter_configs, 44, 1, I(validate_only=False, resources=[
            I.AlterConfigsResource(resource_type=TOPIC, resource_name="t", configs=[
                I.AlterableConfig(name=n, config_operation=op, value=v) for n, op, v in ops])]))
        return resp.responses[0]

    assert alter(("retention.ms", 0, "1000"), ("cleanup.policy", 2, "compact")).error_code == 0
    got = entries(describe(broker, "t", ["retention.ms", "cleanup.policy"]))
    assert got["retention.ms"][:2] == ("1000", DYNAMIC_TOPIC_CONFIG)
    assert got["cleanup.policy"][:2] == ("delete,compact", DYNAMIC_TOPIC_CONFIG)
    assert alter(("cleanup.policy", 3, "delete")).error_code == 0
    assert entries(describe(broker, "t", ["cleanup.policy"]))["cleanup.policy"][0] == "compact"
    assert alter(("retention.ms", 1, None)).error_code == 0
    assert entries(describe(broker, "t", ["retention.ms"]))["retention.ms"][:2] == ("604800000", DEFAULT_CONFIG)
    assert alter(("no.such.config", 0, "1")).error_code == INVALID_CONFIG
    # the log picked the change up
    assert broker.replica_manager.get_partition("t", 0).log.config.cleanup_policy == "compact"


def test_create_topics_reports_configs_with_sources(broker):
    C = CreateTopicsRequest
    resp = call(broker, handle_create_topics, 19, 5, C(timeout_ms=1000, validate_only=False, topics=[C.CreatableTopic(
        name="c", num_partitions=2, replication_factor=1, assignments=[],
        configs=[C.CreatableTopicConfig(name="retention.ms", value="1234")])]))
    [t] = resp.topics
    assert (t.error_code, t.num_partitions, t.replication_factor) == (0, 2, 1)
    cfgs = {c.name: (c.value, c.config_source) for c in t.configs}
    assert cfgs["retention.ms"] == ("1234", DYNAMIC_TOPIC_CONFIG)
    assert cfgs["segment.bytes"] == ("1073741824", STATIC_BROKER_CONFIG)
    assert cfgs["max.message.bytes"] == ("1048588", DEFAULT_CONFIG)


def test_dynamic_broker_retention_reaches_topics(broker):
    from kafpy.protocol.messages import IncrementalAlterConfigsRequest as IA
    from kafpy.broker.topic_config import DYNAMIC_BROKER_CONFIG
    broker.create_topic("t")
    resp = call(broker, handle_incremental_alter_configs, 44, 1, IA(validate_only=False, resources=[
        IA.AlterConfigsResource(resource_type=BROKER, resource_name="0", configs=[
            IA.AlterableConfig(name="log.retention.ms", config_operation=0, value="7200000")])]))
    assert resp.responses[0].error_code == 0
    value, source, syn = entries(describe(broker, "t", ["retention.ms"]))["retention.ms"]
    assert (value, source) == ("7200000", DYNAMIC_BROKER_CONFIG)
    assert syn[0] == ("log.retention.ms", "7200000", DYNAMIC_BROKER_CONFIG)
    assert broker.replica_manager.get_partition("t", 0).log.config.retention_ms == 7200000


def test_server_properties_read_with_java_rules(tmp_path):
    """Escapes are decoded (Kafka reads the file with java.util.Properties.load) and typed
    values are trimmed as Kafka's ConfigDef trims them."""
    from kafpy.broker.config import KafkaConfig

    path = tmp_path / "server.properties"
    path.write_bytes(b"broker.rack=rack\\u002d\\u00e9\nlog.dirs=/tmp/a,\\\n    /tmp/b\n"
                     b"num.partitions : 3  \nauthorizer.class.name\\tx\n")
    cfg = KafkaConfig.from_file(path, ["broker.id=7"])
    assert cfg["broker.rack"] == "rack-\u00e9"
    assert cfg.log_dirs == ["/tmp/a", "/tmp/b"]
    assert cfg["num.partitions"] == 3 and cfg.originals["num.partitions"] == "3  "
    assert cfg.broker_id == 7
    assert "authorizer.class.name\tx" in cfg.unknown



@pytest.mark.parametrize("name,value,reason", [
    ("compression.gzip.level", "10", "Value must be between 1 and 9 or equal to -1"),
    ("compression.gzip.level", "0", "Value must be between 1 and 9 or equal to -1"),
    ("compression.lz4.level", "0", "Value must be at least 1"),
    ("compression.lz4.level", "18", "Value must be no more than 17"),
    ("compression.zstd.level", "-131073", "Value must be at least -131072"),
    ("compression.zstd.level", "23", "Value must be no more than 22"),
])
def test_compression_levels_out_of_kafkas_ranges_are_refused(name, value, reason):
    """Kafka 4.4's CompressionType level validators, for a topic and for the broker."""
    from kafpy.broker.config import ConfigError, KafkaConfig
    from kafpy.broker.topic_config import InvalidConfig, validate_topic_configs
    with pytest.raises(InvalidConfig) as topic:
        validate_topic_configs({name: value})
    assert str(topic.value) == f"Invalid value {value} for configuration {name}: {reason}"
    with pytest.raises(ConfigError) as broker:
        KafkaConfig({name: value})
    assert str(broker.value) == f"Invalid value '{value}' for configuration {name}"


def test_compression_levels_within_kafkas_ranges_are_taken():
    from kafpy.broker.config import KafkaConfig
    from kafpy.broker.topic_config import validate_topic_configs
    for name, values in {"compression.gzip.level": ["-1", "1", "9"], "compression.lz4.level": ["1", "17"],
                         "compression.zstd.level": ["-131072", "-5", "0", "22"]}.items():
        for v in values:
            validate_topic_configs({name: v})
            assert KafkaConfig({name: v})[name] == int(v)


def test_remote_storage_cannot_be_enabled_on_a_topic():
    """No tiered storage: Kafka's refusal on a broker with remote.log.storage.system.enable=false,
    for creation and alteration alike (both validate through here); false stays accepted."""
    from kafpy.broker.topic_config import InvalidConfig, validate_topic_configs
    with pytest.raises(InvalidConfig) as e:
        validate_topic_configs({"remote.storage.enable": "true"})
    assert str(e.value) == ("Tiered Storage functionality is disabled in the broker. Topic cannot be "
                            "configured with remote log storage.")
    validate_topic_configs({"remote.storage.enable": "false"})


def test_brokers_topic_table_and_the_controllers_schema_name_the_same_configs():
    """ZooKeeper-mode brokers list and default topic configs from one table, KRaft controllers
    validate them by another's types: both name Kafka 4.4's LogConfig keys, with one type each."""
    from kafpy.broker.topic_config import TOPIC_CONFIGS
    from kafpy.metadata.controller import config_schema
    assert TOPIC_CONFIGS.keys() == config_schema.TOPIC_CONFIGS.keys()
    assert all(d.type == config_schema.TOPIC_CONFIGS[name].value.lower() for name, d in TOPIC_CONFIGS.items())
