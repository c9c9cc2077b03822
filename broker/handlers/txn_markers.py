"""WriteTxnMarkers (27): the transaction coordinator ends a transaction on the partitions
it touched by writing one COMMIT or ABORT control batch to each, on their leaders.

``write_txn_markers(services, req)`` is the whole operation; the coordinator calls it
directly for partitions this broker leads and sends api 27 to the other leaders, whose
handler (registered here) calls the same function. Per partition, Kafka's rules: unknown
partition UNKNOWN_TOPIC_OR_PARTITION, not the leader NOT_LEADER_OR_FOLLOWER, a producer
epoch older than the partition's INVALID_PRODUCER_EPOCH, a coordinator epoch older than the
last marker's TRANSACTION_COORDINATOR_FENCED. The marker is appended with origin
"coordinator" and acks=all: the answer waits until the high watermark passes it (as Kafka's
appendRecords with requiredAcks -1 and request.timeout.ms). Appending closes the producer's
transaction in the partition's producer state (an abort enters the .txnindex) and so moves
the last stable offset, and voids the producer's pending produce-time verification there
(broker/txn_verification.py). Markers on ``__consumer_offsets`` that were committed also settle
the group coordinator's pending transactional offsets of that producer.

v2 (KIP-1228) carries the transaction's version; the markers of a version 2 transaction
already carry its bumped epoch, which fences the previous epoch's late batches.

Kafka requires ClusterAction on the cluster for this broker-to-broker API; kafpy has no
authorizer yet, so it is served to anyone. Nothing on disk of its own; event loop only.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import WriteTxnMarkersResponse
from kafpy.protocol.messages import WriteTxnMarkersRequest
from kafpy.protocol.records import CONTROL_ABORT, CONTROL_COMMIT, build_control_batch
from kafpy.protocol.topics import GROUP_METADATA_TOPIC_NAME
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.handler import Handler, RequestContext

if TYPE_CHECKING:
    from kafpy.broker.services import BrokerServices

log = logging.getLogger("kafka.server.KafkaApis")

# Kafka's request.timeout.ms default: how long a marker waits for the ISR
MARKER_COMMIT_TIMEOUT_MS = 30000


def _marker_refusal(services: "BrokerServices", topic: str, index: int,
                    marker: WriteTxnMarkersRequest.WritableTxnMarker) -> ErrorCode | None:
    """Why a leader refuses ``marker`` before appending (a fenced producer or coordinator
    epoch); None to append. Unknown partitions and lost leadership are append_records' to
    answer."""
    part = services.replica_manager.get_partition(topic, index)
    if part is None or not part.is_leader:
        return None
    refusal = part.log.producer_state.marker_refusal(marker.producer_id, marker.producer_epoch,
                                                     marker.coordinator_epoch, marker.transaction_version)
    if refusal is not None:
        log.info("refusing %s marker of producer %d (epoch %d, coordinator epoch %d) on %s-%d: %s",
                 "commit" if marker.transaction_result else "abort", marker.producer_id,
                 marker.producer_epoch, marker.coordinator_epoch, topic, index, refusal.name)
    return refusal


async def write_txn_markers(services: "BrokerServices", req: WriteTxnMarkersRequest) -> WriteTxnMarkersResponse:
    """Write every marker of ``req`` (a WriteTxnMarkersRequest) on this broker's partitions and
    answer once each is committed or failed. Never raises for a partition's failure."""
    rm = services.replica_manager
    verifier = services.txn_verifier
    now_ms = services.now_ms()
    markers_out = []
    appends: list[tuple[list, asyncio.Future]] = []  # (partition results, their append_records future)
    for marker in req.markers:
        topics_out = []
        entries: list[tuple[str, int, bytes]] = []
        pending: list = []
        batch = build_control_batch(CONTROL_COMMIT if marker.transaction_result else CONTROL_ABORT,
                                    producer_id=marker.producer_id, producer_epoch=marker.producer_epoch,
                                    coordinator_epoch=marker.coordinator_epoch, timestamp=now_ms)
        for t in marker.topics:
            parts_out = []
            for index in t.partition_indexes:
                pr = WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult(partition_index=index, error_code=ErrorCode.NONE)
                parts_out.append(pr)
                refusal = _marker_refusal(services, t.name, index, marker)
                if refusal is not None:
                    pr.error_code = refusal
                    continue
                entries.append((t.name, index, batch))
                pending.append(pr)
            topics_out.append(WriteTxnMarkersResponse.WritableTxnMarkerTopicResult(name=t.name, partitions=parts_out))
        markers_out.append(WriteTxnMarkersResponse.WritableTxnMarkerResult(producer_id=marker.producer_id, topics=topics_out))
        if entries:
            pid = marker.producer_id
            on_appended = None if verifier is None else (lambda topic, index, _info, pid=pid:
                                                         verifier.on_marker(topic, index, pid))
            # one marker's appends at a time, in request order: the next marker's checks see them
            appends.append((pending, rm.append_records(MARKER_COMMIT_TIMEOUT_MS, -1, "coordinator", entries,
                                                       internal_topics_allowed=True, on_appended=on_appended)))
    for pending, fut in appends:
        for pr, (error, _, _, _) in zip(pending, await fut):
            pr.error_code = error
    _complete_offset_commits(services, req, markers_out)
    return WriteTxnMarkersResponse(markers=markers_out)


def _complete_offset_commits(services: "BrokerServices", req: WriteTxnMarkersRequest,
                             markers_out: list[WriteTxnMarkersResponse.WritableTxnMarkerResult]) -> None:
    """Tell the group coordinator which ``__consumer_offsets`` partitions took a marker."""
    gc = services.group_coordinator
    if gc is None:
        return
    for marker, result in zip(req.markers, markers_out):
        partitions = [p.partition_index for t in result.topics if t.name == GROUP_METADATA_TOPIC_NAME
                      for p in t.partitions if p.error_code == ErrorCode.NONE]
        if partitions:
            gc.on_transaction_completed(marker.producer_id, partitions, bool(marker.transaction_result))


async def handle_write_txn_markers(ctx: RequestContext, req: WriteTxnMarkersRequest) -> WriteTxnMarkersResponse:
    return await write_txn_markers(ctx.services, req)


HANDLERS = [Handler(ApiKey.WRITE_TXN_MARKERS, 0, 2, handle_write_txn_markers)]
