"""Does the sensor_alerts job keep up with its generator? Spark local[2] against kafpy.

Run: ``python -m bench.spark_sensor [--rates 200,500,1000] [--seconds 20]`` from the
repository root. Starts a kafpy broker on a free loopback port and one SparkSession, then for
each rate runs the job's queries (alerts to Kafka, per-rig windows to Kafka) on a 1 s trigger
while the generator produces at that rate for `--seconds`; then a backlog run (records
produced first, read with availableNow) gives the most the job drains per second.
Prints one table:
- produced/s: what the generator achieved; processed/s: input rows the alerts query read
  per second, from the generator's start until everything was read;
- catch-up s: from the generator's last acknowledgement until both queries had read
  everything (a job that keeps up needs about one trigger interval plus one batch);
- max batch s: the slowest micro-batch of the alerts query;
- broker CPU: the broker process's CPU time over the run's wall time (100% = one core).
A first small backlog run warms the JVM up and is not reported.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from kafpy.spark_jobs import generate, sensor_alerts, session
from tests.support.kafpy_broker import KafpyBroker


def job_args(bootstrap: str, topic: str, checkpoint: Path, trigger: str) -> list[str]:
    return ["--bootstrap-servers", bootstrap, "--checkpoint", str(checkpoint),
            "--input-topic", topic, "--alerts-topic", f"{topic}-warnings",
            "--stats-topic", f"{topic}-stats", "--trigger", trigger]


def cpu_seconds(pid: int) -> float:
    """User+system CPU time a process used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def live_run(spark, bootstrap: str, work: Path, rate: int, seconds: float,
             trigger: str) -> tuple:
    topic = f"bench-live-{rate}"
    count = int(rate * seconds)
    records = list(generate.sensor_readings(count, seed=rate, rigs=20))
    generate.produce(bootstrap, topic, records[:1], key=lambda r: str(r["hcid"]))
    args = sensor_alerts.build_parser().parse_args(
        job_args(bootstrap, topic, work / topic, trigger))
    queries = sensor_alerts.start_queries(spark, args)
    try:
        result: dict = {}

        def produce() -> None:
            t0 = time.monotonic()
            generate.produce(bootstrap, topic, records[1:], key=lambda r: str(r["hcid"]),
                             rate=rate)
            result["elapsed"] = time.monotonic() - t0

        started = time.monotonic()
        producer = threading.Thread(target=produce, daemon=True)
        producer.start()
        producer.join()
        done = time.monotonic()
        for q in queries:
            q.processAllAvailable()
        caught_up = time.monotonic() - done
        progress = queries[0].recentProgress
        total = sum(p["numInputRows"] for p in progress)
        read_rate = total / (time.monotonic() - started)
        max_batch = max((p["durationMs"].get("triggerExecution", 0) for p in progress),
                        default=0) / 1000
    finally:
        for q in queries:
            q.stop()
    return (f"live {rate}/s", f"{count / result['elapsed']:.0f}",
            f"{read_rate:.0f}", f"{caught_up:.1f}",
            f"{max_batch:.1f}", "yes" if total == count else f"no ({total}/{count})")


def backlog_run(spark, bootstrap: str, work: Path, count: int,
                topic: str = "bench-backlog") -> tuple:
    records = generate.sensor_readings(count, seed=3, rigs=20)
    t0 = time.monotonic()
    generate.produce(bootstrap, topic, records, key=lambda r: str(r["hcid"]))
    produce_rate = count / (time.monotonic() - t0)
    args = sensor_alerts.build_parser().parse_args(
        job_args(bootstrap, topic, work / topic, "once"))
    t0 = time.monotonic()
    queries = sensor_alerts.start_queries(spark, args)
    for q in queries:
        q.awaitTermination()
    elapsed = time.monotonic() - t0
    total = sum(p["numInputRows"] for p in queries[0].recentProgress)
    max_batch = max(p["durationMs"].get("triggerExecution", 0)
                    for p in queries[0].recentProgress) / 1000
    return (f"backlog {count}", f"{produce_rate:.0f}", f"{total / elapsed:.0f}", "-",
            f"{max_batch:.1f}", "yes" if total == count else f"no ({total}/{count})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rates", default="200,500,1000", help="generator rates, records/s")
    ap.add_argument("--seconds", type=float, default=20.0, help="generator run per rate")
    ap.add_argument("--backlog", type=int, default=50000, help="records for the backlog run")
    ap.add_argument("--trigger", default="1 second")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kafpy-spark-bench-"))
    broker = KafpyBroker(work_dir=work / "broker")
    broker.start()
    try:
        spark = session.build_session("bench-spark-sensor", log_level="ERROR")
        assert broker.proc is not None
        pid = broker.proc.pid
        # warm-up (JIT, first query plans), not reported
        backlog_run(spark, broker.bootstrap, work, 2000, topic="bench-warmup")
        rows = []
        runs: list[Callable[..., tuple]] = [lambda r=int(r): live_run(spark, broker.bootstrap, work, r, args.seconds,
                                          args.trigger) for r in args.rates.split(",")]
        if args.backlog:
            runs.append(lambda: backlog_run(spark, broker.bootstrap, work, args.backlog))
        for run in runs:
            cpu0, t0 = cpu_seconds(pid), time.monotonic()
            row = run()
            busy = (cpu_seconds(pid) - cpu0) / (time.monotonic() - t0)
            rows.append((*row, f"{100 * busy:.0f}%"))
        spark.stop()
    finally:
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    header = ("run", "produced/s", "processed/s", "catch-up s", "max batch s", "all read",
              "broker CPU")
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for row in (header, *rows):
        print("  ".join(str(x).rjust(w) for x, w in zip(row, widths)))


if __name__ == "__main__":
    main()
