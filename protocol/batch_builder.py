"""Build v2 batches: from records, as transaction markers, or recompressed.

Who may call it: the coordinators (their own logs and transaction markers), the log
cleaner and the broker's recompression, tests and tools; the Produce path never builds
batches. Pure functions except that a missing timestamp is read from the wall clock,
as Kafka's builder does.
"""

from __future__ import annotations

import struct
import time
from typing import Iterable, NamedTuple, Sequence

from kafpy.protocol.batch_header import (
    COMPRESSION_MASK,
    CONTROL_MASK,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_MASK,
    CONTROL_ABORT,
    CONTROL_COMMIT,
    Record,
    pack_batch,
    parse_header,
)
from kafpy.protocol.compression import CODEC_NAMES, DEFAULT_MAX_DECOMPRESSED, NONE, compress
from kafpy.protocol.errors import CorruptRecord, UnsupportedCompression
from kafpy.protocol.record_decoder import batch_records_bytes, check_record_framing
from kafpy.protocol.varint import varlong

__all__ = [
    "build_batch", "ControlRecord", "build_control_batch", "parse_control_record", "recompress_batch",
]


def _encode_record(
    attributes: int,
    ts_delta: int,
    off_delta: int,
    key: bytes | None,
    value: bytes | None,
    headers: Sequence[tuple[str | bytes, bytes | None]],
) -> bytes:
    """One record's bytes, length prefix included. Key and value are written by their own
    lines: a loop over the two made this 10% slower (measured on 1000 ~110 B records)."""
    zz = varlong
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
    return pack_batch(
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
    raw = batch_records_bytes(buf, pos, header, True, max_size)
    check_record_framing(raw, header.records_count)
    section = compress(codec, raw, level) if codec else raw
    return pack_batch(
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
