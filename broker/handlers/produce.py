"""Produce (0): append record batches to partition logs with acks 0, 1 or -1.

Batches stay opaque bytes: the log validates headers and CRCs, assigns offsets in place and
writes them in one go. Only the leader accepts a write (NOT_LEADER_OR_FOLLOWER otherwise).
acks=-1 answers once every partition's high watermark covers its batch: at once when it
already does (a standalone broker is its whole ISR), else the response parks in the produce
purgatory for the request's timeout. With acks=0 there is no response at all, as in Kafka; if
a partition failed, the connection is closed instead, so the producer notices.
A transactional batch that would start its producer's transaction on a partition waits for
the transaction coordinator's verification first (KIP-890, broker/txn_verification.py);
from v12 (transaction version 2) the coordinator adds the partition to the transaction
instead, as the client no longer sends AddPartitionsToTxn, and an add told
CONCURRENT_TRANSACTIONS is asked again for up to add.partitions.to.txn.retry.backoff.max.ms.
v13 (KIP-516) names topics by id: an id this broker does not know is UNKNOWN_TOPIC_ID.
"""
from __future__ import annotations

import asyncio
import logging
import struct

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import ProduceResponse
from kafpy.protocol.messages import ProduceRequest
from kafpy.protocol.compression import ZSTD
from kafpy.protocol.records import (ATTRIBUTES_LOW_BYTE_OFFSET, BATCH_HEADER_SIZE, BATCH_LENGTH_OFFSET,
                                    COMPRESSION_MASK, LOG_OVERHEAD, MAGIC_OFFSET, TRANSACTIONAL_MASK)
from kafpy.protocol.api_keys import ApiKey

from kafpy.replication.log_append import RecordErrorsMessage
from kafpy.replication.partition import Partition

from kafpy.broker.handler import CloseConnection, Handler, RequestContext
from kafpy.broker.produce_checks import HEAVY_RECORDS, checks_for, existing
from kafpy.broker.txn_verification import produce_error, transactional_producer

log = logging.getLogger("kafka.server.ReplicaManager")

# a batch's verification: (producer id, epoch, the verifier's guard, the coordinator's answer)
VerifiedBatch = tuple[int, int, object, ErrorCode]
_I32 = struct.Struct(">i")
# The default (absent) current leader every partition's answer carries, shared: the encoder
# only reads it, and a Produce makes one answer per partition.
NO_CURRENT_LEADER = ProduceResponse.LeaderIdAndEpoch()


def validate_records(version: int, records: bytes | bytearray | memoryview) -> tuple[ErrorCode, str] | None:
    """Kafka's checks on a partition's records before the log sees them (ProduceRequest
    .validateRecords): from v3 on, exactly one batch of magic 2, and no zstd before v7.
    Looks at the first batch header only; the log validates the rest."""
    if version < 3:
        return None
    n = len(records)
    if n == 0:
        return ErrorCode.INVALID_RECORD, f"Produce requests with version {version} must have at least one record batch per partition"
    if n <= ATTRIBUTES_LOW_BYTE_OFFSET:
        return None  # too short for a batch header: the log answers CORRUPT_MESSAGE
    if records[MAGIC_OFFSET] != 2:
        return ErrorCode.INVALID_RECORD, (f"Produce requests with version {version} are only allowed to contain record "
                                "batches with magic version 2")
    codec = records[ATTRIBUTES_LOW_BYTE_OFFSET] & COMPRESSION_MASK
    if codec > ZSTD:
        return ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, f"Unknown compression type id: {codec}"
    if version < 7 and codec == ZSTD:
        return ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, (f"Produce requests with version {version} are not allowed to use "
                                              "ZStandard compression")
    first = _I32.unpack_from(records, BATCH_LENGTH_OFFSET)[0] + LOG_OVERHEAD
    if first < BATCH_HEADER_SIZE or first > n:
        return None  # a bad batch length: the log answers CORRUPT_MESSAGE
    rest = n - first
    if rest >= LOG_OVERHEAD and 0 <= _I32.unpack_from(records, first + BATCH_LENGTH_OFFSET)[0] + LOG_OVERHEAD <= rest:
        return ErrorCode.INVALID_RECORD, (f"Produce requests with version {version} are only allowed to contain exactly "
                                "one record batch per partition")
    return None


def _has_transactional_records(req: ProduceRequest) -> bool:
    """Whether a partition's first batch has the transactional bit (Kafka's
    RequestUtils.hasTransactionalRecords; v3+ carries one batch per partition). Header
    bytes only."""
    for td in req.topic_data:
        for pd in td.partition_data:
            r = pd.records
            if (r is not None and len(r) > ATTRIBUTES_LOW_BYTE_OFFSET and r[MAGIC_OFFSET] == 2
                    and r[ATTRIBUTES_LOW_BYTE_OFFSET] & TRANSACTIONAL_MASK):
                return True
    return False


async def _verify(ctx: RequestContext, req: ProduceRequest) -> dict[tuple[str, int], VerifiedBatch]:
    """Ask the transaction coordinator about the partitions where a transactional batch
    would start the producer's transaction (broker/txn_verification.py)."""
    verifier = ctx.services.txn_verifier
    assert req.transactional_id is not None   # the caller asks only for a transactional produce
    add = ctx.api_version >= 12
    if verifier is None or not (verifier.enabled or add):
        return {}
    rm = ctx.services.replica_manager
    parts: dict[tuple[str, int], Partition] = {}   # the transactional batches' partitions led here
    producer = None
    starting: list[tuple[str, int]] = []
    for td in req.topic_data:
        for pd in td.partition_data:
            found = transactional_producer(pd.records)
            part = None if found is None else rm.get_partition(td.name, pd.index)
            if found is None or part is None or not part.is_leader:
                continue
            producer = found
            parts[(td.name, pd.index)] = part
            if verifier.needs_verification(part, *found):
                starting.append((td.name, pd.index))
    if producer is None or not (starting or verifier.turn_pending(producer[0])):
        return {}
    pid, epoch = producer
    # the producer's earlier requests go first (and may start the transaction meanwhile)
    turn = await verifier.wait_turn(pid)
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        while True:
            starting = [tp for tp, part in parts.items() if verifier.needs_verification(part, pid, epoch)]
            if not starting:
                return {}
            guards = {tp: verifier.start(tp[0], tp[1], pid) for tp in starting}
            try:
                errors = await verifier.verify(req.transactional_id, pid, epoch, starting, add)
                # v12+: an add told CONCURRENT_TRANSACTIONS is asked again for a while,
                # with fresh guards (the previous transaction's markers void these)
                delay = verifier.add_retry_delay(errors, (loop.time() - started) * 1000) if add else None
                if delay is None:
                    break
            except BaseException:   # the connection went away: these verifications are over
                for tp, guard in guards.items():
                    verifier.done(tp[0], tp[1], pid, guard)
                raise
            for tp, guard in guards.items():
                verifier.done(tp[0], tp[1], pid, guard)
            await asyncio.sleep(delay)
    finally:
        # the turn ends once this task yields, so after the appends it makes in this step
        asyncio.get_running_loop().call_soon(verifier.end_turn, pid, turn)
    out: dict[tuple[str, int], VerifiedBatch] = {}
    for tp in starting:
        error = errors.get(tp, ErrorCode.NONE)
        if error != ErrorCode.NONE:
            log.debug("Produce to %s-%d of transactional id %s not verified: %s", tp[0], tp[1],
                      req.transactional_id, error.name)
        out[tp] = (pid, epoch, guards[tp], error)
    return out


def _verified(ctx: RequestContext, part: Partition, topic: str, index: int, check: VerifiedBatch,
              pr: ProduceResponse.PartitionProduceResponse) -> bool:
    """Whether the verified batch may append: the coordinator agreed and no marker ended
    the transaction since, unless a batch verified alongside started it already (else the
    error is set on `pr`)."""
    verifier = ctx.services.txn_verifier
    assert verifier is not None   # `check` came from it
    pid, epoch, guard, error = check
    if (error == ErrorCode.NONE and not verifier.holds(topic, index, pid, guard)
            and verifier.needs_verification(part, pid, epoch)):
        error = ErrorCode.INVALID_TXN_STATE
    verifier.done(topic, index, pid, guard)
    if error != ErrorCode.NONE:
        pr.error_code, pr.error_message = produce_error(error, ctx.api_version)
        return False
    return True


async def handle_produce(ctx: RequestContext, req: ProduceRequest) -> ProduceResponse | None:
    rm = ctx.services.replica_manager
    acks = req.acks
    topics_out = []
    bad_acks = acks not in (-1, 0, 1)
    # Transactional records need a transactional id (Kafka authorizes WRITE on it and
    # refuses the whole request otherwise); lower producer epochs are the log's to refuse
    # (INVALID_PRODUCER_EPOCH), and a marker moves the partition's epoch on.
    uses_ids = ctx.api_version >= 13
    if uses_ids:   # v13 (KIP-516) names topics by id: "" below stands for an id not known here
        md = ctx.services.metadata_cache
        for td in req.topic_data:
            td.name = md.topic_name(td.topic_id) or ""
    no_txn_id = ctx.api_version >= 3 and req.transactional_id is None and _has_transactional_records(req)
    # KIP-890: (topic, partition) -> (producer id, epoch, guard, error) of the batches verified,
    # or the error to answer; empty unless a transactional batch would start a transaction
    verified: dict[tuple[str, int], VerifiedBatch] = {}
    if req.transactional_id is not None and not no_txn_id and not bad_acks:
        verified = await _verify(ctx, req)
    entries: list[tuple[str, int, bytes]] = []  # what passed the checks, appended in one go
    appended: list = []  # their responses, in the same order
    heavy: list | None = None  # (log, records) to check off the loop first (produce_checks)
    for td in req.topic_data:
        parts_out = []
        for pd in td.partition_data:
            pr = ProduceResponse.PartitionProduceResponse(index=pd.index, error_code=ErrorCode.NONE, base_offset=-1,
                                                          log_append_time_ms=-1, log_start_offset=-1,
                                                          current_leader=NO_CURRENT_LEADER)
            parts_out.append(pr)
            if bad_acks:
                pr.error_code = ErrorCode.INVALID_REQUIRED_ACKS
                continue
            if uses_ids and not td.name:
                pr.error_code = ErrorCode.UNKNOWN_TOPIC_ID
                continue
            if no_txn_id:
                pr.error_code = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                continue
            part = rm.get_partition(td.name, pd.index)  # as Kafka: unknown partitions first
            if part is None:
                pr.error_code = rm.partition_error(td.name, pd.index)
                continue
            if part.is_internal:
                pr.error_code = ErrorCode.INVALID_TOPIC_EXCEPTION
                pr.error_message = f"Cannot append to internal topic {td.name}"
                continue
            if pd.records is None:
                pr.error_code = ErrorCode.CORRUPT_MESSAGE
                continue
            bad = validate_records(ctx.api_version, pd.records)
            if bad is not None:
                pr.error_code, pr.error_message = bad
                continue
            if len(pd.records) == 0:
                pr.error_code = ErrorCode.CORRUPT_MESSAGE
                continue
            check = verified.pop((td.name, pd.index), None) if verified else None
            if check is not None and not _verified(ctx, part, td.name, pd.index, check, pr):
                continue
            if part.log.works_ahead and part.log.records_to_check_ahead(pd.records) > HEAVY_RECORDS:
                heavy = heavy or []
                heavy.append((part.log, pd.records))
            entries.append((td.name, pd.index, pd.records))
            appended.append(pr)
        topics_out.append(ProduceResponse.TopicProduceResponse(name=td.name, topic_id=td.topic_id,
                                                               partition_responses=parts_out))
    for (topic, index), (pid, _, guard, _) in verified.items():  # refused before `_verified`
        assert ctx.services.txn_verifier is not None   # `verified` came from it
        ctx.services.txn_verifier.done(topic, index, pid, guard)
    if entries:
        checks = existing(rm)
        if heavy is not None or (checks is not None and checks.must_wait(entries)):
            results = await checks_for(rm).append(entries, heavy or (), lambda: rm.append_records(
                req.timeout_ms, acks, "client", entries))
        else:
            results = await rm.append_records(req.timeout_ms, acks, "client", entries)
        for pr, (error, message, info, log_start_offset) in zip(appended, results):
            if info is not None:
                pr.base_offset = info.first_offset
                pr.log_append_time_ms = info.log_append_time
            pr.log_start_offset = log_start_offset
            if error:
                pr.error_code = error
                pr.error_message = message
                if isinstance(message, RecordErrorsMessage):
                    pr.record_errors = [ProduceResponse.BatchIndexAndErrorMessage(batch_index=i, batch_index_error_message=m)
                                        for i, m in message.record_errors]
    if acks == 0:
        failed = [(t.name, p.index, p.error_code) for t in topics_out for p in t.partition_responses
                  if p.error_code]
        if failed:
            # No response is expected, so Kafka closes the connection to tell the producer.
            raise CloseConnection(f"Produce with acks=0 failed: {failed[:5]}")
        return None
    return ProduceResponse(responses=topics_out, throttle_time_ms=0)


HANDLERS = [Handler(ApiKey.PRODUCE, 0, 13, handle_produce)]
