"""Transaction version 2 at the request handlers: Produce v12 adds the partition through
the verifier (v11 only verifies, and not at all when verification is off), EndTxn v5
answers the producer id and epoch, TxnOffsetCommit v5 adds the group's offsets partition
first and answers its error for every partition."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from kafpy.broker.handlers.group import handle_txn_offset_commit
from kafpy.broker.handlers.produce import handle_produce
from kafpy.broker.handlers.txn import handle_end_txn
from kafpy.coordinator.transaction import EndTxnResult
from kafpy.protocol.errors import ErrorCode as E
from kafpy.protocol.messages import EndTxnRequest, ProduceRequest, TxnOffsetCommitRequest
from kafpy.protocol.records import build_batch
from tests.unit.broker.helpers import LocalBroker, call

P = ProduceRequest


@pytest.fixture
def broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop)
    try:
        yield b
    finally:
        b.close()
        loop.close()


class Verifier:
    """A TxnVerifier that records what it is asked and answers `answer`."""

    def __init__(self, enabled: bool = False, answer: E = E.NONE) -> None:
        self.enabled = enabled
        self.answer = answer
        self.asked: list[tuple] = []

    def needs_verification(self, part, pid, epoch) -> bool:
        return True

    def turn_pending(self, pid) -> bool:
        return False

    async def wait_turn(self, pid):
        return None

    def end_turn(self, pid, turn) -> None:
        pass

    def start(self, topic, index, pid) -> object:
        return (topic, index, pid)

    def holds(self, topic, index, pid, guard) -> bool:
        return True

    def done(self, topic, index, pid, guard) -> None:
        pass

    async def verify(self, tid, pid, epoch, partitions, add=False):
        self.asked.append((tid, pid, epoch, list(partitions), add))
        return {tp: self.answer for tp in partitions}

    def add_retry_delay(self, errors, elapsed_ms):
        return None


def _produce(broker, version: int, epoch: int = 3):
    batch = build_batch([(None, b"v")], producer_id=42, producer_epoch=epoch, base_sequence=0,
                        is_transactional=True)
    req = P(transactional_id="tid", acks=-1, timeout_ms=1000, topic_data=[P.TopicProduceData(
        name="t", partition_data=[P.PartitionProduceData(index=0, records=batch)])])
    return call(broker, handle_produce, 0, version, req).responses[0].partition_responses[0]


def test_produce_v12_adds_the_partition_even_without_verification(broker):
    broker.create_topic("t")
    broker.services.txn_verifier = v = Verifier(enabled=False)
    assert _produce(broker, 12).error_code == E.NONE
    assert v.asked == [("tid", 42, 3, [("t", 0)], True)]


def test_produce_v11_is_not_added_and_verified_only_when_enabled(broker):
    broker.create_topic("t")
    broker.services.txn_verifier = v = Verifier(enabled=False)
    assert _produce(broker, 11).error_code == E.NONE and v.asked == []
    broker.services.txn_verifier = v = Verifier(enabled=True)
    _produce(broker, 11)
    assert v.asked == [("tid", 42, 3, [("t", 0)], False)]


def test_produce_v12_of_a_fenced_epoch_is_refused(broker):
    broker.create_topic("t")
    broker.services.txn_verifier = Verifier(answer=E.PRODUCER_FENCED)
    assert _produce(broker, 12, epoch=2).error_code == E.INVALID_PRODUCER_EPOCH


def test_produce_v12_retries_an_add_told_concurrent_transactions(broker):
    """Right after a commit the coordinator answers CONCURRENT_TRANSACTIONS while the
    commit's markers are out; Kafka 4.4's leader asks again (with a fresh verification, as
    the marker for the previous transaction lands meanwhile) and the batch appends, so the
    client never sees the error (before: CONCURRENT_TRANSACTIONS, and franz-go waited 5 s)."""
    from kafpy.broker.txn_verification import TxnVerifier
    from tests.unit.broker.test_txn_verification import Metadata, Service

    class Coordinator:
        asked = 0

        async def add_partitions(self, tid, pid, epoch, parts, now_ms, tv):
            Coordinator.asked += 1
            if Coordinator.asked == 1:
                verifier.on_marker("t", 0, 42)   # the previous transaction's marker lands
                return E.CONCURRENT_TRANSACTIONS
            return E.NONE
    broker.create_topic("t")
    verifier = TxnVerifier(1, Metadata(leader=1), lambda: Service(Coordinator()), lambda node: None,
                           enabled=False, add_retry_backoff_ms=1)
    broker.services.txn_verifier = verifier
    pr = _produce(broker, 12)
    assert (pr.error_code, pr.error_message) == (E.NONE, None)
    assert Coordinator.asked == 2


class TxnService:
    def __init__(self) -> None:
        self.asked: list[tuple] = []

    async def end_txn(self, tid, pid, epoch, committed, tv):
        self.asked.append((tid, pid, epoch, committed, tv))
        return EndTxnResult(E.NONE, pid, epoch + 1) if tv >= 2 else EndTxnResult(E.NONE, pid, epoch)


def test_end_txn_v5_is_version_2_and_answers_the_bumped_epoch(broker):
    broker.services.txn_coordinator = svc = TxnService()
    req = EndTxnRequest(transactional_id="tid", producer_id=42, producer_epoch=3, committed=True)
    r = call(broker, handle_end_txn, 26, 5, req)
    assert (r.error_code, r.producer_id, r.producer_epoch) == (E.NONE, 42, 4)
    call(broker, handle_end_txn, 26, 4, req)
    assert [a[-1] for a in svc.asked] == [2, 0]


class GroupCoordinator:
    def __init__(self) -> None:
        self.committed: list = []

    def partition_for(self, group_id: str) -> int:
        return 7

    async def txn_commit_offsets(self, group, pid, epoch, member, instance, generation, offsets, now):
        self.committed.append((group, pid, epoch, dict(offsets)))
        return {tp: E.NONE for tp in offsets}


def _txn_offset_commit(broker, version: int):
    T = TxnOffsetCommitRequest
    req = T(transactional_id="tid", group_id="g", producer_id=42, producer_epoch=3, topics=[
        T.TxnOffsetCommitRequestTopic(name="t", partitions=[
            T.TxnOffsetCommitRequestPartition(partition_index=0, committed_offset=5,
                                              committed_metadata="")])])
    resp = call(broker, handle_txn_offset_commit, 28, version, req)
    return resp.topics[0].partitions[0].error_code


@pytest.mark.parametrize("answer, expected", [
    (E.NONE, E.NONE), (E.PRODUCER_FENCED, E.INVALID_PRODUCER_EPOCH),
    (E.CONCURRENT_TRANSACTIONS, E.COORDINATOR_NOT_AVAILABLE)])
def test_txn_offset_commit_v5_adds_the_offsets_partition_first(broker, answer, expected):
    broker.create_topic("t")
    gc = GroupCoordinator()
    broker.services.group_coordinator = SimpleNamespace(classic=gc, coordinator=gc, share=None, now_ms=lambda: 1000)
    broker.services.txn_verifier = v = Verifier(answer=answer)
    assert _txn_offset_commit(broker, 5) == expected
    assert v.asked == [("tid", 42, 3, [("__consumer_offsets", 7)], True)]
    assert len(gc.committed) == (1 if answer == E.NONE else 0)
    v.asked.clear()
    assert _txn_offset_commit(broker, 4) == E.NONE and v.asked == []  # version 1: AddOffsetsToTxn did it
