"""Kafka's ``BrokerTopicStats``: BrokerTopicMetrics meters per topic and for all topics,
counted where the data is already in hand (the append path for produces, the Fetch answer
for bytes out), read by the Prometheus collector and the status page when they are read.

Who may call it: ``append_to_local_log`` (appends of clients' produces, as leader), the
request observer (Fetch answers), readers at scrape time; all on the event loop thread, so
plain ints and no lock. ReplicaManager holds one only while something reads metrics
(``ReplicaManager.topic_stats``); until then appends pay a single ``is None`` test.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from kafpy.protocol.messages import FetchResponse

_MESSAGE_TOO_LARGE = 10
_RECORD_LIST_TOO_LARGE = 18


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


class BrokerTopicStats:
    """The meters of every topic a client produced to or fetched from here (``topics``) and
    of all of them (``total``), counted as Kafka's ReplicaManager counts them: a leader's
    appends of clients' produces (not followers' appends, not the coordinators' own writes),
    bytes sent to consumers (not to followers), and per partition the produce and fetch
    requests and those that failed.

    Each event updates its topic's counters only; ``total`` adds them up when read (plus
    ``unattributed``: requests for partitions not hosted here), which halves the per-append
    work."""

    def __init__(self) -> None:
        self.topics: dict[str, TopicCounters] = {}
        self.unattributed = TopicCounters()

    def topic(self, name: str) -> TopicCounters:
        c = self.topics.get(name)
        if c is None:
            c = self.topics[name] = TopicCounters()
        return c

    def forget(self, topics: list[str]) -> None:
        """Topics deleted: their counters go (Kafka removes their metrics); ``total`` keeps
        counting from what is left, as Kafka's all-topics meters never go back, so their
        counts move to ``unattributed``."""
        gone = self.unattributed
        for t in topics:
            c = self.topics.pop(t, None)
            if c is not None:
                for attr in TopicCounters.__slots__:
                    setattr(gone, attr, getattr(gone, attr) + getattr(c, attr))

    @property
    def total(self) -> TopicCounters:
        """All topics' meters (Kafka's allTopicsStats), summed when read."""
        out = TopicCounters()
        attrs = TopicCounters.__slots__
        for c in (self.unattributed, *self.topics.values()):
            for attr in attrs:
                setattr(out, attr, getattr(out, attr) + getattr(c, attr))
        return out

    # -- produce (append_to_local_log) ------------------------------------------------------
    def appended(self, topic: str, partitions: int, records_count: int, size: int) -> None:
        """A client's ``size`` bytes of ``records_count`` records appended to ``partitions``
        partitions of ``topic`` as their leader (a retried batch the log found a duplicate
        of counts too, as in Kafka)."""
        c = self.topics.get(topic) or self.topic(topic)
        c.total_produce += partitions
        c.messages_in += records_count
        c.bytes_in += size

    def append_failed(self, topic: str | None, error_code: int, size: int) -> None:
        """An append of ``size`` bytes refused with ``error_code``; ``topic`` None for a
        partition not hosted here (counted for all topics only: a client naming unknown
        topics must not grow the table)."""
        c = self.unattributed if topic is None else self.topic(topic)
        c.total_produce += 1
        c.failed_produce += 1
        if error_code in (_MESSAGE_TOO_LARGE, _RECORD_LIST_TOO_LARGE):
            c.bytes_rejected += size

    # -- fetch (the request observer, from the answer) ---------------------------------------
    def on_fetch(self, response: FetchResponse, from_follower: bool, topic_name: Callable[[bytes], str | None],
                 error_counts: dict[int, int] | None = None) -> None:
        """A Fetch answered: bytes out per topic (consumers only, as Kafka's BytesOutPerSec
        excludes replication), failed and total fetch requests per topic. ``topic_name``
        maps a topic id to its name (Fetch v13+ answers by id; an unknown one counts for all
        topics only). ``error_counts`` (Kafka's ErrorsPerSec for Fetch) takes every
        partition's error code, NONE included, in the same pass."""
        ok = 0
        for tr in response.responses:
            name = tr.topic or topic_name(tr.topic_id)
            c = (self.topics.get(name) or self.topic(name)) if name else self.unattributed
            for pr in tr.partitions:
                c.total_fetch += 1
                code = pr.error_code
                if code:
                    c.failed_fetch += 1
                    if error_counts is not None:
                        error_counts[code] = error_counts.get(code, 0) + 1
                    continue
                ok += 1
                if not from_follower and pr.records is not None:
                    c.bytes_out += len(pr.records)
        if ok and error_counts is not None:
            error_counts[0] = error_counts.get(0, 0) + ok
