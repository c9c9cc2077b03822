"""ZooKeeper's znodes as the KRaft records Kafka 3.9's ZkMigrationClient writes for them."""
from __future__ import annotations

import base64

import pytest

from kafpy.protocol.messages import (
    AccessControlEntryRecord, ClientQuotaRecord, ConfigRecord, PartitionRecord, ProducerIdsRecord, TopicRecord,
    UserScramCredentialRecord,
)
from kafpy.replication import zk_data as zd
from kafpy.replication import zk_migration_records as zr
from kafpy.replication.leader_and_isr import LeaderAndIsr, LeaderRecoveryState

TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAQ"


def test_a_topic_keeps_zookeepers_leaders_isr_and_epochs() -> None:
    assignment = zd.TopicAssignment(TOPIC_ID, {0: zd.ReplicaAssignment((1, 2, 3)),
                                               1: zd.ReplicaAssignment((2, 3, 4), (4,), (1,))})
    state = zd.LeaderIsrAndControllerEpoch(LeaderAndIsr(2, 7, (2, 3), LeaderRecoveryState.RECOVERING, 11), 4)
    records = zr.topic_records("t", assignment, {0: state, 1: None}, {"retention.ms": "1000"})
    topic, config, p0, p1 = records
    assert isinstance(topic, TopicRecord) and topic.name == "t" and topic.topic_id == zd.topic_id_from_str(TOPIC_ID)
    assert isinstance(config, ConfigRecord) and (config.resource_type, config.resource_name, config.name,
                                                 config.value) == (2, "t", "retention.ms", "1000")
    assert isinstance(p0, PartitionRecord)
    assert (p0.replicas, p0.isr, p0.leader, p0.leader_epoch, p0.partition_epoch, p0.leader_recovery_state) == (
        [1, 2, 3], [2, 3], 2, 7, 11, 1)
    # no state znode: Kafka starts it with ISR = replicas and the first replica leading
    assert isinstance(p1, PartitionRecord)
    assert (p1.isr, p1.leader, p1.leader_epoch, p1.partition_epoch, p1.adding_replicas, p1.removing_replicas) == (
        [2, 3, 4], 2, 0, 0, [4], [1])


def test_a_topic_without_an_id_cannot_be_migrated() -> None:
    with pytest.raises(zr.MigrationRecordError, match="no topic id"):
        zr.topic_records("old", zd.TopicAssignment(None, {0: zd.ReplicaAssignment((1,))}), {}, {})


def test_broker_configs_default_entity_is_the_empty_name() -> None:
    (default,) = zr.broker_config_records("<default>", {"log.retention.ms": "5"})
    (one,) = zr.broker_config_records("1", {"log.retention.ms": "6"})
    assert isinstance(default, ConfigRecord) and default.resource_name == "" and default.resource_type == 4
    assert isinstance(one, ConfigRecord) and one.resource_name == "1"


def test_users_give_scram_credentials_then_quotas() -> None:
    salt, stored, server = b"s" * 16, b"k" * 32, b"v" * 32
    text = (f"salt={base64.b64encode(salt).decode()},stored_key={base64.b64encode(stored).decode()},"
            f"server_key={base64.b64encode(server).decode()},iterations=4096")
    scram, quotas = zr.client_quota_records("user", "al%40ice", {"SCRAM-SHA-256": text, "producer_byte_rate": "1024"})
    (cred,) = scram
    assert isinstance(cred, UserScramCredentialRecord)
    assert (cred.name, cred.mechanism, cred.salt, cred.stored_key, cred.server_key, cred.iterations) == (
        "al@ice", 1, salt, stored, server, 4096)
    (quota,) = quotas
    assert isinstance(quota, ClientQuotaRecord) and (quota.key, quota.value) == ("producer_byte_rate", 1024.0)
    assert [(e.entity_type, e.entity_name) for e in quota.entity] == [("user", "al@ice")]
    (default,) = zr.client_quota_records("client-id", "<default>", {"consumer_byte_rate": "2"})[0]
    assert isinstance(default, ClientQuotaRecord) and default.entity[0].entity_name is None
    pair = zr.user_client_quota_records("bob", "app", {"request_percentage": "50"})
    assert isinstance(pair[0], ClientQuotaRecord)
    assert [(e.entity_type, e.entity_name) for e in pair[0].entity] == [("user", "bob"), ("client-id", "app")]
    with pytest.raises(zr.MigrationRecordError):
        zr.client_quota_records("ip", "1.2.3.4", {"connection_creation_rate": "fast"})


def test_producer_ids_continue_after_zookeepers_block() -> None:
    record = zr.producer_ids_record(zd.ProducerIdBlock(2, 3000))
    assert isinstance(record, ProducerIdsRecord)
    assert (record.broker_id, record.broker_epoch, record.next_producer_id) == (2, -1, 4000)


def test_acls_get_kafkas_codes_and_a_new_id_each() -> None:
    ids = iter([b"\x01" * 16, b"\x02" * 16])
    entries = [{"principal": "User:alice", "permissionType": "Allow", "operation": "Read", "host": "*"},
               {"principal": "User:bob", "permissionType": "Deny", "operation": "IdempotentWrite", "host": "h"}]
    a, b = zr.acl_records(True, "TransactionalId", "tx-", entries, lambda: next(ids))
    assert isinstance(a, AccessControlEntryRecord) and isinstance(b, AccessControlEntryRecord)
    assert (a.id, a.resource_type, a.resource_name, a.pattern_type, a.principal, a.host, a.operation,
            a.permission_type) == (b"\x01" * 16, 5, "tx-", 4, "User:alice", "*", 3, 3)
    assert (b.operation, b.permission_type, b.host) == (12, 2, "h")
    with pytest.raises(zr.MigrationRecordError):
        zr.acl_records(False, "Pony", "x", entries, lambda: b"\x00" * 16)
