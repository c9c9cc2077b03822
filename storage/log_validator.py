"""What a record set must satisfy before it reaches the log, and its offsets (Kafka's
``LogValidator``, whose ``validateMessagesAndAssignOffsets`` also assigns them).

Every rule a batch of a Produce request, a coordinator write or a replicated fetch is
checked against is written here once: framing, magic, ``max.message.bytes``, CRC,
record count and offset range, control batches, producer sequence presence, keys of
compacted topics, timestamp bounds, ``segment.bytes`` for a whole request, increasing
offsets of replicated batches, and the conversions a leader makes (legacy
up-conversion, ``compression.type``, LogAppendTime). Producer-state rules (duplicates,
sequence continuity, fencing) are ``ProducerStateManager.check_append``'s.

It keeps nothing on disk, only settings derived from one ``LogConfig`` (the Log builds a
new validator when its config object changes). Who may call it: the owning Log, on its
thread, under the log's lock when it takes one (offsets are assigned from its LEO).
Headers stay the plain tuples ``HEADER_STRUCT`` unpacks, read by the field indexes
(``h[MAX_TIMESTAMP_FIELD]``) of ``kafpy.protocol.records``: one struct unpack per batch, no object
built, because this runs for every Produce.
"""

from __future__ import annotations

from typing import Callable, Optional

from crc32c import crc32c

from kafpy.protocol.batch_header import HeaderTuple
from kafpy.protocol.errors import CorruptRecord, ProtocolError
from kafpy.protocol.records import (
    ATTRIBUTES_FIELD,
    ATTRIBUTES_OFFSET,
    BASE_OFFSET_FIELD,
    BASE_TIMESTAMP_FIELD,
    BATCH_HEADER_SIZE,
    BATCH_LENGTH_FIELD,
    COMPRESSION_MASK,
    CONTROL_MASK,
    HEADER_STRUCT,
    LOG_OVERHEAD,
    MAGIC_OFFSET,
    MAX_TIMESTAMP_FIELD,
    MIN_BATCH_LENGTH,
    PREFIX_THROUGH_EPOCH,
    RECORDS_COUNT_FIELD,
    has_null_key,
    is_legacy,
    largest_record,
    recompress_batch,
    set_max_timestamp,
    upconvert_legacy,
)

from kafpy.storage.config import LONG_MAX, LogConfig
from kafpy.storage.errors import (
    CorruptRecordError,
    InvalidRecordError,
    RecordListTooLargeError,
    RecordTooLargeError,
    StorageError,
)
from kafpy.storage.record_errors import batch_record_errors

__all__ = ["LogValidator", "check_record_rules", "work_ahead"]

Buffer = bytes | bytearray | memoryview
MAX_RECORD_BODY = 2147483639   # max.decompressed.message.bytes' default and highest value
# (the error an append would raise, or None; the recompressed buffer, or None)
AheadOutcome = tuple[Optional[StorageError], Optional[bytes]]
# ``work_ahead``'s arguments after the records (``LogValidator.ahead_settings``)
AheadSettings = tuple[bool, Optional[int], int, str, Optional[tuple[int, int]], int, Optional[int], Optional[int]]
# ``validate_batch``'s answer: (pieces to write, last offset, header)
ValidatedBatch = tuple[list[Buffer], int, HeaderTuple]
# (position, size, last offset, max timestamp, header) of each batch ``validate`` checked
BatchEntry = tuple[int, int, int, int, HeaderTuple]
# ``validate``'s answer: (buffer, pieces, batches, first offset, last offset, max timestamp,
# record count, log append time or -1)
Validated = tuple[Buffer, list[Buffer], list[BatchEntry], int, int, int, int, int]

# The layout's structs as bound methods: one call each per batch. (A method called on a name
# imported with ``from ... import`` compiles, in CPython 3.11, to an attribute load that
# builds a bound method per call, ~35 ns more.)
_unpack_header = HEADER_STRUCT.unpack_from
_unpack_prefix = PREFIX_THROUGH_EPOCH.unpack_from
_pack_prefix = PREFIX_THROUGH_EPOCH.pack
_pack_prefix_into = PREFIX_THROUGH_EPOCH.pack_into

_CODECS = {"none": 0, "uncompressed": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


class LogValidator:
    """See the module docstring."""

    def __init__(self, config: LogConfig, clock_ms: Callable[[], int], topic_partition: str = ""):
        self.config = config
        self.topic_partition = topic_partition  # "<topic>-<partition>", named in record errors
        self._now_ms = clock_ms
        ct = config.compression_type.strip().lower()
        self.target_codec = None if ct == "producer" else _CODECS.get(ct)
        # compression.<codec>.level of the target codec (None: the codec's own default)
        self.target_level = {1: config.compression_gzip_level, 3: config.compression_lz4_level,
                             4: config.compression_zstd_level}.get(self.target_codec or 0)
        self.log_append_time = config.log_append_time
        self.compact = "compact" in config.cleanup_policy
        before, after = config.timestamp_bounds()
        self.ts_bounds = (before, after) if (before < LONG_MAX or after < LONG_MAX) else None
        self.max_message_bytes = config.max_message_bytes
        # max.decompressed.message.bytes below its default (no record body reaches that): the
        # records of a client's compressed batches are read for their sizes, as Kafka 4.4's are
        limit = config.max_decompressed_message_bytes
        self.record_body_limit = limit if limit < MAX_RECORD_BODY else None
        self.segment_bytes = config.segment_bytes
        self.batch_limit = min(self.max_message_bytes, self.segment_bytes)  # one compare per batch
        # whether a leader's append may need _convert's rules
        self.converts = (self.target_codec is not None or self.log_append_time or self.compact
                         or self.ts_bounds is not None or self.record_body_limit is not None)
        # (buffer, the StorageError found or None): check_ahead's outcome for that very buffer
        self._checked: tuple[Buffer, AheadOutcome] | None = None

    def records_to_decode(self, records: "Buffer") -> int:
        """How many records a client's append of ``records`` makes the leader decode: all of
        a compacted topic's (their keys), those of batches ``compression.type`` makes it
        recompress, and those of compressed batches when ``max.decompressed.message.bytes``
        bounds their sizes; 0 when none applies. Reads batch headers only; stops at the first
        that ``validate`` would refuse. The socket server's Produce path asks it to decide
        whether to do that work ahead (``work_ahead``)."""
        codec = self.target_codec
        sized = self.record_body_limit is not None
        if not self.compact and codec is None and not sized:
            return 0
        n = len(records)
        pos = 0
        total = 0
        while n - pos >= BATCH_HEADER_SIZE and records[pos + MAGIC_OFFSET] == 2:
            h = _unpack_header(records, pos)
            if h[BATCH_LENGTH_FIELD] < MIN_BATCH_LENGTH:
                break
            compression = h[ATTRIBUTES_FIELD] & COMPRESSION_MASK
            if self.compact or (codec is not None and compression != codec) or (sized and compression):
                total += max(h[RECORDS_COUNT_FIELD], 0)
            pos += h[BATCH_LENGTH_FIELD] + LOG_OVERHEAD
        return total

    def ahead_settings(self) -> AheadSettings:
        """The arguments of ``work_ahead`` after the records: (compacted, target codec,
        max.message.bytes, topic-partition, timestamp bounds or None, now in ms, level,
        record body limit or None)."""
        return (self.compact, self.target_codec, self.max_message_bytes, self.topic_partition,
                self.ts_bounds if not self.log_append_time else None, self._now_ms(), self.target_level,
                self.record_body_limit)

    def check_ahead(self, records: "Buffer") -> None:
        """``work_ahead`` here, its outcome kept (``keep_checked``)."""
        self.keep_checked(records, work_ahead(records, *self.ahead_settings()))

    def keep_checked(self, records: "Buffer", outcome: "AheadOutcome") -> None:
        """The outcome of ``work_ahead`` on ``records``, done before the append by a caller
        that must not hold the event loop doing it: the next append of this very buffer
        raises its error, or skips the key check and takes the recompressed batches."""
        self._checked = (records, outcome)

    def validate_batch(self, records: Buffer, from_client: bool, leader_epoch: Optional[int], next_offset: int,
                       pos: int = 0) -> Optional[ValidatedBatch]:
        """The rules for one batch, ``records`` being exactly that batch, and its offsets:
        the one place they are written. None when ``records`` is not one whole magic-2
        batch (the caller decides: ``validate`` reports framing and magic, upconverts
        legacy input); raises a ``StorageError`` for a broken rule.

        Checks max.message.bytes (and a leader's segment.bytes), CRC, and a client's rules (records, offset range, no
        control batches, sequence present); a replicated batch may be empty or have gaps.
        A leader's batch (``leader_epoch`` not None) gets ``next_offset`` and the epoch:
        packed in place in a writable buffer, or as a new 16-byte prefix plus a view of
        the rest. Returns (pieces to write, last offset, header tuple). ``pos`` only names
        the batch in messages. The Log calls it directly for a lone client batch when
        ``converts`` is false (the common Produce: no loop, no other call), and
        ``validate`` calls it for every batch.
        """
        n = len(records)
        if n < BATCH_HEADER_SIZE:
            return None
        h = _unpack_header(records, 0)
        (_, blen, _, magic, crc, attrs, lod, _, _, pid, _, bseq, records_count) = h
        if blen + LOG_OVERHEAD != n or magic != 2:
            return None
        if records_count < 0:
            raise CorruptRecordError(f"record batch at {pos} has length {blen}, {records_count} records")
        if from_client and h[BASE_OFFSET_FIELD] != 0:
            # Kafka's analyzeAndValidateRecords, before the size and the CRC: a client sends
            # its batches at base offset 0 (copying a fetched batch as-is is refused)
            raise InvalidRecordError(f"The baseOffset of the record batch in the append to {self.topic_partition} "
                                     f"should be 0, but it is {h[BASE_OFFSET_FIELD]}")
        if n > self.batch_limit:
            if n > self.max_message_bytes:
                raise RecordTooLargeError(
                    f"record batch of {n} bytes exceeds max.message.bytes {self.max_message_bytes}")
            if leader_epoch is not None:
                raise RecordListTooLargeError(f"{n} bytes exceed segment.bytes {self.segment_bytes}")
        view = memoryview(records)
        if crc32c(view[ATTRIBUTES_OFFSET:]) != crc:
            raise CorruptRecordError(f"record batch at {pos} is corrupt (CRC mismatch)")
        if from_client:
            if records_count <= 0:
                raise InvalidRecordError("record batch has no records")
            if lod != records_count - 1:
                raise InvalidRecordError("inconsistent batch offset range and record count")
            if attrs & CONTROL_MASK:
                raise InvalidRecordError("clients are not allowed to write control records")
            if bseq < 0 and pid >= 0:
                raise InvalidRecordError(f"invalid sequence {bseq} for producer {pid}")
        elif lod < 0:
            raise InvalidRecordError("negative last offset delta")
        if leader_epoch is None:
            return [records], h[BASE_OFFSET_FIELD] + lod, h
        if view.readonly:
            # a new prefix, then the batch from its magic byte on (where the prefix ends)
            return ([_pack_prefix(next_offset, blen, leader_epoch), view[MAGIC_OFFSET:]],
                    next_offset + lod, h)
        _pack_prefix_into(view, 0, next_offset, blen, leader_epoch)
        return [records], next_offset + lod, h

    def validate(self, records: Buffer, from_client: bool, leader_epoch: Optional[int], next_offset: int,
                 converted: bool = False) -> Validated:
        """Check ``records`` (any number of batches) and assign their offsets; raises a
        ``StorageError`` naming the broken rule.

        ``from_client``: a Produce from a client (Kafka's client rules apply).
        ``leader_epoch``: a leader's append, whose batches get offsets from
        ``next_offset`` on and this epoch; None: a follower's, whose batches keep
        theirs (and must increase). Returns (the buffer to write, the pieces to write
        it as, [(position, size, last offset, max timestamp, header)], first offset,
        last offset, max timestamp, records, log append time or -1).

        Each batch goes through ``validate_batch``; in a writable buffer the new base
        offset and epoch (outside the CRC) are packed in place, as Kafka does, so the
        request is never copied.
        """
        n = len(records)
        leader = leader_epoch is not None
        client_rules = from_client
        if leader and not converted and n > MAGIC_OFFSET and records[MAGIC_OFFSET] < 2 and is_legacy(records):
            try:
                records = upconvert_legacy(records)
            except ProtocolError as e:
                raise CorruptRecordError(str(e)) from e
            n = len(records)
            # Kafka applies a client's batch rules to magic 2 input only; the batches built
            # here keep the legacy offsets (any base) and meet the other rules by construction
            client_rules = False
        if n == 0:
            raise InvalidRecordError("empty record set")
        one = self.validate_batch
        view = memoryview(records)
        in_place = not leader or not view.readonly
        pieces: list[Buffer] = [records] if in_place else []
        batches: list[BatchEntry] = []
        offset = next_offset
        max_ts = -1
        count = 0
        pos = 0
        while pos < n:
            left = n - pos
            if left > MAGIC_OFFSET and records[pos + MAGIC_OFFSET] != 2:
                raise CorruptRecordError(f"unsupported record batch magic {records[pos + MAGIC_OFFSET]}")
            if left < BATCH_HEADER_SIZE:
                raise CorruptRecordError(f"{left} trailing bytes are not a record batch")
            blen = _unpack_prefix(records, pos)[BATCH_LENGTH_FIELD]
            if blen < MIN_BATCH_LENGTH:
                raise CorruptRecordError(f"record batch at {pos} has length {blen}")
            end = pos + blen + LOG_OVERHEAD
            if end > n:
                raise CorruptRecordError(f"record batch at {pos} claims {blen + LOG_OVERHEAD} bytes, {left} left")
            checked = one(view[pos:end], client_rules, leader_epoch, offset, pos)
            assert checked is not None  # framing and magic were checked just above
            part, last, h = checked
            if not leader:
                if h[BASE_OFFSET_FIELD] < offset and batches:
                    raise InvalidRecordError("out of order offsets in follower append")
            elif not in_place:
                pieces += part
            ts = h[MAX_TIMESTAMP_FIELD]
            batches.append((pos, end - pos, last, ts, h))
            if ts > max_ts:
                max_ts = ts
            count += h[RECORDS_COUNT_FIELD]
            offset = last + 1
            pos = end
        if leader and not converted:
            if self.converts:
                return self._convert(records, batches, from_client, leader_epoch, next_offset)
            if n > self.segment_bytes:
                raise RecordListTooLargeError(f"{n} bytes exceed segment.bytes {self.segment_bytes}")
        first = next_offset if leader else batches[0][4][BASE_OFFSET_FIELD]
        return records, pieces, batches, first, offset - 1, max_ts, count, -1

    def _convert(self, buf: Buffer, batches: list[BatchEntry], from_client: bool, leader_epoch: Optional[int],
                 next_offset: int) -> Validated:
        """The leader's rules that look inside batches or change them: keys of compacted
        topics, timestamp bounds, ``compression.type``, LogAppendTime; then ``validate``
        again on what is to be written."""
        pairs = [(b[0], b[4]) for b in batches]  # (position, header)
        ahead: Optional[AheadOutcome] = None
        checked = self._checked
        if checked is not None and checked[0] is buf and from_client:
            self._checked = None
            ahead = checked[1]
            if ahead[0] is not None:
                raise ahead[0]
        if from_client and self.record_body_limit is not None and ahead is None:
            error = record_body_error(buf, pairs, self.record_body_limit)
            if error is not None:
                raise error
        if from_client and (self.compact or (self.ts_bounds is not None and not self.log_append_time)):
            self._check_records(buf, pairs, keys_checked=ahead is not None)
        codec = self.target_codec
        if codec is not None and any(h[ATTRIBUTES_FIELD] & COMPRESSION_MASK != codec for _, h in pairs):
            if ahead is not None and ahead[1] is not None:
                buf = bytearray(ahead[1])
                pairs = [(pos, _unpack_header(buf, pos)) for pos in _batch_positions(buf)]
            else:
                buf, pairs = self._recompress(buf, pairs, codec)
        append_time = -1
        if self.log_append_time:
            buf, append_time = self._stamp_append_time(buf, pairs)
        if len(buf) > self.segment_bytes:
            raise RecordListTooLargeError(f"{len(buf)} bytes exceed segment.bytes {self.segment_bytes}")
        result = self.validate(buf, False, leader_epoch, next_offset, converted=True)
        return result[:-1] + (append_time,)

    def _check_records(self, buf: Buffer, batches: list[tuple[int, HeaderTuple]], keys_checked: bool = False) -> None:
        """``check_record_rules`` with this log's settings and clock (keys not again when
        ``work_ahead`` checked them)."""
        check_record_rules(buf, batches, self.topic_partition, self.compact,
                           self.ts_bounds if not self.log_append_time else None, self._now_ms(), keys_checked)

    def _recompress(self, buf: Buffer, batches: list[tuple[int, HeaderTuple]],
                    codec: int) -> tuple[bytearray, list[tuple[int, HeaderTuple]]]:
        parts: list[bytes] = []
        for pos, h in batches:
            if h[ATTRIBUTES_FIELD] & COMPRESSION_MASK == codec:
                parts.append(bytes(buf[pos:pos + h[BATCH_LENGTH_FIELD] + LOG_OVERHEAD]))
            else:
                try:
                    parts.append(recompress_batch(buf, pos, codec, level=self.target_level))
                except ProtocolError as e:
                    raise CorruptRecordError(str(e)) from e
        if any(len(p) > self.max_message_bytes for p in parts):
            raise RecordTooLargeError("recompressed batch exceeds max.message.bytes")
        new = bytearray(b"".join(parts))
        out: list[tuple[int, HeaderTuple]] = []
        pos = 0
        for part in parts:
            out.append((pos, _unpack_header(new, pos)))
            pos += len(part)
        return new, out

    def _stamp_append_time(self, buf: Buffer, pairs: list[tuple[int, HeaderTuple]]) -> tuple[bytearray, int]:
        """LogAppendTime: every batch's max timestamp becomes now (its CRC is redone)."""
        buf = buf if isinstance(buf, bytearray) else bytearray(buf)
        now = self._now_ms()
        try:
            for pos, _ in pairs:
                set_max_timestamp(buf, pos, now, 1)
        except CorruptRecord as e:
            raise CorruptRecordError(str(e)) from e
        return buf, now


def check_record_rules(buf: "Buffer", batches: list[tuple[int, tuple]], topic_partition: str, compact: bool,
                       ts_bounds: Optional[tuple[int, int]], now_ms: int, keys_checked: bool = False) -> None:
    """Keys of compacted topics (``compact``; not scanned again when ``keys_checked``) and
    timestamp bounds (``ts_bounds``, None for none), batch by batch as Kafka's validator goes: the cheap test first (``has_null_key``
    scans keys without building records; the header's first and largest timestamps, which
    bound its records), and only a batch that fails it is walked record by record for the
    RecordValidationError naming each record at fault (the first such batch's is raised)."""
    for pos, h in batches:
        failed = False
        if compact and not keys_checked:
            try:
                failed = has_null_key(buf, pos)
            except ProtocolError as e:
                raise CorruptRecordError(str(e)) from e
        if not failed and ts_bounds is not None:
            before, after = ts_bounds
            failed = any(ts >= 0 and (now_ms - ts > before or ts - now_ms > after)
                         for ts in (h[BASE_TIMESTAMP_FIELD], h[MAX_TIMESTAMP_FIELD]))
        if failed:
            error = batch_record_errors(buf, pos, topic_partition, compact, ts_bounds, now_ms)
            if error is not None:
                raise error


def record_body_error(buf: "Buffer", batches: list[tuple[int, tuple]], limit: int) -> Optional[StorageError]:
    """INVALID_RECORD for the first compressed batch holding a record body larger than
    ``limit`` (Kafka 4.4's answer, with no message), CORRUPT_MESSAGE for one that does not
    decompress; None when every record fits."""
    for pos, h in batches:
        if h[ATTRIBUTES_FIELD] & COMPRESSION_MASK:
            error = compressed_record_body_error(buf, pos, limit)
            if error is not None:
                return error
    return None


def compressed_record_body_error(buf: "Buffer", pos: int, limit: int) -> Optional[StorageError]:
    """``record_body_error`` for the one compressed batch at ``pos`` (the Produce check and
    the timestamp search of a segment share it)."""
    try:
        largest = largest_record(buf, pos)
    except ProtocolError as e:
        return CorruptRecordError(str(e))
    if largest > limit:
        return InvalidRecordError(f"Invalid record size: {largest} exceeds the configured maximum "
                                  f"record size of {limit}.")
    return None


def work_ahead(records: "Buffer", compact: bool, codec: Optional[int], max_message_bytes: int,
               topic_partition: str = "", ts_bounds: Optional[tuple[int, int]] = None,
               now_ms: int = 0, level: Optional[int] = None, record_body_limit: Optional[int] = None) -> AheadOutcome:
    """The work of a client's append that grows with its records, as ``_convert`` does it:
    a compacted topic's keys, checked with the timestamp bounds as ``check_record_rules``
    checks them (the error is the first batch at fault's, each of its records at fault
    listed), then the recompression to ``codec`` (None: none; at ``level``) of the batches not in it. A
    pure function of its arguments (``LogValidator.ahead_settings``), so a worker process
    can run it; the socket server's Produce path does, for batches of millions of records.
    ``record_body_limit`` (max.decompressed.message.bytes, None for none) is checked first."""
    pairs = [(pos, _unpack_header(records, pos)) for pos in _batch_positions(records)]   # one header scan for all
    if record_body_limit is not None:
        error = record_body_error(records, pairs, record_body_limit)
        if error is not None:
            return error, None
    if compact:
        try:
            check_record_rules(records, pairs, topic_partition, True, ts_bounds, now_ms)
        except StorageError as e:
            return e, None
    if codec is None or all(h[ATTRIBUTES_FIELD] & COMPRESSION_MASK == codec for _, h in pairs):
        return None, None
    parts = []
    for pos, h in pairs:
        if h[ATTRIBUTES_FIELD] & COMPRESSION_MASK == codec:
            parts.append(bytes(records[pos:pos + h[BATCH_LENGTH_FIELD] + LOG_OVERHEAD]))
        else:
            try:
                parts.append(recompress_batch(records, pos, codec, level=level))
            except ProtocolError as e:
                return CorruptRecordError(str(e)), None
    if any(len(p) > max_message_bytes for p in parts):
        return RecordTooLargeError("recompressed batch exceeds max.message.bytes"), None
    return None, b"".join(parts)


def _batch_positions(records: "Buffer") -> list[int]:
    """Where each whole magic-2 batch of ``records`` starts, up to the first that is not
    one (``validate`` reports that one)."""
    n = len(records)
    pos = 0
    out = []
    while n - pos >= BATCH_HEADER_SIZE and records[pos + MAGIC_OFFSET] == 2:
        blen = _unpack_prefix(records, pos)[BATCH_LENGTH_FIELD]
        if blen < MIN_BATCH_LENGTH or pos + blen + LOG_OVERHEAD > n:
            break
        out.append(pos)
        pos += blen + LOG_OVERHEAD
    return out
