"""How fast the ZooKeeper-mode cluster reacts: failover and metadata propagation.

    python -m bench.cluster_failover [--partitions 1000] [--session-timeout-ms 6000] [--runs 1]

Starts its own ZooKeeper and three kafpy brokers on free loopback ports (in a temp dir,
removed afterwards) with the cluster tests' settings, then measures, polling Metadata every
``POLL_S`` seconds:

- leader failover: SIGKILL of a broker leading partitions (not the controller) until a
  surviving broker's Metadata names live leaders for every partition of a 13-partition RF-3
  topic. Bounded below by zookeeper.session.timeout.ms: the controller learns of the death
  when the broker's session expires.
- controller failover: SIGKILL of the controller until a surviving broker names another one.
- metadata propagation: CreateTopics of an RF-3 topic with ``--partitions`` partitions until
  every broker's Metadata shows a leader for each of them.

Prints one table row per measurement (the median over ``--runs``).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from kafka.admin import KafkaAdminClient, NewTopic

from kafpy.protocol.messages import MetadataResponse

from tests.integration.cluster.harness import CLUSTER_OVERRIDES, leaders, metadata
from tests.support.kafpy_broker import KafpyBroker
from tests.support.zookeeper import ZooKeeperServer

POLL_S = 0.02
FAILOVER_PARTITIONS = 13
BROKERS = 3


def until(check: Callable[..., object], timeout: float, what: str) -> float:
    """Seconds until ``check`` returns something true (polled every POLL_S)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            if check():
                return time.monotonic() - start
        except OSError:
            pass
        time.sleep(POLL_S)
    raise TimeoutError(f"{what} not within {timeout:.0f}s")


def all_led(md: MetadataResponse, topic: str, count: int) -> bool:
    """Every one of the topic's ``count`` partitions led by a broker the metadata lists."""
    live = {b.node_id for b in md.brokers}
    lead = leaders(md, topic) if any(t.name == topic for t in md.topics) else {}
    return len(lead) == count and all(b in live for b in lead.values())


def full_isr(md: MetadataResponse, topic: str) -> bool:
    return all(len(p.isr_nodes) == BROKERS for t in md.topics if t.name == topic for p in t.partitions)


def create_topic(brokers: list[KafpyBroker], topic: str, partitions: int) -> None:
    admin = KafkaAdminClient(bootstrap_servers=[b.bootstrap for b in brokers], request_timeout_ms=120000)
    try:
        admin.create_topics([NewTopic(topic, partitions, BROKERS)], timeout_ms=120000)
    finally:
        admin.close()


def settle(brokers: list[KafpyBroker], topic: str, timeout: float) -> None:
    """Every broker knows the others, a controller, live leaders and full ISRs for ``topic``."""
    for b in brokers:
        until(lambda b=b: (lambda md: len(md.brokers) == BROKERS and md.controller_id >= 0
                           and all_led(md, topic, FAILOVER_PARTITIONS) and full_isr(md, topic))(metadata(b)),
              timeout, f"{b.bootstrap} settled")


def leader_failover(brokers: list[KafpyBroker], topic: str, timeout: float) -> float:
    md = metadata(brokers[0])
    victim = next(i for i in set(leaders(md, topic).values()) if i != md.controller_id)
    survivor = brokers[md.controller_id]
    brokers[victim].kill()
    took = until(lambda: (lambda md: victim not in leaders(md, topic).values()
                          and all_led(md, topic, FAILOVER_PARTITIONS))(metadata(survivor)),
                 timeout, "new leaders")
    brokers[victim].start()
    return took


def controller_failover(brokers: list[KafpyBroker], timeout: float) -> float:
    old = metadata(brokers[0]).controller_id
    survivor = brokers[(old + 1) % BROKERS]
    brokers[old].kill()
    took = until(lambda: (lambda c: c >= 0 and c != old)(metadata(survivor).controller_id), timeout,
                 "a new controller")
    brokers[old].start()
    return took


def metadata_propagation(brokers: list[KafpyBroker], topic: str, partitions: int, timeout: float) -> float:
    start = time.monotonic()
    create_topic(brokers, topic, partitions)
    for b in brokers:
        until(lambda b=b: all_led(metadata(b, [topic]), topic, partitions), timeout - (time.monotonic() - start),
              f"{b.bootstrap} shows {partitions} leaders")
    return time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--partitions", type=int, default=1000)
    ap.add_argument("--session-timeout-ms", type=int, default=CLUSTER_OVERRIDES["zookeeper.session.timeout.ms"])
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kafpy-failover-"))
    settings = {**CLUSTER_OVERRIDES, "zookeeper.session.timeout.ms": args.session_timeout_ms}
    failover_timeout = args.session_timeout_ms / 1000 + 30
    zk = ZooKeeperServer(data_dir=work / "zk")
    brokers: list[KafpyBroker] = []
    rows: dict[str, list[float]] = {"leader failover (kill -9 leader -> new leaders in Metadata)": [],
                                    "controller failover (kill -9 controller -> new controller)": [],
                                    f"metadata propagation ({args.partitions} partitions, RF 3)": []}
    try:
        zk.start()
        for i in range(BROKERS):
            brokers.append(KafpyBroker(work_dir=work / f"broker{i}", overrides={
                **settings, "broker.id": i, "zookeeper.connect": zk.connect_string}).start())
        create_topic(brokers, "failover", FAILOVER_PARTITIONS)
        for run in range(args.runs):
            names = iter(rows)
            settle(brokers, "failover", 120)
            rows[next(names)].append(leader_failover(brokers, "failover", failover_timeout))
            settle(brokers, "failover", 120)
            rows[next(names)].append(controller_failover(brokers, failover_timeout))
            settle(brokers, "failover", 120)
            rows[next(names)].append(metadata_propagation(brokers, f"wide-{run}", args.partitions, 300))
    finally:
        for b in reversed(brokers):
            b.stop()
        zk.stop()
        shutil.rmtree(work, ignore_errors=True)
    width = max(map(len, rows))
    print(f"3 kafpy brokers, zookeeper.session.timeout.ms={args.session_timeout_ms}, runs={args.runs}")
    print(f"{'measurement':<{width}}  {'median s':>9}  {'min s':>7}  {'max s':>7}")
    for name, values in rows.items():
        print(f"{name:<{width}}  {statistics.median(values):>9.2f}  {min(values):>7.2f}  {max(values):>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
