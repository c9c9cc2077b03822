"""ZkAdminManager during a ZooKeeper-to-KRaft migration: once a KRaft controller rules, the
topics the broker creates itself go to ``kraft_creator`` (CreateTopics to that controller, as
Kafka 3.9's AutoTopicCreationManager on a migrating broker) and nothing is written to
ZooKeeper; before, they are written to ZooKeeper as in ZooKeeper mode. ZooKeeper is a fake."""
from __future__ import annotations

import asyncio
import contextlib
import time
from typing import cast

from kafpy.broker.config import KafkaConfig
from kafpy.broker.quotas.entity_configs import EntityConfigs
from kafpy.replication.controller import KafkaController
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache, PartitionInfo, TopicInfo
from kafpy.replication.zk_admin import TopicCreator, ZkAdminManager
from kafpy.replication.zk_client import KafkaZkClient


class NoZk:
    """A ZooKeeper client that records what was asked of it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> object:
        async def call(*args: object, **kwargs: object) -> object:
            self.calls.append(name)
            return []
        return call


class Creator:
    def __init__(self) -> None:
        self.asked: list[tuple[str, int, int, dict[str, str]]] = []

    async def auto_create_topic(self, name: str, partitions: int, replication_factor: int,
                                configs: dict[str, str]) -> TopicInfo:
        self.asked.append((name, partitions, replication_factor, configs))
        return TopicInfo(name, b"\x01" * 16, {0: PartitionInfo(1, 0, [1], [1])}, dict(configs))


def test_auto_created_topics_go_to_the_kraft_controller_once_it_rules() -> None:
    async def main() -> None:
        zk = NoZk()
        admin = ZkAdminManager(KafkaConfig({"broker.id": "1"}), cast(KafkaZkClient, zk),
                               MetadataCache("c", BrokerInfo(1, "h", 1)), cast(KafkaController, None),
                               time.time, asyncio.get_running_loop(), EntityConfigs())
        creator = Creator()
        rules = [True]
        admin.kraft_creator = lambda: cast(TopicCreator, creator) if rules[0] else None
        info = await admin.auto_create_topic("orders", 3, 1, {"retention.ms": "1000"})
        assert info.name == "orders" and creator.asked == [("orders", 3, 1, {"retention.ms": "1000"})]
        assert zk.calls == []   # nothing written to (or read from) ZooKeeper
        rules[0] = False        # before the KRaft controller rules: ZooKeeper mode's path
        with contextlib.suppress(Exception):   # the fake ZooKeeper answers nothing useful
            await asyncio.wait_for(admin.auto_create_topic("early", 1, 1, {}), 0.5)
        assert "get_all_topics" in zk.calls and len(creator.asked) == 1
    asyncio.run(main())
