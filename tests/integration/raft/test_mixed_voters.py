"""One static quorum, two implementations: a kafpy controller and two Apache Kafka 4.4
controllers (``process.roles=controller``, formatted by Apache's ``kafka-storage``) vote, elect
leaders across both and replicate one ``__cluster_metadata-0`` log.

Each round hands the leadership to the other implementation, by Raft's own rules: a kafpy
leader is killed (kill -9) and the two Apache nodes elect one of theirs; an Apache leader
first goes on alone with the kafpy node while the other Apache node is stopped (SIGSTOP; the
leader's NoOpRecords commit on the two of them), then is killed and the stopped node resumed:
its log is behind the kafpy node's, so only the kafpy node can win (a voter grants no vote to a
log less up to date than its own). The killed node is restarted and catches up each time.
Then every node's log is read from its segment files and held to Raft's promises by the
metadata-log checker: one leader per epoch, log matching between every pair of nodes, and every
batch below the high watermark the same bytes (the same CRC) on all three: what an Apache
leader wrote (its bootstrap records, NoOpRecords, LeaderChange entries) kafpy followers keep
byte for byte, and the other way round."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from kafpy._process import terminate
from tests.integration.raft.quorum_support import (
    REPO_ROOT, apache_server_command, controller_properties, describe_quorum, kafpy_format, three_ports,
    write_properties,
)
from tests.support.kafka_dist import run_tool
from tests.support.metadata_log_checker import check_logs, read_log_entries

CLUSTER_ID = "mIxEdVoTeRsQ9m0eQ3Fh8k"
APACHE = frozenset({2, 3})
ROUNDS = 4
BEHIND_S = 2.0  # the stopped Apache follower misses a few of the leader's 500 ms NoOpRecords


class MixedQuorum:
    """Node 1 is kafpy, nodes 2 and 3 Apache Kafka 4.4; static voters, one cluster id."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.ports = three_ports()
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.configs: dict[int, Path] = {}
        for node in self.ports:
            props = controller_properties(node, self.ports, work)
            if node in APACHE:
                props["metadata.log.dir"] = props["log.dirs"]
            self.configs[node] = write_properties(work / f"node-{node}.properties", props)

    def kind(self, node: int) -> str:
        return "apache" if node in APACHE else "kafpy"

    def format(self) -> None:
        for node, config in self.configs.items():
            if node in APACHE:
                run_tool("4", "kafka-storage", ["format", "-t", CLUSTER_ID, "-c", str(config)], timeout=120)
            else:
                kafpy_format(config, CLUSTER_ID)

    def start(self, node: int) -> None:
        if node in APACHE:
            cmd = apache_server_command(self.configs[node], log_level="INFO")
        else:
            cmd = [sys.executable, "-m", "kafpy.broker", str(self.configs[node])]
        with open(self.work / f"node-{node}.out", "ab") as out:
            self.procs[node] = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL, cwd=REPO_ROOT,
                                                start_new_session=True)

    def alive(self) -> list[int]:
        return [n for n, p in self.procs.items() if p.poll() is None]

    def kill(self, node: int) -> None:
        os.kill(self.procs[node].pid, signal.SIGKILL)
        self.procs[node].wait(10)

    def partition_dir(self, node: int) -> Path:
        return self.work / f"controller-{node}" / "__cluster_metadata-0"

    def stop_all(self) -> None:
        """The Apache nodes killed (their shutdown is not under test, and what they appended
        is in their files), the kafpy node stopped by SIGTERM."""
        for node, proc in self.procs.items():
            terminate(proc, timeout=30, sig=signal.SIGKILL if node in APACHE else signal.SIGTERM)

    def output(self, node: int) -> str:
        path = self.work / f"node-{node}.out"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""


@pytest.fixture
def quorum(tmp_path: Path) -> Iterator[MixedQuorum]:
    q = MixedQuorum(tmp_path)
    try:
        yield q
    finally:
        q.stop_all()


def leader_caught_up(q: MixedQuorum) -> tuple[int, int, int] | None:
    """(leader, epoch, high watermark) once exactly one live node answers DescribeQuorum as
    leader and every live voter has fetched up to that high watermark."""
    answers = {}
    for node in q.alive():
        try:
            data = describe_quorum(q.ports[node])
        except OSError:
            return None
        if data.error_code == 0:
            answers[node] = data
    if len(answers) != 1:
        return None
    leader, data = answers.popitem()
    ends = {v.replica_id: v.log_end_offset for v in data.current_voters}
    if (data.leader_id != leader or data.high_watermark < 0  # -1: its epoch's start not committed yet
            or any(ends.get(n, -1) < data.high_watermark for n in q.alive())):
        return None
    return leader, data.leader_epoch, data.high_watermark


def wait_leader(q: MixedQuorum, what: str, timeout: float = 60.0) -> tuple[int, int, int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = leader_caught_up(q)
        if found is not None:
            return found
        time.sleep(0.1)
    raise AssertionError(f"no leader in {timeout}s: {what}\n" +
                         "\n".join(f"--- node {n} ({q.kind(n)})\n{q.output(n)}" for n in q.ports))


def test_kafpy_and_apache_controllers_share_one_quorum(quorum: MixedQuorum) -> None:
    q = quorum
    q.format()
    for node in q.ports:
        q.start(node)
    led: list[str] = []
    high_watermark = 0
    leader, epoch, hw = wait_leader(q, "the first election")
    for _ in range(ROUNDS):
        led.append(q.kind(leader))
        high_watermark = max(high_watermark, hw)
        if leader in APACHE:
            behind = next(n for n in APACHE if n != leader)
            os.kill(q.procs[behind].pid, signal.SIGSTOP)
            try:
                time.sleep(BEHIND_S)
                q.kill(leader)
            finally:
                os.kill(q.procs[behind].pid, signal.SIGCONT)
        else:
            q.kill(leader)
        new_leader, new_epoch, new_hw = wait_leader(q, f"a successor of {q.kind(leader)} node {leader}")
        assert q.kind(new_leader) != q.kind(leader), f"node {new_leader} took over from node {leader}"
        assert new_epoch > epoch and new_hw >= hw
        q.start(leader)
        leader, epoch, hw = wait_leader(q, f"node {leader} back and caught up")
    led.append(q.kind(leader))
    assert led.count("kafpy") >= 2 and led.count("apache") >= 2, led
    high_watermark = max(high_watermark, hw)
    q.stop_all()
    logs = {n: read_log_entries(q.partition_dir(n)) for n in q.ports}
    assert all(logs.values())
    assert check_logs(logs, high_watermark, converged=True) == []
    # the Apache leaders' metadata records (not only LeaderChange entries) are in kafpy's log
    data_batches = [e for e in logs[1] if e.leader_id is None and e.last_offset < high_watermark]
    assert data_batches, "no data batch below the high watermark on kafpy node 1"
