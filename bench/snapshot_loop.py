"""How long writing a metadata snapshot holds a KRaft node's event loop.

    python -m bench.snapshot_loop [--partitions 5000] [--runs 5]

Builds an image of ``--partitions`` partitions (topics of 100, three replicas) and, in a real
``KafkaMetadataLog`` in a temporary directory, writes snapshots of it the way a running node
does (``SnapshotPublisher.on_log_delta``: the log's checks on the loop, encoding and writing on
a worker thread), while a ticker task on the same loop wakes every millisecond and records how
late it woke. Prints, per run: ``write_ms`` (from asking to the snapshot being frozen),
``max_loop_held_ms`` (the ticker's longest lateness: the longest the loop could not run
anything else), ``p99_loop_held_ms``, for comparison ``inline_ms``: the same snapshot
written on the loop's own thread (the time the loop would be held without the thread), and
``idle_max_late_ms``: the ticker's longest lateness with nothing else running for 250 ms (the
machine's own noise, on a shared machine). First it prints the CPU time of the longest step
on the loop and of the whole write (``thread_time``, which load does not inflate).
"""
from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench.metadata_image import log_records, replay
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.metadata.publisher.snapshot_emitter import SnapshotEmitter
from kafpy.metadata.publisher.snapshot_generator import SnapshotGenerator
from kafpy.metadata.publisher.snapshot_publisher import STEP_RECORDS, SnapshotPublisher
from kafpy.metadata.image.writer import ApiMessageAndVersion
from kafpy.metadata.record_serde import write_record
from kafpy.protocol.batch_builder import build_batch
from kafpy.raft.metadata_log import KafkaMetadataLog, MetadataLogConfig
from kafpy.raft.snapshot import RawSnapshotWriter, RecordsSnapshotWriter, SnapshotId

TICK_S = 0.001


def _log(directory: Path, end_offset: int) -> KafkaMetadataLog:
    """A metadata log holding ``end_offset`` committed records of epoch 1."""
    log = KafkaMetadataLog(directory, MetadataLogConfig(), now_ms=lambda: int(time.time() * 1000))
    offset = 0
    while offset < end_offset:
        n = min(1000, end_offset - offset)
        log.log.append(build_batch([(None, b"x", (), 0)] * n, base_offset=offset, base_timestamp=0,
                                   max_timestamp=0, partition_leader_epoch=1), 1, "coordinator")
        offset += n
    log.update_high_watermark(end_offset)
    return log


async def _measure(publisher: SnapshotPublisher, image: MetadataImage | None) -> tuple[float, list[float]]:
    lateness: list[float] = []
    done = False

    async def ticker() -> None:
        loop = asyncio.get_running_loop()
        while not done:
            due = loop.time() + TICK_S
            await asyncio.sleep(TICK_S)
            lateness.append(max(0.0, loop.time() - due))
    tick = asyncio.get_running_loop().create_task(ticker())
    await asyncio.sleep(0.05)
    lateness.clear()
    t = time.perf_counter()
    if image is None:  # the machine's own noise: the ticker alone, for as long
        await asyncio.sleep(0.25)
    else:
        task = publisher.on_log_delta(image, 1)
        assert task is not None, "the generator did not ask for a snapshot"
        await task
    elapsed = time.perf_counter() - t
    done = True
    await tick
    return elapsed, lateness


def step_cpu_ms(image: MetadataImage, step_records: int, directory: Path) -> tuple[float, float, float]:
    """The CPU time (``thread_time``: what a loaded machine's scheduling does not inflate) of
    the longest encoding step on the loop, of the last batch built on the worker thread, and
    of the whole write."""
    writer: RecordsSnapshotWriter[ApiMessageAndVersion] = RecordsSnapshotWriter(
        RawSnapshotWriter(directory, SnapshotId(1, 1)), write_record, lambda: 0)
    longest, pending = 0.0, []
    start = time.thread_time()
    try:
        for chunk in image.record_chunks():
            pending += chunk
            if len(pending) >= step_records:
                t = time.thread_time()
                writer.append(pending)
                longest = max(longest, time.thread_time() - t)
                pending = []
        writer.append(pending)
        t = time.thread_time()
        writer.freeze()
        last = time.thread_time() - t
    finally:
        writer.close()
    return longest * 1000, last * 1000, (time.thread_time() - start) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--partitions", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--step-records", type=int, default=STEP_RECORDS,
                    help="records encoded per step on the loop; 0: the whole write on a worker thread")
    args = ap.parse_args()
    records = log_records(args.partitions)
    base = replay(records)
    with tempfile.TemporaryDirectory() as tmp:
        step, last, total = step_cpu_ms(base, args.step_records or STEP_RECORDS, Path(tmp))
        print(f"CPU: longest step on the loop {step:.1f} ms ({args.step_records or STEP_RECORDS} records), "
              f"last batch + footer + fsync on the thread {last:.1f} ms, whole write {total:.1f} ms")
    print(f"{'partitions':>10} {'records':>8} {'write_ms':>9} {'max_loop_held_ms':>16} "
          f"{'p99_loop_held_ms':>16} {'inline_ms':>9} {'idle_max_late_ms':>16}")
    with tempfile.TemporaryDirectory() as tmp:
        log = _log(Path(tmp), args.runs * 2 + 2)
        now = lambda: int(time.time() * 1000)  # noqa: E731
        publisher = SnapshotPublisher(SnapshotGenerator(0, 1, 0, now()), SnapshotEmitter(0, log, now), now,
                                      step_records=args.step_records or None)
        for run in range(args.runs):
            image = replace(base, provenance=MetadataProvenance(run * 2, 1, 0))
            elapsed, lateness = asyncio.run(_measure(publisher, image))
            held = sorted(lateness)
            p99 = held[int(len(held) * 0.99) - 1] if held else 0.0
            inline = replace(base, provenance=MetadataProvenance(run * 2 + 1, 1, 0))
            t = time.perf_counter()
            assert publisher.on_log_delta_now(inline, 1) is not None
            inline_s = time.perf_counter() - t
            _, idle = asyncio.run(_measure(publisher, None))
            print(f"{args.partitions:>10} {len(records):>8} {elapsed * 1000:>9.1f} {max(held) * 1000:>16.1f} "
                  f"{p99 * 1000:>16.1f} {inline_s * 1000:>9.1f} {max(idle) * 1000:>16.1f}")


if __name__ == "__main__":
    main()
