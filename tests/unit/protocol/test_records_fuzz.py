"""Seeded mutation fuzzing: damaged input may only ever raise ProtocolError subclasses."""

import random

from kafka.record.legacy_records import LegacyRecordBatchBuilder

from kafpy.protocol import records as r
from kafpy.protocol.errors import ProtocolError

SEED = 20261125
ROUNDS_V2 = 10_000
ROUNDS_LEGACY = 2_000


def seeds_v2():
    out = []
    for codec in range(5):
        for n in (1, 3, 25):
            items = [(None if i % 3 == 0 else b"k%d" % i, b"v" * (i * 13 % 200),
                      [("h%d" % i, None if i % 2 else b"x")], 1_700_000_000_000 + i)
                     for i in range(n)]
            out.append(r.build_batch(items, compression=codec, producer_id=4, producer_epoch=1,
                                     base_sequence=9))
    out.append(r.build_control_batch(r.CONTROL_COMMIT, producer_id=1, producer_epoch=0))
    return out


def seeds_legacy():
    out = []
    for magic in (0, 1):
        for codec in (0, 1, 2):
            b = LegacyRecordBatchBuilder(magic=magic, compression_type=codec, batch_size=1 << 20)
            for i in range(4):
                b.append(i, timestamp=1000 + i if magic else None, key=b"k" if i else None,
                         value=b"val%d" % i)
            out.append(bytes(b.build()))
    return out


def mutate(rnd, buf):
    b = bytearray(buf)
    for _ in range(rnd.choice((1, 1, 1, 2, 3, 8))):
        op = rnd.randrange(6)
        if op == 0 and b:                       # flip a bit
            i = rnd.randrange(len(b))
            b[i] ^= 1 << rnd.randrange(8)
        elif op == 1 and b:                     # set a byte to an edge value
            b[rnd.randrange(len(b))] = rnd.choice((0, 1, 0x7F, 0x80, 0xFE, 0xFF))
        elif op == 2:                           # truncate
            del b[rnd.randrange(len(b) + 1):]
        elif op == 3:                           # append junk
            b += bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 20)))
        elif op == 4 and b:                     # delete a range
            i = rnd.randrange(len(b))
            del b[i:i + rnd.randrange(1, 8)]
        elif op == 5:                           # insert bytes
            i = rnd.randrange(len(b) + 1)
            b[i:i] = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 6)))
    return bytes(b)


def run(fn, *args, **kw):
    try:
        fn(*args, **kw)
        return True
    except ProtocolError:
        return False


def exercise_v2(buf):
    run(lambda: list(r.iter_batches(buf)))
    run(lambda: list(r.iter_batches(buf, strict=True)))
    if run(r.parse_header, buf):
        h = r.parse_header(buf)
        run(r.verify_crc, buf, 0, h)
        run(r.decode_batch, buf, verify=False, max_size=1 << 20)
        run(r.decode_batch, buf, max_size=1 << 20)
        run(r.recompress_batch, buf, 0, 0, max_size=1 << 20)
        mutable = bytearray(buf)
        run(r.set_max_timestamp, mutable, 0, 5, 1)
    run(r.upconvert_legacy, buf)


def test_fuzz_v2_batches_raise_only_protocol_errors():
    rnd = random.Random(SEED)
    seeds = seeds_v2()
    outcomes = {True: 0, False: 0}
    for _ in range(ROUNDS_V2):
        buf = mutate(rnd, rnd.choice(seeds))
        exercise_v2(buf)
        outcomes[run(r.decode_batch, buf, verify=False, max_size=1 << 20)] += 1
    # the mutations must reach both outcomes, or the fuzzer is not exercising the decoder
    assert outcomes[True] > 100 and outcomes[False] > 100


def test_fuzz_legacy_sets_raise_only_protocol_errors():
    rnd = random.Random(SEED + 1)
    seeds = seeds_legacy()
    ok = 0
    for _ in range(ROUNDS_LEGACY):
        buf = mutate(rnd, rnd.choice(seeds))
        ok += run(r.upconvert_legacy, buf)
        run(r.upconvert_legacy, buf, strict=False)
    assert ok > 50
