"""The transaction coordinator's state machine over an in-memory log and marker channel."""

from __future__ import annotations

import itertools

import pytest

from kafpy.coordinator.group import ImmediateFuture, InMemoryOffsetsLog
from kafpy.coordinator.transaction import (
    TransactionCoordinator, TransactionCoordinatorConfig, TxnMarker, TxnState)
from kafpy.coordinator.transaction.records import decode_key, decode_value
from kafpy.protocol.errors import ErrorCode as E

T = "txn-1"
TP = ("orders", 0)


class Markers:
    """Markers held until the test completes them (or completed at once with `auto`)."""

    def __init__(self, auto: bool = True) -> None:
        self.auto = auto
        self.sent: list[TxnMarker] = []
        self.pending: list[ImmediateFuture[E]] = []

    def send(self, marker: TxnMarker) -> ImmediateFuture[E]:
        self.sent.append(marker)
        fut: ImmediateFuture[E] = ImmediateFuture()
        if self.auto:
            fut.set_result(E.NONE)
        else:
            self.pending.append(fut)
        return fut

    def complete(self, error: E = E.NONE) -> None:
        self.pending.pop(0).set_result(error)


def make(log=None, markers=None, **cfg):
    ids = itertools.count(1000)
    config = TransactionCoordinatorConfig(transaction_state_log_num_partitions=1, **cfg)
    c = TransactionCoordinator(config, log or InMemoryOffsetsLog(), markers or Markers(),
                               lambda: next(ids))
    c.load_partition(0, coordinator_epoch=3, now_ms=0)
    return c


def init(c, tid=T, pid=-1, epoch=-1, timeout=60_000, now=0):
    fut = c.init_producer_id(tid, timeout, pid, epoch, now)
    assert fut.done()
    return fut.result()


def add(c, pid, epoch, parts=(TP,), tid=T, now=10):
    fut = c.add_partitions(tid, pid, epoch, parts, now)
    assert fut.done()
    return fut.result()


def end(c, pid, epoch, commit=True, tid=T, now=20):
    fut = c.end_txn(tid, pid, epoch, commit, now)
    assert fut.done()
    return fut.result().error


def states(log, partition=0):
    return [(decode_key(k), None if v is None else decode_value(v).state) for k, v in log.read(partition)]


def test_init_allocates_producer_id_and_bumps_epoch_per_instance():
    log = InMemoryOffsetsLog()
    c = make(log)
    first = init(c)
    assert (first.error, first.producer_id, first.producer_epoch) == (E.NONE, 1000, 0)
    second = init(c)
    assert (second.error, second.producer_id, second.producer_epoch) == (E.NONE, 1000, 1)
    assert states(log) == [(T, TxnState.EMPTY), (T, TxnState.EMPTY)]


def test_commit_writes_prepare_sends_markers_then_complete():
    log, markers = InMemoryOffsetsLog(), Markers()
    c = make(log, markers)
    r = init(c)
    assert add(c, r.producer_id, 0, [TP, ("orders", 1)]) == E.NONE
    assert add(c, r.producer_id, 0, [TP]) == E.NONE  # already in: nothing written
    assert end(c, r.producer_id, 0) == E.NONE
    assert markers.sent == [TxnMarker(T, 1000, 0, True, 3, (("orders", 0), ("orders", 1)))]
    assert states(log) == [(T, TxnState.EMPTY), (T, TxnState.ONGOING),
                           (T, TxnState.PREPARE_COMMIT), (T, TxnState.COMPLETE_COMMIT)]
    assert c.txns[T].state == TxnState.COMPLETE_COMMIT and not c.txns[T].partitions
    # a retried EndTxn of the same outcome succeeds; the other outcome is refused
    assert end(c, r.producer_id, 0) == E.NONE
    assert end(c, r.producer_id, 0, commit=False) == E.INVALID_TXN_STATE


def test_prepared_transaction_refuses_requests_until_markers_are_written():
    markers = Markers(auto=False)
    c = make(markers=markers)
    r = init(c)
    add(c, r.producer_id, 0)
    assert end(c, r.producer_id, 0, commit=False) == E.NONE
    assert add(c, r.producer_id, 0) == E.CONCURRENT_TRANSACTIONS
    assert end(c, r.producer_id, 0, commit=False) == E.CONCURRENT_TRANSACTIONS
    # Kafka's pending state is CompleteAbort while the markers are out: retry, either way
    assert end(c, r.producer_id, 0, commit=True) == E.CONCURRENT_TRANSACTIONS
    assert init(c, pid=r.producer_id, epoch=0).error == E.CONCURRENT_TRANSACTIONS
    markers.complete()
    assert c.txns[T].state == TxnState.COMPLETE_ABORT
    assert add(c, r.producer_id, 0) == E.NONE


def test_an_abort_while_the_commit_markers_are_out_is_retried_not_refused():
    """librdkafka (transaction version 1) aborts its next transaction right after a commit;
    an INVALID_TXN_STATE there is fatal to its producer, Kafka says CONCURRENT_TRANSACTIONS."""
    markers = Markers(auto=False)
    c = make(markers=markers)
    r = init(c)
    add(c, r.producer_id, 0)
    assert end(c, r.producer_id, 0) == E.NONE
    assert c.txns[T].state == TxnState.PREPARE_COMMIT
    assert end(c, r.producer_id, 0, commit=False) == E.CONCURRENT_TRANSACTIONS
    markers.complete()
    assert end(c, r.producer_id, 0, commit=False) == E.INVALID_TXN_STATE  # nothing ongoing
    assert add(c, r.producer_id, 0) == E.NONE
    assert end(c, r.producer_id, 0, commit=False) == E.NONE


def test_failed_markers_are_retried_from_poll():
    markers = Markers(auto=False)
    c = make(markers=markers)
    r = init(c)
    add(c, r.producer_id, 0)
    end(c, r.producer_id, 0)
    markers.complete(E.NOT_LEADER_OR_FOLLOWER)
    assert c.txns[T].state == TxnState.PREPARE_COMMIT
    c.poll(1_000)
    assert len(markers.sent) == 2
    markers.complete()
    assert c.txns[T].state == TxnState.COMPLETE_COMMIT


def test_failed_complete_write_is_retried_without_new_markers():
    log, markers = InMemoryOffsetsLog(hold=True), Markers()
    c = make(log, markers)
    fut = c.init_producer_id(T, 60_000, -1, -1, 0)
    log.complete_next()
    pid = fut.result().producer_id
    c.add_partitions(T, pid, 0, [TP], 1)
    log.complete_next()
    done = c.end_txn(T, pid, 0, True, 2)
    log.complete_next()
    assert done.result().error == E.NONE and len(markers.sent) == 1
    log.complete_next(E.NOT_ENOUGH_REPLICAS)  # the CompleteCommit write
    assert c.txns[T].state == TxnState.PREPARE_COMMIT
    c.poll(10_000)
    log.complete_next()
    assert c.txns[T].state == TxnState.COMPLETE_COMMIT and len(markers.sent) == 1


def test_new_instance_fences_old_one_and_aborts_its_transaction():
    markers = Markers()
    c = make(markers=markers)
    old = init(c)
    add(c, old.producer_id, 0)
    retry = init(c)  # the new instance: ongoing transaction aborted first
    assert retry.error == E.CONCURRENT_TRANSACTIONS
    assert markers.sent[-1].committed is False and markers.sent[-1].producer_epoch == 1
    assert c.txns[T].state == TxnState.COMPLETE_ABORT
    new = init(c)
    assert (new.error, new.producer_epoch) == (E.NONE, 2)
    assert add(c, old.producer_id, 0) == E.PRODUCER_FENCED
    assert end(c, old.producer_id, 0) == E.PRODUCER_FENCED
    assert add(c, new.producer_id, 2) == E.NONE


def test_init_with_expected_epoch_recovers_or_fences():
    c = make()
    r = init(c)
    again = init(c, pid=r.producer_id, epoch=0)  # the same instance after an abortable error
    assert (again.error, again.producer_epoch) == (E.NONE, 1)
    # a retry of that call (its answer was lost) gets the same epoch
    assert init(c, pid=r.producer_id, epoch=0).producer_epoch == 1
    other = init(c)  # another instance: last epoch forgotten
    assert other.producer_epoch == 2
    assert init(c, pid=r.producer_id, epoch=1).error == E.PRODUCER_FENCED
    assert init(c, pid=999, epoch=0).error == E.PRODUCER_FENCED


def test_exhausted_epoch_rotates_producer_id():
    c = make()
    r = init(c)
    c.txns[T].producer_epoch = 32766
    rotated = init(c, pid=r.producer_id, epoch=32766)
    assert (rotated.error, rotated.producer_id, rotated.producer_epoch) == (E.NONE, 1001, 0)
    assert c.txns[T].previous_producer_id == r.producer_id


def test_request_errors():
    c = make(transaction_max_timeout_ms=1000)
    assert init(c, timeout=1001).error == E.INVALID_TRANSACTION_TIMEOUT
    assert init(c, timeout=0).error == E.INVALID_TRANSACTION_TIMEOUT
    assert init(c, tid="").error == E.INVALID_REQUEST
    r = init(c, timeout=1000)
    assert add(c, r.producer_id + 1, 0) == E.INVALID_PRODUCER_ID_MAPPING
    assert add(c, r.producer_id, 0, tid="unknown") == E.INVALID_PRODUCER_ID_MAPPING
    assert end(c, r.producer_id, 0) == E.INVALID_TXN_STATE  # nothing ongoing
    c.unload_partition(0)
    assert init(c, timeout=1000).error == E.NOT_COORDINATOR
    assert end(c, r.producer_id, 0) == E.NOT_COORDINATOR


def test_failed_write_leaves_state_unchanged_and_maps_error():
    log = InMemoryOffsetsLog()
    c = make(log)
    r = init(c)
    log.fail_with = E.NOT_ENOUGH_REPLICAS
    assert add(c, r.producer_id, 0) == E.COORDINATOR_NOT_AVAILABLE
    log.fail_with = E.NOT_LEADER_OR_FOLLOWER
    assert add(c, r.producer_id, 0) == E.NOT_COORDINATOR
    assert c.txns[T].state == TxnState.EMPTY and c.txns[T].pending is None


def test_writes_in_flight_answer_concurrent_transactions():
    log = InMemoryOffsetsLog(hold=True)
    c = make(log)
    fut = c.init_producer_id(T, 60_000, -1, -1, 0)
    assert not fut.done()
    assert init(c).error == E.CONCURRENT_TRANSACTIONS
    log.complete_next()
    assert fut.result().producer_epoch == 0


def test_timed_out_transaction_is_aborted_with_a_bumped_epoch():
    markers = Markers()
    c = make(markers=markers, abort_timed_out_transactions_interval_ms=1000)
    r = init(c, timeout=5_000)
    add(c, r.producer_id, 0, now=100)
    c.poll(5_000)
    assert c.txns[T].state == TxnState.ONGOING
    c.poll(6_000)
    assert c.txns[T].state == TxnState.COMPLETE_ABORT
    assert markers.sent[-1].producer_epoch == 1 and not markers.sent[-1].committed
    assert end(c, r.producer_id, 0) == E.PRODUCER_FENCED
    # the fenced producer starts over with a new instance
    assert init(c, pid=r.producer_id, epoch=0).error == E.PRODUCER_FENCED
    assert init(c).producer_epoch == 2


def test_idle_transactional_id_expires_with_a_tombstone():
    log = InMemoryOffsetsLog()
    c = make(log, transactional_id_expiration_ms=10_000,
             remove_expired_transactional_ids_interval_ms=1000)
    init(c, now=0)
    init(c, tid="busy", now=0)
    add(c, c.txns["busy"].producer_id, 0, tid="busy", now=5)
    c.poll(9_000)
    assert T in c.txns
    c.poll(11_000)
    assert T not in c.txns and "busy" in c.txns
    assert states(log)[-1] == (T, None)


def test_reload_restores_state_and_finishes_prepared_transactions():
    log, markers = InMemoryOffsetsLog(), Markers(auto=False)
    c = make(log, markers)
    r = init(c)
    add(c, r.producer_id, 0)
    end(c, r.producer_id, 0)
    init(c, tid="expired")
    c.poll(0)
    c.remove_expired_transactional_ids(10**10)  # both complete ids idle: only "expired" can go
    assert "expired" not in c.txns
    c2 = make(log, Markers())
    assert c2.txns[T].state == TxnState.COMPLETE_COMMIT  # markers re-sent after loading
    assert c2.markers.sent[0].partitions == (TP,) and c2.markers.sent[0].coordinator_epoch == 3
    assert "expired" not in c2.txns
    assert c2.txns[T].producer_id == r.producer_id and c2.txns[T].producer_epoch == 0
    # the original coordinator's late marker answer is ignored once unloaded
    c.unload_partition(0)
    markers.complete()
    assert T not in c.txns


def test_requests_wait_while_a_partition_loads():
    log = InMemoryOffsetsLog()
    c = make(log)
    r = init(c)
    add(c, r.producer_id, 0)
    c2 = TransactionCoordinator(c.config, log, Markers(), lambda: 2000)
    c2.begin_load(0)
    assert init(c2).error == E.COORDINATOR_LOAD_IN_PROGRESS
    assert c2.describe(T) == (E.COORDINATOR_LOAD_IN_PROGRESS, None)
    assert c2.complete_load(0, 4, log.read(0), now_ms=30) == 1
    assert c2.txns[T].state == TxnState.ONGOING and c2.owned == {0: 4}
    # resigning while loading leaves nothing loading nor owned
    c2.begin_load(0)
    c2.unload_partition(0)
    assert not c2.loading and init(c2).error == E.NOT_COORDINATOR


def test_verify_partitions():
    c = make()
    r = init(c)
    add(c, r.producer_id, 0)
    got = c.verify_partitions(T, r.producer_id, 0, [TP, ("other", 0)])
    assert got == {TP: E.NONE, ("other", 0): E.TRANSACTION_ABORTABLE}
    assert c.verify_partitions(T, r.producer_id, 1, [TP]) == {TP: E.PRODUCER_FENCED}
    assert c.verify_partitions("nope", 1, 0, [TP]) == {TP: E.INVALID_PRODUCER_ID_MAPPING}


def test_describe_and_list():
    c = make()
    r = init(c)
    init(c, tid="b")
    add(c, r.producer_id, 0, now=100)
    assert c.describe("missing") == (E.TRANSACTIONAL_ID_NOT_FOUND, None)
    err, txn = c.describe(T)
    assert err == E.NONE and txn.state == TxnState.ONGOING and txn.partitions == {TP}
    unknown, found = c.list_transactions(["Ongoing", "Bogus"], [], -1, 200)
    assert unknown == ["Bogus"] and [t.transactional_id for t in found] == [T]
    _, found = c.list_transactions([], [r.producer_id], -1, 200)
    assert [t.transactional_id for t in found] == [T]
    _, found = c.list_transactions([], [], 1_000, 200)
    assert found == []


@pytest.mark.parametrize("tid", ["a", "transactional-id-with-a-longer-name", "ü"])
def test_records_round_trip(tid):
    log = InMemoryOffsetsLog()
    c = make(log)
    init(c, tid=tid)
    (key, value), = log.read(0)
    assert decode_key(key) == tid and decode_value(value).state == TxnState.EMPTY


def test_reloaded_at_a_new_epoch_while_markers_are_out_it_sends_them_again():
    """The same broker leads the transaction log again at a new coordinator epoch (the
    controller took a dead follower out of the ISR) while the markers of the old epoch are
    still out: the prepared transaction gets markers of the new epoch at once, and the old
    send's late answer neither stops nor completes them."""
    log, markers = InMemoryOffsetsLog(), Markers(auto=False)
    c = make(log, markers)
    r = init(c)
    add(c, r.producer_id, 0)
    assert end(c, r.producer_id, 0) == E.NONE
    assert [m.coordinator_epoch for m in markers.sent] == [3]
    c.unload_partition(0)
    assert c.load_partition(0, coordinator_epoch=4, now_ms=30) == 1
    assert [m.coordinator_epoch for m in markers.sent] == [3, 4]
    markers.complete(E.REQUEST_TIMED_OUT)     # the old epoch's send gives up late
    assert c.txns[T].state == TxnState.PREPARE_COMMIT
    markers.complete()                        # the new epoch's markers are written
    assert c.txns[T].state == TxnState.COMPLETE_COMMIT
    assert end(c, r.producer_id, 0) == E.NONE
