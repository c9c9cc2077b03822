"""KIP-853 across the two implementations: a dynamic quorum moves from one implementation's
controllers to the other's, with AddRaftVoter / RemoveRaftVoter, while a broker serves an
acks=all producer and a consumer.

Each run: node 1 is formatted ``--standalone`` (the only voter) and started with a broker (an
Apache Kafka 4.4 ``process.roles=broker``, which finds the controllers through
``controller.quorum.bootstrap.servers``); node 2, of the other implementation, is formatted
``--no-initial-controllers`` and starts as an observer. Apache's ``kafka-metadata-quorum.sh
add-controller`` makes node 2 a voter; the active controller is then killed (kill -9) and
restarted; ``remove-controller`` takes node 1 out, so the voters are all of node 2's
implementation, and the active controller (node 2) is killed and restarted once more. The
producer runs all along: no acknowledged record may be missing, for the consumer that ran
throughout nor for a new one. The two metadata logs, read from their segment files, pass the
metadata-log checker (one leader per epoch, log matching, every committed batch the same bytes
on both nodes: the removed node goes on fetching as an observer).

Run once with a kafpy standalone quorum joined by an Apache controller, once the other way
round. Between the add and the first kill, node 2 comes back on another port and the voter set
takes its new endpoint (UpdateRaftVoter to the other implementation's leader)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import KafkaError

from kafpy._process import terminate
from tests.integration.raft.quorum_support import (
    FAST_QUORUM, REPO_ROOT, apache_server_command, describe_quorum, describe_quorum_response, kafpy_format,
    write_properties,
)
from kafpy.metadata.meta_properties import uuid_to_string
from tests.support import wire
from tests.support.kafka_dist import random_cluster_id, run_tool
from tests.support.metadata_log_checker import check_logs, read_log_entries
from tests.support.ports import LOOPBACK, free_ports

pytestmark = pytest.mark.timeout(900)

TOPIC = "voter-moves"
PARTITIONS = 2
BROKER_ID = 100
_T = TypeVar("_T")


class Node:
    """One controller of either implementation: its id, port, config and process."""

    def __init__(self, work: Path, node_id: int, kind: str, port: int, bootstrap: str) -> None:
        self.node_id = node_id
        self.kind = kind
        self.port = port
        self.dir = work / f"controller-{node_id}"
        self.out = work / f"controller-{node_id}.out"
        self.config = write_properties(work / f"controller-{node_id}.properties", {
            "process.roles": "controller", "node.id": str(node_id),
            "listeners": f"CONTROLLER://{LOOPBACK}:{port}",
            "controller.listener.names": "CONTROLLER", "listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
            "controller.quorum.bootstrap.servers": bootstrap,
            "log.dirs": str(self.dir), "metadata.log.dir": str(self.dir),
            "broker.session.timeout.ms": "9000",
            **FAST_QUORUM, "controller.quorum.request.timeout.ms": "5000",
            # two voters: the leader must outlive a follower's restart (it resigns after 1.5
            # fetch timeouts without a majority, and a follower restarted on another port is
            # out of its reach until the leader takes its UpdateRaftVoter); and a follower
            # sends UpdateRaftVoter one fetch timeout after it starts following (Kafka 4.4's
            # FollowerState.updateVoterPeriodMs): 12 s outlives a light JVM's restart on a
            # loaded machine and does not keep the test waiting 20 s for the new endpoint
            "controller.quorum.fetch.timeout.ms": "12000",
        })
        self.proc: subprocess.Popen[bytes] | None = None

    def format(self, cluster_id: str, how: str) -> None:
        if self.kind == "apache":
            run_tool("4", "kafka-storage", ["format", "-t", cluster_id, "-c", str(self.config), how], timeout=120)
        else:
            kafpy_format(self.config, cluster_id, how)

    def start(self) -> None:
        if self.kind == "apache":
            cmd = apache_server_command(self.config, log_level="INFO")
        else:
            cmd = [sys.executable, "-m", "kafpy.broker", str(self.config)]
        with open(self.out, "ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         cwd=REPO_ROOT, start_new_session=True)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None:
            terminate(self.proc, timeout=30)

    def move_to(self, port: int) -> None:
        """Stopped (SIGTERM), then started listening on ``port``."""
        self.stop()
        text = self.config.read_text()
        self.config.write_text(text.replace(f"CONTROLLER://{LOOPBACK}:{self.port}", f"CONTROLLER://{LOOPBACK}:{port}"))
        self.port = port
        self.start()

    def directory_id(self) -> str:
        match = re.search(r"^directory\.id=(\S+)$", (self.dir / "meta.properties").read_text(), re.M)
        assert match is not None
        return match.group(1)

    def tail(self) -> str:
        return self.out.read_text(errors="replace")[-4000:] if self.out.exists() else ""


class Traffic:
    """An acks=all producer and a consumer, each on a thread, for the whole run: what was
    acknowledged and what was consumed."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.acked: set[tuple[int, int, bytes]] = set()
        self.consumed: set[tuple[int, int, bytes]] = set()
        self.failed_sends = 0
        self._drain_deadline = float("inf")
        self._stop = threading.Event()
        # set once the producer has closed: the consumer may finish only after the last
        # acknowledgement is counted (a send in flight when stop is asked adds one more)
        self._produced = threading.Event()
        self._threads = [threading.Thread(target=self._produce, daemon=True),
                         threading.Thread(target=self._consume, daemon=True)]

    def start(self) -> None:
        for t in self._threads:
            t.start()

    def _produce(self) -> None:
        producer = KafkaProducer(bootstrap_servers=[self.bootstrap], acks="all", retries=5,
                                 request_timeout_ms=15000, max_block_ms=30000)
        try:
            n = 0
            while not self._stop.is_set():
                value = b"v-%d" % n
                try:
                    md = producer.send(TOPIC, value=value, partition=n % PARTITIONS).get(timeout=60)
                    self.acked.add((md.partition, md.offset, value))
                except KafkaError:
                    self.failed_sends += 1
                n += 1
                time.sleep(0.02)
        finally:
            producer.close()
            self._drain_deadline = time.monotonic() + 60
            self._produced.set()

    def _consume(self) -> None:
        consumer = KafkaConsumer(bootstrap_servers=[self.bootstrap], auto_offset_reset="earliest",
                                 enable_auto_commit=False, request_timeout_ms=20000)
        try:
            consumer.assign([TopicPartition(TOPIC, p) for p in range(PARTITIONS)])
            consumer.seek_to_beginning()
            while not self._produced.is_set() or not self.acked <= self.consumed:
                for tp, records in consumer.poll(timeout_ms=500).items():
                    self.consumed.update((tp.partition, r.offset, r.value) for r in records)
                if self._produced.is_set() and time.monotonic() > self._drain_deadline:
                    break
        finally:
            consumer.close()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(120)

    def acked_count(self) -> int:
        return len(self.acked)


class VoterMove:
    """Node 1 (``first``'s implementation, standalone), node 2 (the other one, joining), the
    Apache broker, and the traffic through it."""

    def __init__(self, work: Path, first: str) -> None:
        self.work = work
        self.cluster_id = random_cluster_id()
        ports = free_ports(4)
        # node 2 moves to ports[3] later: every node and the broker may find it there too
        self.moved_port = ports[3]
        bootstrap = f"{LOOPBACK}:{ports[0]},{LOOPBACK}:{ports[1]},{LOOPBACK}:{ports[3]}"
        second = "apache" if first == "kafpy" else "kafpy"
        self.nodes = {1: Node(work, 1, first, ports[0], bootstrap), 2: Node(work, 2, second, ports[1], bootstrap)}
        self.broker_port = ports[2]
        self.broker_out = work / "broker.out"
        self.broker_config = write_properties(work / "broker.properties", {
            "process.roles": "broker", "node.id": str(BROKER_ID),
            "controller.quorum.bootstrap.servers": bootstrap,
            "controller.listener.names": "CONTROLLER",
            "listeners": f"PLAINTEXT://{LOOPBACK}:{self.broker_port}",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": str(work / "broker-data"),
            "offsets.topic.replication.factor": "1", "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1", "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1", "group.initial.rebalance.delay.ms": "0",
            "broker.heartbeat.interval.ms": "500",
        })
        self.broker: subprocess.Popen[bytes] | None = None
        self.traffic: Traffic | None = None

    @property
    def bootstrap(self) -> str:
        return f"{LOOPBACK}:{self.broker_port}"

    def start_broker(self) -> None:
        run_tool("4", "kafka-storage", ["format", "-t", self.cluster_id, "-c", str(self.broker_config)], timeout=120)
        with open(self.broker_out, "ab") as out:
            self.broker = subprocess.Popen(
                apache_server_command(self.broker_config, heap="512m", log_level="INFO"),
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                cwd=self.work)

    def stop_all(self) -> None:
        if self.traffic is not None:
            self.traffic.stop()
        if self.broker is not None:
            terminate(self.broker, timeout=30)
        for node in self.nodes.values():
            node.stop()

    def outputs(self) -> str:
        return "\n".join(f"--- node {n.node_id} ({n.kind})\n{n.tail()}" for n in self.nodes.values())

    def wait(self, probe: Callable[[], _T | None], what: str, timeout: float = 120.0) -> _T:
        deadline = time.monotonic() + timeout
        last: BaseException | None = None
        while time.monotonic() < deadline:
            try:
                found = probe()
            except (OSError, AssertionError, ValueError) as e:
                last, found = e, None
            if found:
                return found
            time.sleep(0.2)
        raise AssertionError(f"timed out ({timeout}s) waiting for {what} (last error: {last!r})\n{self.outputs()}")

    def leader(self) -> tuple[int, int, int] | None:
        """(leader, epoch, high watermark) once one live node answers DescribeQuorum as the
        leader and every live voter has fetched up to the high watermark."""
        answers = {}
        for node in self.nodes.values():
            if node.alive():
                data = describe_quorum(node.port)
                if data.error_code == 0:
                    answers[node.node_id] = data
        if len(answers) != 1:
            return None
        leader, data = answers.popitem()
        ends = {v.replica_id: v.log_end_offset for v in data.current_voters}
        live_voters = [n for n in ends if self.nodes[n].alive()]
        if data.leader_id != leader or data.high_watermark <= 0 or len(live_voters) != len(ends) \
                or any(ends[n] < data.high_watermark for n in live_voters):
            return None
        return leader, data.leader_epoch, data.high_watermark

    def leader_voters(self) -> tuple[list[tuple[int, str]], dict[int, list[str]]] | None:
        """The voters as the leader's DescribeQuorum v2 names them, asked over a socket (no
        JVM to start, so the waits poll this and ask Apache's tool once it holds): (id,
        directory id) and each voter's endpoints; None while no live node leads."""
        for node in self.nodes.values():
            if not node.alive():
                continue
            response = describe_quorum_response(node.port)
            data = response.topics[0].partitions[0]
            if data.error_code == 0:
                voters = sorted((v.replica_id, uuid_to_string(v.replica_directory_id)) for v in data.current_voters)
                endpoints = {n.node_id: [f"{li.name}://{li.host}:{li.port}" for li in n.listeners]
                             for n in response.nodes}
                return voters, endpoints
        return None

    def voters(self) -> list[tuple[int, str]]:
        """Apache's ``describe --status`` CurrentVoters: (id, directory id)."""
        return sorted((int(str(v["id"])), str(v["directoryId"])) for v in self.current_voters())

    def current_voters(self) -> list[dict[str, object]]:
        refusals = []
        for node in self.nodes.values():
            if not node.alive():
                continue
            out = quorum_tool(node.port, "describe", "--status")
            if out.returncode == 0:
                line = next(li for li in out.stdout.splitlines() if li.startswith("CurrentVoters:"))
                voters: list[dict[str, object]] = json.loads(line.partition(":")[2])
                return voters
            refusals.append(f"node {node.node_id}: {out.stderr.strip()[-500:]}")
        raise AssertionError(f"no controller answered describe --status ({'; '.join(refusals)})")

    def observer_fetching(self, node_id: int) -> bool:
        found = self.leader()
        if found is None:
            return False
        data = describe_quorum(self.nodes[found[0]].port)
        return any(o.replica_id == node_id and o.log_end_offset >= data.high_watermark for o in data.observers)

    def kill_and_restart_active(self, high_watermark: int) -> int:
        """kill -9 of the active controller, restarted; the new high watermark (not lower)."""
        leader, epoch, _ = self.wait(self.leader, "the active controller")
        self.nodes[leader].kill()
        self.nodes[leader].start()
        found = self.wait(lambda: (lambda f: f if f is not None and f[1] > epoch else None)(self.leader()),
                          f"a leader after controller {leader} was killed")
        assert found[2] >= high_watermark
        return found[2]


def quorum_tool(port: int, *args: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = ["--bootstrap-controller", f"{LOOPBACK}:{port}"]
    if config is not None:
        command += ["--command-config", str(config)]
    return run_tool("4", "kafka-metadata-quorum", [*command, *args], timeout=180, check=False)


def broker_registered(port: int) -> bool:
    return any(n == BROKER_ID for n, _h, _p in wire.metadata_brokers(LOOPBACK, port, timeout=2.0))


@pytest.fixture(params=["kafpy", "apache"], ids=["kafpy-to-apache", "apache-to-kafpy"])
def move(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VoterMove]:
    m = VoterMove(tmp_path, str(request.param))
    try:
        yield m
    finally:
        m.stop_all()


def test_the_voters_move_to_the_other_implementation(move: VoterMove) -> None:
    m = move
    first, second = m.nodes[1], m.nodes[2]
    first.format(m.cluster_id, "--standalone")
    second.format(m.cluster_id, "--no-initial-controllers")
    first.start()
    m.wait(m.leader, f"{first.kind} controller 1 leading alone")
    m.start_broker()
    m.wait(lambda: broker_registered(m.broker_port), "the broker unfenced")
    created = run_tool("4", "kafka-topics", ["--bootstrap-server", m.bootstrap, "--create", "--topic", TOPIC,
                                             "--partitions", str(PARTITIONS), "--replication-factor", "1"])
    assert f"Created topic {TOPIC}" in created.stdout, created.stdout + created.stderr
    m.traffic = Traffic(m.bootstrap)
    m.traffic.start()
    m.wait(lambda: m.traffic is not None and m.traffic.acked_count() > 20, "the first acknowledged records")

    # node 2 joins: an observer first, then a voter by Apache's add-controller
    second.start()
    m.wait(lambda: m.observer_fetching(2), f"{second.kind} controller 2 fetching as an observer", timeout=180)
    assert m.voters() == [(1, first.directory_id())]

    def add() -> subprocess.CompletedProcess[str] | None:
        out = quorum_tool(first.port, "add-controller", config=second.config)
        return out if out.returncode == 0 else None
    added = m.wait(add, "add-controller of node 2", timeout=240)
    assert f"Added controller 2 with directory id {second.directory_id()}" in added.stdout, added.stdout
    both = sorted([(1, first.directory_id()), (2, second.directory_id())])
    m.wait(lambda: (m.leader_voters() or ([], {}))[0] == both, "two voters in the leader's DescribeQuorum")
    m.wait(lambda: m.voters() == both, "two voters")
    m.wait(m.leader, "both voters caught up")

    # node 2, the other implementation's voter, restarted on another port: the leader takes
    # its new endpoint (UpdateRaftVoter to node 1, or its own VotersRecord should node 2 win
    # the next election)
    moved = m.nodes[2]
    moved.move_to(m.moved_port)
    endpoint = [f"CONTROLLER://{LOOPBACK}:{moved.port}"]
    m.wait(lambda: (m.leader_voters() or ([], {}))[1].get(2) == endpoint,
           f"{moved.kind} voter 2's new endpoint in the leader's DescribeQuorum", timeout=240)
    m.wait(lambda: any(v["id"] == 2 and v["endpoints"] == endpoint for v in m.current_voters()),
           f"{moved.kind} voter 2's new endpoint in the voter set", timeout=240)
    _, _, hw = m.wait(m.leader, "both voters caught up on the new endpoint")
    hw = m.kill_and_restart_active(hw)
    before_remove = m.traffic.acked_count()
    m.wait(lambda: m.traffic is not None and m.traffic.acked_count() > before_remove + 20,
           "records acknowledged after the first kill")

    # node 1 leaves: the voters are all of the other implementation
    def remove() -> subprocess.CompletedProcess[str] | None:
        out = quorum_tool(second.port, "remove-controller", "--controller-id", "1",
                          "--controller-directory-id", first.directory_id())
        return out if out.returncode == 0 else None
    removed = m.wait(remove, "remove-controller of node 1", timeout=120)
    assert f"Removed KRaft controller 1 with directory id {first.directory_id()}" in removed.stdout
    m.wait(lambda: (m.leader_voters() or ([], {}))[0] == [(2, second.directory_id())],
           "node 2 the only voter in the leader's DescribeQuorum")
    m.wait(lambda: m.voters() == [(2, second.directory_id())], "node 2 the only voter")
    leader, _, hw2 = m.wait(m.leader, "controller 2 leading alone")
    assert leader == 2
    hw = m.kill_and_restart_active(max(hw, hw2))
    # the restarted controller may refuse the tool's first requests (as an Apache one does)
    m.wait(lambda: m.voters() == [(2, second.directory_id())], "node 2 still the only voter after its restart")

    # the quorum still changes metadata: a new topic, and the broker still serves traffic
    # through the broker (forwarded in an Envelope to the active controller, wherever it went)
    status = run_tool("4", "kafka-metadata-quorum", ["--bootstrap-server", m.bootstrap, "describe", "--status"],
                      timeout=180)
    assert re.search(r"LeaderId:\s+2\b", status.stdout), status.stdout
    created = run_tool("4", "kafka-topics", ["--bootstrap-server", m.bootstrap, "--create", "--topic",
                                             f"{TOPIC}-after", "--partitions", "1", "--replication-factor", "1"])
    assert f"Created topic {TOPIC}-after" in created.stdout, created.stdout + created.stderr
    after = m.traffic.acked_count()
    m.wait(lambda: m.traffic is not None and m.traffic.acked_count() > after + 20,
           "records acknowledged after the second kill")
    m.wait(lambda: m.observer_fetching(1), "the removed node 1 fetching as an observer", timeout=120)
    _, _, hw = m.wait(m.leader, "the last high watermark")
    traffic = m.traffic
    traffic.stop()
    m.traffic = None
    missing = traffic.acked - traffic.consumed
    assert not missing, f"{len(missing)} of {len(traffic.acked)} acknowledged records not consumed, " \
                        f"e.g. {sorted(missing)[:3]}"
    fresh = read_from_start(m.bootstrap, len(traffic.acked))
    assert traffic.acked <= fresh, f"{len(traffic.acked - fresh)} acknowledged records missing for a new consumer"

    m.wait(lambda: m.observer_fetching(1), "node 1 caught up with the last high watermark", timeout=60)
    final_hw = m.wait(m.leader, "the final high watermark")[2]
    assert final_hw >= hw
    m.stop_all()
    logs = {n.node_id: read_log_entries(n.dir / "__cluster_metadata-0") for n in m.nodes.values()}
    assert all(logs.values())
    assert check_logs(logs, final_hw, converged=True) == []


def read_from_start(bootstrap: str, expected: int) -> set[tuple[int, int, bytes]]:
    consumer = KafkaConsumer(bootstrap_servers=[bootstrap], auto_offset_reset="earliest",
                             enable_auto_commit=False, request_timeout_ms=20000)
    try:
        consumer.assign([TopicPartition(TOPIC, p) for p in range(PARTITIONS)])
        got: set[tuple[int, int, bytes]] = set()
        deadline = time.monotonic() + 60
        while len(got) < expected and time.monotonic() < deadline:
            for tp, records in consumer.poll(timeout_ms=1000).items():
                got.update((tp.partition, r.offset, r.value) for r in records)
        return got
    finally:
        consumer.close()
