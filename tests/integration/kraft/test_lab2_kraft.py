"""The seeds' Lab 2 ("Using Kafka Cluster and Failover") on a KRaft cluster: three combined
``broker,controller`` kafpy nodes (ids 0, 1, 2, formatted by our ``kafka-storage``, no
ZooKeeper), the replicated ``my-failsafe-topic`` (13 partitions, replication factor 3), a
console producer and three console consumers in group ``mygroup``, with our scripts and with
Apache Kafka 4.4's tools (``--bootstrap-server`` everywhere: KRaft has no ``--zookeeper``).

Checked as in the ZooKeeper version (tests/integration/cluster/test_lab2.py): --describe spreads
the leaders with full ISRs; the consumers share the partitions; one stopped consumer's
partitions are taken over; node 0 killed with kill -9, new leaders come from the ISR (and a new
active controller when node 0 was it), nothing produced is lost; node 0 restarted rejoins every
ISR."""
from __future__ import annotations

import signal
from pathlib import Path
from typing import Callable, Iterator

import pytest

from tests.integration.cluster.harness import wait_until
from tests.integration.cluster.test_lab2 import DESCRIBE_ROW, GROUP, PARTITIONS, TOPIC, Lab, Tools
from tests.integration.scripts.tools import run_script
from tests.support import process
from tests.support.kraft_combined import CombinedCluster, CombinedNode

pytestmark = pytest.mark.timeout(900)

FAILOVER_S = 90  # broker.session.timeout.ms (4 s), an election and the tools' JVM starts, with room

Rows = dict[int, tuple[str, list[int], list[int]]]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[CombinedCluster]:
    """Killed at the end: the lab checks no clean shutdown, and SIGTERM to the last node of a
    quorum that has lost its majority waits out a controlled shutdown no controller can grant."""
    c = CombinedCluster("kafpy", tmp_path, node_ids=(0, 1, 2))
    try:
        yield c.start()
    finally:
        c.kill_all()


@pytest.fixture(params=["kafpy", "4"], ids=lambda f: f"tools-{f}")
def tools(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Tools]:
    t = Tools(request.param, tmp_path)
    yield t
    t.stop_all()


def describe(tools: Tools, bootstrap: str) -> Rows:
    out = tools.topics("--describe", "--topic", TOPIC, "--bootstrap-server", bootstrap)
    return {int(p): (lead, [int(r) for r in reps.split(",")], [int(r) for r in isr.split(",") if r])
            for p, lead, reps, isr in DESCRIBE_ROW.findall(out)}


def described(tools: Tools, bootstrap: str, ok: Callable[[Rows], bool], timeout: float, what: str) -> Rows:
    def settled() -> Rows | None:
        try:
            rows = describe(tools, bootstrap)
        except AssertionError:  # the tool failed: right after a kill -9 it may reach the dead node
            return None
        return rows if ok(rows) else None
    found = wait_until(settled, timeout, what)
    assert found is not None
    return found


def group_rows(node: CombinedNode, *what: str) -> list[list[str]]:
    """Rows of our kafka-consumer-groups --describe for the lab's group (as the ZooKeeper lab reads them)."""
    res = run_script("kafka-consumer-groups", "--bootstrap-server", node.bootstrap, "--describe", "--group", GROUP,
                     *what, timeout=60)
    rows = [ln.split() for ln in res.stdout.splitlines() if ln.strip()] if res.returncode == 0 else []
    return [r for r in rows if r and r[0] == GROUP]


def stable_members(node: CombinedNode, n: int) -> bool:
    """The group is Stable with ``n`` members sharing all 13 partitions."""
    state, members = group_rows(node, "--state"), group_rows(node, "--members")
    return (bool(state) and "Stable" in state[0] and len(members) == n
            and all(int(r[-1]) > 0 for r in members) and sum(int(r[-1]) for r in members) == PARTITIONS)


def test_lab2_on_combined_kraft_nodes(cluster: CombinedCluster, tools: Tools) -> None:
    n0, n1, n2 = (cluster.nodes[i] for i in (0, 1, 2))
    out = tools.topics("--create", "--bootstrap-server", n0.bootstrap, "--replication-factor", "3",
                       "--partitions", str(PARTITIONS), "--topic", TOPIC)
    assert "Created topic" in out, out

    rows = described(tools, n1.bootstrap, lambda d: len(d) == PARTITIONS and all(len(isr) == 3 for _, _, isr in
                                                                                 d.values()),
                     60, "13 partitions with full ISRs")
    assert {lead for lead, _, _ in rows.values()} == {"0", "1", "2"}, rows
    assert all(sorted(reps) == [0, 1, 2] for _, reps, _ in rows.values()), rows

    lab = Lab(tools.producer(f"{n0.bootstrap},{n1.bootstrap}"))
    consumers = [tools.consumer(f"{n2.bootstrap},{n0.bootstrap}") for _ in range(3)]
    wait_until(lambda: stable_members(n1, 3), 120, f"{GROUP} stable with three members sharing the partitions")
    got = lab.delivered(consumers, lab.send(39), 60)
    assert all(got), got
    assert sorted(v for g in got for v in g) == sorted(lab.sent[:39]), got

    code = process.terminate(consumers[2].proc, sig=signal.SIGINT, timeout=30)
    assert code != -signal.SIGKILL, "the console consumer ignored Ctrl-C and was killed 30 s later"
    wait_until(lambda: stable_members(n1, 2), 120, f"{GROUP} stable with the two remaining members")
    assert all(lab.delivered(consumers[:2], lab.send(39), 60))

    # node 0 killed (broker and controller at once): new leaders from the ISR, nothing lost
    before = describe(tools, n1.bootstrap)
    n0.kill()
    assert cluster.active_controller(timeout=FAILOVER_S) in (1, 2)
    after = described(tools, n1.bootstrap, lambda d: len(d) == PARTITIONS and all(
        lead != "0" and 0 not in isr for lead, _, isr in d.values()), FAILOVER_S,
        "node 0 out of every leadership and ISR")
    for p, (lead, _, isr) in after.items():
        assert int(lead) in before[p][2] and sorted(isr) == sorted(set(before[p][2]) - {0}), (p, before[p], after[p])
    assert {lead for lead, _, _ in after.values()} == {"1", "2"}, after
    lab.delivered(consumers[:2], lab.send(26), FAILOVER_S)

    # node 0 restarted: back in every ISR
    n0.start()
    described(tools, n1.bootstrap, lambda d: len(d) == PARTITIONS and all(sorted(isr) == [0, 1, 2]
                                                                          for _, _, isr in d.values()),
              120, "node 0 back in every ISR")
    lab.delivered(consumers[:2], lab.send(13), 60)
    received = [v for c in consumers for v in c.got()]
    assert set(received) == set(lab.sent), set(lab.sent) - set(received)
