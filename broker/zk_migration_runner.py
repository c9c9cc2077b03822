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
- SYNC_KRAFT_TO_ZK: the image written back where ZooKeeper differs (after a failover ZooKeeper
  may lag the log): ZooKeeper's metadata is read as records, replayed into an image, and the
  writer reconciles it with the controller's.
- KRAFT_CONTROLLER_TO_BROKER_COMM: FULL LeaderAndIsr and UpdateMetadata to every ZooKeeper
  broker from the image (``zk_migration_propagator``).
- DUAL_WRITE: each committed change is written to ZooKeeper (``zk_migration_writer``), the
  offset recorded in ``/migration``, and the change sent to the ZooKeeper brokers.

Who calls it: ``ControllerServer`` builds and starts it when migration is enabled. ZooKeeper
errors are logged and retried at the next poll (Kafka's MigrationClientException handling).
"""
from __future__ import annotations

import asyncio
import dataclasses
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
from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.replication.controller_channel import ControllerChannelManager
from kafpy.replication.metadata_cache import BrokerInfo
from kafpy.replication.network_client import NetworkClient, NetworkClientConfig
from kafpy.replication.zk_migration_client import ZkMigrationClient
from kafpy.replication.zk_migration_propagator import (
    ControllerIdentity, Send, broker_info, delta_requests, full_requests, zk_brokers,
)
from kafpy.replication.zk_migration_writer import KRaftMigrationZkWriter
from kafpy.replication.zk_ops import ControllerMovedError

from kafpy.broker.controller_events import ControllerEventManager
from kafpy.raft.event_wait import wait_event

log = logging.getLogger("org.apache.kafka.metadata.migration.KRaftMigrationDriver")

MIN_MIGRATION_BATCH_SIZE = 200  # Kafka's zookeeper.metadata.migration.min.batch.size default
IDLE_POLL_MS = 500  # how often an inactive driver looks at the controller's leadership
DUAL_WRITE_POLL_MS = 100  # a dual-writing driver also wakes at every committed record


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
        self.writer = KRaftMigrationZkWriter(zk)
        self.channels: ControllerChannelManager | None = None
        self.published: MetadataImage | None = None  # the image ZooKeeper and the brokers were given
        self.dual_write_counts: dict[str, int] = {}
        self._task: asyncio.Task[None] | None = None
        self._wakeup = asyncio.Event()
        controller.metadata.add_listener(lambda _record, _offset: self._wakeup.set())

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
        if self.channels is not None:
            await self.channels.shutdown()
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
            if self.driver.state in (S.INACTIVE, S.UNINITIALIZED):
                delay = IDLE_POLL_MS
            elif self.driver.state is S.DUAL_WRITE:
                delay = DUAL_WRITE_POLL_MS
            self._wakeup.clear()
            await wait_event(self._wakeup, delay / 1000)

    async def _poll(self) -> None:
        driver, now = self.driver, self.time_ms()
        if driver.state is S.UNINITIALIZED:
            driver.recovered(await self.client.get_or_create_migration_recovery_state(driver.leadership, now), now)
        active = self.controller.active_epoch
        if self.controller.leader_id == self.controller.settings.node_id and (
                active is None or self.controller.activation_committed != active):
            # leading, but the activation's records (the empty log's PRE_MIGRATION state among
            # them) are not in the image yet: Kafka's driver, fed images only once the loader
            # caught up with them, never sees that image
            driver.schedule_poll(now)
            return
        leader = self.controller.settings.node_id if active is not None else self.controller.leader_id
        if driver.on_controller_change(leader, active if active is not None else self.controller.epoch, now):
            recovered = await self.client.get_or_create_migration_recovery_state(driver.leadership, now)
            driver.became_active(recovered, now)
        if active is None or driver.next_poll_ms > now:
            return
        step = {S.WAIT_FOR_CONTROLLER_QUORUM: self._wait_for_controller_quorum,
                S.WAIT_FOR_BROKERS: self._wait_for_brokers,
                S.BECOME_CONTROLLER: self._become_controller,
                S.ZK_MIGRATION: self._migrate_metadata,
                S.SYNC_KRAFT_TO_ZK: self._sync_kraft_to_zk,
                S.KRAFT_CONTROLLER_TO_BROKER_COMM: self._send_full_metadata,
                S.DUAL_WRITE: self._dual_write}.get(driver.state)
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

    # -- after the copy ------------------------------------------------------------------------
    async def _sync_kraft_to_zk(self, now: int) -> None:
        """Kafka's ``SyncKRaftMetadataEvent``: ZooKeeper made equal to the image."""
        image = self.controller.metadata.image
        batches, _ = await self.client.read_all_metadata()
        delta = MetadataDelta(EMPTY_IMAGE)
        for batch in batches:
            delta.replay_all(batch)
        in_zk = delta.apply(MetadataProvenance(-1, -1, 0))
        in_zk = dataclasses.replace(image, **{part: getattr(in_zk, part) for part in _ZK_PARTS})
        counts = await self.writer.write_delta(in_zk, image, self.driver.leadership)
        log.info("Made the following ZK writes when reconciling with KRaft state: %s", counts)
        self._record_offset(image)
        self.driver.apply("Updated ZK migration state after sync", await self.client.set_migration_recovery_state(
            self.driver.leadership))
        self.driver.transition_to(S.KRAFT_CONTROLLER_TO_BROKER_COMM, now)

    def _identity(self) -> ControllerIdentity:
        return ControllerIdentity(self.controller.settings.node_id, self.driver.leadership.zk_controller_epoch)

    def _send(self, image: MetadataImage, requests: list[Send]) -> None:
        if self.channels is None:
            loop = asyncio.get_running_loop()
            config = NetworkClientConfig(request_timeout_ms=30000)
            node = self.controller.settings.node_id

            def factory(b: BrokerInfo) -> NetworkClient:
                return NetworkClient(b.host, b.port, client_id=f"kraft-controller-{node}-migration", node_id=b.node_id,
                                     config=config, loop=loop)
            self.channels = ControllerChannelManager(node, factory, loop)
        for broker in zk_brokers(image):
            self.channels.add_broker(broker_info(broker))
        for broker_id, api_key, build in requests:
            self.channels.send(broker_id, api_key, build)

    async def _send_full_metadata(self, now: int) -> None:
        """Kafka's ``SendRPCsToBrokersEvent``: the ZooKeeper brokers learn the image whole."""
        image = self.controller.metadata.image
        log.info("Sending RPCs to broker before moving to dual-write mode using at offset and epoch %d",
                 self.controller.metadata.last_offset)
        self._send(image, full_requests(image, self._identity()))
        self.published = image
        self.driver.transition_to(S.DUAL_WRITE, now)

    async def _dual_write(self, now: int) -> None:
        """Kafka's ``MetadataChangeEvent`` in dual-write mode."""
        image, before = self.controller.metadata.image, self.published
        if before is None or image is before:
            return
        counts = await self.writer.write_delta(before, image, self.driver.leadership)
        for k, v in counts.items():
            self.dual_write_counts[k] = self.dual_write_counts.get(k, 0) + v
        if counts:
            log.debug("Made the following ZK writes when handling KRaft delta: %s", counts)
        self._record_offset(image)
        self.driver.apply("Updated ZK migration state after delta", await self.client.set_migration_recovery_state(
            self.driver.leadership))
        self._send(image, delta_requests(before, image, self._identity()))
        self.published = image

    def _record_offset(self, image: MetadataImage) -> None:
        epoch = self.controller.active_epoch
        self.driver.leadership = self.driver.leadership.with_kraft_metadata_offset_and_epoch(
            self.controller.metadata.last_offset, epoch if epoch is not None else -1)


# the parts of an image ZooKeeper holds (the others: features, cluster, delegation tokens are KRaft's)
_ZK_PARTS = ("topics", "configs", "client_quotas", "producer_ids", "acls", "scram")


