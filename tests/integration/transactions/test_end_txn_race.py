"""Transaction version 2: the next EndTxn while the previous commit is still completing,
the same raw requests to Apache Kafka 4.4 and kafpy in the same test.

A transactional consumer commits (EndTxn v5 at epoch N, answered with epoch N+1) and at
once aborts its next transaction at epoch N+1, while the first is still in PrepareCommit
(its markers out). Kafka 4.4's endTransaction asks "is a transition in progress" before
it looks at the epoch, so the abort is told CONCURRENT_TRANSACTIONS and the client
retries until it goes through at N+1 (answered N+2); a PRODUCER_FENCED there kills the
client's producer. The two EndTxn go out back to back on one connection (each broker
answers a connection's requests in order), so the abort arrives while the commit's
markers are being written.
"""
from __future__ import annotations

import time
from typing import Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol import codec
from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.errors import ErrorCode
from tests.integration.broker.raw import RawConnection, create_topic
from tests.support.kafka_dist import ReferenceKafka
from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK

from .conftest import BROKER_SETTINGS

ROUNDS = 12
RETRIABLE = (ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
             ErrorCode.NOT_COORDINATOR, ErrorCode.CONCURRENT_TRANSACTIONS,
             ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[dict[str, ReferenceKafka | KafpyBroker]]:
    """Apache Kafka 4.4 and kafpy side by side, with the transactions suite's settings."""
    base = tmp_path_factory.mktemp("end-txn-race")
    apache = ReferenceKafka("4", work_dir=base / "apache", overrides=BROKER_SETTINGS)
    kafpy = KafpyBroker(work_dir=base / "kafpy", overrides=BROKER_SETTINGS)
    try:
        apache.start()
        kafpy.start()
        yield {"apache": apache, "kafpy": kafpy}
    finally:
        kafpy.stop()
        apache.stop()


def _until(what: str, call, deadline_s: float = 60.0):
    """Repeat `call` (-> (error, answer)) while its error is retriable; the last answer."""
    deadline = time.monotonic() + deadline_s
    while True:
        error, answer = call()
        if error not in RETRIABLE:
            return error, answer
        assert time.monotonic() < deadline, f"{what}: still {error.name}"
        time.sleep(0.05)


def _init(c: RawConnection, tid: str) -> tuple[int, int]:
    """FindCoordinator (which makes Kafka create `__transaction_state`), InitProducerId."""
    def find():
        r = c.request(ApiKey.FIND_COORDINATOR, 4, M.FindCoordinatorRequest(
            key="", key_type=1, coordinator_keys=[tid]))
        return ErrorCode(r.coordinators[0].error_code), None
    assert _until("FindCoordinator", find)[0] == ErrorCode.NONE

    def call():
        r = c.request(ApiKey.INIT_PRODUCER_ID, 5, M.InitProducerIdRequest(
            transactional_id=tid, transaction_timeout_ms=60_000, producer_id=-1,
            producer_epoch=-1))
        return ErrorCode(r.error_code), (r.producer_id, r.producer_epoch)
    error, (pid, epoch) = _until("InitProducerId", call)
    assert error == ErrorCode.NONE
    return pid, epoch


def _produce(c: RawConnection, tid: str, topic: str, pid: int, epoch: int) -> ErrorCode:
    """One transactional batch as a Produce v12 (the leader adds the partition, TV2)."""
    P = M.ProduceRequest
    sequence = 0

    def call():
        batch = build_batch([(b"k", b"v")], producer_id=pid, producer_epoch=epoch,
                            base_sequence=sequence, is_transactional=True)
        r = c.request(ApiKey.PRODUCE, 12, P(transactional_id=tid, acks=-1, timeout_ms=10_000,
                      topic_data=[P.TopicProduceData(name=topic, partition_data=[
                          P.PartitionProduceData(index=0, records=batch)])]))
        return ErrorCode(r.responses[0].partition_responses[0].error_code), None
    return _until("Produce", call)[0]


def _end_txn(c: RawConnection, tid: str, pid: int, epoch: int, committed: bool) -> bytes:
    return c.frame(ApiKey.END_TXN, 5, M.EndTxnRequest(
        transactional_id=tid, producer_id=pid, producer_epoch=epoch, committed=committed))


def _answer(c: RawConnection) -> tuple[str, int, int]:
    _corr, r = codec.decode_response(ApiKey.END_TXN, 5, c.read_frame())
    assert isinstance(r, M.EndTxnResponse)
    return ErrorCode(r.error_code).name, r.producer_id, r.producer_epoch


def _commit_then_abort(port: int, topic: str, tid: str) -> tuple[tuple, tuple, tuple]:
    """(commit's answer, the abort's first answer, the abort's answer once not told to
    retry), epochs relative to the first."""
    with RawConnection(LOOPBACK, port, timeout=30) as c:
        pid, epoch = _init(c, tid)
        assert _produce(c, tid, topic, pid, epoch) == ErrorCode.NONE
        c.send_raw(_end_txn(c, tid, pid, epoch, True) + _end_txn(c, tid, pid, epoch + 1, False))
        commit, first_abort = _answer(c), _answer(c)
        abort = first_abort
        deadline = time.monotonic() + 30
        while abort[0] == ErrorCode.CONCURRENT_TRANSACTIONS.name:
            assert time.monotonic() < deadline, "the abort never went through"
            time.sleep(0.02)
            c.send_raw(_end_txn(c, tid, pid, epoch + 1, False))
            abort = _answer(c)

    def rel(a: tuple[str, int, int]) -> tuple:
        return (a[0], a[1] == pid if a[1] != -1 else -1, a[2] - epoch if a[2] != -1 else -1)
    return rel(commit), rel(first_abort), rel(abort)


def test_an_end_while_the_previous_commit_completes_is_retried_not_fenced(brokers):
    answers: dict[str, list[tuple]] = {}
    for name, broker in brokers.items():
        topic = "end-txn-race"
        create_topic(broker.port, topic)
        answers[name] = [_commit_then_abort(broker.port, topic, f"race-{i}")
                         for i in range(ROUNDS)]
    for name, got in answers.items():
        # every commit answered with the bumped epoch, every abort through at the next one
        assert {(commit, final) for commit, _first, final in got} == \
            {(("NONE", True, 1), ("NONE", True, 2))}, (name, got)
        firsts = [first for _commit, first, _final in got]
        # told to retry (or, when the markers were already written, accepted): never fenced
        assert set(firsts) <= {("CONCURRENT_TRANSACTIONS", -1, -1), ("NONE", True, 2)}, (name, got)
    # the race is hit on both: the abort arrives while the commit's markers are out (how
    # often depends on how fast each writes its markers, so not round for round)
    for name, got in answers.items():
        told_to_retry = [f for _c, f, _a in got if f[0] == "CONCURRENT_TRANSACTIONS"]
        assert len(told_to_retry) >= ROUNDS // 4, (name, got)
