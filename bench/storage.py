"""Storage benchmark: Log.append_as_leader vs raw os.write, and offset lookups.

    python3 -m bench.storage [--mb 256] [--batch-kib 16] [--dir /path] [--lookups 50000]

Appends ``--mb`` MiB as ``--batch-kib`` KiB record batches (uncompressed, 1 KiB
records) through ``Log.append_as_leader`` (validation, CRC, offset assignment,
producer-state check with an idempotent producer, index maintenance, one write per
batch) and, in the same run and directory, writes the same bytes with plain
``os.write``, the two interleaved in chunks of 256 batches so that both see the same
machine load. Then times ``Log.read(offset, 1 MiB)`` (index lookup + header scan ->
file region) at random offsets. Prints a table.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time

from protocol.records import build_batch
from storage import LogConfig
from storage.log import Log


def make_batch(batch_kib: int, seq: int, pid: int) -> bytes:
    n = max(1, batch_kib)
    value = os.urandom(1000)
    recs = [(b"key-%06d" % i, value) for i in range(n)]
    return build_batch(recs, producer_id=pid, producer_epoch=0, base_sequence=seq)


def cpu_only(batches, count: int) -> float:
    """The Log's own cost: the same appends with the segment's fd pointed at /dev/null."""
    d = tempfile.mkdtemp(prefix="kafpy-bench-cpu-")
    try:
        lg = Log(os.path.join(d, "cpu-0"), LogConfig(segment_bytes=1 << 50), needs_recovery=False)
        nul = os.open(os.devnull, os.O_WRONLY)
        lg.active_segment._fd = nul
        append = lg.append_as_leader
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            for i in range(count):
                append(batches[i], 0)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
            lg.truncate_fully_and_start_at(0)
            lg.active_segment._fd = nul
            lg.producer_state.clear()
        os.close(nul)
        return best
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=128)
    ap.add_argument("--batch-kib", type=int, default=16)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--lookups", type=int, default=50000)
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args(argv)
    base = args.dir or tempfile.mkdtemp(prefix="kafpy-bench-")
    os.makedirs(base, exist_ok=True)
    per = args.batch_kib
    sample = make_batch(per, 0, 7)
    size = len(sample)
    count = max(1, args.mb * 1024 * 1024 // size)
    # Sequences must advance for an idempotent producer: prebuild a window of batches
    # and give each its sequence by rebuilding cheaply (patch base sequence + CRC).
    from protocol.records import compute_crc, parse_header
    import struct

    template = bytearray(sample)

    def with_seq(i: int) -> bytearray:
        b = bytearray(template)
        struct.pack_into(">i", b, 53, (i * per) & 0x7FFFFFFF)
        h = parse_header(b)
        struct.pack_into(">I", b, 17, compute_crc(b, 0, h.batch_length))
        return b

    prebuilt = [with_seq(i) for i in range(count)]
    results = []
    chunk = 256  # interleave raw and Log writes in small chunks: both see the same load
    try:
        for r in range(args.rounds):
            d = os.path.join(base, f"round{r}")
            os.makedirs(d, exist_ok=True)
            os.sync()
            lg = Log(os.path.join(d, "bench-0"), LogConfig(), needs_recovery=False)
            append = lg.append_as_leader
            fd = os.open(os.path.join(d, "raw.bin"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            raw_dt = log_dt = 0.0
            perf = time.perf_counter
            write = os.write
            for start in range(0, count, chunk):
                stop = min(start + chunk, count)
                if (start // chunk) % 2:
                    t0 = perf()
                    for i in range(start, stop):
                        write(fd, prebuilt[i])
                    t1 = perf()
                    for i in range(start, stop):
                        append(prebuilt[i], 0)
                    t2 = perf()
                    raw_dt += t1 - t0
                    log_dt += t2 - t1
                else:
                    t0 = perf()
                    for i in range(start, stop):
                        append(prebuilt[i], 0)
                    t1 = perf()
                    for i in range(start, stop):
                        write(fd, prebuilt[i])
                    t2 = perf()
                    log_dt += t1 - t0
                    raw_dt += t2 - t1
            os.close(fd)
            results.append((raw_dt, log_dt))
            if r == args.rounds - 1:
                leo = lg.log_end_offset
                offs = [random.randrange(leo) for _ in range(args.lookups)]
                t0 = time.perf_counter()
                for o in offs:
                    lg.read(o, 1 << 20)
                lk_dt = time.perf_counter() - t0
                t0 = time.perf_counter()
                for o in offs:
                    lg.read(o, 1, min_one_message=True)
                lk1_dt = time.perf_counter() - t0
            lg.close()
            shutil.rmtree(d, ignore_errors=True)
    finally:
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
    raw_dt = min(r for r, _ in results)
    log_dt = min(l for _, l in results)
    cpu_dt = cpu_only(prebuilt, count)
    mb = count * size / 1e6
    rows = [
        ("raw os.write", mb / raw_dt, count / raw_dt, "100%", raw_dt),
        ("Log.append_as_leader", mb / log_dt, count / log_dt, f"{100 * raw_dt / log_dt:.0f}%", log_dt),
        ("  (CPU only, /dev/null)", mb / cpu_dt, count / cpu_dt, "", cpu_dt),
    ]
    print(f"batch size {size} bytes ({per} x 1 KiB records), {count} batches, {mb:.0f} MB, best of {args.rounds}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'path':<26}{'MB/s':>9}{'batches/s':>11}{'us/batch':>10}{'vs raw':>8}")
    for name, mbs, bps, rel, dt in rows:
        print(f"{name:<26}{mbs:>9.0f}{bps:>11.0f}{dt / count * 1e6:>10.1f}{rel:>8}")
    print()
    print(f"{'lookup':<34}{'reads/s':>10}")
    print(f"{'Log.read(random offset, 1 MiB)':<34}{args.lookups / lk_dt:>10.0f}")
    print(f"{'Log.read(random offset, 1 batch)':<34}{args.lookups / lk1_dt:>10.0f}")


if __name__ == "__main__":
    main()
