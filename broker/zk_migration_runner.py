"""The migration driver's asyncio side on a KRaft controller started with
``zookeeper.metadata.migration.enable=true`` (Kafka 3.9's ``KRaftMigrationDriver`` event queue):
one task that, while this controller is active, walks the driver's states with ZooKeeper
(``kafpy.replication.zk_migration_client``) and the quorum controller.

- INACTIVE -> WAIT_FOR_CONTROLLER_QUORUM once this controller is active (``/migration`` read or
  created, the KRaft controller id and epoch noted).
- WAIT_FOR_CONTROLLER_QUORUM: the log's ZkMigrationState (PRE_MIGRATION from activation) and
  every voter registered as ``zkMigrationReady``.
- WAIT_FOR_BROKERS: every broker of ``/brokers/ids`` and of the partitions registered with
  KRaft as a migrating ZooKeeper broker.
- BECOME_CONTROLLER: ``/controller`` and ``/controller_epoch`` claimed for this KRaft controller.
- ZK_MIGRATION: ZooKeeper's metadata appended in one metadata transaction (BeginTransactionRecord
  "ZK Migration", the batches, ZkMigrationStateRecord MIGRATION, EndTransactionRecord), the
  committed offset written to ``/migration``.
- SYNC_KRAFT_TO_ZK and later (writing the image back to ZooKeeper, the brokers' LeaderAndIsr /
  UpdateMetadata, dual writes): not done yet; the driver stays in SYNC_KRAFT_TO_ZK and says so.

Who calls it: ``ControllerServer`` builds and starts it when migration is enabled. ZooKeeper
errors are logged and retried at the next poll (Kafka's MigrationClientException handling).
"""
from __future__ import annotations

import asyncio
import logging
from typing import Callable

from kazoo.exceptions import KazooException

from kafpy.metadata.controller.controller_result import ControllerError, ControllerResult
from kafpy.metadata.controller.quorum_controller import METADATA_TRANSACTION_LEVEL, QuorumController
from kafpy.metadata.migration.kraft_migration_driver import KRaftMigrationDriver
from kafpy.metadata.migration.zk_migration_state import MigrationDriverState as S
from kafpy.metadata.migration.zk_migration_state import ZkMigrationState
from kafpy.protocol.messages import BeginTransactionRecord, EndTransactionRecord, Message, ZkMigrationStateRecord
from kafpy.replication.zk_client import KafkaZkClient
from kafpy.replication.zk_migration_client import ZkMigrationClient
from kafpy.replication.zk_ops import ControllerMovedError

from kafpy.broker.controller_events import ControllerEventManager

log = logging.getLogger("org.apache.kafka.metadata.migration.KRaftMigrationDriver")

MIN_MIGRATION_BATCH_SIZE = 200  # Kafka's zookeeper.metadata.migration.min.batch.size default
IDLE_POLL_MS = 500  # how often an inactive driver looks at the controller's leadership


class ZkMigrationRunner:
    """Keeps the driver, the quorum controller and its event manager, the ZooKeeper clients and
    the task."""

    def __init__(self, node_id: int, controller: QuorumController, events: ControllerEventManager,
                 zk: KafkaZkClient, *, time_ms: Callable[[], int],
                 min_batch_size: int = MIN_MIGRATION_BATCH_SIZE) -> None:
        self.controller = controller
        self.events = events
        self.zk = zk
        self.client = ZkMigrationClient(zk)
        self.time_ms = time_ms
        self.min_batch_size = min_batch_size
        self.driver = KRaftMigrationDriver(node_id, time_ms())
        self._task: asyncio.Task[None] | None = None
        self._wakeup = asyncio.Event()

    @property
    def state(self) -> S:
        return self.driver.state

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="kraft-migration-driver")

    def wakeup(self) -> None:
        self._wakeup.set()

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self.zk.close()

    async def _run(self) -> None:
        await self.zk.start()
        while True:
            try:
                await self._poll()
            except asyncio.CancelledError:
                raise
            except (KazooException, ControllerMovedError, ControllerError) as e:
                log.info("Encountered ZooKeeper error during the %s step. Will retry: %r", self.driver.state.value, e)
                self.driver.schedule_poll(self.time_ms())
            except Exception:  # noqa: BLE001 - Kafka's driver logs the fault and keeps polling
                log.error("Unexpected error in the migration driver in state %s", self.driver.state.value,
                          exc_info=True)
                self.driver.schedule_poll(self.time_ms())
            now = self.time_ms()
            delay = max(0, self.driver.next_poll_ms - now) if self.driver.next_poll_ms > now else 0
            if self.driver.state in (S.INACTIVE, S.UNINITIALIZED, S.SYNC_KRAFT_TO_ZK):
                delay = IDLE_POLL_MS
            self._wakeup.clear()
            try:
                await asyncio.wait_for(self._wakeup.wait(), delay / 1000)
            except asyncio.TimeoutError:
                pass

    async def _poll(self) -> None:
        driver, now = self.driver, self.time_ms()
        if driver.state is S.UNINITIALIZED:
            driver.recovered(await self.client.get_or_create_migration_recovery_state(driver.leadership, now), now)
        active = self.controller.active_epoch
        leader = self.controller.settings.node_id if active is not None else self.controller.leader_id
        if driver.on_controller_change(leader, active if active is not None else self.controller.epoch, now):
            recovered = await self.client.get_or_create_migration_recovery_state(driver.leadership, now)
            driver.became_active(recovered, now)
        if active is None or driver.next_poll_ms > now:
            return
        step = {S.WAIT_FOR_CONTROLLER_QUORUM: self._wait_for_controller_quorum,
                S.WAIT_FOR_BROKERS: self._wait_for_brokers,
                S.BECOME_CONTROLLER: self._become_controller,
                S.ZK_MIGRATION: self._migrate_metadata}.get(driver.state)
        if step is not None:
            await step(now)

    async def _wait_for_controller_quorum(self, now: int) -> None:
        image = self.controller.metadata.image
        voters = self.controller.settings.quorum_node_ids
        not_ready = [v for v in voters if v not in image.cluster.controllers
                     or not image.cluster.controllers[v].zk_migration_ready]
        if not_ready:
            log.warning("Still waiting for all controller nodes ready to begin the migration. Not ready due to: "
                        "controllers %s have not registered as zkMigrationReady", not_ready)
        self.driver.wait_for_controller_quorum(self.controller.zk_migration_state, not not_ready, now)
        if self.driver.state is S.WAIT_FOR_CONTROLLER_QUORUM:
            self.driver.schedule_poll(now)

    async def _wait_for_brokers(self, now: int) -> None:
        image = self.controller.metadata.image
        registered = {b: reg.is_migrating_zk_broker for b, reg in image.cluster.brokers.items()}
        zk_brokers = await self.client.read_broker_ids()
        assigned: set[int] = set()
        if registered and zk_brokers and zk_brokers <= {b for b, zk in registered.items() if zk}:
            assignments = await self.zk.get_topic_assignments(await self.zk.get_all_topics())
            for a in assignments.values():
                for p in a.partitions.values():
                    assigned.update(p.replicas)
        if self.driver.zk_brokers_ready(registered, zk_brokers, assigned):
            log.info("Zk brokers are registered and ready for migration")
            self.driver.transition_to(S.BECOME_CONTROLLER, now)
        else:
            self.driver.schedule_poll(now)

    async def _become_controller(self, now: int) -> None:
        driver = self.driver
        if not driver.claimed(await self.client.claim_controller_leadership(driver.leadership, now)):
            driver.schedule_poll(now)
            return
        # the previous ZooKeeper controller may have written /migration: write it unconditionally
        driver.apply("Updated migration state", await self.client.set_migration_recovery_state(
            driver.leadership.with_migration_zk_version(-1)))
        driver.after_claim(now)

    async def _append(self, name: str, records: list[Message]) -> None:
        await self.events.write(name, lambda _now: ControllerResult.of(list(records), None))

    async def _migrate_metadata(self, now: int) -> None:
        """Kafka's ``MigrateMetadataEvent`` with the controller's ``MigrationRecordConsumer``."""
        driver, epoch = self.driver, self.controller.active_epoch
        log.info("Starting ZK migration")
        cluster_id = await self.client.read_cluster_id()
        if cluster_id is not None and cluster_id != self.controller.settings.cluster_id:
            log.error("The cluster id in ZooKeeper (%s) is not this controller's (%s): format the controllers "
                      "with ZooKeeper's cluster id. Not migrating.", cluster_id, self.controller.settings.cluster_id)
            driver.schedule_poll(now)
            return
        batches, _ = await self.client.read_all_metadata()
        transaction = self.controller.features.metadata_version() >= METADATA_TRANSACTION_LEVEL
        if transaction:
            log.info("Starting migration of ZooKeeper metadata to KRaft.")
            await self._append("Begin ZK Migration Transaction", [BeginTransactionRecord(name="ZK Migration")])
        count, pending = 0, []
        for batch in batches:  # Kafka's BufferingBatchConsumer: at least min_batch_size a write
            pending += batch
            if len(pending) >= self.min_batch_size:
                await self._append("ZK Migration Batch", pending)
                count, pending = count + len(pending), []
        if pending:
            await self._append("ZK Migration Batch", pending)
            count += len(pending)
        log.info("Completing migration of ZooKeeper metadata to KRaft.")
        done: list[Message] = [ZkMigrationStateRecord(zk_migration_state=int(ZkMigrationState.MIGRATION))]
        if transaction:
            done.append(EndTransactionRecord())
        await self._append("Complete ZK Migration", done)
        offset = self.controller.metadata.last_offset
        driver.migrated(offset, epoch if epoch is not None else -1, count, self.time_ms())
        driver.apply("Updated ZK migration state after migration", await self.client.set_migration_recovery_state(
            driver.leadership))
        log.info("The ZooKeeper metadata is in the metadata log up to offset %d. Writing the image back to "
                 "ZooKeeper, the ZooKeeper brokers' LeaderAndIsr/UpdateMetadata and dual writes are not done yet: "
                 "the driver stays in %s.", offset, driver.state.value)


