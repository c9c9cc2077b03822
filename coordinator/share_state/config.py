"""Broker settings the share coordinator reads (Kafka 4.4's ShareCoordinatorConfig names and
defaults)."""

from __future__ import annotations

from dataclasses import dataclass

from kafpy.coordinator.group.config import PropertiesConfig, _setting


@dataclass
class ShareCoordinatorConfig(PropertiesConfig):
    """Built once by the broker (`from_broker_config`); the service may later set
    `state_topic_num_partitions` to the partition count `__share_group_state` really has."""

    state_topic_num_partitions: int = _setting("share.coordinator.state.topic.num.partitions", 50)
    state_topic_replication_factor: int = _setting(
        "share.coordinator.state.topic.replication.factor", 3)
    state_topic_min_isr: int = _setting("share.coordinator.state.topic.min.isr", 2)
    state_topic_segment_bytes: int = _setting("share.coordinator.state.topic.segment.bytes",
                                              100 * 1024 * 1024)
    # a ShareSnapshot after this many ShareUpdate records of one share partition
    snapshot_update_records_per_snapshot: int = _setting(
        "share.coordinator.snapshot.update.records.per.snapshot", 500)
    # how often the records every share partition's last snapshot made redundant are
    # deleted from the start of each partition this broker leads
    state_topic_prune_interval_ms: int = _setting("share.coordinator.state.topic.prune.interval.ms",
                                                  5 * 60 * 1000)
    # how often a share partition whose last record is an update gets a snapshot
    cold_partition_snapshot_interval_ms: int = _setting(
        "share.coordinator.cold.partition.snapshot.interval.ms", 5 * 60 * 1000)
    # how long a write of `__share_group_state` may wait for the in-sync replicas
    write_timeout_ms: int = _setting("share.coordinator.write.timeout.ms", 5000)
    state_topic_compression_codec: int = _setting("share.coordinator.state.topic.compression.codec", 0)

