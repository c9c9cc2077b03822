"""Apache Kafka 4.4's ``kafka-metadata-quorum.sh --bootstrap-controller ... describe --status``
and ``--replication`` against three kafpy controllers, side by side with the same commands
against three Apache Kafka 4.4 controllers (``process.roles=controller``, the same static
``controller.quorum.voters`` form). Both must print the same lines: the same keys in the same
order, the same columns, one row per voter with the same statuses, and values that say what
the quorum is (the leader the nodes name, its epoch and high watermark, the voters, lag 0 once
caught up).

Values compared by meaning, not text, because they depend on timing or on the run: ClusterId
(random per run), LeaderId and LeaderEpoch (whoever wins), HighWatermark (Apache's active
controller also writes its bootstrap records and a NoOpRecord every 500 ms; kafpy's quorum
holds only the LeaderChange entries yet), MaxFollowerLagTimeMs and the timestamps (time), the
ports in the endpoints (picked per run)."""
from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

from kafpy._process import terminate

from tests.integration.raft.quorum_support import (
    controller_properties, describe_quorum, three_ports, write_properties,
)
from tests.integration.raft.test_controller_quorum import Controllers, eventually, leader_view
from tests.support.kafka_dist import ToolFailed, java_command, random_cluster_id, run_tool
from tests.support.ports import LOOPBACK


class ApacheControllers:
    """Three Apache Kafka 4.4 controller processes, formatted by Apache's kafka-storage."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.ports = three_ports()
        self.cluster_id = random_cluster_id()
        self.procs: list[subprocess.Popen[bytes]] = []
        self.configs = {}
        for node in self.ports:
            props = controller_properties(node, self.ports, work)
            props["metadata.log.dir"] = props["log.dirs"]
            self.configs[node] = write_properties(work / f"apache-{node}.properties", props)

    def start(self) -> None:
        for node, config in self.configs.items():
            run_tool("4", "kafka-storage", ["format", "-t", self.cluster_id, "-c", str(config)], timeout=120)
        for node, config in self.configs.items():
            with open(self.work / f"apache-{node}.out", "ab") as out:
                self.procs.append(subprocess.Popen(
                    java_command("4", "kafka-server-start", [str(config)], heap="384m"),
                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True))

    def stop(self) -> None:
        for proc in self.procs:
            terminate(proc, timeout=30)


@pytest.fixture
def apache(tmp_path: Path) -> Iterator[ApacheControllers]:
    a = ApacheControllers(tmp_path / "apache")
    try:
        yield a
    finally:
        a.stop()


@pytest.fixture
def kafpy_controllers(tmp_path: Path) -> Iterator[Controllers]:
    (tmp_path / "kafpy").mkdir()
    c = Controllers(tmp_path / "kafpy")
    try:
        yield c
    finally:
        c.stop_all()


def quorum_tool(port: int, *args: str) -> str:
    result = run_tool("4", "kafka-metadata-quorum", ["--bootstrap-controller", f"{LOOPBACK}:{port}",
                                                    "describe", *args], timeout=120)
    return result.stdout


def status(port: int) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in quorum_tool(port, "--status").splitlines():
        key, _, value = line.partition(":")
        out[key] = value.strip()
    return out


def status_keys(port: int) -> list[str]:
    return [line.partition(":")[0] for line in quorum_tool(port, "--status").splitlines()]


def replication(port: int) -> list[list[str]]:
    return [[cell.strip() for cell in line.split("\t") if cell.strip()]
            for line in quorum_tool(port, "--replication").splitlines()]


def apache_settled(a: ApacheControllers) -> dict[str, str] | None:
    """--status once a leader is known and every voter has caught up (lag 0); None while
    the controllers are starting (the tool fails until a MetadataVersion is finalized)."""
    try:
        s = status(a.ports[1])
    except ToolFailed:
        return None
    if s.get("LeaderId", "-1") == "-1" or s.get("MaxFollowerLag") != "0":
        return None
    return s


_TIMING_OR_IDS = re.compile(r"^(ClusterId|LeaderId|LeaderEpoch|HighWatermark|MaxFollowerLagTimeMs):(\s+)\S+$",
                            re.MULTILINE)


def masked_status(port: int) -> str:
    """--status as printed, with the values that depend on timing or ids (and the ports)
    replaced by placeholders."""
    text = _TIMING_OR_IDS.sub(lambda m: f"{m.group(1)}:{m.group(2)}<value>", quorum_tool(port, "--status"))
    return re.sub(r":\d+\"", ':<port>"', text)


def voters_json(text: str) -> list[tuple[int, list[str]]]:
    """CurrentVoters with the ports taken out: (id, endpoints as NAME://host)."""
    return [(v["id"], [re.sub(r":\d+$", "", e) for e in v["endpoints"]]) for v in json.loads(text)]


def test_kafka_metadata_quorum_describes_kafpy_controllers_as_apache_ones(
        apache: ApacheControllers, kafpy_controllers: Controllers) -> None:
    apache.start()
    c = kafpy_controllers
    c.format()
    for node in c.ports:
        c.start(node)
    leader, quorum = eventually(lambda: leader_view(c), what="the kafpy quorum settled")
    theirs = eventually(lambda: apache_settled(apache), timeout=120, what="the Apache quorum settled")
    ours = status(c.ports[1])

    # --status: line for line the same text, but for the values excepted above
    assert masked_status(c.ports[3]) == masked_status(apache.ports[3])
    assert status_keys(c.ports[1]) == status_keys(apache.ports[1]) == [
        "ClusterId", "LeaderId", "LeaderEpoch", "HighWatermark", "MaxFollowerLag", "MaxFollowerLagTimeMs",
        "CurrentVoters", "CurrentObservers"]
    # ... and values that are the quorum as it is
    assert ours["ClusterId"] == "uTx0ZkX2R9m0eQ3Fh8kQwA"
    assert int(ours["LeaderId"]) == leader and int(ours["LeaderEpoch"]) == quorum.leader_epoch
    assert int(ours["HighWatermark"]) == describe_quorum(c.ports[leader]).high_watermark >= 1
    assert ours["MaxFollowerLag"] == theirs["MaxFollowerLag"] == "0"
    assert int(ours["MaxFollowerLagTimeMs"]) >= 0 and int(theirs["MaxFollowerLagTimeMs"]) >= 0
    assert voters_json(ours["CurrentVoters"]) == voters_json(theirs["CurrentVoters"]) == [
        (n, [f"CONTROLLER://{LOOPBACK}"]) for n in (1, 2, 3)]
    assert ours["CurrentObservers"] == theirs["CurrentObservers"] == "[]"

    # --replication: the same header, one row per voter, the leader first, the same statuses
    mine, apaches = replication(c.ports[2]), replication(apache.ports[2])
    header = quorum_tool(c.ports[2], "--replication").splitlines()[0]
    assert header == quorum_tool(apache.ports[2], "--replication").splitlines()[0]
    assert mine[0] == apaches[0] == ["NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                                     "LastCaughtUpTimestamp", "Status"]
    for rows, leader_id in ((mine, leader), (apaches, int(theirs["LeaderId"]))):
        assert len(rows) == 4 and all(len(r) == 7 for r in rows[1:])
        assert [r[6] for r in rows[1:]] == ["Leader", "Follower", "Follower"]
        assert int(rows[1][0]) == leader_id and sorted(int(r[0]) for r in rows[1:]) == [1, 2, 3]
        assert {r[1] for r in rows[1:]} == {"AAAAAAAAAAAAAAAAAAAAAA"}  # static voters: no directory ids
        now_ms = time.time() * 1000
        assert all(abs(now_ms - int(r[4])) < 120_000 and abs(now_ms - int(r[5])) < 120_000 for r in rows[1:])
    ends = {int(r[0]): (int(r[2]), int(r[3])) for r in mine[1:]}
    assert ends == {n: (int(ours["HighWatermark"]), 0) for n in (1, 2, 3)}
