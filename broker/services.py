"""The collaborators request handlers are given (``ctx.services``): every part a handler may
use, declared up front and built by the Broker, so no handler reaches into the Broker or
probes for optional parts.

Who may call it: the Broker builds one; handlers read it. Nothing on disk.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from kafpy.storage import LogManager

    from kafpy.broker.apis import ApiRegistry
    from kafpy.broker.config import KafkaConfig
    from kafpy.broker.controller import StandaloneController
    from kafpy.broker.fetch_session import FetchSessionCache
    from kafpy.broker.metadata import MetadataCache
    from kafpy.broker.replica_manager import ReplicaManager
    from kafpy.replication.controller import KafkaController
    from kafpy.replication.zk_client import KafkaZkClient


@dataclass(eq=False)
class BrokerServices:
    config: "KafkaConfig"
    clock: Callable[[], float]  # wall clock in seconds (time.time); tests pass their own
    apis: "ApiRegistry"
    metadata_cache: "MetadataCache"
    # the metadata writer admin handlers ask: the StandaloneController, or in ZooKeeper mode
    # the ZkAdminManager (same async methods)
    controller: "StandaloneController"
    replica_manager: "ReplicaManager"
    log_manager: "LogManager"
    fetch_sessions: "FetchSessionCache"
    # coordinator.GroupCoordinatorService; None only in handler unit tests without groups
    group_coordinator: Any = None
    # coordinator.transaction.service.TransactionCoordinatorService; None only in handler
    # unit tests without transactions
    txn_coordinator: Any = None
    # broker.txn_verification.TxnVerifier (KIP-890 produce-time verification); None only
    # in handler unit tests without transactions
    txn_verifier: Any = None
    # ZooKeeper mode only (None standalone): the cluster's controller election and state
    # machine on this broker (ControlledShutdown, AlterPartition, ElectLeaders), the
    # ZooKeeper client (topic configs for UpdateMetadata/LeaderAndIsr), and this broker's
    # epoch, the czxid of its registration (control requests carrying an older one are stale)
    cluster_controller: "KafkaController | None" = None
    zk_client: "KafkaZkClient | None" = None
    broker_epoch: int = -1
    # broker.security.authorizer.Authorizer when authorizer.class.name is set, else None
    # (then nothing is checked and the ACL APIs answer SECURITY_DISABLED)
    authorizer: Any = None
    # broker.quotas.ClientQuotas: produce/fetch/request quotas per user and client id
    quotas: Any = None
    # SCRAM credentials and other per-user configs (broker.security.credentials): in
    # ZooKeeper or, standalone, in a file under log.dirs; None only in handler unit tests
    user_configs: Any = None
    # broker.features.StandaloneFeatures or ZkFeatures: the finalized feature levels
    # (ApiVersions, UpdateFeatures); None only in handler unit tests (no features finalized)
    features: Any = None

    @property
    def broker_id(self) -> int:
        return self.config.broker_id

    def now_ms(self) -> int:
        return int(self.clock() * 1000)
