"""The segments of one partition's log and their files (Kafka's ``LocalLog``).

On disk, in ``<log dir>/<topic>-<partition>/``: the segments
(``<20-digit base offset>.log|.index|.timeindex|.txnindex``), and, while an operation
is under way, the same names ending in ``.deleted``, ``.cleaned`` or ``.swap``.

It owns the segment list (roll, read, truncate, delete, swap in cleaned copies), the
log end offset and the recovery point; it knows nothing of the log start offset, the
high watermark, leader epochs or producer state, which the ``Log`` keeps.

Who may call it: its ``Log`` only, on the broker's event-loop thread, and the flusher
thread for ``flush_in_background``'s work. Segment-list changes and lookups run under
``lock`` (the Log shares it) because the cleaner thread swaps segments in through the Log.

Crash recovery: ``load`` removes ``*.tmp``, ``*.cleaned`` and ``*.deleted`` leftovers,
completes interrupted ``*.swap``s, rebuilds missing or insane indexes and, after an
unclean shutdown, validates every batch from the segment holding the recovery point,
cutting the log at the first bad one (later segments are deleted).
"""

from __future__ import annotations

import bisect
import logging
import os
import random
import shutil
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Optional

from kafpy.protocol.records import LAST_OFFSET_DELTA_FIELD, MAX_TIMESTAMP_FIELD

from kafpy.storage.config import LogConfig
from kafpy.storage.errors import CorruptIndexError, KafkaStorageError
from kafpy.storage.log_flush_stats import LOG_FLUSH_STATS
from kafpy.storage.segment import (
    CLEANED_SUFFIX,
    DELETED_SUFFIX,
    INDEX_SUFFIX,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    TIMEINDEX_SUFFIX,
    FileRecordsSlice,
    Buffer,
    LogSegment,
)
from kafpy.storage.txn_index import AbortedTxn

__all__ = ["LocalLog"]

log = logging.getLogger(__name__)

_flusher: Optional[ThreadPoolExecutor] = None
_flusher_lock = threading.Lock()


def _flush_executor() -> ThreadPoolExecutor:
    """One shared thread fsyncs rolled segments for every log."""
    global _flusher
    with _flusher_lock:
        if _flusher is None:
            _flusher = ThreadPoolExecutor(1, thread_name_prefix="kafka-log-flusher")
        return _flusher


class LocalLog:
    """See the module docstring."""

    def __init__(self, directory: str, config: LogConfig, clock_ms: Callable[[], int],
                 recovery_point: int, on_roll: Callable[[int], None]):
        self.dir = directory
        self.config = config
        self._now_ms = clock_ms
        self._on_roll = on_roll  # the Log snapshots producer state at the new base
        self.lock = threading.RLock()
        self._segments: list[LogSegment] = []
        self._bases: list[int] = []
        self._pending_deletes: list[tuple[int, LogSegment]] = []
        self._pending_flush: Optional[Future[None]] = None
        self.next_offset = 0
        self.recovery_point = recovery_point
        self.closed = False
        # segments read through at load (index rebuild, recovery scan): 0 after a clean shutdown
        self.segments_recovered = 0

    # ------------------------------------------------------------------ segment list
    @property
    def segments(self) -> list[LogSegment]:
        with self.lock:
            return list(self._segments)

    @property
    def active_segment(self) -> LogSegment:
        return self._segments[-1]

    def size_in_bytes(self) -> int:
        return sum(s.size for s in self._segments)

    def segments_from(self, offset: int) -> list[LogSegment]:
        """The segment holding ``offset`` (or the first) and all after it."""
        with self.lock:
            return self._segments[max(bisect.bisect_right(self._bases, offset) - 1, 0):]

    def next_segment_base(self, offset: int) -> int:
        """Base offset of the segment after the one holding ``offset`` (LEO if none)."""
        with self.lock:
            i = bisect.bisect_right(self._bases, offset)
            return self._bases[i] if i < len(self._bases) else self.next_offset

    def _add_segment(self, seg: LogSegment) -> None:
        self._segments.append(seg)
        self._bases.append(seg.base_offset)

    def new_segment(self, base: int, active: bool, file_suffix: str = "") -> LogSegment:
        c = self.config
        return LogSegment(
            self.dir, base,
            index_interval_bytes=c.index_interval_bytes,
            max_index_size=c.segment_index_bytes,
            rolling_jitter_ms=random.randrange(c.segment_jitter_ms) if c.segment_jitter_ms > 0 else 0,
            created_ms=self._now_ms(),
            active=active,
            file_suffix=file_suffix,
        )

    # ------------------------------------------------------------------ loading
    def load(self, start_if_empty: int, needs_recovery: bool, on_batch: Callable) -> None:
        """Open the segments (see the module docstring); ``on_batch(header)`` sees each
        batch recovery validates."""
        swaps = []
        for name in os.listdir(self.dir):
            if name.endswith((".tmp", CLEANED_SUFFIX, DELETED_SUFFIX)):
                os.unlink(os.path.join(self.dir, name))
            elif name.endswith(LOG_SUFFIX + SWAP_SUFFIX):
                swaps.append(name)
        for name in sorted(swaps):  # a .swap log replaces every segment it covers
            self._complete_swap(name)
        for name in os.listdir(self.dir):
            if name.endswith(SWAP_SUFFIX):  # stray index swap files
                os.replace(os.path.join(self.dir, name), os.path.join(self.dir, name[: -len(SWAP_SUFFIX)]))
        bases = self._segment_bases()
        for i, base in enumerate(bases):
            seg = self.new_segment(base, active=(i == len(bases) - 1))
            unflushed = i + 1 == len(bases) or bases[i + 1] > self.recovery_point
            if not self._indexes_sane(seg) and not (needs_recovery and unflushed):
                if seg.size:
                    log.warning("rebuilding missing/corrupt indexes of %s", seg.log_path)
                seg.recover(self.config.max_message_bytes)
                self.segments_recovered += 1
            seg.unload_indexes()  # mapped again on first use
            self._add_segment(seg)
        if needs_recovery:
            self._recover(on_batch)
        if not self._segments:
            self._add_segment(self.new_segment(max(start_if_empty, 0), active=True))
        self.active_segment.make_active()
        self.next_offset = self.active_segment.read_next_offset()
        if not needs_recovery:
            self.recovery_point = self.next_offset

    def _segment_bases(self) -> list[int]:
        """Base offsets of the ``.log`` files; orphan indexes are removed."""
        bases = []
        for name in os.listdir(self.dir):
            stem = name.rsplit(".", 1)[0]
            if name.endswith(LOG_SUFFIX):
                if stem.isdigit():
                    bases.append(int(stem))
                else:
                    log.warning("ignoring unexpected file %s in %s", name, self.dir)
            elif name.endswith((INDEX_SUFFIX, TIMEINDEX_SUFFIX)):
                if stem.isdigit() and not os.path.exists(os.path.join(self.dir, stem + LOG_SUFFIX)):
                    log.warning("removing orphan index %s", name)
                    os.unlink(os.path.join(self.dir, name))
        return sorted(bases)

    @staticmethod
    def _indexes_sane(seg: LogSegment) -> bool:
        if not (os.path.exists(seg.offset_index.path) and os.path.exists(seg.time_index.path)):
            return False
        try:
            seg.offset_index.sanity_check(seg.size)
            seg.time_index.sanity_check()
        except CorruptIndexError as e:
            log.warning("rebuilding index of %s: %s", seg.log_path, e)
            return False
        return True

    def _complete_swap(self, name: str) -> None:
        base = int(name.split(".", 1)[0])
        seg = LogSegment(self.dir, base, file_suffix=SWAP_SUFFIX)
        try:
            nxt = seg.read_next_offset() if seg.size else base
        finally:
            seg.release()
            seg.file.close()
        for ob in self._segment_bases():
            if base <= ob < nxt:
                for suf in (LOG_SUFFIX, INDEX_SUFFIX, TIMEINDEX_SUFFIX):
                    try:
                        os.unlink(os.path.join(self.dir, f"{ob:020d}{suf}"))
                    except FileNotFoundError:
                        pass
        for suf in (LOG_SUFFIX, INDEX_SUFFIX, TIMEINDEX_SUFFIX):
            p = os.path.join(self.dir, f"{base:020d}{suf}{SWAP_SUFFIX}")
            if os.path.exists(p):
                os.replace(p, p[: -len(SWAP_SUFFIX)])
        log.info("completed interrupted segment swap %s", os.path.join(self.dir, name))

    def _recover(self, on_batch: Callable) -> None:
        """Validate segments from the one holding the recovery point; cut at the first bad batch."""
        if not self._segments:
            return
        i = max(bisect.bisect_right(self._bases, self.recovery_point) - 1, 0)
        expected = None
        while i < len(self._segments):
            seg = self._segments[i]
            upper = self._bases[i + 1] if i + 1 < len(self._bases) else None
            truncated = seg.recover(self.config.max_message_bytes, on_batch, start_offset=expected,
                                    end_offset=upper)
            self.segments_recovered += 1
            if seg.size:
                expected = seg.read_next_offset()
            if truncated:
                # everything after a torn batch is suspect: drop later segments
                for later in self._segments[i + 1:]:
                    log.warning("deleting segment %s after corrupt data in %s", later.log_path, seg.log_path)
                    later.delete_files()
                del self._segments[i + 1:]
                del self._bases[i + 1:]
                break
            i += 1
        # an empty non-first segment left by a crash right after roll is fine; keep it

    # ------------------------------------------------------------------ appends
    def append(self, pieces: list[Buffer], batches: list, total: int, first_offset: int, last_offset: int,
               max_timestamp: int) -> LogSegment:
        """Write batches with assigned offsets at the end, rolling first when the active
        segment is full or old (the one place the roll rules are applied); returns the
        segment written to. ``pieces`` and ``batches`` are ``LogSegment.append``'s."""
        seg = self._segments[-1]
        if len(batches) != 1 or not seg.fast_append(pieces, total, last_offset, max_timestamp, self.config):
            c = self.config
            if seg.size and seg.should_roll(total, max_timestamp, last_offset, c.segment_bytes,
                                            c.segment_ms, self._now_ms()):
                seg = self.roll(first_offset)
            seg.append(pieces, batches, total)
        self.next_offset = last_offset + 1
        return seg

    def append_batch(self, pieces: list[Buffer], total: int, last_offset: int, header: tuple) -> None:
        """``append`` of one batch (``header`` its header tuple, ``total`` its size) at
        the end: the Log's plain Produce path, which builds the ``batches`` list only
        when the segment's ``fast_append`` declines."""
        if not self._segments[-1].fast_append(pieces, total, last_offset, header[MAX_TIMESTAMP_FIELD], self.config):
            self.append(pieces, [(0, total, last_offset, header[MAX_TIMESTAMP_FIELD], header)], total,
                        last_offset - header[LAST_OFFSET_DELTA_FIELD], last_offset, header[MAX_TIMESTAMP_FIELD])
        else:
            self.next_offset = last_offset + 1

    def roll(self, new_base: Optional[int] = None) -> LogSegment:
        """Close the active segment and start a new one at ``new_base`` (default LEO)."""
        with self.lock:
            new_base = self.next_offset if new_base is None else new_base
            old = self.active_segment
            if old.size == 0 and old.base_offset == new_base:
                return old
            old.on_become_inactive()
            if old.size == 0:  # an empty active segment at a lower base is replaced
                old.delete_files()
                self._segments.pop()
                self._bases.pop()
            else:
                self.flush_in_background(old, new_base)
            seg = self.new_segment(new_base, active=True)
            self._add_segment(seg)
            self._on_roll(new_base)
            return seg

    # ------------------------------------------------------------------ flushing
    def flush(self, offset: int) -> bool:
        """fsync segments holding data below ``offset``; advance the recovery point.
        False if there was nothing to do."""
        with self.lock:
            if offset <= self.recovery_point:
                return False
            started = time.perf_counter()
            try:
                for seg in self.segments_from(self.recovery_point):
                    if seg.base_offset >= offset:
                        break
                    seg.flush()
            except OSError as e:
                raise KafkaStorageError(f"flush of {self.dir} failed: {e}") from e
            LOG_FLUSH_STATS.record(started)
            self.recovery_point = offset
            return True

    def flush_in_background(self, seg: LogSegment, up_to: int) -> None:
        """fsync a just-rolled segment off the event loop (as Kafka schedules it), then
        advance the recovery point to the new segment's base offset."""
        def work() -> None:
            started = time.perf_counter()
            try:
                seg.flush()
            except (OSError, ValueError) as e:  # deleted or closed meanwhile
                if not seg.deleted and not self.closed:
                    log.error("flush of rolled segment %s failed: %s", seg.log_path, e)
                return
            LOG_FLUSH_STATS.record(started)
            with self.lock:
                if up_to > self.recovery_point and not self.closed:
                    self.recovery_point = up_to
        self._pending_flush = _flush_executor().submit(work)

    def wait_for_background_flush(self, timeout: float = 60.0) -> None:
        fut = self._pending_flush
        if fut is not None:
            try:
                fut.result(timeout)
            except Exception:  # noqa: BLE001,S110 - logged by the worker
                pass

    # ------------------------------------------------------------------ reads
    def read(self, offset: int, max_bytes: int, max_offset: Optional[int],
             min_one_message: bool) -> Optional[FileRecordsSlice]:
        """Whole batches from the batch holding ``offset`` (below the LEO), below
        ``max_offset``, from one segment; None if nothing is readable."""
        for seg in self.segments_from(offset):
            # seg.read takes a file position limit: the start of the batch holding max_offset.
            max_pos = None
            if max_offset is not None and max_offset < self.next_offset:
                bp = seg.translate_offset(max_offset)
                max_pos = bp.position if bp is not None else None
            sl = seg.read(offset, max_bytes, max_pos, min_one_message)
            if sl is not None:
                return sl
            if max_pos is not None:
                break  # max_offset lies in this segment: nothing further is readable
        return None

    def collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int) -> list[tuple[int, int]]:
        """(producer id, first offset) of aborted transactions overlapping the range."""
        return [(t.producer_id, t.first_offset) for t in self.aborted_txns(start_offset, upper_bound_offset)]

    def aborted_txns(self, start_offset: int, upper_bound_offset: int) -> list[AbortedTxn]:
        """The transaction index entries overlapping the range, their markers' segments' included."""
        return [t for seg in self.segments_from(start_offset)
                for t in seg.txn_index.collect(start_offset, upper_bound_offset)]

    # ------------------------------------------------------------------ truncation
    def truncate_to(self, offset: int) -> None:
        """Remove the batch holding ``offset`` and everything after (``offset`` at or
        above the first segment's base); the LEO becomes the end of what is left."""
        with self.lock:
            while len(self._segments) > 1 and self._bases[-1] >= offset:
                self._bases.pop()
                self._segments.pop().delete_files()
            seg = self.active_segment
            seg.truncate_to(offset)
            seg.make_active()
            self.next_offset = seg.read_next_offset()
            self.recovery_point = min(self.recovery_point, self.next_offset)

    def truncate_fully_and_start_at(self, offset: int) -> None:
        with self.lock:
            for seg in self._segments:
                seg.delete_files()
            self._segments = []
            self._bases = []
            self._add_segment(self.new_segment(offset, active=True))
            self.next_offset = offset
            self.recovery_point = min(self.recovery_point, offset)

    # ------------------------------------------------------------------ deletion
    def _retire(self, seg: LogSegment, now: int) -> None:
        """Rename a segment leaving the list to ``.deleted``; unlinked after file.delete.delay.ms."""
        seg.release()
        try:
            seg.rename_suffix("", DELETED_SUFFIX)
        except OSError as e:
            log.warning("renaming %s for deletion failed: %s", seg.log_path, e)
        self._pending_deletes.append((now + self.config.file_delete_delay_ms, seg))

    def delete_segments(self, segs: list[LogSegment]) -> int:
        """Take ``segs`` out of the list (rolling first if that would empty it)."""
        if not segs:
            return 0
        with self.lock:
            if len(segs) == len(self._segments):
                self.roll()
            now = self._now_ms()
            for seg in segs:
                idx = self._segments.index(seg)
                del self._segments[idx]
                del self._bases[idx]
                self._retire(seg, now)
            return len(segs)

    def replace_segments(self, new_segments: list[LogSegment], old_segments: list[LogSegment]) -> bool:
        """Swap cleaned segments (files already renamed to ``.swap``) for ``old_segments``;
        False if those are no longer all in the log or include the active one."""
        with self.lock:
            if self.closed or any(s not in self._segments for s in old_segments):
                return False
            if old_segments[-1] is self.active_segment:
                return False
            idx = self._segments.index(old_segments[0])
            now = self._now_ms()
            for s in old_segments:
                self._retire(s, now)
            for s in new_segments:
                s.rename_suffix(SWAP_SUFFIX, "")
            self._segments[idx:idx + len(old_segments)] = new_segments
            self._bases[idx:idx + len(old_segments)] = [s.base_offset for s in new_segments]
            return True

    def delete_pending_files(self, now_ms: int, force: bool = False) -> int:
        """Unlink ``.deleted`` segments whose ``file.delete.delay.ms`` has passed."""
        keep, n = [], 0
        for due, seg in self._pending_deletes:
            if force or due <= now_ms:
                seg.delete_files()
                n += 1
            else:
                keep.append((due, seg))
        self._pending_deletes = keep
        return n

    def close(self) -> None:
        for seg in self._segments:
            seg.close()
        self.delete_pending_files(0, force=True)
        self.closed = True

    def close_handlers(self) -> None:
        """Drop every segment's index mappings and mark the log closed, writing nothing
        (the log dir failed); the files close when their last reader lets go."""
        for seg in self._segments:
            seg.release()
        self.closed = True

    def delete(self, rename_to: Optional[str] = None) -> None:
        """Release every file and remove the directory, renamed to ``rename_to`` first
        when given (so a crash halfway leaves a name the LogManager will not load)."""
        with self.lock:
            for seg in self._segments:
                seg.release()
            self.delete_pending_files(0, force=True)
            self._segments = []
            self._bases = []
            self.closed = True
            target = self.dir
            if rename_to is not None:
                try:
                    os.replace(self.dir, rename_to)
                    target = rename_to
                except OSError:
                    pass
            shutil.rmtree(target, ignore_errors=True)
