"""Kafka's variable-length integers (``ByteUtils``): unsigned varints and zigzag varlongs.

Unsigned varints (at most 5 bytes, 32 bits) are the lengths, counts and tags of flexible
message versions; zigzag varlongs (at most 10 bytes) are the fields of the records in a
v2 batch (Kafka's int32 varints there read the same way, so one reader serves both).

Who may call it: ``kafpy.protocol.codec``'s compiled functions, ``kafpy.protocol._interpreter``,
the record batch code, the snappy preamble check and the tests' wire tools. Pure
functions. A varint longer than its limit raises ``ValueError`` (each caller turns it
into its own ``ProtocolError``); bytes that end early raise ``IndexError``.

The encoders return common small values from a table built at import: a tuple lookup
is what ``bench.protocol_codec`` and ``bench.records`` measured fastest.
"""

from __future__ import annotations

Buffer = bytes | bytearray | memoryview

__all__ = ["read_unsigned_varint", "unsigned_varint", "read_varlong", "varlong"]

_UNSIGNED_CACHED = 4096
_ZIGZAG_LOW = -64
_ZIGZAG_HIGH = 16384


def read_unsigned_varint(buf: Buffer, pos: int) -> tuple[int, int]:
    """(value, next position) of the unsigned varint at ``pos``: at most 5 bytes, as Kafka reads."""
    value = 0
    shift = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
        if shift > 28:
            raise ValueError("varint is longer than 5 bytes")


def _unsigned_varint(n: int) -> bytes:
    if n < 0:
        raise ValueError(f"{n} is not an unsigned varint")
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_UNSIGNED = tuple(_unsigned_varint(i) for i in range(_UNSIGNED_CACHED))


def unsigned_varint(n: int) -> bytes:
    """The unsigned varint encoding of ``n`` (>= 0)."""
    return _UNSIGNED[n] if 0 <= n < _UNSIGNED_CACHED else _unsigned_varint(n)


def read_varlong(buf: Buffer, pos: int) -> tuple[int, int]:
    """(value, next position) of the zigzag varlong at ``pos``: at most 10 bytes; the
    excess bits of a 10th byte fall off, as in Java."""
    b = buf[pos]
    if b < 0x80:
        return (b >> 1) ^ -(b & 1), pos + 1
    result = b & 0x7F
    pos += 1
    shift = 7
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            result &= 0xFFFFFFFFFFFFFFFF
            return (result >> 1) ^ -(result & 1), pos
        shift += 7
        if shift > 63:
            raise ValueError("varint longer than 10 bytes")


def _varlong(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    if z < 0 or z >> 64:
        raise ValueError(f"{n} does not fit a varlong")
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


_ZIGZAG = tuple(_varlong(n) for n in range(_ZIGZAG_LOW, _ZIGZAG_HIGH))


def varlong(n: int) -> bytes:
    """The zigzag varlong encoding of ``n`` (a signed 64-bit value)."""
    if _ZIGZAG_LOW <= n < _ZIGZAG_HIGH:
        return _ZIGZAG[n - _ZIGZAG_LOW]
    return _varlong(n)
