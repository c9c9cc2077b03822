"""KRaftAdminController: what a KRaft broker itself asks of the controller (a fake channel):
topics made through CreateTopics and waited for in the metadata cache, auto-creation that
finds the topic already made, producer id blocks from AllocateProducerIds, and the errors the
controller answers (or NOT_CONTROLLER when none answers) as TopicError."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import (AllocateProducerIdsResponse, CreateTopicsRequest, CreateTopicsResponse)
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache, PartitionInfo, TopicError, TopicInfo

from kafpy.broker.config import KafkaConfig
from kafpy.broker.kraft_admin import KRaftAdminController
from kafpy.broker.kraft_controller_channel import ControllerUnavailable

CONFIG = KafkaConfig({"process.roles": "broker", "node.id": "1", "controller.quorum.voters": "3000@h:1",
                      "controller.listener.names": "CONTROLLER", "listeners": "PLAINTEXT://127.0.0.1:0",
                      "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                      "offsets.topic.num.partitions": "3", "offsets.topic.replication.factor": "2"})


class FakeController:
    """Answers CreateTopics by putting the topic in the cache a little later (as the metadata
    log would), and AllocateProducerIds with blocks of 2."""

    def __init__(self, cache: MetadataCache, error: ErrorCode = ErrorCode.NONE) -> None:
        self.cache = cache
        self.error = error
        self.sent: list[Message] = []
        self.next_block = 100
        self.down = False

    async def send(self, api_key: ApiKey, body: Message, version: int | None = None,
                   timeout_ms: int | None = None) -> Message:
        if self.down:
            raise ControllerUnavailable("no active controller is known yet")
        self.sent.append(body)
        if api_key == ApiKey.ALLOCATE_PRODUCER_IDS:
            start, self.next_block = self.next_block, self.next_block + 2
            return AllocateProducerIdsResponse(producer_id_start=start, producer_id_len=2)
        assert isinstance(body, CreateTopicsRequest)
        topic = body.topics[0]
        if self.error == ErrorCode.NONE:
            asyncio.get_running_loop().call_later(0.05, self._created, topic.name, topic.num_partitions)
        return CreateTopicsResponse(topics=[CreateTopicsResponse.CreatableTopicResult(
            name=topic.name, error_code=self.error, num_partitions=topic.num_partitions)])

    def _created(self, name: str, partitions: int) -> None:
        self.cache.update(topics=[TopicInfo(name, bytes(range(16)), {
            p: PartitionInfo(1, 0, [1, 2], [1, 2]) for p in range(partitions)}, {})])


def admin(error: ErrorCode = ErrorCode.NONE) -> tuple[KRaftAdminController, FakeController, MetadataCache]:
    cache = MetadataCache("c", BrokerInfo(1, "h", 9092), live_brokers=[])
    controller = FakeController(cache, error)
    return KRaftAdminController(CONFIG, cache, controller, lambda: 7, lambda: 0.0), controller, cache  # type: ignore[arg-type]  # the fake channel


def test_the_offsets_topic_is_created_through_the_controller_and_waited_for() -> None:
    async def run() -> tuple[FakeController, MetadataCache]:
        a, controller, cache = admin()
        await a.ensure_offsets_topic()
        await a.ensure_offsets_topic()  # known now: nothing sent
        return controller, cache
    controller, cache = asyncio.run(run())
    (request,) = controller.sent
    assert isinstance(request, CreateTopicsRequest)
    (topic,) = request.topics
    assert (topic.name, topic.num_partitions, topic.replication_factor) == ("__consumer_offsets", 3, 2)
    assert {c.name: c.value for c in topic.configs}["cleanup.policy"] == "compact"
    info = cache.topic("__consumer_offsets")
    assert info is not None and len(info.partitions) == 3


def test_auto_creation_of_a_topic_that_exists_waits_for_it() -> None:
    async def run() -> TopicInfo:
        a, controller, cache = admin(ErrorCode.TOPIC_ALREADY_EXISTS)
        asyncio.get_running_loop().call_later(0.05, controller._created, "t", 2)
        return await a.auto_create_topic("t", 2, 2, {})
    assert len(asyncio.run(run()).partitions) == 2


def test_errors_come_back_as_topic_errors() -> None:
    async def refused() -> None:
        a, _, _ = admin(ErrorCode.INVALID_REPLICATION_FACTOR)
        await a.create_topic("t", 1, 5, {})
    with pytest.raises(TopicError) as e:
        asyncio.run(refused())
    assert e.value.error_code == ErrorCode.INVALID_REPLICATION_FACTOR

    async def unreachable() -> None:
        a, controller, _ = admin()
        controller.down = True
        await a.create_topic("t", 1, 1, {})
    with pytest.raises(TopicError) as e:
        asyncio.run(unreachable())
    assert e.value.error_code == ErrorCode.NOT_CONTROLLER


def test_producer_ids_come_in_blocks_from_the_controller() -> None:
    async def run() -> tuple[list[int], FakeController]:
        a, controller, _ = admin()
        return [await a.next_producer_id() for _ in range(5)], controller
    ids, controller = asyncio.run(run())
    assert ids == [100, 101, 102, 103, 104]
    assert len(controller.sent) == 3


def test_what_a_kraft_broker_does_not_do_yet_is_refused_at_start(tmp_path: Path) -> None:
    from kafpy.broker.config import ConfigError
    from kafpy.broker.kraft_broker import KRaftBroker
    base = {"process.roles": "broker", "node.id": "1", "controller.listener.names": "CONTROLLER",
            "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": str(tmp_path),
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"}
    cases = {
        "controller.quorum.bootstrap.servers alone": {"controller.quorum.bootstrap.servers": "h:1"},
        # Kafka 4 has no ZooKeeper-mode authorizer class any more
        "AclAuthorizer cannot be found": {"controller.quorum.voters": "3000@h:1",
                                          "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer"},
        "over PLAINTEXT only": {"controller.quorum.voters": "3000@h:1",
                                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL"},
    }
    for words, extra in cases.items():
        async def start() -> None:
            broker = KRaftBroker(KafkaConfig({**base, **extra}))
            await broker.start()
        with pytest.raises(ConfigError, match=words):
            asyncio.run(start())
