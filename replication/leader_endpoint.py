"""The fetcher's side of a partition leader: Fetch, OffsetsForLeaderEpoch and ListOffsets
as the follower sends them (Kafka's ``LeaderEndPoint`` and ``RemoteLeaderEndPoint``).

Who may call it: ``kafpy.replication.fetcher_thread.ReplicaFetcherThread``; the fetcher manager
makes one ``RemoteLeaderEndPoint`` per fetcher thread, over its own ``NetworkClient``.
Tests implement ``LeaderEndPoint`` in memory.

Every request names this broker as the replica (``replica_id``; Fetch v15+ puts it in
``replica_state`` with the broker epoch), so the leader reads up to its log end offset and
counts the fetch for the ISR. Versions are the highest both sides support (negotiated by
the client's ApiVersions); Fetch stays at v12 when a partition has no topic id.
"""
from __future__ import annotations

from typing import Mapping, Protocol

from kafpy.protocol.errors import ErrorCode, KafkaError
from kafpy.protocol.messages import (FetchResponse, ListOffsetsRequest, ListOffsetsResponse, OffsetForLeaderEpochRequest,
                               OffsetForLeaderEpochResponse)
from kafpy.protocol.api_keys import ApiKey

from kafpy.replication.fetch_state import EpochEndOffset, TopicPartition
from kafpy.replication.fetcher import LAST_NAME_BASED_FETCH_VERSION, READ_UNCOMMITTED, FetchPlan, fetch_request, \
    response_partitions
from kafpy.replication.network_client import NetworkClient

__all__ = ["LeaderEndPoint", "LeaderEndPointError", "RemoteLeaderEndPoint", "EARLIEST_TIMESTAMP",
           "LATEST_TIMESTAMP"]

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1


class LeaderEndPointError(KafkaError):
    """The leader answered a whole request, or a single-partition one, with an error."""

    def __init__(self, error_code: ErrorCode | int, message: str = "") -> None:
        super().__init__(message or f"{error_code!r}")
        self.error_code = ErrorCode.of_known(error_code)


class LeaderEndPoint(Protocol):
    """The leader of the partitions one fetcher follows."""

    async def fetch(self, plan: FetchPlan) -> dict[TopicPartition, FetchResponse.PartitionData]:
        """The leader's answer per partition; raises ``LeaderEndPointError`` for a
        top-level error and ``NetworkError`` when the request did not get through."""
        ...

    async def fetch_epoch_end_offsets(self, partitions: Mapping[TopicPartition, tuple[int, int]]
                                      ) -> dict[TopicPartition, EpochEndOffset]:
        """OffsetsForLeaderEpoch for {tp: (current leader epoch, epoch asked about)}."""
        ...

    async def fetch_earliest_offset(self, tp: TopicPartition, current_leader_epoch: int) -> tuple[int, int]:
        """(leader epoch, offset) of the leader's log start."""
        ...

    async def fetch_latest_offset(self, tp: TopicPartition, current_leader_epoch: int) -> tuple[int, int]:
        """(leader epoch, offset) of the leader's log end."""
        ...

    async def close(self) -> None: ...


class RemoteLeaderEndPoint:
    """``LeaderEndPoint`` over a ``NetworkClient`` to the leader's broker, as replica
    ``replica_id`` (this broker) with ``broker_epoch`` (-1 when unknown)."""

    def __init__(self, client: NetworkClient, replica_id: int, broker_epoch: int = -1) -> None:
        self.client = client
        self.replica_id = replica_id
        self.broker_epoch = broker_epoch

    def __repr__(self) -> str:
        return f"RemoteLeaderEndPoint({self.client.destination})"

    async def fetch(self, plan: FetchPlan) -> dict[TopicPartition, FetchResponse.PartitionData]:
        client = self.client
        await client.ready()
        version = client.api_version(ApiKey.FETCH)
        if not plan.uses_topic_ids:
            version = min(version, LAST_NAME_BASED_FETCH_VERSION)
        # The leader may hold the request for max_wait_ms: allow that on top of the timeout.
        timeout_ms = client.config.request_timeout_ms + max(plan.max_wait_ms, 0)
        resp = await client.send(ApiKey.FETCH, fetch_request(plan, version), version=version, timeout_ms=timeout_ms)
        if resp.error_code != ErrorCode.NONE:
            raise LeaderEndPointError(ErrorCode.of(resp.error_code), f"Fetch from {client.destination} failed: "
                                      f"{ErrorCode.of(resp.error_code)!r}")
        return response_partitions(plan, resp, version)

    async def fetch_epoch_end_offsets(self, partitions: Mapping[TopicPartition, tuple[int, int]]
                                      ) -> dict[TopicPartition, EpochEndOffset]:
        if not partitions:
            return {}
        topics: dict[str, OffsetForLeaderEpochRequest.OffsetForLeaderTopic] = {}
        for tp, (current, epoch) in partitions.items():
            t = topics.get(tp.topic)
            if t is None:
                t = topics[tp.topic] = OffsetForLeaderEpochRequest.OffsetForLeaderTopic(topic=tp.topic, partitions=[])
            t.partitions.append(OffsetForLeaderEpochRequest.OffsetForLeaderPartition(
                partition=tp.partition, current_leader_epoch=current, leader_epoch=epoch))
        resp: OffsetForLeaderEpochResponse = await self.client.send(
            ApiKey.OFFSET_FOR_LEADER_EPOCH,
            OffsetForLeaderEpochRequest(replica_id=self.replica_id, topics=list(topics.values())))
        out: dict[TopicPartition, EpochEndOffset] = {}
        for tr in resp.topics:
            for p in tr.partitions:
                tp = TopicPartition(tr.topic, p.partition)
                if tp in partitions:
                    out[tp] = EpochEndOffset(p.error_code, p.leader_epoch, p.end_offset)
        return out

    async def fetch_earliest_offset(self, tp: TopicPartition, current_leader_epoch: int) -> tuple[int, int]:
        return await self._list_offset(tp, current_leader_epoch, EARLIEST_TIMESTAMP)

    async def fetch_latest_offset(self, tp: TopicPartition, current_leader_epoch: int) -> tuple[int, int]:
        return await self._list_offset(tp, current_leader_epoch, LATEST_TIMESTAMP)

    async def _list_offset(self, tp: TopicPartition, current_leader_epoch: int, timestamp: int) -> tuple[int, int]:
        client = self.client
        await client.ready()
        version = client.api_version(ApiKey.LIST_OFFSETS)
        req = ListOffsetsRequest(replica_id=self.replica_id, isolation_level=READ_UNCOMMITTED, topics=[
            ListOffsetsRequest.ListOffsetsTopic(name=tp.topic, partitions=[ListOffsetsRequest.ListOffsetsPartition(
                partition_index=tp.partition, current_leader_epoch=current_leader_epoch, timestamp=timestamp,
                max_num_offsets=1)])])
        resp: ListOffsetsResponse = await client.send(ApiKey.LIST_OFFSETS, req, version=version)
        for t in resp.topics:
            for p in t.partitions:
                if t.name != tp.topic or p.partition_index != tp.partition:
                    continue
                if p.error_code != ErrorCode.NONE:
                    raise LeaderEndPointError(ErrorCode.of(p.error_code), f"ListOffsets({timestamp}) of {tp} from "
                                              f"{client.destination}: {ErrorCode.of(p.error_code)!r}")
                offset = p.old_style_offsets[0] if version == 0 and p.old_style_offsets else p.offset
                return p.leader_epoch, offset
        raise LeaderEndPointError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                  f"ListOffsets from {client.destination} did not answer for {tp}")

    async def close(self) -> None:
        await self.client.close()
