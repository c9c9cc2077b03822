"""Decode the records of a v2 batch: for the places that must see records (compaction,
recompression, the coordinators' own logs, tests and tools), never the Produce/Fetch path.

Kafka's framing rules are enforced: each record's length equals the bytes it spans,
lengths and header counts are not negative, no bytes remain after the last record.
Pure functions; any thread may call them.
"""

from __future__ import annotations

from kafpy.protocol.batch_header import (
    COMPRESSION_MASK,
    LOG_OVERHEAD,
    MIN_BATCH_LENGTH,
    RECORDS_OFFSET,
    Record,
    RecordBatchHeader,
    parse_header,
    verify_crc,
)
from kafpy.protocol.compression import DEFAULT_MAX_DECOMPRESSED, decompress
from kafpy.protocol.errors import CorruptRecord
from kafpy.protocol.varint import read_varlong

__all__ = ["decode_batch", "decode_records", "batch_records_bytes", "check_record_framing", "has_null_key",
           "largest_record"]


def _decode_record_list(data: bytes, count: int) -> list[Record]:
    """Decode ``count`` records filling all of ``data`` (the batch's records section).

    Kafka's rules: each record's length must equal the bytes it spans, lengths and
    header counts must not be negative, and no bytes may remain after the last record.
    Varints of one and two bytes (nearly all of them) are decoded inline, and key and
    value each by their own copy of the same lines: a shared helper made this loop
    12-16% slower (measured on 1000 ~110 B records).
    """
    end = len(data)
    if count * 7 > end:  # a record takes at least 7 bytes
        raise CorruptRecord(f"{count} records cannot fit in {end} bytes")
    records: list[Record] = []
    append = records.append
    slow = read_varlong
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
    except ValueError as exc:  # a varint longer than 10 bytes
        raise CorruptRecord(str(exc)) from None
    if pos != end:
        raise CorruptRecord(
            f"incorrect declared batch size: {end - pos} bytes remain after {count} records"
        )
    return records


def _decode_headers(data: bytes, pos: int, record_end: int) -> tuple[list, int]:
    n_headers, pos = read_varlong(data, pos)
    if n_headers < 0 or n_headers * 2 > record_end - pos:
        raise CorruptRecord(f"invalid record header count {n_headers}")
    headers = []
    for _ in range(n_headers):
        n, pos = read_varlong(data, pos)
        if n < 0 or n > record_end - pos:
            raise CorruptRecord(f"invalid record header key length {n}")
        # Kafka accepts any bytes here (Java decodes leniently); surrogateescape keeps
        # them, so build_batch writes back exactly what was read.
        hkey = data[pos : pos + n].decode("utf-8", "surrogateescape")
        pos += n
        n, pos = read_varlong(data, pos)
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


def check_record_framing(data: bytes, count: int) -> None:
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
                length, pos = read_varlong(data, pos)
            if length < 6 or length > end - pos:
                raise CorruptRecord(f"invalid record length {length}")
            pos += length
    except IndexError:
        raise CorruptRecord("records end in the middle of a record") from None
    except ValueError as exc:  # a varint longer than 10 bytes
        raise CorruptRecord(str(exc)) from None
    if pos != end:
        raise CorruptRecord(
            f"incorrect declared batch size: {end - pos} bytes remain after {count} records"
        )


def batch_records_bytes(
    buf: bytes | bytearray | memoryview, pos: int, header: RecordBatchHeader, verify: bool, max_size: int
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
    if header.records_count == 0 and header.batch_length == MIN_BATCH_LENGTH:
        # an empty batch (kept by compaction for producer state) has no stream at all
        if verify:
            verify_crc(buf, pos, header)
        return []
    data = batch_records_bytes(buf, pos, header, verify, max_size)
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


def has_null_key(buf: bytes | bytearray | memoryview, pos: int = 0, *,
                 max_size: int = DEFAULT_MAX_DECOMPRESSED) -> bool:
    """Whether a record of the batch at ``pos`` has no key (a compacted topic refuses it),
    with the framing rules of ``decode_records`` checked on every record (``CorruptRecord``
    first, as decoding would). Builds no object per record: a batch announcing millions
    of records makes millions of Python objects otherwise, and the collections of the
    garbage collector over them hold the GIL for seconds, whatever thread runs it."""
    header = parse_header(buf, pos)
    if header.records_count == 0 and header.batch_length == MIN_BATCH_LENGTH:
        return False
    data = batch_records_bytes(buf, pos, header, False, max_size)
    count = header.records_count
    end = len(data)
    if count * 7 > end:
        raise CorruptRecord(f"{count} records cannot fit in {end} bytes")
    slow = read_varlong
    null_key = False
    at = 0
    try:
        for _ in range(count):
            b = data[at]
            if b < 0x80:
                length = (b >> 1) ^ -(b & 1)
                at += 1
            else:
                length, at = slow(data, at)
            record_end = at + length
            if length < 6 or record_end > end:
                raise CorruptRecord(f"invalid record length {length}")
            _, at = slow(data, at + 1)    # timestamp delta, after the attributes
            _, at = slow(data, at)        # offset delta
            n, at = slow(data, at)        # key length
            if n < 0:
                if n != -1:
                    raise CorruptRecord(f"invalid record key length {n}")
                null_key = True
            elif n > record_end - at:
                raise CorruptRecord("record key runs past its record")
            else:
                at += n
            n, at = slow(data, at)        # value length
            if n < -1:
                raise CorruptRecord(f"invalid record value length {n}")
            if n > record_end - at:
                raise CorruptRecord("record value runs past its record")
            if n > 0:
                at += n
            if data[at] == 0:
                at += 1
            else:
                at = _skip_headers(data, at, record_end)
            if at != record_end:
                raise CorruptRecord(f"record claims {length} bytes but its fields span {length + at - record_end}")
    except IndexError:
        raise CorruptRecord("records end in the middle of a record") from None
    except ValueError as exc:  # a varint longer than 10 bytes
        raise CorruptRecord(str(exc)) from None
    if at != end:
        raise CorruptRecord(f"incorrect declared batch size: {end - at} bytes remain after {count} records")
    return null_key


def largest_record(buf: bytes | bytearray | memoryview, pos: int = 0, *,
                   max_size: int = DEFAULT_MAX_DECOMPRESSED) -> int:
    """The largest record body (its length varint) of the batch at ``pos``, decompressed:
    what Kafka 4.4 holds to ``max.decompressed.message.bytes``. Reads the length varints only;
    ``CorruptRecord`` when one is negative or runs past the records."""
    header = parse_header(buf, pos)
    if header.records_count == 0 and header.batch_length == MIN_BATCH_LENGTH:
        return 0
    data = batch_records_bytes(buf, pos, header, False, max_size)
    end = len(data)
    largest = at = 0
    try:
        for _ in range(header.records_count):
            length, at = read_varlong(data, at)
            if length < 0 or at + length > end:
                raise CorruptRecord(f"invalid record length {length}")
            largest = max(largest, length)
            at += length
    except (IndexError, ValueError) as exc:
        raise CorruptRecord(f"records end in the middle of a record: {exc}") from None
    return largest


def _skip_headers(data: bytes, pos: int, record_end: int) -> int:
    """``_decode_headers``' checks, keeping nothing: where the headers end."""
    n_headers, pos = read_varlong(data, pos)
    if n_headers < 0 or n_headers * 2 > record_end - pos:
        raise CorruptRecord(f"invalid record header count {n_headers}")
    for _ in range(n_headers):
        n, pos = read_varlong(data, pos)
        if n < 0 or n > record_end - pos:
            raise CorruptRecord(f"invalid record header key length {n}")
        pos += n
        n, pos = read_varlong(data, pos)
        if n < -1:
            raise CorruptRecord(f"invalid record header value length {n}")
        if n > record_end - pos:
            raise CorruptRecord("record header value runs past its record")
        if n > 0:
            pos += n
    return pos
