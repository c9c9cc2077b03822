"""Per-group configs (Kafka 4.x's GROUP config resource, `kafka-configs --entity-type
groups`): overrides of a consumer-protocol group's session timeout and heartbeat
interval, bounded by the broker's `group.consumer.min/max.*` settings, and a share
group's (`share.*`: session, heartbeat, record lock duration, delivery count limit,
record locks, bounded by `group.share.min/max.*`; `share.auto.offset.reset`,
`share.isolation.level`, `share.renew.acknowledge.enable`), and a Streams group's
(`streams.*`: session, heartbeat, standby and warm-up replicas, assignment interval,
acceptable recovery lag, bounded by `group.streams.*`). The share partitions read
the `share.*` ones through `overrides_lookup` (the values as strings) with `share_config`.

Kept as entity configs of type "groups", where the user and client quotas are kept:
ZooKeeper's `/config/groups/<group>` (announced on `/config/changes`) on a cluster,
`cluster-metadata.json` standalone, through the controller's `alter_entity_configs`;
`entity_configs` holds the current ones on every broker.

Who calls it: broker/handlers/configs.py (DescribeConfigs, IncrementalAlterConfigs on
resource type 32) and the broker, which hands `overrides` to the group coordinator.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Mapping, TypeVar

if TYPE_CHECKING:
    from kafpy.broker.config import KafkaConfig
    from kafpy.broker.quotas.entity_configs import EntityConfigs

_EntryT = TypeVar("_EntryT")

GROUP_RESOURCE = 32
GROUP_ENTITY_TYPE = "groups"
GROUP_CONFIG_SOURCE = 8          # DescribeConfigs' GROUP_CONFIG
DEFAULT_CONFIG_SOURCE = 5
TYPE_BOOLEAN, TYPE_STRING, TYPE_INT, TYPE_LONG, TYPE_LIST = 1, 2, 3, 5, 7

SESSION_TIMEOUT = "consumer.session.timeout.ms"
HEARTBEAT_INTERVAL = "consumer.heartbeat.interval.ms"
#: A bound of a group config: a broker setting's name, a fixed number (Kafka's ConfigDef
#: `atLeast`), or None (unbounded).
Bound = str | int | None
#: group config -> (broker default, minimum, maximum)
GROUP_CONFIGS: dict[str, tuple[str, Bound, Bound]] = {
    SESSION_TIMEOUT: ("group.consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms",
                      "group.consumer.max.session.timeout.ms"),
    HEARTBEAT_INTERVAL: ("group.consumer.heartbeat.interval.ms",
                         "group.consumer.min.heartbeat.interval.ms",
                         "group.consumer.max.heartbeat.interval.ms"),
    "consumer.assignment.interval.ms": ("group.consumer.assignment.interval.ms", 0, None),
    "share.assignment.interval.ms": ("group.share.assignment.interval.ms", 0, None),
    "share.session.timeout.ms": ("group.share.session.timeout.ms",
                                 "group.share.min.session.timeout.ms",
                                 "group.share.max.session.timeout.ms"),
    "share.heartbeat.interval.ms": ("group.share.heartbeat.interval.ms",
                                    "group.share.min.heartbeat.interval.ms",
                                    "group.share.max.heartbeat.interval.ms"),
    "share.record.lock.duration.ms": ("group.share.record.lock.duration.ms",
                                      "group.share.min.record.lock.duration.ms",
                                      "group.share.max.record.lock.duration.ms"),
    "share.delivery.count.limit": ("group.share.delivery.count.limit",
                                   "group.share.min.delivery.count.limit",
                                   "group.share.max.delivery.count.limit"),
    "share.partition.max.record.locks": ("group.share.partition.max.record.locks",
                                         "group.share.min.partition.max.record.locks",
                                         "group.share.max.partition.max.record.locks"),
    # Streams groups (KIP-1071)
    "streams.session.timeout.ms": ("group.streams.session.timeout.ms",
                                   "group.streams.min.session.timeout.ms",
                                   "group.streams.max.session.timeout.ms"),
    "streams.heartbeat.interval.ms": ("group.streams.heartbeat.interval.ms",
                                      "group.streams.min.heartbeat.interval.ms",
                                      "group.streams.max.heartbeat.interval.ms"),
    "streams.num.standby.replicas": ("group.streams.num.standby.replicas", 0,
                                     "group.streams.max.standby.replicas"),
    "streams.initial.rebalance.delay.ms": ("group.streams.initial.rebalance.delay.ms", 0, None),
    "streams.assignment.interval.ms": ("group.streams.assignment.interval.ms",
                                       "group.streams.min.assignment.interval.ms",
                                       "group.streams.max.assignment.interval.ms"),
    "streams.task.offset.interval.ms": ("group.streams.task.offset.interval.ms",
                                        "group.streams.min.task.offset.interval.ms", None),
    "streams.num.warmup.replicas": ("group.streams.num.warmup.replicas", 0,
                                    "group.streams.max.warmup.replicas"),
    "streams.acceptable.recovery.lag": ("group.streams.acceptable.recovery.lag", 0, None),
}
#: the bounded group configs Kafka types LONG (the others are INT)
LONG_GROUP_CONFIGS = {"streams.acceptable.recovery.lag"}
SHARE_AUTO_OFFSET_RESET = "share.auto.offset.reset"
SHARE_ISOLATION_LEVEL = "share.isolation.level"
SHARE_RENEW_ACKNOWLEDGE_ENABLE = "share.renew.acknowledge.enable"
STREAMS_ASSIGNOR_NAME = "streams.assignor.name"
#: group configs that are not bounded ints: name -> (Kafka's default, config type, the broker
#: setting the default comes from or None). Accepted and reported, not acted on: the
#: assignment intervals and offload switches (assignments are computed at once, on the event
#: loop), the dead letter queue (share groups here archive a record past its delivery count
#: limit without copying it anywhere), the Streams assignor (sticky, the only one) and its rack
#: tags.
OTHER_GROUP_CONFIGS: dict[str, tuple[str, int, str | None]] = {
    "consumer.assignor.offload.enable": ("true", TYPE_BOOLEAN, "group.consumer.assignor.offload.enable"),
    "errors.deadletterqueue.copy.record.enable": ("false", TYPE_BOOLEAN, None),
    "errors.deadletterqueue.topic.name": ("", TYPE_STRING, None),
    "share.assignor.offload.enable": ("true", TYPE_BOOLEAN, "group.share.assignor.offload.enable"),
    SHARE_AUTO_OFFSET_RESET: ("latest", TYPE_STRING, None),
    SHARE_ISOLATION_LEVEL: ("read_uncommitted", TYPE_STRING, None),
    SHARE_RENEW_ACKNOWLEDGE_ENABLE: ("true", TYPE_BOOLEAN, None),
    STREAMS_ASSIGNOR_NAME: ("sticky", TYPE_STRING, "group.streams.assignors"),
    "streams.assignor.offload.enable": ("true", TYPE_BOOLEAN, "group.streams.assignor.offload.enable"),
    "streams.rack.aware.assignment.tags": ("", TYPE_LIST, "group.streams.rack.aware.assignment.tags"),
}
#: Kafka's internal group configs: set and read like the others, listed only once set
INTERNAL_GROUP_CONFIGS = frozenset({
    "consumer.assignor.offload.enable", "share.assignor.offload.enable", "streams.assignor.offload.enable",
    "streams.task.offset.interval.ms", "streams.num.warmup.replicas", "streams.acceptable.recovery.lag",
})
#: every group config name, in the order DescribeConfigs lists them
ALL_GROUP_CONFIGS = sorted([*GROUP_CONFIGS, *OTHER_GROUP_CONFIGS])
_DURATION = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?", re.I)


def _other_problem(name: str, value: str) -> str | None:
    """Why `value` is refused for a non-int group config (Kafka's validators)."""
    v = str(value).strip()
    if name == SHARE_AUTO_OFFSET_RESET:
        low = v.lower()
        if low in ("earliest", "latest"):
            return None
        if low.startswith("by_duration:"):
            if _DURATION.fullmatch(v[len("by_duration:"):]) and v[len("by_duration:"):] not in ("P", "PT"):
                return None
            return (f"Invalid value {v} for configuration {name}: Unable to parse duration "
                    f"string '{v[len('by_duration:'):]}' for by_duration: ISO8601 format expected")
        return (f"Invalid value {v} for configuration {name}: Invalid value `{v}` for "
                f"configuration share.auto.offset.reset. The value must be either 'earliest', "
                f"'latest' or of the format 'by_duration:<PnDTnHnMn.nS.>'.")
    if name == SHARE_ISOLATION_LEVEL:
        if v.lower() in ("read_committed", "read_uncommitted"):
            return None
        return (f"Invalid value {v} for configuration {name}: String must be one of: "
                f"read_committed, read_uncommitted")
    kind = OTHER_GROUP_CONFIGS[name][1]
    if kind in (TYPE_STRING, TYPE_LIST):
        return None
    if v.lower() in ("true", "false"):
        return None
    return f"Invalid value {v} for configuration {name}: Expected value to be either true or false"


class InvalidGroupConfig(Exception):
    """A refused value or name; `unknown` tells INVALID_CONFIG for a name apart."""


def validate(broker_config: KafkaConfig, configs: Mapping[str, str]) -> None:
    """Raise InvalidGroupConfig unless every entry is a known group config within the
    broker's bounds (Kafka's GroupConfig.validate)."""
    for name, value in configs.items():
        if name in OTHER_GROUP_CONFIGS:
            problem = _other_problem(name, value)
            if problem is None and name == STREAMS_ASSIGNOR_NAME:
                registered = list(broker_config["group.streams.assignors"])
                if str(value).strip() not in registered:
                    problem = (f"{name} '{value}' is not a registered task assignor. Registered assignors are: "
                               f"[{', '.join(registered)}].")
            if problem is not None:
                raise InvalidGroupConfig(problem)
            continue
        bounds = GROUP_CONFIGS.get(name)
        if bounds is None:
            raise InvalidGroupConfig(f"Unknown group config name: {name}")
        kind = "LONG" if name in LONG_GROUP_CONFIGS else "INT"
        try:
            number = int(str(value).strip())
        except ValueError:
            raise InvalidGroupConfig(f"Invalid value {value} for configuration {name}: "
                                     f"Not a number of type {kind}") from None
        problem = _bound_problem(broker_config, name, number, bounds[1], bounds[2])
        if problem is not None:
            raise InvalidGroupConfig(problem)


def _bound_problem(broker_config: KafkaConfig, name: str, number: int, low: Bound, high: Bound
                   ) -> str | None:
    """Kafka 4.4's GroupConfig checks: a fixed minimum is the ConfigDef's `atLeast`
    (checked first, with ConfigDef's message); then the broker's bounds
    (validateIntRange / validateIntMin / validateIntMax)."""
    if isinstance(low, int) and number < low:
        return f"Invalid value {number} for configuration {name}: Value must be at least {low}"
    broker_low = int(broker_config[low]) if isinstance(low, str) else None
    broker_high = int(broker_config[high]) if isinstance(high, str) else None
    if broker_low is not None and broker_high is not None:
        if not broker_low <= number <= broker_high:
            return f"{name} must be in the range {broker_low} to {broker_high} inclusive."
    elif broker_low is not None and number < broker_low:
        return f"{name} must be greater than or equal to {broker_low}"
    elif broker_high is not None and number > broker_high:
        return f"{name} must be less than or equal to {broker_high}"
    return None


def _broker_default(broker_config: KafkaConfig, name: str) -> tuple[str, str, int]:
    """(the setting a group's default comes from, its value, the config type): a broker
    setting's name, or the group config's own with Kafka's default."""
    bounds = GROUP_CONFIGS.get(name)
    if bounds is not None:
        return bounds[0], str(broker_config[bounds[0]]), TYPE_LONG if name in LONG_GROUP_CONFIGS else TYPE_INT
    default, kind, key = OTHER_GROUP_CONFIGS[name]
    if key is None:
        return name, default, kind
    value = broker_config[key]
    if isinstance(value, bool):
        return key, "true" if value else "false", kind
    if isinstance(value, list):
        return key, (value[0] if value else "") if name == STREAMS_ASSIGNOR_NAME else ",".join(value), kind
    return key, str(value), kind


def describe(broker_config: KafkaConfig, overrides: Mapping[str, str], keys: list[str] | None,
             entry: Callable[..., _EntryT], synonym: Callable[..., object] | None = None) -> list[_EntryT]:
    """DescribeConfigs entries of one group, by name: its overrides, else the broker's values,
    with Kafka 4.4's synonyms (the override, then the default it replaces) when ``synonym``
    builds them. Internal configs are listed only once set or asked for by name."""
    out = []
    for name in ALL_GROUP_CONFIGS:
        if keys is not None and name not in keys:
            continue
        overridden = name in overrides
        if name in INTERNAL_GROUP_CONFIGS and not overridden and keys is None:
            continue
        key, default, kind = _broker_default(broker_config, name)
        synonyms = [] if synonym is None else [
            *([synonym(name=name, value=overrides[name], source=GROUP_CONFIG_SOURCE)] if overridden else []),
            synonym(name=key, value=default, source=DEFAULT_CONFIG_SOURCE)]
        out.append(entry(name=name, value=overrides[name] if overridden else default, read_only=False,
                         config_source=GROUP_CONFIG_SOURCE if overridden else DEFAULT_CONFIG_SOURCE,
                         is_sensitive=False, synonyms=synonyms, config_type=kind, documentation=None))
    return out


def share_config(overrides: Mapping[str, str], broker_config: KafkaConfig, name: str) -> str:
    """A share group's effective `share.*` config: its override, else the broker's
    setting (`group.share.*`), else Kafka's default. For the share partitions."""
    if name in overrides:
        return str(overrides[name])
    return _broker_default(broker_config, name)[1]


def overrides_lookup(entity_configs: EntityConfigs) -> Callable[[str], Mapping[str, str]]:
    """What the group coordinator asks for a group's overrides."""
    return lambda group_id: entity_configs.get(GROUP_ENTITY_TYPE, group_id)
