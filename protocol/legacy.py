"""Legacy message sets (magic 0 and 1) and their up-conversion to v2 batches.

Clients older than Kafka 0.11 (or configured for Produce v0-v2) send message sets::

    offset int64, message_size int32, then the message:
    crc uint32 (zlib CRC-32 of magic..end), magic int8, attributes int8,
    timestamp int64 (magic 1 only), key bytes (int32 length, -1 = null), value bytes

A compressed message is a wrapper whose value is a compressed message set of inner
messages.  In magic 1 the inner offsets are relative and the wrapper carries the
absolute offset of the last inner message; in magic 0 the inner offsets are absolute.

We store only v2.  Kafka 3.x up-converts old produce data when the log's message
format is v2 (Kafka 4 refuses Produce v0-2 altogether); we choose to up-convert, so old
clients keep working: ``upconvert_legacy`` turns each compressed wrapper into one v2
batch compressed with the same codec, and each run of uncompressed messages into one
uncompressed v2 batch.  Magic 0 messages have no timestamp and become records with
timestamp -1 (NO_TIMESTAMP), as in Kafka.  Nothing here is on the v2 hot path.
"""

from __future__ import annotations

import struct
import zlib
from typing import Iterator, NamedTuple

from kafpy.protocol.compression import DEFAULT_MAX_DECOMPRESSED, GZIP, LZ4, NONE, SNAPPY, decompress
from kafpy.protocol.errors import CorruptRecord, UnsupportedCompression
from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.batch_header import LOG_OVERHEAD, NO_TIMESTAMP, TIMESTAMP_TYPE_MASK, Record

__all__ = ["LegacyMessage", "iter_legacy_messages", "upconvert_legacy"]

_ENTRY = struct.Struct(">qi")  # offset, message_size
_V0 = struct.Struct(">Ibb")  # crc, magic, attributes
_V1 = struct.Struct(">Ibbq")  # crc, magic, attributes, timestamp
_INT32 = struct.Struct(">i")

_MIN_SIZE = {0: 14, 1: 22}  # crc + magic + attributes (+ timestamp) + two lengths
_LEGACY_CODECS = (NONE, GZIP, SNAPPY, LZ4)


class LegacyMessage(NamedTuple):
    """One message of a magic 0/1 set, after unwrapping compression."""

    offset: int
    magic: int
    attributes: int
    timestamp: int  # -1 for magic 0
    key: bytes | None
    value: bytes | None

    @property
    def compression(self) -> int:
        return self.attributes & 0x07

    @property
    def timestamp_type(self) -> int:
        return (self.attributes & TIMESTAMP_TYPE_MASK) >> 3


def _read_bytes(buf: bytes, pos: int, end: int) -> tuple[bytes | None, int]:
    if end - pos < 4:
        raise CorruptRecord("legacy message ends inside a length field")
    n = _INT32.unpack_from(buf, pos)[0]
    pos += 4
    if n < 0:
        if n != -1:
            raise CorruptRecord(f"invalid legacy message field length {n}")
        return None, pos
    if n > end - pos:
        raise CorruptRecord("legacy message field runs past its message")
    return buf[pos : pos + n], pos + n


def _shallow(buf: bytes, strict: bool) -> Iterator[LegacyMessage]:
    """The top-level messages of a set, CRC-checked, compression not undone."""
    end = len(buf)
    pos = 0
    while pos < end:
        if end - pos < LOG_OVERHEAD:
            if strict:
                raise CorruptRecord(f"{end - pos} trailing bytes, not a legacy message")
            return
        offset, size = _ENTRY.unpack_from(buf, pos)
        if size < _MIN_SIZE[0]:
            raise CorruptRecord(f"legacy message size {size} too small")
        start = pos + LOG_OVERHEAD
        stop = start + size
        if stop > end:
            if strict:
                raise CorruptRecord(f"legacy message at {pos} claims {size} bytes, {end - start} left")
            return
        magic = buf[start + 4]
        if magic == 0:
            crc, magic, attributes = _V0.unpack_from(buf, start)
            timestamp = NO_TIMESTAMP
            p = start + 6
        elif magic == 1:
            if size < _MIN_SIZE[1]:
                raise CorruptRecord(f"legacy message size {size} too small for magic 1")
            crc, magic, attributes, timestamp = _V1.unpack_from(buf, start)
            p = start + 14
        else:
            raise CorruptRecord(f"unexpected magic {magic} in a legacy message set")
        actual = zlib.crc32(memoryview(buf)[start + 4 : stop])
        if actual != crc:
            raise CorruptRecord(
                f"legacy message at {pos} is corrupt (stored crc = {crc}, computed crc = {actual})"
            )
        key, p = _read_bytes(buf, p, stop)
        value, p = _read_bytes(buf, p, stop)
        if p != stop:
            raise CorruptRecord(f"legacy message at {pos} has {stop - p} stray bytes")
        yield LegacyMessage(offset, magic, attributes, timestamp, key, value)
        pos = stop


def _inner(wrapper: LegacyMessage, max_size: int) -> list[LegacyMessage]:
    codec = wrapper.compression
    if codec not in _LEGACY_CODECS:
        raise UnsupportedCompression(f"compression codec {codec} not allowed with magic {wrapper.magic}")
    if wrapper.value is None:
        raise CorruptRecord("compressed legacy message has a null value")
    data = decompress(codec, wrapper.value, max_size)
    inner = list(_shallow(data, strict=True))
    if not inner:
        raise CorruptRecord("compressed legacy message holds no messages")
    for m in inner:
        if m.compression != NONE:
            raise CorruptRecord("compressed legacy message nests another compressed message")
        if m.magic != wrapper.magic:
            raise CorruptRecord("inner and wrapper legacy message magic differ")
    if wrapper.magic == 1:
        last = inner[-1].offset
        if wrapper.offset - last + inner[0].offset < 0:
            # a producer's wrapper offset (often 0): keep the relative offsets
            last = wrapper.offset
        log_append = wrapper.attributes & TIMESTAMP_TYPE_MASK
        inner = [
            m._replace(
                offset=wrapper.offset - last + m.offset,
                timestamp=wrapper.timestamp if log_append else m.timestamp,
                attributes=m.attributes | (wrapper.attributes & TIMESTAMP_TYPE_MASK),
            )
            for m in inner
        ]
    return inner


def iter_legacy_messages(
    buf: bytes | bytearray | memoryview,
    strict: bool = True,
    max_size: int = DEFAULT_MAX_DECOMPRESSED,
) -> Iterator[tuple[LegacyMessage, int, list[LegacyMessage]]]:
    """Yield ``(shallow_message, codec, deep_messages)`` for each top-level message.

    For an uncompressed message, ``deep_messages`` is ``[shallow_message]``.
    """
    data = bytes(buf)
    for m in _shallow(data, strict):
        codec = m.compression
        if codec == NONE:
            yield m, NONE, [m]
        else:
            yield m, codec, _inner(m, max_size)


def _to_batch(messages: list[LegacyMessage], codec: int) -> bytes:
    offsets = [m.offset for m in messages]
    base = offsets[0]
    deltas = [o - base for o in offsets]
    if (any(b <= a for a, b in zip(deltas, deltas[1:])) or deltas[-1] > 0x7FFFFFFF
            or not -(1 << 63) <= base <= (1 << 63) - 1):
        # producers may send all-zero offsets; the broker assigns real ones anyway
        base = 0 if not -(1 << 63) <= base <= (1 << 63) - 1 else base
        deltas = list(range(len(messages)))
    timestamp_type = 1 if messages[-1].attributes & TIMESTAMP_TYPE_MASK else 0
    timestamps = [m.timestamp for m in messages]
    for ts in timestamps:
        if ts < NO_TIMESTAMP:
            raise CorruptRecord(f"invalid legacy message timestamp {ts}")
    base_ts = timestamps[0]
    records = [
        Record(d, ts - base_ts, m.key, m.value, [], 0)
        for d, ts, m in zip(deltas, timestamps, messages)
    ]
    known = [t for t in timestamps if t != NO_TIMESTAMP]
    return build_batch(
        records,
        base_offset=base,
        compression=codec,
        timestamp_type=timestamp_type,
        base_timestamp=base_ts,
        max_timestamp=max(known) if known else NO_TIMESTAMP,
    )


def upconvert_legacy(
    buf: bytes | bytearray | memoryview,
    strict: bool = True,
    max_size: int = DEFAULT_MAX_DECOMPRESSED,
) -> bytes:
    """Convert a magic 0/1 message set to v2 batches (concatenated bytes).

    Raises ``CorruptRecord`` (bad CRC, sizes, nesting; a partial trailing message when
    ``strict``) or ``UnsupportedCompression`` (zstd or unknown codec in magic 0/1).
    """
    out: list[bytes] = []
    run: list[LegacyMessage] = []
    for _, codec, deep in iter_legacy_messages(buf, strict, max_size):
        if codec == NONE:
            run.append(deep[0])
            continue
        if run:
            out.append(_to_batch(run, NONE))
            run = []
        out.append(_to_batch(deep, codec))
    if run:
        out.append(_to_batch(run, NONE))
    return b"".join(out)
