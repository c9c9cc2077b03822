"""One partition's log: an ordered set of segments plus its offsets and side state.

On disk, in ``<log dir>/<topic>-<partition>/``: the segments
(``<20-digit base offset>.log|.index|.timeindex``), ``leader-epoch-checkpoint``,
``partition.metadata`` and producer ``<offset>.snapshot`` files. Log start offset,
recovery point and high watermark are checkpointed per log dir by the LogManager.

Threading rule: a Log is used from one thread (the broker's event loop). The only
other thread is the log cleaner, which reads inactive segments and then swaps cleaned
copies in under ``self.lock``; the event loop takes the same lock around segment-list
changes and lookups, never around I/O it does not need to guard. The Produce hot path
in ``append_as_leader`` takes no lock at all (see there why that is safe).

Crash recovery: after an unclean shutdown every segment from the one holding the
recovery point is validated batch by batch (CRC, framing, increasing offsets); the log
is cut at the first bad batch (later segments are deleted) and the indexes, leader
epochs and producer state are rebuilt. After a clean shutdown the log opens without a
scan; a missing or insane index is rebuilt from its segment either way. Leftovers of an
interrupted operation: ``*.tmp``, ``*.cleaned`` are removed, ``*.swap`` completes its
swap, ``*.deleted`` are removed.
"""

from __future__ import annotations

import bisect
import logging
import os
import random
import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Optional

from crc32c import crc32c as _crc32c

from protocol.errors import CorruptRecord, ProtocolError
from protocol.records import (
    BATCH_HEADER_SIZE,
    CONTROL_MASK,
    TRANSACTIONAL_MASK,
    decode_batch,
    is_legacy,
    parse_control_record,
    parse_header,
    recompress_batch,
    set_base_offset,
    set_max_timestamp,
    set_partition_leader_epoch,
    upconvert_legacy,
    verify_crc,
)

from .checkpoint import PartitionMetadataFile
from .config import LONG_MAX, LogConfig
from .errors import (
    CorruptIndexError,
    CorruptRecordError,
    InvalidRecordError,
    InvalidTimestampError,
    KafkaStorageError,
    OffsetOutOfRangeError,
    RecordListTooLargeError,
    RecordTooLargeError,
    StorageError,
)
from .leader_epoch import LeaderEpochFileCache
from .producer_state import ProducerStateManager
from .txn_index import TXN_INDEX_SUFFIX, AbortedTxn
from .segment import (
    CLEANED_SUFFIX,
    DELETED_SUFFIX,
    INDEX_SUFFIX,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    TIMEINDEX_SUFFIX,
    FileRecordsSlice,
    LogSegment,
)

__all__ = ["Log", "LogAppendInfo", "FetchDataInfo", "parse_topic_partition"]

log = logging.getLogger(__name__)

LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint"
PARTITION_METADATA = "partition.metadata"

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5

_PREFIX16 = struct.Struct(">qii")  # base offset, batch length, partition leader epoch
# batch header from byte 8: length, leader epoch, magic, crc, attributes, last offset delta,
# base timestamp, max timestamp, producer id, producer epoch, base sequence, records count
_FAST_HEADER = struct.Struct(">iibIhiqqqhii")
_CONTROL_OR_TXN = CONTROL_MASK | TRANSACTIONAL_MASK
_CODECS = {"none": 0, "uncompressed": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


_flusher: Optional[ThreadPoolExecutor] = None
_flusher_lock = threading.Lock()


def _flush_executor() -> ThreadPoolExecutor:
    """One shared thread fsyncs rolled segments for every log."""
    global _flusher
    with _flusher_lock:
        if _flusher is None:
            _flusher = ThreadPoolExecutor(1, thread_name_prefix="kafka-log-flusher")
        return _flusher


def parse_topic_partition(dirname: str) -> tuple[str, int]:
    """``my-topic-3`` -> ("my-topic", 3); raises ValueError for anything else."""
    topic, sep, part = dirname.rpartition("-")
    if not sep or not topic or not part.isdigit():
        raise ValueError(f"not a partition directory: {dirname!r}")
    return topic, int(part)


@dataclass(slots=True)
class LogAppendInfo:
    first_offset: int
    last_offset: int
    max_timestamp: int
    log_append_time: int
    log_start_offset: int
    duplicate: bool = False
    records_count: int = 0
    valid_bytes: int = 0


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
    ):
        self.dir = directory
        self.topic, self.partition = parse_topic_partition(os.path.basename(directory.rstrip("/")))
        self.config = config
        self.clock = clock
        self.lock = threading.RLock()
        self._segments: list[LogSegment] = []
        self._bases: list[int] = []
        self._pending_deletes: list[tuple[int, LogSegment]] = []
        self._next_offset = 0
        self._log_start_offset = 0
        self._high_watermark = 0
        self.recovery_point = recovery_point
        self._unflushed = 0
        self._last_flush_ms = self._now_ms()
        self.closed = False
        self._pending_flush = None
        self._codec_for: Optional[LogConfig] = None
        self._codec: Optional[int] = None
        os.makedirs(directory, exist_ok=True)
        self._partition_metadata = PartitionMetadataFile(os.path.join(directory, PARTITION_METADATA))
        self.topic_id = self._partition_metadata.read()
        if topic_id is not None and self.topic_id != topic_id:
            self.assign_topic_id(topic_id)
        self.leader_epoch_cache = LeaderEpochFileCache(
            os.path.join(directory, LEADER_EPOCH_CHECKPOINT), lambda: self._next_offset)
        self.producer_state = ProducerStateManager(directory, config.producer_id_expiration_ms)
        self._load(recovery_point, log_start_offset, needs_recovery)
        self._high_watermark = min(max(high_watermark, self._log_start_offset), self._next_offset)

    # ------------------------------------------------------------------ properties
    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    @property
    def log_start_offset(self) -> int:
        return self._log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self._next_offset

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
    def segments(self) -> list[LogSegment]:
        with self.lock:
            return list(self._segments)

    @property
    def active_segment(self) -> LogSegment:
        return self._segments[-1]

    def size_in_bytes(self) -> int:
        return sum(s.size for s in self._segments)

    def update_high_watermark(self, offset: int) -> int:
        """Set the HW (clamped to [log start, LEO]); returns the value kept."""
        self._high_watermark = min(max(offset, self._log_start_offset), self._next_offset)
        return self._high_watermark

    def assign_topic_id(self, topic_id: bytes) -> None:
        self.topic_id = topic_id
        self._partition_metadata.write(topic_id)

    def update_config(self, config: LogConfig) -> None:
        self.config = config
        self.producer_state.producer_id_expiration_ms = config.producer_id_expiration_ms

    # ------------------------------------------------------------------ loading
    def _new_segment(self, base: int, active: bool, file_suffix: str = "") -> LogSegment:
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

    def _load(self, recovery_point: int, log_start_offset: int, needs_recovery: bool) -> None:
        names = os.listdir(self.dir)
        swaps = []
        for name in names:
            path = os.path.join(self.dir, name)
            if name.endswith(".tmp") or name.endswith(CLEANED_SUFFIX):
                os.unlink(path)
            elif name.endswith(DELETED_SUFFIX):
                os.unlink(path)
            elif name.endswith(SWAP_SUFFIX):
                swaps.append(name)
        # finish interrupted swaps: the .swap log replaces every segment it covers
        for name in sorted(swaps):
            if name.endswith(LOG_SUFFIX + SWAP_SUFFIX):
                self._complete_swap(name)
        for name in os.listdir(self.dir):
            if name.endswith(SWAP_SUFFIX):  # stray index swap files
                os.replace(os.path.join(self.dir, name), os.path.join(self.dir, name[: -len(SWAP_SUFFIX)]))
        bases = []
        for name in os.listdir(self.dir):
            if name.endswith(LOG_SUFFIX):
                stem = name[: -len(LOG_SUFFIX)]
                if stem.isdigit():
                    bases.append(int(stem))
                else:
                    log.warning("ignoring unexpected file %s in %s", name, self.dir)
            elif name.endswith(INDEX_SUFFIX) or name.endswith(TIMEINDEX_SUFFIX):
                stem = name.rsplit(".", 1)[0]
                if stem.isdigit() and not os.path.exists(os.path.join(self.dir, stem + LOG_SUFFIX)):
                    log.warning("removing orphan index %s", name)
                    os.unlink(os.path.join(self.dir, name))
        bases.sort()
        max_msg = self.config.max_message_bytes
        for i, base in enumerate(bases):
            seg = self._new_segment(base, active=(i == len(bases) - 1))
            stem = os.path.join(self.dir, f"{base:020d}")
            missing = not os.path.exists(stem + INDEX_SUFFIX + "") or not os.path.exists(stem + TIMEINDEX_SUFFIX)
            insane = False
            if not missing:
                try:
                    seg.offset_index.sanity_check(seg.size)
                    seg.time_index.sanity_check()
                except CorruptIndexError as e:
                    log.warning("rebuilding index of %s: %s", seg.log_path, e)
                    insane = True
            if (missing or insane) and not (needs_recovery and self._unflushed_segment(bases, i, recovery_point)):
                if seg.size:
                    log.warning("rebuilding missing/corrupt indexes of %s", seg.log_path)
                seg.recover(max_msg)
            self._segments.append(seg)
            self._bases.append(base)
        if needs_recovery:
            self._recover(recovery_point)
        if not self._segments:
            base = max(log_start_offset, 0)
            seg = self._new_segment(base, active=True)
            self._segments.append(seg)
            self._bases.append(base)
        self.active_segment.make_active()
        self._next_offset = self.active_segment.read_next_offset()
        self._log_start_offset = min(max(log_start_offset, self._segments[0].base_offset), self._next_offset)
        self.recovery_point = min(max(self.recovery_point, self._log_start_offset), self._next_offset)
        if not needs_recovery:
            self.recovery_point = self._next_offset
        # leader epochs
        self.leader_epoch_cache.truncate_from_end(self._next_offset)
        self.leader_epoch_cache.truncate_from_start(self._log_start_offset)
        self._rebuild_producer_state(self._next_offset)

    def _unflushed_segment(self, bases: list[int], i: int, recovery_point: int) -> bool:
        nxt = bases[i + 1] if i + 1 < len(bases) else None
        return nxt is None or nxt > recovery_point

    def _complete_swap(self, name: str) -> None:
        swap_path = os.path.join(self.dir, name)
        base = int(name.split(".", 1)[0])
        seg = LogSegment(self.dir, base, file_suffix=SWAP_SUFFIX)
        try:
            nxt = seg.read_next_offset() if seg.size else base
        finally:
            seg.release()
            seg.file.close()
        for other in os.listdir(self.dir):
            if other.endswith(LOG_SUFFIX) and other[: -len(LOG_SUFFIX)].isdigit():
                ob = int(other[: -len(LOG_SUFFIX)])
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
        log.info("completed interrupted segment swap %s", swap_path)

    def _recover(self, recovery_point: int) -> None:
        """Validate segments from the one holding the recovery point; cut at the first bad batch."""
        if not self._segments:
            return
        start = max(bisect.bisect_right(self._bases, recovery_point) - 1, 0)
        max_msg = self.config.max_message_bytes
        epochs = self.leader_epoch_cache

        def on_batch(h) -> None:
            if h.partition_leader_epoch > epochs.latest_epoch:
                epochs.assign(h.partition_leader_epoch, h.base_offset, flush=False)

        expected = None
        i = start
        while i < len(self._segments):
            seg = self._segments[i]
            upper = self._bases[i + 1] if i + 1 < len(self._bases) else None
            truncated = seg.recover(max_msg, on_batch, start_offset=expected, end_offset=upper)
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
        epochs.flush()

    def _rebuild_producer_state(self, end_offset: int) -> None:
        """Load the latest snapshot <= end offset, then replay batch headers after it."""
        ps = self.producer_state
        ps.delete_snapshots_above(end_offset)
        snap = ps.load_latest_snapshot(end_offset, self._now_ms())
        start = snap if snap is not None else self._log_start_offset
        if snap is None:
            ps.clear(self._log_start_offset)
        if start >= end_offset:
            ps.map_end_offset = end_offset
            return
        i = max(bisect.bisect_right(self._bases, start) - 1, 0)
        for seg in self._segments[i:]:
            found = seg.translate_offset(start)
            if found is None:
                continue
            for pos, h in seg.iter_batch_headers(found.position):
                if h.base_offset >= end_offset:
                    break
                if h.last_offset < start:
                    continue
                self._replay_batch(seg, pos, h)
        ps.map_end_offset = end_offset

    def _replay_batch(self, seg: Optional[LogSegment], pos: int, h, data=None) -> None:
        ps = self.producer_state
        if h.producer_id < 0:
            return
        if h.attributes & CONTROL_MASK:
            try:
                if data is None:
                    data = seg.read_batch(pos, h.total_size)
                _, recs = decode_batch(data, 0, verify=False)
                ctrl = parse_control_record(recs[0]) if recs else None
            except ProtocolError:
                ctrl = None
            if ctrl is not None and ctrl.type in (0, 1):
                first = ps.complete_txn(h.producer_id, h.producer_epoch, ctrl.coordinator_epoch,
                                        h.base_offset, h.max_timestamp)
                if ctrl.type == 0 and first is not None:
                    target = seg if seg is not None else self._segments[-1]
                    lso = ps.first_unstable_offset()
                    target.txn_index.append(AbortedTxn(
                        h.producer_id, first, h.base_offset,
                        min(lso, h.base_offset) if lso is not None else h.base_offset))
            return
        ps.update(h.producer_id, h.producer_epoch, h.base_sequence,
                  h.last_sequence if h.base_sequence >= 0 else -1,
                  h.base_offset, h.base_offset + h.last_offset_delta, h.max_timestamp,
                  bool(h.attributes & TRANSACTIONAL_MASK))

    # ------------------------------------------------------------------ appends
    def _target_codec(self) -> Optional[int]:
        if self._codec_for is not self.config:
            self._refresh_config_cache()
        return self._codec

    def _refresh_config_cache(self) -> None:
        """Derived settings the append path needs, computed once per config object."""
        cfg = self.config
        ct = cfg.compression_type.strip().lower()
        self._codec = None if ct == "producer" else _CODECS.get(ct)
        self._log_append = cfg.log_append_time
        self._compact = "compact" in cfg.cleanup_policy
        before, after = cfg.timestamp_bounds()
        self._ts_bounds = (before, after) if (before < LONG_MAX or after < LONG_MAX) else None
        self._fast_ok = (self._codec is None and not self._log_append and not self._compact
                         and self._ts_bounds is None)
        self._fast_max_bytes = min(cfg.max_message_bytes, cfg.segment_bytes)
        self._fast_roll_bytes = cfg.segment_bytes
        self._fast_roll_ms = cfg.segment_ms
        self._flush_messages = cfg.flush_messages
        self._codec_for = cfg

    def append_as_leader(self, records, leader_epoch: int, origin: str = "client") -> LogAppendInfo:
        """Validate, assign offsets, check producer state, write once. See the class docs.

        ``origin`` is "client" (Produce) or "coordinator" (the group/transaction
        coordinators: control batches allowed, producer sequences not checked).

        The request's bytes are not copied: each batch goes out as a 16-byte prefix
        (base offset, length, leader epoch: the fields outside the CRC that change)
        plus a view of the rest, in one ``os.writev``; a single batch in a writable
        buffer gets those fields rewritten in place, as Kafka does, and goes out in one
        ``os.write``. Only LogAppendTime, a ``compression.type`` conversion or legacy
        input build a new buffer.
        """
        if self.closed:
            raise KafkaStorageError(f"log {self.dir} is closed")
        if self._codec_for is not self.config:
            self._refresh_config_cache()
        if self._fast_ok and origin == "client":
            # the common Produce: exactly one magic-2 batch, no conversion
            n = len(records)
            if n >= BATCH_HEADER_SIZE:
                (blen, _, magic, crc, attrs, lod, _, ts, pid, pepoch, bseq,
                 count) = _FAST_HEADER.unpack_from(records, 8)
                if (magic == 2 and blen + 12 == n and n <= self._fast_max_bytes and count > 0
                        and lod == count - 1 and not attrs & _CONTROL_OR_TXN
                        and (pid < 0 or bseq >= 0)):
                    # The hot path, inline (a call costs as much as a check here). It
                    # leaves anything unusual (a producer not simply continuing its
                    # sequence, a segment roll) to the general path below. It takes no
                    # lock: it runs on the event loop, the only thread that appends, and
                    # only for logs that are not compacted, and it touches nothing but
                    # the active segment, which the cleaner never reads.
                    view = memoryview(records)
                    if _crc32c(view[21:n]) != crc:
                        raise CorruptRecordError("record batch at 0 is corrupt (CRC mismatch)")
                    entry = None
                    if pid >= 0:
                        # only a producer simply continuing its sequence in the same epoch
                        # (not a retry, not an error: ProducerStateManager.check's cases)
                        entry = self.producer_state.producers.get(pid)
                        if entry is not None:
                            if entry.epoch != pepoch or not entry.batches:
                                entry = None
                            else:
                                prev = entry.batches[-1].last_seq
                                if bseq != prev + 1 and (bseq or prev != 0x7FFFFFFF):
                                    entry = None
                    if pid < 0 or entry is not None:
                        first = self._next_offset
                        last = first + lod
                        if view.readonly:
                            prefix = _PREFIX16.pack(first, blen, leader_epoch)
                            body = view[16:n]
                        else:
                            # as Kafka does, the offsets and epoch go straight into the
                            # request's buffer (they are outside the CRC): one plain write
                            _PREFIX16.pack_into(view, 0, first, blen, leader_epoch)
                            prefix = None
                            body = view
                        if self._segments[-1].fast_append(prefix, body, n, last, ts, self._fast_roll_bytes,
                                                          self._fast_roll_ms):
                            self._next_offset = last + 1
                            if leader_epoch > self.leader_epoch_cache.latest_epoch:
                                self.leader_epoch_cache.assign(leader_epoch, first)
                            if entry is not None:
                                self.producer_state.append_continuing(
                                    entry, bseq, (bseq + lod) & 0x7FFFFFFF, first, last, ts)
                            self._unflushed += count
                            if self._unflushed >= self._flush_messages:
                                self.flush()
                            return LogAppendInfo(first, last, ts, -1, self._log_start_offset, False,
                                                 count, n)
            if n >= BATCH_HEADER_SIZE and records[16] == 2:
                try:
                    h = parse_header(records, 0)
                except CorruptRecord as e:
                    raise CorruptRecordError(str(e)) from e
                if h.batch_length + 12 == n:
                    return self._append_one(records, h, leader_epoch)
        if len(records) > 16 and records[16] in (0, 1) and is_legacy(records):
            try:
                records = upconvert_legacy(records)
            except ProtocolError as e:
                raise CorruptRecordError(str(e)) from e
        from_client = origin == "client"
        if self._codec_for is not self.config:
            self._refresh_config_cache()
        cfg = self.config
        headers = self._validate(records, from_client)
        target = self._codec
        buf = None
        if target is not None and any(h.compression != target for _, h in headers):
            buf, headers = self._recompress(records, headers, target, from_client)
        log_append = self._log_append
        if log_append and buf is None:
            buf = bytearray(records)
        total = len(buf) if buf is not None else len(records)
        if total > cfg.segment_bytes:
            raise RecordListTooLargeError(
                f"{total} bytes exceed segment.bytes {cfg.segment_bytes}")
        now = self._now_ms()
        with self.lock:
            ps = self.producer_state
            has_pid = False
            for _, h in headers:
                if h.producer_id >= 0:
                    has_pid = True
                    break
            if has_pid:
                # idempotence: duplicates first, then sequence checks (Kafka's order)
                pending: dict[int, tuple[int, int]] = {}
                for _, h in headers:
                    if h.producer_id >= 0 and not (h.attributes & CONTROL_MASK):
                        if from_client:
                            dup = ps.find_duplicate(h.producer_id, h.producer_epoch, h.base_sequence,
                                                    h.last_sequence)
                            if dup is not None:
                                return LogAppendInfo(dup.first_offset, dup.last_offset, dup.timestamp, -1,
                                                     self._log_start_offset, True, h.records_count, 0)
                        ps.check(h.producer_id, h.producer_epoch, h.base_sequence, pending,
                                 bool(h.attributes & TRANSACTIONAL_MASK), from_client)
                        pending[h.producer_id] = (h.producer_epoch, h.last_sequence)
            offset = first = self._next_offset
            max_ts = -1
            index_info = []
            count = 0
            if buf is None:
                view = memoryview(records)
                pieces = []
                pack = _PREFIX16.pack
                for pos, h in headers:
                    size = h.batch_length + 12
                    pieces.append(pack(offset, h.batch_length, leader_epoch))
                    pieces.append(view[pos + 16:pos + size])
                    ts = h.max_timestamp
                    last = offset + h.last_offset_delta
                    index_info.append((pos, size, last, ts))
                    if ts > max_ts:
                        max_ts = ts
                    count += h.records_count
                    offset = last + 1
            else:
                pieces = [buf]
                for pos, h in headers:
                    set_base_offset(buf, pos, offset)
                    set_partition_leader_epoch(buf, pos, leader_epoch)
                    if log_append:
                        set_max_timestamp(buf, pos, now, 1)
                        ts = now
                    else:
                        ts = h.max_timestamp
                    last = offset + h.last_offset_delta
                    index_info.append((pos, h.batch_length + 12, last, ts))
                    if ts > max_ts:
                        max_ts = ts
                    count += h.records_count
                    offset = last + 1
            seg = self._segments[-1]
            if seg.size and seg.should_roll(total, max_ts, offset - 1, cfg.segment_bytes,
                                            cfg.segment_ms, now):
                seg = self._roll(first)
            seg.append(pieces, index_info, total)
            self._next_offset = offset
            # side state after the data is in the file
            if leader_epoch > self.leader_epoch_cache.latest_epoch:
                self.leader_epoch_cache.assign(leader_epoch, first)
            if has_pid:
                src = buf if buf is not None else records
                for (pos, h), (_, size, last, ts) in zip(headers, index_info):
                    if h.producer_id >= 0:
                        base = last - h.last_offset_delta
                        if h.attributes & CONTROL_MASK:
                            self._replay_batch(None, 0, h._replace(base_offset=base, max_timestamp=ts),
                                               data=bytes(src[pos:pos + size]))
                        else:
                            ps.update(h.producer_id, h.producer_epoch, h.base_sequence,
                                      h.last_sequence if h.base_sequence >= 0 else -1,
                                      base, last, ts, bool(h.attributes & TRANSACTIONAL_MASK))
            self._unflushed += count
            if self._unflushed >= cfg.flush_messages:
                self.flush()
        return LogAppendInfo(first, offset - 1, max_ts, now if log_append else -1,
                             self._log_start_offset, False, count, total)

    def _append_one(self, records, h, leader_epoch: int) -> LogAppendInfo:
        """append_as_leader for one client batch needing no conversion (same rules)."""
        n = h.batch_length + 12
        cfg = self.config
        if n > cfg.max_message_bytes:
            raise RecordTooLargeError(f"record batch of {n} bytes exceeds max.message.bytes {cfg.max_message_bytes}")
        view = memoryview(records)
        if _crc32c(view[21:n]) != h.crc:
            raise CorruptRecordError("record batch at 0 is corrupt (CRC mismatch)")
        count = h.records_count
        if count <= 0:
            raise InvalidRecordError("record batch has no records")
        if h.last_offset_delta != count - 1:
            raise InvalidRecordError("inconsistent batch offset range and record count")
        attrs = h.attributes
        if attrs & CONTROL_MASK:
            raise InvalidRecordError("clients are not allowed to write control records")
        pid = h.producer_id
        if pid >= 0 and h.base_sequence < 0:
            raise InvalidRecordError(f"invalid sequence {h.base_sequence} for producer {pid}")
        if n > cfg.segment_bytes:
            raise RecordListTooLargeError(f"{n} bytes exceed segment.bytes {cfg.segment_bytes}")
        now = int(self.clock() * 1000)
        with self.lock:
            ps = self.producer_state
            if pid >= 0:
                last_seq = h.last_sequence
                dup = ps.find_duplicate(pid, h.producer_epoch, h.base_sequence, last_seq)
                if dup is not None:
                    return LogAppendInfo(dup.first_offset, dup.last_offset, dup.timestamp, -1,
                                         self._log_start_offset, True, count, 0)
                ps.check(pid, h.producer_epoch, h.base_sequence, None, bool(attrs & TRANSACTIONAL_MASK), True)
            first = self._next_offset
            last = first + h.last_offset_delta
            ts = h.max_timestamp
            seg = self._segments[-1]
            if seg.size and seg.should_roll(n, ts, last, cfg.segment_bytes, cfg.segment_ms, now):
                seg = self._roll(first)
            seg.append([_PREFIX16.pack(first, h.batch_length, leader_epoch), view[16:n]], [(0, n, last, ts)], n)
            self._next_offset = last + 1
            if leader_epoch > self.leader_epoch_cache.latest_epoch:
                self.leader_epoch_cache.assign(leader_epoch, first)
            if pid >= 0:
                ps.update(pid, h.producer_epoch, h.base_sequence, last_seq, first, last, ts,
                          bool(attrs & TRANSACTIONAL_MASK))
            self._unflushed += count
            if self._unflushed >= cfg.flush_messages:
                self.flush()
        return LogAppendInfo(first, last, ts, -1, self._log_start_offset, False, count, n)

    def _validate(self, buf, from_client: bool) -> list:
        n = len(buf)
        if n == 0:
            raise InvalidRecordError("empty record set")
        max_bytes = self.config.max_message_bytes
        headers = []
        pos = 0
        view = memoryview(buf)
        try:
            while pos < n:
                if n - pos < BATCH_HEADER_SIZE:
                    raise CorruptRecordError(f"{n - pos} trailing bytes are not a record batch")
                h = parse_header(buf, pos)
                total = h.batch_length + 12
                if pos + total > n:
                    raise CorruptRecordError(f"record batch at {pos} claims {total} bytes, {n - pos} left")
                if total > max_bytes:
                    raise RecordTooLargeError(
                        f"record batch of {total} bytes exceeds max.message.bytes {max_bytes}")
                if _crc32c(view[pos + 21:pos + total]) != h.crc:
                    raise CorruptRecordError(f"record batch at {pos} is corrupt (CRC mismatch)")
                if from_client:
                    # Kafka's LogValidator rules for client batches; replicated (possibly
                    # compacted) batches may be empty or have gaps.
                    if h.records_count <= 0:
                        raise InvalidRecordError("record batch has no records")
                    if h.last_offset_delta != h.records_count - 1:
                        raise InvalidRecordError("inconsistent batch offset range and record count")
                    if h.attributes & CONTROL_MASK:
                        raise InvalidRecordError("clients are not allowed to write control records")
                    if h.producer_id >= 0 and h.base_sequence < 0:
                        raise InvalidRecordError(
                            f"invalid sequence {h.base_sequence} for producer {h.producer_id}")
                elif h.last_offset_delta < 0:
                    raise InvalidRecordError("negative last offset delta")
                headers.append((pos, h))
                pos += total
        except CorruptRecord as e:
            raise CorruptRecordError(str(e)) from e
        finally:
            view.release()
        if self._codec_for is not self.config:
            self._refresh_config_cache()
        if from_client and self._compact:
            self._check_keys(buf, headers)
        if from_client and self._ts_bounds is not None and not self._log_append:
            before, after = self._ts_bounds
            now = self._now_ms()
            for _, h in headers:
                # the batch's first and largest timestamps bound its records
                for ts in (h.base_timestamp, h.max_timestamp):
                    if ts >= 0 and (now - ts > before or ts - now > after):
                        raise InvalidTimestampError(
                            f"timestamp {ts} is out of range [{now - before}, {now + after}]")
        return headers

    def _check_keys(self, buf, headers) -> None:
        """Compacted topics reject records without a key (Kafka does the same)."""
        for pos, h in headers:
            if h.attributes & CONTROL_MASK:
                continue
            try:
                _, recs = decode_batch(buf, pos, verify=False)
            except ProtocolError as e:
                raise CorruptRecordError(str(e)) from e
            if any(r.key is None for r in recs):
                raise InvalidRecordError("compacted topic cannot accept message without key")

    def _recompress(self, buf, headers, codec: int, from_client: bool):
        parts = []
        for pos, h in headers:
            if h.compression == codec:
                parts.append(bytes(buf[pos:pos + h.batch_length + 12]))
            else:
                try:
                    parts.append(recompress_batch(buf, pos, codec))
                except ProtocolError as e:
                    raise CorruptRecordError(str(e)) from e
        new = bytearray(b"".join(parts))
        new_headers = []
        pos = 0
        for part in parts:
            h = parse_header(new, pos)
            new_headers.append((pos, h))
            pos += len(part)
        if any(len(p) > self.config.max_message_bytes for p in parts):
            raise RecordTooLargeError("recompressed batch exceeds max.message.bytes")
        return new, new_headers

    def append_as_follower(self, records) -> LogAppendInfo:
        """Append batches replicated from the leader, keeping their offsets and epochs."""
        if self.closed:
            raise KafkaStorageError(f"log {self.dir} is closed")
        buf = records if isinstance(records, (bytes, bytearray)) else bytes(records)
        headers = self._validate(bytearray(buf) if not isinstance(buf, bytearray) else buf, False)
        now = self._now_ms()
        with self.lock:
            first = headers[0][1].base_offset
            if first < self._next_offset:
                raise InvalidRecordError(
                    f"follower append at {first} below log end offset {self._next_offset}")
            index_info = []
            max_ts = -1
            count = 0
            prev_next = first
            for pos, h in headers:
                if h.base_offset < prev_next:
                    raise InvalidRecordError("out of order offsets in follower append")
                index_info.append((pos, h.batch_length + 12, h.last_offset, h.max_timestamp))
                max_ts = max(max_ts, h.max_timestamp)
                count += h.records_count
                prev_next = h.last_offset + 1
            last = headers[-1][1].last_offset
            seg = self.active_segment
            if seg.should_roll(len(buf), max_ts, last, self.config.segment_bytes, self.config.segment_ms, now):
                seg = self._roll(first)
            seg.append([buf], index_info, len(buf))
            self._next_offset = last + 1
            for pos, h in headers:
                if h.partition_leader_epoch > self.leader_epoch_cache.latest_epoch:
                    self.leader_epoch_cache.assign(h.partition_leader_epoch, h.base_offset)
                if h.producer_id >= 0:
                    self._replay_batch(None, 0, h, data=bytes(buf[pos:pos + h.batch_length + 12])
                                       if h.attributes & CONTROL_MASK else None)
            self._after_append(count, now)
        return LogAppendInfo(first, last, max_ts, -1, self._log_start_offset, False, count, len(buf))

    def _after_append(self, count: int, now: int) -> None:
        self._unflushed += count
        if self._unflushed >= self.config.flush_messages:
            self.flush()

    def _roll(self, new_base: Optional[int] = None) -> LogSegment:
        """Close the active segment and start a new one at ``new_base`` (default LEO)."""
        with self.lock:
            new_base = self._next_offset if new_base is None else new_base
            old = self.active_segment
            if old.size == 0 and old.base_offset == new_base:
                return old
            old.on_become_inactive()
            if old.size == 0:  # an empty active segment at a lower base is replaced
                old.delete_files()
                self._segments.pop()
                self._bases.pop()
            else:
                self._flush_in_background(old, new_base)
            seg = self._new_segment(new_base, active=True)
            self._segments.append(seg)
            self._bases.append(new_base)
            self.producer_state.map_end_offset = self._next_offset
            try:
                self.producer_state.take_snapshot(new_base)
            except OSError as e:
                log.warning("producer snapshot at %d failed: %s", new_base, e)
            return seg

    def roll(self) -> LogSegment:
        return self._roll()

    def _flush_in_background(self, seg: LogSegment, up_to: int) -> None:
        """fsync a just-rolled segment off the event loop (as Kafka schedules it), then
        advance the recovery point to the new segment's base offset."""
        def work() -> None:
            try:
                seg.flush()
            except (OSError, ValueError) as e:  # deleted or closed meanwhile
                if not seg.deleted and not self.closed:
                    log.error("flush of rolled segment %s failed: %s", seg.log_path, e)
                return
            with self.lock:
                if up_to > self.recovery_point and not self.closed:
                    self.recovery_point = up_to
        self._pending_flush = _flush_executor().submit(work)

    def wait_for_background_flush(self, timeout: float = 60.0) -> None:
        fut = self._pending_flush
        if fut is not None:
            try:
                fut.result(timeout)
            except Exception:  # noqa: BLE001 - logged by the worker
                pass

    # ------------------------------------------------------------------ reads
    def collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int) -> list[tuple[int, int]]:
        """(producer id, first offset) of aborted transactions overlapping the range."""
        with self.lock:
            i = max(bisect.bisect_right(self._bases, start_offset) - 1, 0)
            out = []
            for seg in self._segments[i:]:
                for t in seg.txn_index.collect(start_offset, upper_bound_offset):
                    out.append((t.producer_id, t.first_offset))
            return out

    def read(self, offset: int, max_bytes: int, max_offset: Optional[int] = None,
             min_one_message: bool = True, fetch_aborted: bool = False) -> FetchDataInfo:
        """Whole batches from the batch holding ``offset``, below ``max_offset``, up to
        ``max_bytes`` (at least one batch when ``min_one_message``), from one segment.

        ``fetch_aborted`` (read_committed fetches, with ``max_offset`` = LSO) fills
        ``aborted_transactions`` with (producer id, first offset) pairs overlapping the
        returned range."""
        info = self._read(offset, max_bytes, max_offset, min_one_message)
        if fetch_aborted:
            # as Kafka: up to the end of the segment read from (cheap, a superset is harmless)
            with self.lock:
                i = bisect.bisect_right(self._bases, offset)
                upper = self._bases[i] if i < len(self._bases) else self._next_offset
            if max_offset is not None:
                upper = min(upper, max_offset)
            info.aborted_transactions = (self.collect_aborted_transactions(offset, upper)
                                         if info.records is not None else [])
        return info

    def _read(self, offset: int, max_bytes: int, max_offset: Optional[int],
              min_one_message: bool) -> FetchDataInfo:
        with self.lock:
            leo = self._next_offset
            if offset < self._log_start_offset or offset > leo:
                raise OffsetOutOfRangeError(
                    f"offset {offset} outside [{self._log_start_offset}, {leo}] of {self.topic}-{self.partition}")
            if offset == leo or (max_offset is not None and offset >= max_offset):
                return FetchDataInfo(None, offset)
            i = bisect.bisect_right(self._bases, offset) - 1
            segs = self._segments[max(i, 0):]
            return self._read_segments(segs, offset, max_bytes, max_offset, min_one_message)

    def _read_segments(self, segs, offset, max_bytes, max_offset, min_one_message) -> FetchDataInfo:
        for seg in segs:
            # seg.read takes a file position limit: the start of the batch holding max_offset.
            max_pos = None
            if max_offset is not None and max_offset < self._next_offset:
                bp = seg.translate_offset(max_offset)
                max_pos = bp.position if bp is not None else None
            sl = seg.read(offset, max_bytes, max_pos, min_one_message)
            if sl is not None:
                return FetchDataInfo(sl, offset)
            if max_pos is not None:
                break  # max_offset lies in this segment: nothing further is readable
        return FetchDataInfo(None, offset)

    def fetch_offset_by_timestamp(self, ts: int) -> Optional[tuple[int, int, int]]:
        """(offset, timestamp, leader epoch) of the first record with timestamp >= ``ts``;
        ``-2`` earliest, ``-1`` latest (LEO), ``-3`` the record with the max timestamp."""
        epochs = self.leader_epoch_cache
        if ts == EARLIEST_TIMESTAMP or ts == EARLIEST_LOCAL_TIMESTAMP:
            return self._log_start_offset, -1, epochs.epoch_for_offset(self._log_start_offset)
        if ts == LATEST_TIMESTAMP or ts == LATEST_TIERED_TIMESTAMP:
            return self._next_offset, -1, epochs.latest_epoch
        segs = self.segments
        if ts == MAX_TIMESTAMP:
            best = None
            for seg in segs:
                lt = seg.largest_timestamp
                if lt >= 0 and (best is None or lt > best.largest_timestamp):
                    best = seg
            if best is None:
                return None
            return best.find_offset_by_timestamp(best.largest_timestamp, self._log_start_offset)
        if ts < 0:
            return None
        for seg in segs:
            if seg.size and seg.largest_timestamp >= ts:
                found = seg.find_offset_by_timestamp(ts, self._log_start_offset)
                if found is not None:
                    return found
        return None

    # ------------------------------------------------------------------ truncation
    def truncate_to(self, offset: int) -> bool:
        """Remove everything at and above ``offset`` (follower catching up with its leader)."""
        with self.lock:
            if offset >= self._next_offset:
                return False
            if offset < self._segments[0].base_offset:
                self.truncate_fully_and_start_at(offset)
                return True
            self._log_start_offset = min(self._log_start_offset, offset)
            while len(self._segments) > 1 and self._bases[-1] >= offset:
                seg = self._segments.pop()
                self._bases.pop()
                seg.delete_files()
            seg = self.active_segment
            seg.truncate_to(offset)
            seg.make_active()
            # the end of the data that is left (Kafka would claim ``offset`` even when the
            # batch holding it went: followers only truncate at batch boundaries anyway)
            self._next_offset = seg.read_next_offset()
            self._after_truncation()
            return True

    def truncate_fully_and_start_at(self, offset: int) -> None:
        with self.lock:
            for seg in self._segments:
                seg.delete_files()
            self._segments = []
            self._bases = []
            seg = self._new_segment(offset, active=True)
            self._segments.append(seg)
            self._bases.append(offset)
            self._next_offset = offset
            self._log_start_offset = offset
            self.leader_epoch_cache.clear()
            self.producer_state.delete_snapshots_above(-1)
            self._after_truncation()

    def _after_truncation(self) -> None:
        leo = self._next_offset
        self._log_start_offset = min(self._log_start_offset, leo)
        self._high_watermark = min(self._high_watermark, leo)
        self.recovery_point = min(self.recovery_point, leo)
        self.leader_epoch_cache.truncate_from_end(leo)
        self._rebuild_producer_state(leo)

    def delete_records_before(self, offset: int) -> int:
        """Advance the log start offset to ``offset`` (DeleteRecords); returns the new start."""
        with self.lock:
            if offset > self._high_watermark:
                raise OffsetOutOfRangeError(
                    f"cannot move log start to {offset} above high watermark {self._high_watermark}")
            if offset > self._log_start_offset:
                self._log_start_offset = offset
                self.leader_epoch_cache.truncate_from_start(offset)
                self.producer_state.delete_snapshots_below(offset)
                self._delete_segments(self._segments_below_start())
            return self._log_start_offset

    def maybe_increment_log_start_offset(self, offset: int) -> None:
        if offset > self._log_start_offset:
            self._log_start_offset = min(offset, self._next_offset)
            self.leader_epoch_cache.truncate_from_start(self._log_start_offset)

    # ------------------------------------------------------------------ retention
    def _segments_below_start(self) -> list[LogSegment]:
        out = []
        for i, seg in enumerate(self._segments[:-1]):
            if self._bases[i + 1] <= self._log_start_offset:
                out.append(seg)
            else:
                break
        return out

    def _deletable(self, predicate) -> list[LogSegment]:
        """Leading segments matching ``predicate(seg, next_seg)`` wholly below the HW."""
        out = []
        segs = self._segments
        hw = self._high_watermark
        for i, seg in enumerate(segs):
            nxt = segs[i + 1] if i + 1 < len(segs) else None
            upper = nxt.base_offset if nxt is not None else self._next_offset
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

                    def by_size(s, n):
                        if diff[0] - s.size >= 0:
                            diff[0] -= s.size
                            return True
                        return False
                    deleted += self._delete_segments(self._deletable(by_size))
            deleted += self._delete_segments(self._deletable(
                lambda s, n: n is not None and n.base_offset <= self._log_start_offset))
            return deleted

    def _delete_segments(self, segs: list[LogSegment]) -> int:
        if not segs:
            return 0
        with self.lock:
            if len(segs) == len(self._segments):
                self._roll()
            now = self._now_ms()
            for seg in segs:
                idx = self._segments.index(seg)
                del self._segments[idx]
                del self._bases[idx]
                seg.release()
                try:
                    seg.rename_suffix("", DELETED_SUFFIX)
                except OSError as e:
                    log.warning("renaming %s for deletion failed: %s", seg.log_path, e)
                self._pending_deletes.append((now + self.config.file_delete_delay_ms, seg))
            new_start = self._segments[0].base_offset
            if new_start > self._log_start_offset:
                self._log_start_offset = new_start
                self.leader_epoch_cache.truncate_from_start(new_start)
                self.producer_state.delete_snapshots_below(new_start)
            if self._high_watermark < self._log_start_offset:
                self._high_watermark = self._log_start_offset
            return len(segs)

    def delete_pending_files(self, now_ms: Optional[int] = None, force: bool = False) -> int:
        """Unlink ``.deleted`` segments whose ``file.delete.delay.ms`` has passed."""
        now = self._now_ms() if now_ms is None else now_ms
        keep, n = [], 0
        for due, seg in self._pending_deletes:
            if force or due <= now:
                seg.delete_files()
                n += 1
            else:
                keep.append((due, seg))
        self._pending_deletes = keep
        return n

    # ------------------------------------------------------------------ flushing
    def flush(self, offset: Optional[int] = None) -> None:
        """fsync segments holding data below ``offset`` (default LEO); advance the recovery point."""
        with self.lock:
            target = self._next_offset if offset is None else offset
            if target <= self.recovery_point:
                return
            i = max(bisect.bisect_right(self._bases, self.recovery_point) - 1, 0)
            try:
                for seg in self._segments[i:]:
                    if seg.base_offset >= target:
                        break
                    seg.flush()
            except OSError as e:
                raise KafkaStorageError(f"flush of {self.dir} failed: {e}") from e
            self.recovery_point = target
            self._unflushed = 0
            self._last_flush_ms = self._now_ms()

    def maybe_flush(self, now_ms: int) -> None:
        if self.config.flush_ms < (1 << 62) and now_ms - self._last_flush_ms >= self.config.flush_ms:
            self.flush()
            self._last_flush_ms = now_ms

    def close(self) -> None:
        """Flush, snapshot producer state at the LEO, trim indexes, close files."""
        self.wait_for_background_flush()  # outside the lock: the flusher takes it
        with self.lock:
            if self.closed:
                return
            try:
                self.flush()
                self.producer_state.map_end_offset = self._next_offset
                self.producer_state.take_snapshot(self._next_offset)
            except (OSError, StorageError) as e:
                log.warning("flush on close of %s failed: %s", self.dir, e)
            for seg in self._segments:
                seg.close()
            self.delete_pending_files(force=True)
            self.closed = True

    def delete(self) -> None:
        """Remove the log and its directory (topic deleted)."""
        import shutil

        with self.lock:
            for seg in self._segments:
                seg.release()
            self.delete_pending_files(force=True)
            self._segments = []
            self._bases = []
            self.closed = True
            shutil.rmtree(self.dir, ignore_errors=True)

    # ------------------------------------------------------------------ cleaner support
    def replace_segments(self, new_segments: list[LogSegment], old_segments: list[LogSegment]) -> bool:
        """Swap cleaned segments (files already renamed to ``.swap``) for ``old_segments``.

        Runs under the lock; returns False (and the caller discards its files) if the
        old segments are no longer all in the log (retention or truncation won the race).
        """
        with self.lock:
            if self.closed or any(s not in self._segments for s in old_segments):
                return False
            if old_segments[-1] is self.active_segment:
                return False
            idx = self._segments.index(old_segments[0])
            now = self._now_ms()
            for s in old_segments:
                s.release()
                try:
                    s.rename_suffix("", DELETED_SUFFIX)
                except OSError as e:
                    log.warning("renaming %s failed: %s", s.log_path, e)
                self._pending_deletes.append((now + self.config.file_delete_delay_ms, s))
            for s in new_segments:
                s.rename_suffix(SWAP_SUFFIX, "")
            self._segments[idx:idx + len(old_segments)] = new_segments
            self._bases[idx:idx + len(old_segments)] = [s.base_offset for s in new_segments]
            return True

    def __repr__(self) -> str:
        return (f"Log({self.topic}-{self.partition}, start={self._log_start_offset}, "
                f"end={self._next_offset}, hw={self._high_watermark}, segments={len(self._segments)})")
