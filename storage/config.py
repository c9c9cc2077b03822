"""Topic-level log settings (Kafka's names and defaults).

Who may call it: the broker (building defaults from server.properties and per-topic
overrides) and every storage class. Plain data, no I/O.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Mapping

__all__ = ["LogConfig", "LONG_MAX"]

LONG_MAX = 9223372036854775807

# topic config name -> (attribute, parser)
_TOPIC_NAMES: dict[str, str] = {
    "segment.bytes": "segment_bytes",
    "segment.ms": "segment_ms",
    "segment.jitter.ms": "segment_jitter_ms",
    "segment.index.bytes": "segment_index_bytes",
    "index.interval.bytes": "index_interval_bytes",
    "retention.ms": "retention_ms",
    "retention.bytes": "retention_bytes",
    "cleanup.policy": "cleanup_policy",
    "delete.retention.ms": "delete_retention_ms",
    "min.cleanable.dirty.ratio": "min_cleanable_dirty_ratio",
    "min.compaction.lag.ms": "min_compaction_lag_ms",
    "max.compaction.lag.ms": "max_compaction_lag_ms",
    "max.message.bytes": "max_message_bytes",
    "max.decompressed.message.bytes": "max_decompressed_message_bytes",
    "compression.type": "compression_type",
    "compression.gzip.level": "compression_gzip_level",
    "compression.lz4.level": "compression_lz4_level",
    "compression.zstd.level": "compression_zstd_level",
    "message.timestamp.type": "message_timestamp_type",
    "flush.messages": "flush_messages",
    "flush.ms": "flush_ms",
    "file.delete.delay.ms": "file_delete_delay_ms",
    "preallocate": "preallocate",
    "producer.id.expiration.ms": "producer_id_expiration_ms",
    "message.timestamp.before.max.ms": "message_timestamp_before_max_ms",
    "message.timestamp.after.max.ms": "message_timestamp_after_max_ms",
    "message.timestamp.difference.max.ms": "message_timestamp_difference_max_ms",
}

# broker (server.properties) name -> topic name; several map to one (ms wins over
# minutes wins over hours, as in Kafka).
_BROKER_NAMES: dict[str, str] = {
    "log.segment.bytes": "segment.bytes",
    "log.roll.jitter.ms": "segment.jitter.ms",
    "log.index.size.max.bytes": "segment.index.bytes",
    "log.index.interval.bytes": "index.interval.bytes",
    "log.retention.bytes": "retention.bytes",
    "log.cleanup.policy": "cleanup.policy",
    "log.cleaner.delete.retention.ms": "delete.retention.ms",
    "log.cleaner.min.cleanable.ratio": "min.cleanable.dirty.ratio",
    "log.cleaner.min.compaction.lag.ms": "min.compaction.lag.ms",
    "log.cleaner.max.compaction.lag.ms": "max.compaction.lag.ms",
    "message.max.bytes": "max.message.bytes",
    "max.decompressed.message.bytes": "max.decompressed.message.bytes",
    "compression.type": "compression.type",
    "compression.gzip.level": "compression.gzip.level",
    "compression.lz4.level": "compression.lz4.level",
    "compression.zstd.level": "compression.zstd.level",
    "log.message.timestamp.type": "message.timestamp.type",
    "log.flush.interval.messages": "flush.messages",
    "log.segment.delete.delay.ms": "file.delete.delay.ms",
    "log.preallocate": "preallocate",
    "producer.id.expiration.ms": "producer.id.expiration.ms",
    "log.message.timestamp.before.max.ms": "message.timestamp.before.max.ms",
    "log.message.timestamp.after.max.ms": "message.timestamp.after.max.ms",
    "log.message.timestamp.difference.max.ms": "message.timestamp.difference.max.ms",
}


@dataclass
class LogConfig:
    """Kafka's topic-level log configuration with Kafka's defaults."""

    segment_bytes: int = 1073741824
    segment_ms: int = 604800000
    segment_jitter_ms: int = 0
    segment_index_bytes: int = 10485760
    index_interval_bytes: int = 4096
    retention_ms: int = 604800000
    retention_bytes: int = -1
    cleanup_policy: str = "delete"
    delete_retention_ms: int = 86400000
    min_cleanable_dirty_ratio: float = 0.5
    min_compaction_lag_ms: int = 0
    max_compaction_lag_ms: int = LONG_MAX
    max_message_bytes: int = 1048588
    # the largest record body a compressed batch may decompress to (Kafka 4.4; INVALID_RECORD past it)
    max_decompressed_message_bytes: int = 2147483639
    compression_type: str = "producer"
    # the levels the broker recompresses with when compression.type names a codec (KIP-390)
    compression_gzip_level: int = -1
    compression_lz4_level: int = 9
    compression_zstd_level: int = 3
    message_timestamp_type: str = "CreateTime"
    flush_messages: int = LONG_MAX
    flush_ms: int = LONG_MAX
    file_delete_delay_ms: int = 60000
    preallocate: bool = False
    producer_id_expiration_ms: int = 86400000
    message_timestamp_before_max_ms: int = LONG_MAX
    message_timestamp_after_max_ms: int = LONG_MAX
    message_timestamp_difference_max_ms: int = LONG_MAX
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def compact(self) -> bool:
        return "compact" in self.cleanup_policy

    @property
    def delete(self) -> bool:
        return "delete" in self.cleanup_policy

    def timestamp_bounds(self) -> tuple[int, int]:
        """(before, after) max ms a CreateTime timestamp may lie from now (Kafka 3.6+:
        the deprecated difference setting caps both)."""
        d = self.message_timestamp_difference_max_ms
        return min(self.message_timestamp_before_max_ms, d), min(self.message_timestamp_after_max_ms, d)

    @property
    def log_append_time(self) -> bool:
        return self.message_timestamp_type == "LogAppendTime"

    @classmethod
    def from_properties(cls, props: Mapping[str, str], base: "LogConfig | None" = None) -> "LogConfig":
        """Kafka topic config names (``segment.bytes`` ...) over ``base`` (or defaults).

        Unknown names are kept in ``extra`` so DescribeConfigs can echo them.
        """
        cfg = dataclasses.replace(base) if base is not None else cls()
        cfg.extra = dict(cfg.extra)
        for name, raw in props.items():
            attr = _TOPIC_NAMES.get(name)
            if attr is None:
                cfg.extra[name] = raw
                continue
            setattr(cfg, attr, _parse(attr, raw))
        return cfg

    @classmethod
    def from_broker_properties(cls, props: Mapping[str, str]) -> "LogConfig":
        """Broker defaults from server.properties names (``log.segment.bytes`` ...)."""
        topic: dict[str, str] = {}
        for name, topic_name in _BROKER_NAMES.items():
            if name in props:
                topic[topic_name] = props[name]
        for unit, mult in (("hours", 3600000), ("minutes", 60000), ("ms", 1)):
            for key, target in (("log.retention.", "retention.ms"), ("log.roll.", "segment.ms")):
                raw = props.get(key + unit)
                if raw is not None:
                    v = int(raw)
                    topic[target] = str(v * mult if v >= 0 else v)
        flush_ms = props.get("log.flush.interval.ms")
        if flush_ms is not None:
            topic["flush.ms"] = flush_ms
        return cls.from_properties(topic)

    def to_properties(self) -> dict[str, str]:
        """Kafka topic names -> string values (for DescribeConfigs)."""
        out = {}
        for name, attr in _TOPIC_NAMES.items():
            v = getattr(self, attr)
            out[name] = ("true" if v else "false") if isinstance(v, bool) else str(v)
        out.update(self.extra)
        return out


def _parse(attr: str, raw: str | int | float | bool) -> str | int | float | bool:
    f = LogConfig.__dataclass_fields__[attr]
    if f.type in ("int", int):
        return int(raw)
    if f.type in ("float", float):
        return float(raw)
    if f.type in ("bool", bool):
        return raw if isinstance(raw, bool) else str(raw).strip().lower() == "true"
    value = str(raw).strip()
    if attr == "cleanup_policy":
        value = ",".join(p.strip() for p in value.strip("[]").split(",") if p.strip())
    if attr == "compression_type" and value == "uncompressed":
        value = "none"
    return value
