"""The replica fetcher against a real kafpy broker as the leader: records produced by a
real client (librdkafka) are fetched as replica 7 into a storage Log in a tmp dir, which
must end up byte for byte the leader's segment (same batches at the same offsets, same
epochs), with the leader's high watermark; records produced later arrive too.

Truncation is covered at unit level: today's leader does not answer diverging_epoch."""
from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from protocol.errors import ErrorCode
from protocol.messages import MetadataRequest
from replication.fetch_state import BrokerEndPoint, InitialFetchState, ReplicaFetcherConfig, TopicPartition
from replication.fetcher_manager import ReplicaFetcherManager
from replication.follower_log import StorageFollowerLog
from replication.network_client import NetworkClient, NetworkClientConfig
from storage.config import LogConfig
from storage.log import Log
from tests.support.ports import LOOPBACK

METADATA = 3
SEGMENT = "00000000000000000000.log"


def produce(bootstrap: str, topic: str, start: int, groups: int, per_group: int) -> None:
    """``groups`` flushes of ``per_group`` records each (so several batches)."""
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5,
                         "compression.type": "lz4", "enable.idempotence": True})
    n = start
    for _ in range(groups):
        for _ in range(per_group):
            producer.produce(topic, key=b"k%d" % (n % 7), value=b"value-%d" % n)
            n += 1
        assert producer.flush(30) == 0
    assert producer.flush(30) == 0


async def leader_of(client: NetworkClient, topic: str) -> tuple[bytes, int, int]:
    """(topic id, leader id, leader epoch) of partition 0 once Metadata names a leader."""
    for _ in range(200):
        md = await client.send(METADATA, MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False))
        [t] = md.topics
        if t.error_code == ErrorCode.NONE and t.partitions and t.partitions[0].leader_id >= 0:
            return t.topic_id, t.partitions[0].leader_id, t.partitions[0].leader_epoch
        await asyncio.sleep(0.05)
    raise AssertionError(f"no leader for {topic}")


def test_follower_log_holds_the_leaders_batches(broker, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    topic = f"replicated-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])[topic].result(30)
    produce(broker.bootstrap, topic, 0, groups=5, per_group=20)

    tp = TopicPartition(topic, 0)
    follower = Log(str(tmp_path / "follower" / f"{topic}-0"), LogConfig(), needs_recovery=False)
    leader_segment = Path(broker.log_dir) / f"{topic}-0" / SEGMENT
    follower_segment = Path(follower.dir) / SEGMENT
    errors: list[dict] = []

    async def caught_up(end: int) -> None:
        for _ in range(600):
            if follower.log_end_offset >= end and follower.high_watermark >= end:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"follower at {follower.log_end_offset} (HW {follower.high_watermark}), "
                             f"expected {end}; errors {errors}")

    async def scenario() -> None:
        client = NetworkClient(LOOPBACK, broker.port, client_id="replica-fetcher-test")
        manager = ReplicaFetcherManager(
            ReplicaFetcherConfig(replica_id=7, max_wait_ms=100, backoff_ms=100),
            lambda p: StorageFollowerLog(follower) if p == tp else None,
            client_config=NetworkClientConfig(request_timeout_ms=10000), on_leader_error=errors.append)
        try:
            topic_id, leader_id, leader_epoch = await leader_of(client, topic)
            await manager.add_fetcher_for_partitions({tp: InitialFetchState(
                BrokerEndPoint(leader_id, LOOPBACK, broker.port), topic_id, 0, leader_epoch)})
            await caught_up(100)
            assert follower_segment.read_bytes() == leader_segment.read_bytes()
            assert follower.leader_epoch_cache.entries() == [(max(leader_epoch, 0), 0)]

            # more records while the fetcher runs
            await asyncio.get_running_loop().run_in_executor(None, produce, broker.bootstrap, topic, 100, 3, 10)
            await caught_up(130)
            assert follower.log_end_offset == 130
            assert follower_segment.read_bytes() == leader_segment.read_bytes()
            state = manager.fetch_state(tp)
            assert state is not None and state.fetch_offset == 130 and state.lag == 0
            assert errors == []
        finally:
            await manager.shutdown()
            await client.close()
            follower.close()

    asyncio.run(scenario())
