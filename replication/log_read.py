"""Reads for a Fetch (Kafka's ReplicaManager.readFromLog with Partition.fetchRecords): what
each partition answers, and the follower's fetch state recorded after a read that succeeded.

Who may call it: ``ReplicaManager`` only (``fetch_messages``, ``read_from_log``; event
loop). Nothing on disk of its own; record data is never read into Python: a read returns
the log's file region, which the connection's writer sends with ``sendfile``.

A follower's read (``FetchParams.replica_id >= 0``) is the leader's side of replication: a
replica not assigned is UNKNOWN_LEADER_EPOCH (NOT_LEADER_OR_FOLLOWER without a leader
epoch); a last fetched epoch whose end in the leader's log is before the fetch offset (or
whose epoch the leader does not have) gets no records but a diverging epoch; otherwise the
read runs up to the log end and only then, if it succeeded, the fetch offset feeds the
follower's state, the ISR and the high watermark (as Kafka: a follower asking past the
leader's end gets OFFSET_OUT_OF_RANGE and is not counted as holding those offsets).
"""
from __future__ import annotations

import enum
import logging
from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, Sequence

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchResponse
from kafpy.protocol.message_base import ZERO_UUID
from kafpy.storage.errors import OffsetOutOfRangeError, StorageError
from kafpy.storage.file_records import FileRecordsSlice

from kafpy.replication.partition import Partition

log = logging.getLogger("kafka.server.ReplicaManager")



class FetchPartition(Protocol):
    """One partition of a Fetch as the request (or its fetch session) names it."""

    topic: str
    topic_id: bytes
    partition: int
    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int


class FetchIsolation(enum.Enum):
    """How far a read may go (Kafka's FetchIsolation): the log end (followers, and the
    coordinators loading their partitions), the high watermark (consumers), the last stable
    offset (read_committed consumers)."""

    LOG_END = 0
    HIGH_WATERMARK = 1
    TXN_COMMITTED = 2


LOG_END, TXN_COMMITTED = FetchIsolation.LOG_END, FetchIsolation.TXN_COMMITTED


@dataclass(slots=True)
class PartitionFetchInfo:
    """A ``FetchPartition`` for a read that has no fetch session (the coordinators' loads)."""

    topic: str
    partition: int
    fetch_offset: int
    max_bytes: int
    topic_id: bytes = ZERO_UUID
    current_leader_epoch: int = -1


class FetchParams:
    """A Fetch's request-wide parameters (Kafka's FetchParams), not changed once made.
    ``replica_id`` >= 0 is a follower (whose isolation is LOG_END); ``last_fetched_epochs``
    its last fetched epoch per (topic id when ``uses_topic_ids`` else name, partition);
    ``hard_max_bytes`` (Fetch v0-2) forbids answering one batch larger than the limits. A
    plain class: every Fetch makes one, and a frozen dataclass's __init__ costs microseconds."""

    __slots__ = ("replica_id", "max_wait_ms", "min_bytes", "max_bytes", "isolation", "hard_max_bytes",
                 "uses_topic_ids", "fetch_time_ms", "last_fetched_epochs")

    def __init__(self, replica_id: int, max_wait_ms: int, min_bytes: int, max_bytes: int,
                 isolation: FetchIsolation = FetchIsolation.HIGH_WATERMARK, hard_max_bytes: bool = False,
                 uses_topic_ids: bool = False, fetch_time_ms: int = 0,
                 last_fetched_epochs: Mapping[tuple[str | bytes, int], int] | None = None) -> None:
        self.replica_id = replica_id
        self.max_wait_ms = max_wait_ms
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.isolation = isolation
        self.hard_max_bytes = hard_max_bytes
        self.uses_topic_ids = uses_topic_ids
        self.fetch_time_ms = fetch_time_ms
        self.last_fetched_epochs = last_fetched_epochs if last_fetched_epochs is not None else {}


class LogReadResult:
    """What one partition answers: an error, or offsets and maybe records (a file region),
    the aborted transactions overlapping them (read_committed), a diverging epoch."""

    __slots__ = ("partition", "error", "hw", "lso", "log_start", "records", "size", "diverging", "aborted")

    def __init__(self, partition: FetchPartition, error: ErrorCode = ErrorCode.NONE) -> None:
        self.partition = partition
        self.error = error
        self.diverging: FetchResponse.EpochEndOffset | None = None
        self.aborted: list | None = None
        self.hw = -1
        self.lso = -1
        self.log_start = -1
        self.records: FileRecordsSlice | None = None
        self.size = 0


def _diverged(part: Partition, params: FetchParams, fp: FetchPartition, r: LogReadResult) -> bool:
    """A follower's checks before reading; True when the read stops here (``r`` has the
    error or the diverging epoch)."""
    replica_id = params.replica_id
    if replica_id not in part.remote_replicas:
        log.debug("Leader %d failed to record follower %d's position %d since the replica is not recognized "
                  "to be one of the assigned replicas %s for %s-%d", part.local_broker_id, replica_id,
                  fp.fetch_offset, list(part.assigned_replicas), fp.topic, fp.partition)
        r.error = ErrorCode.UNKNOWN_LEADER_EPOCH if fp.current_leader_epoch >= 0 else ErrorCode.NOT_LEADER_OR_FOLLOWER
        return True
    last = params.last_fetched_epochs.get((fp.topic_id if params.uses_topic_ids else fp.topic, fp.partition))
    if last is not None:
        epoch, end = part.log.leader_epoch_cache.end_offset_for(last)
        if epoch < 0 or end < 0:
            r.error = ErrorCode.OFFSET_OUT_OF_RANGE
            return True
        if epoch < last or end < fp.fetch_offset:
            r.diverging = FetchResponse.EpochEndOffset(epoch=epoch, end_offset=end)
            return True
    return False


def read_partitions(get_partition: Callable[[str, int], Partition | None],
                  partition_error: Callable[[str, int], ErrorCode], params: FetchParams,
                  partitions: Sequence[FetchPartition], update_fetch_state: bool
                  ) -> tuple[list[LogReadResult], int, list[Partition], bool]:
    """(one result per partition in order, bytes read, partitions to wait on, whether to
    answer at once: a follower's read stopped by its checks). A follower's position is
    recorded (``update_fetch_state``: the first read of a request, not the re-reads after
    waiting) only after its read succeeded."""
    is_follower = params.replica_id >= 0
    isolation = params.isolation
    read_committed = isolation is TXN_COMMITTED
    to_log_end = isolation is LOG_END
    now_answer = False
    results = []
    waiting = []
    total = 0
    budget = params.max_bytes
    min_one = not params.hard_max_bytes
    for fp in partitions:
        r = LogReadResult(fp)
        results.append(r)
        part = get_partition(fp.topic, fp.partition) if fp.topic else None
        if part is None:
            r.error = (ErrorCode.UNKNOWN_TOPIC_ID if (fp.topic_id != ZERO_UUID and not fp.topic)
                       else partition_error(fp.topic, fp.partition))
            continue
        if not part.is_leader:
            r.error = ErrorCode.NOT_LEADER_OR_FOLLOWER
            continue
        lg = part.log
        if fp.current_leader_epoch >= 0 and fp.current_leader_epoch != part.leader_epoch:
            r.error = ErrorCode.FENCED_LEADER_EPOCH if fp.current_leader_epoch < part.leader_epoch else ErrorCode.UNKNOWN_LEADER_EPOCH
            continue
        r.hw = hw = lg.high_watermark
        r.lso = lso = lg.last_stable_offset
        r.log_start = lg.log_start_offset
        if is_follower and _diverged(part, params, fp, r):
            now_answer = True
            continue
        limit = lg.log_end_offset if to_log_end else lso if read_committed else hw
        fetch_offset = fp.fetch_offset
        waiting.append(part)
        part_budget = min(fp.max_bytes, budget)
        if (fetch_offset < limit or fetch_offset > lg.log_end_offset) and (part_budget > 0 or min_one):
            try:
                info = lg.read(fetch_offset, part_budget, limit, min_one, read_committed)
            except OffsetOutOfRangeError:
                r.error = ErrorCode.OFFSET_OUT_OF_RANGE
                continue
            except StorageError as e:
                r.error = e.error_code
                continue
            except Exception:
                log.exception("Error reading %s-%d at offset %d", fp.topic, fp.partition, fetch_offset)
                r.error = ErrorCode.UNKNOWN_SERVER_ERROR
                continue
            recs = info.records
            if recs is not None and recs.size > 0:
                r.records = recs
                r.size = recs.size
                if info.aborted_transactions:
                    r.aborted = [FetchResponse.AbortedTransaction(producer_id=pid, first_offset=first)
                                 for pid, first in info.aborted_transactions]
                total += recs.size
                budget -= recs.size
                min_one = False
        # else nothing visible yet (or no budget left): an empty answer, not an error
        if is_follower and update_fetch_state:
            part.update_follower_fetch_state(params.replica_id, fetch_offset, params.fetch_time_ms)
            r.hw = lg.high_watermark  # the follower's position may just have moved it
            r.lso = lg.last_stable_offset
    return results, total, waiting, now_answer
