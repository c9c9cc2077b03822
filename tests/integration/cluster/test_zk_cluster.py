"""A ZooKeeper-mode cluster: one ZooKeeper and three kafpy broker processes. Topics created with
``kafka-topics.sh --bootstrap-server`` and with the lab's ``--zookeeper`` spread their leaders
and put a replica on every broker; a broker killed with SIGKILL loses its leaderships once its
session times out, and a killed controller is replaced by another broker."""
from __future__ import annotations

import re
import time

import pytest

from tests.integration.scripts.tools import run_script
from tests.integration.cluster.harness import SESSION_TIMEOUT_MS, leaders, metadata, start_cluster, wait_until

pytestmark = pytest.mark.timeout(300)

FAILOVER_S = SESSION_TIMEOUT_MS / 1000 + 10  # session timeout + a few seconds, as the brief for failover
PARTITIONS = 13


@pytest.fixture
def cluster(zookeeper, broker_factory):
    return start_cluster(zookeeper, broker_factory, **{"replica.lag.time.max.ms": 30000})


def create(*args: str) -> None:
    res = run_script("kafka-topics", "--create", *args)
    assert res.returncode == 0 and res.stdout.startswith("Created topic"), res.stdout + res.stderr


def described(broker, topic: str) -> list[tuple[int, list[int]]]:
    res = run_script("kafka-topics", "--describe", "--bootstrap-server", broker.bootstrap, "--topic", topic)
    assert res.returncode == 0, res.stderr
    rows = re.findall(r"\tPartition: \d+\tLeader: (\d+)\tReplicas: ([\d,]+)\t", res.stdout)
    return [(int(lead), sorted(int(r) for r in reps.split(","))) for lead, reps in rows]


def test_topics_from_either_tool_spread_leaders_and_replicas(cluster, zookeeper):
    b0 = cluster[0]
    create("--bootstrap-server", b0.bootstrap, "--topic", "spread", "--partitions", str(PARTITIONS),
           "--replication-factor", "3")
    create("--zookeeper", zookeeper.connect_string, "--topic", "spread-zk", "--partitions", str(PARTITIONS),
           "--replication-factor", "3")
    for topic in ("spread", "spread-zk"):
        rows = wait_until(lambda: (lambda r: len(r) == PARTITIONS and r)(described(b0, topic)), 30,
                          f"{topic} described with all its partitions")
        assert {lead for lead, _ in rows} == {0, 1, 2}, rows
        assert all(reps == [0, 1, 2] for _, reps in rows), rows
        # every broker's metadata cache (fed by UpdateMetadata) agrees
        for b in cluster:
            wait_until(lambda b=b: set(leaders(metadata(b), topic).values()) == {0, 1, 2}, 30,
                       f"broker {b.bootstrap} sees the leaders of {topic}")


def test_killed_broker_and_killed_controller_fail_over(cluster):
    create("--bootstrap-server", cluster[0].bootstrap, "--topic", "failover", "--partitions", str(PARTITIONS),
           "--replication-factor", "3")
    by_id = {i: b for i, b in enumerate(cluster)}
    wait_until(lambda: set(leaders(metadata(cluster[0]), "failover").values()) == {0, 1, 2}, 30, "leaders spread")
    controller = metadata(cluster[0]).controller_id
    victim = next(i for i in by_id if i != controller)
    survivor = next(i for i in by_id if i not in (controller, victim))

    by_id[victim].kill()
    started = time.monotonic()
    wait_until(lambda: (lambda md: victim not in leaders(md, "failover").values()
                        and victim not in {b.node_id for b in md.brokers})(metadata(by_id[survivor])),
               FAILOVER_S, f"the leaderships of killed broker {victim} moved")
    assert time.monotonic() - started < FAILOVER_S

    by_id[controller].kill()
    started = time.monotonic()
    md = wait_until(lambda: (lambda md: md.controller_id == survivor
                             and set(leaders(md, "failover").values()) == {survivor} and md)(metadata(by_id[survivor])),
                    FAILOVER_S, f"broker {survivor} became controller and leads every partition")
    assert [b.node_id for b in md.brokers] == [survivor]
