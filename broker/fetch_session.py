"""Incremental fetch sessions (KIP-227).

A client opens a session with a full fetch (session id 0, epoch 0); the broker remembers the
partitions and what it last told the client about each. Later requests (same id, next epoch)
list only partitions whose fetch position changed, and responses carry only partitions with
news: records, a moved high watermark or log start offset, or an error. Epoch -1 closes a
session; a session id of 0 with epoch -1 is a plain sessionless fetch.

Pure bookkeeping, called from the event loop; the clock is passed in for eviction.
"""
from __future__ import annotations

import itertools
import random
from collections import OrderedDict
from dataclasses import dataclass, field

from kafpy.protocol.errors import ErrorCode, KafkaError

INITIAL_EPOCH = 0
FINAL_EPOCH = -1


@dataclass
class CachedPartition:
    topic: str
    topic_id: bytes
    partition: int
    fetch_offset: int
    max_bytes: int
    log_start_offset: int
    current_leader_epoch: int
    # what the client was last told; -1 forces the partition into the next response
    high_watermark: int = -1
    last_stable_offset: int = -1
    sent_log_start_offset: int = -1


@dataclass
class FetchSession:
    id: int
    epoch: int
    uses_topic_ids: bool
    last_used_ms: int
    partitions: "OrderedDict[tuple, CachedPartition]" = field(default_factory=OrderedDict)


class FetchSessionError(KafkaError):
    """A fetch session Kafka refuses (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH, ...)."""

    def __init__(self, error_code: ErrorCode) -> None:
        super().__init__(error_code)
        self.error_code = ErrorCode(error_code)


def next_epoch(epoch: int) -> int:
    return 1 if epoch >= 2147483647 else epoch + 1


class FetchSessionCache:
    def __init__(self, max_slots: int = 1000, eviction_ms: int = 120_000) -> None:
        self.max_slots = max_slots
        self.eviction_ms = eviction_ms
        self.sessions: dict[int, FetchSession] = {}
        self._rng = random.Random()
        self._ids = itertools.count(1)

    def _new_id(self) -> int:
        while True:
            sid = self._rng.randint(1, 2147483647)
            if sid not in self.sessions:
                return sid

    def _evict(self, now_ms: int) -> None:
        stale = [s.id for s in self.sessions.values() if now_ms - s.last_used_ms > self.eviction_ms]
        for sid in stale:
            del self.sessions[sid]
        if len(self.sessions) >= self.max_slots:
            oldest = min(self.sessions.values(), key=lambda s: s.last_used_ms)
            del self.sessions[oldest.id]

    def create(self, partitions: list[CachedPartition], uses_topic_ids: bool, now_ms: int) -> FetchSession | None:
        if self.max_slots <= 0:
            return None
        self._evict(now_ms)
        s = FetchSession(self._new_id(), next_epoch(INITIAL_EPOCH), uses_topic_ids, now_ms)
        for cp in partitions:
            s.partitions[(cp.topic_id if uses_topic_ids else cp.topic, cp.partition)] = cp
        self.sessions[s.id] = s
        return s

    def get_incremental(self, session_id: int, epoch: int, now_ms: int) -> FetchSession:
        s = self.sessions.get(session_id)
        if s is None:
            raise FetchSessionError(ErrorCode.FETCH_SESSION_ID_NOT_FOUND)
        if s.epoch != epoch:
            raise FetchSessionError(ErrorCode.INVALID_FETCH_SESSION_EPOCH)
        s.last_used_ms = now_ms
        return s

    def remove(self, session_id: int) -> None:
        self.sessions.pop(session_id, None)
