"""The broker-to-broker client against real brokers, ours and Apache Kafka: ApiVersions
negotiation, Metadata, CreateTopics, a Produce and a Fetch round trip, 100 pipelined
requests, and reconnecting after the broker restarts."""
from __future__ import annotations

import asyncio
import uuid

import pytest

from kafpy.protocol import codec
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import CreateTopicsRequest, FetchRequest, MetadataRequest, ProduceRequest
from kafpy.protocol.records import build_batch, decode_batch, iter_batches
from kafpy.replication.broker_connection import Disconnected
from kafpy.replication.network_client import NetworkClient, NetworkClientConfig
from tests.support import wire
from tests.support.ports import LOOPBACK

PRODUCE, FETCH, METADATA, API_VERSIONS, CREATE_TOPICS = (ApiKey.PRODUCE, ApiKey.FETCH, ApiKey.METADATA,
                                                       ApiKey.API_VERSIONS, ApiKey.CREATE_TOPICS)
CONFIG = NetworkClientConfig(request_timeout_ms=30000, reconnect_backoff_ms=50, reconnect_backoff_max_ms=500)


@pytest.fixture(params=["kafpy", "kafka4"])
def target(request: pytest.FixtureRequest) -> int:
    """The port of a broker to talk to: one of ours, or the session's Apache Kafka."""
    if request.param == "kafpy":
        return request.getfixturevalue("broker").port
    return request.getfixturevalue("reference_kafka").port


def client_for(port: int) -> NetworkClient:
    return NetworkClient(LOOPBACK, port, client_id="broker-9-replica-fetcher", listener_name="PLAINTEXT",
                         config=CONFIG)


async def create_topic(client: NetworkClient, topic: str) -> bytes:
    """Creates a one-partition topic; returns its topic id once Metadata names a leader."""
    resp = await client.send(CREATE_TOPICS, CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(
        name=topic, num_partitions=1, replication_factor=1, assignments=[], configs=[])], timeout_ms=30000))
    assert resp.topics[0].error_code == ErrorCode.NONE, resp
    for _ in range(200):
        md = await client.send(METADATA, MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False))
        [t] = md.topics
        if t.error_code == ErrorCode.NONE and t.partitions and t.partitions[0].leader_id >= 0:
            return t.topic_id
        await asyncio.sleep(0.05)
    raise AssertionError(f"no leader for {topic}: {md}")


async def produce(client: NetworkClient, topic: str, topic_id: bytes, values: list[bytes]) -> int:
    """Appends ``values``; the topic is named by name and by id (Produce v13 sends the id)."""
    batch = build_batch([(None, v) for v in values])
    # Metadata can name a leader a moment before that broker acts as one (Apache Kafka answers
    # NOT_LEADER_OR_FOLLOWER meanwhile): retry a retriable error, as producers do.
    for _ in range(100):
        resp = await client.send(PRODUCE, ProduceRequest(acks=-1, timeout_ms=30000, topic_data=[
            ProduceRequest.TopicProduceData(name=topic, topic_id=topic_id, partition_data=[
                ProduceRequest.PartitionProduceData(index=0, records=batch)])]))
        [part] = resp.responses[0].partition_responses
        if part.error_code != ErrorCode.NOT_LEADER_OR_FOLLOWER:
            break
        await asyncio.sleep(0.1)
    assert part.error_code == ErrorCode.NONE, part
    return part.base_offset


async def fetch(client: NetworkClient, topic: str, topic_id: bytes, offset: int) -> list[bytes]:
    resp = await client.send(FETCH, FetchRequest(
        replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=0, session_id=0,
        session_epoch=-1, forgotten_topics_data=[], rack_id="",
        topics=[FetchRequest.FetchTopic(topic=topic, topic_id=topic_id, partitions=[FetchRequest.FetchPartition(
            partition=0, fetch_offset=offset, partition_max_bytes=1 << 20)])]))
    assert resp.error_code == ErrorCode.NONE
    [part] = resp.responses[0].partitions
    assert part.error_code == ErrorCode.NONE, part
    values = []
    for pos, _header in iter_batches(part.records):
        _h, records = decode_batch(part.records, pos)
        for r in records:
            assert r.value is not None
            values.append(bytes(r.value))
    return values


def test_negotiation_metadata_produce_fetch_and_100_pipelined_requests(target: int) -> None:
    advertised = wire.api_versions(LOOPBACK, target)

    async def scenario() -> None:
        client = client_for(target)
        try:
            await client.ready()
            for key in (PRODUCE, FETCH, METADATA, API_VERSIONS, CREATE_TOPICS):
                assert client.api_version(key) == min(advertised[key][1], codec.SPECS[key].max_version)
            topic = f"netclient-{uuid.uuid4().hex[:8]}"
            topic_id = await create_topic(client, topic)
            values = [b"value-%d" % i for i in range(5)]
            assert await produce(client, topic, topic_id, values) == 0
            assert await fetch(client, topic, topic_id, 0) == values

            requests = [client.send(METADATA, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)],
                                                              allow_auto_topic_creation=False))
                        for _ in range(100)]
            responses = await asyncio.gather(*requests)
            assert all(r.topics[0].name == topic and r.topics[0].error_code == 0 for r in responses)
            assert client.connection is not None and not client.connection.in_flight
        finally:
            await client.close()

    asyncio.run(scenario())


def restart_scenario(port: int, restart) -> None:
    async def scenario() -> None:
        client = client_for(port)
        try:
            await client.ready()
            topic = f"netclient-restart-{uuid.uuid4().hex[:8]}"
            topic_id = await create_topic(client, topic)
            await produce(client, topic, topic_id, [b"before"])
            first = client.connection
            assert first is not None
            await asyncio.get_running_loop().run_in_executor(None, restart)
            # the old connection is found closed, at the latest by the next request
            for _ in range(100):
                if first.closed:
                    break
                await asyncio.sleep(0.05)
            assert first.closed and not client.is_ready
            # reconnects (waiting out the backoff) and negotiates again
            for _ in range(40):
                try:
                    values = await fetch(client, topic, topic_id, 0)
                    break
                except (Disconnected, AssertionError):
                    await asyncio.sleep(0.25)
            else:
                raise AssertionError("no successful fetch after the restart")
            assert values == [b"before"]
            assert client.connection is not first and client.is_ready
            assert await produce(client, topic, topic_id, [b"after"]) == 1
        finally:
            await client.close()

    asyncio.run(scenario())


def test_reconnect_after_our_broker_restarts(broker) -> None:
    restart_scenario(broker.port, broker.restart)


def test_reconnect_after_apache_kafka_restarts(reference_kafka_factory) -> None:
    kafka = reference_kafka_factory("4")

    def restart() -> None:
        kafka.stop()
        kafka.start()

    restart_scenario(kafka.port, restart)
