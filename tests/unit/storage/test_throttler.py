"""Kafka's Throttler with a fake clock: naps bring each checked period down to the rate."""
from __future__ import annotations

import sys

from kafpy.storage.throttler import Throttler


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.naps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.naps.append(s)
        self.now += s


def test_above_the_rate_it_sleeps_the_period_back_down_to_it() -> None:
    c = Clock()
    t = Throttler(1000.0, check_interval_s=0.3, clock=c, sleep=c.sleep)
    t.maybe_throttle(500)          # within the first check interval: no nap
    assert c.naps == []
    c.now = 0.5
    t.maybe_throttle(500)          # 1,000 units in 0.5 s = 2,000/s: sleep 0.5 s more
    assert c.naps == [0.5] and t.slept_s == 0.5
    # the next period starts after the nap: 200 units in 0.4 s is below the rate
    c.now += 0.4
    t.maybe_throttle(200)
    assert c.naps == [0.5]


def test_over_many_calls_the_average_holds_to_the_rate() -> None:
    c = Clock()
    t = Throttler(10_000.0, check_interval_s=0.3, clock=c, sleep=c.sleep)
    for _ in range(1000):
        c.now += 0.001             # the work itself: 1 ms per 100 units (100,000/s unthrottled)
        t.maybe_throttle(100)
    rate = 1000 * 100 / c.now
    # ten times the rate unthrottled; held to it, but for the last period, never checked
    assert 9_000 < rate < 11_500


def test_kafkas_default_rate_never_sleeps_or_reads_the_clock() -> None:
    reads: list[int] = []

    def clock() -> float:
        reads.append(1)
        return 0.0
    t = Throttler(sys.float_info.max, clock=clock, sleep=lambda s: 1 / 0)
    reads.clear()
    for _ in range(100):
        t.maybe_throttle(10**9)
    assert reads == [] and t.slept_s == 0
    t.rate_per_s = float("inf")
    t.maybe_throttle(10**9)
    assert reads == []
