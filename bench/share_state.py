"""Share coordinator writes: kafpy against Apache Kafka, side by side.

    python -m bench.share_state [--writes 2000] [--keys 8] [--repeats 3] [--kafka-version 4]
                                [--only kafpy|kafka]

Both brokers run at once (single node, bench/compare.py's shared settings,
`__share_group_state` with one replica). Per repeat and broker, `--keys` connections each
write the state of their own share partition `--writes / --keys` times, one
WriteShareGroupState in flight per connection (as a share-partition leader writes: each
write waits for the previous one's answer), every write carrying two state batches;
`share.coordinator.snapshot.update.records.per.snapshot` stays at its default (500), so a
snapshot is among the writes. Reported: writes/s over the wall time, and the median and p99
latency of one write as the connection saw it. The brokers take turns, the one going first
alternating; medians of the repeats. Every request is bounded by a socket timeout.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from bench.compare import SHARED_SETTINGS  # noqa: E402
from kafpy.coordinator.share_state.persister import SharePartitionKey  # noqa: E402
from kafpy.protocol.errors import ErrorCode as E  # noqa: E402
from tests.integration.broker.raw import RawConnection  # noqa: E402
from tests.integration.cluster.harness import metadata, wait_until  # noqa: E402
from tests.integration.coordinator.test_share_coordinator import initialize, wait_for_coordinator, write  # noqa: E402
from tests.support.kafka_dist import ReferenceKafka  # noqa: E402
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402

SETTINGS = {**SHARED_SETTINGS, "share.coordinator.state.topic.replication.factor": 1,
            "share.coordinator.state.topic.min.isr": 1}


class _Endpoint:
    def __init__(self, port: int) -> None:
        self.host, self.port = "127.0.0.1", port


def prepare(ep: _Endpoint, bootstrap: str, topic: str, keys: int, group: str) -> list[SharePartitionKey]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, keys, 1)])[topic].result(60)
    md = wait_until(lambda: (lambda m: m.topics[0].topic_id and m)(metadata(ep, [topic])), 30, "topic id")
    tid = uuid.UUID(bytes=bytes(md.topics[0].topic_id))
    out = [SharePartitionKey(group, tid, p) for p in range(keys)]
    with RawConnection(ep.host, ep.port) as c:
        for key in out:
            wait_for_coordinator(ep.host, ep.port, key)
            assert initialize(c, key, 0, 0).error_code == E.NONE
    return out


def run_once(ep: _Endpoint, keys: list[SharePartitionKey], writes: int, leader_epoch: int) -> tuple[float, list[float]]:
    per_key = writes // len(keys)
    latencies: list[list[float]] = [[] for _ in keys]

    def writer(i: int, key: SharePartitionKey) -> None:
        with RawConnection(ep.host, ep.port, timeout=30) as c:
            base = leader_epoch * per_key
            for n in range(per_key):
                off = base + n
                t = time.perf_counter()
                r = write(c, key, 0, leader_epoch, off, [(off, off, 2, 1), (off + 1, off + 10, 0, 1)])
                latencies[i].append(time.perf_counter() - t)
                assert r.error_code == E.NONE, r
    threads = [threading.Thread(target=writer, args=(i, k)) for i, k in enumerate(keys)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return per_key * len(keys) / wall, [x for xs in latencies for x in xs]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--writes", type=int, default=2000)
    ap.add_argument("--keys", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--kafka-version", default="4")
    ap.add_argument("--only", choices=["kafpy", "kafka"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-share-state-") as tmp:
        work = Path(tmp)
        brokers: list[KafpyBroker | ReferenceKafka] = []
        targets = {}
        try:
            if args.only != "kafka":
                b = KafpyBroker(log_dir=work / "kafpy", work_dir=work / "kafpy-work", overrides=SETTINGS)
                brokers.append(b.start())
                targets["kafpy"] = (_Endpoint(b.port), b.bootstrap)
            if args.only != "kafpy":
                k = ReferenceKafka(args.kafka_version, log_dir=work / "kafka", work_dir=work / "kafka-work",
                                   overrides=SETTINGS)
                brokers.append(k.start())
                targets[f"Apache Kafka {k.version}"] = (_Endpoint(k.port), k.bootstrap)
            keys = {name: prepare(ep, bs, "share-bench", args.keys, "bench") for name, (ep, bs) in targets.items()}
            for name, (ep, _) in targets.items():   # warm-up, unmeasured
                run_once(ep, keys[name], args.writes // 4, 1)
            results: dict[str, list[tuple[float, float, float]]] = {n: [] for n in targets}
            names = list(targets)
            for r in range(args.repeats):
                for name in (names if r % 2 == 0 else names[::-1]):
                    rate, lat = run_once(targets[name][0], keys[name], args.writes, 2 + r)
                    lat.sort()
                    results[name].append((rate, statistics.median(lat) * 1000, lat[int(len(lat) * 0.99)] * 1000))
            print(f"WriteShareGroupState, {args.keys} share partitions, {args.writes} writes, "
                  f"one in flight per partition; medians of {args.repeats}")
            print(f"{'broker':<22}{'writes/s':>10}{'median ms':>11}{'p99 ms':>9}")
            for name, rows in results.items():
                rate, med, p99 = (statistics.median(x[i] for x in rows) for i in range(3))
                print(f"{name:<22}{rate:>10,.0f}{med:>11.2f}{p99:>9.2f}")
        finally:
            for broker in brokers:
                broker.stop()


if __name__ == "__main__":
    main()
