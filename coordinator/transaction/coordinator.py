"""The transaction coordinator: a state machine with the clock passed in (Kafka's
TransactionCoordinator and TransactionStateManager). Each transaction keeps the version
its client speaks: version 0/1 (EndTxn v0-4, AddPartitionsToTxn v0-3 from the client)
bumps the epoch only in InitProducerId; version 2 (KIP-890 part 2: EndTxn v5+, and the
partitions added by the partition leaders' AddPartitionsToTxn v4+ for Produce v12 and
TxnOffsetCommit v5) bumps it at every commit or abort, answers EndTxn with the new
producer id and epoch, and moves an exhausted epoch to a new producer id.

Who calls it: the broker glue (broker/handlers/txn.py), the service (leadership of
`__transaction_state` partitions, the timer calling `poll`), tests and tools, all on one
thread, so nothing here locks. Every request method takes `now_ms` and answers through
a completion made by `future_factory` (asyncio's on the broker).

What it keeps on disk: nothing itself. Each transactional id's state is written by its
CoordinatorWriter (coordinator/result.py, the coordinators' one write path) to a
TransactionLog (Kafka's OffsetsLog interface: one `__transaction_state` partition per
id) in Kafka's record format; a state is applied only once its write is committed, and
meanwhile the id answers CONCURRENT_TRANSACTIONS. After PrepareCommit/PrepareAbort is
written the client is answered, the markers go out through a MarkerChannel, and then
CompleteCommit/CompleteAbort is written; a failed step is retried from `poll`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Iterable, cast

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.result import CoordinatorWriter
from kafpy.coordinator.group.offsets_log import Completion, ImmediateFuture, OffsetsLog, Record, completion_error
from kafpy.coordinator.group.partitioner import partition_for
from kafpy.coordinator.transaction.config import TransactionCoordinatorConfig
from kafpy.coordinator.transaction.markers import MarkerChannel, TxnMarker
from kafpy.coordinator.transaction.records import (decode_key, decode_value, encode_key,
                                                   encode_value, value_version)
from kafpy.coordinator.transaction.state import (
    MAX_PRODUCER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, TV_0, TV_2, TopicPartition,
    TransactionMetadata, TxnState, TxnTransit, is_epoch_exhausted, supports_epoch_bump)

log = logging.getLogger("kafka.coordinator.transaction.TransactionCoordinator")

# Wait before retrying markers or the Complete write that failed (Kafka's retry backoff).
RETRY_BACKOFF_MS = 100
_PREPARED = (TxnState.PREPARE_COMMIT, TxnState.PREPARE_ABORT)


@dataclass(frozen=True)
class InitProducerIdResult:
    error: ErrorCode
    producer_id: int = -1
    producer_epoch: int = -1


@dataclass(frozen=True)
class EndTxnResult:
    """EndTxn's answer; v5+ carries the producer id and epoch the client goes on with."""

    error: ErrorCode
    producer_id: int = -1
    producer_epoch: int = -1


Respond = Callable[[ErrorCode], None]


def _append_error(error: ErrorCode) -> ErrorCode:
    """Kafka's mapping of a failed transaction log append to what the client sees."""
    if error in (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_ENOUGH_REPLICAS,
                 ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, ErrorCode.REQUEST_TIMED_OUT):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if error in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR):
        return ErrorCode.NOT_COORDINATOR
    if error in (ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE):
        return ErrorCode.UNKNOWN_SERVER_ERROR
    return error


class TransactionCoordinator:
    """Transactional ids whose `__transaction_state` partition this broker leads.
    `transaction_version()` is the cluster's finalized transaction.version (it picks the
    TransactionLogValue version written)."""

    def __init__(self, config: TransactionCoordinatorConfig, txn_log: OffsetsLog,
                 markers: MarkerChannel, new_producer_id: Callable[[], int],
                 future_factory: Callable[[], Completion] = ImmediateFuture,
                 transaction_version: Callable[[], int] = lambda: TV_0) -> None:
        self.config = config
        self._transaction_version = transaction_version
        self.log = txn_log
        # the one write path of the coordinators (coordinator/result.py)
        self.writer = CoordinatorWriter(txn_log, future_factory, "transaction coordinator")
        self.markers = markers
        self._new_producer_id = new_producer_id
        self._future = future_factory
        self.txns: dict[str, TransactionMetadata] = {}
        # partition -> coordinator epoch (its leader epoch) while this broker owns it
        self.owned: dict[int, int] = {}
        self.loading: set[int] = set()
        # id -> the coordinator epoch of the markers out for it (a reload at a new epoch
        # sends its own; the old send's late answer must not clear the new one)
        self._markers_in_flight: dict[str, int] = {}
        self._markers_written: set[str] = set()
        # id -> when to retry the markers or the Complete write of a prepared transaction
        self._retry_at: dict[str, int] = {}
        self._now_ms = 0
        self._next_abort_check = 0
        self._next_expiration_check = 0

    # ================================================================ lookups
    def partition_for(self, transactional_id: str) -> int:
        return partition_for(transactional_id, self.config.transaction_state_log_num_partitions)

    def _lookup(self, transactional_id: str) -> tuple[ErrorCode, int, TransactionMetadata | None]:
        """(error, coordinator epoch, metadata or None) of an id this broker may own."""
        partition = self.partition_for(transactional_id)
        if partition in self.loading:
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, -1, None
        epoch = self.owned.get(partition)
        if epoch is None:
            return ErrorCode.NOT_COORDINATOR, -1, None
        return ErrorCode.NONE, epoch, self.txns.get(transactional_id)

    def _done(self, value: object) -> Completion:
        fut = self._future()
        fut.set_result(value)
        return fut

    def _still_owner(self, txn: TransactionMetadata, coordinator_epoch: int) -> bool:
        return (self.owned.get(self.partition_for(txn.transactional_id)) == coordinator_epoch
                and self.txns.get(txn.transactional_id) is txn)

    def _write(self, txn: TransactionMetadata, transit: TxnTransit, coordinator_epoch: int,
               on_done: Callable[[ErrorCode], None]) -> None:
        """Write `transit` (already pending on `txn`); apply it once committed, drop it on
        failure; then `on_done(error as the client sees it)`."""
        tid = txn.transactional_id
        value = (None if transit.state == TxnState.DEAD
                 else encode_value(transit, value_version(self._transaction_version())))

        def written(error: ErrorCode) -> None:
            if not self._still_owner(txn, coordinator_epoch):
                txn.abort_transit()
                on_done(ErrorCode.NOT_COORDINATOR)
                return
            if error != ErrorCode.NONE:
                log.warning("writing %s for transactional id %s failed: %s",
                            transit.state.state_name, tid, error.name)
                txn.abort_transit()
                on_done(_append_error(error))
                return
            txn.complete_transit()
            if txn.state == TxnState.DEAD:
                del self.txns[tid]
            on_done(ErrorCode.NONE)
        self.writer.write(self.partition_for(tid), [(encode_key(tid), value)], self._now_ms, written)

    # ================================================================ InitProducerId
    def init_producer_id(self, transactional_id: str, timeout_ms: int, producer_id: int,
                         producer_epoch: int, now_ms: int) -> Completion:
        """A transactional producer starts (or recovers): its producer id and a bumped
        epoch, fencing older instances. An ongoing transaction is aborted first and
        CONCURRENT_TRANSACTIONS answered (the client retries)."""
        self._now_ms = now_ms
        if not transactional_id:
            return self._done(InitProducerIdResult(ErrorCode.INVALID_REQUEST))
        if not 0 < timeout_ms <= self.config.transaction_max_timeout_ms:
            return self._done(InitProducerIdResult(ErrorCode.INVALID_TRANSACTION_TIMEOUT))
        error, coordinator_epoch, txn = self._lookup(transactional_id)
        if error != ErrorCode.NONE:
            return self._done(InitProducerIdResult(error))
        if txn is None:
            txn = TransactionMetadata(transactional_id, self._new_producer_id(),
                                      txn_timeout_ms=timeout_ms, state=TxnState.EMPTY,
                                      txn_last_update_timestamp=now_ms)
            self.txns[transactional_id] = txn
        expected = None if producer_id == -1 and producer_epoch == -1 else (producer_id,
                                                                              producer_epoch)
        result = self._prepare_init(txn, timeout_ms, expected, now_ms)
        if isinstance(result, ErrorCode):
            return self._done(InitProducerIdResult(result))
        fut = self._future()
        if result.state == TxnState.PREPARE_EPOCH_FENCE:
            def fenced(err: ErrorCode) -> None:
                _drop_fence(txn)
                fut.set_result(InitProducerIdResult(err if err != ErrorCode.NONE
                                                    else ErrorCode.CONCURRENT_TRANSACTIONS))
            self._end_txn(transactional_id, result.producer_id, result.producer_epoch, False,
                          False, now_ms, fenced)
            return fut

        def written(err: ErrorCode) -> None:
            fut.set_result(InitProducerIdResult(err) if err != ErrorCode.NONE else
                           InitProducerIdResult(ErrorCode.NONE, result.producer_id,
                                                result.producer_epoch))
        self._write(txn, result, coordinator_epoch, written)
        return fut

    def _prepare_init(self, txn: TransactionMetadata, timeout_ms: int,
                      expected: tuple[int, int] | None, now_ms: int) -> TxnTransit | ErrorCode:
        if txn.pending is not None:
            return ErrorCode.CONCURRENT_TRANSACTIONS
        if expected is not None and not _is_valid_producer_id(txn, *expected):
            return ErrorCode.PRODUCER_FENCED
        if txn.state in _PREPARED:
            return ErrorCode.CONCURRENT_TRANSACTIONS
        if txn.state in (TxnState.EMPTY, TxnState.COMPLETE_COMMIT, TxnState.COMPLETE_ABORT):
            if txn.is_epoch_exhausted:
                if expected is not None and expected[1] != txn.producer_epoch:
                    return ErrorCode.PRODUCER_FENCED
                return txn.prepare_producer_id_rotation(self._new_producer_id(), timeout_ms,
                                                        expected is not None, now_ms)
            transit = txn.prepare_increment_epoch(
                timeout_ms, None if expected is None else expected[1], now_ms)
            return ErrorCode.PRODUCER_FENCED if transit is None else transit
        if txn.state == TxnState.ONGOING:
            return txn.prepare_fence_epoch()
        return ErrorCode.CONCURRENT_TRANSACTIONS

    # ================================================================ AddPartitionsToTxn
    def _check_producer(self, txn: TransactionMetadata | None, producer_id: int,
                        producer_epoch: int) -> ErrorCode:
        if txn is None or txn.producer_id != producer_id:
            return ErrorCode.INVALID_PRODUCER_ID_MAPPING
        if txn.producer_epoch != producer_epoch:
            return ErrorCode.PRODUCER_FENCED
        return ErrorCode.NONE

    def add_partitions(self, transactional_id: str, producer_id: int, producer_epoch: int,
                       partitions: Iterable[TopicPartition], now_ms: int,
                       client_transaction_version: int = TV_0) -> Completion:
        """Add partitions (AddPartitionsToTxn, or the group's offsets partition for
        AddOffsetsToTxn) to the transaction, starting it if needed; ErrorCode result.
        A transaction started here takes `client_transaction_version` (2 when a partition
        leader adds what a Produce v12 or TxnOffsetCommit v5 wrote)."""
        self._now_ms = now_ms
        if not transactional_id:
            return self._done(ErrorCode.INVALID_REQUEST)
        error, coordinator_epoch, txn = self._lookup(transactional_id)
        if error == ErrorCode.NONE:
            error = self._check_producer(txn, producer_id, producer_epoch)
        if error != ErrorCode.NONE:
            return self._done(error)
        assert txn is not None  # found: _lookup answered NONE
        added = set(partitions)
        if txn.pending is not None or txn.state in _PREPARED:
            return self._done(ErrorCode.CONCURRENT_TRANSACTIONS)
        if txn.state == TxnState.ONGOING and added <= txn.partitions:
            return self._done(ErrorCode.NONE)
        if txn.state not in (TxnState.EMPTY, TxnState.ONGOING, TxnState.COMPLETE_COMMIT,
                             TxnState.COMPLETE_ABORT):
            return self._done(ErrorCode.CONCURRENT_TRANSACTIONS)
        fut = self._future()
        self._write(txn, txn.prepare_add_partitions(added, now_ms, client_transaction_version),
                    coordinator_epoch, fut.set_result)
        return fut

    def verify_partitions(self, transactional_id: str, producer_id: int, producer_epoch: int,
                          partitions: Iterable[TopicPartition]) -> dict[TopicPartition, ErrorCode]:
        """KIP-890 verification for a partition leader: is each partition in the ongoing
        transaction? TRANSACTION_ABORTABLE for one that is not (callers map it for older
        request versions)."""
        parts = list(partitions)
        error, _, txn = self._lookup(transactional_id)
        if error == ErrorCode.NONE:
            error = self._check_producer(txn, producer_id, producer_epoch)
        if error == ErrorCode.NONE and txn is not None and txn.state in _PREPARED:
            error = ErrorCode.CONCURRENT_TRANSACTIONS
        if error != ErrorCode.NONE or txn is None:
            return {tp: error for tp in parts}
        return {tp: ErrorCode.NONE if tp in txn.partitions else ErrorCode.TRANSACTION_ABORTABLE for tp in parts}

    # ================================================================ EndTxn
    def end_txn(self, transactional_id: str, producer_id: int, producer_epoch: int,
                committed: bool, now_ms: int,
                client_transaction_version: int = TV_0) -> Completion:
        """Commit or abort: answered (an EndTxnResult) once PrepareCommit/PrepareAbort is
        written, or at once for a retry of an end already made."""
        self._now_ms = now_ms
        fut = self._future()
        if not transactional_id:
            fut.set_result(EndTxnResult(ErrorCode.INVALID_REQUEST))
            return fut

        def respond(error: ErrorCode) -> None:
            txn = self.txns.get(transactional_id)
            if error != ErrorCode.NONE or txn is None:
                fut.set_result(EndTxnResult(error))
            else:
                fut.set_result(EndTxnResult(ErrorCode.NONE, *_client_producer(txn)))
        self._end_txn(transactional_id, producer_id, producer_epoch, committed, True, now_ms,
                      respond, client_transaction_version)
        return fut

    def _end_txn(self, transactional_id: str, producer_id: int, producer_epoch: int,
                 committed: bool, from_client: bool, now_ms: int, respond: Respond,
                 client_transaction_version: int | None = None) -> None:
        """`client_transaction_version` None: the coordinator's own abort, in the
        transaction's version."""
        error, coordinator_epoch, txn = self._lookup(transactional_id)
        if error != ErrorCode.NONE:
            return respond(error)
        if txn is None:
            return respond(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
        tv = (txn.client_transaction_version if client_transaction_version is None
              else client_transaction_version)
        if supports_epoch_bump(tv):
            return self._end_txn_v2(txn, coordinator_epoch, producer_id, producer_epoch,
                                    committed, from_client, now_ms, respond)
        if txn.producer_id != producer_id:
            return respond(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
        # Clients may not bump the epoch; the coordinator's own aborts carry a bumped one.
        if (from_client and producer_epoch != txn.producer_epoch) or producer_epoch < txn.producer_epoch:
            _log_fenced(txn, producer_id, producer_epoch, committed)
            return respond(ErrorCode.PRODUCER_FENCED)
        fencing = txn.pending_state == TxnState.PREPARE_EPOCH_FENCE
        # As in version 2: while PrepareCommit/PrepareAbort's markers are out, Kafka's
        # pending state is the Complete one, so any end is told to retry (librdkafka's
        # abort right after a commit must not be told INVALID_TXN_STATE, which is fatal).
        in_transition = txn.pending is not None or (not fencing and txn.state in _PREPARED)
        if in_transition and not (fencing and not committed):
            return respond(ErrorCode.CONCURRENT_TRANSACTIONS)
        state = txn.state
        if state == TxnState.ONGOING:
            if fencing:
                txn.pending = None
                txn.producer_epoch, txn.last_producer_epoch = producer_epoch, NO_PRODUCER_EPOCH
            transit = txn.prepare_abort_or_commit(
                TxnState.PREPARE_COMMIT if committed else TxnState.PREPARE_ABORT, now_ms)

            def prepared(err: ErrorCode) -> None:
                if err != ErrorCode.NONE:
                    txn.failed_epoch_fence = txn.failed_epoch_fence or fencing
                    respond(err)
                    return
                respond(ErrorCode.NONE)
                self._send_markers(txn, coordinator_epoch)
            self._write(txn, transit, coordinator_epoch, prepared)
            return None
        if state == TxnState.COMPLETE_COMMIT:
            return respond(ErrorCode.NONE if committed else ErrorCode.INVALID_TXN_STATE)
        if state == TxnState.COMPLETE_ABORT:
            return respond(ErrorCode.INVALID_TXN_STATE if committed else ErrorCode.NONE)
        if state == TxnState.PREPARE_COMMIT:
            return respond(ErrorCode.CONCURRENT_TRANSACTIONS if committed else ErrorCode.INVALID_TXN_STATE)
        if state == TxnState.PREPARE_ABORT:
            return respond(ErrorCode.INVALID_TXN_STATE if committed else ErrorCode.CONCURRENT_TRANSACTIONS)
        return respond(ErrorCode.INVALID_TXN_STATE)

    def _end_txn_v2(self, txn: TransactionMetadata, coordinator_epoch: int, producer_id: int,
                    producer_epoch: int, committed: bool, from_client: bool, now_ms: int,
                    respond: Respond) -> None:
        """Transaction version 2 (Kafka's endTransaction): the same epoch ends the
        transaction; the previous epoch is a retry of an end already made (answered
        again, with the epoch the client goes on with); anything else is fenced."""
        fencing = txn.pending_state == TxnState.PREPARE_EPOCH_FENCE
        # the client retries an end whose epoch bump ran out and moved to a new producer id
        retry_on_overflow = (not fencing and txn.previous_producer_id == producer_id
                             and producer_epoch == MAX_PRODUCER_EPOCH - 1
                             and txn.producer_epoch == 0)
        retry_on_bump = not fencing and txn.producer_epoch == producer_epoch + 1
        is_retry = retry_on_overflow or retry_on_bump
        state = txn.state
        if fencing:
            valid = ((not from_client or producer_epoch == txn.producer_epoch)
                     and producer_epoch >= txn.producer_epoch)
        elif state in _PREPARED:
            valid = retry_on_bump
        elif state in (TxnState.COMPLETE_COMMIT, TxnState.COMPLETE_ABORT):
            valid = is_retry or producer_epoch == txn.producer_epoch
        else:
            valid = producer_epoch == txn.producer_epoch
        # Kafka 4.4 asks "is a transition in progress" before the producer id and epoch:
        # from the PrepareCommit/PrepareAbort write until CompleteCommit/CompleteAbort is
        # written (markers in flight or retried) its pending state is the Complete one, so
        # the next end at the bumped epoch is told to retry, not fenced.
        in_transition = txn.pending is not None or (not fencing and state in _PREPARED)
        if in_transition and not (fencing and not committed):
            return respond(ErrorCode.CONCURRENT_TRANSACTIONS)
        if txn.producer_id != producer_id and not retry_on_overflow:
            return respond(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
        if not valid:
            _log_fenced(txn, producer_id, producer_epoch, committed)
            return respond(ErrorCode.PRODUCER_FENCED)

        def prepare(no_partition_added: bool) -> None:
            self._prepare_end(txn, coordinator_epoch, committed, fencing, producer_epoch,
                              now_ms, respond, no_partition_added)
        if state == TxnState.ONGOING:
            return prepare(False)
        if state == TxnState.COMPLETE_COMMIT:
            if committed:
                return respond(ErrorCode.NONE if is_retry else ErrorCode.INVALID_TXN_STATE)
            return respond(ErrorCode.INVALID_TXN_STATE) if is_retry else prepare(True)
        if state == TxnState.COMPLETE_ABORT:
            if committed:
                return respond(ErrorCode.INVALID_TXN_STATE)
            return respond(ErrorCode.NONE) if is_retry else prepare(True)
        if state == TxnState.EMPTY and not committed:
            return prepare(True)    # an abort before anything was added: bumps the epoch
        if state == TxnState.PREPARE_COMMIT:
            return respond(ErrorCode.CONCURRENT_TRANSACTIONS if committed else ErrorCode.INVALID_TXN_STATE)
        if state == TxnState.PREPARE_ABORT:
            return respond(ErrorCode.INVALID_TXN_STATE if committed else ErrorCode.CONCURRENT_TRANSACTIONS)
        return respond(ErrorCode.INVALID_TXN_STATE)

    def _prepare_end(self, txn: TransactionMetadata, coordinator_epoch: int, committed: bool,
                     fencing: bool, producer_epoch: int, now_ms: int, respond: Respond,
                     no_partition_added: bool) -> None:
        """Write a version 2 PrepareCommit/PrepareAbort, answer, then send the markers."""
        next_producer_id = NO_PRODUCER_ID
        if fencing:
            txn.pending = None
            txn.producer_epoch, txn.last_producer_epoch = producer_epoch, NO_PRODUCER_EPOCH
        elif txn.is_epoch_exhausted:
            try:
                next_producer_id = self._new_producer_id()
            except Exception as e:  # noqa: BLE001 - as Kafka's producer id manager: retriable
                log.info("no new producer id for %s yet: %s", txn.transactional_id, e)
                return respond(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
        transit = txn.prepare_abort_or_commit(
            TxnState.PREPARE_COMMIT if committed else TxnState.PREPARE_ABORT, now_ms,
            TV_2, next_producer_id, no_partition_added)

        def prepared(err: ErrorCode) -> None:
            if err != ErrorCode.NONE:
                txn.failed_epoch_fence = txn.failed_epoch_fence or fencing
                respond(err)
                return
            respond(ErrorCode.NONE)
            self._send_markers(txn, coordinator_epoch)
        self._write(txn, transit, coordinator_epoch, prepared)

    # ================================================================ markers
    def _send_markers(self, txn: TransactionMetadata, coordinator_epoch: int) -> None:
        """Markers for a prepared transaction, then its Complete state."""
        tid = txn.transactional_id
        if (not self._still_owner(txn, coordinator_epoch) or txn.state not in _PREPARED
                or self._markers_in_flight.get(tid) == coordinator_epoch):
            return
        self._retry_at.pop(tid, None)
        if not txn.partitions:
            self._write_complete(txn, coordinator_epoch)
            return
        marker = TxnMarker(tid, txn.producer_id, txn.producer_epoch,
                           txn.state == TxnState.PREPARE_COMMIT, coordinator_epoch,
                           tuple(sorted(txn.partitions)), txn.client_transaction_version)
        self._markers_in_flight[tid] = coordinator_epoch

        def sent(d: Completion) -> None:
            if self._markers_in_flight.get(tid) == coordinator_epoch:
                del self._markers_in_flight[tid]
            error = completion_error(d)
            if not self._still_owner(txn, coordinator_epoch):
                return
            if error != ErrorCode.NONE:
                log.warning("writing %s markers of transactional id %s failed: %s; retrying",
                            "COMMIT" if marker.committed else "ABORT", tid, error.name)
                self._retry_at[tid] = self._now_ms + RETRY_BACKOFF_MS
                return
            self._markers_written.add(tid)
            self._write_complete(txn, coordinator_epoch)
        self.markers.send(marker).add_done_callback(sent)

    def _write_complete(self, txn: TransactionMetadata, coordinator_epoch: int) -> None:
        tid = txn.transactional_id
        if txn.pending is not None or txn.state not in _PREPARED:
            return

        def completed(err: ErrorCode) -> None:
            if err == ErrorCode.NONE or not self._still_owner(txn, coordinator_epoch):
                self._markers_written.discard(tid)
                return
            self._retry_at[tid] = self._now_ms + RETRY_BACKOFF_MS
        self._write(txn, txn.prepare_complete(self._now_ms), coordinator_epoch, completed)

    # ================================================================ timers
    def poll(self, now_ms: int) -> None:
        """Retry failed completions; every transaction.abort.timed.out...interval abort
        timed-out transactions; every ...remove.expired...interval expire ids."""
        self._now_ms = now_ms
        for tid, at in list(self._retry_at.items()):
            txn = self.txns.get(tid)
            if txn is None:
                self._retry_at.pop(tid, None)
            elif at <= now_ms and txn.pending is None:
                epoch = self.owned.get(self.partition_for(tid), -1)
                if tid in self._markers_written:
                    self._retry_at.pop(tid, None)
                    self._write_complete(txn, epoch)
                else:
                    self._send_markers(txn, epoch)
        if now_ms >= self._next_abort_check:
            self._next_abort_check = now_ms + self.config.abort_timed_out_transactions_interval_ms
            self.abort_timed_out_transactions(now_ms)
        if now_ms >= self._next_expiration_check:
            self._next_expiration_check = (now_ms +
                                           self.config.remove_expired_transactional_ids_interval_ms)
            self.remove_expired_transactional_ids(now_ms)

    def abort_timed_out_transactions(self, now_ms: int) -> None:
        """Ongoing transactions older than their timeout are aborted with a bumped epoch,
        so their producer is fenced."""
        self._now_ms = now_ms
        for txn in list(self.txns.values()):
            if (txn.state != TxnState.ONGOING or txn.pending is not None
                    or txn.txn_start_timestamp + txn.txn_timeout_ms >= now_ms):
                continue
            log.info("Aborting transactional id %s (producer id %d): it timed out after %d ms",
                     txn.transactional_id, txn.producer_id, txn.txn_timeout_ms)
            epoch = txn.producer_epoch
            if epoch < MAX_PRODUCER_EPOCH:
                epoch = txn.prepare_fence_epoch().producer_epoch
            tid = txn.transactional_id

            def aborted(err: ErrorCode, tid: str = tid, txn: TransactionMetadata = txn) -> None:
                _drop_fence(txn)
                if err != ErrorCode.NONE:
                    log.info("Aborting timed-out transactional id %s failed: %s", tid, err.name)
            self._end_txn(tid, txn.producer_id, epoch, False, False, now_ms, aborted)

    def remove_expired_transactional_ids(self, now_ms: int) -> None:
        """Ids idle for transactional.id.expiration.ms are removed with a tombstone."""
        self._now_ms = now_ms
        limit = now_ms - self.config.transactional_id_expiration_ms
        for txn in list(self.txns.values()):
            if (txn.state.is_expiration_allowed and txn.pending is None
                    and txn.txn_last_update_timestamp <= limit):
                epoch = self.owned.get(self.partition_for(txn.transactional_id))
                if epoch is not None:
                    log.info("Expiring transactional id %s", txn.transactional_id)
                    self._write(txn, txn.prepare_dead(), epoch, lambda err: None)

    # ================================================================ partitions
    def load_partition(self, partition: int, coordinator_epoch: int, now_ms: int) -> int:
        """This broker leads `__transaction_state-<partition>`: replay it, then finish the
        transactions it left prepared. Returns the number of ids loaded."""
        self.begin_load(partition)
        # the transaction log holds plain records only (no transactional batches, no markers)
        return self.complete_load(partition, coordinator_epoch, cast("Iterable[Record]", self.log.read(partition)),
                                  now_ms)

    def begin_load(self, partition: int) -> None:
        """Forget the partition's ids; until `complete_load` its ids answer
        COORDINATOR_LOAD_IN_PROGRESS (the service reads the log meanwhile)."""
        self.unload_partition(partition)
        self.loading.add(partition)

    def complete_load(self, partition: int, coordinator_epoch: int,
                      entries: Iterable[tuple[bytes, bytes | None]], now_ms: int) -> int:
        """Apply the partition's records (key, value) in log order, own the partition,
        and send the markers of the transactions left prepared. Returns the ids loaded."""
        self._now_ms = now_ms
        latest: dict[str, TxnTransit | None] = {}
        try:
            for key, value in entries:
                try:
                    latest[decode_key(key)] = None if value is None else decode_value(value)
                except Exception as e:  # noqa: BLE001 - skip what is unreadable
                    log.warning("skipping unreadable record in partition %d: %s", partition, e)
        finally:
            self.loading.discard(partition)
        self.owned[partition] = coordinator_epoch
        loaded = [TransactionMetadata.from_transit(tid, t) for tid, t in latest.items()
                  if t is not None and t.state != TxnState.DEAD]
        for txn in loaded:
            self.txns[txn.transactional_id] = txn
        for txn in loaded:
            if txn.state in _PREPARED:
                self._send_markers(txn, coordinator_epoch)
        return len(loaded)

    def unload_partition(self, partition: int) -> None:
        self.owned.pop(partition, None)
        self.loading.discard(partition)
        for tid in [t for t in self.txns if self.partition_for(t) == partition]:
            del self.txns[tid]
            self._retry_at.pop(tid, None)
            self._markers_written.discard(tid)

    # ================================================================ admin
    def describe(self, transactional_id: str) -> tuple[ErrorCode, TransactionMetadata | None]:
        error, _, txn = self._lookup(transactional_id)
        if error == ErrorCode.NONE and txn is None:
            error = ErrorCode.TRANSACTIONAL_ID_NOT_FOUND
        return error, txn

    def list_transactions(self, states: Iterable[str], producer_ids: Iterable[int],
                          min_duration_ms: int, now_ms: int,
                          id_matches: Callable[[str], bool] | None = None
                          ) -> tuple[list[str], list[TransactionMetadata]]:
        """(unknown state names, matching transactions), as ListTransactions answers;
        ``id_matches`` (v2's TransactionalIdPattern) keeps the ids it accepts."""
        wanted: set[TxnState] = set()
        unknown = []
        for name in states:
            s = TxnState.from_name(name)
            if s is None:
                unknown.append(name)
            else:
                wanted.add(s)
        pids = set(producer_ids)
        found = [t for t in self.txns.values()
                 if t.state != TxnState.DEAD and (not wanted or t.state in wanted)
                 and (not pids or t.producer_id in pids)
                 and (min_duration_ms < 0 or now_ms - t.txn_start_timestamp > min_duration_ms)
                 and (id_matches is None or id_matches(t.transactional_id))]
        return unknown, found

    def shutdown(self) -> None:
        for partition in list(self.owned):
            self.unload_partition(partition)


def _is_valid_producer_id(txn: TransactionMetadata, producer_id: int, producer_epoch: int) -> bool:
    """Kafka's isValidProducerId: metadata just created, the same producer id, or a retry
    after a producer id rotation this producer never heard of."""
    return (txn.producer_epoch == NO_PRODUCER_EPOCH or producer_id == txn.producer_id
            or (producer_id == txn.previous_producer_id and is_epoch_exhausted(producer_epoch)))


def _client_producer(txn: TransactionMetadata) -> tuple[int, int]:
    """The producer id and epoch EndTxn v5 answers: those of the Complete state (a new
    producer id at epoch 0 when the bump ran out of epochs)."""
    if (txn.state in _PREPARED and supports_epoch_bump(txn.client_transaction_version)
            and txn.next_producer_id != NO_PRODUCER_ID):
        return txn.next_producer_id, 0
    return txn.producer_id, txn.producer_epoch


def _drop_fence(txn: TransactionMetadata) -> None:
    """A fence whose abort never started (the abort was refused) is not left pending."""
    if txn.pending_state == TxnState.PREPARE_EPOCH_FENCE:
        txn.abort_transit()


def _log_fenced(txn: TransactionMetadata, producer_id: int, producer_epoch: int,
                committed: bool) -> None:
    """Say at INFO why an EndTxn was answered PRODUCER_FENCED: which epoch came, which
    the coordinator holds and in which state (a client's producer dies on this error)."""
    log.info("Fencing EndTxn(%s) of transactional id %s: producer id %d epoch %d is not "
             "the current producer id %d epoch %d (state %s, transaction version %d)",
             "COMMIT" if committed else "ABORT", txn.transactional_id, producer_id,
             producer_epoch, txn.producer_id, txn.producer_epoch, txn.state.name,
             txn.client_transaction_version)
