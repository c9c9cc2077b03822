"""Three combined ``process.roles=broker,controller`` kafpy nodes as one KRaft cluster (no
ZooKeeper, no JVM among the nodes), side by side with three Apache Kafka 4.4 combined nodes
taken through the same steps in the same test.

On each cluster: a topic with replication factor 3 created with Apache Kafka 4.4's
``kafka-topics.sh``; acks=all writes (kafka-python); ``kafka-metadata-quorum.sh describe
--status / --replication`` on the settled quorum; kill -9 of the node that is the active
controller (another one takes over, the leaderships it held move); more writes; the node
restarted and back in every ISR; kill -9 of a partition leader that is not the active controller
(a new leader from the ISR); more writes; every acknowledged record read back. What the tools
print is compared between kafpy and Apache modulo ids, ports and timings.

A second test runs the dynamic form (``controller.quorum.bootstrap.servers``, directories
formatted by our or Apache's ``kafka-storage format --initial-controllers``) on kafpy nodes."""
from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Iterator

import pytest
from kafka import KafkaProducer

from tests.integration.cluster.harness import metadata, read_all
from tests.support.kafka_dist import ToolFailed, run_tool
from tests.support.kraft_combined import CombinedCluster, CombinedNode
from tests.support.kraft_controllers import eventually
from tests.support.ports import LOOPBACK

pytestmark = pytest.mark.timeout(1500)

TOPIC = "combined-rf3"
PARTITIONS = 3


@pytest.fixture
def clusters(tmp_path: Path) -> Iterator[list[CombinedCluster]]:
    """The clusters a test made, killed at its end (no test here checks a clean shutdown)."""
    made: list[CombinedCluster] = []
    try:
        yield made
    finally:
        for c in made:
            c.kill_all()


def topics(cluster: CombinedCluster, *args: str, check: bool = True) -> str:
    live = ",".join(n.bootstrap for n in cluster.live())
    return run_tool("4", "kafka-topics", ["--bootstrap-server", live, *args], timeout=120, check=check).stdout


def describe(cluster: CombinedCluster) -> dict[int, tuple[int, list[int], list[int]]]:
    """kafka-topics --describe: partition -> (leader, replicas, isr)."""
    out: dict[int, tuple[int, list[int], list[int]]] = {}
    # a node that has not caught up yet answers "does not exist" (exit 1): an empty answer,
    # which the waits take as not settled yet
    for line in topics(cluster, "--describe", "--topic", TOPIC, check=False).splitlines():
        m = re.search(r"Partition: (\d+)\s+Leader: (-?\d+)\s+Replicas: ([\d,]+)\s+Isr: ([\d,]*)", line)
        if m:
            out[int(m.group(1))] = (int(m.group(2)), [int(x) for x in m.group(3).split(",")],
                                    [int(x) for x in m.group(4).split(",") if x])
    return out


Partitions = dict[int, tuple[int, list[int], list[int]]]


def metadata_view(cluster: CombinedCluster) -> Partitions:
    """What the first live node that answers Metadata says of the topic, as ``describe``:
    the waits poll this (one JVM per poll would cost seconds), ``settled`` then asks the tool."""
    for node in cluster.live():
        try:
            md = metadata(SimpleNamespace(host=LOOPBACK, port=node.port), [TOPIC])
        except OSError:
            continue
        return {p.partition_index: (p.leader_id, sorted(p.replica_nodes), sorted(p.isr_nodes))
                for t in md.topics if t.name == TOPIC for p in t.partitions}
    return {}


def settled(cluster: CombinedCluster, ok: Callable[[Partitions], bool], timeout: float, what: str) -> Partitions:
    """Wait until the nodes' Metadata satisfies ``ok``, then until Apache's kafka-topics
    --describe does too; what the tool printed."""
    eventually(lambda: ok(metadata_view(cluster)), timeout=timeout, what=f"{cluster.impl}: {what} (Metadata)")
    return eventually(lambda: (lambda d: d if ok(d) else None)(describe(cluster)), timeout=timeout,
                      what=f"{cluster.impl}: {what} (kafka-topics --describe)")


def describe_shape(cluster: CombinedCluster) -> list[str]:
    """--describe's lines with ids, topic id and numbers masked: what both must print alike.
    Asked until it lists the topic: the admin client sends its ListTopics to the least loaded
    node, which need not be the one that answered ``settled``'s describe."""
    text = eventually(lambda: (lambda out: out if f"Topic: {TOPIC}" in out else None)(
        topics(cluster, "--describe", "--topic", TOPIC, check=False)), timeout=60, what=f"{cluster.impl}: describe")
    text = re.sub(r"TopicId: \S+", "TopicId: <id>", text)
    return [re.sub(r"\d+", "N", line.strip()) for line in text.splitlines() if line.strip()]


def quorum(node: CombinedNode, *args: str) -> str:
    return run_tool("4", "kafka-metadata-quorum", ["--bootstrap-controller", node.bootstrap_controller,
                                                   "describe", *args], timeout=120).stdout


def status(node: CombinedNode) -> dict[str, str]:
    return {k: v.strip() for k, _, v in (line.partition(":") for line in quorum(node, "--status").splitlines())}


def settled_status(node: CombinedNode) -> dict[str, str] | None:
    try:
        s = status(node)
    except ToolFailed:
        return None
    return s if s.get("LeaderId", "-1") != "-1" and s.get("MaxFollowerLag") == "0" else None


def replication_rows(node: CombinedNode) -> list[list[str]]:
    return [[c.strip() for c in line.split("\t") if c.strip()] for line in quorum(node, "--replication").splitlines()]


def produce(cluster: CombinedCluster, start: int, count: int) -> list[tuple[int, int, bytes]]:
    producer = KafkaProducer(bootstrap_servers=[n.bootstrap for n in cluster.live()], acks="all", retries=10,
                             request_timeout_ms=20000, max_block_ms=60000, retry_backoff_ms=500)
    try:
        sent = [(producer.send(TOPIC, value=f"v{i}".encode(), partition=i % PARTITIONS), f"v{i}".encode())
                for i in range(start, start + count)]
        acked = []
        for fut, value in sent:
            md = fut.get(timeout=90)
            acked.append((md.partition, md.offset, value))
        return acked
    finally:
        producer.close()


def assert_nothing_lost(cluster: CombinedCluster, acked: list[tuple[int, int, bytes]]) -> None:
    got = read_all([n.bootstrap for n in cluster.live()], TOPIC, len(acked), PARTITIONS)
    have = {(p, off, v) for p, recs in got.items() for off, v in recs}
    missing = [a for a in acked if a not in have]
    assert not missing, f"{cluster.impl}: {len(missing)} acknowledged records lost, e.g. {missing[:3]}"


def scenario(cluster: CombinedCluster) -> dict[str, object]:
    """The steps of the module docstring; what the tools printed, masked, for comparison."""
    seen: dict[str, object] = {}
    cluster.start()
    created = topics(cluster, "--create", "--topic", TOPIC, "--partitions", str(PARTITIONS),
                     "--replication-factor", "3")
    seen["create"] = created.strip()
    parts = settled(cluster, lambda d: len(d) == PARTITIONS and all(len(isr) == 3 for _, _, isr in d.values()),
                    90, f"every replica of {TOPIC} in sync")
    assert all(sorted(r) == [1, 2, 3] for _, r, _ in parts.values())
    seen["describe"] = describe_shape(cluster)
    acked = produce(cluster, 0, 30)

    first = cluster.nodes[1]
    s = eventually(lambda: settled_status(first), timeout=90, what=f"{cluster.impl}: quorum settled")
    seen["status_keys"] = list(s)
    seen["voters"] = sorted((v["id"], [re.sub(r":\d+$", "", e) for e in v["endpoints"]])
                            for v in json.loads(s["CurrentVoters"]))
    seen["observers"] = s["CurrentObservers"]
    rows = replication_rows(first)
    seen["replication_header"] = rows[0]
    seen["replication_status"] = [r[-1] for r in rows[1:]]
    assert int(rows[1][0]) == int(s["LeaderId"]) == cluster.active_controller()

    # kill -9 of the active controller: another takes over, its leaderships move
    active = cluster.active_controller()
    cluster.nodes[active].kill()
    new_active = cluster.active_controller(timeout=90)
    assert new_active != active
    settled(cluster, lambda d: len(d) == PARTITIONS and all(leader not in (active, -1) for leader, _, _ in d.values()),
            90, f"leaders away from the killed controller {active}")
    acked += produce(cluster, 30, 30)
    survivor = next(n for n in cluster.live())
    seen["replication_status_one_down"] = sorted(r[-1] for r in replication_rows(survivor)[1:])

    # back again, in every ISR
    cluster.nodes[active].start()
    cluster.wait_serving(cluster.nodes[active], 3)
    settled(cluster, lambda d: len(d) == PARTITIONS and all(len(isr) == 3 for _, _, isr in d.values()), 120,
            f"node {active} back in every ISR")

    # kill -9 of a partition leader that is not the active controller
    controller = cluster.active_controller()
    d = describe(cluster)
    victim = next((leader for leader, _, _ in d.values() if leader != controller), None)
    if victim is None:  # every partition led by the active controller: kill a follower-held one
        victim = next(n for n in (1, 2, 3) if n != controller)
    led = [p for p, (leader, _, _) in d.items() if leader == victim]
    cluster.nodes[victim].kill()
    settled(cluster, lambda d: all(p in d and d[p][0] not in (victim, -1) for p in led), 90,
            f"new leaders for the partitions {victim} led")
    assert cluster.active_controller() == controller
    acked += produce(cluster, 60, 30)
    assert_nothing_lost(cluster, acked)
    seen["acked"] = len(acked)
    return seen


def test_three_combined_kafpy_nodes_fail_over_as_apache_ones(tmp_path: Path,
                                                             clusters: list[CombinedCluster]) -> None:
    ours = CombinedCluster("kafpy", tmp_path)
    clusters.append(ours)
    mine = scenario(ours)
    ours.kill_all()
    theirs = CombinedCluster("apache", tmp_path)
    clusters.append(theirs)
    apache = scenario(theirs)
    theirs.kill_all()
    assert mine == apache, (mine, apache)
    assert mine["create"] == f"Created topic {TOPIC}."
    assert mine["status_keys"] == ["ClusterId", "LeaderId", "LeaderEpoch", "HighWatermark", "MaxFollowerLag",
                                   "MaxFollowerLagTimeMs", "CurrentVoters", "CurrentObservers"]
    assert mine["voters"] == [(n, ["CONTROLLER://127.0.0.1"]) for n in (1, 2, 3)]
    describe_lines = mine["describe"]
    assert isinstance(describe_lines, list) and len(describe_lines) == 1 + PARTITIONS
    assert mine["replication_header"] == ["NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                                          "LastCaughtUpTimestamp", "Status"]
    assert mine["replication_status_one_down"] == ["Follower", "Follower", "Leader"]
    assert mine["observers"] == "[]"  # the brokers are the voters: no observers on a combined cluster
    assert mine["replication_status"] == ["Leader", "Follower", "Follower"]
    assert mine["acked"] == 90


@pytest.mark.parametrize("formatter", ["kafpy", "apache"])
def test_dynamic_quorum(tmp_path: Path, clusters: list[CombinedCluster], formatter: str) -> None:
    """``--initial-controllers`` written by our kafka-storage or Apache's, served by kafpy nodes:
    the voters carry the directory ids formatted; a topic survives kill -9 of the active controller."""
    cluster = CombinedCluster("kafpy", tmp_path, dynamic=True, formatter=formatter)
    clusters.append(cluster)
    cluster.start()
    topics(cluster, "--create", "--topic", TOPIC, "--partitions", str(PARTITIONS), "--replication-factor", "3")
    acked = produce(cluster, 0, 20)
    s = eventually(lambda: settled_status(cluster.nodes[2]), timeout=90, what="quorum settled")
    voters = {v["id"]: v.get("directoryId") for v in json.loads(s["CurrentVoters"])}
    assert voters == {n: node.directory_id for n, node in cluster.nodes.items()}
    active = cluster.active_controller()
    cluster.nodes[active].kill()
    assert cluster.active_controller(timeout=90) != active
    acked += produce(cluster, 20, 20)
    assert_nothing_lost(cluster, acked)
