"""Codecs: Java-compatible output, every input form the clients produce, bounded output."""

import gzip
import os
import random
import struct

import lz4.frame
import pytest
import snappy
import zstandard
from kafka import codec as kp_codec

from kafpy.protocol import compression as c
from kafpy.protocol.errors import CorruptRecord, ProtocolError, UnsupportedCompression

CODECS = [c.NONE, c.GZIP, c.SNAPPY, c.LZ4, c.ZSTD]


def payload(n=200_000, seed=1):
    rnd = random.Random(seed)
    words = [bytes(rnd.randrange(97, 123) for _ in range(rnd.randrange(2, 9))) for _ in range(300)]
    return b" ".join(rnd.choice(words) for _ in range(n // 5))[:n]


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("size", [0, 1, 1000, 32 * 1024, 200_000])
def test_roundtrip(codec, size):
    data = payload(size)
    assert c.decompress(codec, c.compress(codec, data)) == data


def test_gzip_is_a_gzip_member():
    data = payload(5000)
    out = c.compress(c.GZIP, data)
    assert out[:2] == b"\x1f\x8b"
    assert gzip.decompress(out) == data
    assert kp_codec.gzip_decode(out) == data


def test_gzip_concatenated_members_and_zlib_header():
    a, b = payload(3000, 1), payload(4000, 2)
    assert c.decompress(c.GZIP, gzip.compress(a) + gzip.compress(b)) == a + b
    import zlib
    assert c.decompress(c.GZIP, zlib.compress(a)) == a
    # like Java's GZIPInputStream, bytes after the last member that are not a member are ignored
    assert c.decompress(c.GZIP, gzip.compress(a) + b"\x00\x00 padding") == a


def test_snappy_writes_xerial_like_java():
    data = payload(100_000)
    out = c.compress(c.SNAPPY, data)
    magic, version, compat = struct.unpack_from(">8sii", out)
    assert (magic, version, compat) == (b"\x82SNAPPY\x00", 1, 1)
    # blocks of at most 32 KiB uncompressed, each int32-length prefixed
    pos, blocks = 16, []
    while pos < len(out):
        (n,) = struct.unpack_from(">i", out, pos)
        blocks.append(snappy.uncompress(out[pos + 4: pos + 4 + n]))
        pos += 4 + n
    assert pos == len(out)
    assert [len(b) for b in blocks] == [32768, 32768, 32768, 100_000 - 3 * 32768]
    assert b"".join(blocks) == data
    assert kp_codec.snappy_decode(out) == data


def test_snappy_reads_hand_built_xerial_frames():
    data = payload(70_000)
    chunks = [data[:10_000], data[10_000:50_000], data[50_000:]]
    framed = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    for ch in chunks:
        comp = snappy.compress(ch)
        framed += struct.pack(">i", len(comp)) + comp
    assert c.decompress(c.SNAPPY, framed) == data
    # concatenated xerial streams (SnappyInputStream accepts them too)
    assert c.decompress(c.SNAPPY, framed + framed) == data + data
    # header only, or nothing at all: no data
    assert c.decompress(c.SNAPPY, framed[:16]) == b""
    assert c.decompress(c.SNAPPY, b"") == b""


def test_snappy_reads_raw_blocks():
    data = payload(50_000)
    assert c.decompress(c.SNAPPY, snappy.compress(data)) == data
    assert c.decompress(c.SNAPPY, kp_codec.snappy_encode(data, xerial_compatible=False)) == data


@pytest.mark.parametrize("bad", [
    b"\x82SNAPPY\x00\x00\x00",                                # truncated header
    b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1) + b"\x00\x00",  # truncated block length
    b"\x82SNAPPY\x00" + struct.pack(">iii", 1, 1, 100) + b"xx",  # block past the end
    b"\x82SNAPPY\x00" + struct.pack(">iii", 1, 1, -5),          # negative block length
    b"\x82SNAPPY\x00" + struct.pack(">iii", 1, 1, 3) + b"\x05ab",  # block claims 5, has 2
    b"\xff\xff\xff\xff\xff\xff",                               # raw: bad preamble
    b"\x10abc",                                                # raw: truncated
])
def test_snappy_bad_input(bad):
    with pytest.raises(CorruptRecord):
        c.decompress(c.SNAPPY, bad)


def test_lz4_frame_flags_match_kafka():
    out = c.compress(c.LZ4, payload(200_000))
    assert out[:4] == b"\x04\x22\x4d\x18"
    flg, bd = out[4], out[5]
    assert flg >> 6 == 1            # version 01
    assert flg & 0x20               # independent blocks (Kafka's reader needs them)
    assert not flg & 0x10           # no block checksum
    assert not flg & 0x08           # no content size
    assert not flg & 0x04           # no content checksum
    assert (bd >> 4) & 0x7 == 4     # 64 KiB maximum block size
    assert out[6] == (c.xxh32(out[4:6]) >> 8) & 0xFF
    assert lz4.frame.decompress(out) == payload(200_000)


def test_lz4_reads_any_standard_frame():
    data = payload(300_000)
    for kw in ({}, {"content_checksum": True, "store_size": True},
               {"block_linked": True, "block_checksum": True}, {"block_size": lz4.frame.BLOCKSIZE_MAX4MB}):
        assert c.decompress(c.LZ4, lz4.frame.compress(data, **kw)) == data
    two = lz4.frame.compress(data[:1000]) + lz4.frame.compress(data[1000:])
    assert c.decompress(c.LZ4, two) == data
    assert c.decompress(c.LZ4, lz4.frame.compress(data) + b"\x00\x00\x00") == data
    assert c.decompress(c.LZ4, kp_codec.lz4_encode(data)) == data


def kafka3160_frame(data):
    """An LZ4 frame whose header checksum also hashes the magic, like magic-0 Kafka."""
    good = lz4.frame.compress(data, store_size=False, content_checksum=False, block_linked=False)
    flg = good[4]
    desc_end = 6 + (8 if flg & 0x08 else 0)
    broken = (c.xxh32(good[0:desc_end]) >> 8) & 0xFF
    assert broken != good[desc_end]
    return good[:desc_end] + bytes((broken,)) + good[desc_end + 1:]


def test_lz4_reads_kafka3160_header_checksum():
    data = payload(10_000)
    frame = kafka3160_frame(data)
    with pytest.raises(RuntimeError):
        lz4.frame.decompress(frame)
    assert c.decompress(c.LZ4, frame) == data


def test_xxh32_known_vectors_and_lz4_content_checksum():
    assert c.xxh32(b"") == 0x02CC5D05
    assert c.xxh32(b"a") == 0x550D7456
    assert c.xxh32(b"abc") == 0x32D153FF
    for n in (15, 16, 17, 100, 1001):
        data = os.urandom(n)
        frame = lz4.frame.compress(data, content_checksum=True, store_size=False)
        (stored,) = struct.unpack("<I", frame[-4:])
        assert c.xxh32(data) == stored


def test_zstd_reads_frames_without_content_size_and_concatenated():
    data = payload(150_000)
    cctx = zstandard.ZstdCompressor(write_content_size=False)
    streamed = cctx.compress(data)
    assert zstandard.get_frame_parameters(streamed).content_size in (0, -1, zstandard.CONTENTSIZE_UNKNOWN)
    assert c.decompress(c.ZSTD, streamed) == data
    chunks = zstandard.ZstdCompressor().compressobj()
    out = chunks.compress(data) + chunks.flush()
    assert c.decompress(c.ZSTD, out) == data
    two = zstandard.ZstdCompressor().compress(data[:5]) + zstandard.ZstdCompressor().compress(data[5:])
    assert c.decompress(c.ZSTD, two) == data
    assert c.decompress(c.ZSTD, kp_codec.zstd_encode(data)) == data


@pytest.mark.parametrize("codec", [c.GZIP, c.SNAPPY, c.LZ4, c.ZSTD])
def test_bomb_is_refused(codec):
    zeros = b"\x00" * (8 << 20)
    blob = c.compress(codec, zeros)
    assert len(blob) < len(zeros) // 20
    with pytest.raises(CorruptRecord):
        c.decompress(codec, blob, max_size=(8 << 20) - 1)
    assert c.decompress(codec, blob, max_size=8 << 20) == zeros


def test_zstd_bomb_without_content_size():
    cctx = zstandard.ZstdCompressor(write_content_size=False)
    blob = cctx.compress(b"\x00" * (16 << 20))
    with pytest.raises(CorruptRecord):
        c.decompress(c.ZSTD, blob, max_size=1 << 20)


def test_none_respects_limit():
    assert c.decompress(c.NONE, b"abc") == b"abc"
    with pytest.raises(CorruptRecord):
        c.decompress(c.NONE, b"abcd", max_size=3)


@pytest.mark.parametrize("codec", [c.GZIP, c.SNAPPY, c.LZ4, c.ZSTD])
def test_truncated_and_garbage(codec):
    blob = c.compress(codec, payload(50_000))
    for cut in (1, len(blob) // 2, len(blob) - 1):
        with pytest.raises(CorruptRecord):
            c.decompress(codec, blob[:cut])
    with pytest.raises(CorruptRecord):
        c.decompress(codec, b"\x07garbage garbage garbage")


@pytest.mark.parametrize("codec", [5, 6, 7, 8, -1])
def test_unknown_codec(codec):
    with pytest.raises(UnsupportedCompression):
        c.decompress(codec, b"x")
    with pytest.raises(UnsupportedCompression):
        c.compress(codec, b"x")
    assert issubclass(UnsupportedCompression, ProtocolError)


def test_compression_type_names():
    assert c.codec_for_compression_type("producer") is None
    assert c.codec_for_compression_type("uncompressed") == c.NONE
    assert [c.codec_for_compression_type(n) for n in ("gzip", "snappy", "lz4", "zstd")] == [1, 2, 3, 4]
    with pytest.raises(ValueError):
        c.codec_for_compression_type("brotli")
