"""Dual writes (Kafka 3.9's ``KRaftMigrationZkWriter``): while the KRaft controller is the
controller of a cluster being migrated, every metadata change committed to the log is written
back to ZooKeeper in Kafka's znode formats, so the cluster can still be rolled back and the
ZooKeeper brokers' own readers (topic configs through ``/config/changes``) keep working.

``write_delta(before, after, state)`` compares two images part by part (they share what did not
change) and writes: topics (``/brokers/topics/<t>`` with its id and assignment, the partition
state znodes with the KRaft leader, ISR and leader epoch, the claimed ZooKeeper controller epoch;
a deleted topic's znodes and config), configs (``/config/topics|brokers/<name>`` plus a change
notification), client quotas and SCRAM credentials (``/config/users|clients|ips``), ACLs
(``/kafka-acl[-extended/prefixed]/<Type>/<name>`` plus the change notification) and the
producer id block. Every write is fenced by the claimed ``/controller_epoch`` version; the
caller then records the offset written in ``/migration``.

Who calls it: the migration runner in DUAL_WRITE. Async ZooKeeper I/O through ``KafkaZkClient``.
"""
from __future__ import annotations

import base64
import logging
from collections.abc import Mapping
from urllib.parse import quote

from kazoo.exceptions import NodeExistsError, NoNodeError

from kafpy.metadata.image.acls import StandardAcl
from kafpy.metadata.image.client_quotas import ClientQuotaEntity
from kafpy.metadata.image.configs import ConfigResource, ConfigResourceType
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.image.partition import PartitionRegistration
from kafpy.metadata.image.scram import ScramMechanism
from kafpy.metadata.image.uuids import uuid_str
from kafpy.metadata.migration.zk_migration_state import ZkMigrationLeadershipState
from kafpy.replication import zk_data as zd
from kafpy.replication import zk_migration_records as zr
from kafpy.replication.leader_and_isr import LeaderAndIsr, LeaderRecoveryState
from kafpy.replication.zk_client import KafkaZkClient
from kafpy.replication.zk_ops import CreateOp, SetDataOp

log = logging.getLogger("org.apache.kafka.metadata.migration.KRaftMigrationZkWriter")

_CONFIG_TYPES = {ConfigResourceType.TOPIC: zd.ConfigType.TOPIC, ConfigResourceType.BROKER: zd.ConfigType.BROKER}
_QUOTA_TYPES = {"user": zd.ConfigType.USER, "client-id": zd.ConfigType.CLIENT, "ip": zd.ConfigType.IP}
_NAMES = {v: k for k, v in zr.RESOURCE_TYPES.items()}
_OPERATIONS = {v: k for k, v in zr.OPERATIONS.items()}
_PERMISSIONS = {v: k for k, v in zr.PERMISSIONS.items()}
_MECHANISMS = {ScramMechanism(v): k for k, v in zr.SCRAM_MECHANISMS.items()}


class KRaftMigrationZkWriter:
    """Keeps the ZooKeeper client; stateless otherwise (the images say what changed)."""

    def __init__(self, zk: KafkaZkClient) -> None:
        self.zk = zk

    async def write_delta(self, before: MetadataImage, after: MetadataImage,
                          state: ZkMigrationLeadershipState) -> dict[str, int]:
        """Write what changed; the count of writes by kind (Kafka's dual-write counters)."""
        version = state.zk_controller_epoch_zk_version
        counts: dict[str, int] = {}
        if before.topics is not after.topics:
            await self._topics(before, after, state, counts)
        if before.configs is not after.configs:
            await self._configs(before, after, version, counts)
        if before.client_quotas is not after.client_quotas or before.scram is not after.scram:
            await self._users(before, after, version, counts)
        if before.acls is not after.acls:
            await self._acls(before, after, version, counts)
        if before.producer_ids != after.producer_ids and after.producer_ids.next_producer_id > 0:
            block = zd.ProducerIdBlock(-1, after.producer_ids.next_producer_id)
            await self.zk.controller_op(SetDataOp(zd.PRODUCER_ID_BLOCK_PATH, block.encode()), version)
            counts["UpdateProducerId"] = 1
        return counts

    # -- topics --------------------------------------------------------------------------
    async def _topics(self, before: MetadataImage, after: MetadataImage, state: ZkMigrationLeadershipState,
                      counts: dict[str, int]) -> None:
        version, epoch = state.zk_controller_epoch_zk_version, state.zk_controller_epoch
        old_by_name, new_by_name = before.topics.topics_by_name, after.topics.topics_by_name
        for name, gone in old_by_name.items():
            if name not in new_by_name or new_by_name[name].id != gone.id:
                log.info("Deleting topic %s from ZooKeeper", name)
                await self.zk.delete_topic(name, version)
                counts["DeleteTopic"] = counts.get("DeleteTopic", 0) + 1
        for name, topic in new_by_name.items():
            old = old_by_name.get(name)
            if old is topic:
                continue
            fresh = old is None or old.id != topic.id
            assignment = zd.TopicAssignment(uuid_str(topic.id), {
                i: zd.ReplicaAssignment(p.replicas, p.adding_replicas, p.removing_replicas)
                for i, p in topic.partitions.items()})
            if fresh:
                await self._create_topic(name, assignment, topic.partitions, epoch, version)
                counts["CreateTopic"] = counts.get("CreateTopic", 0) + 1
                continue
            assert old is not None
            if any(old.partitions.get(i) is None or old.partitions[i].replicas != p.replicas
                   or old.partitions[i].adding_replicas != p.adding_replicas
                   or old.partitions[i].removing_replicas != p.removing_replicas for i, p in topic.partitions.items()):
                await self.zk.controller_op(SetDataOp(zd.topic_path(name), assignment.encode()), version)
            for i, p in topic.partitions.items():
                if old.partitions.get(i) == p:
                    continue
                data = zd.encode_partition_state(_leader_and_isr(p), epoch)
                if i in old.partitions:
                    await self.zk.controller_op(SetDataOp(zd.partition_state_path(name, i), data), version)
                else:
                    await self._create_partition(name, i, data, version)
                counts["UpdatePartition"] = counts.get("UpdatePartition", 0) + 1

    async def _create_topic(self, name: str, assignment: zd.TopicAssignment,
                            partitions: Mapping[int, PartitionRegistration], epoch: int, version: int) -> None:
        try:
            await self.zk.controller_op(CreateOp(zd.topic_path(name), assignment.encode()), version)
        except NodeExistsError:
            await self.zk.controller_op(SetDataOp(zd.topic_path(name), assignment.encode()), version)
        for i, p in partitions.items():
            await self._create_partition(name, i, zd.encode_partition_state(_leader_and_isr(p), epoch), version)

    async def _create_partition(self, topic: str, index: int, data: bytes, version: int) -> None:
        for path in (zd.topic_partitions_path(topic), zd.topic_partition_path(topic, index)):
            try:
                await self.zk.controller_op(CreateOp(path), version)
            except NodeExistsError:
                pass
        try:
            await self.zk.controller_op(CreateOp(zd.partition_state_path(topic, index), data), version)
        except NodeExistsError:
            await self.zk.controller_op(SetDataOp(zd.partition_state_path(topic, index), data), version)

    # -- configs, quotas, SCRAM ------------------------------------------------------------
    async def _set_entity(self, entity_type: str, name: str, config: Mapping[str, str], version: int) -> None:
        path = zd.config_entity_path(entity_type, name)
        data = zd.encode_entity_config(config)
        try:
            await self.zk.controller_op(SetDataOp(path, data), version)
        except NoNodeError:
            await self.zk.ensure_path(zd.config_entity_type_path(entity_type))
            await self.zk.controller_op(CreateOp(path, data), version)
        await self.zk.create_config_change_notification(f"{entity_type}/{name}")

    async def _configs(self, before: MetadataImage, after: MetadataImage, version: int,
                       counts: dict[str, int]) -> None:
        old, new = before.configs.resource_data, after.configs.resource_data
        for resource in set(old) | set(new):
            if old.get(resource) == new.get(resource) or resource.type not in _CONFIG_TYPES:
                continue
            if resource.type is ConfigResourceType.TOPIC and resource.name not in after.topics.topics_by_name:
                continue  # a deleted topic's config went with it
            await self._set_entity(_CONFIG_TYPES[resource.type], _config_name(resource),
                                   dict(new.get(resource, {})), version)
            counts["UpdateConfig"] = counts.get("UpdateConfig", 0) + 1

    async def _users(self, before: MetadataImage, after: MetadataImage, version: int,
                     counts: dict[str, int]) -> None:
        """Quotas and SCRAM credentials share the ``/config/users|clients|ips`` znodes."""
        old, new = _user_znodes(before), _user_znodes(after)
        for key in set(old) | set(new):
            if old.get(key) != new.get(key):
                await self._set_entity(key[0], key[1], new.get(key, {}), version)
                counts["UpdateClientQuotaOrScram"] = counts.get("UpdateClientQuotaOrScram", 0) + 1

    # -- ACLs --------------------------------------------------------------------------------
    async def _acls(self, before: MetadataImage, after: MetadataImage, version: int,
                    counts: dict[str, int]) -> None:
        old, new = _acl_znodes(before), _acl_znodes(after)
        for (prefixed, rtype, name) in set(old) | set(new):
            entries = new.get((prefixed, rtype, name), [])
            if old.get((prefixed, rtype, name), []) == entries:
                continue
            path = zd.acl_resource_path(prefixed, rtype, name)
            if entries:
                data = zd.encode_acls(entries)
                try:
                    await self.zk.controller_op(SetDataOp(path, data), version)
                except NoNodeError:
                    await self.zk.ensure_path(path.rsplit("/", 1)[0])
                    await self.zk.controller_op(CreateOp(path, data), version)
            else:
                await self.zk.delete_recursive(path, version)
            if prefixed:
                note = zd.encode_extended_acl_change(rtype, name, "PREFIXED")
                changes = zd.EXTENDED_ACL_CHANGES_PATH
            else:
                note, changes = zd.encode_literal_acl_change(rtype, name), zd.ACL_CHANGES_PATH
            await self.zk.ensure_path(changes)
            await self.zk.multi([CreateOp(f"{changes}/{zd.ACL_CHANGE_PREFIX}", note, sequential=True)])
            counts["UpdateAcl"] = counts.get("UpdateAcl", 0) + 1


def _config_name(resource: ConfigResource) -> str:
    if resource.type is ConfigResourceType.BROKER and resource.name == "":
        return zd.DEFAULT_BROKER_ENTITY
    return resource.name


def _leader_and_isr(p: PartitionRegistration) -> LeaderAndIsr:
    return LeaderAndIsr(p.leader, p.leader_epoch, tuple(p.isr), LeaderRecoveryState(int(p.leader_recovery_state)),
                        p.partition_epoch)


def _znode_name(name: str | None) -> str:
    return zr.DEFAULT_ENTITY if name is None else quote(name, safe="")


def _user_znodes(image: MetadataImage) -> dict[tuple[str, str], dict[str, str]]:
    """(config type, znode name) -> the znode's config: quotas of single-type entities and the
    users' SCRAM credentials (user/client pairs live in nested znodes kafpy does not write)."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    entity: ClientQuotaEntity
    for entity, quotas in image.client_quotas.entities.items():
        if len(entity) == 1 and entity[0][0] in _QUOTA_TYPES:
            key = (_QUOTA_TYPES[entity[0][0]], _znode_name(entity[0][1]))
            out.setdefault(key, {}).update({k: repr(float(v)) for k, v in quotas.items()})
    for mechanism, users in image.scram.mechanisms.items():
        for user, c in users.items():
            text = (f"salt={base64.b64encode(c.salt).decode()},stored_key={base64.b64encode(c.stored_key).decode()},"
                    f"server_key={base64.b64encode(c.server_key).decode()},iterations={c.iterations}")
            out.setdefault((zd.ConfigType.USER, _znode_name(user)), {})[_MECHANISMS[mechanism]] = text
    return out


def _acl_znodes(image: MetadataImage) -> dict[tuple[bool, str, str], list[dict[str, str]]]:
    out: dict[tuple[bool, str, str], list[dict[str, str]]] = {}
    acl: StandardAcl
    for acl in image.acls.acls.values():
        key = (acl.pattern_type == zr.PREFIXED_PATTERN, _NAMES[acl.resource_type], acl.resource_name)
        out.setdefault(key, []).append({"principal": acl.principal, "permissionType": _PERMISSIONS[acl.permission_type],
                                        "operation": _OPERATIONS[acl.operation], "host": acl.host})
    for entries in out.values():
        entries.sort(key=lambda e: tuple(e.values()))
    return out
