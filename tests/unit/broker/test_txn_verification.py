"""Produce-time transaction verification (KIP-890 part 1) on the partition leader: the
batch header read, the errors a producer sees, guards voided by markers, and the
coordinator asked directly when local."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, Callable, cast

from kafpy.coordinator.group import InMemoryOffsetsLog
from kafpy.coordinator.transaction import TransactionCoordinator, TransactionCoordinatorConfig
from kafpy.protocol.errors import ErrorCode as E
from kafpy.protocol.records import build_batch
from kafpy.protocol.topics import TRANSACTION_STATE_TOPIC_NAME

from kafpy.broker.txn_verification import (PARTITION_NOT_ADDED, TxnVerifier, _verify_request, produce_error,
                                           transactional_producer)
from tests.unit.coordinator.transaction.test_coordinator import Markers


def _typed_verifier(metadata: object, service: Callable[[], object], **kw: Any) -> TxnVerifier:
    """A TxnVerifier over this module's stand-ins (cast: they have only what it uses),
    with no clients to other brokers."""
    return TxnVerifier(1, cast(Any, metadata), cast(Any, service), cast(Any, lambda node: None), **kw)


def test_transactional_producer_reads_the_batch_header():
    txn = build_batch([(None, b"v")], producer_id=42, producer_epoch=3, base_sequence=0, is_transactional=True)
    plain = build_batch([(None, b"v")], producer_id=42, producer_epoch=3, base_sequence=0)
    assert transactional_producer(txn) == (42, 3)
    assert transactional_producer(plain) is None and transactional_producer(None) is None


def test_errors_as_each_produce_version_answers_them():
    """Kafka 4.4: AddPartitionsToTxnManager (by transaction supported operation), then
    ReplicaManager's mapping for the producer."""
    assert produce_error(E.TRANSACTION_ABORTABLE, 10) == (E.INVALID_TXN_STATE, PARTITION_NOT_ADDED)
    assert produce_error(E.TRANSACTION_ABORTABLE, 11) == (E.TRANSACTION_ABORTABLE, None)
    assert produce_error(E.TRANSACTION_ABORTABLE, 12) == (E.TRANSACTION_ABORTABLE, None)
    for version in (10, 11, 12):
        assert produce_error(E.PRODUCER_FENCED, version) == (E.INVALID_PRODUCER_EPOCH, None)
        assert produce_error(E.INVALID_TXN_STATE, version) == (E.INVALID_TXN_STATE, PARTITION_NOT_ADDED)
        assert produce_error(E.CLUSTER_AUTHORIZATION_FAILED, version) == (E.INVALID_TXN_STATE,
                                                                          PARTITION_NOT_ADDED)
        for retriable in (E.COORDINATOR_LOAD_IN_PROGRESS, E.NOT_COORDINATOR, E.NETWORK_EXCEPTION,
                          E.COORDINATOR_NOT_AVAILABLE):
            assert produce_error(retriable, version)[0] == E.NOT_ENOUGH_REPLICAS
        assert produce_error(E.INVALID_PRODUCER_ID_MAPPING, version) == (E.INVALID_PRODUCER_ID_MAPPING, None)
    # before the partition leader adds partitions, the client must not see it; v12+ retries it
    assert produce_error(E.CONCURRENT_TRANSACTIONS, 11)[0] == E.NOT_ENOUGH_REPLICAS
    assert produce_error(E.CONCURRENT_TRANSACTIONS, 12) == (E.CONCURRENT_TRANSACTIONS, None)


class Metadata:
    def __init__(self, leader: int | None) -> None:
        self.leader = leader

    def topic(self, name):
        if self.leader is None or name != TRANSACTION_STATE_TOPIC_NAME:
            return None
        return SimpleNamespace(partitions={0: SimpleNamespace(leader=self.leader)})

    def broker(self, node):
        return None


class Coordinator:
    def __init__(self) -> None:
        self.asked: list[tuple[object, ...]] = []

    def verify_partitions(self, tid, pid, epoch, parts):
        self.asked.append((tid, pid, epoch, list(parts)))
        return {tp: E.NONE if tp == ("t", 0) else E.TRANSACTION_ABORTABLE for tp in parts}

    async def add_partitions(self, tid, pid, epoch, parts, now_ms, tv):
        self.asked.append(("add", tid, pid, epoch, list(parts), now_ms, tv))
        return E.PRODUCER_FENCED if epoch < 3 else E.NONE


class Service:
    """The TransactionCoordinatorService's face the verifier uses (the clock passed in)."""

    def __init__(self, coordinator, now_ms: int = 42) -> None:
        self.coordinator = coordinator
        self.now = now_ms

    def now_ms(self) -> int:
        return self.now


def test_local_coordinator_answers_and_guards_end_with_a_marker():
    coordinator = Coordinator()
    v = TxnVerifier(1, Metadata(leader=1), lambda: Service(coordinator), lambda node: None)
    got = asyncio.run(v.verify("tid", 7, 0, [("t", 0), ("t", 1)]))
    assert got == {("t", 0): E.NONE, ("t", 1): E.TRANSACTION_ABORTABLE}
    assert coordinator.asked == [("tid", 7, 0, [("t", 0), ("t", 1)])]
    guard = v.start("t", 0, 7)
    assert v.start("t", 0, 7) is guard and v.holds("t", 0, 7, guard)
    v.on_marker("t", 0, 7)
    assert not v.holds("t", 0, 7, guard)


def test_no_coordinator_is_retriable():
    v = TxnVerifier(1, Metadata(leader=None), lambda: None, lambda node: None)
    assert asyncio.run(v.verify("tid", 7, 0, [("t", 0)])) == {("t", 0): E.COORDINATOR_NOT_AVAILABLE}
    v = TxnVerifier(1, Metadata(leader=2), lambda: None, lambda node: None)  # broker 2 is not alive
    assert asyncio.run(v.verify("tid", 7, 0, [("t", 0)])) == {("t", 0): E.COORDINATOR_NOT_AVAILABLE}


def test_only_a_batch_starting_the_transaction_needs_verification():
    def partition(entry):
        return SimpleNamespace(log=SimpleNamespace(producer_state=SimpleNamespace(
            producers={} if entry is None else {7: entry})))
    v = TxnVerifier(1, Metadata(leader=1), lambda: None, lambda node: None)
    assert v.needs_verification(partition(None), 7, 0)
    assert v.needs_verification(partition(SimpleNamespace(epoch=0, current_txn_first_offset=-1)), 7, 0)
    assert v.needs_verification(partition(SimpleNamespace(epoch=0, current_txn_first_offset=5)), 7, 1)
    assert not v.needs_verification(partition(SimpleNamespace(epoch=0, current_txn_first_offset=5)), 7, 0)


def test_transaction_version_2_adds_the_partitions_instead_of_verifying():
    coordinator = Coordinator()
    v = TxnVerifier(1, Metadata(leader=1), lambda: Service(coordinator), lambda node: None,
                    enabled=False)
    got = asyncio.run(v.verify("tid", 7, 3, [("t", 0), ("t", 1)], add=True))
    assert got == {("t", 0): E.NONE, ("t", 1): E.NONE}
    assert coordinator.asked == [("add", "tid", 7, 3, [("t", 0), ("t", 1)], 42, 2)]
    # a late batch of the epoch before the last end is fenced by the coordinator
    assert asyncio.run(v.verify("tid", 7, 2, [("t", 0)], add=True)) == {("t", 0): E.PRODUCER_FENCED}
    assert produce_error(E.PRODUCER_FENCED, 12)[0] == E.INVALID_PRODUCER_EPOCH


def test_add_request_to_another_broker_is_not_verify_only():
    assert _verify_request("tid", 7, 3, [("t", 0)], verify_only=False).transactions[0].verify_only is False
    assert _verify_request("tid", 7, 3, [("t", 0)]).transactions[0].verify_only is True


def test_a_failed_verification_does_not_void_the_guard_of_a_concurrent_one():
    """Two pipelined Produce v12 requests of one producer start its transaction on one
    partition at once. The first one's add writes Ongoing; the second one's add meanwhile
    gets CONCURRENT_TRANSACTIONS and is done. The first one's batch must still append
    (before, that second `done` dropped the shared guard, and the first batch was refused
    with INVALID_TXN_STATE "Partition was not added to the transaction")."""
    async def run() -> None:
        loop = asyncio.get_running_loop()
        log = InMemoryOffsetsLog(loop.create_future, hold=True)
        coordinator = TransactionCoordinator(
            TransactionCoordinatorConfig(transaction_state_log_num_partitions=1), log, Markers(),
            lambda: 7, loop.create_future, transaction_version=lambda: 2)
        coordinator.load_partition(0, coordinator_epoch=1, now_ms=0)
        init = coordinator.init_producer_id("tid", 60_000, -1, -1, now_ms=0)
        assert isinstance(init, asyncio.Future)   # made by loop.create_future
        log.complete_next()
        assert (await init).producer_id == 7
        service = Service(coordinator, now_ms=10)
        v = _typed_verifier(Metadata(leader=1), lambda: service, enabled=False)
        tp = ("t", 0)

        first_guard = v.start("t", 0, 7)
        first = loop.create_task(v.verify("tid", 7, 0, [tp], add=True))
        await asyncio.sleep(0)          # its Ongoing write is pending
        assert len(log.pending) == 1
        second_guard = v.start("t", 0, 7)
        assert await v.verify("tid", 7, 0, [tp], add=True) == {tp: E.CONCURRENT_TRANSACTIONS}
        v.done("t", 0, 7, second_guard)

        log.complete_next()
        assert await first == {tp: E.NONE}
        assert v.holds("t", 0, 7, first_guard)
        v.done("t", 0, 7, first_guard)
        assert not v.holds("t", 0, 7, first_guard)   # the last one done drops it
        # a marker still voids a guard verifications share
        guard = v.start("t", 0, 7)
        assert v.start("t", 0, 7) is guard
        v.on_marker("t", 0, 7)
        assert not v.holds("t", 0, 7, guard)
        v.done("t", 0, 7, guard)
        assert v.start("t", 0, 7) is not guard
    asyncio.run(run())


def test_requests_of_a_producer_take_turns_in_arrival_order():
    """Pipelined requests of one producer with batches to verify go on one at a time,
    first come first served (so their batches reach each partition in sequence order),
    each once the one before ended its turn; another producer does not wait."""
    async def run() -> None:
        v = _typed_verifier(Metadata(leader=1), lambda: None)
        order: list[str] = []

        async def request(name: str, pid: int, release: asyncio.Event) -> None:
            turn = await v.wait_turn(pid)
            order.append(f"{name} goes")
            await release.wait()
            v.end_turn(pid, turn)
        events = {n: asyncio.Event() for n in ("r1", "r2", "r3", "other")}
        tasks = [asyncio.create_task(request(n, 9 if n == "other" else 7, events[n]))
                 for n in ("r1", "r2", "r3", "other")]
        await asyncio.sleep(0)
        assert order == ["r1 goes", "other goes"]
        # a request with nothing to verify queues too while these wait (else its batches
        # would append before theirs)
        assert v.turn_pending(7) and v.turn_pending(9) and not v.turn_pending(8)
        events["r3"].set()        # r3 is done early, but still after r2
        events["r1"].set()
        for _ in range(5):
            await asyncio.sleep(0)
        assert order == ["r1 goes", "other goes", "r2 goes"]
        events["r2"].set()
        events["other"].set()
        await asyncio.gather(*tasks)
        assert order == ["r1 goes", "other goes", "r2 goes", "r3 goes"]
        assert v._turns == {} and not v.turn_pending(7)
    asyncio.run(run())



def test_an_add_told_concurrent_transactions_is_asked_again_for_a_while():
    """Kafka 4.4's ReplicaManager retries the addPartition operation (Produce v12+) on
    CONCURRENT_TRANSACTIONS every add.partitions.to.txn.retry.backoff.ms until
    add.partitions.to.txn.retry.backoff.max.ms have passed, so a client beginning its next
    transaction right after a commit is not told it (franz-go then waits seconds)."""
    v = TxnVerifier(1, Metadata(leader=1), lambda: None, lambda node: None)
    assert (v.add_retry_backoff_ms, v.add_retry_max_ms) == (20, 100)   # Kafka's defaults
    busy = {("t", 0): E.NONE, ("t", 1): E.CONCURRENT_TRANSACTIONS}
    assert v.add_retry_delay(busy, 0) == 0.02
    assert v.add_retry_delay(busy, 99.9) == 0.02
    assert v.add_retry_delay(busy, 100) is None          # the producer is told, and retries
    assert v.add_retry_delay({("t", 0): E.NONE}, 0) is None
    assert v.add_retry_delay({("t", 0): E.PRODUCER_FENCED}, 0) is None
    v = TxnVerifier(1, Metadata(leader=1), lambda: None, lambda node: None,
                    add_retry_backoff_ms=5, add_retry_max_ms=0)
    assert v.add_retry_delay(busy, 0) is None
