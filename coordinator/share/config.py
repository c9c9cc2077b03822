"""Broker settings the share coordinator reads (Kafka 4.4's ShareCoordinatorConfig names and
defaults)."""

from __future__ import annotations

from dataclasses import dataclass

from kafpy.coordinator.config import PropertiesConfig, _setting


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
    # how long a write of `__share_group_state` may wait for the in-sync replicas
    write_timeout_ms: int = _setting("share.coordinator.write.timeout.ms", 5000)


def share_group_state_topic_configs(segment_bytes: int, min_isr: int) -> dict[str, str]:
    """The topic configs `__share_group_state` is created with: as Kafka 4.4's
    ShareCoordinatorService.shareGroupStateTopicConfigs, a delete-policy topic kept forever
    (the coordinator prunes what snapshots made redundant; it is not compacted)."""
    return {"cleanup.policy": "delete", "retention.ms": "-1", "compression.type": "producer",
            "segment.bytes": str(segment_bytes), "min.insync.replicas": str(min_isr)}
