"""Three kafpy controller processes (``process.roles=controller``, formatted by our
``kafka-storage format``): they elect one leader that all three name, every voter fetches the
leader's log up to its end (the HW on the leader's LeaderChange entry), and after kill -9 of
the leader the two others elect a new leader in a higher epoch whose high watermark does not
go back. A node whose directory was not formatted refuses to start with Kafka's words."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import pytest

from kafpy.protocol.messages import DescribeQuorumResponse

from kafpy.metadata.meta_properties import random_uuid, uuid_from_string

from tests.integration.raft.quorum_support import (
    REPO_ROOT, controller_id, controller_properties, describe_quorum, dynamic_quorum_properties,
    initial_controllers, kafpy_format, three_ports, write_properties,
)
from tests.support.process import terminate

CLUSTER_ID = "uTx0ZkX2R9m0eQ3Fh8kQwA"
_T = TypeVar("_T")


class Controllers:
    """The three processes, their ports and output files."""

    def __init__(self, work: Path, dynamic: bool = False) -> None:
        self.work = work
        self.ports = three_ports()
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.dynamic = dynamic
        self.directory_ids = {n: random_uuid() for n in self.ports}
        props = dynamic_quorum_properties if dynamic else controller_properties
        self.configs = {n: write_properties(work / f"controller-{n}.properties", props(n, self.ports, work))
                        for n in self.ports}

    def format(self) -> None:
        """Static voters: ``format -t``; a dynamic quorum: with ``--initial-controllers``."""
        extra = ["--initial-controllers", initial_controllers(self.ports, self.directory_ids)] if self.dynamic else []
        for config in self.configs.values():
            kafpy_format(config, CLUSTER_ID, *extra)

    def start(self, node: int) -> subprocess.Popen[bytes]:
        with open(self.work / f"controller-{node}.out", "ab") as out:
            proc = subprocess.Popen([sys.executable, "-m", "kafpy.broker", str(self.configs[node])],
                                    stdout=out, stderr=subprocess.STDOUT, cwd=REPO_ROOT,
                                    start_new_session=True)
        self.procs[node] = proc
        return proc

    def output(self, node: int) -> str:
        return (self.work / f"controller-{node}.out").read_text(errors="replace")

    def alive(self) -> list[int]:
        return [n for n, p in self.procs.items() if p.poll() is None]

    def stop_all(self) -> None:
        for proc in self.procs.values():
            terminate(proc, timeout=10)


@pytest.fixture
def controllers(tmp_path: Path) -> Iterator[Controllers]:
    c = Controllers(tmp_path)
    try:
        yield c
    finally:
        c.stop_all()


def eventually(probe: Callable[[], _T | None], timeout: float = 30.0, what: str = "") -> _T:
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            value = probe()
            if value is not None:
                return value
        except (OSError, AssertionError, ValueError) as e:
            last = e
        time.sleep(0.1)
    raise AssertionError(f"not reached in {timeout}s: {what} (last error: {last})")


def leader_view(c: Controllers) -> tuple[int, DescribeQuorumResponse.PartitionData] | None:
    """(leader id, its DescribeQuorum) once every live node names the same leader and every
    live voter has fetched up to the leader's log end."""
    named = {controller_id(c.ports[n]) for n in c.alive()}
    if len(named) != 1 or -1 in named:
        return None
    leader = named.pop()
    quorum = describe_quorum(c.ports[leader])
    if quorum.error_code != 0:
        return None
    ends = {v.replica_id: v.log_end_offset for v in quorum.current_voters}
    if any(ends[n] != ends[leader] for n in c.alive()) or quorum.high_watermark != ends[leader]:
        return None
    return leader, quorum


def test_three_controllers_elect_replicate_and_survive_kill_9_of_the_leader(controllers: Controllers) -> None:
    c = controllers
    c.format()
    for node in c.ports:
        c.start(node)
    leader, quorum = eventually(lambda: leader_view(c), what="one leader named by all three")
    assert [v.replica_id for v in quorum.current_voters] == [1, 2, 3]
    assert quorum.high_watermark >= 1 and quorum.leader_epoch >= 1
    for n in c.ports:
        if n != leader:  # the followers answer NOT_LEADER_OR_FOLLOWER (6)
            assert describe_quorum(c.ports[n]).error_code == 6
    old_epoch, old_hw = quorum.leader_epoch, quorum.high_watermark

    os.kill(c.procs[leader].pid, signal.SIGKILL)
    c.procs[leader].wait(10)
    new_leader, new_quorum = eventually(lambda: leader_view(c), what="a new leader after kill -9")
    assert new_leader != leader
    assert new_quorum.leader_epoch > old_epoch
    # the new leader's epoch starts with its LeaderChange entry after everything committed before
    assert new_quorum.high_watermark > old_hw
    ends = {v.replica_id: v.log_end_offset for v in new_quorum.current_voters}
    assert all(ends[n] >= old_hw + 1 for n in c.alive())
    assert "Leader is now" in c.output(new_leader)

    # the killed node comes back (quorum-state and its metadata log on disk) and catches up
    c.start(leader)
    back_leader, back = eventually(lambda: leader_view(c) if len(c.alive()) == 3 else None,
                                   what="the restarted node caught up")
    assert back.leader_epoch >= new_quorum.leader_epoch
    assert {v.replica_id: v.log_end_offset for v in back.current_voters}[leader] == back.high_watermark


def test_the_metadata_log_is_on_disk_and_survives_every_controller_stopping(controllers: Controllers) -> None:
    """All three stop (kill -9): each comes back with its ``__cluster_metadata-0`` log from disk
    (Kafka's segments, readable by the log's own reader), so the quorum's log end and high
    watermark start where they were, not at 0."""
    c = controllers
    c.format()
    for node in c.ports:
        c.start(node)
    _, quorum = eventually(lambda: leader_view(c), what="one leader named by all three")
    before = quorum.high_watermark
    for node in c.ports:
        segment = c.work / f"controller-{node}" / "__cluster_metadata-0" / "00000000000000000000.log"
        assert segment.stat().st_size > 0, f"node {node} wrote no segment"
    for proc in c.procs.values():
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    for node in c.ports:
        c.start(node)
    _, after = eventually(lambda: leader_view(c), what="a leader after all three restarted")
    # the new leader's LeaderChange entry goes after everything the old quorum committed
    assert after.high_watermark > before
    assert all(v.log_end_offset > before for v in after.current_voters)


def test_an_unformatted_controller_refuses_to_start(controllers: Controllers) -> None:
    c = controllers
    proc = c.start(1)
    assert proc.wait(60) == 1
    text = c.output(1)
    assert "No readable meta.properties files found." in text


def test_a_dynamic_quorum_takes_its_voters_from_the_bootstrap_snapshot(tmp_path: Path) -> None:
    """Formatted with ``--initial-controllers`` and configured with
    ``controller.quorum.bootstrap.servers``: the voters, their directory ids and endpoints come
    from the bootstrap snapshot, and the quorum-state file is written at data_version 1."""
    c = Controllers(tmp_path, dynamic=True)
    try:
        c.format()
        for node in c.ports:
            c.start(node)
        leader, quorum = eventually(lambda: leader_view(c), what="one leader of the dynamic quorum")
        assert {v.replica_id: v.replica_directory_id for v in quorum.current_voters} == {
            n: uuid_from_string(d) for n, d in c.directory_ids.items()}
        state = (tmp_path / f"controller-{leader}" / "__cluster_metadata-0" / "quorum-state").read_text()
        assert '"data_version":1' in state and "currentVoters" not in state
    finally:
        c.stop_all()


def test_no_voters_anywhere_is_refused(controllers: Controllers) -> None:
    """A directory formatted without initial controllers and no bootstrap servers either:
    nothing to elect from and nobody to join; it says so in Kafka's words. (With bootstrap
    servers such a node starts as an observer: test_dynamic_voters.)"""
    c = controllers
    props = dynamic_quorum_properties(1, c.ports, c.work)
    props["controller.quorum.bootstrap.servers"] = ""
    props["controller.quorum.voters"] = ""
    config = write_properties(c.work / "lonely.properties", props)
    kafpy_format(config, CLUSTER_ID, "--no-initial-controllers")
    c.configs[1] = config
    assert c.start(1).wait(60) == 1
    assert "controller.quorum.bootstrap.servers must contain the set of bootstrap controllers" in c.output(1)
