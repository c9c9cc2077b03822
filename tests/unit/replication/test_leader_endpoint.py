"""The remote leader end point over a real NetworkClient whose connection goes to an
in-memory peer: requests are decoded with the real codec and answered by the test, so the
versions chosen and the fields sent (replica id, epochs) are checked on the wire."""
from __future__ import annotations

import asyncio
from typing import Any, Callable, cast

import pytest

from kafpy.protocol import codec
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (ApiVersionsResponse, FetchResponse, ListOffsetsResponse, OffsetForLeaderEpochResponse)
from kafpy.replication.broker_connection import BrokerConnection
from kafpy.replication.fetch_state import EpochEndOffset, TopicPartition
from kafpy.replication.fetcher import FetchPlan, PartitionFetch
from kafpy.replication.leader_endpoint import LeaderEndPointError, RemoteLeaderEndPoint
from kafpy.replication.network_client import NetworkClient

API_VERSIONS, FETCH, LIST_OFFSETS, OFFSET_FOR_LEADER_EPOCH = 18, 1, 2, 23
TP = TopicPartition("topic", 0)
TOPIC_ID = bytes(range(1, 17))
Answer = Callable[[Any, Any], Any]


class Peer:
    """Answers ApiVersions with ``ranges`` and every other request with ``answer(header, body)``."""

    def __init__(self, ranges: dict[int, tuple[int, int]], answer: Answer) -> None:
        self.ranges = ranges
        self.answer = answer
        self.requests: list[tuple[Any, Any]] = []

    async def connect(self, factory: Callable[[], BrokerConnection]) -> tuple[Any, BrokerConnection]:
        conn = factory()
        transport = Transport(self, conn)
        conn.connection_made(cast(asyncio.Transport, transport))   # the in-memory stand-in
        return transport, conn


class Transport:
    def __init__(self, peer: Peer, conn: BrokerConnection) -> None:
        self.peer, self.conn = peer, conn

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def write(self, data: bytes) -> None:
        header, body = codec.decode_request(data[4:])
        key, v = header.request_api_key, header.request_api_version
        if key == API_VERSIONS:
            reply = ApiVersionsResponse(error_code=0, api_keys=[
                ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
                for k, (lo, hi) in self.peer.ranges.items()])
        else:
            self.peer.requests.append((header, body))
            reply = self.peer.answer(header, body)
        frame = codec.encode_response(key, v, header.correlation_id, reply)
        asyncio.get_running_loop().call_soon(self.deliver, frame)

    def deliver(self, frame: bytes) -> None:
        buf = self.conn.get_buffer(len(frame))
        buf[:len(frame)] = frame
        self.conn.buffer_updated(len(frame))

    def abort(self) -> None:
        self.conn.connection_lost(None)


def endpoint(peer: Peer) -> RemoteLeaderEndPoint:
    client = NetworkClient("leader", 9092, client_id="broker-7-fetcher-0", node_id=1, connector=peer.connect)
    return RemoteLeaderEndPoint(client, replica_id=7, broker_epoch=99)


def plan(topic_id: bytes) -> FetchPlan:
    return FetchPlan(7, 99, 500, 1, 1 << 20, {TP: PartitionFetch(topic_id, 10, 3, 2, 0, 1 << 16)})


def fetch_answer(header: Any, body: Any) -> FetchResponse:
    pd = FetchResponse.PartitionData(partition_index=0, high_watermark=12, log_start_offset=0, records=b"")
    return FetchResponse(responses=[FetchResponse.FetchableTopicResponse(
        topic=body.topics[0].topic, topic_id=body.topics[0].topic_id, partitions=[pd])])


@pytest.mark.parametrize("leader_max, topic_id, version", [
    (17, TOPIC_ID, 17), (14, TOPIC_ID, 14), (17, bytes(16), 12), (11, TOPIC_ID, 11)])
def test_fetch_version_and_replica_fields(leader_max: int, topic_id: bytes, version: int) -> None:
    peer = Peer({API_VERSIONS: (0, 4), FETCH: (4, leader_max)}, fetch_answer)

    async def scenario() -> dict:
        ep = endpoint(peer)
        try:
            return await ep.fetch(plan(topic_id))
        finally:
            await ep.close()

    data = asyncio.run(scenario())
    assert data[TP].high_watermark == 12
    [(header, body)] = peer.requests
    assert header.request_api_version == version and header.client_id == "broker-7-fetcher-0"
    if version >= 15:
        assert (body.replica_state.replica_id, body.replica_state.replica_epoch) == (7, 99)
    else:
        assert body.replica_id == 7
    p = body.topics[0].partitions[0]
    assert (p.fetch_offset, p.current_leader_epoch, p.partition_max_bytes) == (10, 3, 1 << 16)
    assert p.last_fetched_epoch == (2 if version >= 12 else -1)


def test_a_top_level_fetch_error_raises() -> None:
    peer = Peer({API_VERSIONS: (0, 4), FETCH: (4, 17)},
                lambda h, b: FetchResponse(error_code=ErrorCode.FETCH_SESSION_ID_NOT_FOUND))

    async def scenario() -> None:
        ep = endpoint(peer)
        with pytest.raises(LeaderEndPointError) as e:
            await ep.fetch(plan(TOPIC_ID))
        assert e.value.error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND
        await ep.close()

    asyncio.run(scenario())


def test_epoch_end_offsets_and_list_offsets() -> None:
    def answer(header: Any, body: Any) -> Any:
        if header.request_api_key == OFFSET_FOR_LEADER_EPOCH:
            return OffsetForLeaderEpochResponse(topics=[OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult(
                topic="topic", partitions=[
                    OffsetForLeaderEpochResponse.EpochEndOffset(partition=0, leader_epoch=2, end_offset=40),
                    OffsetForLeaderEpochResponse.EpochEndOffset(
                        partition=1, error_code=ErrorCode.FENCED_LEADER_EPOCH)])])
        p = body.topics[0].partitions[0]
        if p.partition_index == 1:
            return ListOffsetsResponse(topics=[ListOffsetsResponse.ListOffsetsTopicResponse(name="topic", partitions=[
                ListOffsetsResponse.ListOffsetsPartitionResponse(
                    partition_index=1, error_code=ErrorCode.NOT_LEADER_OR_FOLLOWER)])])
        return ListOffsetsResponse(topics=[ListOffsetsResponse.ListOffsetsTopicResponse(name="topic", partitions=[
            ListOffsetsResponse.ListOffsetsPartitionResponse(
                partition_index=0, offset=5 if p.timestamp == -2 else 50, leader_epoch=4, timestamp=-1)])])

    peer = Peer({API_VERSIONS: (0, 4), OFFSET_FOR_LEADER_EPOCH: (0, 4), LIST_OFFSETS: (0, 10)}, answer)
    tp1 = TopicPartition("topic", 1)

    async def scenario() -> None:
        ep = endpoint(peer)
        got = await ep.fetch_epoch_end_offsets({TP: (4, 3), tp1: (4, 3)})
        assert got == {TP: EpochEndOffset(0, 2, 40), tp1: EpochEndOffset(ErrorCode.FENCED_LEADER_EPOCH, -1, -1)}
        assert await ep.fetch_earliest_offset(TP, 4) == (4, 5)
        assert await ep.fetch_latest_offset(TP, 4) == (4, 50)
        with pytest.raises(LeaderEndPointError) as e:
            await ep.fetch_latest_offset(tp1, 4)
        assert e.value.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
        await ep.close()

    asyncio.run(scenario())
    (h, epochs), *lists = peer.requests
    assert h.request_api_version == 4 and epochs.replica_id == 7
    assert [(p.partition, p.current_leader_epoch, p.leader_epoch) for p in epochs.topics[0].partitions] == \
        [(0, 4, 3), (1, 4, 3)]
    assert [(h.request_api_version, b.replica_id, b.topics[0].partitions[0].timestamp,
             b.topics[0].partitions[0].current_leader_epoch) for h, b in lists[:2]] == [(10, 7, -2, 4), (10, 7, -1, 4)]
