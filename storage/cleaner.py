"""Log compaction: keep the latest record per key in ``cleanup.policy=compact`` logs.

Runs on ``log.cleaner.threads`` daemon threads (never on the event loop), named
``kafka-log-cleaner-thread-<n>`` as Kafka's; each takes the dirtiest compacted log no other
thread is cleaning. ``reconfigure`` (the dynamic cleaner configs) starts the missing threads
and tells the surplus ones to stop after their current pass, so the event loop that calls
it never waits for a cleaning to finish. For the dirtiest compacted log whose dirty ratio (bytes after the cleaner checkpoint / all cleanable bytes) is at
least ``min.cleanable.dirty.ratio``, it:

1. maps every key in the dirty range to its last offset, aborted transactions' records
   left out (the dirty range ends below the
   active segment, the last stable offset and records younger than
   ``min.compaction.lag.ms``). The map is bounded as Kafka bounds its own:
   ``log.cleaner.dedupe.buffer.size`` shared by the cleaner threads, filled to
   ``log.cleaner.io.buffer.load.factor``, counted at ``ENTRY_BYTES`` plus the key's length
   per key (what a dict entry with a bytes key and an int offset costs in CPython, where
   Kafka's map costs 24 bytes: its budget holds fewer keys here). When it is full the
   pass cleans up to the last offset mapped and the next pass goes on from there, so a
   producer writing millions of distinct keys cannot grow the broker's memory;
2. rewrites the segments from the log start to the end of that range in groups of at
   most ``segment.bytes``: batches whose records all survive are copied byte for byte;
   others are rebuilt with the surviving records at their original offsets, keeping the
   batch's base offset, last offset delta, producer id/epoch/sequence, leader epoch,
   timestamp type, transactional flag and codec. Tombstones survive their first
   cleaning and until ``delete.retention.ms`` has passed after the segment's newest
   record. Aborted transactions lose their records; transaction markers are kept as they
   are until their transaction has no batch left (``storage.cleaned_transactions``), then
   go by the tombstones' rule. An emptied batch, or a marker, is kept (empty) when it is
   its producer's last, so producer state survives;
   (``max.compaction.lag.ms`` makes a log cleanable whatever its ratio once its
   oldest dirty segment is that old);
3. writes each group to ``<base>.log.cleaned`` (+ indexes) through a write buffer of the
   thread's half of its share of ``log.cleaner.io.buffer.size`` (a batch larger than that is
   written alone, as Kafka grows its buffer for it), so a segment whose records all survive
   is never held whole in memory; fsyncs, renames it to
   ``.swap`` and asks the Log to swap it in under its lock (old files become
   ``.deleted``; a crash in between is finished by Log loading);
4. records the end of the cleaned range in ``<log dir>/cleaner-offset-checkpoint``.

Reads and writes of every thread together are held to ``log.cleaner.io.max.bytes.per.second``
(``storage.throttler``, Kafka's Throttler; unlimited by default).

Who may call it: LogManager starts/stops it; tests call ``clean_once`` directly with an
injected clock.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from typing import TYPE_CHECKING, Callable, Optional, Protocol

from kafpy.protocol.batch_builder import parse_control_record
from kafpy.protocol.errors import ProtocolError
from kafpy.protocol.records import CONTROL_MASK, TIMESTAMP_TYPE_MASK, build_batch, decode_batch

from kafpy.storage.checkpoint import OffsetCheckpointFile
from kafpy.storage.cleaned_transactions import AbortedRanges, CleanedTransactions
from kafpy.storage.segment import CLEANED_SUFFIX, SWAP_SUFFIX, LogSegment
from kafpy.storage.throttler import Throttler

if TYPE_CHECKING:
    from kafpy.protocol.batch_header import RecordBatchHeader
    from kafpy.storage.log import Log

TopicPartition = tuple[str, int]


class CleanedLogs(Protocol):
    """What the cleaner reads of the log manager (which creates the cleaner: a Protocol, not
    an import, keeps the two modules from importing each other)."""

    def logs(self) -> dict[TopicPartition, Log]: ...

    def log_dir_of(self, topic: str, partition: int) -> Optional[str]: ...

# (segments to rewrite, dirty segments, end offset): what ``cleanable_range`` finds
CleanableRange = tuple[list[LogSegment], list[LogSegment], int]

__all__ = ["LogCleaner", "CLEANER_CHECKPOINT"]

log = logging.getLogger(__name__)

CLEANER_CHECKPOINT = "cleaner-offset-checkpoint"

# What one key costs in the offset map besides its bytes: the bytes object's header (33),
# the int offset (28) and the dict's slot and index at its fullest before a resize (~60),
# measured with tracemalloc on CPython 3.11.
ENTRY_BYTES = 120


class LogCleaner:
    """See the module docstring."""

    def __init__(self, manager: CleanedLogs, clock: Callable[[], float] = time.time, backoff_ms: int = 15000,
                 threads: int = 1, dedupe_buffer_size: int = 134217728, load_factor: float = 0.9,
                 io_max_bytes_per_s: float = math.inf, io_buffer_size: int = 524288):
        self.manager = manager
        self.clock = clock
        self.backoff_ms = backoff_ms
        self.num_threads = threads
        # log.cleaner.dedupe.buffer.size and log.cleaner.io.buffer.load.factor (see map_budget)
        self.dedupe_buffer_size = dedupe_buffer_size
        self.load_factor = load_factor
        self.io_buffer_size = io_buffer_size   # log.cleaner.io.buffer.size (see write_buffer_bytes)
        self._wake = threading.Event()
        self._closing = threading.Event()   # set by shutdown: ends a throttle nap at once
        # log.cleaner.io.max.bytes.per.second: every thread's reads and writes together
        self.throttler = Throttler(io_max_bytes_per_s, sleep=self._closing.wait)
        # the running threads, each with the event that stops it
        self._threads: list[tuple[threading.Thread, threading.Event]] = []
        self._lock = threading.Lock()   # the choice of a log, _in_progress and the checkpoints
        self._in_progress: set[TopicPartition] = set()  # partitions a thread is cleaning now
        self._aborted: set[TopicPartition] = set()
        # by log directory (None: a log without one, nothing saved)
        self._checkpoints: dict[Optional[str], dict[tuple[str, int], int]] = {}
        # what the metrics read (Kafka's LogCleaner and LogCleanerManager gauges): counts since
        # start, the last cleaning's wall seconds, the dirty ratio (%) of the last log chosen
        self.stats: dict[str, float] = {"cleaned_logs": 0, "bytes_read": 0, "bytes_written": 0,
                                        "last_clean_secs": 0.0, "last_dirty_percent": 0.0}

    # ------------------------------------------------------------------ threads
    def start(self) -> None:
        while len(self._threads) < self.num_threads:
            stop = threading.Event()
            t = threading.Thread(target=self._run, args=(stop,), name=f"kafka-log-cleaner-thread-{len(self._threads)}",
                                 daemon=True)
            self._threads.append((t, stop))
            t.start()

    @property
    def dead_thread_count(self) -> int:
        """Cleaner threads that died (Kafka's DeadThreadCount); a pass's error is caught, so
        only something outside it ends a thread."""
        return sum(1 for t, _ in list(self._threads) if not t.is_alive())

    @property
    def thread_names(self) -> list[str]:
        return [t.name for t, _ in self._threads]

    @property
    def map_budget(self) -> int:
        """Bytes one cleaning's offset map may take: Kafka's per-thread share of the dedupe
        buffer (at most 2 GiB, as its map's is) times the load factor."""
        per_thread = min(self.dedupe_buffer_size // max(self.num_threads, 1), 2**31 - 1)
        return int(per_thread * self.load_factor)

    @property
    def write_buffer_bytes(self) -> int:
        """What a cleaning writes at once: Kafka's share of ``log.cleaner.io.buffer.size`` per
        thread, halved between its read and write buffers (reads here are one batch each)."""
        return max(self.io_buffer_size // max(self.num_threads, 1) // 2, 1)

    def reconfigure(self, threads: int, backoff_ms: int, dedupe_buffer_size: int | None = None,
                    load_factor: float | None = None, io_max_bytes_per_s: float | None = None,
                    io_buffer_size: int | None = None) -> None:
        """log.cleaner.threads / log.cleaner.backoff.ms altered dynamically: new threads
        start now, surplus ones stop after the pass they are in (not waited for). A new
        dedupe buffer size, load factor or I/O buffer size applies from the next pass, a new
        I/O rate at once."""
        if io_buffer_size is not None and io_buffer_size != self.io_buffer_size:
            log.info("Log cleaner I/O buffer size %d -> %d bytes", self.io_buffer_size, io_buffer_size)
            self.io_buffer_size = io_buffer_size
        budget = self.map_budget
        if io_max_bytes_per_s is not None and io_max_bytes_per_s != self.throttler.rate_per_s:
            log.info("Log cleaner I/O rate %g -> %g bytes/s", self.throttler.rate_per_s, io_max_bytes_per_s)
            self.throttler.rate_per_s = io_max_bytes_per_s
        if dedupe_buffer_size is not None:
            self.dedupe_buffer_size = dedupe_buffer_size
        if load_factor is not None:
            self.load_factor = load_factor
        if self.map_budget != budget:
            log.info("Log cleaner offset map budget %d -> %d bytes", budget, self.map_budget)
        if (threads, backoff_ms) == (self.num_threads, self.backoff_ms):
            return
        log.info("Log cleaner threads %d -> %d, backoff %d ms -> %d ms", self.num_threads, threads,
                 self.backoff_ms, backoff_ms)
        self.num_threads, self.backoff_ms = threads, backoff_ms
        while len(self._threads) > threads:
            t, stop = self._threads.pop()
            stop.set()
        self._wake.set()   # sleeping threads pick up the new backoff
        self.start()

    def _run(self, stop: threading.Event) -> None:
        name = threading.current_thread().name
        log.info("[%s]: Starting", name)
        while not stop.is_set():
            try:
                cleaned = self.clean_once()
            except Exception:  # noqa: BLE001 - a bad log must not kill the cleaner
                log.exception("log cleaner pass failed")
                cleaned = False
            if not cleaned and not stop.is_set():
                self._wake.wait(self.backoff_ms / 1000.0)
                self._wake.clear()
        log.info("[%s]: Stopped", name)

    def wakeup(self) -> None:
        self._wake.set()

    def shutdown(self) -> None:
        self._closing.set()
        threads, self._threads = self._threads, []
        for _, stop in threads:
            stop.set()
        self._wake.set()
        for t, _ in threads:
            t.join(timeout=60)

    def abort(self, tp: TopicPartition) -> None:
        self._aborted.add(tp)

    # ------------------------------------------------------------------ checkpoints
    def _checkpoint_file(self, d: str) -> OffsetCheckpointFile:
        return OffsetCheckpointFile(os.path.join(d, CLEANER_CHECKPOINT))

    def _dirty_start(self, tp: TopicPartition, lg: Log) -> int:
        d = self.manager.log_dir_of(*tp)
        if d not in self._checkpoints:
            self._checkpoints[d] = self._checkpoint_file(d).read() if d else {}
        off = self._checkpoints[d].get(tp, lg.log_start_offset)
        if off < lg.log_start_offset or off > lg.log_end_offset:
            off = lg.log_start_offset
        return off

    def _save_checkpoint(self, tp: TopicPartition, offset: int) -> None:
        d = self.manager.log_dir_of(*tp)
        if not d:
            return
        cp = self._checkpoints.setdefault(d, {})
        cp[tp] = offset
        live = self.manager.logs()
        for k in list(cp):
            if k not in live:
                del cp[k]
        self._checkpoint_file(d).write(cp)

    # ------------------------------------------------------------------ selection
    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def cleanable_range(self, lg: Log, now_ms: int, first_dirty: int) -> Optional[CleanableRange]:
        """(segments to rewrite, dirty segments, end offset) or None if nothing is cleanable."""
        with lg.lock:
            segs = lg.segments
            lso = lg.last_stable_offset
        active = segs[-1]
        limit = min(active.base_offset, lso)
        lag = lg.config.min_compaction_lag_ms
        eligible: list[LogSegment] = []
        for i, seg in enumerate(segs[:-1]):
            nxt = segs[i + 1].base_offset
            if nxt > limit:
                break
            if lag > 0 and seg.largest_timestamp >= 0 and now_ms - seg.largest_timestamp < lag:
                break
            eligible.append(seg)
        if not eligible:
            return None
        end = segs[len(eligible)].base_offset
        if end <= first_dirty:
            return None
        dirty = [s for i, s in enumerate(eligible) if segs[i + 1].base_offset > first_dirty]
        return eligible, dirty, end

    def dirty_ratio(self, eligible: list[LogSegment], dirty: list[LogSegment]) -> float:
        total = sum(s.size for s in eligible)
        return (sum(s.size for s in dirty) / total) if total else 0.0

    def clean_once(self, now_ms: Optional[int] = None, force: bool = False) -> bool:
        """Clean the dirtiest eligible log no other thread is cleaning; True if one was cleaned."""
        now = self._now_ms() if now_ms is None else now_ms
        with self._lock:
            best = self._dirtiest(now, force)
            if best is None:
                return False
            ratio, tp, lg, first_dirty, (eligible, dirty, end) = best
            self._in_progress.add(tp)
            self.stats["last_dirty_percent"] = 100.0 * ratio
        try:
            started = self.clock()
            cleaned_to = self.clean_log(lg, eligible, dirty, first_dirty, end, now)
            if cleaned_to is not None:
                with self._lock:
                    self._save_checkpoint(tp, cleaned_to)
                    self.stats["cleaned_logs"] += 1
                    self.stats["last_clean_secs"] = max(self.clock() - started, 0.0)
        finally:
            with self._lock:
                self._in_progress.discard(tp)
        return True

    def _dirtiest(self, now: int, force: bool) -> Optional[tuple[float, TopicPartition, Log, int, CleanableRange]]:
        best: Optional[tuple[float, TopicPartition, Log, int, CleanableRange]] = None
        for tp, lg in self.manager.logs().items():
            if lg.closed or not lg.config.compact or tp in self._aborted or tp in self._in_progress:
                continue
            first_dirty = self._dirty_start(tp, lg)
            rng = self.cleanable_range(lg, now, first_dirty)
            if rng is None:
                continue
            ratio = self.dirty_ratio(rng[0], rng[1])
            # max.compaction.lag.ms: dirty data older than the lag is cleaned whatever the ratio
            overdue = bool(rng[1]) and 0 <= rng[1][0].largest_timestamp <= now - lg.config.max_compaction_lag_ms
            if ratio <= 0 or (ratio < lg.config.min_cleanable_dirty_ratio and not force and not overdue):
                continue
            if best is None or ratio > best[0]:
                best = (ratio, tp, lg, first_dirty, rng)
        return best

    # ------------------------------------------------------------------ cleaning
    def _build_offset_map(self, dirty: list[LogSegment], first_dirty: int, end: int,
                          budget: int | None = None,
                          aborted: AbortedRanges | None = None) -> tuple[dict[bytes, int], int]:
        """The last offset of each key in [first_dirty, end), and where the map stops: ``end``,
        or the offset of the first new key that would take the map past ``budget`` bytes
        (``map_budget`` unless given), every record before it mapped. The first key always
        goes in, however long, so every pass moves on. Batches of ``aborted`` transactions
        are left out: their values must not hide the committed ones before them."""
        if budget is None:
            budget = self.map_budget
        keys: dict[bytes, int] = {}
        used = 0
        for seg in dirty:
            for pos, h in seg.iter_batch_headers(0):
                if h.base_offset >= end:
                    break
                if h.last_offset < first_dirty or h.attributes & CONTROL_MASK:
                    continue
                if aborted and h.is_transactional and aborted.containing(h.producer_id, h.base_offset):
                    continue
                data = seg.read_batch(pos, h.total_size)
                self.stats["bytes_read"] += len(data)
                self.throttler.maybe_throttle(len(data))
                _, recs = decode_batch(data, verify=False)
                base = h.base_offset
                for r in recs:
                    off = base + r.offset_delta
                    key = r.key
                    if off >= first_dirty and key is not None:
                        if key not in keys:
                            used += len(key) + ENTRY_BYTES
                            if used > budget and keys:
                                return keys, off
                        keys[key] = off
        return keys, end

    def clean_log(self, lg: Log, eligible: list[LogSegment], dirty: list[LogSegment], first_dirty: int, end: int,
                  now_ms: int) -> int | None:
        """Cleans ``lg`` from its start up to ``end`` or, when the offset map fills first, up to
        where it stopped; returns that offset (the new cleaner checkpoint), None if aborted."""
        with lg.lock:  # the event loop appends to compacted logs (and their markers' indexes) under it
            last_of_producer = {pid: (e.last_offset, e.epoch) for pid, e in lg.producer_state.producers.items()}
            aborted = AbortedRanges(lg.aborted_txns(lg.log_start_offset, end))
        try:
            keys, map_end = self._build_offset_map(dirty, first_dirty, end, aborted=aborted)
        except (OSError, ProtocolError) as e:
            log.warning("cleaning %s aborted: %s", lg, e)
            return None
        if map_end < end:
            log.info("Offset map for %s full at %d keys: cleaning up to offset %d of %d this pass", lg,
                     len(keys), map_end, end)
            # segments that start at or past where the map stopped wait for the next pass
            eligible = [s for s in eligible if s.base_offset < map_end]
            dirty = [s for s in dirty if s.base_offset < map_end]
        dirty_set = set(id(s) for s in dirty)
        groups = self._group(eligible, lg.config.segment_bytes, lg.config.segment_index_bytes)
        txns = CleanedTransactions(aborted)   # one for the whole pass: a marker may sit groups after its data
        for group in groups:
            if lg.closed:
                return None
            new = self._clean_group(lg, group, keys, dirty_set, last_of_producer, now_ms, txns)
            if new is None:
                return None
            if not lg.replace_segments([new], group):
                new.delete_files()
                return None
        return map_end

    @staticmethod
    def _group(segs: list[LogSegment], max_bytes: int, max_index_bytes: int) -> list[list[LogSegment]]:
        groups: list[list[LogSegment]] = []
        cur: list[LogSegment] = []
        size = 0
        for s in segs:
            # index size estimated from bytes (one entry per index interval at most)
            est_index = (size + s.size) // max(s.index_interval_bytes, 1) * 8
            if cur and (size + s.size > max_bytes or s.base_offset - cur[0].base_offset > 0x7FFFFFFF
                        or est_index > max_index_bytes):
                groups.append(cur)
                cur, size = [], 0
            cur.append(s)
            size += s.size
        if cur:
            groups.append(cur)
        return groups

    def _clean_group(self, lg: Log, group: list[LogSegment], keys: dict[bytes, int], dirty_set: set[int],
                     last_of_producer: dict[int, tuple[int, int]], now_ms: int,
                     txns: CleanedTransactions | None = None) -> Optional[LogSegment]:
        """Writes ``group`` cleaned into one new segment (``.cleaned`` then ``.swap``).
        ``last_of_producer``: each producer's (last data offset, epoch), -1 for no data."""
        if txns is None:
            txns = CleanedTransactions(AbortedRanges(()))
        cfg = lg.config
        new = LogSegment(lg.dir, group[0].base_offset, index_interval_bytes=cfg.index_interval_bytes,
                         max_index_size=cfg.segment_index_bytes, active=True, file_suffix=CLEANED_SUFFIX)
        try:
            for seg in group:
                keep_tombstones = id(seg) in dirty_set or (
                    seg.largest_timestamp >= 0 and now_ms - seg.largest_timestamp < cfg.delete_retention_ms)
                out = bytearray()
                info: list[tuple[int, int, int, int]] = []
                flush_at = self.write_buffer_bytes
                for pos, h in seg.iter_batch_headers(0):
                    data = seg.read_batch(pos, h.total_size)
                    self.throttler.maybe_throttle(len(data))
                    if h.attributes & CONTROL_MASK:
                        may_go = txns.on_marker(h.producer_id, h.base_offset, _control_type(data))
                        if may_go and not keep_tombstones and not _is_last(h, last_of_producer):
                            continue
                        kept: Optional[bytes] = bytes(data)
                    else:
                        aborted = txns.on_batch(h.producer_id, h.base_offset, h.is_transactional)
                        kept = self._filter_batch(data, h, keys, keep_tombstones, last_of_producer, aborted)
                    if kept is None:
                        continue
                    if out and len(out) + len(kept) > flush_at:
                        self._write(new, out, info)
                        out, info = bytearray(), []
                    info.append((len(out), len(kept), h.last_offset, h.max_timestamp))
                    out += kept
                if out:
                    self._write(new, out, info)
            # the aborted transactions whose marker this group kept with a batch of theirs
            # seen; the others have no record left for a read_committed consumer to drop
            for t in txns.index_entries:
                new.txn_index.append(t)
            txns.index_entries.clear()
            new.on_become_inactive()
            new.flush()
            new.rename_suffix(CLEANED_SUFFIX, SWAP_SUFFIX)
            return new
        except (OSError, ProtocolError) as e:
            log.warning("cleaning %s aborted: %s", lg, e)
            new.delete_files()
            return None

    def _write(self, new: LogSegment, out: bytearray, info: list[tuple[int, int, int, int]]) -> None:
        new.append(out, info)
        self.stats["bytes_written"] += len(out)
        self.throttler.maybe_throttle(len(out))

    @staticmethod
    def _filter_batch(data: bytes, h: RecordBatchHeader, keys: dict[bytes, int], keep_tombstones: bool,
                      last_of_producer: dict[int, tuple[int, int]], aborted: bool = False) -> Optional[bytes]:
        """A data batch as it stays: whole, rebuilt with its surviving records (none for an
        ``aborted`` transaction's), or None when none survives and it is not its producer's last."""
        _, recs = decode_batch(data, verify=False)
        base = h.base_offset
        kept = []
        for r in ([] if aborted else recs):
            off = base + r.offset_delta
            if r.key is not None:
                latest = keys.get(r.key)
                if latest is not None and latest > off:
                    continue
            if r.value is None and not keep_tombstones:
                continue
            kept.append(r)
        if len(kept) == len(recs):
            return bytes(data)
        if not kept and not _is_last(h, last_of_producer):
            return None
        ts_type = 1 if h.attributes & TIMESTAMP_TYPE_MASK else 0
        return build_batch(
            kept,
            base_offset=base,
            compression=h.compression,
            producer_id=h.producer_id,
            producer_epoch=h.producer_epoch,
            base_sequence=h.base_sequence,
            partition_leader_epoch=h.partition_leader_epoch,
            timestamp_type=ts_type,
            is_transactional=h.is_transactional,
            base_timestamp=h.base_timestamp,
            max_timestamp=h.max_timestamp if (ts_type or not kept) else None,
            last_offset_delta=h.last_offset_delta,
        )


def _is_last(h: RecordBatchHeader, last_of_producer: dict[int, tuple[int, int]]) -> bool:
    """Whether a batch is its producer's last entry, kept (emptied) for the producer's state:
    the batch holding its last data offset or, when it has none (its epoch was bumped by a
    marker), a marker of its current epoch (Kafka's ``isBatchLastRecordOfProducer``)."""
    entry = last_of_producer.get(h.producer_id) if h.producer_id >= 0 else None
    if entry is None:
        return False
    last_data_offset, epoch = entry
    if last_data_offset >= 0:
        return h.last_offset == last_data_offset
    return bool(h.attributes & CONTROL_MASK) and h.producer_epoch == epoch


def _control_type(data: bytes) -> int:
    """The marker type of a control batch; -1 when it cannot be read (the batch is then kept)."""
    try:
        _, recs = decode_batch(data, verify=False)
        return parse_control_record(recs[0]).type if recs else -1
    except (ProtocolError, ValueError, IndexError):
        return -1
