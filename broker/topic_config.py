"""Topic-level configs: Kafka's names, types, the broker key each one defaults to, and the
sources DescribeConfigs reports. Pure functions over a ``KafkaConfig``; nothing on disk."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Mapping

from kafpy.broker.config import COMPRESSION_LEVEL_CHECKS, ConfigValue, KafkaConfig, LONG_MAX
from kafpy.metadata.controller import config_schema

# DescribeConfigs ConfigSource values
UNKNOWN = 0
DYNAMIC_TOPIC_CONFIG = 1
DYNAMIC_BROKER_CONFIG = 2
DYNAMIC_DEFAULT_BROKER_CONFIG = 3
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5

# DescribeConfigs ConfigType values (v3+)
TYPE_BOOLEAN, TYPE_STRING, TYPE_INT, TYPE_SHORT, TYPE_LONG, TYPE_DOUBLE, TYPE_LIST, TYPE_CLASS, TYPE_PASSWORD = range(1, 10)
CONFIG_TYPE_IDS = {"boolean": TYPE_BOOLEAN, "string": TYPE_STRING, "int": TYPE_INT, "short": TYPE_SHORT,
                   "long": TYPE_LONG, "double": TYPE_DOUBLE, "list": TYPE_LIST, "class": TYPE_CLASS,
                   "password": TYPE_PASSWORD}


@dataclass(frozen=True)
class TopicConfigDef:
    name: str
    type: str
    broker_key: str | None  # the broker config it takes its default from
    default: ConfigValue    # used when broker_key is None


def _of_schema(name: str, broker_key: str | None, default: ConfigValue = None) -> TopicConfigDef:
    """A topic config whose type is the controller schema's (one place for Kafka's types)."""
    return TopicConfigDef(name, config_schema.TOPIC_CONFIGS[name].value.lower(), broker_key, default)


TOPIC_CONFIGS: dict[str, TopicConfigDef] = {d.name: d for d in [
    _of_schema("cleanup.policy", "log.cleanup.policy"),
    _of_schema("compression.type", "compression.type"),
    _of_schema("compression.gzip.level", "compression.gzip.level"),
    _of_schema("compression.lz4.level", "compression.lz4.level"),
    _of_schema("compression.zstd.level", "compression.zstd.level"),
    _of_schema("delete.retention.ms", "log.cleaner.delete.retention.ms"),
    _of_schema("errors.deadletterqueue.group.enable", None, False),
    _of_schema("file.delete.delay.ms", "log.segment.delete.delay.ms"),
    _of_schema("flush.messages", "log.flush.interval.messages"),
    _of_schema("flush.ms", "log.flush.interval.ms"),
    _of_schema("follower.replication.throttled.replicas", None, ""),
    _of_schema("index.interval.bytes", "log.index.interval.bytes"),
    _of_schema("leader.replication.throttled.replicas", None, ""),
    _of_schema("local.retention.bytes", None, -2),
    _of_schema("local.retention.ms", None, -2),
    _of_schema("max.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms"),
    _of_schema("max.decompressed.message.bytes", "max.decompressed.message.bytes"),
    _of_schema("max.message.bytes", "message.max.bytes"),
    _of_schema("message.timestamp.after.max.ms", "log.message.timestamp.after.max.ms"),
    _of_schema("message.timestamp.before.max.ms", "log.message.timestamp.before.max.ms"),
    _of_schema("message.timestamp.type", "log.message.timestamp.type"),
    _of_schema("min.cleanable.dirty.ratio", "log.cleaner.min.cleanable.ratio"),
    _of_schema("min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms"),
    _of_schema("min.insync.replicas", "min.insync.replicas"),
    _of_schema("preallocate", "log.preallocate"),
    _of_schema("remote.copy.lag.bytes", "log.remote.copy.lag.bytes"),
    _of_schema("remote.copy.lag.ms", "log.remote.copy.lag.ms"),
    _of_schema("remote.log.copy.disable", None, False),
    _of_schema("remote.log.delete.on.disable", None, False),
    _of_schema("remote.storage.enable", None, False),
    _of_schema("retention.bytes", "log.retention.bytes"),
    _of_schema("retention.ms", "log.retention.ms"),
    _of_schema("segment.bytes", "log.segment.bytes"),
    _of_schema("segment.index.bytes", "log.index.size.max.bytes"),
    _of_schema("segment.jitter.ms", "log.roll.jitter.ms"),
    _of_schema("segment.ms", "log.roll.ms"),
    _of_schema("unclean.leader.election.enable", "unclean.leader.election.enable"),
]}
"""Kafka 4.4's topic configs (``LogConfig``'s), which CreateTopics and AlterConfigs accept and
DescribeConfigs lists. Kafka 4 dropped ``message.downconversion.enable``,
``message.format.version`` and ``message.timestamp.difference.max.ms``: a topic setting one is
refused as unknown, as Kafka 4.4 refuses it."""

BROKER_ONLY_TOPIC_DEFAULTS: dict[str, TopicConfigDef] = {d.name: d for d in [
    TopicConfigDef("message.timestamp.difference.max.ms", "long", "log.message.timestamp.difference.max.ms", None),
]}
"""Topic settings kafpy still derives from an older server.properties (where Kafka 3.x read
them) but no topic may set: they reach the logs' ``LogConfig`` through ``effective_topic_config``."""


class InvalidConfig(ValueError):
    """Maps to INVALID_CONFIG (40)."""


def format_value(v: ConfigValue) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return ",".join(v)
    if isinstance(v, float):
        return java_double(v)
    return str(v)


def java_double(v: float) -> str:
    """``v`` as Java's Double.toString writes it, as Kafka describes a double: plain from
    10^-3 to 10^7 (``0.5``), else one digit, a fraction and an exponent (``1.7976931348623157E308``)."""
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0 or 1e-3 <= abs(v) < 1e7:
        return repr(v)
    sign, digits, exponent = Decimal(repr(v)).normalize().as_tuple()
    assert isinstance(exponent, int)
    fraction = "".join(map(str, digits[1:])) or "0"
    return f"{'-' if sign else ''}{digits[0]}.{fraction}E{len(digits) - 1 + exponent}"


def broker_default(cfg: KafkaConfig, d: TopicConfigDef) -> tuple[str | None, int, str | None]:
    """The value a topic without an override gets, the source, and the broker key used."""
    if d.broker_key is None:
        return format_value(d.default), DEFAULT_CONFIG, None
    key = d.broker_key
    if key in cfg.dynamic:  # a dynamic broker setting wins over the derived static value
        v: ConfigValue = cfg[key]
    elif key == "log.retention.ms":
        v = cfg.log_retention_ms
    elif key == "log.roll.ms":
        v = cfg.log_roll_ms
    elif key == "log.roll.jitter.ms":
        v = cfg[key] if cfg[key] is not None else 0
    elif key == "log.flush.interval.ms":
        v = cfg[key] if cfg[key] is not None else LONG_MAX
    else:
        v = cfg[key]
    if key in cfg.dynamic:
        src = DYNAMIC_BROKER_CONFIG
    elif key in cfg.originals or (key == "log.retention.ms" and (
            {"log.retention.hours", "log.retention.minutes"} & set(cfg.originals))):
        src = STATIC_BROKER_CONFIG
    else:
        src = DEFAULT_CONFIG
    return format_value(v), src, key


def validate_topic_configs(configs: Mapping[str, str | None]) -> None:
    """Raise InvalidConfig for an unknown name or a value Kafka 4.4's LogConfig refuses, with
    its message: the type, range and choices of the controller's schema (one set of rules for
    both kinds of cluster), the compression levels, tiered storage."""
    from kafpy.broker.config import PARSERS
    for name, value in configs.items():
        d = TOPIC_CONFIGS.get(name)
        if d is None:
            raise InvalidConfig(f"Unknown topic config name: {name}")
        if value is None:
            continue
        problem = config_schema.validate_value(name, config_schema.TOPIC_CONFIGS[name], value)
        if problem is not None:
            raise InvalidConfig(problem)
        parsed = PARSERS[d.type](value)
        level_check = COMPRESSION_LEVEL_CHECKS.get(name)
        if level_check is not None and not level_check(parsed):
            raise InvalidConfig(f"Invalid value {value} for configuration {name}: {level_check.why(parsed)}")
        if name == "remote.storage.enable" and parsed is True:
            # no tiered storage here: Kafka's answer on a broker without remote.log.storage.system.enable
            raise InvalidConfig("Tiered Storage functionality is disabled in the broker. Topic cannot be "
                                "configured with remote log storage.")


def effective_topic_config(cfg: KafkaConfig, overrides: dict[str, str]) -> dict[str, str]:
    """Every topic config as a string: the topic's override, else the broker's default."""
    out: dict[str, str] = {}
    for name, d in (TOPIC_CONFIGS | BROKER_ONLY_TOPIC_DEFAULTS).items():
        if name in overrides:
            out[name] = overrides[name]
        else:
            v, _src, _key = broker_default(cfg, d)
            if v is not None:
                out[name] = v
    return out
