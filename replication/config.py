"""What replication reads of the broker's configuration, as a narrow view.

Who provides it: the broker passes its ``KafkaConfig`` (which has all of this); replication
never imports ``kafpy.broker``, so it names only what it reads here. Why a Protocol rather
than moving the config down a floor: the config's parsing, listeners and dynamic-config
rules are the broker's; replication needs lookups by Kafka's property names, the broker id
and the dynamic overrides the ZooKeeper admin manager refreshes.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol


class BrokerConfigView(Protocol):
    """Kafka property lookups (``config["replica.lag.time.max.ms"]``), typed values."""

    broker_id: int
    dynamic: dict[str, str]

    def __getitem__(self, name: str) -> Any: ...

    def get(self, name: str, default: Any = None) -> Any: ...

    def set_dynamic(self, default: dict[str, str], own: dict[str, str]) -> None:
        """Replace the dynamic broker configs (``<default>``, then this broker's)."""


# A topic's complete config (every topic config as a string) from its overrides: the
# overrides, else the broker's defaults (the broker's effective_topic_config over its config)
EffectiveTopicConfig = Callable[[Mapping[str, str]], dict[str, str]]
