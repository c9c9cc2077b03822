"""Dynamic configs by resource, as Kafka's ``ConfigurationsImage`` / ``ConfigurationsDelta``.

Replayed from ``ConfigRecord``: a null value removes the key; a resource left with no keys is
dropped. Deleting a topic drops its configs. Only what was set dynamically is here: merging
with static and default values is the caller's business, as in Kafka.

One departure: Kafka 4.4's ``ConfigurationsDelta`` drops a deleted topic's configs only when
the image it started from holds them, so a topic created, configured and deleted within one
delta (a loader catching up several batches at once) leaves its configs behind. Here they go
too, so the image does not depend on where the deltas were cut."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.maps import frozen, merged
from kafpy.metadata.image.writer import ApiMessageAndVersion, with_version
from kafpy.protocol.messages import ConfigRecord


class ConfigResourceType(IntEnum):
    """Kafka's ``ConfigResource.Type`` ids as ConfigRecord carries them."""

    UNKNOWN = 0
    TOPIC = 2
    BROKER = 4
    BROKER_LOGGER = 8
    CLIENT_METRICS = 16
    GROUP = 32


@dataclass(frozen=True, order=True)
class ConfigResource:
    """A config's owner: a topic by name, a broker by id ("" is the cluster default), a
    client-metrics subscription or a group by name."""

    type: ConfigResourceType
    name: str


@dataclass(frozen=True)
class ConfigurationsImage:
    """Resource -> its dynamic configs (key -> value)."""

    resource_data: Mapping[ConfigResource, Mapping[str, str]]

    def is_empty(self) -> bool:
        return not self.resource_data

    def config_map(self, resource: ConfigResource) -> Mapping[str, str]:
        """The dynamic configs of ``resource`` (empty when none)."""
        return self.resource_data.get(resource, frozen({}))

    def topic_config(self, topic: str) -> Mapping[str, str]:
        return self.config_map(ConfigResource(ConfigResourceType.TOPIC, topic))

    def broker_config(self, broker_id: int | None) -> Mapping[str, str]:
        """A broker's dynamic configs; ``None`` for the cluster-wide default."""
        name = "" if broker_id is None else str(broker_id)
        return self.config_map(ConfigResource(ConfigResourceType.BROKER, name))

    def records(self) -> list[ApiMessageAndVersion]:
        out: list[ApiMessageAndVersion] = []
        for resource in sorted(self.resource_data):
            configs = self.resource_data[resource]
            for name in sorted(configs):
                out.append(with_version(ConfigRecord(
                    resource_type=int(resource.type), resource_name=resource.name,
                    name=name, value=configs[name])))
        return out


EMPTY_CONFIGS = ConfigurationsImage(frozen({}))


class ConfigurationsDelta:
    """Config changes on top of ``image``: resource -> key -> new value (None: removed)."""

    def __init__(self, image: ConfigurationsImage) -> None:
        self.image = image
        self.changes: dict[ConfigResource, dict[str, str | None]] = {}

    def replay(self, record: ConfigRecord) -> None:
        try:
            resource_type = ConfigResourceType(record.resource_type)
        except ValueError:
            raise MetadataReplayError(
                f"ConfigRecord for unknown resource type {record.resource_type}") from None
        resource = ConfigResource(resource_type, record.resource_name)
        self.changes.setdefault(resource, {})[record.name] = record.value

    def delete_topic_configs(self, topic: str) -> None:
        """Drop every config of ``topic`` (its RemoveTopicRecord was replayed)."""
        resource = ConfigResource(ConfigResourceType.TOPIC, topic)
        changes = self.changes.setdefault(resource, {})
        for name in list(changes) + list(self.image.config_map(resource)):
            changes[name] = None

    def apply(self) -> ConfigurationsImage:
        if not self.changes:
            return self.image
        resources: dict[ConfigResource, Mapping[str, str] | None] = {}
        for resource, changes in self.changes.items():
            configs = merged(self.image.config_map(resource), changes)
            resources[resource] = configs if configs else None
        return ConfigurationsImage(merged(self.image.resource_data, resources))
