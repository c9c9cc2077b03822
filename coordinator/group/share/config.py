"""Broker settings of share groups (KIP-932) the group coordinator uses, Kafka's names and
defaults (`group.share.*`)."""
from __future__ import annotations

from dataclasses import dataclass

from kafpy.coordinator.group.config import PropertiesConfig, _setting


@dataclass
class ShareGroupConfig(PropertiesConfig):
    """Built once by the broker (`from_broker_config`); per-group overrides
    (`share.session.timeout.ms`, `share.heartbeat.interval.ms`) are looked up per request."""

    session_timeout_ms: int = _setting("group.share.session.timeout.ms", 45_000)
    heartbeat_interval_ms: int = _setting("group.share.heartbeat.interval.ms", 5_000)
    max_size: int = _setting("group.share.max.size", 200)
