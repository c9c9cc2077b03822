"""The config keys the controller validates and their types, as Kafka's ``KafkaConfigSchema``
and the ``ConfigDef``s behind it (LogConfig for topics, ClientMetricsConfigs, GroupConfig).

Who calls it: ``ConfigurationControlManager`` (validating alterations) and
``ReplicationControlManager`` (topic configs at creation, unclean.leader.election.enable).
Broker configs are not checked by key here: Kafka's controller leaves that to the broker
that forwarded the request, and checks only the resource name."""

from __future__ import annotations

import re
from enum import Enum

from kafpy.metadata.image.configs import ConfigResourceType


class ConfigType(Enum):
    """Kafka's ``ConfigDef.Type`` names, as its error messages spell them."""

    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"


B, S, I, L, D, LS = (ConfigType.BOOLEAN, ConfigType.STRING, ConfigType.INT, ConfigType.LONG,
                     ConfigType.DOUBLE, ConfigType.LIST)

TOPIC_CONFIGS: dict[str, ConfigType] = {
    "cleanup.policy": LS, "compression.type": S, "compression.gzip.level": I,
    "compression.lz4.level": I, "compression.zstd.level": I, "delete.retention.ms": L,
    "errors.deadletterqueue.group.enable": B,
    "file.delete.delay.ms": L, "flush.messages": L, "flush.ms": L,
    "follower.replication.throttled.replicas": LS, "index.interval.bytes": I,
    "leader.replication.throttled.replicas": LS, "local.retention.bytes": L,
    "local.retention.ms": L, "max.compaction.lag.ms": L, "max.decompressed.message.bytes": I,
    "max.message.bytes": I,
    "message.timestamp.after.max.ms": L, "message.timestamp.before.max.ms": L,
    "message.timestamp.type": S, "min.cleanable.dirty.ratio": D, "min.compaction.lag.ms": L,
    "min.insync.replicas": I, "preallocate": B, "remote.copy.lag.bytes": L, "remote.copy.lag.ms": L,
    "remote.log.copy.disable": B,
    "remote.log.delete.on.disable": B, "remote.storage.enable": B, "retention.bytes": L,
    "retention.ms": L, "segment.bytes": I, "segment.index.bytes": I, "segment.jitter.ms": L,
    "segment.ms": L, "unclean.leader.election.enable": B,
}
CLIENT_METRICS_CONFIGS: dict[str, ConfigType] = {"metrics": LS, "interval.ms": I, "match": LS}
GROUP_CONFIGS: dict[str, ConfigType] = {   # Kafka 4.4's GroupConfig
    "consumer.session.timeout.ms": I, "consumer.heartbeat.interval.ms": I,
    "consumer.assignment.interval.ms": I, "consumer.assignor.offload.enable": B,
    "share.session.timeout.ms": I, "share.heartbeat.interval.ms": I,
    "share.record.lock.duration.ms": I, "share.delivery.count.limit": I,
    "share.partition.max.record.locks": I, "share.auto.offset.reset": S,
    "share.isolation.level": S, "share.renew.acknowledge.enable": B,
    "share.assignment.interval.ms": I, "share.assignor.offload.enable": B,
    "streams.session.timeout.ms": I, "streams.heartbeat.interval.ms": I,
    "streams.num.standby.replicas": I, "streams.initial.rebalance.delay.ms": I,
    "streams.assignment.interval.ms": I, "streams.rack.aware.assignment.tags": LS,
    "streams.assignor.offload.enable": B, "streams.task.offset.interval.ms": I,
    "streams.num.warmup.replicas": I, "streams.acceptable.recovery.lag": L,
    "streams.assignor.name": S, "errors.deadletterqueue.topic.name": S,
    "errors.deadletterqueue.copy.record.enable": B,
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "cleanup.policy": ("compact", "delete"),
    "compression.type": ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
    "message.timestamp.type": ("CreateTime", "LogAppendTime"),
}
# Kafka 4.4's LogConfig ranges: (at least, no more than), None for no bound
_RANGES: dict[str, tuple[int | None, int | None]] = {
    "segment.bytes": (1048576, None), "segment.ms": (1, None), "segment.jitter.ms": (0, None),
    "segment.index.bytes": (4, None), "flush.messages": (1, None), "flush.ms": (0, None),
    "retention.ms": (-1, None), "max.message.bytes": (0, None), "index.interval.bytes": (0, None),
    "delete.retention.ms": (0, None), "min.compaction.lag.ms": (0, None), "max.compaction.lag.ms": (1, None),
    "file.delete.delay.ms": (0, None), "min.cleanable.dirty.ratio": (0, 1), "min.insync.replicas": (1, None),
    "message.timestamp.before.max.ms": (0, None), "message.timestamp.after.max.ms": (0, None),
    "local.retention.ms": (-2, None), "local.retention.bytes": (-2, None),
    "max.decompressed.message.bytes": (1, 2147483639), "remote.copy.lag.bytes": (-1, None),
    "remote.copy.lag.ms": (-1, None),
}
_THROTTLED_REPLICAS = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")
_REPLICA = re.compile(r"\d+:\d+")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def schema_for(resource_type: ConfigResourceType) -> dict[str, ConfigType] | None:
    """The keys known for a resource type; None when any key goes (brokers)."""
    return {ConfigResourceType.TOPIC: TOPIC_CONFIGS,
            ConfigResourceType.CLIENT_METRICS: CLIENT_METRICS_CONFIGS,
            ConfigResourceType.GROUP: GROUP_CONFIGS}.get(resource_type)


def config_type(resource_type: ConfigResourceType, name: str) -> ConfigType | None:
    schema = schema_for(resource_type)
    return None if schema is None else schema.get(name)


def validate_value(name: str, kind: ConfigType, value: str) -> str | None:
    """Kafka's ``ConfigDef.parseType`` / validator message for a bad value, None when good."""
    text = value.strip()
    bad_number = f"Invalid value {value} for configuration {name}: Not a number of type {kind.value}"
    if kind == ConfigType.BOOLEAN:
        if text.lower() not in ("true", "false"):
            return f"Invalid value {value} for configuration {name}: Expected value to be either true or false"
    elif kind in (ConfigType.INT, ConfigType.LONG):
        try:
            number = int(text)
        except ValueError:
            return bad_number
        low, high = (_INT_MIN, _INT_MAX) if kind == ConfigType.INT else (_LONG_MIN, _LONG_MAX)
        if not low <= number <= high:
            return bad_number
    elif kind == ConfigType.DOUBLE:
        try:
            float(text)
        except ValueError:
            return bad_number
    bounds = _RANGES.get(name)
    if bounds is not None:
        number_value = float(text)
        low_bound, high_bound = bounds
        if low_bound is not None and number_value < low_bound:
            return f"Invalid value {value} for configuration {name}: Value must be at least {low_bound}"
        if high_bound is not None and number_value > high_bound:
            return f"Invalid value {value} for configuration {name}: Value must be no more than {high_bound}"
    if name in _THROTTLED_REPLICAS and text != "*":
        entries = [v.strip() for v in text.split(",")] if text else []
        if not all(_REPLICA.fullmatch(e) for e in entries):
            return (f"Invalid value [{', '.join(entries)}] for configuration {name}: {name} must be the literal "
                    "'*' or a list of replicas in the following format: [partitionId]:[brokerId],"
                    "[partitionId]:[brokerId],...")
    choices = _CHOICES.get(name)
    if choices is not None:
        items = [v.strip() for v in text.split(",") if v.strip()] if kind == ConfigType.LIST else [text]
        for item in items:
            if item not in choices:
                return (f"Invalid value {item} for configuration {name}: String must be one of: "
                        f"{', '.join(choices)}")
    return None
