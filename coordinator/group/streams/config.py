"""Broker settings of Streams groups (KIP-1071), Kafka's names and defaults."""
from __future__ import annotations

from dataclasses import dataclass

from kafpy.coordinator.group.config import PropertiesConfig, _setting


@dataclass
class StreamsGroupConfig(PropertiesConfig):
    """Built once by the broker (`from_broker_config`). A group may override the session
    timeout, heartbeat interval, standby replicas, assignment interval, acceptable recovery
    lag and task offset interval with IncrementalAlterConfigs on its GROUP resource
    (`streams.session.timeout.ms`, `streams.heartbeat.interval.ms`,
    `streams.num.standby.replicas`, `streams.assignment.interval.ms`, ...)."""

    session_timeout_ms: int = _setting("group.streams.session.timeout.ms", 45_000)
    min_session_timeout_ms: int = _setting("group.streams.min.session.timeout.ms", 45_000)
    max_session_timeout_ms: int = _setting("group.streams.max.session.timeout.ms", 60_000)
    heartbeat_interval_ms: int = _setting("group.streams.heartbeat.interval.ms", 5_000)
    min_heartbeat_interval_ms: int = _setting("group.streams.min.heartbeat.interval.ms", 5_000)
    max_heartbeat_interval_ms: int = _setting("group.streams.max.heartbeat.interval.ms", 15_000)
    max_size: int = _setting("group.streams.max.size", 2_147_483_647)
    # a new group's first target waits this long for more members (ASSIGNMENT_DELAYED)
    initial_rebalance_delay_ms: int = _setting("group.streams.initial.rebalance.delay.ms", 3_000)
    num_standby_replicas: int = _setting("group.streams.num.standby.replicas", 0)
    max_standby_replicas: int = _setting("group.streams.max.standby.replicas", 2)
    # what the heartbeat response tells members (Kafka's defaults)
    acceptable_recovery_lag: int = _setting("group.streams.acceptable.recovery.lag", 10_000)
    task_offset_interval_ms: int = _setting("group.streams.task.offset.interval.ms", 60_000)
    # Kafka 4.4 keeps these for warm-up tasks, which its sticky assignor does not place yet
    num_warmup_replicas: int = _setting("group.streams.num.warmup.replicas", 2)
    max_warmup_replicas: int = _setting("group.streams.max.warmup.replicas", 20)
    # a new target assignment at most this often (0: at every group epoch)
    assignment_interval_ms: int = _setting("group.streams.assignment.interval.ms", 1_000)
