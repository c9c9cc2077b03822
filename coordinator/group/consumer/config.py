"""Broker settings of consumer-protocol groups (KIP-848), Kafka's names and defaults."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping

from kafpy.coordinator.group.config import PropertiesConfig, PropertyLookup, _setting


@dataclass
class ConsumerGroupConfig(PropertiesConfig):
    """Built once by the broker (`from_broker_config`). `assignors` is
    `group.consumer.assignors` as given ("uniform,range"; the first is the default
    for members that name none); `migration_policy` is
    `group.consumer.migration.policy` (consumer_migration.py)."""

    session_timeout_ms: int = _setting("group.consumer.session.timeout.ms", 45_000)
    min_session_timeout_ms: int = _setting("group.consumer.min.session.timeout.ms", 45_000)
    max_session_timeout_ms: int = _setting("group.consumer.max.session.timeout.ms", 60_000)
    heartbeat_interval_ms: int = _setting("group.consumer.heartbeat.interval.ms", 5_000)
    min_heartbeat_interval_ms: int = _setting("group.consumer.min.heartbeat.interval.ms", 5_000)
    max_heartbeat_interval_ms: int = _setting("group.consumer.max.heartbeat.interval.ms", 15_000)
    max_size: int = _setting("group.consumer.max.size", 2_147_483_647)
    assignors: str = "uniform,range"
    migration_policy: str = "bidirectional"

    @classmethod
    def from_properties(cls, props: Mapping[str, object]) -> "ConsumerGroupConfig":
        cfg = cls()
        for f in fields(cls):
            name = f.metadata.get("property")
            value = props.get(name) if name else None
            if value is not None and str(value).strip() != "":
                setattr(cfg, f.name, int(str(value).strip()))
        for name, attr in _STRINGS:
            value = props.get(name)
            if isinstance(value, (list, tuple)):
                value = ",".join(value)
            if value is not None and str(value).strip():
                setattr(cfg, attr, str(value).strip())
        return cfg

    @classmethod
    def from_broker_config(cls, config: PropertyLookup) -> "ConsumerGroupConfig":
        names = [f.metadata["property"] for f in fields(cls) if "property" in f.metadata]
        return cls.from_properties({n: config.get(n) for n in names + [n for n, _ in _STRINGS]})


_STRINGS = (("group.consumer.assignors", "assignors"),
            ("group.consumer.migration.policy", "migration_policy"))
