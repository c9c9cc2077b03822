"""One log segment: ``<base>.log`` plus its ``.index`` and ``.timeindex``.

On disk: ``<20-digit base offset>.log`` holds record batches exactly as appended
(magic 2, offsets already assigned), back to back; nothing else. The indexes are
described in ``kafpy.storage.index``. A segment being deleted is renamed to
``.log.deleted`` (and its indexes likewise) and unlinked later; its file object stays
open until the last ``FileRecordsSlice`` holding it goes away, so a fetch racing with
retention still sends the bytes it was promised.

Who may call it: the owning ``LocalLog`` (and its ``Log``) on the broker's event-loop
thread; the cleaner builds *new* segments on its own thread and hands them to the log
for the swap.

Appends never fsync (Kafka relies on the page cache and replication); ``flush()``
does, and the log calls it on roll, on ``flush.messages``/``flush.ms`` and on close.

Disk blocks are reserved ahead of the active segment's end with Linux's
``fallocate(FALLOC_FL_KEEP_SIZE)``, in steps that grow with the segment (a quarter of
its size, 64 KiB to 8 MiB): appends then write into blocks the filesystem already
holds, which measured 11-15% faster than plain appends on ext4 (bench.storage), while
the file's size, and so everything a reader or Kafka's tools see, stays exactly the
batches written. The reserve past the end is given back (truncate to the size) when the
segment rolls or closes; after a crash it is released on the next truncate.
"""

from __future__ import annotations

import logging
import mmap
import os
from typing import TYPE_CHECKING, Callable, Iterator, Optional, Union

from kafpy.protocol.errors import CorruptRecord
from kafpy.protocol.records import (BASE_OFFSET_FIELD, BATCH_HEADER_SIZE, BATCH_LENGTH_FIELD, LAST_OFFSET_DELTA_FIELD,
                                    LOG_OVERHEAD, PREFIX_THROUGH_LAST_OFFSET_DELTA, parse_header, verify_crc)

from kafpy.storage.errors import CorruptIndexError, KafkaStorageError
from kafpy.storage.file_records import BatchPosition, FileRecordsSlice, SegmentFile, _fallocate, reserve_blocks
from kafpy.storage.file_records import reserve_length  # noqa: F401 - bench.storage reaches it here
from kafpy.storage.index import OffsetIndex, TimeIndex
from kafpy.storage.log_validator import MAX_RECORD_BODY, compressed_record_body_error
from kafpy.storage.txn_index import TXN_INDEX_SUFFIX, TransactionIndex

if TYPE_CHECKING:
    from kafpy.protocol.batch_header import RecordBatchHeader
    from kafpy.storage.config import LogConfig

__all__ = ["LogSegment", "SegmentFile", "FileRecordsSlice", "BatchPosition", "log_filename", "offset_from_filename"]

log = logging.getLogger(__name__)

_PREFIX_LOD = PREFIX_THROUGH_LAST_OFFSET_DELTA  # a batch's offsets and size
_PREFIX_LEN = _PREFIX_LOD.size
# benchmarks turn this off to show what the reserve gains
RESERVE_AHEAD = True

Buffer = Union[bytes, bytearray, memoryview]
# what ``append`` writes: one buffer or a list of them (one write/writev)
Pieces = Union[Buffer, list[Buffer]]
# ``_arm``'s answer: (config, size roll position, age roll timestamp, last offset before overflow)
Armed = tuple["LogConfig", int, int, int]

LOG_SUFFIX = ".log"
INDEX_SUFFIX = ".index"
TIMEINDEX_SUFFIX = ".timeindex"
DELETED_SUFFIX = ".deleted"
CLEANED_SUFFIX = ".cleaned"
SWAP_SUFFIX = ".swap"


def log_filename(base_offset: int) -> str:
    return f"{base_offset:020d}"


def offset_from_filename(name: str) -> int:
    return int(name.split(".", 1)[0])


class LogSegment:
    """A ``.log`` file with its sparse indexes; see the module docstring."""

    def __init__(
        self,
        directory: str,
        base_offset: int,
        *,
        index_interval_bytes: int = 4096,
        max_index_size: int = 10485760,
        rolling_jitter_ms: int = 0,
        created_ms: int = 0,
        active: bool = False,
        suffix: str = "",
        file_suffix: str = "",
    ):
        self.directory = directory
        self.base_offset = base_offset
        self.index_interval_bytes = index_interval_bytes
        self.rolling_jitter_ms = rolling_jitter_ms
        self.created_ms = created_ms
        stem = os.path.join(directory, log_filename(base_offset))
        self.log_path = stem + LOG_SUFFIX + file_suffix
        self.file = SegmentFile(self.log_path)
        if self.file.is_open:
            self._fd = self.file.fd  # else opened on first use (see __getattr__)
        self.size = self.file.size
        self.offset_index = OffsetIndex(stem + INDEX_SUFFIX + file_suffix, base_offset, max_index_size, writable=active)
        self.time_index = TimeIndex(stem + TIMEINDEX_SUFFIX + file_suffix, base_offset, max_index_size, writable=active)
        if not self.size:
            self.offset_index.create_file()
            self.time_index.create_file()
        self.txn_index = TransactionIndex(stem + TXN_INDEX_SUFFIX + file_suffix)
        self.bytes_since_last_index_entry = 0
        self.max_timestamp_so_far = -1
        self.offset_of_max_timestamp = base_offset
        self.rolling_based_timestamp: Optional[int] = None
        self._max_ts_loaded = False
        self.deleted = False
        self._reserved = 0  # the file's blocks are reserved up to here (see module docs)
        self._armed: Optional[Armed] = None  # see fast_append
        self._index_slots = 0  # index entries fast_append may still add (see _arm)
        self._time_indexed = -1  # the time index's last timestamp, while armed (see _arm)

    _fd: int  # set by ``__getattr__`` on first use

    def __getattr__(self, name: str) -> int:
        # an empty segment opens its file on first use: the hot paths read ``_fd`` as a
        # plain attribute, which exists once it is open
        if name == "_fd":
            try:
                fd = self._fd = self.file.fileno()
            except OSError as e:  # out of descriptors: this append fails, later ones may not
                raise KafkaStorageError(f"opening {self.log_path} failed: {e}") from e
            return fd
        raise AttributeError(name)

    # -- sizes and offsets ------------------------------------------------------
    def _load_max_timestamp(self) -> None:
        if not self._max_ts_loaded:
            ts, off = self.time_index.last_entry()
            if ts > self.max_timestamp_so_far:
                self.max_timestamp_so_far, self.offset_of_max_timestamp = ts, off
            self._max_ts_loaded = True

    @property
    def largest_timestamp(self) -> int:
        """Max record timestamp (from the time index once inactive); -1 if none."""
        self._load_max_timestamp()
        return self.max_timestamp_so_far

    def last_modified_ms(self) -> int:
        st = os.fstat(self.file.fd) if self.file.is_open else os.stat(self.log_path)
        return int(st.st_mtime * 1000)

    def _pread_prefix(self, pos: int) -> tuple[int, int, int]:
        """(base offset, total size, last offset) of the batch at ``pos``."""
        b = os.pread(self._fd, _PREFIX_LEN, pos)
        if len(b) < _PREFIX_LEN:
            raise CorruptRecord(f"truncated batch header at {pos} in {self.log_path}")
        prefix = _PREFIX_LOD.unpack(b)
        base = prefix[BASE_OFFSET_FIELD]
        return base, prefix[BATCH_LENGTH_FIELD] + LOG_OVERHEAD, base + prefix[LAST_OFFSET_DELTA_FIELD]

    def read_next_offset(self) -> int:
        """Offset after the last batch in this segment (base offset when empty)."""
        if not self.size:
            return self.base_offset
        _, pos = self.offset_index.lookup(1 << 62)
        nxt = self.base_offset
        size = self.size
        while pos < size:
            base, total, last = self._pread_prefix(pos)
            if pos + total > size:
                break
            nxt = last + 1
            pos += total
        return nxt

    def _prefixes_from(self, pos: int) -> Iterator[tuple[int, tuple[int, ...]]]:
        """Yield (position, batch prefix up to the last offset delta) for each batch from
        ``pos`` (a batch boundary) to the end of the segment.

        Lookups start at an index entry, and the batch sought lies at most about
        index.interval.bytes further: one read of that much covers the headers in between,
        where one pread per batch took a dozen per Fetch with small batches.
        """
        size = self.size
        chunk = max(self.index_interval_bytes, 0) + _PREFIX_LEN
        buf = b""
        buf_pos = pos
        while pos < size:
            rel = pos - buf_pos
            if rel + _PREFIX_LEN > len(buf):
                buf = os.pread(self._fd, min(chunk, size - pos), pos)
                buf_pos, rel = pos, 0
                if len(buf) < _PREFIX_LEN:
                    raise CorruptRecord(f"truncated batch header at {pos} in {self.log_path}")
            prefix = _PREFIX_LOD.unpack_from(buf, rel)
            yield pos, prefix
            pos += prefix[BATCH_LENGTH_FIELD] + LOG_OVERHEAD

    def translate_offset(self, offset: int, start_position: int = 0) -> Optional[BatchPosition]:
        """First batch whose last offset >= ``offset`` (index lookup, then header scan)."""
        _, pos = self.offset_index.lookup(offset)
        for pos, prefix in self._prefixes_from(max(pos, start_position)):
            base, length, lod = prefix[BASE_OFFSET_FIELD], prefix[BATCH_LENGTH_FIELD], prefix[LAST_OFFSET_DELTA_FIELD]
            if base + lod >= offset:
                return BatchPosition(base, base + lod, pos, length + LOG_OVERHEAD)
        return None

    def _boundary_at_or_before(self, start: int, limit: int) -> tuple[int, int]:
        """Largest batch boundary <= ``limit`` scanning from ``start`` (itself a boundary).

        Returns (end position, size of the first batch at ``start``).
        """
        idx_pos = self.offset_index.position_at_or_before(limit)
        end = idx_pos if idx_pos > start else start
        first_size = 0
        for pos, prefix in self._prefixes_from(end):
            total = prefix[BATCH_LENGTH_FIELD] + LOG_OVERHEAD
            if pos == start:
                first_size = total
            if pos + total > limit:
                return pos, first_size
            end = pos + total
        return end, first_size

    def read(self, offset: int, max_size: int, max_position: Optional[int] = None,
             min_one_message: bool = True) -> Optional[FileRecordsSlice]:
        """Whole batches from the one containing ``offset``; None if nothing to return."""
        found = self.translate_offset(offset)
        if found is None:
            return None
        start = found.position
        hard_end = self.size if max_position is None else min(max_position, self.size)
        if start >= hard_end:
            return None
        limit = min(hard_end, start + max(max_size, 0))
        if start + found.size <= limit:
            # hard_end (the segment's size or the start of the batch holding max_position)
            # is a batch boundary: a read that reaches it (a consumer near the end of the
            # log) needs no header scan.
            end = limit if limit == hard_end else self._boundary_at_or_before(start, limit)[0]
        elif min_one_message and start + found.size <= hard_end:
            end = start + found.size
        else:
            return None
        return FileRecordsSlice(self.file, start, end - start)

    # -- appends -----------------------------------------------------------------
    def append(self, pieces: Pieces, batches: list[tuple[int, int, int, int]], total: Optional[int] = None) -> None:
        """Write whole batches at the end; ``batches``: (pos, size, last offset, max ts, ...).

        ``pieces`` is a buffer or a list of buffers written with one write/writev;
        index entries every ``index.interval.bytes``.
        On a write error the file is cut back to its previous size and
        ``KafkaStorageError`` raised, so nothing half-written stays behind.
        """
        start = self.size
        if not isinstance(pieces, list):
            pieces = [pieces]
        if total is None:
            total = sum(len(p) for p in pieces)
        if start + total > self._reserved:
            self._reserve_ahead(start + total)
        try:
            written = os.write(self._fd, pieces[0]) if len(pieces) == 1 else os.writev(self._fd, pieces)
            if written < total:
                self._write_rest(pieces, written, total)
        except OSError as e:
            raise self._undo_append(start, "append to", e) from e
        oi, ti = self.offset_index, self.time_index
        try:  # an index not mapped yet is mapped now, which may fail (out of descriptors)
            if not self._max_ts_loaded:
                self._load_max_timestamp()
            n_off = oi.entries
            n_time = ti.entries
        except OSError as e:
            raise self._undo_append(start, "index load for", e) from e
        interval = self.index_interval_bytes
        since = self.bytes_since_last_index_entry
        max_ts_so_far = self.max_timestamp_so_far
        max_ts_offset = self.offset_of_max_timestamp
        self._armed = None  # the index slots counted for fast_append may be used here
        try:
            for b in batches:  # (position, size, last offset, max timestamp[, ...])
                pos, size, last_offset, max_ts = b[0], b[1], b[2], b[3]
                if max_ts > max_ts_so_far:
                    max_ts_so_far, max_ts_offset = max_ts, last_offset
                if since > interval:
                    oi.append(last_offset, start + pos)
                    ti.maybe_append(max_ts_so_far, max_ts_offset)
                    since = 0
                since += size
        except OSError as e:
            # the data made it but an index entry did not (disk full): undo both
            oi.truncate_entries(n_off)
            ti.truncate_entries(n_time)
            raise self._undo_append(start, "index update for", e) from e
        if self.rolling_based_timestamp is None and batches:
            self.rolling_based_timestamp = batches[0][3]
        self.max_timestamp_so_far, self.offset_of_max_timestamp = max_ts_so_far, max_ts_offset
        self.bytes_since_last_index_entry = since
        self.size = start + total

    def fast_append(self, pieces: list[Buffer], total: int, last_offset: int, max_ts: int, config: LogConfig) -> bool:
        """``append`` of one batch when nothing unusual can happen; False (nothing written) otherwise.

        ``pieces``: the whole batch, already rewritten, or its new 16-byte prefix and
        the rest; ``config``: the log's ``LogConfig``. The LocalLog tries it first for a
        single batch. It declines when the segment is empty or may have to roll (size,
        age, a nearly full index, relative offset overflow) or an index entry would not
        fit the reserved mapping. What does not change from one append to the next is
        worked out once per config in ``_arm`` and forgotten (``_armed = None``) by
        anything that changes it. The write, index entries and max timestamp are
        exactly ``append``'s, in fewer Python steps: this runs once per batch.
        """
        arm = self._armed
        if arm is None or arm[0] is not config:
            arm = self._arm(config)
            if arm is None:
                return False
        start = self.size
        end = start + total
        if end > arm[1] or max_ts > arm[2] or last_offset > arm[3]:
            return False
        since = self.bytes_since_last_index_entry
        if since > self.index_interval_bytes and self._index_slots <= 0:
            self._armed = None  # count the slots again next time (append reserves more)
            return False
        if end > self._reserved:
            self._reserve_ahead(end)
        try:
            written = os.write(self._fd, pieces[0]) if len(pieces) == 1 else os.writev(self._fd, pieces)
            if written < total:
                self._write_rest(pieces, written, total)
        except OSError as e:
            raise self._undo_append(start, "append to", e) from e
        if max_ts > self.max_timestamp_so_far:
            self.max_timestamp_so_far = max_ts
            self.offset_of_max_timestamp = last_offset
        if since > self.index_interval_bytes:
            self.offset_index.append_reserved(last_offset, start)
            if self.max_timestamp_so_far > self._time_indexed:  # else the time index takes none
                self._time_indexed = self.max_timestamp_so_far
                self.time_index.maybe_append_reserved(self._time_indexed, self.offset_of_max_timestamp)
            self._index_slots -= 1
            since = 0
        self.bytes_since_last_index_entry = since + total
        self.size = end
        return True

    def _write_rest(self, pieces: list[Buffer], written: int, total: int) -> None:
        """Finish a short write (rare: a signal, a filling disk); OSError if it cannot."""
        view = memoryview(b"".join(pieces))
        while written < total:
            n = os.write(self._fd, view[written:])
            if n <= 0:
                raise OSError("write returned 0")
            written += n

    def _undo_append(self, start: int, what: str, err: OSError) -> KafkaStorageError:
        """Cut the file back to ``start`` after a failed append; the error to raise."""
        try:
            os.ftruncate(self._fd, start)
        except OSError:
            pass
        return KafkaStorageError(f"{what} {self.log_path} failed: {err}")

    def _arm(self, config: LogConfig) -> Optional[Armed]:
        """Work out what ``fast_append`` may skip checking: (config, largest end position
        before a size roll, newest timestamp before an age roll, last offset before the
        relative offset overflows), the index entries that fit the reserved mappings
        (``_index_slots``) and the time index's last timestamp (``_time_indexed``: while
        armed only ``fast_append`` adds entries, so it skips the time index while the
        max timestamp has not grown, as with many batches in one millisecond)."""
        self._armed = None
        rb = self.rolling_based_timestamp
        if not self.size or rb is None or rb < 0 or not self._max_ts_loaded:
            return None
        self._index_slots = min(self.offset_index.reserved_slots(), self.time_index.reserved_slots())
        self._time_indexed = self.time_index.last_entry()[0]
        self._armed = (config, config.segment_bytes, rb + config.segment_ms - self.rolling_jitter_ms,
                       self.base_offset + 0x7FFFFFFF)
        return self._armed

    def _reserve_ahead(self, end: int) -> None:
        """Reserve disk blocks from the current end to past ``end`` (see module docs)."""
        self._reserved = reserve_blocks(self._fd, self.size, end, RESERVE_AHEAD)

    def release_reserve(self) -> None:
        """Give back blocks reserved past the end (truncating to the size frees them)."""
        if self._reserved > self.size and _fallocate is not None and not self.file.closed:
            try:
                os.ftruncate(self._fd, self.size)
            except OSError as e:
                log.warning("releasing reserved blocks of %s failed: %s", self.log_path, e)
        self._reserved = 0

    def index_full(self) -> bool:
        return self.offset_index.is_full() or self.time_index.is_full()

    def should_roll(self, incoming_size: int, max_timestamp: int, last_offset: int,
                    segment_bytes: int, segment_ms: int, now_ms: int) -> bool:
        """Kafka's roll rules: size, age (first batch's timestamp), full index, offset overflow."""
        if self.size == 0:
            return False
        if self.size > segment_bytes - incoming_size:
            return True
        if self.index_full():
            return True
        if last_offset - self.base_offset > 0x7FFFFFFF:
            return True
        # Kafka: age = incoming batch's max timestamp - the first batch's, or wall
        # time since creation when the segment's first batch has no timestamp.
        rb = self.rolling_based_timestamp
        if rb is not None and rb >= 0:
            waited = max_timestamp - rb
        else:
            waited = now_ms - self.created_ms
        return waited > segment_ms - self.rolling_jitter_ms

    # -- lifecycle ---------------------------------------------------------------
    def flush(self) -> None:
        if self.file.is_open:
            os.fsync(self._fd)
        self.offset_index.flush()
        self.time_index.flush()
        self.txn_index.flush()

    def on_become_inactive(self) -> None:
        """The segment rolled: record its max timestamp in the time index, trim indexes."""
        self._armed = None
        self._load_max_timestamp()
        if self.max_timestamp_so_far >= 0:
            self.time_index.maybe_append(self.max_timestamp_so_far, self.offset_of_max_timestamp,
                                         skip_full_check=True, closing=True)
        self.offset_index.trim()
        self.time_index.trim()
        self.release_reserve()

    def make_active(self) -> None:
        self._armed = None
        self.offset_index.make_writable()
        self.time_index.make_writable()

    def close(self) -> None:
        """Record the max timestamp in the time index (as Kafka does on close, so a
        restart knows it without a scan), trim the indexes, close the file."""
        self._armed = None
        if self._max_ts_loaded and self.max_timestamp_so_far >= 0 and self.size:
            try:
                self.time_index.maybe_append(self.max_timestamp_so_far, self.offset_of_max_timestamp,
                                             skip_full_check=True, closing=True)
            except (OSError, CorruptIndexError) as e:
                log.warning("final time index entry for %s failed: %s", self.log_path, e)
        self.offset_index.close()
        self.time_index.close()
        self.release_reserve()
        self.file.close()

    def unload_indexes(self) -> None:
        """Drop the mappings of an inactive segment's indexes until they are needed again."""
        self.offset_index.unload()
        self.time_index.unload()

    def release(self) -> None:
        """Drop index mappings; the log file closes when its last reader lets go."""
        self._armed = None
        self.offset_index.close_without_trim()
        self.time_index.close_without_trim()

    def rename_suffix(self, old: str, new: str) -> None:
        """Rename all files from suffix ``old`` to ``new`` (e.g. '' -> '.deleted')."""
        self._armed = None
        def swap(path: str) -> str:
            assert path.endswith(old) or old == ""
            return (path[: len(path) - len(old)] if old else path) + new
        new_log = swap(self.log_path)
        os.replace(self.log_path, new_log)
        self.log_path = self.file.name = new_log  # an unopened file opens by name
        self.offset_index.rename(swap(self.offset_index.path))
        self.time_index.rename(swap(self.time_index.path))
        self.txn_index.rename(swap(self.txn_index.path))

    def delete_files(self) -> None:
        self.release()
        for p in (self.log_path, self.offset_index.path, self.time_index.path, self.txn_index.path):
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
        self.deleted = True

    # -- truncation and recovery -----------------------------------------------------
    def truncate_to(self, offset: int) -> int:
        """Drop the batch holding ``offset`` and everything after (Kafka's rule); bytes removed."""
        self._armed = None
        found = self.translate_offset(offset)
        if found is None:
            return 0
        pos = found.position
        if pos >= self.size:
            return 0
        removed = self.size - pos
        self.offset_index.truncate_to(offset)
        self.time_index.truncate_to(offset)
        self.txn_index.truncate_to(offset)
        os.ftruncate(self._fd, pos)
        self._reserved = 0
        self.size = pos
        self.bytes_since_last_index_entry = 0
        self.max_timestamp_so_far = -1
        self.offset_of_max_timestamp = self.base_offset
        self._max_ts_loaded = False
        if self.size == 0:
            self.rolling_based_timestamp = None
        # recompute the max timestamp from the trimmed time index + tail
        self._rescan_max_timestamp()
        return removed

    def _rescan_max_timestamp(self) -> None:
        self._load_max_timestamp()
        _, pos = self.offset_index.lookup(1 << 62)
        while pos < self.size:
            b = os.pread(self._fd, BATCH_HEADER_SIZE, pos)
            h = parse_header(b)
            if h.max_timestamp > self.max_timestamp_so_far:
                self.max_timestamp_so_far, self.offset_of_max_timestamp = h.max_timestamp, h.last_offset
            pos += h.total_size

    def recover(self, max_message_bytes: int, on_batch: Optional[Callable[[RecordBatchHeader], object]] = None,
                start_offset: Optional[int] = None, end_offset: Optional[int] = None) -> int:
        """Validate every batch, rebuild both indexes, cut the file at the first bad batch.

        Offsets must increase from ``start_offset`` and stay below ``end_offset`` (the
        next segment's base), which also catches a damaged base offset, a field Kafka's
        CRC does not cover.

        ``on_batch(header)`` is called for each valid batch (leader epochs, producer
        state). Returns the number of bytes truncated.
        """
        self._armed = None
        self.offset_index.reset()
        self.time_index.reset()
        self.bytes_since_last_index_entry = 0
        self.max_timestamp_so_far = -1
        self.offset_of_max_timestamp = self.base_offset
        self._max_ts_loaded = True
        self.rolling_based_timestamp = None
        size = os.fstat(self._fd).st_size if self.file.is_open else os.stat(self.log_path).st_size
        valid = 0
        next_expected = self.base_offset if start_offset is None else start_offset
        if size:
            mm = mmap.mmap(self._fd, size, prot=mmap.PROT_READ)
            try:
                valid = self._scan_valid(mm, size, max_message_bytes, next_expected, on_batch, end_offset)
            finally:
                mm.close()
        truncated = size - valid
        if truncated:
            log.warning("truncating %s: %d invalid bytes at position %d", self.log_path, truncated, valid)
            os.ftruncate(self._fd, valid)
        self.size = valid
        return truncated

    def _scan_valid(self, mm: mmap.mmap, size: int, max_message_bytes: int, next_expected: int,
                    on_batch: Optional[Callable[[RecordBatchHeader], object]],
                    end_offset: Optional[int] = None) -> int:
        valid = 0
        interval = self.index_interval_bytes
        since = 0
        view = memoryview(mm)
        try:
            while valid < size:
                if size - valid < BATCH_HEADER_SIZE:
                    break
                try:
                    h = parse_header(view, valid)
                except CorruptRecord:
                    break
                total = h.batch_length + LOG_OVERHEAD
                if valid + total > size:
                    break
                try:
                    verify_crc(view, valid, h)
                except CorruptRecord:
                    break
                last = h.base_offset + h.last_offset_delta
                if h.base_offset < next_expected or last < h.base_offset or last - self.base_offset > 0x7FFFFFFF:
                    break
                if end_offset is not None and last >= end_offset:
                    break
                if self.rolling_based_timestamp is None:
                    self.rolling_based_timestamp = h.max_timestamp
                if h.max_timestamp > self.max_timestamp_so_far:
                    self.max_timestamp_so_far, self.offset_of_max_timestamp = h.max_timestamp, last
                if since > interval:
                    self.offset_index.append(last, valid)
                    self.time_index.maybe_append(self.max_timestamp_so_far, self.offset_of_max_timestamp)
                    since = 0
                since += total
                if on_batch is not None:
                    on_batch(h)
                next_expected = last + 1
                valid += total
        finally:
            view.release()
        self.bytes_since_last_index_entry = since
        return valid

    # -- timestamps ---------------------------------------------------------------------
    def iter_batch_headers(self, start_position: int = 0) -> Iterator[tuple[int, RecordBatchHeader]]:
        """Yield (position, header) for each batch from ``start_position`` (pread per header)."""
        pos = start_position
        while pos < self.size:
            b = os.pread(self._fd, BATCH_HEADER_SIZE, pos)
            h = parse_header(b)
            yield pos, h
            pos += h.total_size

    def read_batch(self, position: int, size: int) -> bytes:
        return os.pread(self._fd, size, position)

    def find_offset_by_timestamp(self, timestamp: int, starting_offset: int,
                                 max_record_bytes: int = MAX_RECORD_BODY) -> Optional[tuple[int, int, int]]:
        """(offset, timestamp, leader epoch) of the first record with ts >= ``timestamp``
        and offset >= ``starting_offset`` in this segment, or None.

        A compressed batch it must look into that holds a record body over
        ``max_record_bytes`` (the topic's max.decompressed.message.bytes, lowered after
        the batch was written) raises INVALID_RECORD, as Kafka 4.4's search does."""
        from kafpy.protocol.records import decode_batch

        _ts, idx_offset = self.time_index.lookup(timestamp)
        _o, pos = self.offset_index.lookup(max(idx_offset, starting_offset))
        for p, h in self.iter_batch_headers(pos):
            if h.max_timestamp >= timestamp and h.last_offset >= starting_offset:
                data = self.read_batch(p, h.total_size)
                if h.compression:
                    error = compressed_record_body_error(data, 0, max_record_bytes)
                    if error is not None:
                        raise error
                header, records = decode_batch(data)
                for r in records:
                    off = h.base_offset + r.offset_delta
                    ts = h.max_timestamp if h.timestamp_type == 1 else h.base_timestamp + r.timestamp_delta
                    if ts >= timestamp and off >= starting_offset:
                        return off, ts, h.partition_leader_epoch
        return None

    def __repr__(self) -> str:
        return f"LogSegment(base={self.base_offset}, size={self.size}, path={self.log_path!r})"
