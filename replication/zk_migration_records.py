"""ZooKeeper's metadata as KRaft metadata records: what Kafka 3.9's ``ZkMigrationClient``
(``migrateTopics``, ``migrateBrokerConfigs``, ``migrateClientQuotas``, ``migrateProducerId``,
``migrateAcls``) builds from each znode it reads.

Pure functions over the decoded znodes (``kafpy.replication.zk_data``); the reading is
``kafpy.replication.zk_migration_client``'s. Names in ZooKeeper are as Kafka writes them:
quota and SCRAM entities sanitized (URL-encoded), ``<default>`` for a default entity, ACL
resource types, operations and permissions in their camel-case names.
"""
from __future__ import annotations

import base64
import logging
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import unquote

from kafpy.protocol.messages import (
    AccessControlEntryRecord, ClientQuotaRecord, ConfigRecord, PartitionRecord, ProducerIdsRecord, TopicRecord,
    UserScramCredentialRecord,
)
from kafpy.protocol.message_base import Message
from kafpy.replication import zk_data as zd
from kafpy.replication.leader_and_isr import LeaderRecoveryState

log = logging.getLogger("kafka.zk.ZkMigrationClient")

TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4  # ConfigResource.Type ids
LITERAL_PATTERN, PREFIXED_PATTERN = 3, 4  # PatternType codes
# Kafka's ResourceType / AclOperation / AclPermissionType codes by the names ZooKeeper holds
RESOURCE_TYPES = {"Topic": 2, "Group": 3, "Cluster": 4, "TransactionalId": 5, "DelegationToken": 6, "User": 7}
OPERATIONS = {"All": 2, "Read": 3, "Write": 4, "Create": 5, "Delete": 6, "Alter": 7, "Describe": 8,
              "ClusterAction": 9, "DescribeConfigs": 10, "AlterConfigs": 11, "IdempotentWrite": 12,
              "CreateTokens": 13, "DescribeTokens": 14, "TwoPhaseCommit": 15}
PERMISSIONS = {"Deny": 2, "Allow": 3}
SCRAM_MECHANISMS = {"SCRAM-SHA-256": 1, "SCRAM-SHA-512": 2}  # ScramMechanism.type()
DEFAULT_ENTITY = "<default>"


class MigrationRecordError(ValueError):
    """A znode whose content Kafka's migration would refuse (its message names it)."""


def topic_records(name: str, assignment: zd.TopicAssignment,
                  states: Mapping[int, zd.LeaderIsrAndControllerEpoch | None],
                  configs: Mapping[str, str]) -> list[Message]:
    """One topic's batch: TopicRecord, its ConfigRecords, then a PartitionRecord per partition
    with ZooKeeper's leader, ISR, leader epoch and partition epoch (the state znode's version).
    A partition without a state znode starts as Kafka starts it: ISR = replicas, the first
    replica leading, epochs 0."""
    if assignment.topic_id is None:
        raise MigrationRecordError(f"Topic {name} has no topic id in ZooKeeper; Kafka 2.8+ brokers assign one "
                                   "at startup, the migration needs it")
    topic_id = zd.topic_id_from_str(assignment.topic_id)
    records: list[Message] = [TopicRecord(name=name, topic_id=topic_id)]
    records += [ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name=name, name=k, value=v)
                for k, v in configs.items()]
    for partition in sorted(assignment.partitions):
        a = assignment.partitions[partition]
        record = PartitionRecord(topic_id=topic_id, partition_id=partition, replicas=list(a.replicas),
                                 adding_replicas=list(a.adding_replicas), removing_replicas=list(a.removing_replicas))
        state = states.get(partition)
        if state is None:
            log.warning("Could not find partition state in ZK for %s-%d. Initializing this partition with "
                        "ISR={%s} and leaderEpoch=0.", name, partition, list(a.replicas))
            record.isr, record.leader = list(a.replicas), a.replicas[0]
            record.leader_epoch, record.partition_epoch = 0, 0
            record.leader_recovery_state = int(LeaderRecoveryState.RECOVERED)
        else:
            lai = state.leader_and_isr
            record.isr, record.leader = list(lai.isr), lai.leader
            record.leader_epoch, record.partition_epoch = lai.leader_epoch, lai.partition_epoch
            record.leader_recovery_state = int(lai.leader_recovery_state)
        records.append(record)
    return records


def broker_config_records(entity: str, configs: Mapping[str, str]) -> list[Message]:
    """``/config/brokers/<id>`` or ``<default>`` (resource name "")."""
    name = "" if entity == zd.DEFAULT_BROKER_ENTITY else entity
    return [ConfigRecord(resource_type=BROKER_RESOURCE, resource_name=name, name=k, value=v)
            for k, v in configs.items()]


def _entity_name(znode_name: str) -> str | None:
    return None if znode_name == DEFAULT_ENTITY else unquote(znode_name)


def scram_credential_record(user: str, mechanism: str, text: str) -> UserScramCredentialRecord:
    """``salt=...,stored_key=...,server_key=...,iterations=N`` (ScramCredentialUtils) as a record."""
    fields = dict(part.split("=", 1) for part in text.split(",") if "=" in part)
    try:
        return UserScramCredentialRecord(
            name=user, mechanism=SCRAM_MECHANISMS[mechanism], salt=base64.b64decode(fields["salt"]),
            stored_key=base64.b64decode(fields["stored_key"]), server_key=base64.b64decode(fields["server_key"]),
            iterations=int(fields["iterations"]))
    except (KeyError, ValueError) as e:
        raise MigrationRecordError(f"Invalid SCRAM credential of user {user} ({mechanism}): {e}") from e


def _quota_values(entity: str, props: Mapping[str, str]) -> dict[str, float]:
    try:
        return {k: float(v) for k, v in props.items()}
    except ValueError as e:
        raise MigrationRecordError(f"Unexpected client quota configuration value of {entity}: {e}") from e


def client_quota_records(entity_type: str, znode_name: str, props: Mapping[str, str]) -> list[list[Message]]:
    """One ``/config/users|clients|ips/<name>`` znode: a batch per SCRAM credential (users
    only), then one batch of its quotas (``entity_type`` is ``user``, ``client-id`` or ``ip``)."""
    batches: list[list[Message]] = []
    rest = dict(props)
    if entity_type == "user":
        for mechanism in SCRAM_MECHANISMS:
            if mechanism in rest:
                batches.append([scram_credential_record(unquote(znode_name), mechanism, rest.pop(mechanism))])
    quotas = _quota_values(f"{entity_type} {znode_name}", rest)
    entity = [ClientQuotaRecord.EntityData(entity_type=entity_type, entity_name=_entity_name(znode_name))]
    if quotas:
        batches.append([ClientQuotaRecord(entity=entity, key=k, value=v) for k, v in quotas.items()])
    return batches


def user_client_quota_records(user: str, client: str, props: Mapping[str, str]) -> list[Message]:
    """``/config/users/<user>/clients/<client>``: the (user, client-id) entity's quotas."""
    entity = [ClientQuotaRecord.EntityData(entity_type="user", entity_name=_entity_name(user)),
              ClientQuotaRecord.EntityData(entity_type="client-id", entity_name=_entity_name(client))]
    return [ClientQuotaRecord(entity=entity, key=k, value=v)
            for k, v in _quota_values(f"user {user} client {client}", props).items()]


def producer_ids_record(block: zd.ProducerIdBlock) -> ProducerIdsRecord:
    """The next block the KRaft controller hands out starts after ZooKeeper's latest."""
    return ProducerIdsRecord(broker_id=block.broker_id, broker_epoch=-1, next_producer_id=block.last_id + 1)


def acl_records(prefixed: bool, resource_type: str, name: str, entries: Iterable[Mapping[str, str]],
                new_uuid: Callable[[], bytes]) -> list[Message]:
    """The ACLs of one ``/kafka-acl[-extended/prefixed]/<Type>/<name>`` znode, a new id each."""
    try:
        rtype = RESOURCE_TYPES[resource_type]
        return [AccessControlEntryRecord(
            id=new_uuid(), resource_type=rtype, resource_name=name,
            pattern_type=PREFIXED_PATTERN if prefixed else LITERAL_PATTERN, principal=e["principal"],
            host=e["host"], operation=OPERATIONS[e["operation"]], permission_type=PERMISSIONS[e["permissionType"]])
            for e in entries]
    except KeyError as e:
        raise MigrationRecordError(f"Unknown ACL name {e} under {resource_type}/{name}") from e
