"""Broker configuration: ``server.properties`` with Apache Kafka's names and defaults.

``KafkaConfig.from_file`` reads a Java properties file (``kafpy.broker.properties``), applies ``--override k=v`` pairs,
converts every known key to its type and checks it. Unknown keys are logged and ignored (Kafka
does the same); a known key with a value that does not parse refuses to start with a
``ConfigError`` naming the key. Only the broker's startup code constructs it; afterwards it is
read-only except for dynamic broker configs altered through the Admin API, which live in
``dynamic`` beside the static values.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Union

from kafpy.broker.endpoint import LISTENER_PREFIX, Listener, parse_listener
from kafpy.broker.kraft_config import KRAFT_CONFIG_DEFS, process_roles, validate_kraft
from kafpy.broker.properties import load_properties
from kafpy.broker.stored_dynamic_configs import NOT_IN_KAFKA_44, STORED_DYNAMIC

log = logging.getLogger(__name__)

LONG_MAX = 9223372036854775807
INT_MAX = 2147483647


# A parsed config value: what PARSERS give for each type (int, long, short: int; double: float;
# boolean: bool; list: list[str]; string, password, class: str), or None for a null default.
ConfigValue = Union[int, float, str, bool, list[str], None]


def _number(v: ConfigValue) -> float:
    """A numeric config's value, for the range checks (only numeric configs have them)."""
    if isinstance(v, (int, float)):
        return v
    raise TypeError(f"not a number: {v!r}")


def _items(v: ConfigValue) -> list[str]:
    """A list config's value, for the checks of its items."""
    if isinstance(v, list):
        return v
    raise TypeError(f"not a list: {v!r}")


class ConfigError(ValueError):
    """A configuration value that Kafka would refuse; the message names the key."""


def _parse_bool(v: str) -> bool:
    s = v.strip().lower()
    if s in ("true", "false"):
        return s == "true"
    raise ValueError(f"expected true or false, got {v!r}")


def _parse_list(v: str) -> list[str]:
    return [p.strip() for p in v.split(",") if p.strip()]


def _parse_int(v: str) -> int:
    n = int(v.strip())
    if not -2147483648 <= n <= INT_MAX:
        raise ValueError(f"{v!r} is out of range for an int")
    return n


def _parse_long(v: str) -> int:
    n = int(v.strip())
    if not -LONG_MAX - 1 <= n <= LONG_MAX:
        raise ValueError(f"{v!r} is out of range for a long")
    return n


PARSERS: dict[str, Callable[[str], ConfigValue]] = {
    "int": _parse_int,
    "long": _parse_long,
    "short": _parse_int,
    "double": lambda v: float(v.strip()),
    "boolean": _parse_bool,
    "string": lambda v: v.strip(),
    "list": _parse_list,
    "password": lambda v: v.strip(),
    "class": lambda v: v.strip(),
}


@dataclass(frozen=True)
class ConfigDef:
    """One broker config key: its type, default and an optional check of the parsed value."""

    name: str
    type: str
    default: ConfigValue
    check: Callable[[ConfigValue], bool] | None = None
    sensitive: bool = False
    dynamic: bool = False  # may be altered with IncrementalAlterConfigs on brokers


class Check:
    """A parsed value's check and the reason Kafka's ConfigDef validator gives for a value
    that fails it (``reason``: "Value must be at least 1"), which a dynamic update refused
    for it is answered with (``kafpy.broker.dynamic_config.check_value``)."""

    def __init__(self, test: Callable[[ConfigValue], bool], reason: str | Callable[[ConfigValue], str]) -> None:
        self.test = test
        self.reason = reason

    def __call__(self, value: ConfigValue) -> bool:
        return self.test(value)

    def why(self, value: ConfigValue) -> str:
        """Kafka's reason for refusing ``value``."""
        return self.reason if isinstance(self.reason, str) else self.reason(value)


def _at_least(n: int) -> Check:
    return Check(lambda v: v is None or _number(v) >= n, f"Value must be at least {n}")


def _range(low: float | None, high: float | None) -> Check:
    """Kafka's ConfigDef.Range (``between``, ``atLeast`` with no ``high``), with its reasons."""
    return Check(lambda v: v is None or ((low is None or _number(v) >= low) and (high is None or _number(v) <= high)),
                 lambda v: f"Value must be at least {low}" if low is not None and _number(v) < low
                 else f"Value must be no more than {high}")


# compression.<codec>.level, broker and topic alike (Kafka's CompressionType.levelValidator)
COMPRESSION_LEVEL_CHECKS: dict[str, Check] = {
    "compression.gzip.level": Check(lambda v: v is None or v == -1 or 1 <= _number(v) <= 9,
                                    "Value must be between 1 and 9 or equal to -1"),
    "compression.lz4.level": _range(1, 17),
    "compression.zstd.level": _range(-131072, 22),
}


def _one_of(*opts: str | int) -> Check:
    return Check(lambda v: v in opts, f"String must be one of: {', '.join(map(str, opts))}")


def _each_one_of(*opts: str) -> Check:
    return Check(lambda v: v is None or all(item in opts for item in _items(v)), f"String must be one of: {', '.join(opts)}")


SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer", "none")

_DEFS = [
    # kafpy's own: the Schema Registry and REST Proxy on the HTTP listener (kafpy.rest.mount)
    ConfigDef("kafpy.schema.registry.enable", "boolean", False),
    ConfigDef("kafpy.rest.proxy.enable", "boolean", False),
    ConfigDef("kafpy.rest.consumer.instances.max", "int", 100, _at_least(1)),
    ConfigDef("kafpy.rest.consumer.instances.max.per.principal", "int", 10, _at_least(1)),
    # Server basics
    ConfigDef("broker.id", "int", -1, _at_least(-1)),
    ConfigDef("node.id", "int", -1),
    ConfigDef("broker.rack", "string", None),
    ConfigDef("reserved.broker.max.id", "int", 1000),
    # Sockets
    ConfigDef("listeners", "list", ["PLAINTEXT://:9092"], dynamic=True),
    ConfigDef("advertised.listeners", "list", None),
    ConfigDef("listener.security.protocol.map", "list",
              ["PLAINTEXT:PLAINTEXT", "SSL:SSL", "SASL_PLAINTEXT:SASL_PLAINTEXT", "SASL_SSL:SASL_SSL"], dynamic=True),
    ConfigDef("inter.broker.listener.name", "string", None),
    ConfigDef("port", "int", 9092, _at_least(0)),
    ConfigDef("host.name", "string", ""),
    ConfigDef("advertised.host.name", "string", None),
    ConfigDef("advertised.port", "int", None),
    ConfigDef("num.network.threads", "int", 3, _at_least(1), dynamic=True),
    ConfigDef("num.io.threads", "int", 8, _at_least(1), dynamic=True),
    ConfigDef("background.threads", "int", 10, _at_least(1), dynamic=True),
    # accepted, not applied: requests are not handed between threads through one queue here;
    # each connection stops being read at 100 queued requests (broker.server)
    ConfigDef("queued.max.requests", "int", 500, _at_least(1)),
    # bytes of all requests received and not yet answered (-1: no bound); a connection whose
    # next request does not fit stops being read until others give theirs back
    ConfigDef("queued.max.request.bytes", "long", -1),
    ConfigDef("socket.send.buffer.bytes", "int", 102400),
    ConfigDef("socket.receive.buffer.bytes", "int", 102400),
    ConfigDef("socket.request.max.bytes", "int", 104857600, _at_least(1)),
    ConfigDef("socket.listen.backlog.size", "int", 50, _at_least(1)),
    ConfigDef("connections.max.idle.ms", "long", 600000),
    ConfigDef("max.connections", "int", INT_MAX, _at_least(0), dynamic=True),
    ConfigDef("max.connections.per.ip", "int", INT_MAX, _at_least(0), dynamic=True),
    ConfigDef("max.connections.per.ip.overrides", "list", [], dynamic=True),
    # Logs
    ConfigDef("log.dirs", "list", None),
    ConfigDef("log.dir", "string", "/tmp/kafka-logs"),
    ConfigDef("num.partitions", "int", 1, _at_least(1)),
    ConfigDef("default.replication.factor", "int", 1, _at_least(1)),
    ConfigDef("auto.create.topics.enable", "boolean", True),
    ConfigDef("delete.topic.enable", "boolean", True),
    ConfigDef("num.recovery.threads.per.data.dir", "int", 1, _at_least(1), dynamic=True),
    ConfigDef("log.flush.interval.messages", "long", LONG_MAX, _at_least(1), dynamic=True),
    ConfigDef("log.flush.interval.ms", "long", None, dynamic=True),
    # accepted, not applied: log.flush.interval.ms is checked on each retention check
    ConfigDef("log.flush.scheduler.interval.ms", "long", LONG_MAX),
    ConfigDef("log.retention.hours", "int", 168),
    ConfigDef("log.retention.minutes", "int", None),
    ConfigDef("log.retention.ms", "long", None, dynamic=True),
    ConfigDef("log.retention.bytes", "long", -1, dynamic=True),
    ConfigDef("log.retention.check.interval.ms", "long", 300000, _at_least(1)),
    ConfigDef("log.segment.bytes", "int", 1073741824, _at_least(14), dynamic=True),
    ConfigDef("log.roll.hours", "int", 168, _at_least(1)),
    ConfigDef("log.roll.ms", "long", None, dynamic=True),
    ConfigDef("log.roll.jitter.ms", "long", None, dynamic=True),
    ConfigDef("log.index.interval.bytes", "int", 4096, _at_least(0), dynamic=True),
    ConfigDef("log.index.size.max.bytes", "int", 10485760, _at_least(4), dynamic=True),
    ConfigDef("log.segment.delete.delay.ms", "long", 60000, _at_least(0), dynamic=True),
    ConfigDef("log.cleanup.policy", "list", ["delete"], _each_one_of("compact", "delete"), dynamic=True),
    ConfigDef("log.cleaner.enable", "boolean", True),
    ConfigDef("log.cleaner.threads", "int", 1, _at_least(0), dynamic=True),
    ConfigDef("log.cleaner.backoff.ms", "long", 15000, _at_least(0), dynamic=True),
    # dynamic in Kafka too. The dedupe buffer size and the load factor bound the cleaner's offset
    # map, the I/O rate throttles its reads and writes, the I/O buffer size bounds what a
    # cleaning writes at once (storage.cleaner)
    ConfigDef("log.cleaner.dedupe.buffer.size", "long", 134217728, dynamic=True),
    ConfigDef("log.cleaner.io.buffer.size", "int", 524288, _at_least(0), dynamic=True),
    ConfigDef("log.cleaner.io.buffer.load.factor", "double", 0.9, dynamic=True),
    ConfigDef("log.cleaner.io.max.bytes.per.second", "double", 1.7976931348623157e308, dynamic=True),
    ConfigDef("log.cleaner.delete.retention.ms", "long", 86400000, _at_least(0), dynamic=True),
    ConfigDef("log.cleaner.min.cleanable.ratio", "double", 0.5, dynamic=True),
    ConfigDef("log.cleaner.min.compaction.lag.ms", "long", 0, _at_least(0), dynamic=True),
    ConfigDef("log.cleaner.max.compaction.lag.ms", "long", LONG_MAX, _at_least(1), dynamic=True),
    ConfigDef("log.preallocate", "boolean", False, dynamic=True),
    ConfigDef("log.message.timestamp.type", "string", "CreateTime",
              _one_of("CreateTime", "LogAppendTime"), dynamic=True),
    ConfigDef("log.message.timestamp.difference.max.ms", "long", LONG_MAX),
    ConfigDef("log.message.timestamp.before.max.ms", "long", LONG_MAX, dynamic=True),
    ConfigDef("log.message.timestamp.after.max.ms", "long", LONG_MAX, dynamic=True),
    ConfigDef("log.message.format.version", "string", "3.0-IV1"),
    ConfigDef("log.message.downconversion.enable", "boolean", True),
    ConfigDef("message.max.bytes", "int", 1048588, _at_least(0), dynamic=True),
    ConfigDef("compression.type", "string", "producer", _one_of(*COMPRESSION_TYPES[:-1]), dynamic=True),
    # the levels a compression.type naming a codec recompresses with (storage.log_validator)
    ConfigDef("compression.gzip.level", "int", -1, COMPRESSION_LEVEL_CHECKS["compression.gzip.level"], dynamic=True),
    ConfigDef("compression.lz4.level", "int", 9, COMPRESSION_LEVEL_CHECKS["compression.lz4.level"], dynamic=True),
    ConfigDef("compression.zstd.level", "int", 3, COMPRESSION_LEVEL_CHECKS["compression.zstd.level"], dynamic=True),
    ConfigDef("min.insync.replicas", "int", 1, _at_least(1), dynamic=True),
    ConfigDef("unclean.leader.election.enable", "boolean", False, dynamic=True),
    # Replication
    ConfigDef("replica.lag.time.max.ms", "long", 30000),
    ConfigDef("replica.fetch.max.bytes", "int", 1048576, _at_least(0)),
    ConfigDef("replica.fetch.wait.max.ms", "int", 500),
    ConfigDef("replica.fetch.min.bytes", "int", 1),
    ConfigDef("replica.fetch.response.max.bytes", "int", 10485760),
    ConfigDef("replica.fetch.backoff.ms", "int", 1000),
    ConfigDef("replica.socket.timeout.ms", "int", 30000),
    ConfigDef("replica.high.watermark.checkpoint.interval.ms", "long", 5000, _at_least(1)),
    ConfigDef("num.replica.fetchers", "int", 1, _at_least(1), dynamic=True),
    ConfigDef("auto.leader.rebalance.enable", "boolean", True),
    ConfigDef("leader.imbalance.check.interval.seconds", "long", 300),
    ConfigDef("leader.imbalance.per.broker.percentage", "int", 10),
    ConfigDef("controlled.shutdown.enable", "boolean", True),
    ConfigDef("controlled.shutdown.max.retries", "int", 3),
    ConfigDef("controlled.shutdown.retry.backoff.ms", "long", 5000),
    ConfigDef("controller.socket.timeout.ms", "int", 30000),
    # Fetch
    ConfigDef("fetch.max.bytes", "int", 57671680, _at_least(1024)),
    ConfigDef("max.incremental.fetch.session.cache.slots", "int", 1000, _at_least(0)),
    # accepted, not applied (both): a completed delayed operation leaves its purgatory at once
    ConfigDef("fetch.purgatory.purge.interval.requests", "int", 1000),
    ConfigDef("producer.purgatory.purge.interval.requests", "int", 1000),
    # ZooKeeper
    ConfigDef("zookeeper.connect", "string", None),
    ConfigDef("zookeeper.connection.timeout.ms", "int", None),
    ConfigDef("zookeeper.session.timeout.ms", "int", 18000),
    ConfigDef("zookeeper.max.in.flight.requests", "int", 10),
    ConfigDef("zookeeper.set.acl", "boolean", False),
    # Group coordinator
    ConfigDef("offsets.topic.num.partitions", "int", 50, _at_least(1)),
    ConfigDef("offsets.topic.replication.factor", "short", 3, _at_least(1)),
    ConfigDef("offsets.topic.segment.bytes", "int", 104857600, _at_least(1)),
    # the group coordinator's batches in __consumer_offsets: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd
    ConfigDef("offsets.topic.compression.codec", "int", 0, _one_of(0, 1, 2, 3, 4)),
    ConfigDef("offsets.retention.minutes", "int", 10080, _at_least(1)),
    ConfigDef("offsets.retention.check.interval.ms", "long", 600000, _at_least(1)),
    ConfigDef("offsets.commit.timeout.ms", "int", 5000),
    # accepted, not applied: a coordinator loads its partition batch by batch
    ConfigDef("offsets.load.buffer.size", "int", 5242880),
    ConfigDef("offset.metadata.max.bytes", "int", 4096),
    ConfigDef("group.initial.rebalance.delay.ms", "int", 3000, _at_least(0)),
    ConfigDef("group.min.session.timeout.ms", "int", 6000),
    ConfigDef("group.max.session.timeout.ms", "int", 1800000),
    ConfigDef("group.max.size", "int", INT_MAX, _at_least(1)),
    # Client quotas (rates measured over quota.window.num windows of quota.window.size.seconds)
    ConfigDef("quota.window.num", "int", 11, _at_least(1)),
    ConfigDef("quota.window.size.seconds", "int", 1, _at_least(1)),
    # Transactions / idempotence
    ConfigDef("transaction.state.log.num.partitions", "int", 50, _at_least(1)),
    ConfigDef("transaction.state.log.replication.factor", "short", 3, _at_least(1)),
    ConfigDef("transaction.state.log.min.isr", "int", 2, _at_least(1)),
    ConfigDef("transaction.state.log.segment.bytes", "int", 104857600),
    ConfigDef("transactional.id.expiration.ms", "int", 604800000),
    ConfigDef("transaction.max.timeout.ms", "int", 900000, _at_least(1)),
    ConfigDef("request.timeout.ms", "int", 30000, _at_least(0)),  # transaction log writes and markers
    # accepted, not applied: as offsets.load.buffer.size
    ConfigDef("transaction.state.log.load.buffer.size", "int", 5242880, _at_least(1)),
    ConfigDef("transaction.abort.timed.out.transaction.cleanup.interval.ms", "int", 10000, _at_least(1)),
    ConfigDef("transaction.remove.expired.transaction.cleanup.interval.ms", "int", 3600000, _at_least(1)),
    ConfigDef("transaction.partition.verification.enable", "boolean", True, dynamic=True),
    # Transaction version 2: how long a partition leader retries an add told
    # CONCURRENT_TRANSACTIONS (capped by request.timeout.ms), and how often
    ConfigDef("add.partitions.to.txn.retry.backoff.max.ms", "int", 100, _at_least(0)),
    ConfigDef("add.partitions.to.txn.retry.backoff.ms", "int", 20, _at_least(1)),
    ConfigDef("producer.id.expiration.ms", "int", 86400000, _at_least(1), dynamic=True),
    ConfigDef("max.request.partition.size.limit", "int", 2000),
    # Authorization (authorizer.class.name is below, with the compatibility keys)
    ConfigDef("super.users", "string", ""),  # "User:admin;User:kafka", as Kafka separates them
    ConfigDef("allow.everyone.if.no.acl.found", "boolean", False),
    # KRaft: listeners served before the authorizer's initial ACL load (controller listeners always are)
    ConfigDef("early.start.listeners", "list", None),
    # Misc accepted for compatibility with Kafka's sample files
    ConfigDef("group.coordinator.rebalance.protocols", "list", ["classic", "consumer", "streams"]),
    # Consumer-protocol groups (KIP-848; coordinator/group/consumer/config.py)
    ConfigDef("group.consumer.session.timeout.ms", "int", 45000, _at_least(1)),
    ConfigDef("group.consumer.min.session.timeout.ms", "int", 45000, _at_least(1)),
    ConfigDef("group.consumer.max.session.timeout.ms", "int", 60000, _at_least(1)),
    ConfigDef("group.consumer.heartbeat.interval.ms", "int", 5000, _at_least(1)),
    ConfigDef("group.consumer.min.heartbeat.interval.ms", "int", 5000, _at_least(1)),
    ConfigDef("group.consumer.max.heartbeat.interval.ms", "int", 15000, _at_least(1)),
    ConfigDef("group.consumer.max.size", "int", 2147483647, _at_least(1)),
    ConfigDef("group.consumer.assignors", "list", ["uniform", "range"]),
    ConfigDef("group.consumer.migration.policy", "string", "bidirectional",
              _one_of("disabled", "upgrade", "downgrade", "bidirectional")),
    # Share groups (KIP-932; coordinator/group/share/config.py, broker/group_configs.py bounds)
    ConfigDef("group.share.session.timeout.ms", "int", 45000, _at_least(1)),
    ConfigDef("group.share.min.session.timeout.ms", "int", 45000, _at_least(1)),
    ConfigDef("group.share.max.session.timeout.ms", "int", 60000, _at_least(1)),
    ConfigDef("group.share.heartbeat.interval.ms", "int", 5000, _at_least(1)),
    ConfigDef("group.share.min.heartbeat.interval.ms", "int", 5000, _at_least(1)),
    ConfigDef("group.share.max.heartbeat.interval.ms", "int", 15000, _at_least(1)),
    ConfigDef("group.share.max.size", "int", 200, _at_least(1)),
    # accepted, not applied: the simple assignor is the only one, as in Kafka 4.4
    ConfigDef("group.share.assignors", "list", ["simple"]),
    # the Streams assignors a group's streams.assignor.name may name (the first is the
    # default); sticky is the only one here, as in Kafka 4.4. Rack tags: accepted, not applied
    ConfigDef("group.streams.assignors", "list", ["sticky"]),
    ConfigDef("group.streams.rack.aware.assignment.tags", "list", []),
    ConfigDef("group.share.record.lock.duration.ms", "int", 30000, _at_least(1000)),
    ConfigDef("group.share.min.record.lock.duration.ms", "int", 15000, _at_least(1000)),
    ConfigDef("group.share.max.record.lock.duration.ms", "int", 60000, _at_least(30000)),
    ConfigDef("group.share.delivery.count.limit", "int", 5, _at_least(2)),
    ConfigDef("group.share.min.delivery.count.limit", "int", 2, _at_least(2)),
    ConfigDef("group.share.max.delivery.count.limit", "int", 10, _at_least(5)),
    ConfigDef("group.share.partition.max.record.locks", "int", 2000, _at_least(100)),
    ConfigDef("group.share.min.partition.max.record.locks", "int", 100, _at_least(100)),
    ConfigDef("group.share.max.partition.max.record.locks", "int", 4000, _at_least(100)),
    # Streams groups (KIP-1071; coordinator/group/streams/config.py)
    ConfigDef("group.streams.session.timeout.ms", "int", 45000, _at_least(1)),
    ConfigDef("group.streams.min.session.timeout.ms", "int", 45000, _at_least(1)),
    ConfigDef("group.streams.max.session.timeout.ms", "int", 60000, _at_least(1)),
    ConfigDef("group.streams.heartbeat.interval.ms", "int", 5000, _at_least(1)),
    ConfigDef("group.streams.min.heartbeat.interval.ms", "int", 5000, _at_least(1)),
    ConfigDef("group.streams.max.heartbeat.interval.ms", "int", 15000, _at_least(1)),
    ConfigDef("group.streams.max.size", "int", 2147483647, _at_least(1)),
    ConfigDef("group.streams.initial.rebalance.delay.ms", "int", 3000, _at_least(0)),
    ConfigDef("group.streams.num.standby.replicas", "int", 0, _at_least(0)),
    ConfigDef("group.streams.max.standby.replicas", "int", 2, _at_least(0)),
    ConfigDef("group.streams.acceptable.recovery.lag", "long", 10000, _at_least(0)),
    ConfigDef("group.streams.task.offset.interval.ms", "int", 60000, _at_least(1)),
    ConfigDef("group.streams.min.task.offset.interval.ms", "int", 15000, _at_least(1)),
    ConfigDef("group.streams.num.warmup.replicas", "int", 2, _at_least(0)),
    ConfigDef("group.streams.max.warmup.replicas", "int", 20, _at_least(1)),
    ConfigDef("group.streams.assignment.interval.ms", "int", 1000, _at_least(0), dynamic=True),
    ConfigDef("group.streams.min.assignment.interval.ms", "int", 0, _at_least(0)),
    ConfigDef("group.streams.max.assignment.interval.ms", "int", 15000, _at_least(0)),
    ConfigDef("process.roles", "list", []),
    ConfigDef("controller.quorum.voters", "list", []),
    ConfigDef("controller.listener.names", "string", None),
    ConfigDef("metadata.log.dir", "string", None),
    ConfigDef("share.coordinator.state.topic.replication.factor", "short", 3, _at_least(1)),
    ConfigDef("share.coordinator.state.topic.min.isr", "int", 2, _at_least(1)),
    ConfigDef("share.coordinator.state.topic.num.partitions", "int", 50, _at_least(1)),
    ConfigDef("share.coordinator.state.topic.segment.bytes", "int", 104857600, _at_least(1)),
    ConfigDef("share.coordinator.snapshot.update.records.per.snapshot", "int", 500, _at_least(0)),
    ConfigDef("share.coordinator.write.timeout.ms", "int", 5000, _at_least(1)),
    # the share coordinator's batches in __share_group_state (codec ids as offsets.topic.compression.codec)
    ConfigDef("share.coordinator.state.topic.compression.codec", "int", 0, _one_of(0, 1, 2, 3, 4)),
    ConfigDef("share.coordinator.state.topic.prune.interval.ms", "long", 300000, _at_least(1)),
    ConfigDef("share.coordinator.cold.partition.snapshot.interval.ms", "int", 300000, _at_least(1)),
    # share sessions per broker (broker/share/; Kafka 4.4's default)
    ConfigDef("group.share.max.share.sessions", "int", 2000, _at_least(1)),
    # Java class names: accepted, not loaded (metrics/ serves the metrics over HTTP instead)
    ConfigDef("metric.reporters", "list", [], dynamic=True),
    ConfigDef("authorizer.class.name", "string", ""),
    ConfigDef("security.inter.broker.protocol", "string", "PLAINTEXT",
              _one_of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")),
    # TLS (each may be prefixed listener.name.<listener>.; the stores are dynamic, per listener
    # and per broker only: broker/dynamic_config.py)
    ConfigDef("ssl.keystore.type", "string", "JKS", dynamic=True),
    ConfigDef("ssl.keystore.location", "string", None, dynamic=True),
    ConfigDef("ssl.keystore.password", "password", None, sensitive=True, dynamic=True),
    ConfigDef("ssl.key.password", "password", None, sensitive=True, dynamic=True),
    ConfigDef("ssl.keystore.certificate.chain", "password", None, sensitive=True, dynamic=True),
    ConfigDef("ssl.keystore.key", "password", None, sensitive=True, dynamic=True),
    ConfigDef("ssl.truststore.type", "string", "JKS", dynamic=True),
    ConfigDef("ssl.truststore.location", "string", None, dynamic=True),
    ConfigDef("ssl.truststore.password", "password", None, sensitive=True, dynamic=True),
    ConfigDef("ssl.truststore.certificates", "password", None, sensitive=True, dynamic=True),
    ConfigDef("ssl.client.auth", "string", "none", _one_of("required", "requested", "none"), dynamic=True),
    ConfigDef("ssl.protocol", "string", "TLSv1.3", dynamic=True),
    ConfigDef("ssl.enabled.protocols", "list", ["TLSv1.2", "TLSv1.3"], dynamic=True),
    ConfigDef("ssl.cipher.suites", "list", [], dynamic=True),
    ConfigDef("ssl.endpoint.identification.algorithm", "string", "https", dynamic=True),
    ConfigDef("ssl.principal.mapping.rules", "string", "DEFAULT"),
    # the secret that encrypts dynamic password configs in ZooKeeper (broker/password_encoder.py)
    ConfigDef("password.encoder.secret", "password", None, sensitive=True),
    ConfigDef("password.encoder.old.secret", "password", None, sensitive=True),
    ConfigDef("password.encoder.iterations", "int", 4096, _at_least(1024)),
    ConfigDef("password.encoder.key.length", "int", 128, _one_of(128, 192, 256)),
    # SASL (sasl.enabled.mechanisms and the JAAS config may be listener-prefixed too)
    ConfigDef("sasl.enabled.mechanisms", "list", ["GSSAPI"], dynamic=True),
    ConfigDef("sasl.mechanism.inter.broker.protocol", "string", "GSSAPI", dynamic=True),
    ConfigDef("sasl.jaas.config", "password", None, sensitive=True, dynamic=True),
    # the largest frame read from a SASL connection before it has authenticated (larger:
    # the connection is closed, as Kafka does); an unauthenticated client holds at most this
    ConfigDef("sasl.server.max.receive.size", "int", 524288, _at_least(1)),
    ConfigDef("connections.max.reauth.ms", "long", 0, _at_least(0)),
    ConfigDef("connection.failed.authentication.delay.ms", "int", 100, _at_least(0)),
    ConfigDef("principal.builder.class", "class", None, dynamic=True),
    # kafpy's own: the HTTP listeners (/metrics, the status page), per-request metrics, the
    # request logger's slow-request threshold (config/server.properties explains each)
    ConfigDef("kafpy.http.listeners", "list", []),
    ConfigDef("kafpy.http.max.request.bytes", "int", 1048576, _at_least(0)),
    # what one HTTP client may hold (kafpy.web.admission): requests in progress in total and
    # per principal (per address before login), long polls apart, and how long a body may take
    ConfigDef("kafpy.http.max.concurrent.requests", "int", 32, _at_least(1)),
    ConfigDef("kafpy.http.max.concurrent.requests.per.principal", "int", 8, _at_least(1)),
    ConfigDef("kafpy.http.max.long.polls", "int", 32, _at_least(1)),
    ConfigDef("kafpy.http.max.long.polls.per.principal", "int", 4, _at_least(1)),
    ConfigDef("kafpy.http.request.body.read.timeout.ms", "int", 10000, _at_least(1)),
    # HTTP Basic authentication against the broker's SASL users (kafpy.broker.http_auth)
    ConfigDef("kafpy.http.authentication.method", "string", "NONE", _one_of("NONE", "BASIC")),
    ConfigDef("kafpy.http.authentication.realm", "string", "kafpy"),
    ConfigDef("kafpy.http.authentication.skip.paths", "list", ["/metrics"]),
    ConfigDef("kafpy.metrics.enable", "boolean", True),
    ConfigDef("kafpy.request.logger.slow.ms", "long", -1, dynamic=True),
]

def _in_range(low: float | None, high: float | None) -> Check | None:
    return None if low is None and high is None else _range(low, high)


# Kafka 4.4's dynamic configs kafpy only checks and stores (kafpy.broker.stored_dynamic_configs)
_DEFS += [ConfigDef(name, type_, default, _in_range(low, high), dynamic=True)
          for name, type_, default, low, high in STORED_DYNAMIC]

# KRaft mode's keys (kafpy.broker.kraft_config), Kafka 4.4's types and defaults
_DEFS += [ConfigDef(name, type_, default, _at_least(low) if low is not None else None)
          for name, type_, default, low in KRAFT_CONFIG_DEFS]

BROKER_CONFIGS: dict[str, ConfigDef] = {d.name: d for d in _DEFS}
_LISTENER_MAX_CONNECTIONS = re.compile(r"^listener\.name\.([^.]+)\.max\.connections$")


class KafkaConfig:
    """Typed broker configuration. ``values`` holds every known key (parsed value or default);
    ``originals`` the strings that were set explicitly (file or override)."""

    def __init__(self, props: dict[str, str]) -> None:
        self.originals: dict[str, str] = dict(props)
        self.values: dict[str, Any] = {}
        self.dynamic: dict[str, str] = {}           # the two layers below, merged (what reads see)
        self.dynamic_default: dict[str, str] = {}   # /config/brokers/<default>: every broker's
        self.dynamic_broker: dict[str, str] = {}    # /config/brokers/<id>: this broker's own
        # called after the dynamic configs changed (Kafka's Reconfigurable): parts that read a
        # config once at startup (the connection limits) apply the new values
        self.reconfigure_listeners: list[Callable[[], None]] = []
        self.unknown: list[str] = []
        for name, definition in BROKER_CONFIGS.items():
            self.values[name] = definition.default
        self.listener_max_connections: dict[str, int] = {}
        for key, raw in props.items():
            d = BROKER_CONFIGS.get(key)
            m = _LISTENER_MAX_CONNECTIONS.match(key) if d is None else None
            if m:  # listener.name.<listener>.max.connections
                self.listener_max_connections[m.group(1).upper()] = int(_number(self._parse(
                    ConfigDef(key, "int", INT_MAX, _at_least(0)), raw)))
                continue
            if d is None:
                if key.startswith(LISTENER_PREFIX):
                    continue   # read per listener with listener_config()
                self.unknown.append(key)
                continue
            self.values[key] = self._parse(d, raw)
        for key in self.unknown:
            log.warning("The configuration '%s' was supplied but isn't a known config.", key)
        self._derive()

    @staticmethod
    def _parse(d: ConfigDef, raw: str) -> ConfigValue:
        try:
            value = PARSERS[d.type](raw)
        except ValueError as e:
            raise ConfigError(f"Invalid value {raw!r} for configuration {d.name}: {e}") from None
        if d.check is not None and not d.check(value):
            raise ConfigError(f"Invalid value {raw!r} for configuration {d.name}")
        return value

    def _derive(self) -> None:
        v = self.values
        if v["broker.id"] < 0:
            v["broker.id"] = v["node.id"] if v["node.id"] >= 0 else 0
        self.broker_id: int = v["broker.id"]
        dirs = v["log.dirs"] if v["log.dirs"] else [v["log.dir"]]
        self.log_dirs: list[str] = [str(Path(d).expanduser()) for d in dirs]
        # Legacy port/host.name are only used when listeners was not set (as in Kafka 2.x).
        try:
            if "listeners" not in self.originals and ("port" in self.originals or "host.name" in self.originals):
                self.listeners = [Listener("PLAINTEXT", v["host.name"] or "", v["port"])]
            else:
                self.listeners = [parse_listener(s) for s in v["listeners"]]
            if v["advertised.listeners"]:
                self.advertised_listeners = [parse_listener(s) for s in v["advertised.listeners"]]
            elif v["advertised.host.name"] or v["advertised.port"]:
                l0 = self.listeners[0]
                self.advertised_listeners = [Listener(l0.name, v["advertised.host.name"] or l0.host,
                                                      v["advertised.port"] or l0.port)]
            else:
                self.advertised_listeners = list(self.listeners)
        except ValueError as e:
            raise ConfigError(f"Invalid value for configuration listeners: {e}") from None
        if not self.listeners:
            raise ConfigError("Invalid value for configuration listeners: no listener given")
        self._derive_security()
        self._derive_kraft()
        try:
            from kafpy.web.listeners import parse_http_listeners
            parse_http_listeners(v["kafpy.http.listeners"])
        except ValueError as e:
            raise ConfigError(f"Invalid value for configuration kafpy.http.listeners: {e}") from None
        if v["log.retention.ms"] is not None:
            self.log_retention_ms = v["log.retention.ms"]
        elif v["log.retention.minutes"] is not None:
            self.log_retention_ms = v["log.retention.minutes"] * 60_000
        else:
            self.log_retention_ms = v["log.retention.hours"] * 3_600_000
        self.log_roll_ms = v["log.roll.ms"] if v["log.roll.ms"] is not None else v["log.roll.hours"] * 3_600_000
        for entry in v["max.connections.per.ip.overrides"]:
            if not re.match(r"^\S+:\d+$", entry):
                raise ConfigError(f"Invalid value {entry!r} for configuration max.connections.per.ip.overrides: "
                                  "expected host:count")
        if v["max.connections.per.ip"] == 0 and not v["max.connections.per.ip.overrides"]:
            raise ConfigError("max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides "
                              "property is set.")
        for p in v["log.cleanup.policy"]:
            if p not in ("delete", "compact"):
                raise ConfigError(f"Invalid value {p!r} for configuration log.cleanup.policy")

    def _derive_kraft(self) -> None:
        """``process.roles`` set: a KRaft node, held to Kafka 4.4's start-up checks."""
        v = self.values
        try:
            self.process_roles = process_roles(v["process.roles"])
            if not self.process_roles:
                return
            names = [n.strip() for n in (v["controller.listener.names"] or "").split(",") if n.strip()]
            for warning in validate_kraft(
                    roles=self.process_roles, node_id=v["node.id"], voters=v["controller.quorum.voters"],
                    bootstrap_servers=v["controller.quorum.bootstrap.servers"],
                    controller_listener_names=names, listener_names=[lst.name for lst in self.listeners],
                    inter_broker_listener_set=self.originals.get("inter.broker.listener.name"),
                    auto_join=v["controller.quorum.auto.join.enable"]):
                log.warning("%s", warning)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        # A controller-only node runs the raft quorum (broker/controller_server.py); a broker-only
        # node follows the quorum's metadata log (broker/kraft_broker.py); a combined node runs
        # both over one raft client (broker/kraft_server.py), a one-voter one included.

    def _derive_security(self) -> None:
        """listener.security.protocol.map and the inter-broker listener, checked as Kafka
        checks them: every listener named in the map, not both inter-broker keys set."""
        v = self.values
        try:
            pairs = [e.split(":", 1) for e in v["listener.security.protocol.map"]]
            self.security_protocols: dict[str, str] = {n.strip().upper(): p.strip().upper() for n, p in pairs}
        except ValueError:
            raise ConfigError("Invalid value for configuration listener.security.protocol.map: "
                              "expected NAME:PROTOCOL pairs") from None
        for proto in self.security_protocols.values():
            if proto not in SECURITY_PROTOCOLS:
                raise ConfigError(f"Invalid value for configuration listener.security.protocol.map: "
                                  f"unknown security protocol {proto}")
        for li in self.listeners + self.advertised_listeners:
            if li.name not in self.security_protocols:
                raise ConfigError(f"No security protocol defined for listener {li.name}")
        if "inter.broker.listener.name" in self.originals and "security.inter.broker.protocol" in self.originals:
            raise ConfigError("Only one of inter.broker.listener.name and security.inter.broker.protocol "
                              "should be set.")
        name = v["inter.broker.listener.name"] or v["security.inter.broker.protocol"]
        self.inter_broker_listener_name: str = name.upper()

    def security_protocol(self, listener_name: str) -> str:
        """The security protocol of a listener (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)."""
        return self.security_protocols.get(listener_name.upper(), "PLAINTEXT")

    def listener_config(self, listener_name: str, key: str) -> Any:
        """``listener.name.<listener>.<key>`` when set (dynamically or not), else the broker-wide ``key``; typed
        as ``key`` is (a SASL JAAS key such as ``plain.sasl.jaas.config`` as sasl.jaas.config)."""
        name = f"{LISTENER_PREFIX}{listener_name.lower()}.{key}"
        raw = self.dynamic.get(name, self.originals.get(name))   # a dynamic value wins (the stores)
        base = key if key in BROKER_CONFIGS else key.split(".", 1)[1]
        if raw is None:
            return self.values.get(key) if key in BROKER_CONFIGS else None
        return self._parse(BROKER_CONFIGS[base], raw)

    def set_dynamic(self, default: dict[str, str], own: dict[str, str]) -> None:
        """The dynamic broker configs: the cluster-wide ``<default>`` entity's and this
        broker's own (which wins), as Kafka's DynamicBrokerConfig layers them. Passwords
        stored encrypted are decrypted here; one that does not decrypt is left out."""
        self.dynamic_default = dict(default)
        self.dynamic_broker = self._decoded(own)
        self.dynamic.clear()
        self.dynamic.update(default)
        self.dynamic.update(self.dynamic_broker)
        for name in NOT_IN_KAFKA_44.intersection(self.dynamic):
            del self.dynamic[name]   # stored unchecked, as Kafka 4.4 stores a name it does not know
        self.reconfigured()

    def _decoded(self, configs: dict[str, str]) -> dict[str, str]:
        from kafpy.broker import password_encoder
        out = {}
        for key, value in configs.items():
            if password_encoder.is_encoded(value):
                try:
                    value = self._decode_password(value)
                except password_encoder.PasswordDecodeError as e:
                    log.error("Dynamic password config %s could not be decoded, ignoring it: %s", key, e)
                    continue
            out[key] = value
        return out

    def _decode_password(self, value: str) -> str:
        from kafpy.broker import password_encoder
        for secret in (self.values["password.encoder.secret"], self.values["password.encoder.old.secret"]):
            if secret:
                try:
                    return password_encoder.decode(value, secret)
                except password_encoder.PasswordDecodeError:
                    continue
        raise password_encoder.PasswordDecodeError("password.encoder.secret is not set or does not match")

    def reconfigured(self) -> None:
        """Tell the parts that registered in ``reconfigure_listeners`` that dynamic configs
        (or, from broker-loggers, log levels) changed."""
        for listener in list(self.reconfigure_listeners):
            try:
                listener()
            except Exception:   # one part failing to reconfigure must not stop the others
                log.exception("Applying the dynamic broker configs failed")

    def __getitem__(self, key: str) -> Any:
        if key in self.dynamic:
            return self._parse(BROKER_CONFIGS[key], self.dynamic[key])
        return self.values[key]

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    @classmethod
    def from_file(cls, path: str | Path | None, overrides: list[str] | None = None) -> "KafkaConfig":
        props: dict[str, str] = {}
        if path is not None:
            props.update(load_properties(path))
        for o in overrides or []:
            if "=" not in o:
                raise ConfigError(f"Invalid override {o!r}: expected key=value")
            k, val = o.split("=", 1)
            props[k.strip()] = val
        return cls(props)

    def banner(self) -> str:
        lines = ["KafkaConfig values:"]
        for name in sorted(self.values):
            d = BROKER_CONFIGS[name]
            val = self.values[name]
            if d.sensitive and val is not None:
                val = "[hidden]"
            elif isinstance(val, list):
                val = ",".join(val)
            elif val is None:
                val = "null"
            elif isinstance(val, bool):
                val = str(val).lower()
            lines.append(f"\t{name} = {val}")
        return "\n".join(lines)

