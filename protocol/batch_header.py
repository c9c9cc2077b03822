"""The v2 record batch ("magic 2") as Kafka stores and sends it: layout, header, CRC.

The broker keeps batches as opaque bytes: on the Produce and Fetch paths only the
61-byte batch header is read (``parse_header``), the CRC-32C checked (``verify_crc``)
and the base offset / partition leader epoch rewritten in place. Nothing here touches
individual records. ``kafpy.protocol.records`` is the public face of this module and of the
decoder and builder.

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

This is the layout's one declaration: ``HEADER_FORMAT`` (the fields in order), the byte
offsets (``*_OFFSET``), the structs of the whole header and of its leading fields, and the
indexes of the fields in a header tuple (``h[MAX_TIMESTAMP_FIELD]``) all live here, and
``RecordBatchHeader`` names the same fields in the same order. Nothing else declares them.

Two ways to read a header, one per kind of caller. Most code takes a ``RecordBatchHeader``
(``parse_header``, ``iter_batches``) and reads its attributes. The per-batch hot paths
(Produce validation, the log's append, producer state, the follower's append) keep the
plain tuple ``HEADER_STRUCT.unpack_from`` returns and index it with the field constants:
a module constant index costs about a nanosecond more than a literal one, while building a
``RecordBatchHeader`` costs ~100 ns per batch and each attribute read ~4 ns more. They call
the structs' methods through module-level bound methods (``_unpack = HEADER_STRUCT.unpack_from``):
CPython 3.11 compiles a method call on a name bound by ``from ... import`` to an attribute
load that builds a bound method on every call (~35 ns).

Pure functions of their arguments (no module state): any thread may call them; the
in-place setters write only the batch they are given.
"""

from __future__ import annotations

import struct
from typing import Iterator, NamedTuple, Sequence

import crc32c as _crc32c_mod

from kafpy.protocol.errors import CorruptRecord

_crc32c = _crc32c_mod.crc32c

BATCH_HEADER_SIZE = 61
# base_offset + batch_length: the part of a batch that batch_length does not count.
LOG_OVERHEAD = 12
# Smallest legal batch_length: header bytes after the length field, no records.
MIN_BATCH_LENGTH = BATCH_HEADER_SIZE - LOG_OVERHEAD

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

# The 61 header bytes as struct codes, in RecordBatchHeader's field order.
HEADER_FORMAT = ">qiibIhiqqqhii"
HEADER_STRUCT = _HEADER = struct.Struct(HEADER_FORMAT)
assert _HEADER.size == BATCH_HEADER_SIZE
# a header as HEADER_STRUCT unpacks it (a RecordBatchHeader is one too)
HeaderTuple = tuple[int, ...]

# Indexes of the fields in a header tuple (HEADER_STRUCT's, or a RecordBatchHeader).
(BASE_OFFSET_FIELD, BATCH_LENGTH_FIELD, PARTITION_LEADER_EPOCH_FIELD, MAGIC_FIELD, CRC_FIELD, ATTRIBUTES_FIELD,
 LAST_OFFSET_DELTA_FIELD, BASE_TIMESTAMP_FIELD, MAX_TIMESTAMP_FIELD, PRODUCER_ID_FIELD, PRODUCER_EPOCH_FIELD,
 BASE_SEQUENCE_FIELD, RECORDS_COUNT_FIELD) = range(13)


def fields_struct(first: int, stop: int) -> struct.Struct:
    """The struct of the header fields ``first`` up to ``stop`` (field indexes), to unpack at
    the byte offset of ``first``. From ``BASE_OFFSET_FIELD`` its tuples index like a header's."""
    return struct.Struct(">" + HEADER_FORMAT[1 + first:1 + stop])


# base offset, batch length (LOG_OVERHEAD bytes): enough to step from batch to batch
OFFSET_AND_LENGTH = fields_struct(BASE_OFFSET_FIELD, BATCH_LENGTH_FIELD + 1)
# up to the partition leader epoch (16 bytes): what a leader assigns, outside the CRC
PREFIX_THROUGH_EPOCH = fields_struct(BASE_OFFSET_FIELD, PARTITION_LEADER_EPOCH_FIELD + 1)
# up to the last offset delta (27 bytes): a batch's offsets and size, as a segment scan needs
PREFIX_THROUGH_LAST_OFFSET_DELTA = fields_struct(BASE_OFFSET_FIELD, LAST_OFFSET_DELTA_FIELD + 1)
# producer id and epoch, at PRODUCER_ID_OFFSET: who wrote a transactional batch
PRODUCER_ID_AND_EPOCH = fields_struct(PRODUCER_ID_FIELD, PRODUCER_EPOCH_FIELD + 1)
# the low byte of the int16 attributes: compression codec and the flag bits (masks below)
ATTRIBUTES_LOW_BYTE_OFFSET = ATTRIBUTES_OFFSET + 1
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
    if h.batch_length < MIN_BATCH_LENGTH:
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
        if batch_length < MIN_BATCH_LENGTH:
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
    if batch_length < MIN_BATCH_LENGTH or pos + LOG_OVERHEAD + batch_length > len(buf):
        raise CorruptRecord(f"record batch at {pos} has bad length {batch_length}")
    _INT16.pack_into(buf, pos + ATTRIBUTES_OFFSET, attributes)
    _INT64.pack_into(buf, pos + MAX_TIMESTAMP_OFFSET, ts)
    _UINT32.pack_into(buf, pos + CRC_OFFSET, compute_crc(buf, pos, batch_length))


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


def pack_batch(
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
    """A whole batch around an already encoded (and compressed) records section, CRC set."""
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
