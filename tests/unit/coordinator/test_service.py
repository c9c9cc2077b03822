"""coordinator.service on real storage and metadata, without sockets: the offsets topic is
created on the first FindCoordinator, commits land in its logs, a new service replays
them, and partitions move in and out with on_elected/on_resigned."""

from __future__ import annotations

import asyncio

from broker.config import KafkaConfig
from broker.metadata import BrokerInfo, StandaloneMetadata
from broker.replica_manager import ReplicaManager
from broker.topic_config import effective_topic_config
from coordinator import OffsetAndMetadata
from coordinator import errors as E
from coordinator.partitioner import GROUP_METADATA_TOPIC_NAME
from coordinator.service import GroupCoordinatorService
from storage import LogConfig, LogManager


class _Broker:
    """The parts of broker.broker.Broker the service uses."""

    def __init__(self, log_dir: str) -> None:
        self.config = KafkaConfig.from_file(None, [
            f"log.dirs={log_dir}", "offsets.topic.num.partitions=3",
            "offsets.topic.replication.factor=3", "group.initial.rebalance.delay.ms=0"])
        self.metadata = StandaloneMetadata(log_dir, BrokerInfo(0, "127.0.0.1", 9092))
        self.log_manager = LogManager([log_dir], LogConfig.from_properties(
            effective_topic_config(self.config, {})), start_cleaner=False)
        self.log_manager.startup(cluster_id=self.metadata.cluster_id, broker_id=0)
        self.replica_manager = ReplicaManager(self)
        for info in self.metadata.topics().values():
            self.replica_manager.host_topic(info)

    def close(self) -> None:
        self.log_manager.shutdown()


def test_service_creates_offsets_topic_persists_and_replays(tmp_path):
    async def first_life():
        broker = _Broker(str(tmp_path))
        svc = GroupCoordinatorService(clock=lambda: 1_000.0)
        await svc.start(broker)
        try:
            assert broker.metadata.topic(GROUP_METADATA_TOPIC_NAME) is None
            assert svc.find_coordinator("g", 0) == (E.NONE, 0, "127.0.0.1", 9092)
            info = broker.metadata.topic(GROUP_METADATA_TOPIC_NAME)
            assert len(info.partitions) == 3 and info.is_internal
            assert info.replication_factor == 1                # capped at the live brokers
            assert info.configs["cleanup.policy"] == "compact"
            assert svc.coordinator.owned_partitions == {0, 1, 2}
            res = svc.coordinator.commit_offsets(
                "g", "", None, -1, {("t", 0): OffsetAndMetadata(42, -1, "m", 1_000_000)},
                svc.now_ms())
            assert res == {("t", 0): E.NONE}
            part = broker.replica_manager.get(GROUP_METADATA_TOPIC_NAME, svc.coordinator.partition_for("g"))
            assert part.log.log_end_offset == 1 and part.log.high_watermark == 1
            # transactional ids: this broker while __transaction_state does not exist
            assert svc.find_coordinator("txn", 1) == (E.NONE, 0, "127.0.0.1", 9092)
            assert svc.find_coordinator("x", 2)[0] == E.INVALID_REQUEST
        finally:
            await svc.stop()
            broker.close()

    async def second_life():
        broker = _Broker(str(tmp_path))
        svc = GroupCoordinatorService(clock=lambda: 2_000.0)
        await svc.start(broker)
        try:
            err, got = svc.coordinator.fetch_offsets("g", None)
            assert err == E.NONE
            assert (got[("t", 0)].offset, got[("t", 0)].metadata) == (42, "m")
            p = svc.coordinator.partition_for("g")
            svc.on_resigned(p)
            assert svc.coordinator.fetch_offsets("g", None)[0] == E.NOT_COORDINATOR
            svc.on_elected(p)
            assert svc.coordinator.fetch_offsets("g", None)[1][("t", 0)].offset == 42
        finally:
            await svc.stop()
            broker.close()
        assert svc.coordinator.list_groups()[0] == E.COORDINATOR_NOT_AVAILABLE

    asyncio.run(first_life())
    asyncio.run(second_life())


def test_parked_join_is_answered_on_stop(tmp_path):
    async def scenario():
        broker = _Broker(str(tmp_path))
        svc = GroupCoordinatorService()
        await svc.start(broker)
        svc.find_coordinator("g", 0)
        c = svc.coordinator
        c.config.group_initial_rebalance_delay_ms = 60_000
        fut = c.join_group("g", "", None, False, False, "c", "/h", 30000, 10000, "consumer",
                           [("range", b"")], svc.now_ms())
        await asyncio.sleep(0.1)                  # the timer runs; the delay is not over
        assert not fut.done()
        await svc.stop()
        broker.close()
        return await fut

    assert asyncio.run(scenario()).error == E.NOT_COORDINATOR
