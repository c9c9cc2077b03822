"""The KRaft controller's ZooKeeper side of a migration (Kafka 3.9's ``ZkMigrationClient`` with
its topic, config and ACL clients): read every piece of metadata ZooKeeper holds as batches of
KRaft records, read the registered brokers, keep the ``/migration`` znode, and claim the
ZooKeeper controller role (``/controller`` and ``/controller_epoch``) for a KRaft controller.

Who calls it: the migration driver on the active KRaft controller (``kafpy.broker``'s
migration runner), one call at a time. Reads and writes go through ``KafkaZkClient`` (kazoo's
async API: nothing blocks the event loop); record building is ``zk_migration_records``'.
Delegation tokens are not migrated (kafpy's ZooKeeper mode keeps none).
"""
from __future__ import annotations

import logging
import uuid
from collections.abc import Callable

from kazoo.exceptions import BadVersionError, NodeExistsError, NoNodeError, RolledBackError
from kazoo.protocol.states import ZnodeStat

from kafpy.metadata.migration.zk_migration_state import MIGRATION_PATH, ZkMigrationLeadershipState
from kafpy.protocol.message_base import Message
from kafpy.replication import zk_data as zd
from kafpy.replication import zk_migration_records as zr
from kafpy.replication.zk_client import KafkaZkClient
from kafpy.replication.zk_ops import CheckOp, ControllerMovedError, CreateOp, DeleteOp, Op, SetDataOp

log = logging.getLogger("kafka.zk.ZkMigrationClient")

Batch = list[Message]
# Kafka's AdminZkClient config entity types that hold client quotas, with their quota entity type
_QUOTA_TYPES = ((zd.ConfigType.USER, "user"), (zd.ConfigType.CLIENT, "client-id"))


class ZkMigrationClient:
    """Keeps the ZooKeeper client and the id source for migrated ACLs."""

    def __init__(self, zk: KafkaZkClient, new_uuid: Callable[[], bytes] = lambda: uuid.uuid4().bytes) -> None:
        self.zk = zk
        self.new_uuid = new_uuid

    # -- reading -------------------------------------------------------------------------
    async def read_broker_ids(self) -> set[int]:
        return {int(b) for b in await self.zk.get_children(zd.BROKER_IDS_PATH)}

    async def read_cluster_id(self) -> str | None:
        return await self.zk.get_cluster_id()

    async def pending_topic_deletions(self) -> set[str]:
        return set(await self.zk.get_children(zd.DELETE_TOPICS_PATH))

    async def read_all_metadata(self) -> tuple[list[Batch], set[int]]:
        """Kafka's ``readAllMetadata``: the batches in its order (topics, broker configs, client
        quotas and SCRAM credentials, the producer id block, ACLs) and every broker id the
        metadata names (replicas, broker configs)."""
        brokers: set[int] = set()
        batches = await self._topics(brokers)
        batches += await self._broker_configs(brokers)
        batches += await self._client_quotas()
        batches += await self._producer_id()
        batches += await self._acls()
        return batches, brokers

    async def _topics(self, brokers: set[int]) -> list[Batch]:
        deleting = await self.pending_topic_deletions()
        if deleting:
            log.warning("Found %d pending topic deletions. These will be not migrated to KRaft. After the "
                        "migration, the brokers will reconcile their logs with these pending topic deletions.",
                        len(deleting))
        names = sorted(await self.zk.get_all_topics() - deleting)
        assignments = await self.zk.get_topic_assignments(names)
        batches = []
        for name in names:
            assignment = assignments.get(name)
            if assignment is None:
                continue  # deleted meanwhile
            states = await self.zk.get_partition_states((name, p) for p in assignment.partitions)
            configs = await self.zk.get_entity_config(zd.ConfigType.TOPIC, name)
            batches.append(zr.topic_records(name, assignment, {p: states.get((name, p)) for p in assignment.partitions},
                                            configs))
            for a in assignment.partitions.values():
                brokers.update(a.replicas)
                brokers.update(a.adding_replicas)
        return batches

    async def _broker_configs(self, brokers: set[int]) -> list[Batch]:
        batches = []
        for entity in sorted(await self.zk.get_children(zd.config_entity_type_path(zd.ConfigType.BROKER))):
            if entity != zd.DEFAULT_BROKER_ENTITY:
                brokers.add(int(entity))
            records = zr.broker_config_records(entity, await self.zk.get_entity_config(zd.ConfigType.BROKER, entity))
            if records:
                batches.append(records)
        return batches

    async def _client_quotas(self) -> list[Batch]:
        """Kafka's ``iterateClientQuotas``: users (with their SCRAM credentials), clients,
        (user, client) pairs, then IPs."""
        batches: list[Batch] = []
        for config_type, entity_type in _QUOTA_TYPES:
            for name in sorted(await self.zk.get_children(zd.config_entity_type_path(config_type))):
                batches += zr.client_quota_records(entity_type, name, await self.zk.get_entity_config(config_type, name))
        for user in sorted(await self.zk.get_children(zd.config_entity_type_path(zd.ConfigType.USER))):
            clients_path = f"{zd.config_entity_path(zd.ConfigType.USER, user)}/clients"
            for client in sorted(await self.zk.get_children(clients_path)):
                data, _ = await self.zk.get_data(f"{clients_path}/{client}")
                records = zr.user_client_quota_records(user, client, zd.decode_entity_config(data))
                if records:
                    batches.append(records)
        for ip in sorted(await self.zk.get_children(zd.config_entity_type_path(zd.ConfigType.IP))):
            batches += zr.client_quota_records("ip", ip, await self.zk.get_entity_config(zd.ConfigType.IP, ip))
        return batches

    async def _producer_id(self) -> list[Batch]:
        data, _ = await self.zk.get_data(zd.PRODUCER_ID_BLOCK_PATH)
        block = zd.ProducerIdBlock.decode(data) if data else None
        return [] if block is None else [[zr.producer_ids_record(block)]]

    async def _acls(self) -> list[Batch]:
        batches: list[Batch] = []
        for prefixed, root in ((False, zd.ACL_PATH), (True, zd.EXTENDED_ACL_PATH)):
            for resource_type in sorted(await self.zk.get_children(root)):
                for name in sorted(await self.zk.get_children(f"{root}/{resource_type}")):
                    data, _ = await self.zk.get_data(zd.acl_resource_path(prefixed, resource_type, name))
                    records = zr.acl_records(prefixed, resource_type, name, zd.decode_acls(data), self.new_uuid)
                    if records:
                        batches.append(records)
        return batches

    # -- /migration ------------------------------------------------------------------------
    async def get_or_create_migration_recovery_state(
            self, initial: ZkMigrationLeadershipState, now_ms: int) -> ZkMigrationLeadershipState:
        """Kafka's ``getOrCreateMigrationState``: the ``/migration`` znode, created from
        ``initial`` when absent."""
        await self.zk.ensure_persistent_paths()
        data, stat = await self.zk.get_data(MIGRATION_PATH)
        if data is None or stat is None:
            try:
                await self.zk.multi([CreateOp(MIGRATION_PATH, initial.encode())])
                log.info("Created the %s znode: %s", MIGRATION_PATH, initial)
                return initial.with_migration_zk_version(0)
            except NodeExistsError:
                data, stat = await self.zk.get_data(MIGRATION_PATH)
        assert data is not None and stat is not None
        return ZkMigrationLeadershipState.decode(data, stat.version, stat.mtime)

    async def set_migration_recovery_state(self, state: ZkMigrationLeadershipState) -> ZkMigrationLeadershipState:
        """Write ``/migration`` at the version held (-1: unconditionally), fenced by the claimed
        ``/controller_epoch`` version when known; the state with the new version."""
        ops: list[Op] = [SetDataOp(MIGRATION_PATH, state.encode(), state.migration_zk_version)]
        results = await self._fenced(ops, state)
        stat = results[-1]
        assert isinstance(stat, ZnodeStat)
        return state.with_migration_zk_version(stat.version)

    async def _fenced(self, ops: list[Op], state: ZkMigrationLeadershipState) -> list[object]:
        """``ops`` in one multi with a check of ``/controller_epoch``'s claimed version."""
        check: list[Op] = []
        if state.zk_controller_epoch_zk_version >= 0:
            check = [CheckOp(zd.CONTROLLER_EPOCH_PATH, state.zk_controller_epoch_zk_version)]
        results = await self.zk.multi(check + ops)
        if check and isinstance(results[0], (BadVersionError, NoNodeError)):
            raise ControllerMovedError(f"Controller epoch zkVersion check fails. Expected zkVersion = "
                                       f"{state.zk_controller_epoch_zk_version}")
        for r in results:
            if isinstance(r, Exception) and not isinstance(r, RolledBackError):
                raise r
        return results[len(check):]

    # -- the ZooKeeper controller role ------------------------------------------------------
    async def claim_controller_leadership(self, state: ZkMigrationLeadershipState,
                                          now_ms: int) -> ZkMigrationLeadershipState:
        """Kafka's ``tryRegisterKRaftControllerAsActiveController``: bump ``/controller_epoch``
        and write a persistent ``/controller`` naming this KRaft controller with its KRaft
        epoch, replacing whatever ZooKeeper controller was there, in one multi. Returns the
        state with the ZooKeeper controller epoch, or with it unknown when another writer won."""
        epoch_data, epoch_stat = await self.zk.get_data(zd.CONTROLLER_EPOCH_PATH)
        if epoch_data is None or epoch_stat is None:
            raise RuntimeError(f"Cannot register KRaft controller {state.kraft_controller_id} as the active "
                               "controller since there is no ZK controller epoch present.")
        controller_data, controller_stat = await self.zk.get_data(zd.CONTROLLER_PATH)
        current = zd.ControllerRegistration.decode(controller_data) if controller_data else None
        if current is not None and current.kraft_controller_epoch >= state.kraft_controller_epoch:
            raise ControllerMovedError(
                f"Cannot register KRaft controller {state.kraft_controller_id} with epoch "
                f"{state.kraft_controller_epoch} as the current controller register in ZK has the same or newer "
                f"epoch {current.kraft_controller_epoch}.")
        new_epoch = zd.decode_controller_epoch(epoch_data) + 1
        registration = zd.ControllerRegistration(state.kraft_controller_id,
                                                 kraft_controller_epoch=state.kraft_controller_epoch)
        ops: list[Op] = [SetDataOp(zd.CONTROLLER_EPOCH_PATH, zd.encode_controller_epoch(new_epoch), epoch_stat.version)]
        if current is not None and controller_stat is not None:
            log.info("KRaft controller %d overwriting %s to become the active controller with ZK epoch %d. The "
                     "previous controller was %d.", state.kraft_controller_id, zd.CONTROLLER_PATH, new_epoch,
                     current.broker_id)
            ops.append(DeleteOp(zd.CONTROLLER_PATH, controller_stat.version))
        else:
            log.info("KRaft controller %d creating %s to become the active controller with ZK epoch %d. There was "
                     "no active controller.", state.kraft_controller_id, zd.CONTROLLER_PATH, new_epoch)
        ops.append(CreateOp(zd.CONTROLLER_PATH, registration.encode(now_ms)))
        results = await self.zk.multi(ops)
        failed = [r for r in results if isinstance(r, (BadVersionError, NoNodeError, NodeExistsError))]
        if failed:
            log.info("The ZK controller epoch or %s changed while trying to register KRaft controller %d with ZK "
                     "epoch %d (%s). KRaft controller was not registered.", zd.CONTROLLER_PATH,
                     state.kraft_controller_id, new_epoch, type(failed[0]).__name__)
            return state.with_unknown_zk_controller()
        for r in results:
            if isinstance(r, Exception):
                raise r
        stat = results[0]
        assert isinstance(stat, ZnodeStat)
        log.info("Successfully registered KRaft controller %d with ZK epoch %d", state.kraft_controller_id, new_epoch)
        return state.with_zk_controller(new_epoch, stat.version)

    async def release_controller_leadership(self, state: ZkMigrationLeadershipState) -> ZkMigrationLeadershipState:
        """Delete ``/controller`` (fenced); the state with the ZooKeeper controller unknown."""
        try:
            await self._fenced([DeleteOp(zd.CONTROLLER_PATH)], state)
        except (ControllerMovedError, NoNodeError):
            pass
        return state.with_unknown_zk_controller()

