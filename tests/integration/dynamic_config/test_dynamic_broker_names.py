"""Which broker configs a running broker takes dynamically, name by name as Apache Kafka 4.4
takes them (its DynamicBrokerConfig / DynamicConfig.Broker and the listener and SASL/SSL
reconfigurables): the same AlterConfigs and IncrementalAlterConfigs requests to Kafka 4.4
and kafpy in the same test, for broker `0` and for the cluster-wide default, expecting the
same answers; what both accept is then described with the same value and source.
"""
from __future__ import annotations

import time
from typing import Any, Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from tests.integration.broker.raw import RawConnection
from tests.support.side_by_side import apache_and_kafpy
from tests.support.ports import LOOPBACK

BROKER_RESOURCE = 4
NODE = 0    # broker `0`, as a C client's admin test names it
SET = 0
# Kafka 4.4's dynamic broker configs with a value each accepts (its default where it has
# one; a real class of Kafka's for the class names, which Kafka loads and kafpy cannot).
# The listener set is tested with each broker's own listeners (test_listener_set_*);
# min.insync.replicas is left out: Kafka 4.4 keeps it at the cluster level while eligible
# leader replicas (KIP-966) are enabled. test_the_table_is_kafkas checks that these and
# STORES are every name Kafka 4.4 describes as dynamic.
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
    # TLS and SASL settings of the broker's listeners (per broker only)
    "principal.builder.class": "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder",
    "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
    "sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required;",
    "sasl.mechanism.inter.broker.protocol": "PLAIN", "ssl.cipher.suites": "TLS_AES_128_GCM_SHA256",
    "ssl.client.auth": "requested", "ssl.enabled.protocols": "TLSv1.2,TLSv1.3",
    "ssl.endpoint.identification.algorithm": "", "ssl.engine.factory.class":
        "org.apache.kafka.common.security.ssl.DefaultSslEngineFactory",
    "ssl.keymanager.algorithm": "SunX509", "ssl.protocol": "TLSv1.2", "ssl.provider": "SUN",
    "ssl.secure.random.implementation": "SHA1PRNG", "ssl.trustmanager.algorithm": "PKIX",
    # listener-prefixed: a plaintext listener's TLS and SASL settings are stored unchecked,
    # per broker only but for the connection limits and network threads
    "listener.name.plaintext.ssl.keystore.type": "PKCS12",
    "listener.name.plaintext.ssl.keystore.location": "/nonexistent/keystore.p12",
    "listener.name.plaintext.ssl.cipher.suites": "TLS_AES_128_GCM_SHA256",
    "listener.name.plaintext.plain.sasl.jaas.config":
        "org.apache.kafka.common.security.plain.PlainLoginModule required;",
    "listener.name.plaintext.max.connections": "100", "listener.name.plaintext.max.connection.creation.rate": "10",
    "listener.name.plaintext.num.network.threads": "3", "listener.name.other.max.connections": "5",
}
# the TLS stores, dynamic only listener-prefixed (refused without a prefix, by both)
STORES = {
    "ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/nonexistent/keystore.p12",
    "ssl.keystore.password": "secret", "ssl.key.password": "secret", "ssl.keystore.certificate.chain": "x",
    "ssl.keystore.key": "x", "ssl.truststore.type": "PKCS12", "ssl.truststore.location": "/nonexistent/ts.p12",
    "ssl.truststore.password": "secret", "ssl.truststore.certificates": "x",
}
# refused by both: values of the wrong type or out of range, a static name, the advertised
# listeners (static in Kafka 4.4)
REFUSED = [
    {"max.connections": "abc"}, {"max.connections": "-5"}, {"num.io.threads": "eight"},
    {"log.preallocate": "yes"}, {"compression.type": "bogus"}, {"log.cleanup.policy": "delete,bogus"},
    {"ssl.client.auth": "bogus"}, {"sasl.kerberos.ticket.renew.jitter": "x"},
    {"max.decompressed.message.bytes": "2147483640"}, {"listener.name.plaintext.max.connections": "abc"},
    {"auto.create.topics.enable": "false"}, {"advertised.listeners": "PLAINTEXT://127.0.0.1:1"},
    {"listener.name.plaintext.ssl.cipher.suites": "TLS_AES_128_GCM_SHA256", "sasl.enabled.mechanisms": "PLAIN"},
    # names Kafka 4.4 does not know (removed, a plugin's): stored unchecked by both
    {"log.message.timestamp.difference.max.ms": "abc"}, {"log.message.downconversion.enable": "abc"},
    {"listener.name.plaintext.no.such": "1"},
]
# dynamic names Kafka 4.4 describes only once set (internal ones, DynamicConfig.Broker's)
DESCRIBED_ONCE_SET = {"follower.replication.throttled.rate", "leader.replication.throttled.rate",
                      "replica.alter.log.dirs.io.max.bytes.per.second", "group.consumer.assignor.offload.enable",
                      "group.share.assignor.offload.enable", "group.streams.assignor.offload.enable"}


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    yield from apache_and_kafpy(tmp_path_factory.mktemp("dyn-names"), node_id=NODE)


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


def _describe(port: int, entity: str, names: list[str] | None) -> dict[str, tuple]:
    D = M.DescribeConfigsRequest
    with RawConnection(LOOPBACK, port, timeout=60) as c:
        r = c.request(ApiKey.DESCRIBE_CONFIGS, 4, D(include_synonyms=False, include_documentation=False,
                      resources=[D.DescribeConfigsResource(resource_type=BROKER_RESOURCE, resource_name=entity,
                                                           configuration_keys=names)]))
    return {e.name: (e.value, e.config_source, e.read_only, e.is_sensitive) for e in r.results[0].configs}


def _described(brokers, name: str, value: str) -> dict[str, Any]:
    """DescribeConfigs of `name` on each broker once it shows `value` (Kafka 4.4 applies a
    change when its metadata record is replayed, moments after answering), or as it is
    after 30 s."""
    out = {}
    for label, b in brokers.items():
        deadline = time.monotonic() + 30
        while True:
            out[label] = _describe(b.port, str(NODE), [name])
            if out[label].get(name, (None,))[0] == value or time.monotonic() > deadline:
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
    got = _both(brokers, _alter, str(NODE), {}, False)   # back as it was, for the tests after this one
    assert got["kafpy"] == got["apache"] == (0, None), got
    # per broker only, as Kafka keeps every SASL setting of a listener
    got = _both(brokers, _alter, "", {name: "86400000"}, False)
    assert got["kafpy"] == got["apache"], got
    assert got["kafpy"][0] != 0


@pytest.mark.parametrize("entity", [str(NODE), ""], ids=["broker", "default"])
def test_every_dynamic_name_answered_as_kafka(brokers, entity):
    differ = {}
    for name, value in {**VALUES, **STORES}.items():
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


@pytest.mark.parametrize("entity", [str(NODE), ""], ids=["broker", "default"])
def test_refused_values_answered_as_kafka(brokers, entity):
    """Kafka's checks and their messages: the type and range of a value (a listener-prefixed
    one's as its setting's), static names, an existing listener's own settings changed with
    a listener setting; and what Kafka stores unchecked."""
    differ = {}
    for configs in REFUSED:
        for call in (_alter, _incremental):
            sent = dict(configs)
            if call is _alter and entity == "":
                sent.setdefault("min.insync.replicas", "1")
            got = _both(brokers, call, entity, sent)
            if got["kafpy"] != got["apache"]:
                differ[(tuple(configs), call.__name__)] = got
    assert differ == {}, "\n".join(f"{k}: {v}" for k, v in differ.items())


def test_the_table_is_kafkas(brokers):
    """The names Kafka 4.4 describes as dynamic (read_only false) are the ones tested here,
    and kafpy describes the same ones so."""
    dynamic = {label: {n for n, e in _describe(b.port, str(NODE), None).items() if not e[2]}
               for label, b in brokers.items()}
    assert dynamic["apache"] <= set(VALUES) | set(STORES) | {"min.insync.replicas", "listeners",
                                                              "listener.security.protocol.map"}
    assert dynamic["apache"] <= dynamic["kafpy"]
    assert dynamic["kafpy"] - dynamic["apache"] == {"kafpy.request.logger.slow.ms"}
    # and those described only once set
    assert DESCRIBED_ONCE_SET <= set(VALUES)
    got = _both(brokers, _incremental, str(NODE), {n: VALUES[n] for n in DESCRIBED_ONCE_SET}, False)
    assert got["kafpy"] == got["apache"] == (0, None), got
    for name in DESCRIBED_ONCE_SET:
        described = _described(brokers, name, VALUES[name])
        assert described["kafpy"] == described["apache"] == {name: (VALUES[name], 2, False, False)}, described
    got = _both(brokers, _alter, str(NODE), {}, False)
    assert got["kafpy"] == got["apache"] == (0, None), got


def test_doubles_described_as_kafka(brokers):
    """A double's value as Java writes it (1.7976931348623157E308, 0.5)."""
    names = ["log.cleaner.io.max.bytes.per.second", "log.cleaner.io.buffer.load.factor",
             "log.cleaner.min.cleanable.ratio", "sasl.kerberos.ticket.renew.jitter", "sasl.login.refresh.window.factor"]
    got = {label: _describe(b.port, str(NODE), names) for label, b in brokers.items()}
    assert got["kafpy"] == got["apache"], got
    assert got["kafpy"]["log.cleaner.io.max.bytes.per.second"][0] == "1.7976931348623157E308"


def _own(b: Any) -> dict[str, str]:
    """The broker's listeners and protocol map, as it describes them."""
    got = _describe(b.port, str(NODE), ["listeners", "listener.security.protocol.map"])
    return {name: e[0] for name, e in got.items()}


def test_listener_set_answered_as_kafka(brokers):
    """The same changes to each broker's own listeners (a KRaft broker's include its
    controller's): kept, a listener added with its protocol, one added without, a
    protocol changed; per broker only."""
    own = {label: _own(b) for label, b in brokers.items()}

    def each(call, entity: str, change) -> dict[str, tuple]:
        out = {}
        for label, b in brokers.items():
            listeners, protocols = own[label]["listeners"], own[label]["listener.security.protocol.map"]
            code, message = call(b.port, entity, change(listeners, protocols))
            out[label] = (code, message and message.replace(", ".join(listeners.split(",")), "<own>"))
        return out

    cases = {
        "kept": lambda li, pm: {"listeners": li},
        "added": lambda li, pm: {"listeners": li + ",EXTRA://127.0.0.1:0",
                                 "listener.security.protocol.map": pm + ",EXTRA:PLAINTEXT"},
        "added-without-protocol": lambda li, pm: {"listeners": li + ",EXTRA://127.0.0.1:0"},
        "protocol-map-grown": lambda li, pm: {"listener.security.protocol.map": pm + ",SSL:SSL"},
        "protocol-changed": lambda li, pm: {"listener.security.protocol.map": pm.replace("PLAINTEXT:PLAINTEXT",
                                                                                         "PLAINTEXT:SSL")},
    }
    for case, change in cases.items():
        for call in (_alter, _incremental):
            got = each(call, str(NODE), change)
            assert got["kafpy"] == got["apache"], (case, call.__name__, got)
        got = each(_incremental, "", change)
        assert got["kafpy"] == got["apache"], (case, "default", got)
        assert got["kafpy"][0] != 0


def test_stored_names_described_as_kafka(brokers):
    """Stored for real: DescribeConfigs shows each with Kafka's value, source (this broker's
    or the cluster default's), read-only flag and sensitivity (passwords, and names Kafka
    does not know, without their value)."""
    plain = {"sasl.jaas.config": VALUES["sasl.jaas.config"], "ssl.keymanager.algorithm": "SunX509",
             "sasl.kerberos.service.name": "kafka", "leader.replication.throttled.rate": "1000", "no.such.config": "1"}
    prefixed = {"listener.name.plaintext.plain.sasl.jaas.config": VALUES["listener.name.plaintext.plain.sasl.jaas.config"],
                "listener.name.plaintext.ssl.keystore.type": "PKCS12"}
    own = {**plain, **prefixed}
    default = {"listener.name.plaintext.max.connections": "2000", "log.cleaner.backoff.ms": "20000",
               "no.such.default": "3"}
    for entity, configs, applied in ((str(NODE), plain, "sasl.kerberos.service.name"),
                                     (str(NODE), prefixed, "listener.name.plaintext.ssl.keystore.type"),
                                     ("", default, "log.cleaner.backoff.ms")):
        got = _both(brokers, _incremental, entity, configs, False)
        assert got["kafpy"] == got["apache"] == (0, None), got
        _described(brokers, applied, configs[applied])   # Kafka 4.4 has applied it
    # Kafka checks an existing listener's prefixed settings against those it started with
    # whenever a listener, TLS or SASL setting changes: from now on such a change is refused
    got = _both(brokers, _incremental, str(NODE), {"sasl.kerberos.service.name": "other"})
    assert got["kafpy"] == got["apache"] and got["kafpy"][0] == 42, got
    for entity, configs in ((str(NODE), own), ("", default)):
        names = sorted(configs)
        out = {}
        for label, b in brokers.items():
            deadline = time.monotonic() + 30
            while True:   # Kafka 4.4 applies a change moments after answering
                out[label] = _describe(b.port, entity, names)
                if set(out[label]) >= set(names) - {"no.such.config", "no.such.default"} \
                        or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        assert out["kafpy"] == out["apache"], (entity, out)
    described = _describe(brokers["kafpy"].port, str(NODE), sorted(own))
    assert described["sasl.jaas.config"] == (None, 2, False, True)          # a password: no value
    assert described["ssl.keymanager.algorithm"] == ("SunX509", 2, False, False)
    cleared = _both(brokers, _alter, str(NODE), {}, False)
    assert cleared["kafpy"] == cleared["apache"] == (0, None)
    cleared = _both(brokers, _alter, "", {"min.insync.replicas": "1"}, False)
    assert cleared["kafpy"] == cleared["apache"] == (0, None)
