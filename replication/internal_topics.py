"""The topic configs the internal topics are created with, from the broker's config.

Who may call it: whichever controller creates ``__consumer_offsets`` and
``__transaction_state`` (the standalone controller in broker/, the ZooKeeper admin manager
here); a floor below both so neither imports the other.
"""
from __future__ import annotations

from kafpy.replication.config import BrokerConfigView


def offsets_topic_configs(cfg: BrokerConfigView) -> dict[str, str]:
    """The topic configs ``__consumer_offsets`` is created with."""
    return {"cleanup.policy": "compact", "segment.bytes": str(cfg["offsets.topic.segment.bytes"]),
            "compression.type": "producer"}


def share_group_state_topic_configs(cfg: BrokerConfigView) -> dict[str, str]:
    """The topic configs ``__share_group_state`` is created with (Kafka 4.4's
    ShareCoordinatorService.shareGroupStateTopicConfigs): a delete-policy topic kept forever,
    not compacted (the share coordinator prunes what its snapshots made redundant)."""
    return {"cleanup.policy": "delete", "retention.ms": "-1", "compression.type": "producer",
            "segment.bytes": str(cfg["share.coordinator.state.topic.segment.bytes"]),
            "min.insync.replicas": str(cfg["share.coordinator.state.topic.min.isr"])}


def transaction_state_topic_configs(cfg: BrokerConfigView) -> dict[str, str]:
    """The topic configs ``__transaction_state`` is created with (Kafka's
    TransactionStateManager: compacted, uncompressed, its own min ISR, no unclean election)."""
    return {"cleanup.policy": "compact", "segment.bytes": str(cfg["transaction.state.log.segment.bytes"]),
            "compression.type": "uncompressed", "min.insync.replicas": str(cfg["transaction.state.log.min.isr"]),
            "unclean.leader.election.enable": "false"}
