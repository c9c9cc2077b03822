"""ConfigurationControlManager, ProducerIdControlManager, AclControlManager,
ScramControlManager and ClientQuotaControlManager."""
from __future__ import annotations

import uuid

import pytest

from kafpy.broker.security import scram as broker_scram
from kafpy.metadata.controller.acl_control_manager import AclControlManager
from kafpy.metadata.controller.client_quota_control_manager import ClientQuotaControlManager
from kafpy.metadata.controller.controller_result import ControllerError
from kafpy.metadata.controller.producer_id_control_manager import ProducerIdControlManager
from kafpy.metadata.controller.scram_control_manager import ScramControlManager
from kafpy.metadata.image.configs import ConfigResource, ConfigResourceType
from kafpy.metadata.image.scram import ScramMechanism
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AccessControlEntryRecord,
    AllocateProducerIdsRequest,
    AlterClientQuotasRequest,
    AlterConfigsRequest,
    AlterUserScramCredentialsRequest,
    ClientQuotaRecord,
    ConfigRecord,
    CreateAclsRequest,
    DeleteAclsRequest,
    IncrementalAlterConfigsRequest,
    ProducerIdsRecord,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from tests.unit.metadata.controller.helpers import controller

IA = IncrementalAlterConfigsRequest
TOPIC, BROKER = int(ConfigResourceType.TOPIC), int(ConfigResourceType.BROKER)


def _ia(rtype: int, name: str, *ops: tuple[str, int, str | None]) -> IncrementalAlterConfigsRequest:
    return IA(resources=[IA.AlterConfigsResource(resource_type=rtype, resource_name=name, configs=[
        IA.AlterableConfig(name=k, config_operation=op, value=v) for k, op, v in ops])])


def test_incremental_alter_configs_set_delete_append_subtract():
    c = controller()
    c.add_broker(1)
    c.create_topic("t", configs={"cleanup.policy": "delete"})
    result = c.configs.incremental_alter_configs(_ia(TOPIC, "t", ("retention.ms", 0, "100"),
                                                     ("cleanup.policy", 2, "compact")))
    assert result.records == [
        ConfigRecord(resource_type=TOPIC, resource_name="t", name="retention.ms", value="100"),
        ConfigRecord(resource_type=TOPIC, resource_name="t", name="cleanup.policy", value="delete,compact")]
    c.commit(result)
    same = c.configs.incremental_alter_configs(_ia(TOPIC, "t", ("retention.ms", 0, "100")))
    assert same.records == []  # nothing changes: no record
    c.commit(c.configs.incremental_alter_configs(_ia(TOPIC, "t", ("retention.ms", 1, None),
                                                     ("cleanup.policy", 3, "delete"))))
    assert dict(c.configs.current(ConfigResource(ConfigResourceType.TOPIC, "t"))) == {"cleanup.policy": "compact"}


def test_config_errors_by_resource_type():
    c = controller()
    errors = {
        "unknown topic": _ia(TOPIC, "nope", ("retention.ms", 0, "1")),
        "bad broker": _ia(BROKER, "x", ("log.cleaner.threads", 0, "2")),
        "append to non-list": _ia(TOPIC, "nope", ("retention.ms", 2, "1")),
        "group key": _ia(int(ConfigResourceType.GROUP), "g", ("nope", 0, "1")),
    }
    got = {k: c.configs.incremental_alter_configs(r).response for k, r in errors.items()}
    assert [(e.error, e.message) for r in got.values() for e in r.values()] == [
        (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The topic 'nope' does not exist."),
        (ErrorCode.INVALID_REQUEST, "Illegal non-integral BROKER resource type name x"),
        (ErrorCode.INVALID_REQUEST, "Can't APPEND to key retention.ms because its type is not LIST."),
        (ErrorCode.INVALID_CONFIG, "Unknown group config name: nope")]
    ok = c.configs.incremental_alter_configs(_ia(BROKER, "", ("log.cleaner.threads", 0, "2")))
    assert list(ok.response.values())[0].is_success() and len(ok.records) == 1
    assert c.configs.incremental_alter_configs(IA(
        resources=[IA.AlterConfigsResource(resource_type=BROKER, resource_name="1", configs=[
            IA.AlterableConfig(name="x", config_operation=0, value="1")])], validate_only=True)).records == []


def test_legacy_alter_configs_replaces_the_whole_set():
    c = controller()
    c.add_broker(1)
    c.create_topic("t", configs={"retention.ms": "5", "segment.ms": "600000"})
    A = AlterConfigsRequest
    result = c.configs.legacy_alter_configs(A(resources=[A.AlterConfigsResource(
        resource_type=TOPIC, resource_name="t", configs=[A.AlterableConfig(name="retention.ms", value="6")])]))
    assert sorted((r.name, r.value) for r in result.records if isinstance(r, ConfigRecord)) == [
        ("retention.ms", "6"), ("segment.ms", None)]


def test_unclean_leader_election_config_lookup():
    c = controller()
    c.add_broker(1)
    c.create_topic("t")
    assert not c.configs.unclean_leader_election_enabled_for_topic("t")
    c.commit(c.configs.incremental_alter_configs(_ia(BROKER, "", ("unclean.leader.election.enable", 0, "true"))))
    assert c.configs.unclean_leader_election_enabled_for_topic("t")
    c.commit(c.configs.incremental_alter_configs(_ia(TOPIC, "t", ("unclean.leader.election.enable", 0, "false"))))
    assert not c.configs.unclean_leader_election_enabled_for_topic("t")


def test_producer_id_blocks_of_1000():
    c = controller()
    c.add_broker(1)
    reg = c.cluster.registration(1)
    assert reg is not None
    m = ProducerIdControlManager(c.metadata, c.cluster)
    first = m.generate_next_producer_id(AllocateProducerIdsRequest(broker_id=1, broker_epoch=reg.epoch))
    assert first.records == [ProducerIdsRecord(broker_id=1, broker_epoch=reg.epoch, next_producer_id=1000)]
    assert (first.response.producer_id_start, first.response.producer_id_len) == (0, 1000)
    c.commit(first)
    second = m.generate_next_producer_id(AllocateProducerIdsRequest(broker_id=1, broker_epoch=reg.epoch))
    assert second.response.producer_id_start == 1000
    with pytest.raises(ControllerError) as e:
        m.generate_next_producer_id(AllocateProducerIdsRequest(broker_id=1, broker_epoch=reg.epoch + 9))
    assert e.value.error == ErrorCode.STALE_BROKER_EPOCH


def test_create_and_delete_acls():
    c = controller()
    ids = iter(range(100, 1000))
    m = AclControlManager(c.metadata, lambda: uuid.UUID(int=next(ids)).bytes)
    C = CreateAclsRequest.AclCreation
    read = C(resource_type=2, resource_name="alpha", resource_pattern_type=3, principal="User:alice",
             host="*", operation=3, permission_type=3)
    prefixed = C(resource_type=2, resource_name="be", resource_pattern_type=4, principal="User:bob",
                 host="*", operation=4, permission_type=2)
    bad = [C(resource_type=2, resource_name="x", resource_pattern_type=2, principal="User:a", host="*",
             operation=3, permission_type=3),
           C(resource_type=2, resource_name="x", resource_pattern_type=3, principal="User:a", host="*",
             operation=1, permission_type=3),
           C(resource_type=2, resource_name="", resource_pattern_type=3, principal="User:a", host="*",
             operation=3, permission_type=3),
           C(resource_type=2, resource_name="x", resource_pattern_type=3, principal="alice", host="*",
             operation=3, permission_type=3)]
    result = m.create_acls(CreateAclsRequest(creations=[read, prefixed, read, *bad]))
    assert [r.error_message for r in result.response.results] == [
        None, None, None, "Invalid patternType MATCH", "Invalid operation ANY",
        "Resource name should not be empty",
        "Could not parse principal from `alice` (no colon is found)."]
    assert [type(r) for r in result.records] == [AccessControlEntryRecord] * 2  # the duplicate is one
    c.commit(result)
    assert m.create_acls(CreateAclsRequest(creations=[read])).records == []
    F = DeleteAclsRequest.DeleteAclsFilter
    match_beta = F(resource_type_filter=2, resource_name_filter="beta", pattern_type_filter=2,
                   principal_filter=None, host_filter=None, operation=1, permission_type=1)
    deleted = m.delete_acls(DeleteAclsRequest(filters=[match_beta, F(
        resource_type_filter=0, resource_name_filter=None, pattern_type_filter=1, principal_filter=None,
        host_filter=None, operation=1, permission_type=1)]))
    (removed,) = deleted.records
    assert isinstance(removed, RemoveAccessControlEntryRecord)
    assert [a.resource_name for a in deleted.response.filter_results[0].matching_acls] == ["be"]
    assert deleted.response.filter_results[1].error_message == "Unknown patternFilter."
    c.commit(deleted)
    assert [a.resource_name for a in c.metadata.image.acls.acls.values()] == ["alpha"]


def test_scram_credentials():
    c = controller()
    m = ScramControlManager(c.metadata)
    U = AlterUserScramCredentialsRequest.ScramCredentialUpsertion
    D = AlterUserScramCredentialsRequest.ScramCredentialDeletion
    salted = broker_scram.salted_password("SCRAM-SHA-256", "secret", b"salt", 4096)
    result = m.alter_credentials(AlterUserScramCredentialsRequest(upsertions=[
        U(name="alice", mechanism=1, iterations=4096, salt=b"salt", salted_password=salted),
        U(name="bob", mechanism=1, iterations=100, salt=b"s", salted_password=b"p"),
        U(name="carol", mechanism=9, iterations=4096, salt=b"s", salted_password=b"p")],
        deletions=[D(name="dave", mechanism=2)]))
    assert [(r.user, r.error_message) for r in result.response.results] == [
        ("dave", "Attempt to delete a user credential that does not exist"), ("alice", None),
        ("bob", "Too few iterations"), ("carol", "Unknown SCRAM mechanism")]
    (record,) = result.records
    assert isinstance(record, UserScramCredentialRecord)
    expected = broker_scram.credential_from_salted_password("SCRAM-SHA-256", salted, b"salt", 4096)
    assert (record.stored_key, record.server_key) == (expected.stored_key, expected.server_key)
    c.commit(result)
    assert c.metadata.image.scram.credential(ScramMechanism.SCRAM_SHA_256, "alice") is not None
    twice = m.alter_credentials(AlterUserScramCredentialsRequest(
        upsertions=[U(name="alice", mechanism=1, iterations=4096, salt=b"s", salted_password=b"p")],
        deletions=[D(name="alice", mechanism=1)]))
    assert twice.records == [] and twice.response.results[0].error_code == int(ErrorCode.DUPLICATE_RESOURCE)
    gone = m.alter_credentials(AlterUserScramCredentialsRequest(deletions=[D(name="alice", mechanism=1)]))
    assert gone.records == [RemoveUserScramCredentialRecord(name="alice", mechanism=1)]


def test_client_quotas():
    c = controller()
    m = ClientQuotaControlManager(c.metadata)
    Q = AlterClientQuotasRequest
    E, O = Q.EntityData, Q.OpData
    result = m.alter_client_quotas(Q(entries=[
        Q.EntryData(entity=[E(entity_type="user", entity_name="alice")],
                    ops=[O(key="producer_byte_rate", value=1024.0), O(key="consumer_byte_rate", remove=True)]),
        Q.EntryData(entity=[E(entity_type="user", entity_name=None), E(entity_type="client-id", entity_name="app")],
                    ops=[O(key="request_percentage", value=12.5)]),
        Q.EntryData(entity=[E(entity_type="ip", entity_name="10.0.0.1"), E(entity_type="user", entity_name="x")],
                    ops=[O(key="connection_creation_rate", value=5.0)]),
        Q.EntryData(entity=[E(entity_type="user", entity_name="bob")], ops=[O(key="nope", value=1.0)]),
        Q.EntryData(entity=[E(entity_type="user", entity_name="bob")], ops=[O(key="producer_byte_rate", value=1.5)]),
    ]))
    assert [e.error_message for e in result.response.entries] == [
        None, None,
        "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId",
        "Invalid configuration key nope", "producer_byte_rate cannot be a fractional value."]
    assert [(r.key, r.value, r.remove) for r in result.records if isinstance(r, ClientQuotaRecord)] == [
        ("producer_byte_rate", 1024.0, False), ("request_percentage", 12.5, False)]
    c.commit(result)
    assert dict(c.metadata.image.client_quotas.quotas((("user", "alice"),))) == {"producer_byte_rate": 1024.0}
    removed = m.alter_client_quotas(Q(entries=[Q.EntryData(entity=[E(entity_type="user", entity_name="alice")],
                                                            ops=[O(key="producer_byte_rate", remove=True)])]))
    assert [(r.key, r.remove) for r in removed.records if isinstance(r, ClientQuotaRecord)] == [
        ("producer_byte_rate", True)]
