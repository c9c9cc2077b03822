"""A three-node KRaft cluster, kafpy against Apache Kafka 4.4, side by side.

    python -m bench.kraft [--partitions 5000] [--replication-factor 3] [--runs 1] [--only kafpy|kafka]

Each implementation runs three combined nodes (``process.roles=broker,controller``, static
``controller.quorum.voters``, each directory formatted by its own ``kafka-storage format``)
on free loopback ports in a temp dir (removed afterwards), one after the other, and the bench
measures, polling every ``POLL_S`` seconds:

- start: from launching the three processes until a broker's Metadata lists all three;
- controller failover: kill -9 of the active controller (the node answering DescribeQuorum as
  leader) until the next CreateTopics, retried on a survivor, succeeds;
- partitions: CreateTopics of ``--partitions`` partitions (replication factor
  ``--replication-factor``) until every live broker's Metadata shows a live leader for each;
- RSS: each node's resident set after all of the above (MB), and the largest.

Prints one table: each measurement (median over ``--runs``) for both and the ratio
kafpy/Kafka (lower is better everywhere). Apache's nodes run the JVM flags of
``tests/support/kafka_dist.py`` (1 GB heap, G1).
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import KafkaError

from kafpy.protocol import codec
from kafpy.protocol.messages import (
    DescribeQuorumRequest, DescribeQuorumResponse, MetadataRequest, MetadataResponse, RequestHeader,
)
from tests.support import wire
from tests.support.kafka_dist import java_command, random_cluster_id, run_tool
from tests.support.ports import LOOPBACK, free_ports

REPO = Path(__file__).resolve().parents[1]
POLL_S = 0.05
NODES = (1, 2, 3)
TIMEOUT_S = 300.0


def until(check: Callable[[], object], timeout: float, what: str) -> float:
    """Seconds until ``check`` returns something true (errors count as not yet)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            if check():
                return time.monotonic() - start
        except (OSError, ValueError, AssertionError):
            pass
        time.sleep(POLL_S)
    raise TimeoutError(f"{what} not within {timeout:.0f}s")


def metadata(port: int, topics: list[str] | None = None) -> MetadataResponse:
    header = RequestHeader(request_api_key=3, request_api_version=12, correlation_id=1, client_id="bench-kraft")
    req = MetadataRequest(topics=None if topics is None else [MetadataRequest.MetadataRequestTopic(name=t)
                                                              for t in topics],
                          allow_auto_topic_creation=False)
    body = codec.decode_response(3, 12, wire.roundtrip(LOOPBACK, port, codec.encode_request(header, req),
                                                        timeout=10))[1]
    assert isinstance(body, MetadataResponse)
    return body


def quorum_leader(port: int) -> int | None:
    """The node id of the raft leader if the controller on ``port`` is it, else None."""
    header = RequestHeader(request_api_key=55, request_api_version=2, correlation_id=1, client_id="bench-kraft")
    req = DescribeQuorumRequest(topics=[DescribeQuorumRequest.TopicData(
        topic_name="__cluster_metadata", partitions=[DescribeQuorumRequest.PartitionData(partition_index=0)])])
    body = codec.decode_response(55, 2, wire.roundtrip(LOOPBACK, port, codec.encode_request(header, req),
                                                        timeout=5))[1]
    assert isinstance(body, DescribeQuorumResponse)
    part = body.topics[0].partitions[0] if body.topics else None
    return part.leader_id if part is not None and part.error_code == 0 and body.error_code == 0 else None


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Cluster:
    """Three combined nodes of one implementation (``kafpy`` or ``kafka``)."""

    kind: str
    work: Path
    ports: dict[int, int] = field(default_factory=dict)       # node -> broker port
    controllers: dict[int, int] = field(default_factory=dict)  # node -> controller port
    procs: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ports = free_ports(2 * len(NODES))
        self.ports = {n: ports[i] for i, n in enumerate(NODES)}
        self.controllers = {n: ports[len(NODES) + i] for i, n in enumerate(NODES)}
        self.cluster_id = random_cluster_id()

    def config(self, node: int) -> Path:
        voters = ",".join(f"{n}@{LOOPBACK}:{p}" for n, p in self.controllers.items())
        data = self.work / f"node-{node}"
        props = {
            "process.roles": "broker,controller", "node.id": node, "controller.quorum.voters": voters,
            "listeners": f"PLAINTEXT://{LOOPBACK}:{self.ports[node]},CONTROLLER://{LOOPBACK}:{self.controllers[node]}",
            "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{self.ports[node]}",
            "controller.listener.names": "CONTROLLER", "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": data, "metadata.log.dir": data,
            "offsets.topic.replication.factor": 3, "transaction.state.log.replication.factor": 3,
            "group.initial.rebalance.delay.ms": 0,
        }
        path = self.work / f"node-{node}.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        return path

    def format(self) -> None:
        for node in NODES:
            args = ["format", "-t", self.cluster_id, "-c", str(self.config(node))]
            if self.kind == "kafka":
                run_tool("4", "kafka-storage", args, timeout=120)
            else:
                subprocess.run([sys.executable, "-m", "kafpy.scripts.kafka_storage", *args], check=True,
                               capture_output=True, cwd=REPO, timeout=120)

    def start(self, node: int) -> None:
        config = self.work / f"node-{node}.properties"
        if self.kind == "kafka":
            cmd = java_command("4", "kafka-server-start", [str(config)], heap="1g", log_level="WARN")
        else:
            cmd = [sys.executable, "-m", "kafpy.broker", str(config), "--log-level", "WARNING"]
        with open(self.work / f"node-{node}.out", "ab") as out:
            self.procs[node] = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                cwd=REPO, start_new_session=True)

    def alive(self) -> list[int]:
        return [n for n, p in self.procs.items() if p.poll() is None]

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(30)

    def brokers_listed(self, via: int) -> int:
        return len(metadata(self.ports[via]).brokers)

    def active_controller(self) -> int:
        for node in self.alive():
            try:
                leader = quorum_leader(self.controllers[node])
            except (OSError, ValueError):
                continue
            if leader is not None:
                return leader
        raise ValueError("no active controller")

    def all_led(self, topic: str, partitions: int) -> bool:
        for node in self.alive():
            md = metadata(self.ports[node], [topic])
            live = {b.node_id for b in md.brokers}
            found = [t for t in md.topics if t.name == topic and t.error_code == 0]
            if not found or len(found[0].partitions) != partitions:
                return False
            if not all(p.leader_id in live for p in found[0].partitions):
                return False
        return True


def create_topic(cluster: Cluster, topic: str, partitions: int, rf: int, via: list[int], timeout_ms: int) -> None:
    admin = KafkaAdminClient(bootstrap_servers=[f"{LOOPBACK}:{cluster.ports[n]}" for n in via],
                             request_timeout_ms=timeout_ms)
    try:
        admin.create_topics([NewTopic(topic, partitions, rf)], timeout_ms=timeout_ms)
    finally:
        admin.close()


def run_once(kind: str, partitions: int, rf: int) -> dict[str, float]:
    work = Path(tempfile.mkdtemp(prefix=f"bench-kraft-{kind}-"))
    cluster = Cluster(kind, work)
    out: dict[str, float] = {}
    try:
        cluster.format()
        t0 = time.monotonic()
        for node in NODES:
            cluster.start(node)
        until(lambda: cluster.brokers_listed(1) == len(NODES), TIMEOUT_S, f"{kind}: three brokers listed")
        out["start s"] = time.monotonic() - t0

        def warmed() -> bool:  # the first CreateTopics, once a broker names a controller
            try:
                create_topic(cluster, "warm", 3, 3, list(NODES), 10000)
                return True
            except (KafkaError, RuntimeError):  # kafka-python: no controller id known yet
                return False
        until(warmed, TIMEOUT_S, f"{kind}: the first CreateTopics")
        active = until_value(cluster.active_controller, TIMEOUT_S, f"{kind}: an active controller")
        survivors = [n for n in NODES if n != active]
        t0 = time.monotonic()
        cluster.procs[active].kill()
        cluster.procs[active].wait(30)
        seq = [0]

        def created() -> bool:
            seq[0] += 1
            try:
                create_topic(cluster, f"after-failover-{seq[0]}", 1, 2, survivors, 2000)
                return True
            except (KafkaError, RuntimeError):  # timeouts, NOT_CONTROLLER, no controller known yet
                return False
        until(created, TIMEOUT_S, f"{kind}: CreateTopics after the failover")
        out["controller failover s"] = time.monotonic() - t0
        cluster.start(active)
        until(lambda: cluster.brokers_listed(active) == len(NODES), TIMEOUT_S, f"{kind}: node {active} back")

        t0 = time.monotonic()
        create_topic(cluster, "many", partitions, rf, list(NODES), int(TIMEOUT_S * 1000))
        until(lambda: cluster.all_led("many", partitions), TIMEOUT_S, f"{kind}: {partitions} partitions led")
        out[f"{partitions} partitions usable s"] = time.monotonic() - t0

        rss = {n: rss_mb(cluster.procs[n].pid) for n in cluster.alive()}
        out["RSS per node MB (max)"] = max(rss.values())
        out["RSS per node MB (mean)"] = statistics.mean(rss.values())
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    return out


def until_value(probe: Callable[[], int], timeout: float, what: str) -> int:
    """The first value ``probe`` returns without raising, polled for up to ``timeout``."""
    got: list[int] = []

    def check() -> bool:
        got.append(probe())
        return True
    until(check, timeout, what)
    return got[-1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.kraft", description=__doc__.split("\n\n")[0])
    p.add_argument("--partitions", type=int, default=5000)
    p.add_argument("--replication-factor", type=int, default=3)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--only", choices=["kafpy", "kafka"])
    args = p.parse_args(argv)
    kinds = [args.only] if args.only else ["kafpy", "kafka"]
    results: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
    for _ in range(args.runs):
        for kind in kinds:
            got = run_once(kind, args.partitions, args.replication_factor)
            print(f"  {kind:6s} " + "  ".join(f"{k} {v:.1f}" for k, v in got.items()), flush=True)
            results[kind].append(got)
    keys = list(results[kinds[0]][0])
    print(f"\n{'measurement':32s} " + " ".join(f"{k:>10s}" for k in kinds) + ("      ratio" if len(kinds) == 2 else ""))
    for key in keys:
        meds = [statistics.median(r[key] for r in results[k]) for k in kinds]
        ratio = f"{meds[0] / meds[1]:10.2f}" if len(kinds) == 2 and meds[1] else ""
        print(f"{key:32s} " + " ".join(f"{m:10.1f}" for m in meds) + " " + ratio)
    return 0


if __name__ == "__main__":
    sys.exit(main())
