"""Seeded faults on three kafpy controllers, then Raft's safety promises checked on their
``__cluster_metadata-0`` logs (tests/support/metadata_log_checker.py): no two leaders in one
epoch, log matching between every pair of nodes, and nothing the quorum committed lost, on a
majority during the run and on every node once all are back and caught up.

Each round picks a fault with a seeded generator: kill -9 of the leader (restarted at the
next round), SIGSTOP of the leader for longer than the fetch timeout (so the others elect a
new one) then SIGCONT (it finds a higher epoch and truncates what it alone wrote), or kill -9
of a follower. Between rounds the test waits for a leader that every live node names; the
highest high watermark any leader reported is the committed end the checker holds the logs
to. Bounded: 6 rounds, each waiting at most 30 s."""
from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

from tests.integration.raft.quorum_support import describe_quorum
from tests.integration.raft.test_controller_quorum import Controllers, eventually, leader_view
from tests.support.metadata_log_checker import check_logs, read_log_entries

ROUNDS = 6
STOP_S = 2.5  # longer than controller.quorum.fetch.timeout.ms (1 s) in FAST_QUORUM


def _logs(c: Controllers) -> dict[int, list]:
    return {n: read_log_entries(c.work / f"controller-{n}" / "__cluster_metadata-0") for n in c.ports}


@pytest.mark.parametrize("seed", [7, 11])
def test_faults_on_the_quorum_keep_rafts_promises(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    c = Controllers(tmp_path)
    c.format()
    try:
        for node in c.ports:
            c.start(node)
        high_watermark = 0
        faults: list[str] = []
        for _ in range(ROUNDS):
            for node in c.ports:  # a node killed last round comes back
                if node not in c.alive():
                    c.start(node)
            leader, quorum = eventually(lambda: leader_view(c), what="one leader named by all live nodes")
            high_watermark = max(high_watermark, quorum.high_watermark)
            fault = rng.choice(["kill-leader", "stop-leader", "kill-follower"])
            faults.append(fault)
            if fault == "kill-leader":
                os.kill(c.procs[leader].pid, signal.SIGKILL)
                c.procs[leader].wait(10)
            elif fault == "stop-leader":
                os.kill(c.procs[leader].pid, signal.SIGSTOP)
                try:
                    time.sleep(STOP_S)
                finally:
                    os.kill(c.procs[leader].pid, signal.SIGCONT)
            else:
                follower = rng.choice([n for n in c.ports if n != leader])
                os.kill(c.procs[follower].pid, signal.SIGKILL)
                c.procs[follower].wait(10)
            # the two others (or all three) go on: a leader in a higher epoch, HW not back
            _, after = eventually(lambda: leader_view(c), what=f"a leader after {fault}")
            assert after.high_watermark >= quorum.high_watermark, faults
            high_watermark = max(high_watermark, after.high_watermark)
        for node in c.ports:
            if node not in c.alive():
                c.start(node)
        _, final = eventually(lambda: leader_view(c) if len(c.alive()) == 3 else None,
                              what="all three back and caught up")
        high_watermark = max(high_watermark, final.high_watermark)
        assert final.leader_epoch >= 1 + faults.count("kill-leader") + faults.count("stop-leader")
        leader = next(v.replica_id for v in final.current_voters if describe_quorum(c.ports[v.replica_id]).error_code == 0)
        assert leader == final.leader_id
    finally:
        c.stop_all()
    logs = _logs(c)
    assert all(logs.values()), "a node has an empty metadata log"
    assert check_logs(logs, high_watermark, converged=True) == [], faults
