"""One partition's log: its segments plus its offsets and side state (Kafka's ``UnifiedLog``).

On disk, in ``<log dir>/<topic>-<partition>/``: the segments (kept by
``kafpy.storage.local_log.LocalLog``), ``leader-epoch-checkpoint``, ``partition.metadata`` and
producer ``<offset>.snapshot`` files. Log start offset, recovery point and high
watermark are checkpointed per log dir by the LogManager. With ``pending_fsyncs`` the
epoch checkpoint and partition.metadata are fsynced later by the LogManager, in a batch.

The layers, as in Kafka: ``LogValidator`` checks what is appended, ``LocalLog`` owns the
segment list and its files, and this class keeps the offsets (log start, high
watermark, last stable), leader epochs and producer state, and runs each append through
the one sequence in ``append``.

Who may call it: the LogManager creates and closes it; the broker's ReplicaManager (or
Partition), the coordinators and the handlers use it, on the event loop.

Threading rule: a Log is used from one thread (the broker's event loop). The only
other thread is the log cleaner, which reads inactive segments and then swaps cleaned
copies in under ``self.lock``; the event loop takes the same lock around segment-list
changes and lookups, never around I/O it does not need to guard. An append to a log
that is not compacted takes no lock (see ``append`` why that is safe).

Crash recovery: after an unclean shutdown every segment from the one holding the
recovery point is validated batch by batch (CRC, framing, increasing offsets); the log
is cut at the first bad batch (later segments are deleted) and the indexes, leader
epochs and producer state are rebuilt. After a clean shutdown the log opens without a
scan; a missing or insane index is rebuilt from its segment either way. Leftovers of an
interrupted operation: ``*.tmp``, ``*.cleaned`` are removed, ``*.swap`` completes its
swap, ``*.deleted`` are removed.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, NamedTuple, Optional

from kafpy.protocol.records import (ATTRIBUTES_FIELD, BASE_OFFSET_FIELD, CONTROL_MASK, LAST_OFFSET_DELTA_FIELD,
                                    MAX_TIMESTAMP_FIELD, PARTITION_LEADER_EPOCH_FIELD, PRODUCER_ID_FIELD,
                                    RECORDS_COUNT_FIELD)

from kafpy.storage.checkpoint import PartitionMetadataFile, PendingFsyncs
from kafpy.storage.config import LogConfig
from kafpy.storage.errors import InvalidRecordError, KafkaStorageError, OffsetOutOfRangeError, StorageError
from kafpy.storage.leader_epoch import LeaderEpochFileCache
from kafpy.storage.local_log import LocalLog
from kafpy.storage.log_validator import AheadOutcome, AheadSettings, BatchEntry, Buffer, LogValidator
from kafpy.storage.producer_state import UPDATE_AFTER_WRITE, ProducerStateManager
from kafpy.storage.segment import FileRecordsSlice, LogSegment
from kafpy.storage.txn_index import AbortedTxn

if TYPE_CHECKING:
    from kafpy.protocol.batch_header import RecordBatchHeader

__all__ = ["Log", "LogAppendInfo", "FetchDataInfo", "parse_topic_partition"]

log = logging.getLogger(__name__)

LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint"
PARTITION_METADATA = "partition.metadata"

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5



def parse_topic_partition(dirname: str) -> tuple[str, int]:
    """``my-topic-3`` -> ("my-topic", 3); raises ValueError for anything else."""
    topic, sep, part = dirname.rpartition("-")
    if not sep or not topic or not part.isdigit():
        raise ValueError(f"not a partition directory: {dirname!r}")
    return topic, int(part)


class LogAppendInfo(NamedTuple):
    """What an append did (Kafka's LogAppendInfo); immutable."""

    first_offset: int
    last_offset: int
    max_timestamp: int
    log_append_time: int
    log_start_offset: int
    duplicate: bool = False
    records_count: int = 0
    valid_bytes: int = 0


# builds a LogAppendInfo from a tuple of all its fields without NamedTuple's Python-level
# __new__: the append path makes one per Produce
_new_info = tuple.__new__


@dataclass(slots=True)
class FetchDataInfo:
    records: Optional[FileRecordsSlice]
    fetch_offset: int = 0
    first_entry_incomplete: bool = False
    aborted_transactions: Optional[list] = None


class Log:
    """See the module docstring."""

    def __init__(
        self,
        directory: str,
        config: LogConfig,
        *,
        clock: Callable[[], float] = time.time,
        recovery_point: int = 0,
        log_start_offset: int = 0,
        high_watermark: int = 0,
        needs_recovery: bool = True,
        topic_id: Optional[bytes] = None,
        pending_fsyncs: Optional[PendingFsyncs] = None,
    ):
        self.dir = directory
        self.topic, self.partition = parse_topic_partition(os.path.basename(directory.rstrip("/")))
        self.config = config
        self.clock = clock
        self._log_start_offset = 0
        self._high_watermark = 0
        self._unflushed = 0
        self._last_flush_ms = self._now_ms()
        os.makedirs(directory, exist_ok=True)
        self._local = LocalLog(directory, config, self._now_ms, recovery_point, self._on_roll)
        self.lock = self._local.lock
        self._validator = LogValidator(config, self._now_ms, f"{self.topic}-{self.partition}")
        self._append_lock = self.lock if self._validator.compact else None
        self._plain = not self._validator.converts and self._append_lock is None  # see append
        # whether a client's append may decode records (compacted, or recompressing): see records_to_check_ahead
        self.works_ahead = (self._validator.compact or self._validator.target_codec is not None
                            or self._validator.record_body_limit is not None)
        self._partition_metadata = PartitionMetadataFile(os.path.join(directory, PARTITION_METADATA),
                                                         pending_fsyncs)
        self.topic_id = self._partition_metadata.read()
        if topic_id is not None and self.topic_id != topic_id:
            self.assign_topic_id(topic_id)
        self.leader_epoch_cache = LeaderEpochFileCache(
            os.path.join(directory, LEADER_EPOCH_CHECKPOINT), lambda: self._local.next_offset, pending_fsyncs)
        self.producer_state = ProducerStateManager(directory, config.producer_id_expiration_ms)
        self._pending_fsyncs = pending_fsyncs  # the snapshot taken on close is fsynced in their batch
        # told of a storage error of an append or flush (the LogManager's log dir failure check)
        self.on_storage_error: Optional[Callable[[BaseException], None]] = None
        # batch headers read at load to rebuild producer state past the latest snapshot
        # (0 after a clean shutdown, which snapshots at the log end)
        self.producer_batches_replayed = 0
        self._load(log_start_offset, needs_recovery)
        self.update_high_watermark(high_watermark)

    # ------------------------------------------------------------------ properties
    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    @property
    def log_start_offset(self) -> int:
        return self._log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self._local.next_offset

    @property
    def high_watermark(self) -> int:
        return self._high_watermark

    @property
    def last_stable_offset(self) -> int:
        first_unstable = self.producer_state.first_unstable_offset()
        if first_unstable is None:
            return self._high_watermark
        return min(self._high_watermark, first_unstable)

    @property
    def recovery_point(self) -> int:
        return self._local.recovery_point

    @property
    def closed(self) -> bool:
        return self._local.closed

    @property
    def segments_recovered(self) -> int:
        """Segments read through when this log was loaded (indexes rebuilt, recovery)."""
        return self._local.segments_recovered

    @property
    def segments(self) -> list[LogSegment]:
        return self._local.segments

    @property
    def active_segment(self) -> LogSegment:
        return self._local.active_segment

    def size_in_bytes(self) -> int:
        return self._local.size_in_bytes()

    def assign_topic_id(self, topic_id: bytes) -> None:
        self.topic_id = topic_id
        self._partition_metadata.write(topic_id)

    def update_config(self, config: LogConfig) -> None:
        self.config = config
        self._local.config = config
        self._validator = LogValidator(config, self._now_ms, f"{self.topic}-{self.partition}")
        self._append_lock = self.lock if self._validator.compact else None
        self._plain = not self._validator.converts and self._append_lock is None  # see append
        # whether a client's append may decode records (compacted, or recompressing): see records_to_check_ahead
        self.works_ahead = (self._validator.compact or self._validator.target_codec is not None
                            or self._validator.record_body_limit is not None)
        self.producer_state.producer_id_expiration_ms = config.producer_id_expiration_ms

    # ------------------------------------------------------------------ high watermark
    def update_high_watermark(self, offset: int) -> int:
        """Set the HW, clamped to [log start, LEO], forwards or backwards; the value kept.

        For whoever knows the HW rather than computes it: a follower taking its leader's
        (``replication/fetcher.py``, through ``FollowerLog``) and this log's own load (the
        checkpointed HW). A leader, a standalone broker's included, moves its HW with
        ``maybe_increment_high_watermark`` (``replication/partition.py``) instead."""
        self._high_watermark = min(max(offset, self._log_start_offset), self._local.next_offset)
        self.producer_state.on_high_watermark_updated(self._high_watermark)
        return self._high_watermark

    def maybe_increment_high_watermark(self, offset: int) -> bool:
        """Move the HW forwards to ``offset`` (clamped to the LEO); whether it moved.

        For a leader's Partition, once the replicas in the ISR have ``offset``: never
        backwards, as Kafka's ``maybeIncrementHighWatermark``."""
        offset = min(offset, self._local.next_offset)
        if offset <= self._high_watermark:
            return False
        self._high_watermark = offset
        self.producer_state.on_high_watermark_updated(offset)
        return True

    # ------------------------------------------------------------------ loading
    def _load(self, log_start_offset: int, needs_recovery: bool) -> None:
        epochs = self.leader_epoch_cache

        def on_batch(h: RecordBatchHeader) -> None:
            if h.partition_leader_epoch > epochs.latest_epoch:
                epochs.assign(h.partition_leader_epoch, h.base_offset, flush=False)

        local = self._local
        local.load(log_start_offset, needs_recovery, on_batch)
        if needs_recovery:
            epochs.flush()
        leo = local.next_offset
        self._log_start_offset = min(max(log_start_offset, local.segments[0].base_offset), leo)
        local.recovery_point = min(max(local.recovery_point, self._log_start_offset), leo)
        epochs.truncate_from_end(leo, flush=False)
        epochs.truncate_from_start(self._log_start_offset)
        self._rebuild_producer_state(leo)

    def _rebuild_producer_state(self, end_offset: int) -> None:
        """Load the latest snapshot <= end offset, then replay batch headers after it."""
        ps = self.producer_state
        ps.delete_snapshots_above(end_offset)
        snap = ps.load_latest_snapshot(end_offset, self._now_ms())
        start = snap if snap is not None else self._log_start_offset
        if snap is None:
            ps.clear(self._log_start_offset)
            ps.last_snap_offset = self._log_start_offset
        if start < end_offset:
            for seg in self._local.segments_from(start):
                found = seg.translate_offset(start)
                if found is None:
                    continue
                for pos, h in seg.iter_batch_headers(found.position):
                    if h.base_offset >= end_offset:
                        break
                    self.producer_batches_replayed += 1
                    if h.last_offset >= start and h.producer_id >= 0:
                        ps.replay_batch(seg, h, h.base_offset, h.last_offset, h.max_timestamp, None, pos)
        ps.map_end_offset = end_offset
        ps.on_high_watermark_updated(self._high_watermark)

    # ------------------------------------------------------------------ appends
    def records_to_check_ahead(self, records: bytes | bytearray | memoryview) -> int:
        """How many records a client's append of ``records`` would decode on the caller's
        thread (``LogValidator.records_to_decode``: a compacted topic's keys, recompression)."""
        if self._validator.config is not self.config:
            self.update_config(self.config)
        return self._validator.records_to_decode(records)

    def ahead_settings(self) -> AheadSettings:
        """What ``log_validator.work_ahead`` needs besides the records (now's clock reading
        among them, for the timestamp bounds)."""
        return self._validator.ahead_settings()

    def check_ahead(self, records: bytes | bytearray | memoryview) -> None:
        """``LogValidator.check_ahead``: the next append of ``records`` uses its outcome."""
        self._validator.check_ahead(records)

    def checked_ahead(self, records: bytes | bytearray | memoryview, outcome: AheadOutcome) -> None:
        """The outcome of ``log_validator.work_ahead(records, *ahead_settings())``, done
        elsewhere (a worker process), for the next append of ``records`` (unless the
        config changes in between: then the append does the work itself)."""
        self._validator.keep_checked(records, outcome)

    def append(self, records: Buffer, leader_epoch: Optional[int], origin: str = "client") -> LogAppendInfo:
        """``_append``; a storage error (a failing disk) is reported to ``on_storage_error``
        before it is raised."""
        try:
            return self._append(records, leader_epoch, origin)
        except KafkaStorageError as e:
            if self.on_storage_error is not None:
                self.on_storage_error(e)
            raise

    def _append(self, records: Buffer, leader_epoch: Optional[int], origin: str = "client") -> LogAppendInfo:
        """Every append's one sequence: validate, producer checks, offsets and epoch,
        write (and roll), leader epochs, producer state, flush.

        ``origin`` (Kafka's AppendOrigin): "client" (Produce: client rules, producer
        sequences checked), "coordinator" (the group/transaction coordinators: control
        batches allowed, sequences not checked), both with the leader's
        ``leader_epoch``; "replication" (a follower: batches keep their offsets and
        epochs, ``leader_epoch`` is None).

        The request's bytes are not copied: in a writable buffer (a bytearray request,
        or one the validator converted) the fields outside the CRC that change (base
        offset, length, leader epoch) are rewritten in place, as Kafka does, and the
        whole goes out in one ``os.write``; otherwise each batch goes out as a new
        16-byte prefix plus a view of the rest, in one ``os.writev``. Written inline,
        with one call per layer, because it runs for every Produce.
        """
        local = self._local
        validator = self._validator
        if validator.config is not self.config or local.closed:
            if local.closed:
                raise KafkaStorageError(f"log {self.dir} is closed")
            self.update_config(self.config)
            validator = self._validator
        from_client = origin == "client"
        if from_client and self._plain:
            # the common Produce (one magic-2 batch, nothing to convert, no lock): one
            # call per layer; anything else is left to the general sequence below
            first = local.next_offset
            one = validator.validate_batch(records, True, leader_epoch, first)
            if one is not None:
                pieces, last, h = one
                ps = self.producer_state
                dup = ps.check_and_update(h, last, h[MAX_TIMESTAMP_FIELD])
                if dup is not None and dup is not UPDATE_AFTER_WRITE:
                    return _new_info(LogAppendInfo, (dup.first_offset, dup.last_offset, dup.timestamp, -1,
                                                     self._log_start_offset, True, h[RECORDS_COUNT_FIELD], 0))
                total = len(records)
                try:
                    local.append_batch(pieces, total, last, h)
                except BaseException:
                    if dup is None:
                        ps.forget_batch(h)
                    raise
                assert leader_epoch is not None  # a client's append is a leader's
                if leader_epoch > self.leader_epoch_cache.latest_epoch:
                    self.leader_epoch_cache.assign(leader_epoch, first)
                if dup is not None:
                    ps.update(h, first, last, h[MAX_TIMESTAMP_FIELD])
                self._unflushed += h[RECORDS_COUNT_FIELD]
                if self._unflushed >= self.config.flush_messages:
                    self.flush()
                return _new_info(LogAppendInfo, (first, last, h[MAX_TIMESTAMP_FIELD], -1, self._log_start_offset, False,
                                                 h[RECORDS_COUNT_FIELD], total))
        # The cleaner thread works on compacted logs only: an append to any other log
        # takes no lock (the event loop is the only appender; a roll locks the segment list).
        lock = self._append_lock
        if lock is not None:
            lock.acquire()
        try:
            (buf, pieces, batches, first, last, max_ts, count,
             append_time) = validator.validate(records, from_client, leader_epoch, local.next_offset)
            total = len(buf)
            if from_client:
                ps = self.producer_state
                dup = ps.check_append(batches)
                if dup is not None:
                    return _new_info(LogAppendInfo, (dup.first_offset, dup.last_offset, dup.timestamp, -1,
                                                     self._log_start_offset, True, count, 0))
                local.append(pieces, batches, total, first, last, max_ts)
                # side state, once the data is in the file
                assert leader_epoch is not None  # a client's append is a leader's
                if leader_epoch > self.leader_epoch_cache.latest_epoch:
                    self.leader_epoch_cache.assign(leader_epoch, first)
                ps.update_client_batches(batches)
            else:
                if leader_epoch is None and first < local.next_offset:
                    raise InvalidRecordError(f"follower append at {first} below log end offset {local.next_offset}")
                seg = local.append(pieces, batches, total, first, last, max_ts)
                self._after_append(seg, buf, batches, leader_epoch, first)
            self._unflushed += count
            if self._unflushed >= self.config.flush_messages:
                self.flush()
        finally:
            if lock is not None:
                lock.release()
        return _new_info(LogAppendInfo, (first, last, max_ts, append_time, self._log_start_offset, False, count, total))

    def _after_append(self, seg: LogSegment, buf: Buffer, batches: list[BatchEntry], leader_epoch: Optional[int], first: int) -> None:
        """Leader epochs and producer state after a coordinator's or a follower's append."""
        epochs = self.leader_epoch_cache
        if leader_epoch is not None:
            if leader_epoch > epochs.latest_epoch:
                epochs.assign(leader_epoch, first)
        else:
            for b in batches:
                h = b[4]
                if h[PARTITION_LEADER_EPOCH_FIELD] > epochs.latest_epoch:
                    epochs.assign(h[PARTITION_LEADER_EPOCH_FIELD], h[BASE_OFFSET_FIELD])
        ps = self.producer_state
        for pos, _, batch_last, ts, h in batches:
            if h[PRODUCER_ID_FIELD] >= 0:
                if h[ATTRIBUTES_FIELD] & CONTROL_MASK:
                    ps.replay_batch(seg, h, batch_last - h[LAST_OFFSET_DELTA_FIELD], batch_last, ts, buf, pos)
                else:
                    ps.update(h, batch_last - h[LAST_OFFSET_DELTA_FIELD], batch_last, ts)

    append_as_leader = append  # (records, leader_epoch, origin="client"): Kafka's appendAsLeader

    def append_as_follower(self, records: Buffer) -> LogAppendInfo:
        """Append batches replicated from the leader, keeping their offsets and epochs."""
        return self.append(records, None, "replication")

    def _on_roll(self, new_base: int) -> None:
        """A segment starts at ``new_base``: snapshot producer state there (as Kafka)."""
        self.producer_state.map_end_offset = self._local.next_offset
        try:
            self.producer_state.take_snapshot(new_base)
        except OSError as e:
            log.warning("producer snapshot at %d failed: %s", new_base, e)

    def roll(self) -> LogSegment:
        return self._local.roll()

    def wait_for_background_flush(self, timeout: float = 60.0) -> None:
        self._local.wait_for_background_flush(timeout)

    # ------------------------------------------------------------------ reads
    def collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int) -> list[tuple[int, int]]:
        """(producer id, first offset) of aborted transactions overlapping the range."""
        return self._local.collect_aborted_transactions(start_offset, upper_bound_offset)

    def aborted_txns(self, start_offset: int, upper_bound_offset: int) -> list[AbortedTxn]:
        """The aborted transactions overlapping the range, whole (the cleaner's view; the
        caller holds ``lock``)."""
        return self._local.aborted_txns(start_offset, upper_bound_offset)

    def read(self, offset: int, max_bytes: int, max_offset: Optional[int] = None,
             min_one_message: bool = True, fetch_aborted: bool = False) -> FetchDataInfo:
        """Whole batches from the batch holding ``offset``, below ``max_offset``, up to
        ``max_bytes`` (at least one batch when ``min_one_message``), from one segment.

        ``fetch_aborted`` (read_committed fetches, with ``max_offset`` = LSO) fills
        ``aborted_transactions`` with (producer id, first offset) pairs overlapping the
        returned range."""
        with self.lock:
            if self._local.closed:
                raise KafkaStorageError(f"log {self.dir} is closed")
            leo = self._local.next_offset
            if offset < self._log_start_offset or offset > leo:
                raise OffsetOutOfRangeError(
                    f"offset {offset} outside [{self._log_start_offset}, {leo}] of {self.topic}-{self.partition}")
            records = None
            if offset < leo and (max_offset is None or offset < max_offset):
                records = self._local.read(offset, max_bytes, max_offset, min_one_message)
        info = FetchDataInfo(records, offset)
        if fetch_aborted:
            # as Kafka: up to the end of the segment read from (cheap, a superset is harmless)
            upper = self._local.next_segment_base(offset)
            if max_offset is not None:
                upper = min(upper, max_offset)
            info.aborted_transactions = (self.collect_aborted_transactions(offset, upper)
                                         if records is not None else [])
        return info

    def fetch_offset_by_timestamp(self, ts: int) -> Optional[tuple[int, int, int]]:
        """(offset, timestamp, leader epoch) of the first record with timestamp >= ``ts``;
        ``-2`` earliest, ``-1`` latest (LEO), ``-3`` the record with the max timestamp."""
        epochs = self.leader_epoch_cache
        if ts == EARLIEST_TIMESTAMP or ts == EARLIEST_LOCAL_TIMESTAMP:
            return self._log_start_offset, -1, epochs.epoch_for_offset(self._log_start_offset)
        if ts == LATEST_TIMESTAMP or ts == LATEST_TIERED_TIMESTAMP:
            return self._local.next_offset, -1, epochs.latest_epoch
        segs = self.segments
        if ts == MAX_TIMESTAMP:
            best = None
            for seg in segs:
                lt = seg.largest_timestamp
                if lt >= 0 and (best is None or lt > best.largest_timestamp):
                    best = seg
            if best is None:
                return None
            return best.find_offset_by_timestamp(best.largest_timestamp, self._log_start_offset,
                                                 self.config.max_decompressed_message_bytes)
        if ts < 0:
            return None
        for seg in segs:
            if seg.size and seg.largest_timestamp >= ts:
                found = seg.find_offset_by_timestamp(ts, self._log_start_offset,
                                                     self.config.max_decompressed_message_bytes)
                if found is not None:
                    return found
        return None

    # ------------------------------------------------------------------ truncation
    def truncate_to(self, offset: int) -> bool:
        """Remove everything at and above ``offset`` (follower catching up with its leader);
        True if records went. At or past the log end no record goes, but leader-epoch entries
        starting at the log end still do (Kafka's UnifiedLog.truncateTo): a broker that led an
        epoch without appending to it keeps that epoch's entry, which no leader has, and would
        otherwise send it as its last fetched epoch for ever."""
        with self.lock:
            local = self._local
            if offset >= local.next_offset:
                self.leader_epoch_cache.truncate_from_end(local.next_offset)
                return False
            if offset < local.segments[0].base_offset:
                self.truncate_fully_and_start_at(offset)
                return True
            # the LEO becomes the end of the data that is left (Kafka would claim
            # ``offset`` even when the batch holding it went: followers only truncate at
            # batch boundaries anyway)
            local.truncate_to(offset)
            self._after_truncation()
            return True

    def truncate_fully_and_start_at(self, offset: int) -> None:
        with self.lock:
            self._local.truncate_fully_and_start_at(offset)
            self._log_start_offset = offset
            self.leader_epoch_cache.clear()
            self.producer_state.delete_snapshots_above(-1)
            self._after_truncation()

    def _after_truncation(self) -> None:
        leo = self._local.next_offset
        self._log_start_offset = min(self._log_start_offset, leo)
        self._high_watermark = min(self._high_watermark, leo)
        self.leader_epoch_cache.truncate_from_end(leo)
        self._rebuild_producer_state(leo)

    def delete_records_before(self, offset: int) -> int:
        """Advance the log start offset to ``offset`` (DeleteRecords); returns the new start."""
        with self.lock:
            if offset > self._high_watermark:
                raise OffsetOutOfRangeError(
                    f"cannot move log start to {offset} above high watermark {self._high_watermark}")
            if offset > self._log_start_offset:
                self._move_log_start(offset)
                self._delete_segments(self._deletable(self._below_log_start))
            return self._log_start_offset

    def maybe_increment_log_start_offset(self, offset: int) -> None:
        if offset > self._log_start_offset:
            self._log_start_offset = min(offset, self._local.next_offset)
            self.leader_epoch_cache.truncate_from_start(self._log_start_offset)

    def _move_log_start(self, offset: int) -> None:
        self._log_start_offset = offset
        self.leader_epoch_cache.truncate_from_start(offset)
        self.producer_state.delete_snapshots_below(offset)

    # ------------------------------------------------------------------ retention
    def _below_log_start(self, seg: LogSegment, nxt: Optional[LogSegment]) -> bool:
        return nxt is not None and nxt.base_offset <= self._log_start_offset

    def _deletable(self, predicate: Callable[[LogSegment, Optional[LogSegment]], object]) -> list[LogSegment]:
        """Leading segments matching ``predicate(seg, next_seg)`` wholly below the HW;
        never the active segment while it is empty."""
        out = []
        segs = self._local.segments
        hw = self._high_watermark
        for i, seg in enumerate(segs):
            nxt = segs[i + 1] if i + 1 < len(segs) else None
            upper = nxt.base_offset if nxt is not None else self._local.next_offset
            if upper > hw or not predicate(seg, nxt):
                break
            if nxt is None and seg.size == 0:
                break
            out.append(seg)
        return out

    def delete_old_segments(self, now_ms: Optional[int] = None) -> int:
        """Apply retention.ms, retention.bytes and the log start offset; segments removed."""
        now = self._now_ms() if now_ms is None else now_ms
        c = self.config
        with self.lock:
            deleted = 0
            if c.delete:
                if c.retention_ms >= 0:
                    deleted += self._delete_segments(self._deletable(
                        lambda s, n: s.largest_timestamp >= 0 and now - s.largest_timestamp > c.retention_ms
                        or s.largest_timestamp < 0 and s.size and now - s.last_modified_ms() > c.retention_ms))
                if c.retention_bytes >= 0:
                    diff = [self.size_in_bytes() - c.retention_bytes]

                    def by_size(s: LogSegment, n: Optional[LogSegment]) -> bool:
                        if diff[0] - s.size >= 0:
                            diff[0] -= s.size
                            return True
                        return False
                    deleted += self._delete_segments(self._deletable(by_size))
            deleted += self._delete_segments(self._deletable(self._below_log_start))
            return deleted


    def _delete_segments(self, segs: list[LogSegment]) -> int:
        """Remove leading segments; the log start offset follows the first one left."""
        if not segs:
            return 0
        with self.lock:
            self._local.delete_segments(segs)
            new_start = self._local.segments[0].base_offset
            if new_start > self._log_start_offset:
                self._move_log_start(new_start)
            if self._high_watermark < self._log_start_offset:
                self._high_watermark = self._log_start_offset
            return len(segs)

    def delete_pending_files(self, now_ms: Optional[int] = None, force: bool = False) -> int:
        """Unlink ``.deleted`` segments whose ``file.delete.delay.ms`` has passed."""
        return self._local.delete_pending_files(self._now_ms() if now_ms is None else now_ms, force)

    # ------------------------------------------------------------------ flushing
    def flush(self, offset: Optional[int] = None) -> None:
        """fsync segments holding data below ``offset`` (default LEO); advance the recovery point."""
        try:
            flushed = self._local.flush(self._local.next_offset if offset is None else offset)
        except KafkaStorageError as e:
            if self.on_storage_error is not None:
                self.on_storage_error(e)
            raise
        if flushed:
            self._unflushed = 0
            self._last_flush_ms = self._now_ms()

    def maybe_flush(self, now_ms: int) -> None:
        if self.config.flush_ms < (1 << 62) and now_ms - self._last_flush_ms >= self.config.flush_ms:
            self.flush()
            self._last_flush_ms = now_ms

    def unload_inactive_indexes(self) -> None:
        """Unmap the indexes of every segment but the active one until they are used again
        (event loop; not for a compacted log, whose indexes the cleaner thread may be reading)."""
        if self._validator.compact:
            return
        for seg in self._local.segments[:-1]:
            seg.unload_indexes()

    def close(self) -> None:
        """Flush, snapshot producer state at the LEO, trim indexes, close files."""
        self._local.wait_for_background_flush()  # outside the lock: the flusher takes it
        with self.lock:
            if self._local.closed:
                return
            leo = self._local.next_offset
            try:
                self.flush()
                self.producer_state.map_end_offset = leo
                self.producer_state.take_snapshot(leo, self._pending_fsyncs)
            except (OSError, StorageError) as e:
                log.warning("flush on close of %s failed: %s", self.dir, e)
            self._local.close()

    def close_handlers(self) -> None:
        """Close the log without writing anything (its log dir failed; Kafka's
        closeHandlers): appends and reads raise ``KafkaStorageError`` from now on."""
        with self.lock:
            self._local.close_handlers()

    def delete(self, rename_to: Optional[str] = None) -> None:
        """Remove the log and its directory (topic deleted), renamed to ``rename_to`` first if given."""
        self._local.delete(rename_to)

    # ------------------------------------------------------------------ cleaner support
    def replace_segments(self, new_segments: list[LogSegment], old_segments: list[LogSegment]) -> bool:
        """Swap cleaned segments (files already renamed to ``.swap``) for ``old_segments``.

        Runs under the lock; returns False (and the caller discards its files) if the
        old segments are no longer all in the log (retention or truncation won the race).
        """
        return self._local.replace_segments(new_segments, old_segments)

    def __repr__(self) -> str:
        return (f"Log({self.topic}-{self.partition}, start={self._log_start_offset}, "
                f"end={self._local.next_offset}, hw={self._high_watermark}, segments={len(self._local.segments)})")
