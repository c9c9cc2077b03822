"""Writes transaction markers on the partitions' leaders (Kafka's
TransactionMarkerChannelManager): one WriteTxnMarkers request per leader, to this broker
by a direct call of its WriteTxnMarkers handler, to others over a NetworkClient kept per
broker.

A send retries what failed (leader moved, not hosted yet, connection lost) after a short
backoff until every partition has its marker or is gone from the metadata, bounded by
`timeout_ms`: past it the send answers REQUEST_TIMED_OUT and the coordinator sends again
later (so no task outlives a coordinator that gave the partition up for long).

Who calls it: the TransactionCoordinator through `send` (MarkerChannel); the service
builds and closes it. Event loop thread only. Nothing on disk.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import TYPE_CHECKING, Awaitable, Callable

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import WriteTxnMarkersRequest, WriteTxnMarkersResponse
from kafpy.protocol.api_keys import ApiKey

from kafpy.coordinator.transaction.clients import BrokerClients
from kafpy.coordinator.transaction.markers import TxnMarker
from kafpy.coordinator.transaction.state import TopicPartition
from kafpy.replication.tasks import cancel_and_wait

if TYPE_CHECKING:
    from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
    from kafpy.replication.network_client import NetworkClient

log = logging.getLogger("kafka.coordinator.transaction.TransactionMarkerChannelManager")

# The partition's leader refused for a reason that will not change by retrying.
_GIVE_UP = (ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.TRANSACTION_COORDINATOR_FENCED)

LocalWriter = Callable[[WriteTxnMarkersRequest], Awaitable[WriteTxnMarkersResponse]]


def marker_request(marker: TxnMarker, partitions: list[TopicPartition]) -> WriteTxnMarkersRequest:
    by_topic: dict[str, list[int]] = defaultdict(list)
    for topic, p in partitions:
        by_topic[topic].append(p)
    return WriteTxnMarkersRequest(markers=[WriteTxnMarkersRequest.WritableTxnMarker(
        producer_id=marker.producer_id, producer_epoch=marker.producer_epoch,
        transaction_result=marker.committed, coordinator_epoch=marker.coordinator_epoch,
        transaction_version=marker.transaction_version,
        topics=[WriteTxnMarkersRequest.WritableTxnMarkerTopic(name=t, partition_indexes=ps)
                for t, ps in by_topic.items()])])


def partition_errors(resp: WriteTxnMarkersResponse, producer_id: int
                     ) -> dict[TopicPartition, ErrorCode]:
    return {(t.name, p.partition_index): ErrorCode(p.error_code)
            for m in resp.markers if m.producer_id == producer_id
            for t in m.topics for p in t.partitions}


class TxnMarkerSender:
    """`client_factory(broker_info)` makes a NetworkClient for a broker (host, port,
    node_id); `write_local(request)` is this broker's WriteTxnMarkers."""

    def __init__(self, broker_id: int, metadata_cache: MetadataCache, write_local: LocalWriter,
                 client_factory: Callable[[BrokerInfo], NetworkClient], loop: asyncio.AbstractEventLoop,
                 timeout_ms: int = 30_000, retry_backoff_ms: int = 100) -> None:
        self.broker_id = broker_id
        self._metadata = metadata_cache
        self._write_local = write_local
        self._loop = loop
        self._timeout_s = timeout_ms / 1000
        self._backoff_s = retry_backoff_ms / 1000
        self._clients = BrokerClients(metadata_cache, client_factory)
        self._tasks: set[asyncio.Task] = set()

    def send(self, marker: TxnMarker) -> asyncio.Future:
        done = self._loop.create_future()
        task = self._loop.create_task(self._send_until_done(marker))
        self._tasks.add(task)

        def finished(t: asyncio.Task) -> None:
            self._tasks.discard(t)
            if done.done():
                return
            if t.cancelled():
                done.cancel()
            elif t.exception() is not None:
                log.error("sending markers for %s failed", marker.transactional_id,
                          exc_info=t.exception())
                done.set_result(ErrorCode.UNKNOWN_SERVER_ERROR)
            else:
                done.set_result(t.result())
        task.add_done_callback(finished)
        return done

    async def close(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        for t in list(self._tasks):
            await cancel_and_wait(t)
        await self._clients.close()

    # ------------------------------------------------------------------ one marker
    async def _send_until_done(self, marker: TxnMarker) -> ErrorCode:
        try:
            return await asyncio.wait_for(self._send_all(marker), self._timeout_s)
        except asyncio.TimeoutError:
            return ErrorCode.REQUEST_TIMED_OUT

    def _leader(self, tp: TopicPartition) -> int | None:
        """The partition's leader; None when the partition is gone, -1 while leaderless."""
        info = self._metadata.topic(tp[0])
        part = None if info is None else info.partitions.get(tp[1])
        return None if part is None else part.leader

    async def _send_all(self, marker: TxnMarker) -> ErrorCode:
        remaining = set(marker.partitions)
        while True:
            by_leader: dict[int, list[TopicPartition]] = defaultdict(list)
            for tp in sorted(remaining):
                leader = self._leader(tp)
                if leader is None:
                    log.info("partition %s-%d is gone: no %s marker for %s", tp[0], tp[1],
                             "COMMIT" if marker.committed else "ABORT", marker.transactional_id)
                    remaining.discard(tp)
                elif leader >= 0:
                    by_leader[leader].append(tp)
            results = await asyncio.gather(*(self._send_to(node, marker, tps)
                                             for node, tps in by_leader.items()))
            for errors in results:
                for tp, error in errors.items():
                    if error == ErrorCode.NONE:
                        remaining.discard(tp)
                    elif error in _GIVE_UP:
                        log.warning("marker for %s on %s-%d refused: %s", marker.transactional_id,
                                    tp[0], tp[1], error.name)
                        return error
            if not remaining:
                return ErrorCode.NONE
            await asyncio.sleep(self._backoff_s)

    async def _send_to(self, node: int, marker: TxnMarker, partitions: list[TopicPartition]
                       ) -> dict[TopicPartition, ErrorCode]:
        request = marker_request(marker, partitions)
        try:
            if node == self.broker_id:
                resp = await self._write_local(request)
            else:
                resp = await self._clients.get(node).send(ApiKey.WRITE_TXN_MARKERS, request)
            errors = partition_errors(resp, marker.producer_id)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - connection trouble: retried
            log.info("WriteTxnMarkers to broker %d failed: %s; retrying", node, e)
            errors = {}
        return {tp: errors.get(tp, ErrorCode.NETWORK_EXCEPTION) for tp in partitions}

