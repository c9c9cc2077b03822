"""ZkAdminManager on two in-process brokers against a real ZooKeeper. The controller's
channel is a seam: UpdateMetadata requests are applied to each broker's MetadataCache as a
broker does, so admin calls wait on real controller decisions."""
from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from kafpy.broker.config import KafkaConfig
from kafpy.broker.quotas.entity_configs import EntityConfigs
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache, PartitionInfo, TopicError, TopicInfo
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.topics import GROUP_METADATA_TOPIC_NAME
from kafpy.replication import zk_data as zd
from kafpy.replication.controller import KafkaController
from kafpy.replication.zk_admin import ZkAdminManager
from kafpy.replication.zk_client import KafkaZkClient
from tests.integration.replication.test_controller import Recorder

pytestmark = pytest.mark.timeout(120)


def known(cache: MetadataCache, topic: str) -> TopicInfo:
    info = cache.topic(topic)
    assert info is not None, f"the metadata cache knows no {topic}"
    return info


def apply_update_metadata(cache: MetadataCache, body: Any) -> None:
    """What a broker's UpdateMetadata handler does with the cache (v5+ layout)."""
    deleted, topics = [], []
    for ts in body.topic_states:
        parts = {p.partition_index: p for p in ts.partition_states}
        if any(p.leader == -2 for p in parts.values()):
            deleted.append(ts.topic_name)
            continue
        old = cache.topic(ts.topic_name)
        merged = dict(old.partitions) if old is not None else {}
        merged.update({i: PartitionInfo(p.leader, p.leader_epoch, list(p.replicas), list(p.isr),
                                        list(p.offline_replicas), p.zk_version) for i, p in parts.items()})
        topics.append(TopicInfo(ts.topic_name, ts.topic_id, merged, old.configs if old else {}))
    brokers = [BrokerInfo(b.id, b.endpoints[0].host, b.endpoints[0].port, b.rack) for b in body.live_brokers]
    cache.update(controller_id=body.controller_id, brokers=brokers, topics=topics, deleted_topics=deleted)


def recorder(caches: dict[int, MetadataCache]) -> Recorder:
    def on_send(broker: int, key: int, body: Any) -> None:
        if key == 6:
            apply_update_metadata(caches[broker], body)
    return Recorder(on_send=on_send)


def test_admin_paths_against_zookeeper(zookeeper):
    async def main() -> None:
        loop = asyncio.get_running_loop()
        zks = [KafkaZkClient(zookeeper.connect_string, session_timeout_ms=6000) for _ in range(2)]
        caches = {i: MetadataCache("c", BrokerInfo(i, "127.0.0.1", 9090 + i)) for i in (1, 2)}
        controllers, admins = [], []
        rec = recorder(caches)
        for i, zk in enumerate(zks, start=1):
            await zk.start()
            await zk.ensure_persistent_paths()
            epoch = await zk.register_broker(zd.BrokerRegistration(i, (zd.EndPoint("PLAINTEXT", "127.0.0.1", 9090 + i),)))
            cfg = KafkaConfig({"broker.id": str(i), "auto.leader.rebalance.enable": "false",
                               "offsets.topic.num.partitions": "3",
                               "offsets.topic.replication.factor": "2"})
            c = KafkaController(cfg, zk, i, time.time, loop, rec.factory(i))
            await c.startup(epoch)
            if i == 1:
                for _ in range(200):
                    if c.is_active:
                        break
                    await asyncio.sleep(0.05)
            a = ZkAdminManager(cfg, zk, caches[i], c, time.time, loop, EntityConfigs(), wait_ms=15000)
            await a.start()
            controllers.append(c)
            admins.append(a)
        a1, a2 = admins
        try:
            assert controllers[0].is_active and not controllers[1].is_active
            with pytest.raises(TopicError) as e:
                await a2.create_topic("x", 2, 2, {})
            assert e.value.error_code == ErrorCode.NOT_CONTROLLER

            info = await a1.create_topic("x", 2, 2, {"retention.ms": "5000"})
            assert sorted(info.partitions) == [0, 1] and all(p.leader >= 0 for p in info.partitions.values())
            data, _ = await zks[0].get_data(zd.config_entity_path("topics", "x"))
            assert data is not None
            assert json.loads(data) == {"version": 1, "config": {"retention.ms": "5000"}}
            topic_data, _ = await zks[0].get_data(zd.topic_path("x"))
            assert topic_data is not None
            topic = json.loads(topic_data)
            assert zd.topic_id_from_str(topic["topic_id"]) == info.topic_id
            with pytest.raises(TopicError) as e:
                await a1.create_topic("x", 1, 1, {})
            assert e.value.error_code == ErrorCode.TOPIC_ALREADY_EXISTS
            assert (await a1.create_topic("v", 1, 1, {}, validate_only=True)).name == "v"
            assert await zks[0].exists(zd.topic_path("v")) is None

            y = await a2.auto_create_topic("y", 1, 1, {})  # from the non-controller
            assert y.partitions[0].leader in (1, 2)

            # a config change on broker 2 reaches broker 1 through /config/changes
            await a2.alter_topic_config("x", {"retention.ms": "7000"})
            for _ in range(200):
                if known(caches[1], "x").configs == {"retention.ms": "7000"}:
                    break
                await asyncio.sleep(0.05)
            assert a1.topic_config("x") == {"retention.ms": "7000"}
            assert known(caches[1], "x").configs == {"retention.ms": "7000"}

            assert await a1.next_producer_id() == 0
            assert await a2.next_producer_id() == 1000
            assert await a1.next_producer_id() == 1

            grown = await a1.create_partitions("x", 3)
            assert sorted(grown.partitions) == [0, 1, 2]
            assert len(grown.partitions[2].replicas) == 2

            await a2.ensure_offsets_topic()
            offsets = known(caches[2], GROUP_METADATA_TOPIC_NAME)
            assert sorted(offsets.partitions) == [0, 1, 2]
            assert (await zks[0].get_entity_config("topics", GROUP_METADATA_TOPIC_NAME))["cleanup.policy"] == "compact"

            await a1.delete_topic("x")
            assert caches[1].topic("x") is None
            for _ in range(200):
                if await zks[0].exists(zd.topic_path("x")) is None:
                    break
                await asyncio.sleep(0.05)
            assert await zks[0].exists(zd.topic_path("x")) is None
        finally:
            for a in admins:
                await a.shutdown()
            for c in controllers:
                await c.shutdown()
            for zk in zks:
                await zk.close()
    asyncio.run(main())
