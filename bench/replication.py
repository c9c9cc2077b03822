"""Replication side by side: a 3-broker kafpy cluster against a 3-broker Apache Kafka 3.9.1
cluster, both in ZooKeeper mode, driven by Apache's own 3.9.1 tools.

    python -m bench.replication [--records 1000000] [--repeats 3] [--latency-messages 5000]

Per repeat, each kind in turn (the one going first alternates, so drifting machine load falls
on both alike) gets a fresh ZooKeeper and three brokers on free loopback ports in a temp dir,
with the same settings (``SETTINGS``: the cluster tests' 6 s ZooKeeper session, RF 3 defaults,
min.insync.replicas=2), then:

- throughput: ``kafka-producer-perf-test`` with acks=all into a new topic of 6 partitions,
  replication factor 3, min.insync.replicas=2: ``--records`` x 100 B and ``--records``/5 x
  1 KiB, after one unmeasured warm-up run of ``--records`` x 100 B (the JVM compiles its
  hot paths; measuring Kafka cold would flatter us). The three brokers' CPU seconds during
  each run come from /proc; the topic's bytes on each broker's disk are printed as a check
  that all three hold it.
- latency: ``EndToEndLatency`` with acks=all on a 1-partition RF-3 topic, p50 and p99.
- failover: a one-at-a-time acks=all producer (confluent-kafka) on partition 0 of an RF-3
  topic whose partition 0 is led by a broker other than the controller (so no controller
  election is timed); after a few seconds of steady acks the leader is killed with SIGKILL
  between two acks, and the time to the next acknowledged produce (necessarily served by its
  successor) is taken. Bounded below by the ZooKeeper session timeout on both kinds: the
  controller learns of the death when the broker's session expires.

Prints one table (medians over the repeats; the ratio is kafpy over Kafka), writes
``bench/results/<ts>/replication.json`` and stops everything it started, even on failure.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from bench.cluster_failover import all_led, full_isr, until
from bench.compare import cpu_seconds, parse_latency, parse_producer, run_perf_tool
from tests.integration.cluster.harness import CLUSTER_OVERRIDES, leaders, metadata
from tests.support.kafka_dist import DEFAULT_KAFKA_3 as KAFKA_VERSION
from tests.support.zk_kafka import ZkReferenceKafka
from tests.support.kafpy_broker import KafpyBroker
from tests.support.zookeeper import ZooKeeperServer

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
BROKERS = 3
PARTITIONS = 6
MIN_ISR = 2
KINDS = ("kafpy", "kafka")
LABELS = {"kafpy": "kafpy", "kafka": f"Kafka {KAFKA_VERSION}"}

# What both clusters run with: the cluster tests' settings (failover within seconds,
# replicated internal topics) and min.insync.replicas=2 as the broker default too.
SETTINGS = {**CLUSTER_OVERRIDES, "min.insync.replicas": MIN_ISR, "transaction.state.log.replication.factor": 3,
            "transaction.state.log.min.isr": MIN_ISR}

# Row name -> True when higher is better (for the reader; the ratio is always kafpy / Kafka).
ROWS = {
    "produce acks=all {small} x 100 B  MB/s": True,
    "produce acks=all {small} x 100 B  broker CPU s": False,
    "produce acks=all {large} x 1 KiB  MB/s": True,
    "produce acks=all {large} x 1 KiB  broker CPU s": False,
    "e2e latency acks=all p50 ms": False,
    "e2e latency acks=all p99 ms": False,
    "failover: kill -9 p0 leader -> next ack s": False,
}


# -- pure helpers (unit-tested) -----------------------------------------------------------
def replica_assignment(broker_ids: list[int], first_leader: int, partitions: int) -> str:
    """``kafka-topics --replica-assignment`` value: every broker a replica of every partition,
    preferred leaders rotating from ``first_leader`` (partition 0's leader)."""
    start = broker_ids.index(first_leader)
    n = len(broker_ids)
    return ",".join(":".join(str(broker_ids[(start + p + i) % n]) for i in range(n)) for p in range(partitions))


def row_names(records: int) -> list[str]:
    return [r.format(small=f"{records // 1000}k", large=f"{records // 5 // 1000}k") for r in ROWS]


def table_rows(results: dict[str, dict[str, list[float]]]) -> list[tuple[str, float, float, float]]:
    """(row, kafpy median, Kafka median, kafpy / Kafka) for every row both kinds measured, in
    the order kafpy's results hold them."""
    rows = []
    ours, theirs = results.get("kafpy", {}), results.get("kafka", {})
    for name, values in ours.items():
        if not values or not theirs.get(name):
            continue
        a, b = statistics.median(values), statistics.median(theirs[name])
        rows.append((name, a, b, a / b if b else float("nan")))
    return rows


def format_table(rows: list[tuple[str, float, float, float]]) -> str:
    w = max([len(r[0]) for r in rows] + [3])
    lines = [f"{'row':{w}s}  {LABELS['kafpy']:>10s}  {LABELS['kafka']:>11s}  {'ratio':>6s}"]
    lines += [f"{name:{w}s}  {a:10.2f}  {b:11.2f}  {ratio:6.2f}" for name, a, b, ratio in rows]
    return "\n".join(lines)


# -- one cluster --------------------------------------------------------------------------
@dataclass
class Cluster:
    """ZooKeeper and three brokers of one kind, started here and stopped by ``stop``."""
    kind: str
    zk: ZooKeeperServer
    brokers: list = field(default_factory=list)

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.brokers)

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(b.proc.pid) for b in self.brokers if b.proc.poll() is None)

    def topic_bytes(self, topic: str) -> list[int]:
        """Bytes of ``topic``'s segment files on each broker's disk: alike on all three when
        the followers hold what was acknowledged."""
        return [sum(f.stat().st_size for d in b.log_dir.glob(f"{topic}-*") for f in d.glob("*.log"))
                for b in self.brokers]

    def stop(self) -> None:
        for b in reversed(self.brokers):
            try:
                b.stop()
            except Exception as e:  # noqa: BLE001 - stop the rest whatever one does
                print(f"  stopping {b.bootstrap}: {e}", flush=True)
        self.zk.stop()


def start_cluster(kind: str, work: Path, cluster_box: list) -> Cluster:
    """ZooKeeper and three brokers; appended to ``cluster_box`` before the first start so a
    caller's ``finally`` can stop whatever came up."""
    zk = ZooKeeperServer(data_dir=work / "zk")
    cluster = Cluster(kind, zk)
    cluster_box.append(cluster)
    zk.start()
    for i in range(BROKERS):
        settings = {**SETTINGS, "broker.id": i, "zookeeper.connect": zk.connect_string}
        if kind == "kafpy":
            b: KafpyBroker | ZkReferenceKafka = KafpyBroker(work_dir=work / f"broker{i}", overrides=settings)
        else:
            b = ZkReferenceKafka(zk.connect_string, i, work_dir=work / f"broker{i}",
                                 log_dir=work / f"broker{i}" / "data", overrides=SETTINGS)
        cluster.brokers.append(b)
        b.start()
    for b in cluster.brokers:
        until(lambda b=b: (lambda md: len(md.brokers) == BROKERS and md.controller_id >= 0)(metadata(b)), 120,
              f"{b.bootstrap} knows the {BROKERS} brokers and a controller")
    return cluster


def tool(name: str, args: list[str], timeout: float) -> str:
    return run_perf_tool(KAFKA_VERSION, name, args, timeout)


def create_topic(c: Cluster, topic: str, partitions: int, assignment: str | None = None) -> None:
    """An RF-3 topic with min.insync.replicas=2, returned once every broker shows a leader
    and a full ISR for each partition."""
    layout = ["--replica-assignment", assignment] if assignment else \
        ["--partitions", str(partitions), "--replication-factor", str(BROKERS)]
    tool("kafka-topics", ["--bootstrap-server", c.brokers[0].bootstrap, "--create", "--topic", topic, *layout,
                          "--config", f"min.insync.replicas={MIN_ISR}"], 120)
    for b in c.brokers:
        until(lambda b=b: (lambda md: all_led(md, topic, partitions) and full_isr(md, topic))(metadata(b, [topic])),
              120, f"{b.bootstrap} shows {topic} led with full ISRs")


def produce(c: Cluster, topic: str, records: int, size: int) -> dict:
    cpu0 = c.cpu_seconds()
    res = parse_producer(tool("kafka-producer-perf-test", [
        "--topic", topic, "--num-records", str(records), "--record-size", str(size), "--throughput", "-1",
        "--producer-props", f"bootstrap.servers={c.bootstrap}", "acks=all"], 600))
    res["broker_cpu_s"] = round(c.cpu_seconds() - cpu0, 2)
    res["bytes_per_broker"] = c.topic_bytes(topic)
    return res


def latency(c: Cluster, topic: str, messages: int) -> dict:
    return parse_latency(tool("kafka-e2e-latency", [c.brokers[0].bootstrap, topic, str(messages), "all", "100"],
                              600))


def failover(c: Cluster, topic: str, steady_s: float = 3.0, timeout: float = 90.0) -> float:
    """Seconds from SIGKILL of partition 0's leader to the next acks=all produce acknowledged
    (by its successor: the producer has one record in flight at a time and the kill falls
    between two acks)."""
    from confluent_kafka import Producer

    victim = leaders(metadata(c.brokers[0], [topic]), topic)[0]
    producer = Producer({"bootstrap.servers": c.bootstrap, "acks": "all", "linger.ms": 0,
                         "message.timeout.ms": 10000, "retry.backoff.ms": 20, "retry.backoff.max.ms": 100,
                         "reconnect.backoff.ms": 20, "reconnect.backoff.max.ms": 200,
                         "log_level": 0})  # the dead leader's refused connects are expected
    try:
        def send(deadline: float) -> float | None:
            """Monotonic time of the ack, or None when the record failed or timed out."""
            done: list[tuple[object, float]] = []
            producer.produce(topic, b"x" * 100, partition=0,
                             on_delivery=lambda err, _msg: done.append((err, time.monotonic())))
            while not done and time.monotonic() < deadline:
                producer.poll(0.005)
            return done[0][1] if done and done[0][0] is None else None

        start = time.monotonic()
        steady = 0
        while time.monotonic() - start < steady_s:
            steady += send(start + 30) is not None
        if not steady:
            raise RuntimeError(f"{c.kind}: no acks=all produce succeeded before the kill")
        c.brokers[victim].kill()
        killed = time.monotonic()
        while time.monotonic() - killed < timeout:
            acked = send(killed + timeout)
            if acked is not None:
                return acked - killed
        raise TimeoutError(f"{c.kind}: no ack within {timeout:.0f}s of killing broker {victim}")
    finally:
        producer.flush(0)


def run_kind(kind: str, work: Path, records: int, latency_messages: int, rep: int,
             results: dict[str, list[float]], cluster_box: list) -> None:
    """One turn: fresh cluster, throughput, latency, failover, stop."""
    names = row_names(records)
    c = start_cluster(kind, work, cluster_box)
    say: Callable[[str], None] = lambda s: print(f"  {LABELS[kind]:11s} rep {rep + 1}: {s}", flush=True)
    say(f"cluster up at {c.bootstrap}")
    create_topic(c, "warm-up", PARTITIONS)
    produce(c, "warm-up", records, 100)
    for i, (count, size) in enumerate(((records, 100), (records // 5, 1024))):
        topic = f"tput-{size}"
        create_topic(c, topic, PARTITIONS)
        res = produce(c, topic, count, size)
        results.setdefault(names[2 * i], []).append(res["mb_per_s"])
        results.setdefault(names[2 * i + 1], []).append(res["broker_cpu_s"])
        say(f"produce {count} x {size} B: {res['mb_per_s']:.2f} MB/s, {res['records_per_s']:.0f} rec/s, "
            f"broker CPU {res['broker_cpu_s']:.1f} s, MB on each broker's disk "
            f"{'/'.join(f'{n / 1e6:.0f}' for n in res['bytes_per_broker'])}")
    create_topic(c, "e2e", 1)
    lat = latency(c, "e2e", latency_messages)
    results.setdefault(names[4], []).append(lat["p50_ms"])
    results.setdefault(names[5], []).append(lat["p99_ms"])
    say(f"e2e latency p50 {lat['p50_ms']} ms, p99 {lat['p99_ms']} ms")
    controller = metadata(c.brokers[0]).controller_id
    ids = list(range(BROKERS))
    create_topic(c, "failover", PARTITIONS, replica_assignment(ids, ids[(controller + 1) % BROKERS], PARTITIONS))
    took = failover(c, "failover")
    results.setdefault(names[6], []).append(took)
    say(f"failover {took:.2f} s")


def main(argv: list[str] | None = None) -> int:
    # Kafka's brokers log at WARN while measured (the cluster tests read INFO lines).
    os.environ.setdefault("KAFPY_KAFKA_LOG_LEVEL", "WARN")
    ap = argparse.ArgumentParser(prog="python -m bench.replication", description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=1_000_000,
                    help="records of 100 B per throughput run; the 1 KiB run sends a fifth (default 1000000)")
    ap.add_argument("--repeats", type=int, default=3, help="turns per kind; medians are reported (default 3)")
    ap.add_argument("--latency-messages", type=int, default=5000, help="EndToEndLatency messages (default 5000)")
    args = ap.parse_args(argv)
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    results: dict[str, dict[str, list[float]]] = {k: {} for k in KINDS}
    began = time.monotonic()
    for rep in range(args.repeats):
        for kind in (KINDS if rep % 2 == 0 else KINDS[::-1]):
            work = Path(tempfile.mkdtemp(prefix=f"kafpy-repl-{kind}-"))
            box: list[Cluster] = []
            try:
                run_kind(kind, work, args.records, args.latency_messages, rep, results[kind], box)
            finally:
                for c in box:
                    c.stop()
                shutil.rmtree(work, ignore_errors=True)
    rows = table_rows(results)
    print(f"\n3 brokers each (ZooKeeper mode), RF 3, min.insync.replicas={MIN_ISR}, "
          f"zookeeper.session.timeout.ms={SETTINGS['zookeeper.session.timeout.ms']}, repeats={args.repeats}, "
          f"{time.monotonic() - began:.0f} s; ratio = kafpy / Kafka")
    print(format_table(rows))
    out = RESULTS / stamp
    out.mkdir(parents=True, exist_ok=True)
    path = out / "replication.json"
    path.write_text(json.dumps({"time": stamp, "records": args.records, "repeats": args.repeats,
                                "settings": SETTINGS, "raw": results, "rows": rows}, indent=1))
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
