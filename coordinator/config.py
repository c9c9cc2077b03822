"""Broker settings the group coordinator reads (Kafka's names and defaults)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping

# Kafka property name -> dataclass field
_NAMES = {
    "broker.id": "broker_id",
    "offsets.topic.num.partitions": "offsets_topic_num_partitions",
    "offsets.topic.replication.factor": "offsets_topic_replication_factor",
    "offsets.topic.segment.bytes": "offsets_topic_segment_bytes",
    "offsets.retention.minutes": "offsets_retention_minutes",
    "offsets.retention.check.interval.ms": "offsets_retention_check_interval_ms",
    "offset.metadata.max.bytes": "offset_metadata_max_bytes",
    "group.initial.rebalance.delay.ms": "group_initial_rebalance_delay_ms",
    "group.min.session.timeout.ms": "group_min_session_timeout_ms",
    "group.max.session.timeout.ms": "group_max_session_timeout_ms",
    "group.max.size": "group_max_size",
}


@dataclass
class GroupCoordinatorConfig:
    broker_id: int = 0
    offsets_topic_num_partitions: int = 50
    offsets_topic_replication_factor: int = 3
    offsets_topic_segment_bytes: int = 100 * 1024 * 1024
    offsets_retention_minutes: int = 7 * 24 * 60
    offsets_retention_check_interval_ms: int = 600_000
    offset_metadata_max_bytes: int = 4096
    group_initial_rebalance_delay_ms: int = 3000
    group_min_session_timeout_ms: int = 6000
    group_max_session_timeout_ms: int = 1_800_000
    group_max_size: int = 2_147_483_647

    @property
    def offsets_retention_ms(self) -> int:
        return self.offsets_retention_minutes * 60_000

    @classmethod
    def from_properties(cls, props: Mapping[str, Any]) -> "GroupCoordinatorConfig":
        """Kafka's property names; values may be strings or already typed."""
        cfg = cls()
        for name, attr in _NAMES.items():
            if name in props and props[name] is not None and str(props[name]).strip() != "":
                setattr(cfg, attr, int(str(props[name]).strip()))
        return cfg

    @classmethod
    def from_broker_config(cls, config: Any) -> "GroupCoordinatorConfig":
        """From a broker KafkaConfig whose exact shape we do not rely on: tries
        `config.get(name)`, `config[name]`, then the snake_case attribute."""
        props: dict[str, Any] = {}
        for name, attr in _NAMES.items():
            value = None
            getter = getattr(config, "get", None)
            if callable(getter):
                try:
                    value = getter(name)
                except Exception:
                    value = None
            if value is None:
                try:
                    value = config[name]  # type: ignore[index]
                except Exception:
                    value = None
            if value is None:
                value = getattr(config, name.replace(".", "_"), None)
            if value is not None:
                props[name] = value
        return cls.from_properties(props)


assert {f.name for f in fields(GroupCoordinatorConfig)} == set(_NAMES.values())
