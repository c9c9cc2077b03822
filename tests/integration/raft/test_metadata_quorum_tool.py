"""Apache Kafka 4.4's ``kafka-metadata-quorum.sh --bootstrap-controller ... describe --status``
and ``--replication`` against three kafpy controllers, side by side with the same commands
against three Apache Kafka 4.4 controllers (``process.roles=controller``), configured the same
way: static ``controller.quorum.voters``, or a dynamic quorum formatted with
``--initial-controllers`` (voters with directory ids) and ``controller.quorum.bootstrap.servers``. Both must print the same lines: the same keys in the same
order, the same columns, one row per voter with the same statuses, and values that say what
the quorum is (the leader the nodes name, its epoch and high watermark, the voters, lag 0 once
caught up).

Values compared by meaning, not text, because they depend on timing or on the run: ClusterId
(random per run), LeaderId and LeaderEpoch (whoever wins), HighWatermark (each active
controller writes its bootstrap records and a NoOpRecord every 500 ms), MaxFollowerLag (for the
same reason a follower may be a record or two behind at the moment asked: each side's --status
is taken once it reads 0),
MaxFollowerLagTimeMs and the timestamps (time), the ports in the endpoints (picked per run),
the directory ids of a dynamic quorum (random per format: each side is checked against the ids
it was formatted with)."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Collection, Iterator, Mapping

import pytest

from kafpy._process import ProcessFailed, terminate

from kafpy.metadata.meta_properties import random_uuid

from tests.integration.raft.quorum_support import (
    apache_server_command, controller_properties, describe_quorum, dynamic_quorum_properties, initial_controllers,
    three_ports, write_properties,
)
from tests.integration.raft.test_controller_quorum import Controllers, eventually, leader_view
from tests.support.kafka_dist import ToolFailed, random_cluster_id, run_tool
from tests.support.ports import LOOPBACK


class ApacheControllers:
    """Three Apache Kafka 4.4 controller processes, formatted by Apache's kafka-storage."""

    def __init__(self, work: Path, dynamic: bool, avoid: Collection[int] = ()) -> None:
        self.work = work
        # ports apart from ``avoid`` (those of the quorum started beside it): two draws of
        # three_ports may share a number, and then the slower JVM cannot bind its listener
        self.ports = three_ports()
        while set(self.ports.values()) & set(avoid):
            self.ports = three_ports()
        self.cluster_id = random_cluster_id()
        self.procs: list[subprocess.Popen[bytes]] = []
        self.configs = {}
        self.dynamic = dynamic
        self.directory_ids = {n: random_uuid() for n in self.ports}
        for node in self.ports:
            props = (dynamic_quorum_properties if dynamic else controller_properties)(node, self.ports, work)
            props["metadata.log.dir"] = props["log.dirs"]
            self.configs[node] = write_properties(work / f"apache-{node}.properties", props)

    def start(self) -> None:
        extra = ["--initial-controllers", initial_controllers(self.ports, self.directory_ids)] if self.dynamic else []
        for node, config in self.configs.items():
            run_tool("4", "kafka-storage", ["format", "-t", self.cluster_id, "-c", str(config), *extra], timeout=120)
        for node, config in self.configs.items():
            with open(self.work / f"apache-{node}.out", "ab") as out:
                self.procs.append(subprocess.Popen(
                    apache_server_command(config),
                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True))

    def check_alive(self) -> None:
        """Raise (not an AssertionError: ``eventually`` would wait on) when a controller
        exited, with its output, rather than wait for a quorum that cannot settle."""
        for node, proc in zip(self.configs, self.procs):
            if proc.poll() is not None:
                out = (self.work / f"apache-{node}.out").read_text(errors="replace")[-6000:]
                raise ProcessFailed(f"Apache controller {node} exited with {proc.returncode}:\n{out}")

    def outputs(self) -> str:
        return "\n".join(f"--- Apache controller {node}\n" +
                         (self.work / f"apache-{node}.out").read_text(errors="replace")[-3000:]
                         for node in self.configs if (self.work / f"apache-{node}.out").exists())

    def stop(self) -> None:
        """kill -9: what is tested is what they answered, not their shutdown."""
        for proc in self.procs:
            terminate(proc, timeout=30, sig=signal.SIGKILL)


@pytest.fixture(params=["static", "dynamic"])
def dynamic(request: pytest.FixtureRequest) -> bool:
    return bool(request.param == "dynamic")


@pytest.fixture
def apache(tmp_path: Path, dynamic: bool, kafpy_controllers: Controllers) -> Iterator[ApacheControllers]:
    a = ApacheControllers(tmp_path / "apache", dynamic, avoid=kafpy_controllers.ports.values())
    try:
        yield a
    finally:
        a.stop()


@pytest.fixture
def kafpy_controllers(tmp_path: Path, dynamic: bool) -> Iterator[Controllers]:
    (tmp_path / "kafpy").mkdir()
    c = Controllers(tmp_path / "kafpy", dynamic=dynamic)
    try:
        yield c
    finally:
        c.stop_all()


def quorum_tool(port: int, *args: str) -> str:
    result = run_tool("4", "kafka-metadata-quorum", ["--bootstrap-controller", f"{LOOPBACK}:{port}",
                                                    "describe", *args], timeout=120)
    return result.stdout


def status(text: str) -> dict[str, str]:
    """--status's lines as key: value."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        out[key] = value.strip()
    return out


def status_keys(text: str) -> list[str]:
    return [line.partition(":")[0] for line in text.splitlines()]


def replication(text: str) -> list[list[str]]:
    """--replication's rows as their cells."""
    return [[cell.strip() for cell in line.split("\t") if cell.strip()] for line in text.splitlines()]


def apache_settled(a: ApacheControllers | Controllers, seen: list[str] | None = None) -> str | None:
    """--status (as printed) once a leader is known and every voter has caught up (lag 0);
    None while the controllers are starting (the tool fails until a MetadataVersion is
    finalized). A quorum with fewer live voters than three never settles: a controller that
    exited (a port taken, a bad config) fails the test at once, with its output. ``seen``
    keeps the last --status printed, for the message of a quorum that never settles."""
    if isinstance(a, ApacheControllers):
        a.check_alive()
    elif len(a.alive()) != 3:
        raise ProcessFailed(f"kafpy controllers alive: {a.alive()}\n" +
                            "\n".join(a.output(n)[-3000:] for n in a.ports))
    try:
        text = quorum_tool(a.ports[1], "--status")
    except ToolFailed:
        return None
    if seen is not None:
        seen[:] = [text]
    s = status(text)
    if s.get("LeaderId", "-1") == "-1" or s.get("MaxFollowerLag") != "0":
        return None
    return text


_TIMING_OR_IDS = re.compile(r"^(ClusterId|LeaderId|LeaderEpoch|HighWatermark|MaxFollowerLag|MaxFollowerLagTimeMs):"
                            r"(\s+)\S+$",
                            re.MULTILINE)


def masked_status(port: int) -> str:
    """--status as printed, with the values that depend on timing or ids (and the ports)
    replaced by placeholders."""
    text = _TIMING_OR_IDS.sub(lambda m: f"{m.group(1)}:{m.group(2)}<value>", quorum_tool(port, "--status"))
    text = re.sub(r'"directoryId": "[^"]+"', '"directoryId": "<id>"', text)
    return re.sub(r":\d+\"", ':<port>"', text)


def voters_json(text: str, directory_ids: Mapping[int, str]) -> list[tuple[int, bool, list[str]]]:
    """CurrentVoters with the ports taken out: (id, whether its directoryId is the one formatted
    (absent for static voters), endpoints as NAME://host)."""
    return [(v["id"], v.get("directoryId", "AAAAAAAAAAAAAAAAAAAAAA") == directory_ids[v["id"]],
             [re.sub(r":\d+$", "", e) for e in v["endpoints"]]) for v in json.loads(text)]


def test_kafka_metadata_quorum_describes_kafpy_controllers_as_apache_ones(
        apache: ApacheControllers, kafpy_controllers: Controllers, dynamic: bool) -> None:
    apache.start()
    c = kafpy_controllers
    c.format()
    for node in c.ports:
        c.start(node)
    leader, quorum = eventually(lambda: leader_view(c), what="the kafpy quorum settled")
    seen: list[str] = []
    try:
        their_text = eventually(lambda: apache_settled(apache, seen), timeout=120, what="the Apache quorum settled")
    except AssertionError as e:
        raise AssertionError(f"{e}\nlast --status: {seen}\n{apache.outputs()}") from None
    # both sides' active controllers write (bootstrap records, a NoOpRecord every 500 ms):
    # each side's --status is taken once every voter has caught up
    our_text = eventually(lambda: apache_settled(c), what="the kafpy quorum caught up")
    ours, theirs = status(our_text), status(their_text)

    # --status: line for line the same text, but for the values excepted above
    assert masked_status(c.ports[3]) == masked_status(apache.ports[3])
    assert status_keys(our_text) == status_keys(their_text) == [
        "ClusterId", "LeaderId", "LeaderEpoch", "HighWatermark", "MaxFollowerLag", "MaxFollowerLagTimeMs",
        "CurrentVoters", "CurrentObservers"]
    # ... and values that are the quorum as it is
    assert ours["ClusterId"] == "uTx0ZkX2R9m0eQ3Fh8kQwA"
    assert int(ours["LeaderId"]) == leader and int(ours["LeaderEpoch"]) == quorum.leader_epoch
    assert 1 <= int(ours["HighWatermark"]) <= describe_quorum(c.ports[leader]).high_watermark
    assert ours["MaxFollowerLag"] == theirs["MaxFollowerLag"] == "0"  # theirs: when it settled
    assert int(ours["MaxFollowerLagTimeMs"]) >= 0 and int(theirs["MaxFollowerLagTimeMs"]) >= 0
    static_ids = {n: "AAAAAAAAAAAAAAAAAAAAAA" for n in (1, 2, 3)}
    mine_ids = c.directory_ids if dynamic else static_ids
    their_ids = apache.directory_ids if dynamic else static_ids
    assert voters_json(ours["CurrentVoters"], mine_ids) == voters_json(theirs["CurrentVoters"], their_ids) == [
        (n, True, [f"CONTROLLER://{LOOPBACK}"]) for n in (1, 2, 3)]
    assert ('"directoryId"' in ours["CurrentVoters"]) == ('"directoryId"' in theirs["CurrentVoters"]) == dynamic
    assert ours["CurrentObservers"] == theirs["CurrentObservers"] == "[]"

    # --replication: the same header, one row per voter, the leader first, the same statuses
    my_text, their_replication = quorum_tool(c.ports[2], "--replication"), quorum_tool(apache.ports[2], "--replication")
    mine, apaches = replication(my_text), replication(their_replication)
    assert my_text.splitlines()[0] == their_replication.splitlines()[0]  # the header, padding and all
    assert mine[0] == apaches[0] == ["NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                                     "LastCaughtUpTimestamp", "Status"]
    for rows, leader_id, ids in ((mine, leader, mine_ids), (apaches, int(theirs["LeaderId"]), their_ids)):
        assert len(rows) == 4 and all(len(r) == 7 for r in rows[1:])
        assert [r[6] for r in rows[1:]] == ["Leader", "Follower", "Follower"]
        assert int(rows[1][0]) == leader_id and sorted(int(r[0]) for r in rows[1:]) == [1, 2, 3]
        assert all(r[1] == ids[int(r[0])] for r in rows[1:])  # static voters: AAAA... (none)
        now_ms = time.time() * 1000
        assert all(abs(now_ms - int(r[4])) < 120_000 and abs(now_ms - int(r[5])) < 120_000 for r in rows[1:])
    ends = {int(r[0]): int(r[2]) for r in mine[1:]}
    assert sorted(ends) == [1, 2, 3] and all(end >= int(ours["HighWatermark"]) for end in ends.values())
