"""Broker settings the transaction coordinator reads (Kafka's names and defaults)."""

from __future__ import annotations

from dataclasses import dataclass

from kafpy.coordinator.group.config import PropertiesConfig, _setting


@dataclass
class TransactionCoordinatorConfig(PropertiesConfig):
    """Built once by the broker (`from_broker_config`); the service may later set
    `transaction_state_log_num_partitions` to the partition count the topic really has."""

    broker_id: int = _setting("broker.id", 0)
    transactional_id_expiration_ms: int = _setting("transactional.id.expiration.ms", 604_800_000)
    transaction_max_timeout_ms: int = _setting("transaction.max.timeout.ms", 900_000)
    transaction_state_log_num_partitions: int = _setting("transaction.state.log.num.partitions", 50)
    transaction_state_log_replication_factor: int = _setting(
        "transaction.state.log.replication.factor", 3)
    transaction_state_log_min_isr: int = _setting("transaction.state.log.min.isr", 2)
    transaction_state_log_segment_bytes: int = _setting("transaction.state.log.segment.bytes",
                                                        100 * 1024 * 1024)
    abort_timed_out_transactions_interval_ms: int = _setting(
        "transaction.abort.timed.out.transaction.cleanup.interval.ms", 10_000)
    remove_expired_transactional_ids_interval_ms: int = _setting(
        "transaction.remove.expired.transaction.cleanup.interval.ms", 3_600_000)
    # How long a write of the transaction log may wait for the in-sync replicas
    # (Kafka uses its request timeout for these appends).
    request_timeout_ms: int = _setting("request.timeout.ms", 30_000)
