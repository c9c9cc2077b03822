"""Which broker configs a running broker takes dynamically, name by name as Apache Kafka 4.4
takes them (its DynamicBrokerConfig / DynamicConfig.Broker and the listener and SASL/SSL
reconfigurables): the same AlterConfigs and IncrementalAlterConfigs requests to Kafka 4.4
and kafpy in the same test, for broker `0` and for the cluster-wide default, expecting the
same answers; what both accept is then described with the same value and source.
"""
from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from tests.integration.broker.raw import RawConnection
from tests.support.kafka_dist import ReferenceKafka
from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK

BROKER_RESOURCE = 4
NODE = 0    # broker `0`, as a C client's admin test names it
SET = 0
# Kafka 4.4's dynamic broker configs with a value each accepts (its default where it has
# one). The listener and TLS settings are left out: they are checked against the broker's
# own listeners and key stores (tests/integration/dynamic_config's live tests); so is
# min.insync.replicas, which Kafka 4.4 keeps at the cluster level while eligible leader
# replicas (KIP-966) are enabled.
VALUES = {
    "background.threads": "10", "compression.gzip.level": "-1", "compression.lz4.level": "9",
    "compression.type": "producer", "compression.zstd.level": "3", "config.providers": "",
    "cordoned.log.dirs": "", "errors.deadletterqueue.auto.create.topics.enable": "false",
    "errors.deadletterqueue.topic.name.prefix": "dlq.",
    "follower.fetch.last.tiered.offset.enable": "false",
    "follower.replication.throttled.rate": "9223372036854775807",
    "group.consumer.assignment.interval.ms": "1000", "group.consumer.assignor.offload.enable": "true",
    "group.coordinator.cached.buffer.max.bytes": "1048588",
    "group.share.assignment.interval.ms": "1000", "group.share.assignor.offload.enable": "true",
    "group.streams.assignment.interval.ms": "1000", "group.streams.assignor.offload.enable": "true",
    "leader.replication.throttled.rate": "9223372036854775807",
    "log.cleaner.backoff.ms": "15000", "log.cleaner.dedupe.buffer.size": "134217728",
    "log.cleaner.delete.retention.ms": "86400000", "log.cleaner.io.buffer.load.factor": "0.9",
    "log.cleaner.io.buffer.size": "524288", "log.cleaner.io.max.bytes.per.second": "1.7976931348623157E308",
    "log.cleaner.max.compaction.lag.ms": "9223372036854775807", "log.cleaner.min.cleanable.ratio": "0.5",
    "log.cleaner.min.compaction.lag.ms": "0", "log.cleaner.threads": "1", "log.cleanup.policy": "delete",
    "log.flush.interval.messages": "9223372036854775807", "log.flush.interval.ms": "1000",
    "log.index.interval.bytes": "4096", "log.index.size.max.bytes": "10485760",
    "log.local.retention.bytes": "-2", "log.local.retention.ms": "-2",
    "log.message.timestamp.after.max.ms": "3600000",
    "log.message.timestamp.before.max.ms": "9223372036854775807",
    "log.message.timestamp.type": "CreateTime", "log.preallocate": "false",
    "log.remote.copy.lag.bytes": "-1", "log.remote.copy.lag.ms": "0", "log.retention.bytes": "-1",
    "log.retention.ms": "604800000", "log.roll.jitter.ms": "0", "log.roll.ms": "604800000",
    "log.segment.bytes": "1073741824", "log.segment.delete.delay.ms": "60000",
    "max.connection.creation.rate": "2147483647", "max.connections": "2147483647",
    "max.connections.per.ip": "2147483647", "max.connections.per.ip.overrides": "",
    "max.decompressed.message.bytes": "2147483639", "message.max.bytes": "1048588",
    "metric.reporters": "", "num.io.threads": "8",
    "num.network.threads": "3", "num.recovery.threads.per.data.dir": "2", "num.replica.fetchers": "1",
    "producer.id.expiration.ms": "86400000", "remote.fetch.max.wait.ms": "500",
    "remote.list.offsets.request.timeout.ms": "30000",
    "remote.log.index.file.cache.total.size.bytes": "1073741824",
    "remote.log.manager.copier.thread.pool.size": "10",
    "remote.log.manager.copy.max.bytes.per.second": "9223372036854775807",
    "remote.log.manager.expiration.thread.pool.size": "10",
    "remote.log.manager.fetch.max.bytes.per.second": "9223372036854775807",
    "remote.log.manager.follower.thread.pool.size": "2", "remote.log.reader.threads": "10",
    "replica.alter.log.dirs.io.max.bytes.per.second": "9223372036854775807",
    "sasl.kerberos.kinit.cmd": "/usr/bin/kinit", "sasl.kerberos.min.time.before.relogin": "60000",
    "sasl.kerberos.principal.to.local.rules": "DEFAULT", "sasl.kerberos.service.name": "kafka",
    "sasl.kerberos.ticket.renew.jitter": "0.05", "sasl.kerberos.ticket.renew.window.factor": "0.8",
    "sasl.login.refresh.buffer.seconds": "300", "sasl.login.refresh.min.period.seconds": "60",
    "sasl.login.refresh.window.factor": "0.8", "sasl.login.refresh.window.jitter": "0.05",
    "share.coordinator.cached.buffer.max.bytes": "1048588",
    "transaction.partition.verification.enable": "true", "unclean.leader.election.enable": "false",
}


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("dyn-names")
    kafka = ReferenceKafka("4", work_dir=base / "kafka", node_id=NODE)
    ours = KafpyBroker(work_dir=base / "kafpy", overrides={"broker.id": NODE}, start_timeout=150)
    with ThreadPoolExecutor(2) as pool:
        starting: list[Future[Any]] = [pool.submit(kafka.start), pool.submit(ours.start)]
        errors = [f.exception() for f in starting]
    try:
        if any(errors):
            raise next(e for e in errors if e)
        yield {"apache": kafka, "kafpy": ours}
    finally:
        ours.stop()
        kafka.stop()


def _alter(port: int, entity: str, configs: dict[str, str], validate_only: bool = True) -> tuple:
    A = M.AlterConfigsRequest
    with RawConnection(LOOPBACK, port, timeout=60) as c:
        r = c.request(ApiKey.ALTER_CONFIGS, 2, A(validate_only=validate_only, resources=[A.AlterConfigsResource(
            resource_type=BROKER_RESOURCE, resource_name=entity,
            configs=[A.AlterableConfig(name=k, value=v) for k, v in configs.items()])]))
    return r.responses[0].error_code, r.responses[0].error_message


def _incremental(port: int, entity: str, configs: dict[str, str], validate_only: bool = True) -> tuple:
    A = M.IncrementalAlterConfigsRequest
    with RawConnection(LOOPBACK, port, timeout=60) as c:
        r = c.request(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, A(validate_only=validate_only, resources=[
            A.AlterConfigsResource(resource_type=BROKER_RESOURCE, resource_name=entity, configs=[
                A.AlterableConfig(name=k, config_operation=SET, value=v) for k, v in configs.items()])]))
    return r.responses[0].error_code, r.responses[0].error_message


def _describe(port: int, entity: str, names: list[str]) -> dict[str, tuple]:
    D = M.DescribeConfigsRequest
    with RawConnection(LOOPBACK, port, timeout=60) as c:
        r = c.request(ApiKey.DESCRIBE_CONFIGS, 4, D(include_synonyms=False, include_documentation=False,
                      resources=[D.DescribeConfigsResource(resource_type=BROKER_RESOURCE, resource_name=entity,
                                                           configuration_keys=names)]))
    return {e.name: (e.value, e.config_source, e.read_only) for e in r.results[0].configs}


def _described(brokers, name: str, value: str) -> dict[str, Any]:
    """DescribeConfigs of `name` on each broker once it shows `value` (Kafka 4.4 applies a
    change when its metadata record is replayed, moments after answering), or as it is
    after 30 s."""
    out = {}
    for label, b in brokers.items():
        deadline = time.monotonic() + 30
        while True:
            out[label] = _describe(b.port, str(NODE), [name])
            if out[label][name][0] == value or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    return out


def _both(brokers, call, *args) -> dict[str, Any]:
    return {name: call(b.port, *args) for name, b in brokers.items()}


def test_sasl_kerberos_relogin_time_on_broker_0_as_kafka(brokers):
    name = "sasl.kerberos.min.time.before.relogin"
    for call in (_alter, _incremental):
        got = _both(brokers, call, str(NODE), {name: "86400000"}, False)
        assert got["kafpy"] == got["apache"] == (0, None), (call.__name__, got)
        described = _described(brokers, name, "86400000")
        assert described["kafpy"] == described["apache"], described
        assert described["kafpy"][name][:2] == ("86400000", 2), described   # DYNAMIC_BROKER_CONFIG
    # per broker only, as Kafka keeps every SASL setting of a listener
    got = _both(brokers, _alter, "", {name: "86400000"}, False)
    assert got["kafpy"] == got["apache"], got
    assert got["kafpy"][0] != 0


@pytest.mark.parametrize("entity", [str(NODE), ""], ids=["broker", "default"])
def test_every_dynamic_name_answered_as_kafka(brokers, entity):
    differ = {}
    for name, value in VALUES.items():
        for call in (_alter, _incremental):
            configs = {name: value}
            if call is _alter and entity == "":
                # AlterConfigs replaces the whole default set; Kafka 4.4 keeps the
                # cluster-level min.insync.replicas while ELR is enabled
                configs.setdefault("min.insync.replicas", "1")
            got = _both(brokers, call, entity, configs)
            if got["kafpy"] != got["apache"]:
                differ[(name, call.__name__)] = got
    assert differ == {}, "\n".join(f"{k}: {v}" for k, v in differ.items())


@pytest.mark.parametrize("entity", [str(NODE), ""], ids=["broker", "default"])
def test_unknown_and_static_names_answered_as_kafka(brokers, entity):
    """Kafka 4.4 stores a broker config name it does not know (a newer broker's, a
    plugin's) unchecked, and refuses a static one with INVALID_REQUEST."""
    for name in ("no.such.config", "auto.create.topics.enable"):
        for call in (_alter, _incremental):
            configs = {name: "1"}
            if call is _alter and entity == "":
                configs["min.insync.replicas"] = "1"
            got = _both(brokers, call, entity, configs)
            assert got["kafpy"] == got["apache"], (name, call.__name__, got)
