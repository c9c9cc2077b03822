"""ListOffsets (2) and OffsetForLeaderEpoch (23).

A new leader whose high watermark has not reached the start of its leader epoch yet does not
know where its committed records end: it answers a client's LATEST (and a timestamp it finds
nothing for) with OFFSET_NOT_AVAILABLE until it does (Partition.fetchOffsetForTimestamp).
The tiered-storage specs (LATEST_TIERED -5, v9; EARLIEST_PENDING_UPLOAD -6, v11) answer
offset -1, as Kafka's log does without remote storage."""
from __future__ import annotations

import logging

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import ListOffsetsResponse, OffsetForLeaderEpochResponse
from kafpy.protocol.messages import ListOffsetsRequest, OffsetForLeaderEpochRequest
from kafpy.protocol.api_keys import ApiKey
from kafpy.storage.errors import StorageError
from kafpy.storage.log import Log
from kafpy.replication.partition import Partition

from kafpy.broker.handler import Handler, RequestContext

log = logging.getLogger("kafka.server.KafkaApis")


LATEST = -1
EARLIEST = -2
MAX_TIMESTAMP = -3
EARLIEST_LOCAL = -4
LATEST_TIERED = -5
EARLIEST_PENDING_UPLOAD = -6   # v11 (KIP-1023)


def _check_leader(part: Partition, current_leader_epoch: int) -> ErrorCode:
    """Only the leader answers, and only for the epoch the client expects (KIP-320)."""
    if not part.is_leader:
        return ErrorCode.NOT_LEADER_OR_FOLLOWER
    if current_leader_epoch >= 0 and current_leader_epoch != part.leader_epoch:
        return ErrorCode.FENCED_LEADER_EPOCH if current_leader_epoch < part.leader_epoch else ErrorCode.UNKNOWN_LEADER_EPOCH
    return ErrorCode.NONE


async def handle_list_offsets(ctx: RequestContext, req: ListOffsetsRequest) -> ListOffsetsResponse:
    rm = ctx.services.replica_manager
    v = ctx.api_version
    read_committed = v >= 2 and req.isolation_level == 1
    is_follower = req.replica_id >= 0
    topics = []
    for t in req.topics:
        parts = []
        for p in t.partitions:
            pr = ListOffsetsResponse.ListOffsetsPartitionResponse(partition_index=p.partition_index, error_code=ErrorCode.NONE,
                                                                  timestamp=-1, offset=-1, leader_epoch=-1, old_style_offsets=[])
            parts.append(pr)
            part = rm.get_partition(t.name, p.partition_index)
            if part is None:
                pr.error_code = rm.partition_error(t.name, p.partition_index)
                continue
            err = _check_leader(part, p.current_leader_epoch if v >= 4 else -1)
            if err:
                pr.error_code = err
                continue
            lg = part.log
            ts = p.timestamp
            # a client asks, and this new leader's HW is behind the start of its epoch
            hw_lagging = not is_follower and part.leader_epoch_start_offset > lg.high_watermark
            if hw_lagging and ts == LATEST:
                pr.error_code = ErrorCode.OFFSET_NOT_AVAILABLE
                continue
            found: tuple[int, int, int] | None
            try:
                if ts == LATEST:
                    off = lg.log_end_offset if is_follower else lg.high_watermark
                    if read_committed:
                        off = lg.last_stable_offset
                    found = (off, -1, part.leader_epoch)
                elif ts in (EARLIEST, EARLIEST_LOCAL):
                    found = (lg.log_start_offset, -1, _epoch_at(lg, lg.log_start_offset))
                elif ts in (LATEST_TIERED, EARLIEST_PENDING_UPLOAD):
                    found = (-1, -1, -1)    # as Kafka's log without remote storage
                else:
                    found = lg.fetch_offset_by_timestamp(ts)
                    # a client sees only what it may fetch: below the HW, or the LSO for read_committed
                    fetchable = lg.last_stable_offset if read_committed else lg.high_watermark
                    if found is not None and ts >= 0 and not is_follower and found[0] >= fetchable:
                        found = None
            except StorageError as e:
                pr.error_code = e.error_code
                continue
            except Exception:
                log.exception("ListOffsets failed for %s-%d", t.name, p.partition_index)
                pr.error_code = ErrorCode.UNKNOWN_SERVER_ERROR
                continue
            if v == 0:
                if found is not None and found[0] >= 0:
                    pr.old_style_offsets = [found[0]]
                continue
            if found is None:
                if hw_lagging and ts >= 0:
                    pr.error_code = ErrorCode.OFFSET_NOT_AVAILABLE
                continue  # no record at or after the timestamp: offset -1, timestamp -1
            pr.offset, pr.timestamp, pr.leader_epoch = found[0], found[1], found[2]
        topics.append(ListOffsetsResponse.ListOffsetsTopicResponse(name=t.name, partitions=parts))
    return ListOffsetsResponse(throttle_time_ms=0, topics=topics)


def _epoch_at(lg: Log, offset: int) -> int:
    """The leader epoch of the batch holding ``offset`` (-1 if the cache has none)."""
    return lg.leader_epoch_cache.epoch_for_offset(offset)


async def handle_offset_for_leader_epoch(ctx: RequestContext, req: OffsetForLeaderEpochRequest) -> OffsetForLeaderEpochResponse:
    rm = ctx.services.replica_manager
    topics = []
    for t in req.topics:
        parts = []
        for p in t.partitions:
            e = OffsetForLeaderEpochResponse.EpochEndOffset(error_code=ErrorCode.NONE, partition=p.partition, leader_epoch=-1, end_offset=-1)
            parts.append(e)
            part = rm.get_partition(t.topic, p.partition)
            if part is None:
                e.error_code = rm.partition_error(t.topic, p.partition)
                continue
            err = _check_leader(part, p.current_leader_epoch if ctx.api_version >= 2 else -1)
            if err:
                e.error_code = err
                continue
            if p.leader_epoch == part.leader_epoch:
                # the current epoch ends at the log end
                e.leader_epoch, e.end_offset = part.leader_epoch, part.log.log_end_offset
            else:
                e.leader_epoch, e.end_offset = part.log.leader_epoch_cache.end_offset_for(p.leader_epoch)
        topics.append(OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult(topic=t.topic, partitions=parts))
    return OffsetForLeaderEpochResponse(throttle_time_ms=0, topics=topics)


HANDLERS = [
    Handler(ApiKey.LIST_OFFSETS, 0, 11, handle_list_offsets),
    Handler(ApiKey.OFFSET_FOR_LEADER_EPOCH, 0, 4, handle_offset_for_leader_epoch),
]
