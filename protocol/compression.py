"""Kafka's record compression codecs: gzip, snappy, lz4 and zstd.

``compress(codec, data)`` writes what the Java client writes, so every client can
read our output: gzip with a gzip header, snappy in xerial framing (the Java
``SnappyOutputStream`` format, 32 KiB blocks), lz4 as a standard LZ4 frame with
independent 64 KiB blocks and no checksums (Kafka's ``KafkaLZ4BlockInputStream``
cannot follow linked blocks), zstd as a standard frame.

``decompress(codec, data, max_size)`` reads anything the clients produce: raw or
xerial snappy, concatenated gzip members / lz4 frames / zstd frames, zstd frames that
do not declare their content size, and LZ4 frames with the header checksum of
KAFKA-3160 (old magic-0 producers hashed the magic number too).  Output is bounded:
more than ``max_size`` bytes raises ``CorruptRecord`` instead of growing without
limit, so a compression bomb costs at most ``max_size`` of memory.

Every failure surfaces as a ``ProtocolError`` subclass: ``UnsupportedCompression`` for
codec ids 5..7 (and beyond), ``CorruptRecord`` for damaged or oversized data.
"""

from __future__ import annotations

import struct
import types
import zlib

# what the codecs read: a batch's bytes, or a view into a segment or request buffer
Buffer = bytes | bytearray | memoryview

# The codecs' modules are imported on first use (``_lz4f()``...): a broker whose clients
# never compress never loads them, which shortens its start. After the first call each
# lookup is a sys.modules hit, nothing beside the codec's own cost.


def _lz4f() -> types.ModuleType:
    import lz4.frame
    return lz4.frame


def _snappy() -> types.ModuleType:
    import snappy
    return snappy


def _zstd() -> types.ModuleType:
    import zstandard
    return zstandard

from kafpy.protocol.errors import CorruptRecord, UnsupportedCompression
from kafpy.protocol.varint import read_unsigned_varint

__all__ = [
    "NONE",
    "GZIP",
    "SNAPPY",
    "LZ4",
    "ZSTD",
    "CODEC_NAMES",
    "DEFAULT_MAX_DECOMPRESSED",
    "XERIAL_MAGIC",
    "codec_for_compression_type",
    "compress",
    "decompress",
]

NONE = 0
GZIP = 1
SNAPPY = 2
LZ4 = 3
ZSTD = 4

CODEC_NAMES = {NONE: "none", GZIP: "gzip", SNAPPY: "snappy", LZ4: "lz4", ZSTD: "zstd"}

# Limit on one batch's decompressed records unless the caller passes another.
DEFAULT_MAX_DECOMPRESSED = 64 * 1024 * 1024

XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = struct.Struct(">8sii")
_XERIAL_VERSION = 1
_XERIAL_COMPAT_VERSION = 1
_XERIAL_BLOCK = 32 * 1024  # SnappyOutputStream's default block size, as Kafka uses it
_INT32 = struct.Struct(">i")

_LZ4_MAGIC = b"\x04\x22\x4d\x18"

# Default levels: what Kafka's producer uses for gzip (Deflater default) and zstd;
# lz4 at the fast level 0 since the broker recompresses on its request path.
_GZIP_LEVEL = 6
_ZSTD_LEVEL = 3
_LZ4_LEVEL = 0


def codec_for_compression_type(name: str) -> int | None:
    """Map a ``compression.type`` config value to a codec id; ``None`` for "producer"."""
    name = name.strip().lower()
    if name == "producer":
        return None
    if name in ("uncompressed", "none"):
        return NONE
    for codec, codec_name in CODEC_NAMES.items():
        if codec_name == name:
            return codec
    raise ValueError(f"unknown compression.type {name!r}")


def _check_codec(codec: int) -> None:
    if codec not in CODEC_NAMES:
        raise UnsupportedCompression(f"unknown compression codec id {codec}")


# --------------------------------------------------------------------------- compress


def compress(codec: int, data: bytes | bytearray | memoryview, level: int | None = None) -> bytes:
    """Compress ``data`` the way the Java client does for ``codec``."""
    _check_codec(codec)
    if codec == NONE:
        return bytes(data)
    if codec == GZIP:
        c = zlib.compressobj(_GZIP_LEVEL if level is None else level, zlib.DEFLATED, 31)
        return c.compress(data) + c.flush()
    if codec == SNAPPY:
        return _xerial_compress(data)
    if codec == LZ4:
        return _lz4f().compress(
            data,
            compression_level=_LZ4_LEVEL if level is None else level,
            block_size=_lz4f().BLOCKSIZE_MAX64KB,
            block_linked=False,
            content_checksum=False,
            block_checksum=False,
            store_size=False,
        )
    return _zstd().ZstdCompressor(level=_ZSTD_LEVEL if level is None else level).compress(data)


def _xerial_compress(data: bytes | bytearray | memoryview) -> bytes:
    view = memoryview(data)
    if not view:
        return b""  # Java's SnappyOutputStream writes its header only with the first block
    parts = [_XERIAL_HEADER.pack(XERIAL_MAGIC, _XERIAL_VERSION, _XERIAL_COMPAT_VERSION)]
    pack = _INT32.pack
    raw = _snappy().compress
    for start in range(0, len(view), _XERIAL_BLOCK):
        block = raw(bytes(view[start : start + _XERIAL_BLOCK]))
        parts.append(pack(len(block)))
        parts.append(block)
    return b"".join(parts)


# ------------------------------------------------------------------------- decompress


def decompress(
    codec: int,
    data: bytes | bytearray | memoryview,
    max_size: int = DEFAULT_MAX_DECOMPRESSED,
) -> bytes:
    """Decompress ``data``; raise ``CorruptRecord`` if it is damaged or would exceed
    ``max_size`` bytes, ``UnsupportedCompression`` for an unknown codec id."""
    _check_codec(codec)
    if codec == NONE:
        if len(data) > max_size:
            raise CorruptRecord(f"records exceed {max_size} bytes")
        return bytes(data)
    try:
        if codec == GZIP:
            return _gzip_decompress(data, max_size)
        if codec == SNAPPY:
            return _snappy_decompress(data, max_size)
        if codec == LZ4:
            return _lz4_decompress(data, max_size)
        return _zstd_decompress(data, max_size)
    except CorruptRecord:
        raise
    except Exception as exc:  # the codec libraries raise assorted error types
        raise CorruptRecord(f"cannot decompress {CODEC_NAMES[codec]} records: {exc}") from exc


def _too_big(max_size: int) -> CorruptRecord:
    return CorruptRecord(f"decompressed records exceed {max_size} bytes")


def _gzip_decompress(data: Buffer, max_size: int) -> bytes:
    out = []
    total = 0
    rest = bytes(data)
    while True:
        # 47 = accept a gzip or a zlib header
        d = zlib.decompressobj(47)
        chunk = d.decompress(rest, max_size - total + 1)
        total += len(chunk)
        if total > max_size or d.unconsumed_tail:
            raise _too_big(max_size)
        out.append(chunk)
        if not d.eof:
            raise CorruptRecord("truncated gzip records")
        rest = d.unused_data
        # Java's GZIPInputStream reads concatenated members and ignores trailing bytes
        # that do not start another member; so do we.
        if not rest.startswith(b"\x1f\x8b"):
            break
    return b"".join(out)


def _snappy_raw_length(data: Buffer) -> int:
    """Uncompressed size from a raw snappy block's varint preamble."""
    try:
        return read_unsigned_varint(data, 0)[0]
    except (IndexError, ValueError):
        raise CorruptRecord("bad snappy length preamble") from None


def _snappy_decompress(data: Buffer, max_size: int) -> bytes:
    view = memoryview(data)
    if not view:
        return b""  # what Java's SnappyOutputStream writes for no input
    if view[:8] != XERIAL_MAGIC:
        if _snappy_raw_length(view) > max_size:
            raise _too_big(max_size)
        return _snappy().uncompress(bytes(view))
    out = []
    total = 0
    pos = 0
    end = len(view)
    while pos < end:
        if view[pos : pos + 8] == XERIAL_MAGIC:
            # a (possibly concatenated) xerial stream header: magic, version, compatible version
            if end - pos < _XERIAL_HEADER.size:
                raise CorruptRecord("truncated xerial snappy header")
            pos += _XERIAL_HEADER.size
            continue
        if end - pos < 4:
            raise CorruptRecord("truncated xerial snappy block length")
        n = _INT32.unpack_from(view, pos)[0]
        pos += 4
        if n < 0 or n > end - pos:
            raise CorruptRecord(f"xerial snappy block of {n} bytes, {end - pos} left")
        block = bytes(view[pos : pos + n])
        pos += n
        total += _snappy_raw_length(block)
        if total > max_size:
            raise _too_big(max_size)
        out.append(_snappy().uncompress(block))
    return b"".join(out)


def _lz4_decompress(data: Buffer, max_size: int) -> bytes:
    try:
        return _lz4_frames(bytes(data), max_size)
    except CorruptRecord:
        raise
    except Exception:
        fixed = _fix_kafka3160_header(bytes(data))
        if fixed is None:
            raise
        return _lz4_frames(fixed, max_size)


def _lz4_frames(rest: bytes, max_size: int) -> bytes:
    out = []
    total = 0
    while True:
        d = _lz4f().LZ4FrameDecompressor()
        chunk = d.decompress(rest, max_length=max_size - total + 1)
        total += len(chunk)
        if total > max_size:
            raise _too_big(max_size)
        out.append(chunk)
        if not d.eof:
            raise CorruptRecord("truncated lz4 records")
        rest = d.unused_data
        # further frames are read; other trailing bytes are ignored, as Kafka's
        # KafkaLZ4BlockInputStream stops at the end mark of the first frame
        if not rest or not rest.startswith(_LZ4_MAGIC):
            break
    return b"".join(out)


def _fix_kafka3160_header(data: bytes) -> bytes | None:
    """Recompute an LZ4 frame's header checksum (KAFKA-3160 hashed the magic too)."""
    if len(data) < 7 or data[:4] != _LZ4_MAGIC:
        return None
    flg = data[4]
    desc_end = 6 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)
    if len(data) <= desc_end:
        return None
    hc = (xxh32(data[4:desc_end]) >> 8) & 0xFF
    if data[desc_end] == hc:
        return None
    return data[:desc_end] + bytes((hc,)) + data[desc_end + 1 :]


def _zstd_decompress(data: Buffer, max_size: int) -> bytes:
    # The stream reader bounds the output but accepts a truncated frame silently; the
    # decompression object notices truncation but cannot bound its output.  So: bound
    # first, then decode frame by frame and insist that each one ends.
    rest = bytes(data)
    dctx = _zstd().ZstdDecompressor()
    probe = dctx.stream_reader(rest, read_across_frames=True).read(max_size + 1)
    if len(probe) > max_size:
        raise _too_big(max_size)
    out = []
    while True:
        d = dctx.decompressobj()
        out.append(d.decompress(rest))
        if not d.eof:
            raise CorruptRecord("truncated zstd records")
        rest = d.unused_data
        if not rest:
            break
    result = b"".join(out)
    if len(result) > max_size:
        raise _too_big(max_size)
    return result


# ------------------------------------------------------------------------------ xxh32

_P1 = 2654435761
_P2 = 2246822519
_P3 = 3266489917
_P4 = 668265263
_P5 = 374761393
_M32 = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def xxh32(data: bytes, seed: int = 0) -> int:
    """XXH32, used only for LZ4 frame header checksums (a few bytes)."""
    n = len(data)
    pos = 0
    if n >= 16:
        v1 = (seed + _P1 + _P2) & _M32
        v2 = (seed + _P2) & _M32
        v3 = seed & _M32
        v4 = (seed - _P1) & _M32
        while pos <= n - 16:
            a, b, c, d = struct.unpack_from("<IIII", data, pos)
            v1 = (_rotl((v1 + a * _P2) & _M32, 13) * _P1) & _M32
            v2 = (_rotl((v2 + b * _P2) & _M32, 13) * _P1) & _M32
            v3 = (_rotl((v3 + c * _P2) & _M32, 13) * _P1) & _M32
            v4 = (_rotl((v4 + d * _P2) & _M32, 13) * _P1) & _M32
            pos += 16
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M32
    else:
        h = (seed + _P5) & _M32
    h = (h + n) & _M32
    while pos <= n - 4:
        h = (h + struct.unpack_from("<I", data, pos)[0] * _P3) & _M32
        h = (_rotl(h, 17) * _P4) & _M32
        pos += 4
    while pos < n:
        h = (h + data[pos] * _P5) & _M32
        h = (_rotl(h, 11) * _P1) & _M32
        pos += 1
    h ^= h >> 15
    h = (h * _P2) & _M32
    h ^= h >> 13
    h = (h * _P3) & _M32
    h ^= h >> 16
    return h
