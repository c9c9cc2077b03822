"""KIP-853 with real parts: three kafpy controllers formatted with ``--initial-controllers`` and a
fourth formatted with ``--no-initial-controllers`` that starts as an observer (it finds the
leader through ``controller.quorum.bootstrap.servers``). Apache Kafka 4.4's
``kafka-metadata-quorum.sh --bootstrap-controller ... --command-config <its properties>
add-controller`` makes
it a voter, ``describe --status`` / ``--replication`` (Apache's tool) show it with its directory
id, and ``remove-controller --controller-id 4 --controller-directory-id D`` removes it again."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from kafpy.metadata.meta_properties import uuid_from_string

from tests.integration.raft.quorum_support import (
    REPO_ROOT, describe_quorum, kafpy_format, write_properties,
)
from tests.integration.raft.test_controller_quorum import CLUSTER_ID, Controllers, eventually, leader_view
from tests.support.kafka_dist import run_tool
from tests.support.ports import LOOPBACK, free_ports
from tests.support.process import terminate


class DynamicQuorum(Controllers):
    """The three formatted voters plus node 4, formatted as an observer."""

    def __init__(self, work: Path) -> None:
        super().__init__(work, dynamic=True)
        self.observer_port = free_ports(1)[0]
        props = {
            "process.roles": "controller", "node.id": "4",
            "listeners": f"CONTROLLER://{LOOPBACK}:{self.observer_port}",
            "controller.listener.names": "CONTROLLER", "listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
            "controller.quorum.bootstrap.servers": ",".join(f"{LOOPBACK}:{p}" for _, p in sorted(self.ports.items())),
            "log.dirs": str(work / "controller-4"), "metadata.log.dir": str(work / "controller-4"),
            "controller.quorum.election.timeout.ms": "500", "controller.quorum.fetch.timeout.ms": "1000",
            "controller.quorum.election.backoff.max.ms": "500", "controller.quorum.request.timeout.ms": "5000",
        }
        self.observer_config = write_properties(work / "controller-4.properties", props)

    def format_observer(self) -> str:
        kafpy_format(self.observer_config, CLUSTER_ID, "--no-initial-controllers")
        meta = (self.work / "controller-4" / "meta.properties").read_text()
        match = re.search(r"^directory\.id=(\S+)$", meta, re.M)
        assert match is not None
        return match.group(1)

    def start_observer(self) -> subprocess.Popen[bytes]:
        with open(self.work / "controller-4.out", "ab") as out:
            proc = subprocess.Popen([sys.executable, "-m", "kafpy.broker", str(self.observer_config)],
                                    stdout=out, stderr=subprocess.STDOUT, cwd=REPO_ROOT, start_new_session=True)
        self.procs[4] = proc
        return proc


@pytest.fixture
def quorum(tmp_path: Path) -> Iterator[DynamicQuorum]:
    q = DynamicQuorum(tmp_path)
    try:
        yield q
    finally:
        for proc in q.procs.values():
            terminate(proc, timeout=10)


def metadata_quorum(port: int, *args: str) -> subprocess.CompletedProcess[str]:
    return run_tool("4", "kafka-metadata-quorum", ["--bootstrap-controller", f"{LOOPBACK}:{port}", *args],
                    timeout=120, check=False)


def voters_of(port: int) -> list[tuple[int, str]]:
    out = metadata_quorum(port, "describe", "--status")
    assert out.returncode == 0, out.stderr
    line = next(li for li in out.stdout.splitlines() if li.startswith("CurrentVoters:"))
    return sorted((v["id"], v.get("directoryId", "")) for v in json.loads(line.partition(":")[2]))


def test_apache_add_controller_and_remove_controller_against_kafpy_controllers(quorum: DynamicQuorum) -> None:
    q = quorum
    q.format()
    for node in (1, 2, 3):
        q.start(node)
    leader, _ = eventually(lambda: leader_view(q), what="the three voters elected a leader")
    directory = q.format_observer()
    q.start_observer()

    def observer_caught_up() -> bool | None:
        quorum_now = describe_quorum(q.ports[leader])
        observers = {o.replica_id: o for o in quorum_now.observers}
        o = observers.get(4)
        return True if o is not None and o.log_end_offset == quorum_now.high_watermark > 0 else None
    eventually(observer_caught_up, what="node 4 fetching as an observer")
    assert voters_of(q.ports[1]) == sorted((n, d) for n, d in q.directory_ids.items())

    added = run_tool("4", "kafka-metadata-quorum", [
        "--bootstrap-controller", f"{LOOPBACK}:{q.ports[1]}", "--command-config", str(q.observer_config),
        "add-controller"], timeout=120, check=False)
    assert added.returncode == 0, added.stdout + added.stderr
    assert "Added controller 4 with directory id " + directory in added.stdout
    assert voters_of(q.ports[2]) == sorted([*((n, d) for n, d in q.directory_ids.items()), (4, directory)])
    replication = metadata_quorum(q.ports[3], "describe", "--replication")
    rows = {line.split()[0]: line.split() for line in replication.stdout.splitlines()[1:]}
    assert rows["4"][1] == directory and rows["4"][-1] in ("Follower", "Leader")
    quorum_now = describe_quorum(q.ports[leader])
    assert {v.replica_id: v.replica_directory_id for v in quorum_now.current_voters}[4] == uuid_from_string(directory)

    removed = metadata_quorum(q.ports[1], "remove-controller", "--controller-id", "4",
                              "--controller-directory-id", directory)
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert f"Removed KRaft controller 4 with directory id {directory}" in removed.stdout
    assert voters_of(q.ports[1]) == sorted((n, d) for n, d in q.directory_ids.items())
    # a second removal: the voter is gone (Kafka's VOTER_NOT_FOUND)
    again = metadata_quorum(q.ports[1], "remove-controller", "--controller-id", "4",
                            "--controller-directory-id", directory)
    assert again.returncode != 0 and "VoterNotFoundException" in again.stdout + again.stderr
