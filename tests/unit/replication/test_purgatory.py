"""DelayedOperationPurgatory, DelayedProduce and DelayedFetch with a hand-driven timer."""
from __future__ import annotations

from kafpy.protocol.errors import ErrorCode

from kafpy.replication.purgatory import DelayedFetch, DelayedOperationPurgatory, DelayedProduce


class ManualTimer:
    """call_later/cancel; ``advance`` fires what is due."""

    def __init__(self) -> None:
        self.now = 0.0
        self.pending: list[list] = []

    def call_later(self, delay, callback):
        entry = [self.now + delay, callback, False]
        self.pending.append(entry)

        class Handle:
            def cancel(self_inner) -> None:
                entry[2] = True
        return Handle()

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [e for e in self.pending if e[0] <= self.now and not e[2]]
        self.pending = [e for e in self.pending if e not in due]
        for e in due:
            e[1]()

    def live(self) -> int:
        return sum(1 for e in self.pending if not e[2])


class FakePartition:
    def __init__(self, hw: int = 0, leader: bool = True, isr_ok: bool = True) -> None:
        self.hw, self.leader, self.isr_ok = hw, leader, isr_ok

    def check_enough_replicas_reach_offset(self, required):
        if not self.leader:
            return ErrorCode.NOT_LEADER_OR_FOLLOWER
        if self.hw < required:
            return None
        return ErrorCode.NONE if self.isr_ok else ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND


def test_produce_completes_at_once_without_watching_or_timer():
    timer = ManualTimer()
    pg = DelayedOperationPurgatory("Produce", timer)
    got = []
    p = FakePartition(hw=10)
    assert pg.try_complete_else_watch(DelayedProduce([(p, 10)], got.append), [p], 1000)
    assert got == [[ErrorCode.NONE]] and pg.watched(p) == 0 and timer.live() == 0


def test_produce_completes_when_every_partition_is_covered():
    timer = ManualTimer()
    pg = DelayedOperationPurgatory("Produce", timer)
    got = []
    a, b = FakePartition(hw=0), FakePartition(hw=0)
    assert not pg.try_complete_else_watch(DelayedProduce([(a, 5), (b, 3)], got.append), [a, b], 1000)
    a.hw = 5
    assert pg.check_and_complete(a) == 0 and got == []
    b.hw = 3
    assert pg.check_and_complete(b) == 1
    assert got == [[ErrorCode.NONE, ErrorCode.NONE]]
    assert pg.watched(a) == pg.watched(b) == 0 and timer.live() == 0


def test_produce_expiry_answers_request_timed_out_for_unfinished_partitions():
    timer = ManualTimer()
    pg = DelayedOperationPurgatory("Produce", timer)
    got = []
    a, b = FakePartition(hw=0), FakePartition(hw=0)
    pg.try_complete_else_watch(DelayedProduce([(a, 1), (b, 1)], got.append), [a, b], 500)
    a.hw = 1
    pg.check_and_complete(a)
    timer.advance(0.4)
    assert got == []
    timer.advance(0.2)
    assert got == [[ErrorCode.NONE, ErrorCode.REQUEST_TIMED_OUT]]
    assert pg.watched(a) == pg.watched(b) == 0


def test_produce_leadership_loss_and_small_isr():
    timer = ManualTimer()
    pg = DelayedOperationPurgatory("Produce", timer)
    got = []
    a, b = FakePartition(hw=0), FakePartition(hw=0, isr_ok=False)
    pg.try_complete_else_watch(DelayedProduce([(a, 1), (b, 1)], got.append), [a, b], 500)
    a.leader = False
    pg.check_and_complete(a)
    b.hw = 1
    pg.check_and_complete(b)
    assert got == [[ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND]]
    timer.advance(1)
    assert len(got) == 1  # the cancelled timer does not answer twice


def test_fetch_is_woken_by_any_watched_key_once():
    timer = ManualTimer()
    pg = DelayedOperationPurgatory("Fetch", timer)
    woken = []
    assert not pg.try_complete_else_watch(DelayedFetch(lambda: woken.append(1)), ["a", "b"], 1000)
    assert pg.check_and_complete("other") == 0 and woken == []
    assert pg.check_and_complete("b") == 1 and woken == [1]
    assert pg.check_and_complete("a") == 0 and woken == [1]
    assert pg.watched("a") == 0 and timer.live() == 0


def test_fetch_expires():
    timer = ManualTimer()
    pg = DelayedOperationPurgatory("Fetch", timer)
    woken = []
    pg.try_complete_else_watch(DelayedFetch(lambda: woken.append(1)), ["a"], 250)
    timer.advance(0.25)
    assert woken == [1] and pg.watched("a") == 0


def test_shutdown_answers_everything():
    timer = ManualTimer()
    pg = DelayedOperationPurgatory("Produce", timer)
    got = []
    a = FakePartition(hw=0)
    pg.try_complete_else_watch(DelayedProduce([(a, 1)], got.append), [a], 30000)
    pg.shutdown()
    assert got == [[ErrorCode.REQUEST_TIMED_OUT]] and pg.watched(a) == 0
