"""The dynamic broker configs and client quotas of KRaft metadata images reach the broker:
``KafkaConfig.set_dynamic`` with the default and own layers when they change, and the
user/client entity configs (ZooKeeper mode's names) when quotas change."""
from __future__ import annotations

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.protocol import messages as M
from kafpy.protocol.messages import Message

from kafpy.broker.kraft_dynamic_configs import DynamicConfigPublisher
from kafpy.broker.quotas.entity_configs import EntityConfigs

Entity = M.ClientQuotaRecord.EntityData


def image_of(records: list[Message], base: MetadataImage = EMPTY_IMAGE) -> MetadataImage:
    delta = MetadataDelta(base)
    delta.replay_all(records)
    return delta.apply(MetadataProvenance(0, 1, 0))


def quota(entity: list[tuple[str, str | None]], key: str, value: float, remove: bool = False) -> M.ClientQuotaRecord:
    return M.ClientQuotaRecord(entity=[Entity(entity_type=t, entity_name=n) for t, n in entity], key=key,
                               value=value, remove=remove)


def test_broker_configs_and_quotas_follow_the_images() -> None:
    layers: list[tuple[dict[str, str], dict[str, str]]] = []
    changes: list[tuple[str, str, dict[str, str]]] = []
    entity_configs = EntityConfigs()
    entity_configs.add_listener(lambda t, n, c: changes.append((t, n, c)))
    publisher = DynamicConfigPublisher(2, entity_configs, lambda d, o: layers.append((d, o)))
    first = image_of([
        M.ConfigRecord(resource_type=4, resource_name="", name="log.cleaner.threads", value="2"),
        M.ConfigRecord(resource_type=4, resource_name="2", name="num.replica.fetchers", value="3"),
        M.ConfigRecord(resource_type=4, resource_name="1", name="num.replica.fetchers", value="9"),
        quota([("user", "alice"), ("client-id", "c1")], "producer_byte_rate", 1024.0),
        quota([("client-id", None)], "consumer_byte_rate", 2048.5),
        quota([("ip", "10.0.0.1")], "connection_creation_rate", 5.0),
    ])
    publisher.publish(first)
    assert layers == [({"log.cleaner.threads": "2"}, {"num.replica.fetchers": "3"})]
    assert sorted(changes) == [("clients", "<default>", {"consumer_byte_rate": "2048.5"}),
                               ("users", "alice/clients/c1", {"producer_byte_rate": "1024"})]
    # another broker's config changes: nothing to do; a quota removed: its entity emptied
    second = image_of([M.ConfigRecord(resource_type=4, resource_name="1", name="num.replica.fetchers", value="8"),
                       quota([("client-id", None)], "consumer_byte_rate", 0, remove=True)], first)
    publisher.publish(second)
    assert len(layers) == 1
    assert changes[-1] == ("clients", "<default>", {})
    assert entity_configs.get("users", "alice/clients/c1") == {"producer_byte_rate": "1024"}


def test_scram_credentials_come_from_the_image() -> None:
    import asyncio

    from kafpy.broker.kraft_dynamic_configs import ImageUserConfigs
    users = ImageUserConfigs()
    publisher = DynamicConfigPublisher(2, EntityConfigs(), lambda d, o: None, users)
    assert users.credential("alice", "SCRAM-SHA-256") is None
    image = image_of([M.UserScramCredentialRecord(name="alice", mechanism=1, salt=b"s", stored_key=b"k",
                                                  server_key=b"v", iterations=4096)])
    publisher.publish(image)
    credential = users.credential("alice", "SCRAM-SHA-256")
    assert credential is not None and (credential.salt, credential.iterations) == (b"s", 4096)
    assert users.credential("alice", "SCRAM-SHA-512") is None and users.credential("alice", "PLAIN") is None
    assert asyncio.run(users.users()) == ["alice"]
    assert list(asyncio.run(users.scram_configs("alice"))) == ["SCRAM-SHA-256"]
    publisher.publish(image_of([M.RemoveUserScramCredentialRecord(name="alice", mechanism=1)], image))
    assert users.credential("alice", "SCRAM-SHA-256") is None
