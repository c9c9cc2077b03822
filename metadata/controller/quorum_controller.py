"""The quorum controller's state and event logic (Kafka's ``QuorumController`` without its
event queue and threads): every manager over one ``ControllerMetadata``, the replay of
committed batches, leadership (claim, activation, renouncing), and the records each request
or periodic task writes.

Who calls it: ``kafpy.broker.controller_events.ControllerEventManager`` on every controller
(the Raft listener's ``handle_commit`` / ``handle_leader_change`` land here) and serially for
each write event; unit tests drive it directly. Pure: no sockets, no tasks, the clock passed in.

Why replay only what is committed: the event manager runs one write at a time and answers it
once its records commit, so the managers always read the committed image. Kafka replays its
own appends at once into timeline structures it reverts on failover; here there is nothing
uncommitted to revert, and a controller that loses leadership keeps the committed image it
already has (only the soft state, the brokers' sessions, is dropped).

Activation: the new leader becomes active once the batch that opened its epoch (its
LeaderChangeMessage) is committed and replayed, i.e. once it holds every record of earlier
epochs (Kafka's raft client tells its listener of a new leader only when it has caught up to
the epoch start). An empty log then gets Kafka 4.4's bootstrap records: in a metadata
transaction (metadata.version 3.6-IV1 and later) the bootstrap snapshot's records, and with
eligible leader replicas a cluster-wide min.insync.replicas ConfigRecord.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import uuid
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from kafpy.metadata import metadata_version as mv
from kafpy.metadata.bootstrap import BootstrapMetadata
from kafpy.metadata.controller.acl_control_manager import AclControlManager
from kafpy.metadata.controller.broker_heartbeat_manager import BrokerHeartbeatManager
from kafpy.metadata.controller.client_quota_control_manager import ClientQuotaControlManager
from kafpy.metadata.controller.cluster_control_manager import ClusterControlManager
from kafpy.metadata.controller.configuration_control_manager import ConfigurationControlManager
from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.feature_control_manager import FeatureControlManager, QuorumFeatures
from kafpy.metadata.controller.partition_change_manager import PartitionChangeManager
from kafpy.metadata.controller.producer_id_control_manager import ProducerIdControlManager
from kafpy.metadata.controller.replication_control_manager import ReplicationControlManager
from kafpy.metadata.controller.scram_control_manager import ScramControlManager
from kafpy.metadata.controller.striped_replica_placer import StripedReplicaPlacer
from kafpy.metadata.image.cluster import VersionRange
from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.metadata.image.writer import with_version
from kafpy.metadata.migration.zk_migration_state import ZkMigrationState
from kafpy.metadata.record_serde import read_record, write_record
from kafpy.protocol.messages import (
    AbortTransactionRecord, BeginTransactionRecord, ConfigRecord, ElectLeadersRequest, EndTransactionRecord, Message, NoOpRecord,
    ZkMigrationStateRecord,
)
from kafpy.raft.kafka_raft_client import Batch
from kafpy.raft.snapshot import SnapshotId

log = logging.getLogger("org.apache.kafka.controller.QuorumController")

METADATA_TRANSACTION_LEVEL = 13  # 3.6-IV1: isMetadataTransactionSupported
NO_OP_RECORD_LEVEL = 7  # 3.3-IV0 and later: every KRaft metadata.version writes NoOpRecords
BROKER_RESOURCE = 4  # ConfigResource.Type.BROKER
MAX_ELECTIONS_PER_IMBALANCE = 1000  # Kafka's maxElectionsPerImbalance


def default_supported_features() -> dict[str, VersionRange]:
    """Kafka's ``QuorumFeatures.defaultSupportedFeatureMap``: metadata.version from the
    first KRaft level to the latest production one, every other production feature from 0 to
    its latest production level (kraft.version included)."""
    out = {mv.METADATA_VERSION_FEATURE: VersionRange(mv.MINIMUM_VERSION.level, mv.LATEST_PRODUCTION.level)}
    for feature in mv.PRODUCTION_FEATURES:
        out[feature.name] = VersionRange(0, feature.latest_production)
    return out


@dataclass(frozen=True)
class ControllerSettings:
    """What the controller reads of its node's configuration."""

    node_id: int
    cluster_id: str
    quorum_node_ids: tuple[int, ...]
    session_timeout_ms: int = 9000  # broker.session.timeout.ms
    default_num_partitions: int = 1  # num.partitions
    default_replication_factor: int = 1  # default.replication.factor
    default_min_isr: int = 1  # min.insync.replicas
    zk_migration_enabled: bool = False  # zookeeper.metadata.migration.enable (KIP-866, as Kafka 3.9)


def encode_records(records: Sequence[Message]) -> list[bytes]:
    """The serde bytes the raft client appends, each record at the lowest version that holds it."""
    return [write_record(with_version(r)) for r in records]


class QuorumController:
    """Keeps the shared ``ControllerMetadata``, the managers over it, the bootstrap metadata,
    and where this node stands: the epoch it leads but has not yet activated in (``claimed``)
    and the epoch it is active in (``active_epoch``)."""

    def __init__(self, settings: ControllerSettings, bootstrap: BootstrapMetadata, *,
                 supported: Mapping[str, VersionRange] | None = None,
                 rng: random.Random | None = None,
                 new_uuid: Callable[[], bytes] | None = None,
                 kraft_version: Callable[[], int] | None = None) -> None:
        self.settings = settings
        self.bootstrap = bootstrap
        self.metadata = ControllerMetadata()
        self.supported = dict(supported or default_supported_features())
        self.features = FeatureControlManager(self.metadata, QuorumFeatures(
            settings.node_id, self.supported, tuple(settings.quorum_node_ids)), kraft_version)
        self.cluster = ClusterControlManager(self.metadata, self.features, settings.cluster_id,
                                             settings.session_timeout_ms)
        self.configs = ConfigurationControlManager(self.metadata)
        uuids = new_uuid or (lambda: uuid.uuid4().bytes)
        self.replication = ReplicationControlManager(
            self.metadata, self.features, self.cluster, self.configs,
            StripedReplicaPlacer(rng or random.Random()), uuids,
            settings.default_num_partitions, settings.default_replication_factor)
        self.partitions = PartitionChangeManager(self.replication)
        self.producer_ids = ProducerIdControlManager(self.metadata, self.cluster)
        self.acls = AclControlManager(self.metadata, uuids)
        self.scram = ScramControlManager(self.metadata)
        self.quotas = ClientQuotaControlManager(self.metadata)
        # the log's ZkMigrationStateRecord (Kafka keeps it in the features image); ZooKeeper
        # brokers may register only while a migration is enabled
        self.zk_migration_state = ZkMigrationState.NONE
        self.cluster.zk_registration_allowed = settings.zk_migration_enabled
        self.claimed: int | None = None
        self.caught_up = False
        self.active_epoch: int | None = None
        # the epoch whose activation records have committed (set by the event manager): until
        # then the image lacks what activation writes (a migration's PRE_MIGRATION state)
        self.activation_committed: int | None = None
        self.leader_id: int | None = None
        self.epoch = -1
        # the epoch and append time of the last batch replayed (the provenance of a snapshot
        # of the image), and whether a metadata transaction is open at its end (no snapshot then)
        self.last_epoch = -1
        self.last_append_time_ms = -1
        self.in_transaction = False

    # -- what the raft listener hands in -----------------------------------------------------

    def replay_batch(self, batch: Batch) -> None:
        """Replay one committed batch; a control batch only moves the offset."""
        if batch.control or not batch.records:
            self.metadata.last_offset = max(self.metadata.last_offset, batch.last_offset)
        else:
            records = [read_record(payload).message for payload in batch.records]
            self.metadata.replay_all(records, batch.base_offset)
            for record in records:
                if isinstance(record, ZkMigrationStateRecord):
                    self.zk_migration_state = ZkMigrationState(record.zk_migration_state)
            self.metadata.last_offset = max(self.metadata.last_offset, batch.last_offset)
            for record in records:
                if isinstance(record, BeginTransactionRecord):
                    self.in_transaction = True
                elif isinstance(record, (EndTransactionRecord, AbortTransactionRecord)):
                    self.in_transaction = False
        self.last_epoch = batch.epoch
        self.last_append_time_ms = batch.append_time_ms
        if self.claimed is not None and batch.epoch >= self.claimed:
            self.caught_up = True  # everything before our epoch's start is replayed

    def load_snapshot(self, snapshot_id: SnapshotId, records: Sequence[Message], append_time_ms: int) -> None:
        """Replace the image with a snapshot's records (Kafka's ``handleLoadSnapshot``: a
        controller starting on a log that begins with a snapshot, or fallen behind the
        leader's log start); batches follow from its end offset. The brokers' epochs (the
        offsets of their RegisterBrokerRecords) come from the registrations it holds."""
        if self.active_epoch is not None:
            raise RuntimeError(f"Asked to load snapshot {snapshot_id}, but we are the active controller "
                               f"at epoch {self.active_epoch}")
        log.info("Starting to replay snapshot %s, from last commit offset %d and epoch %d.",
                 snapshot_id, self.metadata.last_offset, self.last_epoch)
        delta = MetadataDelta(EMPTY_IMAGE)
        delta.replay_all(records)
        provenance = MetadataProvenance(snapshot_id.end_offset - 1, snapshot_id.epoch, append_time_ms)
        self.metadata.image = delta.apply(provenance)
        self.metadata.last_offset = snapshot_id.end_offset - 1
        self.cluster.register_broker_record_offsets = {
            broker_id: reg.epoch for broker_id, reg in self.metadata.image.cluster.brokers.items()}
        self.last_epoch = snapshot_id.epoch
        self.last_append_time_ms = append_time_ms
        self.in_transaction = False
        log.info("Finished replaying snapshot %s: %d records.", snapshot_id, len(records))

    def snapshot_image(self) -> MetadataImage | None:
        """The committed image named for a snapshot (the last batch's offset, epoch and
        time), or None while a metadata transaction is open or nothing was replayed."""
        if self.in_transaction or self.metadata.last_offset < 0 or self.last_epoch < 0:
            return None
        provenance = MetadataProvenance(self.metadata.last_offset, self.last_epoch, self.last_append_time_ms)
        return dataclasses.replace(self.metadata.image, provenance=provenance)

    def leader_changed(self, leader_id: int | None, epoch: int) -> bool:
        """A new leader or epoch; True when this node was leading (claimed or active) and
        no longer is."""
        was_leading = self.active_epoch is not None or self.claimed is not None
        self.leader_id, self.epoch = leader_id, epoch
        self.claimed = epoch if leader_id == self.settings.node_id else None
        self.caught_up = False
        if self.active_epoch is not None and self.active_epoch != epoch:
            self.renounce()
        return was_leading and self.claimed is None and self.active_epoch is None

    def ready_to_activate(self) -> int | None:
        """The epoch to activate in, once its start is replayed (None otherwise)."""
        if self.claimed is None or not self.caught_up or self.active_epoch is not None:
            return None
        return self.claimed

    # -- leadership --------------------------------------------------------------------------

    def activate(self, epoch: int, now_ms: int) -> list[Message]:
        """Become active in ``epoch``: fresh broker sessions for every registered broker (as
        Kafka's ``ClusterControlManager.activate``) and the records activation writes."""
        self.active_epoch = epoch
        heartbeats = BrokerHeartbeatManager(self.settings.session_timeout_ms)
        for broker_id, reg in self.metadata.image.cluster.brokers.items():
            heartbeats.register(broker_id, reg.fenced, now_ms)
        self.cluster.heartbeat_manager = heartbeats
        if self.metadata.image.features.metadata_version is not None:
            log.info("Performing controller activation. Loaded metadata.version %s from the log.",
                     self.features.metadata_version())
            return self._migration_records_for_non_empty_log()
        return self._records_for_empty_log()

    def _migration_records_for_non_empty_log(self) -> list[Message]:
        """Kafka 3.9's ``recordsForNonEmptyLog`` migration part: a controller restarted without
        ``zookeeper.metadata.migration.enable`` after the migration finalizes it (POST_MIGRATION);
        one that enables it on a cluster that was not migrating, or after the end, must not run."""
        state, enabled = self.zk_migration_state, self.settings.zk_migration_enabled
        if state is ZkMigrationState.NONE and enabled:
            raise RuntimeError("Should not have ZK migrations enabled on a cluster that was created in KRaft mode.")
        if state is ZkMigrationState.POST_MIGRATION and enabled:
            raise RuntimeError("Should not have ZK migrations enabled on a cluster that has already completed "
                               "the migration (ZkMigrationState POST_MIGRATION).")
        if state is ZkMigrationState.MIGRATION and not enabled:
            log.info("Finishing the ZK migration: the controller runs without zookeeper.metadata.migration.enable; "
                     "writing ZkMigrationState POST_MIGRATION.")
            return [ZkMigrationStateRecord(zk_migration_state=int(ZkMigrationState.POST_MIGRATION))]
        if state is ZkMigrationState.PRE_MIGRATION and not enabled:
            log.warn("Activating pre-migration controller without empty log. There may be a partial migration.")
        return []

    def _records_for_empty_log(self) -> list[Message]:
        """Kafka 4.4's ``ActivationRecordsGenerator.recordsForEmptyLog``."""
        level = self.bootstrap.metadata_version_level
        transaction = level >= METADATA_TRANSACTION_LEVEL
        log.info("Performing controller activation. The metadata log appears to be empty. Appending %d "
                 "bootstrap record(s) %sat metadata.version %s from bootstrap source '%s'.",
                 len(self.bootstrap.records), "in metadata transaction " if transaction else "",
                 mv.from_feature_level(level), self.bootstrap.source)
        records: list[Message] = []
        if transaction:
            records.append(BeginTransactionRecord(name="Bootstrap records"))
        records.extend(r.message for r in self.bootstrap.records)
        if self.settings.zk_migration_enabled:
            if not transaction:
                raise RuntimeError(f"The bootstrap metadata.version {mv.from_feature_level(level)} does not support "
                                   "ZK migrations. Cannot continue with ZK migrations enabled.")
            log.info("Putting the controller into pre-migration mode. No metadata updates will be allowed until "
                     "the ZK metadata has been migrated.")
            records.append(ZkMigrationStateRecord(zk_migration_state=int(ZkMigrationState.PRE_MIGRATION)))
        if self.bootstrap.feature_level("eligible.leader.replicas.version") > 0:
            records.append(ConfigRecord(resource_type=BROKER_RESOURCE, resource_name="",
                                        name="min.insync.replicas",
                                        value=str(self.settings.default_min_isr)))
        if transaction:
            records.append(EndTransactionRecord())
        return records

    def renounce(self) -> None:
        """Stop being active: the brokers' sessions go (the image is already the committed one)."""
        if self.active_epoch is not None:
            log.info("Renouncing the leadership due to a metadata log event. We were the leader at "
                     "epoch %d; the new epoch is %d.", self.active_epoch, self.epoch)
        self.active_epoch = None
        self.cluster.heartbeat_manager = BrokerHeartbeatManager(self.settings.session_timeout_ms)

    def is_active(self) -> bool:
        return self.active_epoch is not None

    # -- periodic tasks ----------------------------------------------------------------------

    def no_op_records(self) -> list[Message]:
        """What ``writeNoOpRecord`` appends every ``metadata.max.idle.interval.ms``."""
        if self.features.metadata_version() < NO_OP_RECORD_LEVEL:
            return []
        return [NoOpRecord()]

    def maybe_fence_stale_broker(self, now_ms: int) -> list[Message]:
        """Kafka's ``maybeFenceOneStaleBroker``: the records fencing the broker whose session
        expired longest ago (none when no session expired); the caller runs it again at once
        after a fencing, as Kafka reschedules it."""
        return self.replication.maybe_fence_one_stale_broker(now_ms).records

    def maybe_balance_partition_leaders(self) -> list[Message]:
        """Kafka's ``maybeBalancePartitionLeaders`` (``auto.leader.rebalance.enable``): a
        preferred-leader election for every partition whose first replica is not its leader
        but could be, at most ``MAX_ELECTIONS_PER_IMBALANCE`` at a time (the caller runs it
        again at once when it hit the limit)."""
        records = self.partitions.elect_leaders(ElectLeadersRequest(election_type=0, topic_partitions=None)).records
        if records:
            log.info("Rebalancing the leaders of %d partition(s).", min(len(records), MAX_ELECTIONS_PER_IMBALANCE))
        return records[:MAX_ELECTIONS_PER_IMBALANCE]
