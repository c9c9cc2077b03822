"""Per-request metrics: Kafka's ``RequestMetrics`` (requests by version, errors by code,
request times as percentiles) per request type.

Who may call it: the socket server's request observer, once per request
(``RequestMetrics.record``); the Prometheus collector and the status page read it when
scraped. Updated on the event loop thread only (the broker serves requests on one thread),
so plain ints and no lock; a scrape (also on the loop) sees a consistent view.

Why not ``prometheus_client``'s Counter/Histogram on the hot path: each ``labels(...).inc()``
takes a lock and hashes a label tuple through two dict levels; a Histogram observation
walks its buckets. Here one request costs one dict lookup by API key, two small dict
updates and one list increment: times go into log-scale buckets (``TimeHistogram``, 8 per
doubling, so a percentile is within 9% of the true value), and percentiles are computed only
at scrape time.

BrokerTopicMetrics are kept by ``kafpy.replication.topic_stats`` (counted on the append
path, where the data is in hand); re-exported here for the collector.
"""
from __future__ import annotations

from math import log2
from typing import Iterable

from kafpy.replication.topic_stats import TOPIC_METERS, BrokerTopicStats, TopicCounters

__all__ = ["RESERVOIR", "QUANTILES", "STAGES", "FETCH_CONSUMER", "FETCH_FOLLOWER", "REQUEST_LABELS", "TimeHistogram",
           "sample_percentiles", "ParkedTimes", "ApiRequestStats", "RequestMetrics",
           "BrokerTopicStats", "TopicCounters", "TOPIC_METERS"]

# observations a percentile window holds at least before it rolls over (Kafka's histograms
# sample about 1028 recent values)
RESERVOIR = 1024
# Kafka's histogram percentiles, as the JMX exporter's rules turn them into quantile labels
QUANTILES = ((0.5, "0.50"), (0.75, "0.75"), (0.95, "0.95"), (0.98, "0.98"), (0.99, "0.99"), (0.999, "0.999"))

# Kafka times Fetch twice: under "Fetch" and under "FetchConsumer" or "FetchFollower"
# (RequestChannel.Request.updateRequestMetrics); kept under these keys beside the API keys
FETCH_CONSUMER = -2
FETCH_FOLLOWER = -3
REQUEST_LABELS = {FETCH_CONSUMER: "FetchConsumer", FETCH_FOLLOWER: "FetchFollower"}

_PER_DOUBLING = 8
_BUCKETS = 34 * _PER_DOUBLING + 1     # bucket 0: under 1 us; the last: 2**34 us (~4.8 h) and more
# upper bound (ms) of each bucket, reported as the percentile's value
_UPPER_MS = [0.001] + [2.0 ** (i / _PER_DOUBLING) / 1000.0 for i in range(1, _BUCKETS)]


def bucket_of(ms: float) -> int:
    """The log-scale bucket of a time in milliseconds: 0 under 1 us, else ceil(8*log2(us))."""
    us = ms * 1000.0
    if us <= 1.0:
        return 0
    i = int(log2(us) * _PER_DOUBLING) + 1
    return i if i < _BUCKETS else _BUCKETS - 1


class TimeHistogram:
    """Counts of one timer's observations (ms) per log-scale bucket, their count and sum.

    Percentiles cover the recent past as Kafka's sampled histograms do: the counts since the
    window before the current one began; a scrape starts a new window once the current holds
    ``RESERVOIR`` observations, so between one and two windows' worth are reported."""

    __slots__ = ("counts", "count", "sum", "_older", "_newer")

    def __init__(self) -> None:
        self.counts = [0] * _BUCKETS
        self.count = 0
        self.sum = 0.0
        self._older = self._newer = (0, [0] * _BUCKETS)   # (count, counts) where the windows began

    def add(self, ms: float) -> None:
        self.count += 1
        self.sum += ms
        self.counts[bucket_of(ms)] += 1

    def percentiles(self) -> list[tuple[str, float]]:
        """(quantile label, value in ms) for Kafka's percentiles; empty before any observation."""
        older_count, older = self._older
        n = self.count - older_count
        if n <= 0:
            return []
        counts = self.counts
        window = [c - o for c, o in zip(counts, older)]
        out = []
        seen = 0
        i = 0
        for q, label in QUANTILES:
            rank = max(1, int(q * n + 0.999999))   # the smallest bucket holding ceil(q*n) values
            while seen + window[i] < rank:
                seen += window[i]
                i += 1
            out.append((label, _UPPER_MS[i]))
        if self.count - self._newer[0] >= RESERVOIR:
            self._older, self._newer = self._newer, (self.count, counts[:])
        return out


def sample_percentiles(values: Iterable[float]) -> list[tuple[str, float]]:
    """(quantile label, value) for Kafka's percentiles of a sample of recent observations
    (the controller's and ZooKeeper's timers, which are rare enough to keep their values)."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        return []
    return [(label, ordered[min(n - 1, max(0, int(q * n + 0.999999) - 1))]) for q, label in QUANTILES]


class ParkedTimes:
    """The requests whose handler waited (for followers, a long poll, a coordinator's write):
    their total, local (up to the first wait) and remote (from the first wait to the answer)
    times. Only these carry a second clock read."""

    __slots__ = ("total", "local", "remote")

    def __init__(self) -> None:
        self.total = TimeHistogram()
        self.local = TimeHistogram()
        self.remote = TimeHistogram()


# Kafka's request-time stages (RequestChannel's metrics) in the order a request passes them
STAGES = ("RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ThrottleTimeMs", "ResponseQueueTimeMs",
          "ResponseSendTimeMs")


class ApiRequestStats:
    """One request type's counters: requests by version, errors by code, total time; the
    times of the requests that waited (``parked``) and were throttled (``throttle_time``),
    made when first needed; and the stage histograms a scrape derives (``stages``)."""

    __slots__ = ("versions", "errors", "total_time", "parked", "throttle_time", "stages")

    def __init__(self) -> None:
        self.versions: dict[int, int] = {}
        self.errors: dict[int, int] = {}
        self.total_time = TimeHistogram()
        self.parked: ParkedTimes | None = None
        self.throttle_time: TimeHistogram | None = None
        self.stages: dict[str, TimeHistogram] = {}

    def waited(self, total_ms: float, remote_ms: float) -> None:
        p = self.parked
        if p is None:
            p = self.parked = ParkedTimes()
        p.total.add(total_ms)
        p.remote.add(remote_ms)
        p.local.add(max(total_ms - remote_ms, 0.0))

    def throttled(self, throttle_ms: int) -> None:
        h = self.throttle_time
        if h is None:
            h = self.throttle_time = TimeHistogram()
        h.add(float(throttle_ms))

    def stage_times(self) -> list[tuple[str, TimeHistogram | None]]:
        """Kafka's six stages, derived from what was recorded (read at scrape time); None for
        a stage that is 0 for every request so far (as many observations as the total's):

        - RequestQueueTimeMs, ResponseQueueTimeMs: always 0 (a request is handled in the read
          callback that decoded it, and its response is handed to the socket as it is
          encoded: no queue between threads);
        - LocalTimeMs: the total of a request that never waited, the part before its first
          wait for one that did (the total's own histogram while none waited);
        - RemoteTimeMs: from the first wait to the answer, 0 for one that never waited;
        - ThrottleTimeMs: the quota's throttle time, 0 when not throttled;
        - ResponseSendTimeMs: always 0; the write happens after the total is taken (untimed).

        A derived stage keeps its own ``TimeHistogram`` so its percentile window rolls as the
        total's does (the derived counts only ever grow)."""
        total = self.total_time
        n = total.count
        p, t = self.parked, self.throttle_time
        out: list[tuple[str, TimeHistogram | None]] = []
        for stage in STAGES:
            if stage == "LocalTimeMs":
                if p is None:
                    out.append((stage, total))
                    continue
                counts = [a - b + c for a, b, c in zip(total.counts, p.total.counts, p.local.counts)]
                sum_ms = total.sum - p.total.sum + p.local.sum
            else:
                part = p.remote if stage == "RemoteTimeMs" and p is not None else \
                    t if stage == "ThrottleTimeMs" and t is not None else None
                if part is None:
                    out.append((stage, None))
                    continue
                counts = part.counts[:]
                sum_ms = part.sum
                counts[0] += n - part.count
            h = self.stages.get(stage)
            if h is None:
                h = self.stages[stage] = TimeHistogram()
            h.counts, h.count, h.sum = counts, n, sum_ms
            out.append((stage, h))
        return out


class RequestMetrics:
    """Kafka's ``kafka.network:type=RequestMetrics`` per request type (``apis``, by API key):
    RequestsPerSec by version, ErrorsPerSec by error code (every partition's error for
    Produce and Fetch, as Kafka's ``errorCounts``), TotalTimeMs (from the request's decoding
    to its response being encoded) and the stages it is made of (``ApiRequestStats.stage_times``).
    Fetch is kept a second time under ``FETCH_CONSUMER`` or ``FETCH_FOLLOWER`` (versions and
    times; its errors under Fetch alone, as Kafka counts them)."""

    def __init__(self) -> None:
        self.apis: dict[int, ApiRequestStats] = {}
        # (resource, user, client id) -> [throttle ms, responses] since the last scrape
        self.throttle: dict[tuple[str, str, str], list[int]] = {}

    def api(self, api_key: int) -> ApiRequestStats:
        s = self.apis.get(api_key)
        if s is None:
            s = self.apis[api_key] = ApiRequestStats()
        return s

    def throttled(self, resource: str, user: str, client_id: str | None, throttle_ms: int) -> None:
        """A response whose client a quota throttled (Kafka's throttle-time sensor)."""
        key = (resource, user, client_id or "")
        entry = self.throttle.get(key)
        if entry is None:
            entry = self.throttle[key] = [0, 0]
        entry[0] += throttle_ms
        entry[1] += 1

    def take_throttle(self) -> dict[tuple[str, str, str], float]:
        """Average throttle time per (resource, user, client) since the previous call; the
        clients throttled before but not since report 0, then are forgotten."""
        out = {key: (ms / n if n else 0.0) for key, (ms, n) in self.throttle.items()}
        self.throttle = {key: [0, 0] for key, (ms, n) in self.throttle.items() if n}
        return out

    def record(self, api_key: int, version: int, total_s: float, error_code: int | None, remote_s: float = 0.0,
               throttle_ms: int = 0) -> ApiRequestStats:
        """One request answered with one error code (the request's, or none), after
        ``remote_s`` waiting (0: its handler never waited) and throttled for ``throttle_ms``;
        returns the type's stats for a caller with more error codes to add
        (``ApiRequestStats.errors``)."""
        s = self.apis.get(api_key) or self.api(api_key)
        versions = s.versions
        versions[version] = versions.get(version, 0) + 1
        if error_code is not None:
            errors = s.errors
            errors[error_code] = errors.get(error_code, 0) + 1
        # TimeHistogram.add inlined: this runs for every request
        h = s.total_time
        ms = total_s * 1000.0
        h.count += 1
        h.sum += ms
        us = ms * 1000.0
        i = int(log2(us) * _PER_DOUBLING) + 1 if us > 1.0 else 0
        h.counts[i if i < _BUCKETS else _BUCKETS - 1] += 1
        if remote_s:
            s.waited(ms, remote_s * 1000.0)
        if throttle_ms:
            s.throttled(throttle_ms)
        return s

    # views by (api, version) and (api, error) for readers
    @property
    def requests(self) -> dict[tuple[int, int], int]:
        return {(api, v): n for api, s in self.apis.items() for v, n in s.versions.items()}

    @property
    def errors(self) -> dict[tuple[int, int], int]:
        return {(api, e): n for api, s in self.apis.items() for e, n in s.errors.items()}

    @property
    def total_ms(self) -> dict[int, TimeHistogram]:
        return {api: s.total_time for api, s in self.apis.items()}
