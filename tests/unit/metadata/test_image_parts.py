"""Features, configs, client quotas, producer ids, ACLs, SCRAM and delegation tokens in the
metadata image, the records that change nothing, and sharing between image versions."""
from __future__ import annotations

import pytest

from kafpy.metadata.image.configs import ConfigResource, ConfigResourceType
from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.metadata.image.scram import ScramMechanism
from kafpy.protocol import messages as M
from kafpy.protocol.messages import Message

ACL_1 = b"\x01" * 16
ACL_2 = b"\x02" * 16


def image_of(records: list[Message], base: MetadataImage = EMPTY_IMAGE) -> MetadataImage:
    delta = MetadataDelta(base)
    delta.replay_all(records)
    return delta.apply(MetadataProvenance(base.provenance.last_contained_offset + len(records), 1, 0))


def test_features_metadata_version_apart_and_level_zero_removes():
    image = image_of([M.FeatureLevelRecord(name="metadata.version", feature_level=27),
                      M.FeatureLevelRecord(name="group.version", feature_level=1),
                      M.FeatureLevelRecord(name="transaction.version", feature_level=2)])
    assert image.features.metadata_version == 27
    assert dict(image.features.finalized_versions) == {"group.version": 1, "transaction.version": 2}
    image = image_of([M.FeatureLevelRecord(name="group.version", feature_level=0),
                      M.FeatureLevelRecord(name="metadata.version", feature_level=33)], image)
    assert image.finalized_features() == {"transaction.version": 2, "metadata.version": 33}
    with pytest.raises(MetadataReplayError, match="metadata.version"):
        image_of([M.FeatureLevelRecord(name="metadata.version", feature_level=0)], image)


def test_configs_null_removes_and_resource_types():
    image = image_of([
        M.ConfigRecord(resource_type=2, resource_name="t", name="retention.ms", value="10"),
        M.ConfigRecord(resource_type=2, resource_name="t", name="segment.ms", value="20"),
        M.ConfigRecord(resource_type=4, resource_name="", name="log.cleaner.threads", value="2"),
        M.ConfigRecord(resource_type=4, resource_name="1", name="log.cleaner.threads", value="3"),
        M.ConfigRecord(resource_type=16, resource_name="sub", name="metrics", value="org.apache"),
        M.ConfigRecord(resource_type=32, resource_name="g", name="consumer.session.timeout.ms", value="50000"),
    ])
    assert image.topic_config("t") == {"retention.ms": "10", "segment.ms": "20"}
    assert image.configs.broker_config(None) == {"log.cleaner.threads": "2"}
    assert image.configs.broker_config(1) == {"log.cleaner.threads": "3"}
    assert image.configs.config_map(ConfigResource(ConfigResourceType.CLIENT_METRICS, "sub")) == {"metrics": "org.apache"}
    assert image.configs.config_map(ConfigResource(ConfigResourceType.GROUP, "g"))["consumer.session.timeout.ms"] == "50000"
    image = image_of([M.ConfigRecord(resource_type=2, resource_name="t", name="retention.ms", value=None),
                      M.ConfigRecord(resource_type=2, resource_name="t", name="segment.ms", value=None),
                      M.ConfigRecord(resource_type=2, resource_name="u", name="never.set", value=None)], image)
    assert image.topic_config("t") == {}
    assert ConfigResource(ConfigResourceType.TOPIC, "t") not in image.configs.resource_data
    assert ConfigResource(ConfigResourceType.TOPIC, "u") not in image.configs.resource_data
    with pytest.raises(MetadataReplayError, match="resource type"):
        image_of([M.ConfigRecord(resource_type=3, resource_name="x", name="a", value="b")])


def test_client_quotas_set_remove_and_default_entities():
    E = M.ClientQuotaRecord.EntityData
    alice = [E(entity_type="user", entity_name="alice"), E(entity_type="client-id", entity_name=None)]
    image = image_of([M.ClientQuotaRecord(entity=alice, key="producer_byte_rate", value=1024.0),
                      M.ClientQuotaRecord(entity=list(reversed(alice)), key="consumer_byte_rate", value=2048.0)])
    entity = (("client-id", None), ("user", "alice"))
    assert dict(image.client_quotas.quotas(entity)) == {"producer_byte_rate": 1024.0, "consumer_byte_rate": 2048.0}
    image = image_of([M.ClientQuotaRecord(entity=alice, key="producer_byte_rate", remove=True),
                      M.ClientQuotaRecord(entity=alice, key="consumer_byte_rate", value=5.0, remove=True)], image)
    assert image.client_quotas.is_empty()


def test_producer_ids_move_forward():
    image = image_of([M.ProducerIdsRecord(broker_id=1, broker_epoch=5, next_producer_id=1000)])
    assert image.producer_ids.next_producer_id == 1000
    assert image_of([M.ProducerIdsRecord(broker_id=2, broker_epoch=6, next_producer_id=2000)],
                    image).producer_ids.next_producer_id == 2000


def test_acls_add_remove_and_removing_an_unknown_id_fails():
    acl = dict(resource_type=2, resource_name="t", pattern_type=3, principal="User:alice", host="*",
               operation=3, permission_type=3)
    image = image_of([M.AccessControlEntryRecord(id=ACL_1, **acl),
                      M.AccessControlEntryRecord(id=ACL_2, **acl)])
    assert set(image.acls.acls) == {ACL_1, ACL_2} and image.acls.acls[ACL_1].principal == "User:alice"
    image = image_of([M.RemoveAccessControlEntryRecord(id=ACL_1)], image)
    assert set(image.acls.acls) == {ACL_2}
    with pytest.raises(MetadataReplayError, match="Failed to find existing ACL"):
        image_of([M.RemoveAccessControlEntryRecord(id=ACL_1)], image)
    # added and removed within one delta: nothing left, and no error
    fresh = image_of([M.AccessControlEntryRecord(id=ACL_1, **acl),
                      M.RemoveAccessControlEntryRecord(id=ACL_1)], image)
    assert set(fresh.acls.acls) == {ACL_2}


def test_scram_per_mechanism():
    image = image_of([M.UserScramCredentialRecord(name="alice", mechanism=1, salt=b"s", stored_key=b"k",
                                                  server_key=b"v", iterations=4096),
                      M.UserScramCredentialRecord(name="alice", mechanism=2, salt=b"s2", stored_key=b"k2",
                                                  server_key=b"v2", iterations=8192)])
    c = image.scram.credential(ScramMechanism.SCRAM_SHA_512, "alice")
    assert c is not None and c.iterations == 8192 and c.salt == b"s2"
    image = image_of([M.RemoveUserScramCredentialRecord(name="alice", mechanism=1)], image)
    assert image.scram.credential(ScramMechanism.SCRAM_SHA_256, "alice") is None
    assert image.scram.credential(ScramMechanism.SCRAM_SHA_512, "alice") is not None
    with pytest.raises(MetadataReplayError, match="SCRAM mechanism"):
        image_of([M.RemoveUserScramCredentialRecord(name="alice", mechanism=3)], image)


def test_delegation_tokens():
    image = image_of([M.DelegationTokenRecord(owner="User:a", requester="User:b", renewers=["User:c"],
                                              issue_timestamp=1, max_timestamp=3, expiration_timestamp=2,
                                              token_id="tok")])
    token = image.delegation_tokens.tokens["tok"]
    assert (token.owner, token.renewers, token.expiration_timestamp) == ("User:a", ("User:c",), 2)
    renewed = image_of([M.DelegationTokenRecord(owner="User:a", requester="User:b", renewers=["User:c"],
                                                issue_timestamp=1, max_timestamp=3, expiration_timestamp=3,
                                                token_id="tok")], image)
    assert renewed.delegation_tokens.tokens["tok"].expiration_timestamp == 3
    assert image_of([M.RemoveDelegationTokenRecord(token_id="tok")], renewed).delegation_tokens.is_empty()


def test_records_that_change_nothing_share_every_part():
    base = image_of([M.FeatureLevelRecord(name="metadata.version", feature_level=27)])
    after = image_of([M.NoOpRecord(), M.ZkMigrationStateRecord(zk_migration_state=2),
                      M.BeginTransactionRecord(name="x"), M.EndTransactionRecord(),
                      M.AbortTransactionRecord(reason="y")], base)
    assert after.provenance.last_contained_offset == base.provenance.last_contained_offset + 5
    for part in ("features", "cluster", "topics", "configs", "client_quotas", "producer_ids",
                 "acls", "scram", "delegation_tokens"):
        assert getattr(after, part) is getattr(base, part), part


def test_a_delta_shares_what_it_does_not_change():
    base = image_of([M.TopicRecord(name="a", topic_id=b"\x0a" * 16), M.TopicRecord(name="b", topic_id=b"\x0b" * 16),
                     M.ConfigRecord(resource_type=2, resource_name="a", name="x", value="1")])
    after = image_of([M.PartitionRecord(partition_id=0, topic_id=b"\x0a" * 16, replicas=[1], isr=[1], leader=1)], base)
    assert after.topic("b") is base.topic("b")
    assert after.topic("a") is not base.topic("a")
    assert after.configs is base.configs


def test_a_record_that_is_not_a_metadata_record_is_refused():
    with pytest.raises(MetadataReplayError, match="Unknown metadata record type LeaderChangeMessage"):
        image_of([M.LeaderChangeMessage()])
    with pytest.raises(MetadataReplayError, match="Unknown metadata record type"):
        image_of([M.MetadataRequest()])
