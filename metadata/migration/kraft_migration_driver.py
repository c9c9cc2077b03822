"""The migration driver's state machine (Kafka 3.9's ``KRaftMigrationDriver`` without its event
queue and ZooKeeper I/O): which state the active controller's migration is in, what it knows of
ZooKeeper (``ZkMigrationLeadershipState``), when to poll next, and the decisions Kafka's events
make from what the runner read.

Who calls it: ``kafpy.broker.zk_migration_runner`` (the asyncio side: it reads ZooKeeper and the
controller's image, hands the facts in, and does what the new state asks). Pure: the clock is
passed in; a transition Kafka does not allow raises ``IllegalMigrationTransition``.

Why a poll backoff: as Kafka's ``PollTimeSupplier``, a driver waiting (for brokers to register,
for a claim to succeed) polls after 100 ms, doubling up to 60 s, reset by every transition.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from kafpy.metadata.migration.zk_migration_state import (
    MigrationDriverState, ZkMigrationLeadershipState, ZkMigrationState, is_valid_state_change,
)

log = logging.getLogger("org.apache.kafka.metadata.migration.KRaftMigrationDriver")

POLL_INITIAL_MS, POLL_MULTIPLIER, POLL_MAX_MS = 100, 2, 60_000


class IllegalMigrationTransition(RuntimeError):
    """A transition Kafka's ``isValidStateChange`` refuses."""


class KRaftMigrationDriver:
    """Keeps the driver state, the ZooKeeper-side state, the KRaft leader and epoch it runs
    under, and the poll backoff."""

    def __init__(self, node_id: int, now_ms: int) -> None:
        self.node_id = node_id
        self.state = MigrationDriverState.UNINITIALIZED
        self.leadership = ZkMigrationLeadershipState()
        self.leader_id: int | None = None
        self.leader_epoch = -1
        self._poll_count = 0
        self.next_poll_ms = now_ms

    # -- transitions --------------------------------------------------------------------
    def transition_to(self, new: MigrationDriverState, now_ms: int) -> None:
        if not is_valid_state_change(self.state, new):
            raise IllegalMigrationTransition(f"Invalid transition in migration driver from {self.state.value} to "
                                             f"{new.value}")
        if new is not self.state:
            log.info("[KRaftMigrationDriver id=%d] %d transitioning from %s to %s state", self.node_id, self.node_id,
                     self.state.value, new.value)
            self._poll_count = 0
            self.next_poll_ms = now_ms  # a transition wakes the driver at once
        self.state = new

    def schedule_poll(self, now_ms: int) -> int:
        """The next poll time after a wait: 100 ms, doubling to 60 s until a transition."""
        delay = min(POLL_MAX_MS, POLL_INITIAL_MS * POLL_MULTIPLIER ** self._poll_count)
        self._poll_count += 1
        self.next_poll_ms = now_ms + delay
        return self.next_poll_ms

    def apply(self, name: str, after: ZkMigrationLeadershipState) -> None:
        """Kafka's ``applyMigrationOperation``: keep the state an operation returned."""
        before, self.leadership = self.leadership, after
        if before != after:
            log.info("[KRaftMigrationDriver id=%d] %s. Transitioned migration state from %s to %s", self.node_id,
                     name, before, after)

    # -- what Kafka's events decide -------------------------------------------------------
    def recovered(self, state: ZkMigrationLeadershipState, now_ms: int) -> None:
        """``RecoverMigrationStateFromZKEvent``: ``/migration`` read; the driver is INACTIVE."""
        self.apply("Recovered migration state from ZK", state)
        if self.state is MigrationDriverState.UNINITIALIZED:
            self.transition_to(MigrationDriverState.INACTIVE, now_ms)

    def on_controller_change(self, leader_id: int | None, epoch: int, now_ms: int) -> bool:
        """``KRaftLeaderEvent``: True when this node just became the active controller (the
        runner then re-reads ``/migration`` and calls ``became_active``); another leader makes
        the driver INACTIVE."""
        changed = (leader_id, epoch) != (self.leader_id, self.leader_epoch)
        self.leader_id, self.leader_epoch = leader_id, epoch
        if not changed or self.state is MigrationDriverState.UNINITIALIZED:
            return False
        if leader_id == self.node_id:
            if self.state is not MigrationDriverState.INACTIVE:
                self.transition_to(MigrationDriverState.INACTIVE, now_ms)
            return True
        self.transition_to(MigrationDriverState.INACTIVE, now_ms)
        return False

    def became_active(self, recovered: ZkMigrationLeadershipState, now_ms: int) -> None:
        self.apply("Became active migration driver",
                   recovered.with_new_kraft_controller(self.node_id, self.leader_epoch).with_unknown_zk_controller())
        self.transition_to(MigrationDriverState.WAIT_FOR_CONTROLLER_QUORUM, now_ms)

    def wait_for_controller_quorum(self, zk_migration_state: ZkMigrationState, quorum_ready: bool,
                                   now_ms: int) -> None:
        """``WaitForControllerQuorumEvent``: where the log's ZkMigrationState takes the driver."""
        if zk_migration_state is ZkMigrationState.NONE:
            log.error("The controller's ZkMigrationState is NONE which means this cluster should not be migrated "
                      "from ZooKeeper. This controller should not be configured with "
                      "'zookeeper.metadata.migration.enable' set to true. Will not proceed with a migration.")
            self.transition_to(MigrationDriverState.INACTIVE, now_ms)
        elif zk_migration_state is ZkMigrationState.PRE_MIGRATION:
            if quorum_ready:
                log.info("Controller Quorum is ready for Zk to KRaft migration. Now waiting for ZK brokers.")
                self.transition_to(MigrationDriverState.WAIT_FOR_BROKERS, now_ms)
        elif zk_migration_state is ZkMigrationState.MIGRATION:
            if not self.leadership.initial_zk_migration_complete():
                log.error("KRaft controller indicates an active migration, but the ZK state does not.")
                self.transition_to(MigrationDriverState.INACTIVE, now_ms)
            else:
                log.info("Migration is in already progress, not waiting on ZK brokers.")
                self.transition_to(MigrationDriverState.BECOME_CONTROLLER, now_ms)
        else:
            log.error("KRaft controller indicates a completed migration, but the migration driver is somehow active.")
            self.transition_to(MigrationDriverState.INACTIVE, now_ms)

    def zk_brokers_ready(self, registered: Mapping[int, bool], zk_broker_ids: Iterable[int],
                         assigned_broker_ids: Iterable[int]) -> bool:
        """Kafka's ``areZkBrokersReadyForMigration``: every broker in ``/brokers/ids`` and every
        broker a partition names is registered with KRaft as a migrating ZooKeeper broker
        (``registered``: broker id -> isMigratingZkBroker of the image's registrations)."""
        if not registered:
            log.info("No brokers are known to KRaft, waiting for brokers to register.")
            return False
        in_zk = set(zk_broker_ids)
        if not in_zk:
            log.info("No brokers are registered in ZK, waiting for brokers to register.")
            return False
        migrating = {b for b, zk in registered.items() if zk}
        if in_zk - migrating:
            log.info("Still waiting for ZK brokers %s to register with KRaft.", sorted(in_zk - migrating))
            return False
        assigned = set(assigned_broker_ids)
        if assigned - migrating:
            log.info("Still waiting for ZK brokers %s found in metadata to register with KRaft.",
                     sorted(assigned - migrating))
            return False
        return True

    def claimed(self, state: ZkMigrationLeadershipState) -> bool:
        """``BecomeZkControllerEvent``: True when ZooKeeper's controller role is ours."""
        self.apply("Claimed ZK controller leadership", state)
        if state.zk_controller_epoch_zk_version < 0:
            log.info("Unable to claim leadership, will retry until we learn of a different KRaft leader")
            return False
        return True

    def after_claim(self, now_ms: int) -> None:
        self.transition_to(MigrationDriverState.ZK_MIGRATION if not self.leadership.initial_zk_migration_complete()
                           else MigrationDriverState.SYNC_KRAFT_TO_ZK, now_ms)

    def migrated(self, offset: int, epoch: int, record_count: int, now_ms: int) -> None:
        """``MigrateMetadataEvent`` done: ZooKeeper's metadata is committed up to ``offset``."""
        log.info("Completed migration of metadata from ZooKeeper to KRaft. %d records were generated. The current "
                 "metadata offset is now %d with an epoch of %d.", record_count, offset, epoch)
        self.apply("Finished initial migration of ZK metadata to KRaft",
                   self.leadership.with_kraft_metadata_offset_and_epoch(offset, epoch))
        self.transition_to(MigrationDriverState.SYNC_KRAFT_TO_ZK, now_ms)
