"""The collaborators request handlers are given (``ctx.services``): every part a handler may
use, declared up front and built by the Broker, so no handler reaches into the Broker or
probes for optional parts.

Who may call it: the Broker builds one; handlers read it. Nothing on disk.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Protocol

if TYPE_CHECKING:
    from kafpy.storage import LogManager

    from kafpy.coordinator.group.service import GroupCoordinatorService
    from kafpy.coordinator.share_state.persister import SharePersister
    from kafpy.coordinator.share_state.service import ShareCoordinatorService
    from kafpy.coordinator.transaction.service import TransactionCoordinatorService
    from kafpy.replication.controller import KafkaController
    from kafpy.replication.metadata_cache import MetadataCache
    from kafpy.replication.replica_manager import ReplicaManager
    from kafpy.replication.zk_client import KafkaZkClient

    from kafpy.broker.admin_controller import AdminController
    from kafpy.broker.config import KafkaConfig
    from kafpy.broker.features import KRaftFeatures, StandaloneFeatures, ZkFeatures
    from kafpy.broker.fetch_session import FetchSessionCache
    from kafpy.broker.quotas import ClientQuotas
    from kafpy.broker.security.authorizer import Authorizer
    from kafpy.broker.security.credentials import UserConfigs
    from kafpy.broker.share.share_partition_manager import SharePartitionManager
    from kafpy.broker.txn_verification import TxnVerifier


class ApiVersionRanges(Protocol):
    """What handlers read of the handler registry (``kafpy.broker.apis.ApiRegistry``): the
    (api key, min version, max version) ApiVersions advertises. A Protocol so that this
    module, which handlers import, does not import the registry, which imports handlers."""

    def version_ranges(self) -> list[tuple[int, int, int]]: ...


@dataclass(eq=False)
class BrokerServices:
    config: "KafkaConfig"
    clock: Callable[[], float]  # wall clock in seconds (time.time); tests pass their own
    apis: ApiVersionRanges
    metadata_cache: "MetadataCache"
    # the metadata writer admin handlers ask: the StandaloneController, or in ZooKeeper mode
    # the ZkAdminManager
    controller: "AdminController"
    replica_manager: "ReplicaManager"
    log_manager: "LogManager"
    fetch_sessions: "FetchSessionCache"
    # None only in handler unit tests without groups
    group_coordinator: "GroupCoordinatorService | None" = None
    # None only in handler unit tests without transactions
    txn_coordinator: "TransactionCoordinatorService | None" = None
    # KIP-890 produce-time verification; None only in handler unit tests without transactions
    txn_verifier: "TxnVerifier | None" = None
    # ZooKeeper mode only (None standalone): the cluster's controller election and state
    # machine on this broker (ControlledShutdown, AlterPartition, ElectLeaders), the
    # ZooKeeper client (topic configs for UpdateMetadata/LeaderAndIsr), and this broker's
    # epoch, the czxid of its registration (control requests carrying an older one are stale)
    cluster_controller: "KafkaController | None" = None
    zk_client: "KafkaZkClient | None" = None
    broker_epoch: int = -1
    # a ZooKeeper broker during a migration: the epoch the KRaft controller gave it (what the
    # KRaft controller's LeaderAndIsr/UpdateMetadata/StopReplica carry), -1 before it registered
    kraft_broker_epoch: Callable[[], int] | None = None
    # set when authorizer.class.name is, else None (then nothing is checked and the ACL
    # APIs answer SECURITY_DISABLED)
    authorizer: "Authorizer | None" = None
    # produce/fetch/request quotas per user and client id
    quotas: "ClientQuotas | None" = None
    # SCRAM credentials and other per-user configs: in ZooKeeper or, standalone, in a file
    # under log.dirs; None only in handler unit tests
    user_configs: "UserConfigs | None" = None
    # broker.features.StandaloneFeatures or ZkFeatures: the finalized feature levels
    # (ApiVersions, UpdateFeatures); None only in handler unit tests (no features finalized)
    features: "StandaloneFeatures | ZkFeatures | KRaftFeatures | None" = None
    # share groups (KIP-932): the persister through which share partitions read and write
    # their durable state (coordinator/share_state/persister.py); the share coordinator this
    # broker runs for the `__share_group_state` partitions it leads (the persister RPCs'
    # handlers use it); the share partitions this broker leads and the share sessions
    # (ShareFetch, ShareAcknowledge). None only in handler unit tests without share groups.
    share_persister: "SharePersister | None" = None
    share_coordinator: "ShareCoordinatorService | None" = None
    share_partitions: "SharePartitionManager | None" = None

    @property
    def broker_id(self) -> int:
        return self.config.broker_id

    def now_ms(self) -> int:
        return int(self.clock() * 1000)
