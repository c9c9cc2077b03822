"""CI-sized proof under faults (issue 15): a few seeded fault runs against a 3-broker cluster in
network namespaces, each checked against Kafka's promises, and a short fuzz on the last one's
cluster, and one run with a leader's log disk slowed down. ``python -m tests.faults --regression
--runs 100 --fuzz 1000000`` is the long run. A seed that once found a defect stays in
tests/faults/regressions.py; the cheap ones run here."""
from __future__ import annotations

import pytest

from tests.faults import history
from tests.faults.faults import KINDS, schedule
from tests.faults.regressions import CI_SEEDS, REGRESSIONS
from tests.faults.run import run_once

pytestmark = pytest.mark.timeout(300)

SEEDS = {seed: REGRESSIONS[seed] for seed in CI_SEEDS}  # seed -> why it is here


def test_schedules_are_reproducible_and_cover_every_kind():
    assert schedule(7, 6.0) == schedule(7, 6.0)
    seen = {f.kind for seed in range(200) for f in schedule(seed, 6.0)}
    assert seen == set(KINDS)


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_seeded_faults_keep_kafkas_promises(seed, tmp_path):
    fuzz = 3000 if seed == max(SEEDS) else 0
    result = run_once(seed, tmp_path, rate=25, fuzz=fuzz)
    assert result.verdict.ok, result.describe()
    assert result.verdict.acked_all > 100 and sum(result.injected.values()) >= 1, result.describe()
    assert result.fuzz_sent == fuzz


def test_a_slow_leader_disk_keeps_kafkas_promises(tmp_path):
    result = run_once(500, tmp_path, rate=25, fault_count=1, kinds=["slow_disk"])
    assert result.verdict.ok, result.describe()
    assert result.injected["slow_disk"] == 1 and result.verdict.acked_all > 100, result.describe()
    events = list(history.read(result.history))
    target = next(e["target"] for e in events if e["kind"] == "fault")
    healed = [e for e in events if e["kind"] == "disk_healed"]
    # the broker's own fsyncs (checkpoints every 5 s at least) went through the throttle
    assert [e["broker"] for e in healed] == [target] and healed[0]["throttled_ios"] > 0, healed


KRAFT_SEEDS = (5, 10)  # 5: kill of a follower, a slow disk, a full disk (the node halts, then restarts); 10: SIGSTOP of a node, kill -9 of the active controller


def test_kraft_schedules_have_no_zookeeper_fault():
    from tests.faults.faults import ZOOKEEPER_KINDS, kinds_for, kraft_kinds
    for seed in range(200):
        assert not {f.kind for f in schedule(seed, 6.0, kinds=kraft_kinds(kinds_for(seed)))} & set(ZOOKEEPER_KINDS)


@pytest.mark.parametrize("seed", KRAFT_SEEDS)
def test_seeded_faults_on_a_kraft_cluster_keep_kafkas_and_rafts_promises(seed, tmp_path):
    """Three combined KRaft nodes (no ZooKeeper): the same workload and checker, plus every
    node's __cluster_metadata log held to Raft's promises once the faults healed."""
    result = run_once(seed, tmp_path, rate=25, mode="kraft")
    assert result.verdict.ok, result.describe()
    assert result.verdict.acked_all > 100 and sum(result.injected.values()) >= 1, result.describe()
    checked = [e for e in history.read(result.history) if e["kind"] == "metadata_checked"]
    assert checked and checked[0]["high_watermark"] > 0, result.describe()
