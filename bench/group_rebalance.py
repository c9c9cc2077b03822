"""Group rebalances: kafpy against Apache Kafka 4.4, classic and consumer protocol, side by side.

    python -m bench.group_rebalance [--members 1,10,50] [--partitions 100] [--repeats 1]
                                    [--kafka-version 4] [--only kafpy|kafka]

Both brokers run at once (single node, bench/compare.py's shared settings: among them
group.initial.rebalance.delay.ms=0; every group.consumer.* setting at Kafka's default,
heartbeat interval 5 s). Per broker, protocol and member count, N confluent-kafka
(librdkafka) consumers of one new group subscribe to a topic of `--partitions`
partitions, all driven from one thread (poll(0) round robin); the classic members use
librdkafka's default assignors (range, roundrobin: eager), the consumer-protocol ones the
broker's default (uniform). Measured from the members' own assignment and revocation
callbacks:

- join: from the first subscribe until every partition is owned by exactly one member
  and every member owns at least one (or all, with one member);
- departure pause: one member closes (leaving the group); from then until the other
  members own every partition again (the longest a partition goes unowned).

Prints one table; every wait is bounded, the command stops by itself.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from confluent_kafka import Consumer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from bench.compare import SHARED_SETTINGS  # noqa: E402
from tests.support.kafka_dist import ReferenceKafka  # noqa: E402
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402

TIMEOUT_S = 180.0


class Members:
    """N consumers of one group and who owns which partition, from their callbacks."""

    def __init__(self, bootstrap: str, topic: str, group: str, protocol: str, n: int) -> None:
        self.owner: dict[int, int] = {}
        self.consumers: list[Consumer | None] = []   # None: a member that left
        for i in range(n):
            conf = {"bootstrap.servers": bootstrap, "group.id": group, "client.id": f"m{i}",
                    "enable.auto.commit": False, "auto.offset.reset": "latest"}
            if protocol == "consumer":
                conf["group.protocol"] = "consumer"
            self.consumers.append(Consumer(conf))
        for i, c in enumerate(self.consumers):
            assert c is not None
            # mypy infers no lambda that binds the loop variable as a default argument
            c.subscribe([topic], on_assign=lambda _c, ps, i=i: self._assign(i, ps),  # type: ignore[misc]
                        on_revoke=lambda _c, ps, i=i: self._revoke(i, ps),  # type: ignore[misc]
                        on_lost=lambda _c, ps, i=i: self._revoke(i, ps))  # type: ignore[misc]

    def _assign(self, i: int, parts) -> None:
        for tp in parts:
            self.owner[tp.partition] = i

    def _revoke(self, i: int, parts) -> None:
        for tp in parts:
            if self.owner.get(tp.partition) == i:
                del self.owner[tp.partition]

    def pump(self, until, timeout: float = TIMEOUT_S) -> float:
        """Poll every live member until `until()`; returns the seconds it took."""
        start = time.monotonic()
        while not until():
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"not settled in {timeout:.0f}s: {len(self.owner)} owned")
            for c in self.consumers:
                if c is not None:
                    c.poll(0)
            time.sleep(0.001)
        return time.monotonic() - start

    def close(self) -> None:
        for c in self.consumers:
            if c is not None:
                c.close()


def run_once(bootstrap: str, topic: str, partitions: int, protocol: str, n: int) -> tuple[float, float]:
    """(seconds to a stable assignment, seconds of the departure pause)."""
    group = f"bench-{protocol}-{n}-{uuid.uuid4().hex[:6]}"
    t0 = time.monotonic()
    m = Members(bootstrap, topic, group, protocol, n)
    try:
        def stable() -> bool:
            return (len(m.owner) == partitions
                    and len(set(m.owner.values())) == min(n, partitions))
        m.pump(stable)
        join = time.monotonic() - t0
        if n < 2:
            return join, float("nan")
        leaving = m.consumers[0]
        assert leaving is not None
        m.consumers[0] = None
        t1 = time.monotonic()
        leaving.close()
        for p in [p for p, i in m.owner.items() if i == 0]:
            del m.owner[p]
        m.pump(lambda: len(m.owner) == partitions and 0 not in m.owner.values())
        return join, time.monotonic() - t1
    finally:
        m.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", default="1,10,50")
    ap.add_argument("--partitions", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--kafka-version", default="4")
    ap.add_argument("--only", choices=["kafpy", "kafka"])
    args = ap.parse_args()
    counts = [int(x) for x in args.members.split(",")]

    brokers: list = []
    targets: dict[str, str] = {}
    rows: dict[tuple[str, str, int], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="rebalance-bench-") as tmp:
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
            for bootstrap in targets.values():
                admin = AdminClient({"bootstrap.servers": bootstrap})
                admin.create_topics([NewTopic("rebalance-bench", args.partitions, 1)])[
                    "rebalance-bench"].result(60)
            order = list(targets)
            for r in range(args.repeats):
                for protocol in ("classic", "consumer"):
                    for n in counts:
                        for name in (order if r % 2 == 0 else order[::-1]):
                            got = run_once(targets[name], "rebalance-bench", args.partitions,
                                           protocol, n)
                            rows.setdefault((name, protocol, n), []).append(got)
                            print(f"  {name} {protocol} {n} members: join {got[0]:.2f}s, "
                                  f"departure {got[1]:.2f}s", flush=True)
        finally:
            for b in brokers:
                b.stop()

    print(f"\ngroup rebalances: {args.partitions} partitions, confluent-kafka members, "
          f"medians of {args.repeats}")
    print(f"{'broker':<20} {'protocol':<9} {'members':>7} {'join s':>8} {'departure s':>12}")
    for (name, protocol, n), runs in rows.items():
        print(f"{name:<20} {protocol:<9} {n:>7} {statistics.median(j for j, _ in runs):>8.2f} "
              f"{statistics.median(d for _, d in runs):>12.2f}")


if __name__ == "__main__":
    main()
