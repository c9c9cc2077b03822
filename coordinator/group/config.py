"""Broker settings the group coordinator reads (Kafka's names and defaults)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Mapping, Protocol, TypeVar

ConfigT = TypeVar("ConfigT", bound="PropertiesConfig")


class PropertyLookup(Protocol):
    """The broker's KafkaConfig as these configs read it: a value by Kafka's property name."""

    def get(self, name: str, /) -> object: ...


def _setting(name: str, default: int) -> int:
    """A field read from the Kafka property `name`."""
    return field(default=default, metadata={"property": name})


@dataclass
class PropertiesConfig:
    """Builds a dataclass whose fields were declared with `_setting` from Kafka's
    property names (shared by the group and transaction coordinators' configs)."""

    @classmethod
    def from_properties(cls: type[ConfigT], props: Mapping[str, object]) -> ConfigT:
        """Kafka's property names; values may be strings or already typed; missing, None
        or blank values keep Kafka's default."""
        cfg = cls()
        for f in fields(cls):
            value = props.get(f.metadata["property"])
            if value is not None and str(value).strip() != "":
                setattr(cfg, f.name, int(str(value).strip()))
        return cfg

    @classmethod
    def from_broker_config(cls: type[ConfigT], config: PropertyLookup) -> ConfigT:
        """From the broker's KafkaConfig (anything with `get(property name)`)."""
        return cls.from_properties({f.metadata["property"]: config.get(f.metadata["property"])
                                    for f in fields(cls)})


@dataclass
class GroupCoordinatorConfig(PropertiesConfig):
    """Built once by the broker (`from_broker_config`); the service may later set
    `offsets_topic_num_partitions` to the partition count the topic really has."""

    broker_id: int = _setting("broker.id", 0)
    offsets_topic_num_partitions: int = _setting("offsets.topic.num.partitions", 50)
    offsets_topic_replication_factor: int = _setting("offsets.topic.replication.factor", 3)
    offsets_topic_segment_bytes: int = _setting("offsets.topic.segment.bytes", 100 * 1024 * 1024)
    offsets_retention_minutes: int = _setting("offsets.retention.minutes", 7 * 24 * 60)
    offsets_retention_check_interval_ms: int = _setting("offsets.retention.check.interval.ms",
                                                        600_000)
    offsets_commit_timeout_ms: int = _setting("offsets.commit.timeout.ms", 5000)
    offsets_topic_compression_codec: int = _setting("offsets.topic.compression.codec", 0)
    offset_metadata_max_bytes: int = _setting("offset.metadata.max.bytes", 4096)
    group_initial_rebalance_delay_ms: int = _setting("group.initial.rebalance.delay.ms", 3000)
    group_min_session_timeout_ms: int = _setting("group.min.session.timeout.ms", 6000)
    group_max_session_timeout_ms: int = _setting("group.max.session.timeout.ms", 1_800_000)
    group_max_size: int = _setting("group.max.size", 2_147_483_647)

    @property
    def offsets_retention_ms(self) -> int:
        return self.offsets_retention_minutes * 60_000
