"""Per-group configs (Kafka 4.x's GROUP config resource, `kafka-configs --entity-type
groups`): overrides of a consumer-protocol group's session timeout and heartbeat
interval, bounded by the broker's `group.consumer.min/max.*` settings.

Kept as entity configs of type "groups", where the user and client quotas are kept:
ZooKeeper's `/config/groups/<group>` (announced on `/config/changes`) on a cluster,
`cluster-metadata.json` standalone, through the controller's `alter_entity_configs`;
`entity_configs` holds the current ones on every broker.

Who calls it: broker/handlers/configs.py (DescribeConfigs, IncrementalAlterConfigs on
resource type 32) and the broker, which hands `overrides` to the group coordinator.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

GROUP_RESOURCE = 32
GROUP_ENTITY_TYPE = "groups"
GROUP_CONFIG_SOURCE = 8          # DescribeConfigs' GROUP_CONFIG
DEFAULT_CONFIG_SOURCE = 5
TYPE_INT = 3

SESSION_TIMEOUT = "consumer.session.timeout.ms"
HEARTBEAT_INTERVAL = "consumer.heartbeat.interval.ms"
#: group config -> (broker default, broker minimum, broker maximum)
GROUP_CONFIGS: dict[str, tuple[str, str, str]] = {
    SESSION_TIMEOUT: ("group.consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms",
                      "group.consumer.max.session.timeout.ms"),
    HEARTBEAT_INTERVAL: ("group.consumer.heartbeat.interval.ms",
                         "group.consumer.min.heartbeat.interval.ms",
                         "group.consumer.max.heartbeat.interval.ms"),
    # Streams groups (KIP-1071)
    "streams.session.timeout.ms": ("group.streams.session.timeout.ms",
                                   "group.streams.min.session.timeout.ms",
                                   "group.streams.max.session.timeout.ms"),
    "streams.heartbeat.interval.ms": ("group.streams.heartbeat.interval.ms",
                                      "group.streams.min.heartbeat.interval.ms",
                                      "group.streams.max.heartbeat.interval.ms"),
}


class InvalidGroupConfig(Exception):
    """A refused value or name; `unknown` tells INVALID_CONFIG for a name apart."""


def validate(broker_config: Any, configs: Mapping[str, str]) -> None:
    """Raise InvalidGroupConfig unless every entry is a known group config within the
    broker's bounds (Kafka's GroupConfig.validate)."""
    for name, value in configs.items():
        bounds = GROUP_CONFIGS.get(name)
        if bounds is None:
            raise InvalidGroupConfig(f"Unknown group config name: {name}")
        try:
            number = int(str(value).strip())
        except ValueError:
            raise InvalidGroupConfig(f"Invalid value {value} for configuration {name}: "
                                     f"Not a number of type INT") from None
        low, high = int(broker_config[bounds[1]]), int(broker_config[bounds[2]])
        if not low <= number <= high:
            raise InvalidGroupConfig(f"{name} must be greater than or equal to {bounds[1]} "
                                     f"({low}) and less than or equal to {bounds[2]} ({high})")


def describe(broker_config: Any, overrides: Mapping[str, str], keys: list[str] | None,
             entry: Callable[..., Any]) -> list:
    """DescribeConfigs entries of one group: its overrides, else the broker's values."""
    out = []
    for name, bounds in GROUP_CONFIGS.items():
        if keys is not None and name not in keys:
            continue
        overridden = name in overrides
        value = overrides[name] if overridden else str(broker_config[bounds[0]])
        out.append(entry(name=name, value=value, read_only=False,
                         config_source=GROUP_CONFIG_SOURCE if overridden else DEFAULT_CONFIG_SOURCE,
                         is_sensitive=False, synonyms=[], config_type=TYPE_INT, documentation=None))
    return out


def overrides_lookup(entity_configs: Any) -> Callable[[str], Mapping[str, str]]:
    """What the group coordinator asks for a group's overrides."""
    return lambda group_id: entity_configs.get(GROUP_ENTITY_TYPE, group_id)
