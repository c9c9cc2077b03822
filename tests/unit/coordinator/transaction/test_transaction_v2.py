"""Transaction version 2 (KIP-890 part 2) in the coordinator's state machine: the epoch
bumped at every end, fencing of the previous epoch, retries, epoch overflow, and the
TransactionLogValue v1 that carries it across a coordinator move. Clock passed in."""

from __future__ import annotations

import itertools

from kafpy.coordinator.group import InMemoryOffsetsLog
from kafpy.coordinator.transaction import (TransactionCoordinator, TransactionCoordinatorConfig,
                                           TransactionMetadata, TxnState)
from kafpy.coordinator.transaction.records import decode_value, encode_value, value_version
from kafpy.coordinator.transaction.state import MAX_PRODUCER_EPOCH
from kafpy.protocol.errors import ErrorCode as E

from tests.unit.coordinator.transaction.test_coordinator import Markers

T = "txn-v2"
TP = ("orders", 0)
TV2 = 2


def make(log=None, markers=None, tv_level=2, first_id=1000, **cfg):
    ids = itertools.count(first_id)
    config = TransactionCoordinatorConfig(transaction_state_log_num_partitions=1, **cfg)
    c = TransactionCoordinator(config, log if log is not None else InMemoryOffsetsLog(),
                               markers or Markers(), lambda: next(ids),
                               transaction_version=lambda: tv_level)
    c.load_partition(0, coordinator_epoch=5, now_ms=0)
    return c


def init(c, pid=-1, epoch=-1, now=0):
    return c.init_producer_id(T, 60_000, pid, epoch, now).result()


def add(c, pid, epoch, parts=(TP,), now=10, tv=TV2):
    """What a partition leader asks for a Produce v12 (AddPartitionsToTxn v5, not verifyOnly)."""
    return c.add_partitions(T, pid, epoch, parts, now, tv).result()


def end(c, pid, epoch, commit=True, now=20, tv=TV2):
    return c.end_txn(T, pid, epoch, commit, now, tv).result()


def test_every_end_bumps_the_epoch_and_answers_it():
    log, markers = InMemoryOffsetsLog(), Markers()
    c = make(log, markers)
    r = init(c)
    assert (r.producer_id, r.producer_epoch) == (1000, 0)
    assert add(c, 1000, 0) == E.NONE
    got = end(c, 1000, 0)
    assert (got.error, got.producer_id, got.producer_epoch) == (E.NONE, 1000, 1)
    # the markers carry the bumped epoch, so the previous epoch's late batches are refused
    assert [(m.producer_epoch, m.committed, m.transaction_version) for m in markers.sent] == [(1, True, 2)]
    txn = c.txns[T]
    assert (txn.state, txn.producer_epoch, txn.last_producer_epoch) == (TxnState.COMPLETE_COMMIT, 1, 0)
    # the next transaction goes on at epoch 1 without InitProducerId
    assert add(c, 1000, 1, now=30) == E.NONE
    got = end(c, 1000, 1, commit=False, now=40)
    assert (got.error, got.producer_epoch) == (E.NONE, 2)
    assert markers.sent[-1].producer_epoch == 2 and markers.sent[-1].committed is False


def test_the_previous_epoch_is_fenced_after_an_end():
    c = make()
    init(c)
    add(c, 1000, 0)
    end(c, 1000, 0)
    # a zombie batch of epoch 0 after the commit: the leader's add is fenced
    assert add(c, 1000, 0, now=30) == E.PRODUCER_FENCED
    add(c, 1000, 1, now=30)
    assert end(c, 1000, 0, now=40).error == E.PRODUCER_FENCED      # epoch 0 while 1 is ongoing
    assert end(c, 1000, 2, now=40).error == E.PRODUCER_FENCED      # an epoch never handed out
    assert end(c, 999, 1, now=40).error == E.INVALID_PRODUCER_ID_MAPPING


def test_a_retried_end_gets_the_same_answer():
    markers = Markers(auto=False)
    c = make(markers=markers)
    init(c)
    add(c, 1000, 0)
    assert end(c, 1000, 0).error == E.NONE
    # while the markers are out, a retry (epoch 0, now one behind) waits, and so does the
    # other outcome: Kafka 4.4 asks "transition in progress" before anything else
    assert end(c, 1000, 0).error == E.CONCURRENT_TRANSACTIONS
    assert end(c, 1000, 0, commit=False).error == E.CONCURRENT_TRANSACTIONS
    markers.complete()
    again = end(c, 1000, 0)
    assert (again.error, again.producer_id, again.producer_epoch) == (E.NONE, 1000, 1)
    # the other outcome for the same transaction is refused
    assert end(c, 1000, 0, commit=False).error == E.INVALID_TXN_STATE


def test_the_next_end_while_the_markers_are_out_is_told_to_retry(caplog):
    """Kafka 4.4's endTransaction: EndTxn at the bumped epoch while the previous commit is
    in PrepareCommit (its Complete write pending) is CONCURRENT_TRANSACTIONS, not fenced;
    the client retries and the abort goes through once the commit completed."""
    markers = Markers(auto=False)
    c = make(markers=markers)
    init(c)
    add(c, 1000, 0)
    assert end(c, 1000, 0).producer_epoch == 1
    assert c.txns[T].state == TxnState.PREPARE_COMMIT
    assert end(c, 1000, 1, commit=False, now=21).error == E.CONCURRENT_TRANSACTIONS
    assert end(c, 1000, 1, commit=True, now=21).error == E.CONCURRENT_TRANSACTIONS
    assert end(c, 999, 1, commit=False, now=21).error == E.CONCURRENT_TRANSACTIONS
    markers.complete()
    got = end(c, 1000, 1, commit=False, now=22)
    assert (got.error, got.producer_epoch) == (E.NONE, 2)
    assert not [r for r in caplog.records if "Fencing" in r.getMessage()]


def test_a_fenced_end_says_why_at_info(caplog):
    c = make()
    init(c)
    add(c, 1000, 0)
    end(c, 1000, 0)
    add(c, 1000, 1, now=30)
    with caplog.at_level("INFO", logger="kafka.coordinator.transaction.TransactionCoordinator"):
        assert end(c, 1000, 3, now=40).error == E.PRODUCER_FENCED
    lines = [r.getMessage() for r in caplog.records if r.levelname == "INFO"]
    assert any("Fencing EndTxn(COMMIT) of transactional id txn-v2: producer id 1000 epoch 3"
               " is not the current producer id 1000 epoch 1 (state ONGOING" in m for m in lines), lines


def test_abort_with_nothing_added_bumps_the_epoch():
    log = InMemoryOffsetsLog()
    c = make(log)
    init(c)
    got = end(c, 1000, 0, commit=False, now=50)
    assert (got.error, got.producer_epoch) == (E.NONE, 1)
    txn = c.txns[T]
    assert txn.state == TxnState.COMPLETE_ABORT and txn.txn_start_timestamp == 50
    assert end(c, 1000, 1, commit=True, now=60).error == E.INVALID_TXN_STATE  # nothing to commit


def test_exhausted_epoch_moves_to_a_new_producer_id():
    markers = Markers()
    c = make(markers=markers)
    init(c)
    c.txns[T].producer_epoch = MAX_PRODUCER_EPOCH - 2
    add(c, 1000, MAX_PRODUCER_EPOCH - 2)
    got = end(c, 1000, MAX_PRODUCER_EPOCH - 2)
    assert (got.producer_id, got.producer_epoch) == (1000, MAX_PRODUCER_EPOCH - 1)
    add(c, 1000, MAX_PRODUCER_EPOCH - 1, now=30)
    got = end(c, 1000, MAX_PRODUCER_EPOCH - 1, now=40)
    assert (got.error, got.producer_id, got.producer_epoch) == (E.NONE, 1001, 0)
    # the markers end the transaction under the old id with the last epoch
    assert (markers.sent[-1].producer_id, markers.sent[-1].producer_epoch) == (1000, MAX_PRODUCER_EPOCH)
    txn = c.txns[T]
    assert (txn.producer_id, txn.producer_epoch, txn.previous_producer_id, txn.next_producer_id) == \
        (1001, 0, 1000, -1)
    # a retry of that EndTxn from the old id is answered with the new one
    retry = end(c, 1000, MAX_PRODUCER_EPOCH - 1, now=50)
    assert (retry.error, retry.producer_id, retry.producer_epoch) == (E.NONE, 1001, 0)
    assert add(c, 1001, 0, now=60) == E.NONE


def test_timed_out_transaction_is_aborted_past_the_producers_epoch():
    markers = Markers()
    c = make(markers=markers)
    init(c)
    add(c, 1000, 0, now=10)
    c.abort_timed_out_transactions(now_ms=10 + 60_001)
    # fenced (epoch 1), then aborted with a version 2 bump (epoch 2)
    assert markers.sent[-1].committed is False and markers.sent[-1].producer_epoch == 2
    assert c.txns[T].state == TxnState.COMPLETE_ABORT
    assert end(c, 1000, 0, now=70_000).error == E.PRODUCER_FENCED
    assert add(c, 1000, 0, now=70_000) == E.PRODUCER_FENCED


def test_version_1_clients_keep_their_epoch():
    markers = Markers()
    c = make(markers=markers)
    init(c)
    assert add(c, 1000, 0, tv=0) == E.NONE
    got = end(c, 1000, 0, tv=0)
    assert got.error == E.NONE and markers.sent[-1].producer_epoch == 0
    assert c.txns[T].producer_epoch == 0
    assert end(c, 1000, 0, tv=0).error == E.NONE          # version 1's retry: same epoch


def test_a_new_coordinator_finishes_an_overflowing_transaction_from_the_log():
    log, markers = InMemoryOffsetsLog(), Markers(auto=False)
    c = make(log, markers)
    init(c)
    c.txns[T].producer_epoch = MAX_PRODUCER_EPOCH - 1
    add(c, 1000, MAX_PRODUCER_EPOCH - 1)
    assert end(c, 1000, MAX_PRODUCER_EPOCH - 1).producer_id == 1001
    # the coordinator moves before the markers are written: the next one reads PrepareCommit
    prepared = decode_value(log.read(0)[-1][1])
    assert (prepared.state, prepared.next_producer_id, prepared.client_transaction_version) == \
        (TxnState.PREPARE_COMMIT, 1001, 2)
    markers2 = Markers()
    c2 = make(log, markers2, first_id=2000)
    assert markers2.sent[-1].producer_epoch == MAX_PRODUCER_EPOCH
    txn = c2.txns[T]
    assert (txn.state, txn.producer_id, txn.producer_epoch) == (TxnState.COMPLETE_COMMIT, 1001, 0)


def test_log_value_version_follows_the_finalized_transaction_version():
    c0, c2 = make(tv_level=0), make(tv_level=2)
    for c in (c0, c2):
        init(c)
        add(c, 1000, 0)
    assert value_version(0) == 0 and value_version(1) == value_version(2) == 1
    v1 = encode_value(c2.txns[T].to_transit(), 1)
    v0 = encode_value(c0.txns[T].to_transit(), 0)
    assert v1[:2] == b"\x00\x01" and v0[:2] == b"\x00\x00"
    assert decode_value(v1).client_transaction_version == 2
    assert decode_value(v0).client_transaction_version == 0


def test_no_producer_id_at_hand_is_retriable():
    def none_left() -> int:
        raise RuntimeError("no producer id allocated yet")
    c = TransactionCoordinator(TransactionCoordinatorConfig(transaction_state_log_num_partitions=1),
                               InMemoryOffsetsLog(), Markers(), none_left)
    c.load_partition(0, coordinator_epoch=5, now_ms=0)
    c.txns[T] = txn = TransactionMetadata(T, 1000, producer_epoch=MAX_PRODUCER_EPOCH - 1,
                                          state=TxnState.ONGOING, partitions={TP},
                                          client_transaction_version=2)
    assert end(c, 1000, MAX_PRODUCER_EPOCH - 1).error == E.COORDINATOR_LOAD_IN_PROGRESS
    assert (txn.state, txn.producer_epoch, txn.pending) == (TxnState.ONGOING, MAX_PRODUCER_EPOCH - 1, None)
