"""Record batch throughput: header+CRC validation, decoding, building, codecs.

Run: ``python -m bench.records`` (from the repository root).  Prints one table;
each figure is the best of several repetitions on this machine.
"""

from __future__ import annotations

import argparse
import random
import time

from kafpy.protocol import records as r
from kafpy.protocol.compression import CODEC_NAMES, compress, decompress


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def text(rnd: random.Random, n: int) -> bytes:
    words = [b"offset", b"broker", b"topic", b"partition", b"leader", b"replica", b"kafka",
             b"%d" % rnd.randrange(10**6), b"segment", b"consumer", b"group"]
    out = b" ".join(rnd.choice(words) for _ in range(n // 6 + 1))
    return out[:n]


def small_records(n: int, seed: int = 7) -> list[tuple]:
    rnd = random.Random(seed)
    return [(b"key-%d" % i, text(rnd, 100), [], 1_700_000_000_000 + i) for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--batches", type=int, default=2000, help="16 KiB batches in the blob")
    args = ap.parse_args()
    rows: list[tuple[str, str, str]] = []

    # 16 KiB batches, as a producer's default batch.size would send them
    rnd = random.Random(1)
    per_batch: list[tuple[bytes | None, bytes, list[tuple[str, bytes | None]], int]] = [
        (None, text(rnd, 150), [], 1_700_000_000_000 + i) for i in range(100)]
    one = r.build_batch(per_batch)
    while len(one) < 16 * 1024:
        per_batch.append((None, text(rnd, 150), [], 1_700_000_000_000 + len(per_batch)))
        one = r.build_batch(per_batch)
    blob = bytearray(one * args.batches)
    mb = len(blob) / 1e6

    def header_only():
        for _pos, _h in r.iter_batches(blob):
            pass

    def header_and_crc():
        for pos, h in r.iter_batches(blob):
            r.verify_crc(blob, pos, h)

    def assign_offsets():
        view = memoryview(blob)
        offset = 0
        for pos, h in r.iter_batches(view):
            r.verify_crc(view, pos, h)
            r.set_base_offset(view, pos, offset)
            r.set_partition_leader_epoch(view, pos, 3)
            offset += h.records_count

    for label, fn in (("iter_batches (header only)", header_only),
                      ("iter_batches + verify_crc", header_and_crc),
                      ("+ set_base_offset/epoch (append path)", assign_offsets)):
        t = best_of(fn, args.repeat)
        rows.append((f"{label}, {len(one)} B batches", f"{mb / t:,.0f} MB/s",
                     f"{args.batches / t:,.0f} batches/s"))

    recs = small_records(1000)
    for codec in (0, 3, 4):
        batch = r.build_batch(recs, compression=codec)
        t = best_of(lambda: r.decode_batch(batch), args.repeat * 4)
        rows.append((f"decode_batch 1000 x ~110 B records, {CODEC_NAMES[codec]}",
                     f"{t * 1e3:.2f} ms/batch", f"{1000 / t:,.0f} records/s"))
    for codec in (0, 3, 4):
        t = best_of(lambda: r.build_batch(recs, compression=codec), args.repeat * 4)
        rows.append((f"build_batch 1000 x ~110 B records, {CODEC_NAMES[codec]}",
                     f"{t * 1e3:.2f} ms/batch", f"{1000 / t:,.0f} records/s"))

    big = r.build_batch(small_records(9000), compression=0)  # ~1 MiB uncompressed
    big_mb = len(big) / 1e6
    for codec in (1, 2, 3, 4):
        t = best_of(lambda: r.recompress_batch(big, 0, codec), args.repeat)
        rows.append((f"recompress_batch none -> {CODEC_NAMES[codec]}, {len(big) >> 10} KiB",
                     f"{big_mb / t:,.0f} MB/s", f"{t * 1e3:.1f} ms/batch"))

    raw = big[r.RECORDS_OFFSET:]
    for codec in (1, 2, 3, 4):
        packed = compress(codec, raw)
        tc = best_of(lambda: compress(codec, raw), args.repeat)
        td = best_of(lambda: decompress(codec, packed), args.repeat)
        rows.append((f"{CODEC_NAMES[codec]} compress / decompress (ratio {len(raw) / len(packed):.1f})",
                     f"{len(raw) / 1e6 / tc:,.0f} MB/s", f"{len(raw) / 1e6 / td:,.0f} MB/s"))

    w = max(len(a) for a, _, _ in rows)
    print(f"{'operation':<{w}}  {'figure':>16}  {'figure':>20}")
    print("-" * (w + 40))
    for a, b, c in rows:
        print(f"{a:<{w}}  {b:>16}  {c:>20}")


if __name__ == "__main__":
    main()
