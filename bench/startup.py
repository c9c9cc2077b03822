"""From nothing to the first acknowledged produce and the first consumed record, side by side.

    python -m bench.startup [--rounds 3] [--only kafpy,cluster,kafka]

Each round starts, in turns: kafpy's single broker as the pytest fixture starts it
(`kafpy.embedded.EmbeddedBroker`), a kafpy three-broker cluster with its ZooKeeper
(`EmbeddedCluster`), and Apache Kafka 4.4 in KRaft mode, one node (``kafka-storage format``
included, as a fresh container does it). For each: the time from the call to the broker
answering, to the topic created, to the first record acknowledged (acks=all, kafka-python),
to the first record consumed; and the peak RSS (VmHWM) of every process it started, read
once the record was consumed. Clients are imported before the clock starts, and the
checkout's bytecode is written first, as pip writes an installed package's. Then, for the
single kafpy broker, where its start goes: interpreter start, the broker's imports, log
recovery of the empty dir and the listener start (from the broker's own log).

Prints a table of medians with the best round in brackets (the README shows it); raw
figures go to bench/results/.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Callable, Mapping

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kafka import KafkaConsumer, KafkaProducer, TopicPartition  # noqa: E402

from kafpy.embedded import TEST_DEFAULTS, EmbeddedBroker, EmbeddedCluster, create_topics  # noqa: E402
from tests.support.kafka_dist import ReferenceKafka  # noqa: E402

TOPIC = "startup"


def peak_rss_mb(pids: list[int]) -> float:
    """Sum of each process's peak resident set (VmHWM), in MB."""
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        m = re.search(r"VmHWM:\s+(\d+) kB", status)
        total += int(m.group(1)) if m else 0
    return total / 1024


def first_record(bootstrap: str, replication: int,
                 create: Callable[[], object] | None = None) -> tuple[float, float, float]:
    """Create the topic (``create``, else through ``bootstrap``), produce one record, consume
    it: the seconds each step ended at, measured from the call."""
    t0 = time.perf_counter()
    if create is not None:
        create()
    else:
        create_topics(bootstrap, [TOPIC], 1, replication)
    created = time.perf_counter() - t0
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=0)
    producer.send(TOPIC, b"first").get(timeout=60)
    produced = time.perf_counter() - t0
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    tp = TopicPartition(TOPIC, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    got: list = []
    deadline = time.monotonic() + 60
    while not got and time.monotonic() < deadline:
        got = consumer.poll(timeout_ms=200).get(tp, [])
    consumed = time.perf_counter() - t0
    producer.close()
    consumer.close()
    if not got or got[0].value != b"first":
        raise RuntimeError(f"no record consumed from {bootstrap}")
    return created, produced, consumed


def run_kafpy(work: Path) -> dict[str, float]:
    t0 = time.perf_counter()
    broker = EmbeddedBroker(work_dir=work, keep_files=True)
    broker.start()
    ready = time.perf_counter() - t0
    try:
        created, produced, consumed = first_record(broker.bootstrap_servers, 1)
        rss = peak_rss_mb([broker.proc.pid])  # type: ignore[union-attr]
    finally:
        broker.stop()
    return {"ready": ready, "topic": ready + created, "produce": ready + produced,
            "consume": ready + consumed, "rss_mb": rss, **start_parts(broker.log_text())}


def run_cluster(work: Path) -> dict[str, float]:
    t0 = time.perf_counter()
    cluster = EmbeddedCluster(3, work_dir=work, keep_files=True, mode="zookeeper")
    try:
        cluster.start()
        ready = time.perf_counter() - t0
        created, produced, consumed = first_record(
            cluster.bootstrap_servers, 3, lambda: cluster.create_topic(TOPIC, 1, 3))
        pids = [b.proc.pid for b in cluster.brokers]  # type: ignore[union-attr]
        rss = peak_rss_mb(pids)
        zk_rss = peak_rss_mb([cluster.zookeeper.proc.pid])  # type: ignore[union-attr]
    finally:
        cluster.stop()
    return {"ready": ready, "topic": ready + created, "produce": ready + produced,
            "consume": ready + consumed, "rss_mb": rss + zk_rss, "brokers_rss_mb": rss,
            "zookeeper_rss_mb": zk_rss}


def run_kafka(work: Path) -> dict[str, float | str]:
    t0 = time.perf_counter()
    kafka = ReferenceKafka("4", work_dir=work, log_dir=work / "data", overrides={
        "offsets.topic.num.partitions": TEST_DEFAULTS["offsets.topic.num.partitions"],
        "transaction.state.log.num.partitions": TEST_DEFAULTS["transaction.state.log.num.partitions"]})
    kafka.start()
    ready = time.perf_counter() - t0
    try:
        created, produced, consumed = first_record(kafka.bootstrap, 1)
        rss = peak_rss_mb([kafka.proc.pid])  # type: ignore[union-attr]
    finally:
        kafka.stop()
    return {"ready": ready, "topic": ready + created, "produce": ready + produced,
            "consume": ready + consumed, "rss_mb": rss, "version": kafka.version}


_STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] ")


def _stamp(line: str) -> float | None:
    m = _STAMP.match(line)
    return datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp() if m else None


def start_parts(log: str) -> dict[str, float]:
    """From the broker's log: config banner -> logs loaded -> listener bound -> started."""
    marks: dict[str, float] = {}
    for line in log.splitlines():
        t = _stamp(line)
        if t is None:
            continue
        if "KafkaConfig values" in line and "config" not in marks:
            marks["config"] = t
        elif "Loaded " in line and " logs in " in line:
            marks["logs_loaded"] = t
            m = re.search(r"Loaded \d+ logs in ([\d.]+) s", line)
            if m:
                marks["log_recovery_s"] = float(m.group(1))
        elif "Awaiting socket connections" in line:
            marks["listening"] = t
        elif "] started" in line:
            marks["started"] = t
    parts: dict[str, float] = {}
    if {"config", "logs_loaded"} <= marks.keys():
        parts["config_to_logs_loaded"] = marks["logs_loaded"] - marks["config"]
    if {"logs_loaded", "listening"} <= marks.keys():
        parts["logs_loaded_to_listening"] = marks["listening"] - marks["logs_loaded"]
    if "log_recovery_s" in marks:
        parts["log_recovery"] = marks["log_recovery_s"]
    return parts


def import_parts() -> dict[str, float]:
    """A fresh interpreter's start, and the broker's imports on top of it (medians of 3)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def timed(code: str) -> float:
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True, cwd=tempfile.gettempdir())
        return float(out.stdout.strip())
    imports = [timed("import time; t = time.perf_counter(); import uvloop, kafpy.broker.broker; "
                     "print(time.perf_counter() - t)") for _ in range(3)]
    started = time.perf_counter()
    for _ in range(3):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    return {"interpreter_start": (time.perf_counter() - started) / 3,
            "broker_imports": statistics.median(imports)}


#: one round of a setup: its times (s), peak RSS (MB) and, for Kafka, its version
Row = Mapping[str, float | str]

RUNNERS: dict[str, tuple[str, Callable[[Path], Row]]] = {
    "kafpy": ("kafpy broker (fixture)", run_kafpy),
    "cluster": ("kafpy 3 brokers + ZooKeeper", run_cluster),
    "kafka": ("Apache Kafka 4.4 KRaft", run_kafka),
}


def _numbers(rows: list[Row], key: str) -> list[float]:
    return [v for r in rows if isinstance(v := r.get(key), (int, float))]


def median(rows: list[Row], key: str) -> float:
    values = _numbers(rows, key)
    return statistics.median(values) if values else float("nan")


def best(rows: list[Row], key: str) -> float:
    values = _numbers(rows, key)
    return min(values) if values else float("nan")


def print_table(results: dict[str, list[Row]]) -> None:
    """Medians, and in brackets the best round (the least disturbed by other load)."""
    print()
    print("| setup | answers | first produce acked | first record consumed | peak RSS |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for key, rows in results.items():
        label = RUNNERS[key][0]
        cells = [f"{median(rows, k):.2f} s ({best(rows, k):.2f})"
                 for k in ("ready", "produce", "consume")]
        print(f"| {label} | {' | '.join(cells)} | {median(rows, 'rss_mb'):.0f} MB |")


def compile_bytecode() -> None:
    """Write the checkout's bytecode, as ``pip install`` does for an installed kafpy: where
    PYTHONDONTWRITEBYTECODE is set, a checkout has none and every start compiles ~130
    modules from source (0.2 s), which no installed user pays."""
    folders = [str(REPO / d) for d in ("kafpy", "broker", "protocol", "storage", "replication",
                                       "coordinator")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True,
                   stdout=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", default="kafpy,cluster,kafka",
                   help="comma-separated: " + ",".join(RUNNERS))
    p.add_argument("--no-compile", action="store_true",
                   help="leave the checkout without bytecode (a start then compiles the sources)")
    args = p.parse_args(argv)
    if not args.no_compile:
        compile_bytecode()
    keys = [k for k in args.only.split(",") if k]
    results: dict[str, list[Row]] = {k: [] for k in keys}
    base = Path(tempfile.mkdtemp(prefix="kafpy-startup-"))
    try:
        for r in range(args.rounds):
            for key in keys:
                row = RUNNERS[key][1](base / f"{key}-{r}")
                results[key].append(row)
                print(f"round {r + 1} {key}: " + ", ".join(
                    f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                    for k, v in row.items()), flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    parts = import_parts() if "kafpy" in keys else {}
    print_table(results)
    if parts:
        rows = results["kafpy"]
        print(f"\nkafpy's single broker, where the start goes (medians): interpreter start "
              f"{parts['interpreter_start']:.2f} s, broker imports {parts['broker_imports']:.2f} s, "
              f"config to logs loaded {median(rows, 'config_to_logs_loaded'):.2f} s (log recovery "
              f"of the empty dir {median(rows, 'log_recovery'):.3f} s), logs loaded to listening "
              f"{median(rows, 'logs_loaded_to_listening'):.3f} s; answers at "
              f"{median(rows, 'ready'):.2f} s, topic created at {median(rows, 'topic'):.2f} s")
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    out = REPO / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    (out / f"startup-{stamp}.json").write_text(json.dumps(
        {"results": results, "parts": parts, "loadavg": os.getloadavg()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
