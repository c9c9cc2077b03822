"""Share groups (KIP-932): kafpy against Apache Kafka 4.4, side by side in one run.

    python -m bench.share_groups [--consumers 1,4,16] [--records 100000]
                                 [--latency-records 3000] [--rate 1000] [--only kafpy|kafka]

Both brokers run at once (single node, bench/compare.py's shared settings), each warmed
up first with one unmeasured small run. Per consumer
count and broker (the broker going first alternating), `bench/ShareBench.java` (Kafka
4.4's KafkaShareConsumer, implicit acknowledgement, default client settings) runs N
consumers of a new share group on a new one-partition topic:

- throughput: `--records` records of 100 B produced first, then drained by the group;
  records/s from the first delivery to the last;
- latency: `--latency-records` more produced at `--rate` records/s while the group
  consumes; delivery latency from send to the consumer's poll returning the record
  (p50, p99).

Prints one table; every run has a timeout, the command stops by itself.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.compare import SHARED_SETTINGS  # noqa: E402
from tests.support.kafka_dist import (ReferenceKafka, classpath, compile_java,  # noqa: E402
                                      java_executable)
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402

TIMEOUT_S = 600.0


def create_topic(bootstrap: str, topic: str) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        f.result(timeout=60)


def run_once(bootstrap: str, consumers: int, records: int, latency_records: int, rate: int
             ) -> tuple[float, float, float, int]:
    """(records/s, p50 ms, p99 ms, redeliveries) of one ShareBench run."""
    topic = f"share-bench-{uuid.uuid4().hex[:8]}"
    create_topic(bootstrap, topic)
    classes = compile_java(REPO / "bench" / "ShareBench.java", "4")
    cmd = [java_executable(), "-Xmx1g", "-cp", f"{classes}:{classpath('4')}", "ShareBench", bootstrap,
           topic, f"{topic}-group", str(consumers), str(records), str(latency_records), str(rate)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    lines = [line for line in result.stdout.splitlines() if line.startswith("RESULT")]
    if result.returncode != 0 or not lines:
        raise RuntimeError(f"ShareBench exited {result.returncode}:\n{result.stdout[-2000:]}\n"
                           f"{result.stderr[-3000:]}")
    _, rps, p50, p99, redelivered = lines[-1].split()
    return float(rps), float(p50), float(p99), int(redelivered)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--consumers", default="1,4,16")
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--latency-records", type=int, default=3000)
    ap.add_argument("--rate", type=int, default=1000)
    ap.add_argument("--kafka-version", default="4")
    ap.add_argument("--only", choices=["kafpy", "kafka"])
    args = ap.parse_args()
    counts = [int(c) for c in args.consumers.split(",")]
    settings = dict(SHARED_SETTINGS)
    with tempfile.TemporaryDirectory(prefix="share-bench-") as tmp:
        work = Path(tmp)
        brokers: dict[str, KafpyBroker | ReferenceKafka] = {}
        if args.only != "kafka":
            b = KafpyBroker(log_dir=work / "kafpy", work_dir=work / "kafpy-work", overrides=settings)
            b.start()
            brokers["kafpy"] = b
        if args.only != "kafpy":
            k = ReferenceKafka(args.kafka_version, log_dir=work / "kafka", work_dir=work / "kafka-work",
                               overrides=settings)
            k.start()
            brokers[f"Apache Kafka {k.version}"] = k
        results: dict[tuple[str, int], tuple[float, float, float, int]] = {}
        try:
            for name, broker in brokers.items():    # unmeasured: the JVM compiles its hot paths
                run_once(broker.bootstrap, 1, args.records // 5, 200, args.rate)
            for i, n in enumerate(counts):
                order = list(brokers.items())
                if i % 2:
                    order.reverse()
                for name, broker in order:
                    got = run_once(broker.bootstrap, n, args.records, args.latency_records, args.rate)
                    results[(name, n)] = got
                    print(f"  {name} {n} consumers: {got[0]:,.0f} records/s, p50 {got[1]:.1f} ms, "
                          f"p99 {got[2]:.1f} ms, {got[3]} redelivered", flush=True)
        finally:
            for broker in brokers.values():
                broker.stop()
    print(f"\nshare groups: one partition, {args.records:,} records of 100 B drained, then "
          f"{args.latency_records:,} at {args.rate}/s for latency; Java 4.4 KafkaShareConsumers")
    print(f"{'broker':<22} {'consumers':>9} {'records/s':>11} {'p50 ms':>8} {'p99 ms':>8} {'redelivered':>11}")
    for (name, n), (rps, p50, p99, red) in sorted(results.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        print(f"{name:<22} {n:>9} {rps:>11,.0f} {p50:>8.1f} {p99:>8.1f} {red:>11}")


if __name__ == "__main__":
    main()
