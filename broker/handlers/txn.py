"""Transaction coordinator APIs: InitProducerId (22), AddPartitionsToTxn (24),
AddOffsetsToTxn (25), EndTxn (26), DescribeTransactions (65), ListTransactions (66).

Thin glue between decoded requests and `services.txn_coordinator` (a
coordinator.transaction.service.TransactionCoordinatorService). InitProducerId without a
transactional id is the idempotent producer's: a fresh producer id at epoch 0.

Versions: EndTxn v5 is transaction version 2 (KIP-890 part 2: the epoch bumped at every
end, the new producer id and epoch in the answer); v0-4 keep version 1, where epochs
move only in InitProducerId. AddPartitionsToTxn v4+ is the batched form partition
leaders use: verifyOnly for KIP-890 part 1, and without it to add the partitions a
Produce v12 or TxnOffsetCommit v5 of a version 2 transaction wrote to. Errors newer
than a request version are mapped as Kafka maps them (PRODUCER_FENCED is
INVALID_PRODUCER_EPOCH before KIP-588's versions; TRANSACTION_ABORTABLE is
INVALID_TXN_STATE before AddPartitionsToTxn v5). ListTransactions v2 keeps the transactional
ids its TransactionalIdPattern matches whole, with RE2 semantics as Kafka's RE2/J
(INVALID_REGULAR_EXPRESSION for a pattern RE2 refuses).
"""
from __future__ import annotations

import logging

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AddOffsetsToTxnResponse, AddPartitionsToTxnResponse, DescribeTransactionsResponse, EndTxnResponse,
    InitProducerIdResponse, ListTransactionsResponse)
from kafpy.protocol.messages import (AddOffsetsToTxnRequest, AddPartitionsToTxnRequest,
    DescribeTransactionsRequest, EndTxnRequest, InitProducerIdRequest, ListTransactionsRequest)
from kafpy.protocol.topics import GROUP_METADATA_TOPIC_NAME
from kafpy.protocol.user_regex import InvalidUserRegex, compile_user_regex
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.handler import Handler, RequestContext
from kafpy.coordinator.transaction.service import TransactionCoordinatorService
from kafpy.coordinator.transaction.state import TV_0, TV_2

log = logging.getLogger("kafka.server.KafkaApis")


def _fenced(error: ErrorCode, version: int, first_fenced_version: int) -> ErrorCode:
    """PRODUCER_FENCED for clients that know it, else INVALID_PRODUCER_EPOCH (KIP-588)."""
    if error == ErrorCode.PRODUCER_FENCED and version < first_fenced_version:
        return ErrorCode.INVALID_PRODUCER_EPOCH
    return error


def _service(ctx: RequestContext) -> TransactionCoordinatorService:
    service = ctx.services.txn_coordinator
    assert service is not None, "a broker serving transaction APIs has a transaction coordinator"
    return service


# --------------------------------------------------------------------- InitProducerId
async def handle_init_producer_id(ctx: RequestContext, req: InitProducerIdRequest) -> InitProducerIdResponse:
    if req.transactional_id is None:
        pid = await ctx.services.controller.next_producer_id()
        return InitProducerIdResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, producer_id=pid, producer_epoch=0)
    v = ctx.api_version
    pid, epoch = (req.producer_id, req.producer_epoch) if v >= 3 else (-1, -1)
    r = await _service(ctx).init_producer_id(req.transactional_id, req.transaction_timeout_ms, pid, epoch)
    return InitProducerIdResponse(throttle_time_ms=0, error_code=_fenced(r.error, v, 4), producer_id=r.producer_id,
                                  producer_epoch=r.producer_epoch)


# --------------------------------------------------------------------- AddPartitionsToTxn
def _topic_results(errors: dict[tuple[str, int], ErrorCode]) -> list[AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult]:
    by_topic: dict[str, list[AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult]] = {}
    for (topic, p), err in errors.items():
        by_topic.setdefault(topic, []).append(AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult(
            partition_index=p, partition_error_code=err))
    return [AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult(name=t, results_by_partition=ps) for t, ps in by_topic.items()]


async def _add_partitions(ctx: RequestContext, tid: str, pid: int, epoch: int,
                          topics: list[AddPartitionsToTxnRequest.AddPartitionsToTxnTopic],
                          verify_only: bool) -> dict[tuple[str, int], ErrorCode]:
    """Per-partition errors: partitions of unknown topics UNKNOWN_TOPIC_OR_PARTITION and
    the rest OPERATION_NOT_ATTEMPTED, else the coordinator's answer for all of them."""
    parts = [(t.name, p) for t in topics for p in t.partitions]
    svc = _service(ctx)
    if verify_only:
        errors = svc.coordinator.verify_partitions(tid, pid, epoch, parts)
        if ctx.api_version < 5:
            errors = {tp: ErrorCode.INVALID_TXN_STATE if e == ErrorCode.TRANSACTION_ABORTABLE else e for tp, e in errors.items()}
        return errors
    cache = ctx.services.metadata_cache
    unknown = set()
    for topic, p in parts:
        info = cache.topic(topic)
        if info is None or p not in info.partitions:
            unknown.add((topic, p))
    if unknown:
        return {tp: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION if tp in unknown else ErrorCode.OPERATION_NOT_ATTEMPTED for tp in parts}
    # Kafka's transactionVersionForAddPartitionsToTxn: the brokers' versions add for TV2
    tv = TV_2 if ctx.api_version >= 4 else TV_0
    error = await svc.coordinator.add_partitions(tid, pid, epoch, parts, svc.now_ms(), tv)
    error = _fenced(error, ctx.api_version, 2)
    return {tp: error for tp in parts}


async def handle_add_partitions_to_txn(ctx: RequestContext, req: AddPartitionsToTxnRequest) -> AddPartitionsToTxnResponse:
    if ctx.api_version < 4:
        errors = await _add_partitions(ctx, req.v3_and_below_transactional_id, req.v3_and_below_producer_id,
                                       req.v3_and_below_producer_epoch, req.v3_and_below_topics, False)
        return AddPartitionsToTxnResponse(throttle_time_ms=0, results_by_topic_v3_and_below=_topic_results(errors))
    results = []
    for txn in req.transactions:
        errors = await _add_partitions(ctx, txn.transactional_id, txn.producer_id, txn.producer_epoch,
                                       txn.topics, txn.verify_only)
        results.append(AddPartitionsToTxnResponse.AddPartitionsToTxnResult(transactional_id=txn.transactional_id,
                                                                           topic_results=_topic_results(errors)))
    return AddPartitionsToTxnResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, results_by_transaction=results)


# --------------------------------------------------------------------- AddOffsetsToTxn
async def handle_add_offsets_to_txn(ctx: RequestContext, req: AddOffsetsToTxnRequest) -> AddOffsetsToTxnResponse:
    svc = _service(ctx)
    groups = ctx.services.group_coordinator
    assert groups is not None, "a broker serving transaction APIs has a group coordinator"
    partition = groups.classic.partition_for(req.group_id)
    error = await svc.coordinator.add_partitions(req.transactional_id, req.producer_id, req.producer_epoch,
                                                 [(GROUP_METADATA_TOPIC_NAME, partition)], svc.now_ms())
    return AddOffsetsToTxnResponse(throttle_time_ms=0, error_code=_fenced(error, ctx.api_version, 2))


# --------------------------------------------------------------------- EndTxn
async def handle_end_txn(ctx: RequestContext, req: EndTxnRequest) -> EndTxnResponse:
    v = ctx.api_version
    r = await _service(ctx).end_txn(req.transactional_id, req.producer_id, req.producer_epoch,
                                    req.committed, TV_2 if v >= 5 else TV_0)
    return EndTxnResponse(throttle_time_ms=0, error_code=_fenced(r.error, v, 2),
                          producer_id=r.producer_id, producer_epoch=r.producer_epoch)


# --------------------------------------------------------------------- admin
async def handle_describe_transactions(ctx: RequestContext, req: DescribeTransactionsRequest) -> DescribeTransactionsResponse:
    states = []
    for tid in req.transactional_ids:
        error, txn = _service(ctx).coordinator.describe(tid)
        if txn is None:
            states.append(DescribeTransactionsResponse.TransactionState(error_code=error, transactional_id=tid, transaction_state="",
                                                                        transaction_timeout_ms=0, transaction_start_time_ms=-1,
                                                                        producer_id=-1, producer_epoch=-1, topics=[]))
            continue
        by_topic: dict[str, list[int]] = {}
        for topic, p in sorted(txn.partitions):
            by_topic.setdefault(topic, []).append(p)
        states.append(DescribeTransactionsResponse.TransactionState(
            error_code=ErrorCode.NONE, transactional_id=tid, transaction_state=txn.state.state_name,
            transaction_timeout_ms=txn.txn_timeout_ms, transaction_start_time_ms=txn.txn_start_timestamp,
            producer_id=txn.producer_id, producer_epoch=txn.producer_epoch,
            topics=[DescribeTransactionsResponse.TopicData(topic=t, partitions=ps) for t, ps in by_topic.items()]))
    return DescribeTransactionsResponse(throttle_time_ms=0, transaction_states=states)


async def handle_list_transactions(ctx: RequestContext, req: ListTransactionsRequest) -> ListTransactionsResponse:
    svc = _service(ctx)
    coordinator = svc.coordinator
    if coordinator.loading:
        return ListTransactionsResponse(throttle_time_ms=0, error_code=ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, unknown_state_filters=[],
                                        transaction_states=[])
    duration = req.duration_filter if ctx.api_version >= 1 else -1
    pattern = req.transactional_id_pattern if ctx.api_version >= 2 else None
    match = None
    if pattern:   # v2 (KIP-1152): ids the whole RE2 pattern matches; null or empty: every id
        try:
            match = compile_user_regex(pattern).fullmatch
        except InvalidUserRegex as e:
            log.info("ListTransactions with an invalid transactional id pattern %r: %s", pattern, e)
            return ListTransactionsResponse(throttle_time_ms=0, error_code=ErrorCode.INVALID_REGULAR_EXPRESSION,
                                            unknown_state_filters=[], transaction_states=[])
    unknown, found = coordinator.list_transactions(req.state_filters, req.producer_id_filters, duration,
                                                   svc.now_ms(), match)
    return ListTransactionsResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, unknown_state_filters=unknown, transaction_states=[
        ListTransactionsResponse.TransactionState(transactional_id=t.transactional_id, producer_id=t.producer_id,
                                                  transaction_state=t.state.state_name) for t in found])


HANDLERS = [
    Handler(ApiKey.INIT_PRODUCER_ID, 0, 5, handle_init_producer_id),
    Handler(ApiKey.ADD_PARTITIONS_TO_TXN, 0, 5, handle_add_partitions_to_txn),
    Handler(ApiKey.ADD_OFFSETS_TO_TXN, 0, 4, handle_add_offsets_to_txn),
    Handler(ApiKey.END_TXN, 0, 5, handle_end_txn),
    Handler(ApiKey.DESCRIBE_TRANSACTIONS, 0, 0, handle_describe_transactions),
    Handler(ApiKey.LIST_TRANSACTIONS, 0, 2, handle_list_transactions),
]
