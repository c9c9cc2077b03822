"""Kafka 4.4's dynamic broker configs that kafpy takes, checks and stores as Kafka does but
does not act on: tiered storage (`remote.*`, `log.local.*`), replication throttles, the
coordinators' offload and buffer settings, Kerberos and OAuth login refresh, the dead
letter queue, cordoned log dirs and a JVM's TLS plumbing (`ssl.provider`...). AlterConfigs and IncrementalAlterConfigs accept them
where Kafka does (a C client's admin test sets `sasl.kerberos.min.time.before.relogin` on
a broker), DescribeConfigs reports them with their sources, and nothing else reads them,
but for `max.decompressed.message.bytes`: the topics' default (`kafpy.broker.topic_config`),
which the logs apply to clients' compressed batches.

Who reads it: `kafpy.broker.config`, which builds its ConfigDefs from `STORED_DYNAMIC`,
and `kafpy.broker.dynamic_config`, for `PER_BROKER_CONFIGS`. Plain tuples here, so this
module imports nothing of the broker's. Types, defaults and ranges are Kafka 4.4's
(`KafkaConfig.configDef()`, and `DynamicConfig.Broker` for the throttle rates).
"""
from __future__ import annotations

from typing import Union

__all__ = ["STORED_DYNAMIC", "PER_BROKER_CONFIGS", "CLUSTER_LEVEL_LISTENER_CONFIGS", "NOT_IN_KAFKA_44",
           "DESCRIBED_ONCE_SET"]

LONG_MAX = 9223372036854775807
Default = Union[int, float, bool, str, list[str], None]

# (name, type, default, lowest value or None, highest value or None)
STORED_DYNAMIC: tuple[tuple[str, str, Default, float | None, float | None], ...] = (
    ("config.providers", "list", [], None, None),
    ("cordoned.log.dirs", "list", [], None, None),
    ("errors.deadletterqueue.auto.create.topics.enable", "boolean", False, None, None),
    ("errors.deadletterqueue.topic.name.prefix", "string", "dlq.", None, None),
    ("follower.fetch.last.tiered.offset.enable", "boolean", False, None, None),
    ("follower.replication.throttled.rate", "long", LONG_MAX, 0, None),
    ("leader.replication.throttled.rate", "long", LONG_MAX, 0, None),
    ("replica.alter.log.dirs.io.max.bytes.per.second", "long", LONG_MAX, 0, None),
    ("group.consumer.assignment.interval.ms", "int", 1000, 0, None),
    ("group.consumer.assignor.offload.enable", "boolean", True, None, None),
    ("group.coordinator.cached.buffer.max.bytes", "int", 1048588, 524288, None),
    ("group.share.assignment.interval.ms", "int", 1000, 0, None),
    ("group.share.assignor.offload.enable", "boolean", True, None, None),
    ("group.streams.assignor.offload.enable", "boolean", True, None, None),
    ("share.coordinator.cached.buffer.max.bytes", "int", 1048588, 524288, None),
    ("log.local.retention.bytes", "long", -2, -2, None),
    ("log.local.retention.ms", "long", -2, -2, None),
    ("log.remote.copy.lag.bytes", "long", -1, -1, None),
    ("log.remote.copy.lag.ms", "long", 0, -1, None),
    ("max.connection.creation.rate", "int", 2147483647, 0, None),
    ("max.decompressed.message.bytes", "int", 2147483639, 1, 2147483639),
    ("remote.fetch.max.wait.ms", "int", 500, 1, None),
    ("remote.list.offsets.request.timeout.ms", "long", 30000, 1, None),
    ("remote.log.index.file.cache.total.size.bytes", "long", 1073741824, 1, None),
    ("remote.log.manager.copier.thread.pool.size", "int", 10, 1, None),
    ("remote.log.manager.copy.max.bytes.per.second", "long", LONG_MAX, 1, None),
    ("remote.log.manager.expiration.thread.pool.size", "int", 10, 1, None),
    ("remote.log.manager.fetch.max.bytes.per.second", "long", LONG_MAX, 1, None),
    ("remote.log.manager.follower.thread.pool.size", "int", 2, 1, None),
    ("remote.log.reader.threads", "int", 10, 1, None),
    ("sasl.kerberos.kinit.cmd", "string", "/usr/bin/kinit", None, None),
    ("sasl.kerberos.min.time.before.relogin", "long", 60000, None, None),
    ("sasl.kerberos.principal.to.local.rules", "list", ["DEFAULT"], None, None),
    ("sasl.kerberos.service.name", "string", None, None, None),
    ("sasl.kerberos.ticket.renew.jitter", "double", 0.05, None, None),
    ("sasl.kerberos.ticket.renew.window.factor", "double", 0.8, None, None),
    ("sasl.login.refresh.buffer.seconds", "short", 300, None, None),
    ("sasl.login.refresh.min.period.seconds", "short", 60, None, None),
    ("sasl.login.refresh.window.factor", "double", 0.8, None, None),
    ("sasl.login.refresh.window.jitter", "double", 0.05, None, None),
    # a JVM's TLS plumbing (kafpy's TLS is Python's ssl module): per broker, as in Kafka
    ("ssl.engine.factory.class", "class", None, None, None),
    ("ssl.keymanager.algorithm", "string", "SunX509", None, None),
    ("ssl.provider", "string", None, None, None),
    ("ssl.secure.random.implementation", "string", None, None, None),
    ("ssl.trustmanager.algorithm", "string", "PKIX", None, None),
)

# What Kafka 4.4 takes only for one broker, never as the cluster-wide default
# (DynamicBrokerConfig.perBrokerConfigs: the listener, SASL and TLS settings, as each
# broker has its own; and cordoned.log.dirs); a listener-prefixed name is per broker too.
PER_BROKER_CONFIGS = frozenset({
    "cordoned.log.dirs", "listener.security.protocol.map", "listeners", "principal.builder.class",
    "sasl.enabled.mechanisms", "sasl.jaas.config", "sasl.kerberos.kinit.cmd",
    "sasl.kerberos.min.time.before.relogin", "sasl.kerberos.principal.to.local.rules",
    "sasl.kerberos.service.name", "sasl.kerberos.ticket.renew.jitter",
    "sasl.kerberos.ticket.renew.window.factor", "sasl.login.refresh.buffer.seconds",
    "sasl.login.refresh.min.period.seconds", "sasl.login.refresh.window.factor",
    "sasl.login.refresh.window.jitter", "sasl.mechanism.inter.broker.protocol", "ssl.cipher.suites",
    "ssl.client.auth", "ssl.enabled.protocols", "ssl.endpoint.identification.algorithm",
    "ssl.engine.factory.class", "ssl.key.password", "ssl.keymanager.algorithm",
    "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.keystore.location",
    "ssl.keystore.password", "ssl.keystore.type", "ssl.protocol", "ssl.provider",
    "ssl.secure.random.implementation", "ssl.trustmanager.algorithm", "ssl.truststore.certificates",
    "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.type",
})

# The listener settings Kafka 4.4 takes at the cluster default too when listener-prefixed
# (DynamicBrokerConfig.CLUSTER_LEVEL_LISTENER_CONFIGS); every other
# `listener.name.<listener>.<name>` is per broker only.
CLUSTER_LEVEL_LISTENER_CONFIGS = frozenset({"max.connection.creation.rate", "max.connections", "num.network.threads"})

# Names kafpy still reads from server.properties (older Kafka's, ZooKeeper mode's, the ACL
# authorizer's) that Kafka 4.4's broker no longer defines: like any name it does not know,
# Kafka 4.4 stores a dynamic update of one unchecked, and nothing reads it; so does kafpy
# (KafkaConfig.set_dynamic leaves them out of what reads see).
NOT_IN_KAFKA_44 = frozenset({
    "advertised.host.name", "advertised.port", "allow.everyone.if.no.acl.found", "controlled.shutdown.max.retries",
    "controlled.shutdown.retry.backoff.ms", "host.name", "leader.imbalance.per.broker.percentage",
    "log.message.downconversion.enable", "log.message.format.version", "log.message.timestamp.difference.max.ms",
    "password.encoder.iterations", "password.encoder.key.length", "password.encoder.old.secret",
    "password.encoder.secret", "port", "reserved.broker.max.id", "super.users", "zookeeper.connect",
    "zookeeper.connection.timeout.ms", "zookeeper.max.in.flight.requests", "zookeeper.session.timeout.ms",
    "zookeeper.set.acl",
})

# Dynamic names Kafka 4.4's DescribeConfigs lists only once one is set on the broker or the
# cluster default: the replication throttles (DynamicConfig.Broker's, not KafkaConfig's) and
# the coordinators' internal offload switches.
DESCRIBED_ONCE_SET = frozenset({
    "follower.replication.throttled.rate", "leader.replication.throttled.rate",
    "replica.alter.log.dirs.io.max.bytes.per.second", "group.consumer.assignor.offload.enable",
    "group.share.assignor.offload.enable", "group.streams.assignor.offload.enable",
})
