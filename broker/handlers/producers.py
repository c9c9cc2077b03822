"""DescribeProducers (61): the active producers of partitions this broker leads, from each
partition's producer state (what `kafka-transactions.sh describe-producers` lists, and what
finding a hanging transaction starts from). Only the leader answers
(NOT_LEADER_OR_FOLLOWER otherwise), as Kafka's ReplicaManager.activeProducerState.
"""
from __future__ import annotations

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import DescribeProducersResponse
from kafpy.protocol.messages import DescribeProducersRequest
from kafpy.protocol.api_keys import ApiKey
from kafpy.storage.log import Log

from kafpy.broker.handler import Handler, RequestContext


def _active_producers(log: Log) -> list[DescribeProducersResponse.ProducerState]:
    out = []
    for pid, e in sorted(log.producer_state.producers.items()):
        out.append(DescribeProducersResponse.ProducerState(producer_id=pid, producer_epoch=e.epoch, last_sequence=e.last_seq,
                                                           last_timestamp=e.last_timestamp, coordinator_epoch=e.coordinator_epoch,
                                                           current_txn_start_offset=e.current_txn_first_offset))
    return out


async def handle_describe_producers(ctx: RequestContext, req: DescribeProducersRequest) -> DescribeProducersResponse:
    rm = ctx.services.replica_manager
    topics = []
    for t in req.topics:
        parts = []
        for index in t.partition_indexes:
            pr = DescribeProducersResponse.PartitionResponse(partition_index=index, error_code=ErrorCode.NONE)
            part = rm.get_partition(t.name, index)
            if part is None:
                pr.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            elif not part.is_leader:
                pr.error_code = ErrorCode.NOT_LEADER_OR_FOLLOWER
            else:
                pr.active_producers = _active_producers(part.log)
            parts.append(pr)
        topics.append(DescribeProducersResponse.TopicResponse(name=t.name, partitions=parts))
    return DescribeProducersResponse(throttle_time_ms=0, topics=topics)


HANDLERS = [Handler(ApiKey.DESCRIBE_PRODUCERS, 0, 0, handle_describe_producers)]
