"""Consumers taking turns on both brokers: one topic each, the same data, alternating runs.

    python -m bench.consume_alternating [--records 2000000] [--size 100] [--codec lz4]
                                        [--acks all] [--repeats 4] [--warmups 3]

Starts kafpy and Apache Kafka 4 with ``bench.compare``'s shared settings, warms both up
(``--warmups`` produce + consume runs on a separate topic, so Kafka's JIT is hot),
produces ``--records`` records once to a 6-partition topic on each, then runs Apache's
``kafka-consumer-perf-test`` on the two topics in turns, alternating which broker goes
first, and prints each run's throughput with the tool's own split of rebalance and fetch
time, then the medians. It isolates the consume rows of ``bench.compare``, where each
consume follows its own produce, so that those rows can be checked with more repeats.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench.compare import SHARED_SETTINGS, parse_consumer, run_perf_tool
from tests.support.kafka_dist import ReferenceKafka
from tests.support.kafpy_broker import KafpyBroker


def _tool(name: str, args: list[str]) -> str:
    return run_perf_tool("4", name, args, 600)


def _produce(bootstrap: str, topic: str, records: int, size: int, acks: str, codec: str) -> str:
    return _tool("kafka-producer-perf-test", [
        "--topic", topic, "--num-records", str(records), "--record-size", str(size), "--throughput", "-1",
        "--producer-props", f"bootstrap.servers={bootstrap}", f"acks={acks}", f"compression.type={codec}"])


def _consume(bootstrap: str, topic: str, records: int) -> dict:
    return parse_consumer(_tool("kafka-consumer-perf-test", ["--bootstrap-server", bootstrap, "--topic", topic,
                                                           "--messages", str(records), "--timeout", "120000"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=2_000_000)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--codec", default="lz4")
    ap.add_argument("--acks", default="all")
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--warmups", type=int, default=3)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kafpy-alt-"))
    brokers: dict[str, KafpyBroker | ReferenceKafka] = {}
    try:
        brokers["kafpy"] = KafpyBroker(log_dir=work / "kafpy", work_dir=work / "kafpy-work",
                                       overrides=SHARED_SETTINGS).start()
        brokers["kafka"] = ReferenceKafka("4", log_dir=work / "kafka", work_dir=work / "kafka-work",
                                          overrides=SHARED_SETTINGS).start()
        for b in brokers.values():
            for topic in ("warm", "data"):
                _tool("kafka-topics", ["--bootstrap-server", b.bootstrap, "--create", "--topic", topic,
                                       "--partitions", "6", "--replication-factor", "1"])
            for _ in range(args.warmups):
                _produce(b.bootstrap, "warm", args.records, args.size, args.acks, args.codec)
                _consume(b.bootstrap, "warm", args.records)
            _produce(b.bootstrap, "data", args.records, args.size, args.acks, args.codec)
        runs: dict[str, list[dict]] = {"kafpy": [], "kafka": []}
        print(f"{args.records} x {args.size} B, {args.codec}, acks={args.acks}")
        print(f"{'broker':<7}{'MB/s':>8}{'rebalance ms':>14}{'fetch ms':>10}{'fetch MB/s':>12}")
        for rep in range(args.repeats):
            order = ("kafpy", "kafka") if rep % 2 == 0 else ("kafka", "kafpy")
            for name in order:
                r = _consume(brokers[name].bootstrap, "data", args.records)
                runs[name].append(r)
                print(f"{name:<7}{r['mb_per_s']:>8.1f}{r['rebalance_ms']:>14}{r['fetch_ms']:>10}"
                      f"{r['fetch_mb_per_s']:>12.1f}", flush=True)
        ours = statistics.median(r["mb_per_s"] for r in runs["kafpy"])
        theirs = statistics.median(r["mb_per_s"] for r in runs["kafka"])
        print(f"median MB/s: kafpy {ours:.1f}, Kafka {theirs:.1f}, ratio {ours / theirs:.2f}")
    finally:
        for b in brokers.values():
            b.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
