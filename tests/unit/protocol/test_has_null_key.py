"""has_null_key: the compacted-topic key check without decoding records into objects; it
must agree with decode_batch on what is refused (framing) and on null keys."""
from __future__ import annotations

import random

import pytest

from kafpy.protocol import records as r
from kafpy.protocol.compression import ZSTD
from kafpy.protocol.errors import CorruptRecord


def outcome_of_decoding(batch: bytes | bytearray) -> object:
    try:
        _, recs = r.decode_batch(batch, 0, verify=False)
    except CorruptRecord:
        return CorruptRecord
    return any(rec.key is None for rec in recs)


def outcome_of_scan(batch: bytes | bytearray) -> object:
    try:
        return r.has_null_key(batch, 0)
    except CorruptRecord:
        return CorruptRecord


@pytest.mark.parametrize("compression", [0, ZSTD])
def test_agrees_with_decoding_on_well_formed_batches(compression):
    rng = random.Random(5)
    for _ in range(50):
        items = [(None if rng.random() < 0.05 else rng.randbytes(rng.randrange(0, 300)),
                  None if rng.random() < 0.1 else rng.randbytes(rng.randrange(0, 3000)),
                  [(f"h{j}", None if j % 3 == 0 else rng.randbytes(j)) for j in range(rng.randrange(0, 4))])
                 for _ in range(rng.randrange(1, 40))]
        batch = r.build_batch(items, compression=compression)
        assert r.has_null_key(batch, 0) == any(k is None for k, _, _ in items)


def test_agrees_with_decoding_on_damaged_batches():
    rng = random.Random(11)
    base = r.build_batch([(b"key%d" % i if i % 7 else None, b"v" * (i % 50), [("h", b"x")] if i % 2 else [])
                          for i in range(30)])
    for _ in range(3000):
        damaged = bytearray(base)
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(r.BATCH_HEADER_SIZE, len(damaged))
            damaged[i] = rng.randrange(256)
        assert outcome_of_scan(damaged) == outcome_of_decoding(damaged)


def test_an_empty_batch_has_no_null_key():
    assert r.has_null_key(r.build_batch([], last_offset_delta=0), 0) is False
