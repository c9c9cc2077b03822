"""SharePartition: the delivery state of one (share group, topic partition) on the
partition's leader (KIP-932), as a pure state machine with the clock passed in.

It keeps the share-partition start offset (SPSO: every offset below it is done), the
offset reading from the log resumes at (`end_offset`, exclusive: the SPEO plus one), and
the in-flight records between them as runs of offsets sharing one state (AVAILABLE,
ACQUIRED, ACKNOWLEDGED, ARCHIVED), delivery count, owner and lock deadline. An offset at
or past `end_offset` that no run covers has never been delivered (AVAILABLE, count 0); an
offset below it that no run covers held no record (a compacted gap) and counts as done.

Who calls it: the SharePartitionManager only (event loop). Every method that changes
delivery state returns the runs it changed, which the manager writes through the
SharePersister before answering; the state machine itself does no I/O.

Why runs rather than one entry per offset: acquisitions and acknowledgements come as
whole batches in the common case, so a run per batch keeps the work per fetch and the
state written per acknowledgement proportional to batches, not records; a run is split
only where an acknowledgement or a lock splits it.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from enum import IntEnum
from typing import Callable, Iterable, Sequence

from kafpy.coordinator.share_state.persister import StateBatch
from kafpy.protocol.errors import ErrorCode


class RecordState(IntEnum):
    """An in-flight record's state, as Kafka's RecordState ids (also the persisted ones)."""

    AVAILABLE = 0
    ACQUIRED = 1
    ACKNOWLEDGED = 2
    ARCHIVED = 4


class AcknowledgeType(IntEnum):
    """ShareFetch/ShareAcknowledge acknowledge types (GAP: no record at that offset)."""

    GAP = 0
    ACCEPT = 1
    RELEASE = 2
    REJECT = 3
    RENEW = 4


class AcquireMode(IntEnum):
    """ShareFetch v2's ShareAcquireMode: whole log batches (MaxRecords is a soft limit
    rounded up to a batch boundary), or exactly MaxRecords records at most."""

    BATCH_OPTIMIZED = 0
    RECORD_LIMIT = 1


DONE = (RecordState.ACKNOWLEDGED, RecordState.ARCHIVED)


@dataclass(frozen=True)
class SharePartitionConfig:
    """The limits one share partition works under (the group's configs over the broker's)."""

    record_lock_duration_ms: int = 30000
    delivery_count_limit: int = 5
    max_in_flight_records: int = 2000


@dataclass(slots=True)
class InFlightRun:
    """Offsets `first`..`last` (inclusive) in one state; `member_id` and `deadline_ms` are
    set while ACQUIRED."""

    first: int
    last: int
    state: RecordState
    delivery_count: int
    member_id: str | None = None
    deadline_ms: int = 0
    joined: "InFlightRun | None" = None     # the run this one was joined to (then dropped)

    def copy(self, first: int, last: int) -> "InFlightRun":
        return InFlightRun(first, last, self.state, self.delivery_count, self.member_id, self.deadline_ms)


@dataclass(frozen=True)
class AcquiredRange:
    """One AcquiredRecords entry of a ShareFetch answer."""

    first_offset: int
    last_offset: int
    delivery_count: int


@dataclass(frozen=True)
class AckBatch:
    """One AcknowledgementBatch: a type for the whole range, or one per offset."""

    first_offset: int
    last_offset: int
    types: Sequence[int]


class SharePartition:
    """The in-flight state of one share partition. See the module docstring."""

    def __init__(self, group_id: str, topic: str, partition: int, config: SharePartitionConfig,
                 start_offset: int = 0, batches: Iterable[StateBatch] = (), state_epoch: int = 0,
                 leader_epoch: int = 0) -> None:
        self.group_id = group_id
        self.topic = topic
        self.partition = partition
        self.config = config
        self.state_epoch = state_epoch
        self.leader_epoch = leader_epoch
        self.start_offset = start_offset
        self.end_offset = start_offset
        self.runs: list[InFlightRun] = []
        for b in sorted(batches, key=lambda b: b.first_offset):
            first = max(b.first_offset, start_offset, self.runs[-1].last + 1 if self.runs else 0)
            if b.last_offset < first:
                continue        # below the start offset, or covered by an earlier batch
            state = RecordState(b.delivery_state) if b.delivery_state in (0, 2, 4) else RecordState.AVAILABLE
            self.runs.append(InFlightRun(first, b.last_offset, state, b.delivery_count))
        self._advance_start()

    # -- reading -------------------------------------------------------------------------
    def next_fetch_offset(self) -> int:
        """Where the next log read starts: the first AVAILABLE run below `end_offset`
        (a redelivery), else `end_offset`."""
        for r in self.runs:
            if r.first >= self.end_offset:
                break
            if r.state is RecordState.AVAILABLE:
                return max(r.first, self.start_offset)
        return self.end_offset

    def in_flight_count(self) -> int:
        return max(self.end_offset - self.start_offset, 0)

    def can_acquire(self) -> bool:
        """Anything could be acquired now: a redelivery, or room for new records."""
        return (self.next_fetch_offset() < self.end_offset
                or self.in_flight_count() < self.config.max_in_flight_records)

    def next_deadline_ms(self) -> int | None:
        ds = [r.deadline_ms for r in self.runs if r.state is RecordState.ACQUIRED]
        return min(ds) if ds else None

    # -- acquiring -----------------------------------------------------------------------
    def acquire(self, member_id: str, log_batches: Sequence[tuple[int, int]], max_records: int,
                now_ms: int, mode: AcquireMode = AcquireMode.BATCH_OPTIMIZED,
                archived: Sequence[tuple[int, int]] = (), batch_size: int = 0
                ) -> tuple[list[AcquiredRange], list[InFlightRun]]:
        """Acquire for `member_id` what is AVAILABLE in `log_batches` ((first, last) offsets of
        the batches a log read returned, in order), up to `max_records` (rounded up to the
        batch's end in BATCH_OPTIMIZED mode) and, for records never delivered, the in-flight
        limit. `archived` ranges (aborted transactions, read_committed) are archived instead.
        `batch_size` (ShareFetch's BatchSize, 0: none) splits the acquired ranges as Kafka
        does: a range that holds `batch_size` records or more ends at the next log batch.
        Returns (the acquired ranges, the runs changed)."""
        deadline = now_ms + self.config.record_lock_duration_ms
        limit = self.config.delivery_count_limit
        acquired: list[AcquiredRange] = []
        changed: list[InFlightRun] = []
        count = 0
        room = self.config.max_in_flight_records - self.in_flight_count()
        for first, last in log_batches:
            if count >= max_records:
                break
            first = max(first, self.start_offset)
            if last < first:
                continue
            if first >= self.end_offset and room <= 0:
                break       # new records wait for the in-flight records to drain
            if mode is AcquireMode.RECORD_LIMIT:
                first = self._first_available(first, last)
                if first > last:
                    self.end_offset = max(self.end_offset, last + 1)
                    continue
                last = min(last, first + (max_records - count) - 1)
                if last >= self.end_offset:
                    last = min(last, self.end_offset + room - 1)
                    if last < first:
                        break
            is_archived = any(a <= first and last <= b for a, b in archived)
            for run in self._runs_over(first, last):
                if run.state is not RecordState.AVAILABLE:
                    continue
                if is_archived or run.delivery_count >= limit:
                    run.state = RecordState.ARCHIVED
                    changed.append(run)
                    continue
                run.state = RecordState.ACQUIRED
                run.delivery_count += 1
                run.member_id = member_id
                run.deadline_ms = deadline
                changed.append(run)
                n = run.last - run.first + 1
                count += n
                if acquired and acquired[-1].last_offset + 1 == run.first \
                        and acquired[-1].delivery_count == run.delivery_count \
                        and not (batch_size > 0 and run.first == first
                                 and run.first - acquired[-1].first_offset >= batch_size):
                    prev = acquired.pop()
                    acquired.append(AcquiredRange(prev.first_offset, run.last, run.delivery_count))
                else:
                    acquired.append(AcquiredRange(run.first, run.last, run.delivery_count))
            if last >= self.end_offset:
                room -= last + 1 - max(first, self.end_offset)
                self.end_offset = last + 1
        if changed:
            self._advance_start()
        return acquired, changed

    # -- acknowledging -------------------------------------------------------------------
    def acknowledge(self, member_id: str, batches: Sequence[AckBatch], now_ms: int
                    ) -> tuple[ErrorCode, list[InFlightRun]]:
        """Apply one partition's acknowledgements, all or none, batch by batch as Kafka's
        SharePartition does: types must be known and either one for the range or one per
        offset, and a batch may not reach past the records read (INVALID_REQUEST); a batch
        wholly below the start offset is skipped and one straddling it is clipped to it
        (those records are done already); every in-flight offset named, GAPs included,
        must be ACQUIRED by `member_id` (else INVALID_RECORD_STATE)."""
        plan: list[tuple[int, int, int]] = []
        for b in batches:
            if b.last_offset < b.first_offset or not b.types:
                return ErrorCode.INVALID_REQUEST, []
            n = b.last_offset - b.first_offset + 1
            if len(b.types) != 1 and len(b.types) != n:
                return ErrorCode.INVALID_REQUEST, []
            if any(t not in (0, 1, 2, 3, 4) for t in b.types):
                return ErrorCode.INVALID_REQUEST, []
            if b.last_offset < self.start_offset:
                continue
            if b.last_offset >= self.end_offset:
                return ErrorCode.INVALID_REQUEST, []    # past the acquired records
            first = max(b.first_offset, self.start_offset)
            if len(b.types) == 1:
                ranges = [(first, b.last_offset, b.types[0])]
            else:
                ranges = []
                lo = first - b.first_offset
                start = lo
                for i in range(lo + 1, n + 1):
                    if i == n or b.types[i] != b.types[i - 1]:
                        ranges.append((b.first_offset + start, b.first_offset + i - 1, b.types[i - 1]))
                        start = i
            for lo_offset, hi_offset, _t in ranges:
                for r in self._covering(lo_offset, hi_offset):
                    if r.state is not RecordState.ACQUIRED or r.member_id != member_id:
                        return ErrorCode.INVALID_RECORD_STATE, []
            plan.extend(ranges)
        changed: list[InFlightRun] = []
        limit = self.config.delivery_count_limit
        for first, last, t in plan:
            for r in self._runs_over(first, last, create=t == AcknowledgeType.GAP):
                if t == AcknowledgeType.ACCEPT:
                    r.state = RecordState.ACKNOWLEDGED
                elif t in (AcknowledgeType.REJECT, AcknowledgeType.GAP):
                    r.state = RecordState.ARCHIVED
                elif t == AcknowledgeType.RELEASE:
                    r.state = RecordState.ARCHIVED if r.delivery_count >= limit else RecordState.AVAILABLE
                else:  # RENEW: the lock starts again
                    r.deadline_ms = now_ms + self.config.record_lock_duration_ms
                    continue
                r.member_id = None
                r.deadline_ms = 0
                changed.append(r)
        if changed:
            self._advance_start()
        return ErrorCode.NONE, changed

    def release_member(self, member_id: str) -> list[InFlightRun]:
        """Release everything `member_id` holds (its share session closed)."""
        return self._release(lambda r: r.member_id == member_id)

    def expire_locks(self, now_ms: int) -> list[InFlightRun]:
        """Release the records whose acquisition lock ran out by `now_ms`."""
        return self._release(lambda r: r.deadline_ms <= now_ms)

    def _release(self, which: Callable[[InFlightRun], bool]) -> list[InFlightRun]:
        limit = self.config.delivery_count_limit
        changed = []
        for r in self.runs:
            if r.state is RecordState.ACQUIRED and which(r):
                r.state = RecordState.ARCHIVED if r.delivery_count >= limit else RecordState.AVAILABLE
                r.member_id = None
                r.deadline_ms = 0
                changed.append(r)
        if changed:
            self._advance_start()
        return changed

    def move_start_offset(self, offset: int) -> list[InFlightRun]:
        """Records below `offset` are gone from the log (retention): skip them."""
        if offset > self.start_offset:
            self.start_offset = offset
            self.end_offset = max(self.end_offset, offset)
            self.runs = [r for r in self.runs if r.last >= offset]
            if self.runs and self.runs[0].first < offset:
                self.runs[0].first = offset
            self._advance_start()
        return []

    # -- persisting ----------------------------------------------------------------------
    def state_batches(self, runs: Iterable[InFlightRun]) -> list[StateBatch]:
        """`runs` as the persister's batches (ACQUIRED is kept as AVAILABLE: a lock does not
        outlive its leader), clipped to the start offset. A run that a change joined to its
        neighbour is written as the joined run, once."""
        out = []
        seen: set[int] = set()
        for r in runs:
            while r.joined is not None:
                r = r.joined
            if r.last < self.start_offset or id(r) in seen:
                continue
            seen.add(id(r))
            state = RecordState.AVAILABLE if r.state is RecordState.ACQUIRED else r.state
            out.append(StateBatch(max(r.first, self.start_offset), r.last, int(state), r.delivery_count))
        return out

    # -- internals -----------------------------------------------------------------------
    def _first_available(self, first: int, last: int) -> int:
        """The first offset from `first` that is not held by a run in another state."""
        for r in self._covering(first, last):
            if r.first > first:
                break
            if r.state is RecordState.AVAILABLE:
                break
            first = r.last + 1
        return first

    def _split_at(self, offset: int) -> None:
        """Make `offset` the first offset of a run if a run covers it."""
        i = bisect.bisect_right(self._firsts(), offset) - 1
        if i >= 0:
            r = self.runs[i]
            if r.first < offset <= r.last:
                tail = r.copy(offset, r.last)
                r.last = offset - 1
                self.runs.insert(i + 1, tail)

    def _firsts(self) -> list[int]:
        return [r.first for r in self.runs]

    def _covering(self, first: int, last: int) -> list[InFlightRun]:
        """The runs overlapping `first`..`last`, unsplit."""
        firsts = self._firsts()
        i = max(bisect.bisect_right(firsts, first) - 1, 0)
        out = []
        for r in self.runs[i:]:
            if r.first > last:
                break
            if r.last >= first:
                out.append(r)
        return out

    def _runs_over(self, first: int, last: int, create: bool = True) -> list[InFlightRun]:
        """Runs covering exactly `first`..`last`, split at both ends; offsets at or past
        `end_offset` not yet covered get a new AVAILABLE run (count 0) when `create`."""
        self._split_at(first)
        self._split_at(last + 1)
        firsts = self._firsts()
        i = bisect.bisect_left(firsts, first)
        out: list[InFlightRun] = []
        pos = first
        while pos <= last:
            if i < len(self.runs) and self.runs[i].first == pos:
                r = self.runs[i]
                out.append(r)
                pos = r.last + 1
                i += 1
                continue
            gap_end = min(last, (self.runs[i].first - 1) if i < len(self.runs) else last)
            fresh_from = max(pos, self.end_offset)
            if create and fresh_from <= gap_end:
                r = InFlightRun(fresh_from, gap_end, RecordState.AVAILABLE, 0)
                self.runs.insert(i, r)
                out.append(r)
                i += 1
            pos = gap_end + 1
        return out

    def _advance_start(self) -> None:
        """Move the start offset past the leading done records and gaps, dropping their runs."""
        cur = self.start_offset
        drop = 0
        for r in self.runs:
            if r.last < cur:
                drop += 1
                continue
            if r.first > cur:
                if cur >= self.end_offset:
                    break
                cur = min(r.first, self.end_offset)
                if r.first > cur:
                    break
            if r.state in DONE:
                cur = r.last + 1
                drop += 1
                continue
            break
        else:
            cur = max(cur, self.end_offset)
        if drop:
            del self.runs[:drop]
        if self.runs and self.runs[0].first < cur:
            self.runs[0].first = cur
        self.start_offset = cur
        if self.end_offset < cur:
            self.end_offset = cur
        self._coalesce()

    def _coalesce(self) -> None:
        """Join neighbouring runs in the same state (done, or available with one count)."""
        if len(self.runs) < 2:
            return
        out = [self.runs[0]]
        for r in self.runs[1:]:
            p = out[-1]
            if (p.last + 1 == r.first and p.state == r.state and p.state is not RecordState.ACQUIRED
                    and p.delivery_count == r.delivery_count):
                p.last = r.last
                r.joined = p
            else:
                out.append(r)
        self.runs = out
