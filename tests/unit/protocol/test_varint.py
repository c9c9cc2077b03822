"""Kafka's varints: the one implementation every codec and record path uses."""

from __future__ import annotations

import pytest

from kafpy.protocol.varint import read_unsigned_varint, read_varlong, unsigned_varint, varlong


@pytest.mark.parametrize("n,encoded", [
    (0, b"\x00"), (1, b"\x01"), (127, b"\x7f"), (128, b"\x80\x01"), (300, b"\xac\x02"),
    (4095, b"\xff\x1f"), (4096, b"\x80\x20"), (2**32 - 1, b"\xff\xff\xff\xff\x0f"),
])
def test_unsigned_varint_bytes_and_back(n: int, encoded: bytes) -> None:
    assert unsigned_varint(n) == encoded
    assert read_unsigned_varint(b"\xaa" + encoded + b"\xbb", 1) == (n, 1 + len(encoded))


def test_unsigned_varint_limits() -> None:
    with pytest.raises(ValueError):
        read_unsigned_varint(b"\xff" * 5 + b"\x01", 0)  # six bytes: longer than Kafka reads
    with pytest.raises(IndexError):
        read_unsigned_varint(b"\x80\x80", 0)
    with pytest.raises(ValueError):
        unsigned_varint(-1)


@pytest.mark.parametrize("n,encoded", [
    (0, b"\x00"), (-1, b"\x01"), (1, b"\x02"), (-64, b"\x7f"), (63, b"\x7e"), (64, b"\x80\x01"),
    (-65, b"\x81\x01"), (16383, b"\xfe\xff\x01"), (16384, b"\x80\x80\x02"),
    (2**63 - 1, b"\xfe" + b"\xff" * 8 + b"\x01"), (-2**63, b"\xff" * 9 + b"\x01"),
])
def test_varlong_zigzag_bytes_and_back(n: int, encoded: bytes) -> None:
    assert varlong(n) == encoded
    assert read_varlong(encoded + b"\x00", 0) == (n, len(encoded))


def test_varlong_limits() -> None:
    with pytest.raises(ValueError):
        read_varlong(b"\xff" * 11, 0)
    with pytest.raises(IndexError):
        read_varlong(b"\x80" * 3, 0)
    with pytest.raises(ValueError):
        varlong(2**63)
    # a 10th byte's bits above 64 fall off, as in Java
    assert read_varlong(b"\xfe" + b"\xff" * 8 + b"\x7f", 0) == (2**63 - 1, 10)
