"""The coordinators' one write path (coordinator/result.py): a CoordinatorResult's
response is given once its records are committed, a failed or cancelled write is
answered with the caller's error answer, a write nobody waits for logs its failure."""
from __future__ import annotations

import asyncio
import logging
from typing import Callable

from kafpy.protocol.errors import ErrorCode as E

from kafpy.coordinator.group.offsets_log import (NO_PRODUCER_ID, Completion, ImmediateFuture,
                                                 InMemoryOffsetsLog, LogEntry, Record, TxnRecord)
from kafpy.coordinator.result import CoordinatorResult, CoordinatorWriter

RECORDS: list[Record] = [(b"k1", b"v1"), (b"k2", None)]


def _writer(log: InMemoryOffsetsLog) -> CoordinatorWriter[InMemoryOffsetsLog]:
    return CoordinatorWriter(log, ImmediateFuture, "test coordinator")


def test_without_records_the_response_is_given_at_once_and_nothing_is_written() -> None:
    log = InMemoryOffsetsLog(hold=True)
    committed: list[str] = []
    fut = _writer(log).answer(3, CoordinatorResult("ok", [], lambda: committed.append("x")), 10,
                              lambda e: f"failed {e.name}")
    assert fut.done() and fut.result() == "ok"
    assert not log.pending and committed == []


def test_the_response_waits_for_the_commit_then_on_committed_runs() -> None:
    log = InMemoryOffsetsLog(hold=True)
    committed: list[str] = []
    fut = _writer(log).answer(3, CoordinatorResult("ok", RECORDS, lambda: committed.append("x")), 10,
                              lambda e: f"failed {e.name}")
    assert not fut.done() and committed == [] and log.read(3) == []
    log.complete_next()
    assert fut.result() == "ok" and committed == ["x"]
    assert log.read(3) == RECORDS


def test_a_failed_write_answers_the_callers_error_and_skips_on_committed() -> None:
    log = InMemoryOffsetsLog(hold=True)
    committed: list[str] = []
    fut = _writer(log).answer(0, CoordinatorResult("ok", RECORDS, lambda: committed.append("x")), 10,
                              lambda e: f"failed {e.name}")
    log.complete_next(E.NOT_ENOUGH_REPLICAS)
    assert fut.result() == "failed NOT_ENOUGH_REPLICAS" and committed == []
    assert log.read(0) == []


class _CancellingLog:
    """An OffsetsLog whose appends are cancelled (the broker stopped waiting)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def append(self, partition: int, records: list[Record], timestamp_ms: int,
               producer_id: int = NO_PRODUCER_ID, producer_epoch: int = -1) -> Completion:
        fut: asyncio.Future[E] = self.loop.create_future()
        fut.cancel()
        return fut

    def read(self, partition: int) -> list[LogEntry]:
        return []


def test_a_cancelled_write_is_not_leader_or_follower() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        writer = CoordinatorWriter(_CancellingLog(loop), loop.create_future, "test coordinator")  # type: ignore[type-var]
        seen: list[E] = []
        answered = writer.answer(0, CoordinatorResult(E.NONE, RECORDS), 10, seen.append)  # type: ignore[arg-type]
        await asyncio.sleep(0)   # asyncio runs done callbacks on the next turn
        assert seen == [E.NOT_LEADER_OR_FOLLOWER] and answered.done()
    asyncio.run(main())


def test_a_write_nobody_waits_for_logs_its_failure(caplog) -> None:
    log = InMemoryOffsetsLog()
    log.fail_with = E.REQUEST_TIMED_OUT
    with caplog.at_level(logging.WARNING, logger="kafka.coordinator.common.runtime.CoordinatorRuntime"):
        _writer(log).write(1, RECORDS, 10, what="tombstones", key="g1")
    assert "test coordinator: failed to write tombstones for g1: REQUEST_TIMED_OUT" in caplog.text


def test_then_gets_the_writes_error_and_a_transactional_write_carries_its_producer() -> None:
    log = InMemoryOffsetsLog()
    errors: list[E] = []
    then: Callable[[E], None] = errors.append
    _writer(log).write(2, RECORDS, 10, then, producer_id=7, producer_epoch=1)
    assert errors == [E.NONE]
    assert log.read(2) == [TxnRecord(7, k, v) for k, v in RECORDS]


def test_a_waiter_that_went_away_is_left_alone() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        log = InMemoryOffsetsLog(future_factory=loop.create_future, hold=True)
        writer = CoordinatorWriter(log, loop.create_future, "test coordinator")
        answered = writer.answer(0, CoordinatorResult("ok", RECORDS), 10, lambda e: "failed")
        answered.cancel()  # type: ignore[attr-defined]  # the client's connection closed
        log.complete_next()
        await asyncio.sleep(0)
        assert answered.cancelled() and log.read(0) == RECORDS
    asyncio.run(main())


def test_an_immediate_future_is_awaitable_done_or_pending() -> None:
    """Handlers await a write's Completion whatever future backs it: a done ImmediateFuture
    answers at once, a pending one when set_result runs."""
    import asyncio

    from kafpy.coordinator.group.offsets_log import ImmediateFuture

    async def body() -> tuple[int, int]:
        done: ImmediateFuture[int] = ImmediateFuture()
        done.set_result(7)
        pending: ImmediateFuture[int] = ImmediateFuture()
        asyncio.get_running_loop().call_later(0.01, pending.set_result, 9)
        return await done, await pending

    assert asyncio.run(body()) == (7, 9)
