"""Per-request metrics: Kafka's ``RequestMetrics`` (requests and errors per request type,
request times as percentiles) and ``BrokerTopicMetrics`` (messages, bytes, failed and total
produce/fetch requests per topic and for all topics).

Who may call it: the socket server, once per request (``RequestMetrics.record``) and once per
Produce or Fetch answered (``TopicMetrics.on_produce``/``on_fetch``); the Prometheus
collector reads the dicts when scraped. Everything here is plain ints in dicts keyed by
tuples, updated on the event loop thread: the broker serves requests on one thread, so no
lock is needed, and a scrape (also on the loop) sees a consistent view.

Why not ``prometheus_client``'s Counter/Histogram on the hot path: each ``labels(...).inc()``
takes a lock and hashes a label tuple through two dict levels; a Histogram observation
walks its buckets. Kafka's percentiles come from a sampling reservoir; we keep the last
``RESERVOIR`` times per request type in a ring and sort a copy at scrape time.
"""
from __future__ import annotations

import struct
from typing import Any

RESERVOIR = 1024
# Kafka's histogram percentiles, as the JMX exporter's rules turn them into quantile labels
QUANTILES = ((0.5, "0.50"), (0.75, "0.75"), (0.95, "0.95"), (0.98, "0.98"), (0.99, "0.99"), (0.999, "0.999"))

_RECORDS_COUNT = 57    # int32 record count in a v2 batch header
_BATCH_LENGTH = 8      # int32 batch length (after base offset)
_I32 = struct.Struct(">i")


class TimeReservoir:
    """The last ``RESERVOIR`` observations of one timer (milliseconds), their count and sum."""

    __slots__ = ("values", "next", "count", "sum")

    def __init__(self) -> None:
        self.values: list[float] = []
        self.next = 0
        self.count = 0
        self.sum = 0.0

    def add(self, ms: float) -> None:
        self.count += 1
        self.sum += ms
        values = self.values
        if len(values) < RESERVOIR:
            values.append(ms)
        else:
            values[self.next] = ms
            self.next = (self.next + 1) % RESERVOIR

    def percentiles(self) -> list[tuple[str, float]]:
        """(quantile label, value) for Kafka's percentiles; empty before any observation."""
        values = sorted(self.values)
        if not values:
            return []
        n = len(values)
        return [(label, values[min(n - 1, int(q * n))]) for q, label in QUANTILES]


class RequestMetrics:
    """Kafka's ``kafka.network:type=RequestMetrics`` per request type: RequestsPerSec by
    version, ErrorsPerSec by error code, TotalTimeMs (from the request's decoding to its
    response being encoded; requests are handled as they are read, so Kafka's request
    queue time is not there to add)."""

    def __init__(self) -> None:
        self.requests: dict[tuple[int, int], int] = {}      # (api key, version) -> count
        self.errors: dict[tuple[int, int], int] = {}        # (api key, error code) -> count
        self.total_ms: dict[int, TimeReservoir] = {}
        # (resource, user, client id) -> [throttle ms, responses] since the last scrape
        self.throttle: dict[tuple[str, str, str], list[int]] = {}

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

    def record(self, api_key: int, version: int, total_s: float, error_code: int) -> None:
        key = (api_key, version)
        self.requests[key] = self.requests.get(key, 0) + 1
        ekey = (api_key, error_code)
        self.errors[ekey] = self.errors.get(ekey, 0) + 1
        total = self.total_ms.get(api_key)
        if total is None:
            total = self.total_ms[api_key] = TimeReservoir()
        total.add(total_s * 1000.0)


class TopicCounters:
    """One topic's (or all topics') BrokerTopicMetrics meters."""

    __slots__ = ("messages_in", "bytes_in", "bytes_out", "bytes_rejected", "failed_produce", "failed_fetch",
                 "total_produce", "total_fetch")

    def __init__(self) -> None:
        self.messages_in = self.bytes_in = self.bytes_out = self.bytes_rejected = 0
        self.failed_produce = self.failed_fetch = self.total_produce = self.total_fetch = 0


# (attribute, Kafka's MBean name) in the order they are exported
TOPIC_METERS = (("messages_in", "MessagesInPerSec"), ("bytes_in", "BytesInPerSec"),
                ("bytes_out", "BytesOutPerSec"), ("bytes_rejected", "BytesRejectedPerSec"),
                ("failed_produce", "FailedProduceRequestsPerSec"), ("failed_fetch", "FailedFetchRequestsPerSec"),
                ("total_produce", "TotalProduceRequestsPerSec"), ("total_fetch", "TotalFetchRequestsPerSec"))

_MESSAGE_TOO_LARGE = 10
_RECORD_LIST_TOO_LARGE = 18


_HEADER = struct.Struct(">8xi4xb40xi")   # batch length (8), magic (16), records count (57)
_HEADER_UNPACK = _HEADER.unpack_from


def record_count(records: Any) -> int:
    """Records in a partition's batches, read from the v2 batch headers (no decoding): one
    unpack per batch. A v0/v1 message set (rare: clients older than 0.11) counts as one."""
    n = len(records)
    pos = 0
    count = 0
    while pos + 61 <= n:
        length, magic, records_count = _HEADER.unpack_from(records, pos)
        if magic != 2:
            return count + 1
        count += records_count
        pos += length + 12
    return count


class TopicMetrics:
    """BrokerTopicMetrics per topic and for all topics (``total``), counted as Kafka's
    ReplicaManager counts them: a leader's appends of client produces (followers' fetches
    and internal topics' appends by the broker itself are not client produces), bytes sent
    to consumers, and the requests per topic that failed."""

    def __init__(self) -> None:
        self.total = TopicCounters()
        self.topics: dict[str, TopicCounters] = {}

    def _topic(self, name: str) -> TopicCounters:
        c = self.topics.get(name)
        if c is None:
            c = self.topics[name] = TopicCounters()
        return c

    def forget(self, topics: list[str]) -> None:
        for t in topics:
            self.topics.pop(t, None)

    def on_produce(self, request: Any, response: Any) -> None:
        """A Produce answered (``response`` None for acks=0: every partition counted as
        appended). Sums per topic first: one update of each counter per topic."""
        failed: dict[tuple[str, int], int] | None = None
        if response is not None:
            for tr in response.responses:
                for pr in tr.partition_responses:
                    if pr.error_code:
                        if failed is None:
                            failed = {}
                        failed[(tr.name, pr.index)] = pr.error_code
        total = self.total
        for td in request.topic_data:
            name = td.name
            c = self.topics.get(name) or self._topic(name)
            parts = td.partition_data
            size_in = msgs = 0
            for pd in parts:
                records = pd.records
                if failed is not None:
                    err = failed.get((name, pd.index))
                    if err is not None:
                        c.failed_produce += 1
                        total.failed_produce += 1
                        if records and err in (_MESSAGE_TOO_LARGE, _RECORD_LIST_TOO_LARGE):
                            c.bytes_rejected += len(records)
                            total.bytes_rejected += len(records)
                        continue
                if not records:
                    continue
                n = len(records)
                size_in += n
                if n >= 61:
                    length, magic, count = _HEADER_UNPACK(records)
                    # one v2 batch (what producers send since Produce v3): its count, else walk
                    msgs += count if magic == 2 and length + 12 == n else record_count(records)
            c.total_produce += len(parts)
            total.total_produce += len(parts)
            c.bytes_in += size_in
            c.messages_in += msgs
            total.bytes_in += size_in
            total.messages_in += msgs

    def on_fetch(self, response: Any, from_follower: bool, topic_name: Any) -> None:
        """A Fetch answered: bytes out per topic (consumers only, as Kafka's BytesOutPerSec
        excludes replication), failed and total fetch requests per topic. ``topic_name``
        maps a topic id to its name (Fetch v13+ answers by id)."""
        total = self.total
        for tr in response.responses:
            name = tr.topic or topic_name(tr.topic_id)
            c = self._topic(name) if name else None
            for pr in tr.partitions:
                if c is None:
                    continue
                c.total_fetch += 1
                total.total_fetch += 1
                if pr.error_code:
                    c.failed_fetch += 1
                    total.failed_fetch += 1
                elif not from_follower and pr.records is not None:
                    size = len(pr.records)
                    c.bytes_out += size
                    total.bytes_out += size
