"""BrokerMetadataPublisher: each image reaches the metadata cache (unfenced brokers at the
inter-broker listener, topics with their dynamic configs, deleted topics gone) and, through
``local_changes``, the replica manager (a fake recording the partition states it is given)."""
from __future__ import annotations

import asyncio

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import Message
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache, TopicInfo
from kafpy.replication.partition import NO_LEADER, PartitionState

from kafpy.broker.kraft_metadata_publisher import BrokerMetadataPublisher, live_brokers, local_partition_states

FOO = bytes(range(1, 17))
Endpoint = M.RegisterBrokerRecord.BrokerEndpoint


def register(broker_id: int, fenced: bool = False) -> M.RegisterBrokerRecord:
    return M.RegisterBrokerRecord(broker_id=broker_id, broker_epoch=10 + broker_id, fenced=fenced, end_points=[
        Endpoint(name="PLAINTEXT", host="h", port=9000 + broker_id, security_protocol=0),
        Endpoint(name="EXTERNAL", host="x", port=19000 + broker_id, security_protocol=0)])


def partition(index: int, leader: int, replicas: list[int], leader_epoch: int = 0) -> M.PartitionRecord:
    return M.PartitionRecord(partition_id=index, topic_id=FOO, replicas=replicas, isr=replicas, leader=leader,
                             leader_epoch=leader_epoch, partition_epoch=0)


def delta_of(records: list[Message], base: MetadataImage = EMPTY_IMAGE, offset: int = 0
             ) -> tuple[MetadataDelta, MetadataImage]:
    delta = MetadataDelta(base)
    delta.replay_all(records)
    return delta, delta.apply(MetadataProvenance(offset, 3, 0))


FOO_ON_1_2 = [register(1), register(2), register(3, fenced=True), M.TopicRecord(name="foo", topic_id=FOO),
              partition(0, 1, [1, 2]), partition(1, 2, [2, 1]), partition(2, 3, [3, 2]),
              M.ConfigRecord(resource_type=2, resource_name="foo", name="retention.ms", value="1000")]


def test_unfenced_brokers_at_the_inter_broker_listener_with_every_endpoint() -> None:
    _, image = delta_of(FOO_ON_1_2)
    brokers = live_brokers(image, "PLAINTEXT")
    assert [(b.node_id, b.host, b.port) for b in brokers] == [(1, "h", 9001), (2, "h", 9002)]
    assert brokers[0].endpoint("EXTERNAL") == ("x", 19001)


def test_local_changes_become_partition_states() -> None:
    delta, image = delta_of(FOO_ON_1_2)
    states = {(s.topic, s.index): s for s in local_partition_states(delta, 1)}
    assert set(states) == {("foo", 0), ("foo", 1)}  # not partition 2: no replica on broker 1
    assert (states["foo", 0].leader, states["foo", 0].isr, states["foo", 0].is_new) == (1, (1, 2), True)
    assert states["foo", 1].leader == 2 and states["foo", 1].topic_id == FOO
    moved, _ = delta_of([M.PartitionChangeRecord(partition_id=0, topic_id=FOO, replicas=[2, 3], isr=[2, 3],
                                                 leader=2)], image)
    (stop,) = local_partition_states(moved, 1)
    assert (stop.topic, stop.index, stop.delete_partition, stop.leader) == ("foo", 0, True, NO_LEADER)
    deleted, _ = delta_of([M.RemoveTopicRecord(topic_id=FOO)], image)
    assert {(s.index, s.delete_partition) for s in local_partition_states(deleted, 1)} == {(0, True), (1, True)}


class FakeLog:
    def __init__(self, topic_id: bytes | None) -> None:
        self.topic_id = topic_id


class FakeLogManager:
    def __init__(self) -> None:
        self.on_disk: dict[tuple[str, int], FakeLog] = {}

    def logs(self) -> dict[tuple[str, int], FakeLog]:
        return self.on_disk


class FakeReplicaManager:
    """Records what the publisher asks of the replica manager."""

    def __init__(self) -> None:
        self.state_change_lock = asyncio.Lock()
        self.applied: list[list[PartitionState]] = []
        self.deleted_topics: list[str] = []
        self.config_updates: list[TopicInfo] = []
        self.partitions: dict[tuple[str, int], object] = {}
        self.log_manager = FakeLogManager()

    async def apply_partition_states_async(self, states: list[PartitionState]) -> dict[tuple[str, int], ErrorCode]:
        self.applied.append(states)
        return {(s.topic, s.index): ErrorCode.NONE for s in states}

    def maybe_update_metadata_cache(self, controller_id: int, controller_epoch: int, update) -> ErrorCode:
        self.deleted_topics += update()
        return ErrorCode.NONE

    def get_partition(self, topic: str, index: int) -> None:
        return None

    def update_topic_config(self, info: TopicInfo) -> None:
        self.config_updates.append(info)


def test_each_image_reaches_the_cache_and_the_replica_manager_in_order() -> None:
    async def run() -> tuple[MetadataCache, FakeReplicaManager, BrokerMetadataPublisher]:
        cache = MetadataCache("c", BrokerInfo(1, "h", 9001), live_brokers=[])
        rm = FakeReplicaManager()
        publisher = BrokerMetadataPublisher(1, cache, rm, "PLAINTEXT")  # type: ignore[arg-type]  # the fake
        delta, image = delta_of(FOO_ON_1_2, offset=7)
        publisher.publish(delta, image)
        conf, image2 = delta_of([M.ConfigRecord(resource_type=2, resource_name="foo", name="retention.ms",
                                                value="2000")], image, offset=8)
        publisher.publish(conf, image2)
        removed, image3 = delta_of([M.RemoveTopicRecord(topic_id=FOO)], image2, offset=9)
        publisher.publish(removed, image3)
        while publisher.published_offset < 9:
            await asyncio.sleep(0.01)
        return cache, rm, publisher

    cache, rm, publisher = asyncio.run(run())
    assert [len(states) for states in rm.applied] == [2, 2]
    assert [s.delete_partition for s in rm.applied[1]] == [True, True]
    assert [info.configs["retention.ms"] for info in rm.config_updates] == ["1000", "2000"]
    assert rm.deleted_topics == ["foo"]
    assert cache.topic("foo") is None and [b.node_id for b in cache.brokers()] == [1, 2]
    assert cache.controller_id == 1  # clients send admin requests here; they are forwarded
    assert publisher.image is not None and publisher.image.provenance.last_contained_offset == 9


def test_the_first_image_fills_the_cache_with_every_topic() -> None:
    async def run() -> MetadataCache:
        cache = MetadataCache("c", BrokerInfo(1, "h", 9001), live_brokers=[])
        publisher = BrokerMetadataPublisher(1, cache, FakeReplicaManager(), "PLAINTEXT")  # type: ignore[arg-type]  # the fake
        delta, image = delta_of(FOO_ON_1_2)
        publisher.publish(delta, image)
        while publisher.published_offset < 0:
            await asyncio.sleep(0.01)
        return cache
    cache = asyncio.run(run())
    info = cache.topic("foo")
    assert info is not None and info.topic_id == FOO and info.configs == {"retention.ms": "1000"}
    assert {p: (i.leader, i.isr) for p, i in info.partitions.items()} == {0: (1, [1, 2]), 1: (2, [2, 1]),
                                                                          2: (3, [3, 2])}
    # requests naming topics by id resolve them through the cache; an unknown id has no name
    assert cache.topic_name(FOO) == "foo"
    assert cache.topic_name(bytes(16)) is None and cache.topic_name(b"\x01" * 16) is None


def test_stray_logs_found_at_the_first_image_are_removed_first() -> None:
    """Logs left on disk by a topic deleted (or deleted and made again) while the broker was
    down, by a replica moved away, or without a topic id, go before the image is applied."""
    async def run() -> FakeReplicaManager:
        cache = MetadataCache("c", BrokerInfo(1, "h", 9001), live_brokers=[])
        rm = FakeReplicaManager()
        rm.log_manager.on_disk = {("foo", 0): FakeLog(FOO), ("foo", 2): FakeLog(FOO), ("gone", 0): FakeLog(b"g" * 16),
                                  ("foo", 1): FakeLog(b"x" * 16), ("old", 0): FakeLog(None)}
        publisher = BrokerMetadataPublisher(1, cache, rm, "PLAINTEXT")  # type: ignore[arg-type]  # the fake
        delta, image = delta_of(FOO_ON_1_2)
        publisher.publish(delta, image)
        again, image2 = delta_of([M.NoOpRecord()], image, offset=1)
        publisher.publish(again, image2)
        while publisher.published_offset < 1:
            await asyncio.sleep(0.01)
        return rm

    rm = asyncio.run(run())
    strays, first = rm.applied[0], rm.applied[1]
    assert [(s.topic, s.index) for s in strays] == [("foo", 1), ("foo", 2), ("gone", 0), ("old", 0)]
    assert all(s.delete_partition for s in strays)
    assert {(s.topic, s.index) for s in first} == {("foo", 0), ("foo", 1)}
    assert len(rm.applied) == 2  # strays are looked for at the first image only
