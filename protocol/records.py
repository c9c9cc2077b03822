"""Record batches, message format v2 ("magic 2"), as Kafka stores and sends them.

The broker keeps batches as opaque bytes: on the Produce and Fetch paths only the
61-byte batch header is read (``parse_header``), the CRC-32C checked (``verify_crc``)
and the base offset / partition leader epoch rewritten in place.  Nothing here touches
individual records on that path.  ``decode_batch`` / ``build_batch`` are for the places
that must see records (compaction, recompression, the group coordinator's own log,
tests and tools).

Batch layout (big endian; offsets from the batch start)::

     0 base_offset int64        17 crc uint32 (CRC-32C of bytes 21..end)
     8 batch_length int32       21 attributes int16
    12 partition_leader_epoch   23 last_offset_delta int32
    16 magic int8 (=2)          27 base_timestamp int64   35 max_timestamp int64
    43 producer_id int64        51 producer_epoch int16   53 base_sequence int32
    57 records_count int32      61 records (compressed as a whole when attributes say so)

``batch_length`` counts the bytes after itself, so a batch spans ``batch_length + 12``.
The partition leader epoch and base offset precede the CRC'd region, which is why the
broker may assign them without recomputing the checksum.

Legacy message sets (magic 0 and 1) are recognised by ``is_legacy`` and converted to
v2 batches by ``upconvert_legacy``: Kafka 3.x up-converts old produce requests when the
log's message format is v2, and we store only v2, so the broker does the same.

Everything here is a pure function of its arguments (no module state), so any thread
may call it; the in-place setters write only the batch they are given.
"""

from __future__ import annotations

import struct
import time
from typing import Iterable, Iterator, NamedTuple, Sequence

import crc32c as _crc32c_mod

from protocol.errors import CorruptRecord, UnsupportedCompression
from protocol.compression import (
    CODEC_NAMES,
    DEFAULT_MAX_DECOMPRESSED,
    NONE,
    compress,
    decompress,
)

__all__ = [
    "BATCH_HEADER_SIZE",
    "LOG_OVERHEAD",
    "RECORDS_OFFSET",
    "NO_TIMESTAMP",
    "NO_PRODUCER_ID",
    "NO_PRODUCER_EPOCH",
    "NO_SEQUENCE",
    "NO_PARTITION_LEADER_EPOCH",
    "COMPRESSION_MASK",
    "TIMESTAMP_TYPE_MASK",
    "TRANSACTIONAL_MASK",
    "CONTROL_MASK",
    "CONTROL_ABORT",
    "CONTROL_COMMIT",
    "RecordBatchHeader",
    "Record",
    "ControlRecord",
    "parse_header",
    "iter_batches",
    "verify_crc",
    "compute_crc",
    "set_base_offset",
    "set_partition_leader_epoch",
    "set_max_timestamp",
    "decode_batch",
    "decode_records",
    "build_batch",
    "build_control_batch",
    "parse_control_record",
    "recompress_batch",
    "compress",
    "decompress",
    "is_legacy",
    "upconvert_legacy",
]

_crc32c = _crc32c_mod.crc32c

BATCH_HEADER_SIZE = 61
# base_offset + batch_length: the part of a batch that batch_length does not count.
LOG_OVERHEAD = 12
# Smallest legal batch_length: header bytes after the length field, no records.
_MIN_BATCH_LENGTH = BATCH_HEADER_SIZE - LOG_OVERHEAD

BASE_OFFSET_OFFSET = 0
BATCH_LENGTH_OFFSET = 8
PARTITION_LEADER_EPOCH_OFFSET = 12
MAGIC_OFFSET = 16
CRC_OFFSET = 17
ATTRIBUTES_OFFSET = 21
LAST_OFFSET_DELTA_OFFSET = 23
BASE_TIMESTAMP_OFFSET = 27
MAX_TIMESTAMP_OFFSET = 35
PRODUCER_ID_OFFSET = 43
PRODUCER_EPOCH_OFFSET = 51
BASE_SEQUENCE_OFFSET = 53
RECORDS_COUNT_OFFSET = 57
RECORDS_OFFSET = 61

NO_TIMESTAMP = -1
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_PARTITION_LEADER_EPOCH = -1

COMPRESSION_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08
TRANSACTIONAL_MASK = 0x10
CONTROL_MASK = 0x20
DELETE_HORIZON_MASK = 0x40

CONTROL_ABORT = 0
CONTROL_COMMIT = 1

_HEADER = struct.Struct(">qiibIhiqqqhii")
assert _HEADER.size == BATCH_HEADER_SIZE
_LENGTH_AND_EPOCH_AND_MAGIC = struct.Struct(">iib")
_INT64 = struct.Struct(">q")
_INT32 = struct.Struct(">i")
_UINT32 = struct.Struct(">I")
_INT16 = struct.Struct(">h")


class RecordBatchHeader(NamedTuple):
    """The 61 fixed bytes at the front of a v2 batch, decoded (records untouched)."""

    base_offset: int
    batch_length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records_count: int

    @property
    def compression(self) -> int:
        return self.attributes & COMPRESSION_MASK

    @property
    def timestamp_type(self) -> int:
        return (self.attributes & TIMESTAMP_TYPE_MASK) >> 3

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_MASK)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL_MASK)

    @property
    def has_delete_horizon(self) -> bool:
        return bool(self.attributes & DELETE_HORIZON_MASK)

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    @property
    def total_size(self) -> int:
        return self.batch_length + LOG_OVERHEAD

    @property
    def last_sequence(self) -> int:
        """Sequence of the last record (wrapping at int32 as Kafka does); -1 if none."""
        if self.base_sequence == NO_SEQUENCE:
            return NO_SEQUENCE
        return (self.base_sequence + self.last_offset_delta) & 0x7FFFFFFF

    @property
    def is_idempotent(self) -> bool:
        return self.producer_id >= 0


_new_header = RecordBatchHeader._make


def parse_header(buf: bytes | bytearray | memoryview, pos: int = 0) -> RecordBatchHeader:
    """Decode the batch header at ``pos``; records are not looked at.

    Raises ``CorruptRecord`` when fewer than 61 bytes remain, the magic is not 2, the
    batch length is shorter than a header or the records count is negative.  Whether
    the whole batch is present is the caller's business (``iter_batches`` checks it).
    """
    if pos < 0 or len(buf) - pos < BATCH_HEADER_SIZE:
        if 0 <= pos and len(buf) - pos > MAGIC_OFFSET and buf[pos + MAGIC_OFFSET] != 2:
            raise CorruptRecord(f"unsupported record batch magic {buf[pos + MAGIC_OFFSET]}")
        raise CorruptRecord(
            f"record batch header needs {BATCH_HEADER_SIZE} bytes, {max(len(buf) - pos, 0)} left"
        )
    h = _new_header(_HEADER.unpack_from(buf, pos))
    if h.magic != 2:
        raise CorruptRecord(f"unsupported record batch magic {h.magic}")
    if h.batch_length < _MIN_BATCH_LENGTH:
        raise CorruptRecord(f"record batch length {h.batch_length} shorter than its header")
    if h.records_count < 0:
        raise CorruptRecord(f"negative record count {h.records_count}")
    return h


def iter_batches(
    buf: bytes | bytearray | memoryview, strict: bool = False
) -> Iterator[tuple[int, RecordBatchHeader]]:
    """Yield ``(position, header)`` for each whole batch in a records blob.

    A partial batch at the end (Kafka's fetch responses may end with one) is ignored,
    unless ``strict`` is true, when it raises ``CorruptRecord`` (what a Produce request
    or a log segment must never contain).  CRCs are not checked here.
    """
    end = len(buf)
    pos = 0
    unpack_len = _LENGTH_AND_EPOCH_AND_MAGIC.unpack_from
    while pos < end:
        remaining = end - pos
        if remaining < LOG_OVERHEAD:
            if strict:
                raise CorruptRecord(f"{remaining} trailing bytes, not a record batch")
            return
        if remaining >= MAGIC_OFFSET + 1:
            batch_length, _, magic = unpack_len(buf, pos + BATCH_LENGTH_OFFSET)
            if magic != 2:
                raise CorruptRecord(f"unsupported record batch magic {magic} at {pos}")
        else:
            batch_length = _INT32.unpack_from(buf, pos + BATCH_LENGTH_OFFSET)[0]
        if batch_length < _MIN_BATCH_LENGTH:
            raise CorruptRecord(f"record batch length {batch_length} at {pos} shorter than its header")
        size = batch_length + LOG_OVERHEAD
        if size > remaining:
            if strict:
                raise CorruptRecord(
                    f"record batch at {pos} claims {size} bytes, {remaining} left"
                )
            return
        yield pos, parse_header(buf, pos)
        pos += size


def compute_crc(buf: bytes | bytearray | memoryview, pos: int, batch_length: int) -> int:
    """CRC-32C of attributes..end of the batch at ``pos``."""
    return _crc32c(memoryview(buf)[pos + ATTRIBUTES_OFFSET : pos + LOG_OVERHEAD + batch_length])


def verify_crc(
    buf: bytes | bytearray | memoryview, pos: int, header: RecordBatchHeader | None = None
) -> None:
    """Raise ``CorruptRecord`` unless the stored CRC matches the batch at ``pos``."""
    if header is None:
        header = parse_header(buf, pos)
    end = pos + LOG_OVERHEAD + header.batch_length
    if end > len(buf):
        raise CorruptRecord(
            f"record batch at {pos} claims {header.batch_length + LOG_OVERHEAD} bytes, "
            f"{len(buf) - pos} left"
        )
    actual = _crc32c(memoryview(buf)[pos + ATTRIBUTES_OFFSET : end])
    if actual != header.crc:
        raise CorruptRecord(
            f"record batch at {pos} is corrupt (stored crc = {header.crc}, computed crc = {actual})"
        )


def set_base_offset(buf: bytearray | memoryview, pos: int, offset: int) -> None:
    """Assign the batch's base offset in place (outside the CRC)."""
    _INT64.pack_into(buf, pos + BASE_OFFSET_OFFSET, offset)


def set_partition_leader_epoch(buf: bytearray | memoryview, pos: int, epoch: int) -> None:
    """Stamp the partition leader epoch in place (outside the CRC)."""
    _INT32.pack_into(buf, pos + PARTITION_LEADER_EPOCH_OFFSET, epoch)


def set_max_timestamp(
    buf: bytearray | memoryview, pos: int, ts: int, timestamp_type: int
) -> None:
    """Rewrite max timestamp and timestamp type (LogAppendTime = 1), then the CRC.

    Like Kafka, the base timestamp and the records' deltas are left alone: consumers
    take every record's timestamp from ``max_timestamp`` when the type is LogAppendTime.
    """
    attributes = _INT16.unpack_from(buf, pos + ATTRIBUTES_OFFSET)[0]
    if timestamp_type:
        attributes |= TIMESTAMP_TYPE_MASK
    else:
        attributes &= ~TIMESTAMP_TYPE_MASK
    batch_length = _INT32.unpack_from(buf, pos + BATCH_LENGTH_OFFSET)[0]
    if batch_length < _MIN_BATCH_LENGTH or pos + LOG_OVERHEAD + batch_length > len(buf):
        raise CorruptRecord(f"record batch at {pos} has bad length {batch_length}")
    _INT16.pack_into(buf, pos + ATTRIBUTES_OFFSET, attributes)
    _INT64.pack_into(buf, pos + MAX_TIMESTAMP_OFFSET, ts)
    _UINT32.pack_into(buf, pos + CRC_OFFSET, compute_crc(buf, pos, batch_length))


# ----------------------------------------------------------------------------- records


class Record(NamedTuple):
    """One record of a v2 batch; offsets and timestamps are deltas from the batch's base."""

    offset_delta: int
    timestamp_delta: int
    key: bytes | None
    value: bytes | None
    headers: Sequence[tuple[str, bytes | None]] = ()
    attributes: int = 0

    def offset(self, header: RecordBatchHeader) -> int:
        return header.base_offset + self.offset_delta

    def timestamp(self, header: RecordBatchHeader) -> int:
        """The record's timestamp as a consumer sees it (LogAppendTime: the batch's)."""
        if header.attributes & TIMESTAMP_TYPE_MASK:
            return header.max_timestamp
        if header.base_timestamp == NO_TIMESTAMP and self.timestamp_delta == 0:
            return NO_TIMESTAMP
        return header.base_timestamp + self.timestamp_delta


_new_record = Record._make


def _varint_slow(data: bytes, pos: int) -> tuple[int, int]:
    """Zigzag varint/varlong starting at ``pos`` whose first byte has the high bit set."""
    result = data[pos] & 0x7F
    pos += 1
    shift = 7
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            result &= 0xFFFFFFFFFFFFFFFF  # a 10th byte's excess bits fall off, as in Java
            return (result >> 1) ^ -(result & 1), pos
        shift += 7
        if shift > 63:
            raise CorruptRecord("varint longer than 10 bytes")


def _decode_record_list(data: bytes, count: int) -> list[Record]:
    """Decode ``count`` records filling all of ``data`` (the batch's records section).

    Kafka's rules: each record's length must equal the bytes it spans, lengths and
    header counts must not be negative, and no bytes may remain after the last record.
    Varints of one and two bytes (nearly all of them) are decoded inline.
    """
    end = len(data)
    if count * 7 > end:  # a record takes at least 7 bytes
        raise CorruptRecord(f"{count} records cannot fit in {end} bytes")
    records: list[Record] = []
    append = records.append
    slow = _varint_slow
    new = tuple.__new__
    cls = Record
    pos = 0
    try:
        for _ in range(count):
            # length
            b = data[pos]
            if b < 0x80:
                length = (b >> 1) ^ -(b & 1)
                pos += 1
            elif data[pos + 1] < 0x80:
                z = (b & 0x7F) | (data[pos + 1] << 7)
                length = (z >> 1) ^ -(z & 1)
                pos += 2
            else:
                length, pos = slow(data, pos)
            record_end = pos + length
            if length < 6 or record_end > end:
                raise CorruptRecord(f"invalid record length {length}")
            attributes = data[pos]
            # timestamp delta
            b = data[pos + 1]
            if b < 0x80:
                ts_delta = (b >> 1) ^ -(b & 1)
                pos += 2
            else:
                ts_delta, pos = slow(data, pos + 1)
            # offset delta
            b = data[pos]
            if b < 0x80:
                off_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            elif data[pos + 1] < 0x80:
                z = (b & 0x7F) | (data[pos + 1] << 7)
                off_delta = (z >> 1) ^ -(z & 1)
                pos += 2
            else:
                off_delta, pos = slow(data, pos)
            # key
            b = data[pos]
            if b < 0x80:
                n = (b >> 1) ^ -(b & 1)
                pos += 1
            elif data[pos + 1] < 0x80:
                z = (b & 0x7F) | (data[pos + 1] << 7)
                n = (z >> 1) ^ -(z & 1)
                pos += 2
            else:
                n, pos = slow(data, pos)
            if n < 0:
                if n != -1:
                    raise CorruptRecord(f"invalid record key length {n}")
                key = None
            else:
                if n > record_end - pos:
                    raise CorruptRecord("record key runs past its record")
                key = data[pos : pos + n]
                pos += n
            # value
            b = data[pos]
            if b < 0x80:
                n = (b >> 1) ^ -(b & 1)
                pos += 1
            elif data[pos + 1] < 0x80:
                z = (b & 0x7F) | (data[pos + 1] << 7)
                n = (z >> 1) ^ -(z & 1)
                pos += 2
            else:
                n, pos = slow(data, pos)
            if n < 0:
                if n != -1:
                    raise CorruptRecord(f"invalid record value length {n}")
                value = None
            else:
                if n > record_end - pos:
                    raise CorruptRecord("record value runs past its record")
                value = data[pos : pos + n]
                pos += n
            # headers
            if data[pos] == 0:
                headers: list = []
                pos += 1
            else:
                headers, pos = _decode_headers(data, pos, record_end)
            if pos != record_end:
                raise CorruptRecord(
                    f"record claims {length} bytes but its fields span {length + pos - record_end}"
                )
            append(new(cls, (off_delta, ts_delta, key, value, headers, attributes)))
    except IndexError:
        raise CorruptRecord("records end in the middle of a record") from None
    if pos != end:
        raise CorruptRecord(
            f"incorrect declared batch size: {end - pos} bytes remain after {count} records"
        )
    return records


def _decode_headers(data: bytes, pos: int, record_end: int) -> tuple[list, int]:
    n_headers, pos = _varint(data, pos)
    if n_headers < 0 or n_headers * 2 > record_end - pos:
        raise CorruptRecord(f"invalid record header count {n_headers}")
    headers = []
    for _ in range(n_headers):
        n, pos = _varint(data, pos)
        if n < 0 or n > record_end - pos:
            raise CorruptRecord(f"invalid record header key length {n}")
        # Kafka accepts any bytes here (Java decodes leniently); surrogateescape keeps
        # them, so build_batch writes back exactly what was read.
        hkey = data[pos : pos + n].decode("utf-8", "surrogateescape")
        pos += n
        n, pos = _varint(data, pos)
        if n < 0:
            if n != -1:
                raise CorruptRecord(f"invalid record header value length {n}")
            hval = None
        else:
            if n > record_end - pos:
                raise CorruptRecord("record header value runs past its record")
            hval = data[pos : pos + n]
            pos += n
        headers.append((hkey, hval))
    return headers, pos


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    b = data[pos]
    if b < 0x80:
        return (b >> 1) ^ -(b & 1), pos + 1
    return _varint_slow(data, pos)


def _check_record_framing(data: bytes, count: int) -> None:
    """Walk record lengths only: ``count`` records must fill ``data`` exactly."""
    end = len(data)
    if count * 7 > end:
        raise CorruptRecord(f"{count} records cannot fit in {end} bytes")
    pos = 0
    try:
        for _ in range(count):
            b = data[pos]
            if b < 0x80:
                length = (b >> 1) ^ -(b & 1)
                pos += 1
            elif data[pos + 1] < 0x80:
                z = (b & 0x7F) | (data[pos + 1] << 7)
                length = (z >> 1) ^ -(z & 1)
                pos += 2
            else:
                length, pos = _varint_slow(data, pos)
            if length < 6 or length > end - pos:
                raise CorruptRecord(f"invalid record length {length}")
            pos += length
    except IndexError:
        raise CorruptRecord("records end in the middle of a record") from None
    if pos != end:
        raise CorruptRecord(
            f"incorrect declared batch size: {end - pos} bytes remain after {count} records"
        )


def _batch_records_bytes(
    buf, pos: int, header: RecordBatchHeader, verify: bool, max_size: int
) -> bytes:
    end = pos + LOG_OVERHEAD + header.batch_length
    if end > len(buf):
        raise CorruptRecord(
            f"record batch at {pos} claims {header.batch_length + LOG_OVERHEAD} bytes, "
            f"{len(buf) - pos} left"
        )
    if verify:
        verify_crc(buf, pos, header)
    section = memoryview(buf)[pos + RECORDS_OFFSET : end]
    return decompress(header.attributes & COMPRESSION_MASK, section, max_size)


def decode_records(
    buf: bytes | bytearray | memoryview,
    pos: int = 0,
    header: RecordBatchHeader | None = None,
    *,
    verify: bool = True,
    max_size: int = DEFAULT_MAX_DECOMPRESSED,
) -> list[Record]:
    """The records of the batch at ``pos`` (decompressed); see ``decode_batch``."""
    if header is None:
        header = parse_header(buf, pos)
    if header.records_count == 0 and header.batch_length == _MIN_BATCH_LENGTH:
        # an empty batch (kept by compaction for producer state) has no stream at all
        if verify:
            verify_crc(buf, pos, header)
        return []
    data = _batch_records_bytes(buf, pos, header, verify, max_size)
    return _decode_record_list(data, header.records_count)


def decode_batch(
    buf: bytes | bytearray | memoryview,
    pos: int = 0,
    *,
    verify: bool = True,
    max_size: int = DEFAULT_MAX_DECOMPRESSED,
) -> tuple[RecordBatchHeader, list[Record]]:
    """Header and records of the batch at ``pos``, decompressing as needed.

    ``verify`` checks the CRC first; ``max_size`` bounds the decompressed records.
    Raises ``CorruptRecord`` / ``UnsupportedCompression`` (both ``ProtocolError``).
    """
    header = parse_header(buf, pos)
    return header, decode_records(buf, pos, header, verify=verify, max_size=max_size)


# ----------------------------------------------------------------------------- building

_ZZ_CACHE_LOW = -64
_ZZ_CACHE_HIGH = 16384


def _encode_varint_uncached(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    if z < 0:
        raise ValueError(f"{n} does not fit a varlong")
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


_ZZ_CACHE = tuple(_encode_varint_uncached(n) for n in range(_ZZ_CACHE_LOW, _ZZ_CACHE_HIGH))


def _encode_varint(n: int) -> bytes:
    if _ZZ_CACHE_LOW <= n < _ZZ_CACHE_HIGH:
        return _ZZ_CACHE[n - _ZZ_CACHE_LOW]
    return _encode_varint_uncached(n)


def _encode_record(
    attributes: int,
    ts_delta: int,
    off_delta: int,
    key,
    value,
    headers,
) -> bytes:
    zz = _encode_varint
    parts = [bytes((attributes,)), zz(ts_delta), zz(off_delta)]
    if key is None:
        parts.append(b"\x01")
    else:
        parts.append(zz(len(key)))
        parts.append(key)
    if value is None:
        parts.append(b"\x01")
    else:
        parts.append(zz(len(value)))
        parts.append(value)
    if headers:
        parts.append(zz(len(headers)))
        for hkey, hval in headers:
            kb = hkey.encode("utf-8", "surrogateescape") if isinstance(hkey, str) else bytes(hkey)
            parts.append(zz(len(kb)))
            parts.append(kb)
            if hval is None:
                parts.append(b"\x01")
            else:
                parts.append(zz(len(hval)))
                parts.append(hval)
    else:
        parts.append(b"\x00")
    body = b"".join(parts)
    return zz(len(body)) + body


def _now_ms() -> int:
    return int(time.time() * 1000)


def _pack_batch(
    records_section: bytes,
    *,
    base_offset: int,
    partition_leader_epoch: int,
    attributes: int,
    last_offset_delta: int,
    base_timestamp: int,
    max_timestamp: int,
    producer_id: int,
    producer_epoch: int,
    base_sequence: int,
    records_count: int,
) -> bytes:
    out = bytearray(BATCH_HEADER_SIZE + len(records_section))
    batch_length = len(out) - LOG_OVERHEAD
    _HEADER.pack_into(
        out, 0, base_offset, batch_length, partition_leader_epoch, 2, 0, attributes,
        last_offset_delta, base_timestamp, max_timestamp, producer_id, producer_epoch,
        base_sequence, records_count,
    )
    out[RECORDS_OFFSET:] = records_section
    _UINT32.pack_into(out, CRC_OFFSET, _crc32c(memoryview(out)[ATTRIBUTES_OFFSET:]))
    return bytes(out)


def build_batch(
    records: Iterable,
    *,
    base_offset: int = 0,
    compression: int = NONE,
    producer_id: int = NO_PRODUCER_ID,
    producer_epoch: int = NO_PRODUCER_EPOCH,
    base_sequence: int = NO_SEQUENCE,
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
    timestamp_type: int = 0,
    is_transactional: bool = False,
    is_control: bool = False,
    base_timestamp: int | None = None,
    max_timestamp: int | None = None,
    last_offset_delta: int | None = None,
    compression_level: int | None = None,
) -> bytes:
    """Build one v2 batch (bytes, CRC set).

    ``records`` items are either ``Record`` (deltas used as given, relative to
    ``base_timestamp``, which then defaults to now) or tuples ``(key, value)``,
    ``(key, value, headers)`` or ``(key, value, headers, timestamp_ms)`` that get
    offset deltas 0, 1, ... and absolute timestamps (default: ``base_timestamp`` or
    now).  Without ``base_timestamp`` the first record's timestamp is the base, as in
    Kafka's builder.  ``last_offset_delta`` matters only for an empty batch, which is
    always written uncompressed.
    """
    items = list(records)
    encoded = []
    timestamps: list[int] = []
    off_deltas: list[int] = []
    if items and isinstance(items[0], Record):
        if base_timestamp is None:
            base_timestamp = _now_ms()
        for rec in items:
            if not isinstance(rec, Record):
                raise TypeError("records must be all Record or all tuples")
            encoded.append(
                _encode_record(rec.attributes, rec.timestamp_delta, rec.offset_delta,
                               rec.key, rec.value, rec.headers)
            )
            timestamps.append(base_timestamp + rec.timestamp_delta)
            off_deltas.append(rec.offset_delta)
    else:
        absolute: list[int] = []
        default_ts = base_timestamp
        for rec in items:
            if isinstance(rec, Record):
                raise TypeError("records must be all Record or all tuples")
            ts = rec[3] if len(rec) > 3 else None
            if ts is None:
                if default_ts is None:
                    default_ts = _now_ms()
                ts = default_ts
            absolute.append(ts)
        if base_timestamp is None:
            base_timestamp = absolute[0] if absolute else _now_ms()
        for i, rec in enumerate(items):
            headers = rec[2] if len(rec) > 2 else ()
            encoded.append(
                _encode_record(0, absolute[i] - base_timestamp, i, rec[0], rec[1], headers)
            )
            off_deltas.append(i)
        timestamps = absolute
    if max_timestamp is None:
        max_timestamp = max(timestamps) if timestamps else base_timestamp
    if last_offset_delta is None:
        last_offset_delta = off_deltas[-1] if off_deltas else 0
    raw = b"".join(encoded)
    if not items:
        # Kafka writes record-less batches (compaction keeps them for producer state)
        # uncompressed: there is no stream to compress, and readers expect none.
        compression = NONE
    section = compress(compression, raw, compression_level) if compression else raw
    attributes = compression & COMPRESSION_MASK
    if timestamp_type:
        attributes |= TIMESTAMP_TYPE_MASK
    if is_transactional:
        attributes |= TRANSACTIONAL_MASK
    if is_control:
        attributes |= CONTROL_MASK
    return _pack_batch(
        section,
        base_offset=base_offset,
        partition_leader_epoch=partition_leader_epoch,
        attributes=attributes,
        last_offset_delta=last_offset_delta,
        base_timestamp=base_timestamp,
        max_timestamp=max_timestamp,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=base_sequence,
        records_count=len(items),
    )


# ---------------------------------------------------------------------- control batches


class ControlRecord(NamedTuple):
    """A transaction marker: key (version, type), value (version, coordinator epoch)."""

    version: int
    type: int  # CONTROL_ABORT or CONTROL_COMMIT
    coordinator_epoch: int


_CONTROL_KEY = struct.Struct(">hh")
_END_TXN_VALUE = struct.Struct(">hi")


def build_control_batch(
    control_type: int,
    *,
    producer_id: int,
    producer_epoch: int,
    coordinator_epoch: int = 0,
    base_offset: int = 0,
    timestamp: int | None = None,
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
) -> bytes:
    """A transactional control batch holding one COMMIT or ABORT marker."""
    if timestamp is None:
        timestamp = _now_ms()
    key = _CONTROL_KEY.pack(0, control_type)
    value = _END_TXN_VALUE.pack(0, coordinator_epoch)
    return build_batch(
        [(key, value, (), timestamp)],
        base_offset=base_offset,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        partition_leader_epoch=partition_leader_epoch,
        is_transactional=True,
        is_control=True,
    )


def parse_control_record(record: Record) -> ControlRecord:
    """Decode the marker in a control batch's record (``CorruptRecord`` if malformed)."""
    key = record.key
    if key is None or len(key) < 4:
        raise CorruptRecord("control record key shorter than 4 bytes")
    version, control_type = _CONTROL_KEY.unpack_from(key)
    coordinator_epoch = -1
    value = record.value
    if control_type in (CONTROL_ABORT, CONTROL_COMMIT):
        if value is None or len(value) < 6:
            raise CorruptRecord("transaction marker value shorter than 6 bytes")
        coordinator_epoch = _END_TXN_VALUE.unpack_from(value)[1]
    return ControlRecord(version, control_type, coordinator_epoch)


# ------------------------------------------------------------------------ recompression


def recompress_batch(
    buf: bytes | bytearray | memoryview,
    pos: int,
    codec: int,
    *,
    max_size: int = DEFAULT_MAX_DECOMPRESSED,
    level: int | None = None,
) -> bytes:
    """The batch at ``pos`` with its records recompressed with ``codec``.

    Every header field (base offset, leader epoch, timestamps, producer id / epoch,
    base sequence, transactional and control flags) is kept; only the compression
    bits, the length and the CRC change.  The CRC is checked first and the record
    framing walked, so a bad batch raises ``CorruptRecord`` rather than being
    re-wrapped under a fresh, valid CRC.
    """
    if codec not in CODEC_NAMES:
        raise UnsupportedCompression(f"unknown compression codec id {codec}")
    header = parse_header(buf, pos)
    raw = _batch_records_bytes(buf, pos, header, True, max_size)
    _check_record_framing(raw, header.records_count)
    section = compress(codec, raw, level) if codec else raw
    return _pack_batch(
        section,
        base_offset=header.base_offset,
        partition_leader_epoch=header.partition_leader_epoch,
        attributes=(header.attributes & ~COMPRESSION_MASK) | codec,
        last_offset_delta=header.last_offset_delta,
        base_timestamp=header.base_timestamp,
        max_timestamp=header.max_timestamp,
        producer_id=header.producer_id,
        producer_epoch=header.producer_epoch,
        base_sequence=header.base_sequence,
        records_count=header.records_count,
    )


# ------------------------------------------------------------------------------ legacy


def is_legacy(buf: bytes | bytearray | memoryview, pos: int = 0) -> bool:
    """True if the data at ``pos`` is an old message set (magic 0 or 1)."""
    return len(buf) - pos > MAGIC_OFFSET and buf[pos + MAGIC_OFFSET] in (0, 1)


def upconvert_legacy(buf: bytes | bytearray | memoryview, strict: bool = True) -> bytes:
    """Convert a magic 0/1 message set to v2 batches (see ``protocol.legacy``)."""
    from protocol.legacy import upconvert_legacy as _upconvert

    return _upconvert(buf, strict=strict)
