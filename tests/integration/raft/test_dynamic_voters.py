"""KIP-853 with real parts, side by side: three controllers formatted with ``--initial-controllers``
and a fourth formatted with ``--no-initial-controllers`` that starts as an observer (it finds
the leader through ``controller.quorum.bootstrap.servers``), once with kafpy controllers and once
with Apache Kafka 4.4 controllers, the same steps on both with Apache Kafka 4.4's
``kafka-metadata-quorum.sh``: ``--command-config <node 4's properties> add-controller`` makes it a
voter, ``describe --status`` / ``--replication`` show it with its directory id,
``remove-controller --controller-id 4 --controller-directory-id D`` removes it (it goes on
fetching as an observer) and a second removal fails with Kafka's VOTER_NOT_FOUND.

The tool's outputs are compared with what depends on the run masked: directory ids (random per
format: each side is checked against the ids it formatted), ports, timestamps, offsets and the
leader (whoever wins), and the error's stack trace."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator, Protocol

import pytest

from kafpy._process import terminate
from kafpy.protocol.messages import DescribeClusterRequest, DescribeClusterResponse, DescribeQuorumResponse

from tests.integration.raft.quorum_support import (
    REPO_ROOT, apache_server_command, call, controller_id, describe_quorum, describe_quorum_response, kafpy_format,
    write_properties,
)
from tests.integration.raft.test_controller_quorum import CLUSTER_ID, Controllers, eventually
from tests.integration.raft.test_metadata_quorum_tool import ApacheControllers
from tests.support.kafka_dist import run_tool
from tests.support.ports import LOOPBACK, free_ports


def observer_properties(work: Path, ports: dict[int, int], port: int) -> dict[str, str]:
    """Node 4: a controller that knows only the bootstrap servers."""
    return {
        "process.roles": "controller", "node.id": "4",
        "listeners": f"CONTROLLER://{LOOPBACK}:{port}",
        "controller.listener.names": "CONTROLLER", "listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
        "controller.quorum.bootstrap.servers": ",".join(f"{LOOPBACK}:{p}" for _, p in sorted(ports.items())),
        "log.dirs": str(work / "controller-4"), "metadata.log.dir": str(work / "controller-4"),
        "controller.quorum.election.timeout.ms": "500", "controller.quorum.fetch.timeout.ms": "1000",
        "controller.quorum.election.backoff.max.ms": "500", "controller.quorum.request.timeout.ms": "5000",
    }


def directory_id_of(work: Path) -> str:
    match = re.search(r"^directory\.id=(\S+)$", (work / "controller-4" / "meta.properties").read_text(), re.M)
    assert match is not None
    return match.group(1)


class Side(Protocol):
    """A quorum of either kind: its voters' ports and directory ids, node 4's config."""

    ports: dict[int, int]
    directory_ids: dict[int, str]
    observer_config: Path
    observer_port: int

    def start_all(self) -> str: ...  # the observer's directory id

    def restart_observer(self) -> bool: ...  # node 4 started again (False: never done)


class KafpySide(Controllers):
    def __init__(self, work: Path) -> None:
        super().__init__(work, dynamic=True)
        self.observer_port = free_ports(1)[0]
        self.observer_config = write_properties(work / "controller-4.properties",
                                                observer_properties(work, self.ports, self.observer_port))

    def start_all(self) -> str:
        self.format()
        kafpy_format(self.observer_config, CLUSTER_ID, "--no-initial-controllers")
        for node in self.ports:
            self.start(node)
        with open(self.work / "controller-4.out", "ab") as out:
            self.procs[4] = subprocess.Popen([sys.executable, "-m", "kafpy.broker", str(self.observer_config)],
                                             stdout=out, stderr=subprocess.STDOUT, cwd=REPO_ROOT,
                                             start_new_session=True)
        return directory_id_of(self.work)

    def restart_observer(self) -> bool:
        return False  # ours registers, or the test fails


class ApacheSide(ApacheControllers):
    def __init__(self, work: Path) -> None:
        super().__init__(work, dynamic=True)
        self.observer_port = free_ports(1)[0]
        self.observer_config = write_properties(work / "apache-4.properties",
                                                observer_properties(work, self.ports, self.observer_port))

    def start_all(self) -> str:
        self.start()
        run_tool("4", "kafka-storage", ["format", "-t", self.cluster_id, "-c", str(self.observer_config),
                                        "--no-initial-controllers"], timeout=120)
        self._start_observer()
        return directory_id_of(self.work)

    def _start_observer(self) -> None:
        with open(self.work / "apache-4.out", "ab") as out:
            self.procs.append(subprocess.Popen(
                apache_server_command(self.observer_config),
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True))

    def restart_observer(self) -> bool:
        """Apache 4.4's node 4 once fetched as an observer for 100 s without ever sending its
        ControllerRegistration: every attempt "timed out before sending the request" (its
        channel to the active controller never had the leader's address). The test then starts
        it once more, same data, new process and channel; ours is never restarted."""
        terminate(self.procs.pop(), timeout=30, sig=signal.SIGKILL)
        self._start_observer()
        return True


@pytest.fixture
def kafpy_side(tmp_path: Path) -> Iterator[KafpySide]:
    (tmp_path / "kafpy").mkdir()
    side = KafpySide(tmp_path / "kafpy")
    try:
        yield side
    finally:
        side.stop_all()


@pytest.fixture
def apache_side(tmp_path: Path) -> Iterator[ApacheSide]:
    (tmp_path / "apache").mkdir()
    side = ApacheSide(tmp_path / "apache")
    try:
        yield side
    finally:
        side.stop()


def quorum_tool(port: int, *args: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = ["--bootstrap-controller", f"{LOOPBACK}:{port}"]
    if config is not None:
        command += ["--command-config", str(config)]
    return run_tool("4", "kafka-metadata-quorum", [*command, *args], timeout=180, check=False)


def masked(text: str, directory: str) -> str:
    text = text.replace(directory, "<dir4>")
    text = re.sub(r"\b(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}):\d+", r"\1:<port>", text)
    return "\n".join(line for line in text.splitlines() if not line.startswith("\tat "))


def voters(side: Side, directory: str) -> list[tuple[int, bool]]:
    """CurrentVoters of --status: (id, whether the directory id is the one formatted)."""
    out = quorum_tool(side.ports[1], "describe", "--status")
    assert out.returncode == 0, out.stdout + out.stderr
    line = next(li for li in out.stdout.splitlines() if li.startswith("CurrentVoters:"))
    ids = {**side.directory_ids, 4: directory}
    return sorted((v["id"], v.get("directoryId") == ids[v["id"]]) for v in json.loads(line.partition(":")[2]))


def replication_rows(side: Side, directory: str) -> list[tuple[str, str, str]]:
    """--replication as (node id, whether its directory id is the formatted one, status), the
    one Leader row counted as a Follower (who leads depends on the run)."""
    # Once (of many runs, on a loaded machine, right after the fourth voter was seen) Apache's
    # admin client found no node to send DescribeQuorum to within its 60 s: asked again.
    out = eventually(lambda: (lambda o: o if o.returncode == 0 else None)(
        quorum_tool(side.ports[2], "describe", "--replication")), timeout=200, what="describe --replication")
    ids = {**{str(n): d for n, d in side.directory_ids.items()}, "4": directory}
    rows = [line.split() for line in out.stdout.splitlines()[1:]]
    assert [r[-1] for r in rows].count("Leader") == 1 and rows[0][-1] == "Leader"
    return sorted((r[0], str(r[1] == ids[r[0]]), "Follower" if r[-1] == "Leader" else r[-1]) for r in rows)


def leader_quorum(side: Side) -> DescribeQuorumResponse.PartitionData | None:
    """The active controller's DescribeQuorum, asked over a socket (no JVM to start: the waits
    poll this, then ask Apache's tool once it holds); None while there is none."""
    leader = controller_id(side.ports[1])
    port = {**side.ports, 4: side.observer_port}.get(leader)
    if port is None:
        return None
    quorum = describe_quorum(port)
    return quorum if quorum.error_code == 0 else None


def voter_ids(side: Side) -> list[int] | None:
    """The voters' ids in the leader's DescribeQuorum."""
    quorum = leader_quorum(side)
    return None if quorum is None else sorted(v.replica_id for v in quorum.current_voters)


def observer_caught_up(side: Side) -> bool | None:
    """Node 4 an observer that has fetched up to the leader's high watermark: add-controller
    is then taken at once (the leader answers REQUEST_TIMED_OUT for a replica not caught up)."""
    quorum = leader_quorum(side)
    return True if quorum is not None and any(
        o.replica_id == 4 and o.log_end_offset >= quorum.high_watermark > 0 for o in quorum.observers) else None


def observer_fetching(side: Side) -> bool | None:
    leader = controller_id(side.ports[1])
    if leader < 0:
        return None
    quorum = describe_quorum(side.ports[leader])
    return True if any(o.replica_id == 4 and o.log_end_offset > 0 for o in quorum.observers) else None


def add_controller(side: Side) -> subprocess.CompletedProcess[str]:
    """add-controller, again while node 4 is still catching up (REQUEST_TIMED_OUT)."""
    def attempt() -> subprocess.CompletedProcess[str] | None:
        out = quorum_tool(side.ports[1], "add-controller", config=side.observer_config)
        return out if out.returncode == 0 else None
    return eventually(attempt, timeout=240, what="add-controller succeeded")


def all_registered(side: Side) -> bool | None:
    """DescribeCluster on the controller listener lists the four controllers and the leader.
    Kafka lists only the controllers whose registration is in the metadata log and answers
    ControllerId -1 while the leader's is not: the admin client then waits its whole
    default.api.timeout.ms for a node, so the steps start once every controller registered."""
    response = call(side.ports[1], DescribeClusterRequest(endpoint_type=2), DescribeClusterResponse, 1)
    return True if sorted(b.broker_id for b in response.brokers) == [1, 2, 3, 4] and \
        response.controller_id > 0 else None


def steps(side: Side) -> dict[str, object]:
    """The same steps on either side; what the tool printed, masked."""
    directory = side.start_all()
    eventually(lambda: observer_fetching(side), timeout=240, what="node 4 fetching as an observer")
    try:
        eventually(lambda: all_registered(side), timeout=60, what="the four controllers registered")
    except AssertionError:
        if not side.restart_observer():
            raise
        eventually(lambda: all_registered(side), timeout=120, what="the four controllers registered (node 4 restarted)")
    out: dict[str, object] = {"voters before": voters(side, directory)}
    eventually(lambda: observer_caught_up(side), timeout=120, what="node 4 caught up as an observer")
    added = add_controller(side)
    out["add-controller"] = masked(added.stdout, directory)
    eventually(lambda: voter_ids(side) == [1, 2, 3, 4] or None, timeout=60, what="four voters (DescribeQuorum)")
    out["voters after add"] = eventually(lambda: (lambda v: v if len(v) == 4 else None)(voters(side, directory)),
                                         timeout=60, what="four voters")
    out["replication after add"] = replication_rows(side, directory)
    removed = quorum_tool(side.ports[1], "remove-controller", "--controller-id", "4",
                          "--controller-directory-id", directory)
    assert removed.returncode == 0, removed.stdout + removed.stderr
    out["remove-controller"] = masked(removed.stdout, directory)
    out["voters after remove"] = voters(side, directory)
    eventually(lambda: (lambda q: q is not None and any(o.replica_id == 4 for o in q.observers) or None)(
        leader_quorum(side)), timeout=60, what="node 4 an observer (DescribeQuorum)")
    out["replication after remove"] = eventually(
        lambda: (lambda rows: rows if ("4", "True", "Observer") in rows else None)(replication_rows(side, directory)),
        timeout=60, what="node 4 listed as an observer")
    again = quorum_tool(side.ports[1], "remove-controller", "--controller-id", "4",
                        "--controller-directory-id", directory)
    first = masked(again.stdout + again.stderr, directory).splitlines()[:1]
    for node, voter_dir in side.directory_ids.items():
        first = [line.replace(voter_dir, f"<dir{node}>") for line in first]
    # Java prints the voters as a HashSet: in no particular order
    out["remove again"] = (again.returncode, [re.sub(r"\[(ReplicaKey.*)\]$", lambda m: str(
        sorted(re.findall(r"ReplicaKey\(id=\d+, directoryId=[^)]*\)", m.group(1)))), line) for line in first])
    return out


def test_add_controller_and_remove_controller_as_against_apache_controllers(
        kafpy_side: KafpySide, apache_side: ApacheSide) -> None:
    ours = steps(kafpy_side)
    kafpy_side.stop_all()  # the machine is shared: one quorum at a time
    theirs = steps(apache_side)
    print("kafpy:", ours, "\napache:", theirs)
    assert ours["voters before"] == [(1, True), (2, True), (3, True)]
    assert ours["voters after add"] == [(1, True), (2, True), (3, True), (4, True)]
    assert ours["voters after remove"] == ours["voters before"]
    assert "Added controller 4 with directory id <dir4>" in str(ours["add-controller"])
    assert "Removed KRaft controller 4 with directory id <dir4>" in str(ours["remove-controller"])
    again = ours["remove again"]
    assert isinstance(again, tuple) and again[0] != 0 and "VoterNotFoundException" in "".join(again[1])
    # ... and every step printed what Apache's controllers make the tool print
    for key in ours:
        assert ours[key] == theirs[key], key


def test_a_voter_restarted_on_another_port_updates_its_endpoint(tmp_path: Path) -> None:
    """Controller 2 comes back listening on another port: it sends UpdateRaftVoter (or, when it
    wins an election, writes its listeners itself) and Apache's ``describe --status`` then shows
    the new endpoint for it."""
    c = Controllers(tmp_path, dynamic=True)
    try:
        c.format()
        for node in c.ports:
            c.start(node)
        eventually(lambda: controller_id(c.ports[1]) if controller_id(c.ports[1]) > 0 else None,
                   what="a leader")
        terminate_node = c.procs.pop(2)
        terminate_node.terminate()
        terminate_node.wait(30)
        new_port = free_ports(1)[0]
        text = c.configs[2].read_text().replace(f"CONTROLLER://{LOOPBACK}:{c.ports[2]}",
                                                f"CONTROLLER://{LOOPBACK}:{new_port}")
        c.configs[2].write_text(text)
        c.start(2)

        def endpoint_of_2() -> str | None:
            out = quorum_tool(c.ports[1], "describe", "--status")
            if out.returncode != 0:
                return None
            line = next(li for li in out.stdout.splitlines() if li.startswith("CurrentVoters:"))
            found = {v["id"]: v["endpoints"] for v in json.loads(line.partition(":")[2])}
            return found[2][0] if found[2] == [f"CONTROLLER://{LOOPBACK}:{new_port}"] else None

        def endpoint_of_2_in_describe_quorum() -> bool | None:
            leader = controller_id(c.ports[1])
            ports = {**c.ports, 2: new_port}  # node 2, restarted, may lead
            nodes = describe_quorum_response(ports[leader]).nodes if leader in ports else []
            return True if any(n.node_id == 2 and [(li.host, li.port) for li in n.listeners] == [(LOOPBACK, new_port)]
                               for n in nodes) else None
        eventually(endpoint_of_2_in_describe_quorum, timeout=90, what="node 2's new endpoint (DescribeQuorum)")
        assert eventually(endpoint_of_2, timeout=90, what="node 2's new endpoint in the voter set") == \
            f"CONTROLLER://{LOOPBACK}:{new_port}"
    finally:
        c.stop_all()


def test_auto_join_makes_a_new_kafpy_controller_a_voter_by_itself(tmp_path: Path) -> None:
    """``controller.quorum.auto.join.enable=true`` on node 4: no tool needed, it adds itself
    (Apache's ``describe --status`` then lists it as a voter with its directory id)."""
    side = KafpySide(tmp_path)
    try:
        props = observer_properties(tmp_path, side.ports, side.observer_port)
        props["controller.quorum.auto.join.enable"] = "true"
        write_properties(side.observer_config, props)
        directory = side.start_all()
        eventually(lambda: voter_ids(side) == [1, 2, 3, 4] or None, timeout=90,
                   what="node 4 joined by itself (DescribeQuorum)")
        assert eventually(lambda: (lambda v: v if len(v) == 4 else None)(voters(side, directory)),
                          timeout=90, what="node 4 joined by itself") == [(1, True), (2, True), (3, True), (4, True)]
        # asked through node 4 itself: it names the leader and the voters of its log
        status = quorum_tool(side.observer_port, "describe", "--status")
        assert status.returncode == 0, status.stdout + status.stderr
        assert '"id": 4' in status.stdout and f'"directoryId": "{directory}"' in status.stdout
    finally:
        side.stop_all()


def test_an_added_voter_restarts_as_a_voter_and_a_removed_leader_resigns(tmp_path: Path) -> None:
    """After add-controller, node 4 restarted comes back as a voter (the set is in its log);
    remove-controller of the leader itself: it resigns once the change commits, another voter
    leads and the old leader goes on as an observer."""
    side = KafpySide(tmp_path)
    try:
        directory = side.start_all()
        eventually(lambda: observer_fetching(side), timeout=120, what="node 4 fetching as an observer")
        eventually(lambda: all_registered(side), timeout=120, what="the four controllers registered")
        add_controller(side)
        proc = side.procs.pop(4)
        proc.terminate()
        proc.wait(30)
        with open(tmp_path / "controller-4.out", "ab") as out:
            side.procs[4] = subprocess.Popen([sys.executable, "-m", "kafpy.broker", str(side.observer_config)],
                                             stdout=out, stderr=subprocess.STDOUT, cwd=REPO_ROOT,
                                             start_new_session=True)

        def four_caught_up() -> bool | None:
            leader = controller_id(side.ports[1])
            quorum = describe_quorum(side.ports[leader]) if leader > 0 else None
            ends = {v.replica_id: v.log_end_offset for v in quorum.current_voters} if quorum else {}
            return True if quorum is not None and ends.get(4) == quorum.high_watermark else None
        # the leader's view of node 4 is the stopped process's until the new one fetches: first
        # the new process answers, then it catches up; the tool needs the leader registered
        eventually(lambda: controller_id(side.observer_port) > 0 or None, timeout=60,
                   what="node 4 restarted and answering")
        eventually(four_caught_up, timeout=60, what="node 4 back as a caught-up voter")
        eventually(lambda: all_registered(side), timeout=60, what="DescribeCluster names the leader")
        assert voters(side, directory) == [(1, True), (2, True), (3, True), (4, True)]

        leader = controller_id(side.ports[1])
        removed = quorum_tool(side.ports[1], "remove-controller", "--controller-id", str(leader),
                              "--controller-directory-id", side.directory_ids[leader])
        assert removed.returncode == 0, removed.stdout + removed.stderr
        others = [n for n in (1, 2, 3) if n != leader]

        def new_leader() -> int | None:
            now = controller_id(side.ports[others[0]])
            return now if now in (*others, 4) else None
        eventually(new_leader, timeout=60, what="another voter leads")
        eventually(lambda: voter_ids(side) == sorted([*others, 4]) or None, timeout=90,
                   what="the voters without the removed leader (DescribeQuorum)")
        eventually(lambda: (lambda q: q is not None and any(o.replica_id == leader for o in q.observers) or None)(
            leader_quorum(side)), timeout=60, what="the old leader an observer (DescribeQuorum)")
        # the tool's bootstrap controller may be the one just removed, still handing over: ask again
        eventually(lambda: [n for n, _ in voters(side, directory)] == sorted([*others, 4]) or None,
                   timeout=90, what="CurrentVoters without the removed leader")
        rows = eventually(lambda: (lambda r: r if (str(leader), "True", "Observer") in r else None)(
            replication_rows(side, directory)), timeout=60, what="the old leader listed as an observer")
        assert sorted(r[0] for r in rows if r[2] == "Follower") == sorted(str(n) for n in (*others, 4))
    finally:
        side.stop_all()
