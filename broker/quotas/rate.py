"""Kafka's windowed rate (``org.apache.kafka.common.metrics.stats.Rate`` over a
``WindowedSum``) and the throttle time a violation costs.

A rate keeps ``samples`` windows of ``window_ms`` each (``quota.window.num`` = 11 and
``quota.window.size.seconds`` = 1 by default): the value recorded in the live windows,
divided by the time they span, never taken as less than ``samples - 1`` whole windows (so
a client's first burst is not measured over a few milliseconds). Pure: every call is given
the time; nothing on disk. Who may call it: ``kafpy.broker.quotas.manager`` only.
"""
from __future__ import annotations


class _Sample:
    __slots__ = ("value", "events", "start_ms")

    def __init__(self, start_ms: int) -> None:
        self.value = 0.0
        self.events = 0
        self.start_ms = start_ms

    def reset(self, now_ms: int) -> None:
        self.value = 0.0
        self.events = 0
        self.start_ms = now_ms


class Rate:
    """Value per second over the last ``samples`` windows (Kafka's SampledStat + Rate)."""

    __slots__ = ("samples", "window_ms", "_samples", "_current")

    def __init__(self, samples: int = 11, window_ms: int = 1000) -> None:
        self.samples = max(2, samples)
        self.window_ms = window_ms
        self._samples: list[_Sample] = []
        self._current = 0

    def record(self, value: float, now_ms: int) -> None:
        sample = self._current_sample(now_ms)
        if now_ms - sample.start_ms >= self.window_ms:
            sample = self._advance(now_ms)
        sample.value += value
        sample.events += 1

    def _current_sample(self, now_ms: int) -> _Sample:
        if not self._samples:
            self._samples.append(_Sample(now_ms))
        return self._samples[self._current]

    def _advance(self, now_ms: int) -> _Sample:
        self._current = (self._current + 1) % self.samples
        if self._current >= len(self._samples):
            sample = _Sample(now_ms)
            self._samples.append(sample)
        else:
            sample = self._samples[self._current]
            sample.reset(now_ms)
        return sample

    def _purge(self, now_ms: int) -> None:
        expire = self.samples * self.window_ms
        for s in self._samples:
            if now_ms - s.start_ms >= expire:
                s.reset(now_ms)

    def window_size_ms(self, now_ms: int) -> int:
        """The span the rate divides by (Kafka's ``Rate.windowSize``): from the oldest live
        window's start to now, at least ``samples - 1`` whole windows, at least 1 ms."""
        self._purge(now_ms)
        oldest = min((s.start_ms for s in self._samples), default=now_ms)
        elapsed = now_ms - oldest
        full = elapsed // self.window_ms
        if full < self.samples - 1:
            elapsed += (self.samples - 1 - full) * self.window_ms
        return max(elapsed, 1)

    def total(self, now_ms: int) -> float:
        self._purge(now_ms)
        return sum(s.value for s in self._samples)

    def measure(self, now_ms: int) -> float:
        """Value per second now."""
        total = self.total(now_ms)
        return total / (self.window_size_ms(now_ms) / 1000.0)


def throttle_time_ms(observed: float, bound: float, window_ms: int) -> int:
    """How long to hold a client back so its rate falls to the bound if it sends nothing
    meanwhile (Kafka's ``throttleTime``): with O observed over a window W and target T,
    O * W / (W + X) = T gives X = (O - T) / T * W."""
    if bound <= 0 or observed <= bound:
        return 0
    return int(round((observed - bound) / bound * window_ms))
