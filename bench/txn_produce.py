"""Transactional produce throughput: kafpy against Apache Kafka, side by side.

    python -m bench.txn_produce [--transactions 300] [--per-transaction 100] [--size 100]
                                [--repeats 3] [--kafka-version 4] [--only kafpy|kafka]

Both brokers run at once (single node, as bench/compare.py starts them, with its shared
settings). Per repeat and broker, one confluent-kafka transactional producer (librdkafka,
acks=all, idempotent) writes `--transactions` transactions of `--per-transaction` records of
`--size` bytes over a topic with 3 partitions, committing each; the brokers take turns,
the one going first alternating. After an unmeasured warm-up of 20 transactions, records/s
is the measured records over the wall time from the first begin to the last commit; the
median commit latency is taken per transaction. Medians of the repeats are printed in one
table. Every run is bounded (librdkafka timeouts); the command stops by itself.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from confluent_kafka import KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from bench.compare import SHARED_SETTINGS  # noqa: E402
from tests.support.kafka_dist import ReferenceKafka  # noqa: E402
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402

PARTITIONS = 3
WARMUP = 20


def create_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(topic, PARTITIONS, 1)]).values():
        f.result(60)


def run_once(bootstrap: str, topic: str, txn_id: str, transactions: int, per_txn: int,
             size: int) -> tuple[float, float]:
    """(records/s, median commit ms) of one producer's transactions."""
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id,
                  "linger.ms": 5, "transaction.timeout.ms": 60000})
    p.init_transactions(60)
    value = b"x" * size

    def one(i: int) -> float:
        p.begin_transaction()
        for j in range(per_txn):
            p.produce(topic, value=value, partition=(i + j) % PARTITIONS)
        t = time.perf_counter()
        p.commit_transaction(60)  # flushes, then ends the transaction
        return time.perf_counter() - t
    for i in range(WARMUP):
        one(i)
    start = time.perf_counter()
    commits = [one(i) for i in range(transactions)]
    elapsed = time.perf_counter() - start
    p.close()
    return transactions * per_txn / elapsed, statistics.median(commits) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--transactions", type=int, default=300)
    ap.add_argument("--per-transaction", type=int, default=100)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--kafka-version", default="4")
    ap.add_argument("--only", choices=["kafpy", "kafka"])
    args = ap.parse_args()

    brokers: list = []
    targets: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="txn-bench-") as tmp:
        work = Path(tmp)
        try:
            if args.only in (None, "kafpy"):
                b = KafpyBroker(log_dir=work / "kafpy", work_dir=work / "kafpy-work",
                                overrides=SHARED_SETTINGS)
                brokers.append(b.start())
                targets["kafpy"] = b.bootstrap
            if args.only in (None, "kafka"):
                k = ReferenceKafka(args.kafka_version, log_dir=work / "kafka",
                                   work_dir=work / "kafka-work", overrides=SHARED_SETTINGS)
                brokers.append(k.start())
                targets[f"Apache Kafka {k.version}"] = k.bootstrap
            for name, bootstrap in targets.items():
                create_topic(bootstrap, "txn-bench")
            results: dict[str, list[tuple[float, float]]] = {n: [] for n in targets}
            failed: dict[str, str] = {}
            order = list(targets)
            for r in range(args.repeats):
                for name in (order if r % 2 == 0 else order[::-1]):
                    if name in failed:
                        continue
                    try:
                        results[name].append(run_once(
                            targets[name], "txn-bench", f"txn-bench-{r}", args.transactions,
                            args.per_transaction, args.size))
                    except KafkaException as e:  # a broker without transactions
                        failed[name] = str(e.args[0])
                        continue
                    print(f"  repeat {r + 1} {name}: {results[name][-1][0]:,.0f} records/s",
                          flush=True)
        finally:
            for b in brokers:
                b.stop()

    print(f"\ntransactional produce: {args.transactions} transactions x {args.per_transaction}"
          f" records x {args.size} B, {PARTITIONS} partitions, medians of {args.repeats}")
    print(f"{'broker':<20} {'records/s':>12} {'txn/s':>8} {'commit ms':>10} {'range records/s':>22}")
    for name, error in failed.items():
        print(f"{name:<20} failed: {error}")
    results = {n: rows for n, rows in results.items() if rows}
    for name, rows in results.items():
        rate = statistics.median(r for r, _ in rows)
        lo, hi = min(r for r, _ in rows), max(r for r, _ in rows)
        print(f"{name:<20} {rate:>12,.0f} {rate / args.per_transaction:>8,.1f} "
              f"{statistics.median(c for _, c in rows):>10.1f} {f'{lo:,.0f}-{hi:,.0f}':>22}")
    if len(results) == 2:
        (a, ra), (b_name, rb) = [(n, statistics.median(r for r, _ in rows)) for n, rows in results.items()]
        print(f"ratio {a}/{b_name}: {ra / rb:.2f}")


if __name__ == "__main__":
    main()
