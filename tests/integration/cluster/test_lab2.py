"""The seeds' Lab 2 ("Using Kafka Cluster and Failover") as written: ZooKeeper started with
scripts/zookeeper-server-start.sh config/zookeeper.properties and three brokers with
scripts/kafka-server-start.sh config/server-N.properties (copies in a tmp dir where only ports,
log.dirs, dataDir and zookeeper.connect change to run-time values, and the listener host to
loopback, as every test here binds loopback only; everything else as shipped, including
ZooKeeper's 18 s session timeout), the replicated ``my-failsafe-topic``, a console producer and
three console consumers in group ``mygroup``.

Checked: --describe spreads the leaders with full ISRs; the consumers share the partitions and
one stopped consumer's partitions are taken over; broker 0 killed, new leaders come from the
ISR and nothing produced is lost; broker 0 restarted rejoins every ISR. Then the broker that
coordinates ``mygroup`` is killed: the replicated ``__consumer_offsets`` keeps the group's
committed offsets and nothing is delivered twice. Run with our scripts and with Apache Kafka
3.9's and 4.x's console tools and kafka-topics (--bootstrap-server, since Apache dropped
--zookeeper)."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pytest
from kafka.partitioner.default import murmur2

from kafpy.protocol import codec
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (DescribeGroupsRequest, DescribeGroupsResponse, FindCoordinatorRequest,
                                      RequestHeader)
from kafpy.protocol.topics import GROUP_METADATA_TOPIC_NAME
from tests.integration.cluster.harness import CLUSTER_OVERRIDES, metadata, start_cluster, wait_until
from tests.integration.scripts.tools import REPO, run_script, script
from tests.support import kafka_dist, process, wire
from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK, free_ports
from tests.support.zookeeper import four_letter_word

pytestmark = pytest.mark.timeout(900)

TOPIC = "my-failsafe-topic"
GROUP = "mygroup"
PARTITIONS = 13
# zookeeper.session.timeout.ms as shipped (Kafka's default, 18 s) plus time to elect and propagate
FAILOVER_S = 18 + 30
_T = TypeVar("_T")
DESCRIBE_ROW = re.compile(r"Partition: (\d+)\s+Leader: (\S+)\s+Replicas: ([\d,]+)\s+Isr: ([\d,]*)")


# ----------------------------------------------------------------------------- the lab's servers
def rewrite_properties(src: Path, dst: Path, values: dict[str, str]) -> None:
    """Copy a shipped properties file, replacing the value of each key in ``values`` (which
    must all be present, uncommented) and nothing else."""
    seen: set[str] = set()
    out = []
    for line in src.read_text().splitlines():
        key = line.split("=", 1)[0].strip()
        if not line.lstrip().startswith("#") and key in values:
            line = f"{key}={values[key]}"
            seen.add(key)
        out.append(line)
    assert seen == set(values), f"{src.name} lacks {set(values) - seen}"
    dst.write_text("\n".join(out) + "\n")


class LabZooKeeper:
    """``scripts/zookeeper-server-start.sh`` on a copy of config/zookeeper.properties."""

    def __init__(self, work: Path, port: int):
        self.port = port
        self.config = work / "zookeeper.properties"
        self.output = work / "zookeeper.out"
        rewrite_properties(REPO / "config" / "zookeeper.properties", self.config,
                           {"dataDir": str(work / "zookeeper"), "clientPort": str(port)})
        self.proc: subprocess.Popen | None = None

    @property
    def connect_string(self) -> str:
        return f"localhost:{self.port}"

    def start(self) -> "LabZooKeeper":
        with open(self.output, "ab") as out:
            self.proc = subprocess.Popen([script("zookeeper-server-start"), str(self.config)], cwd="/",
                                         stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         env={**os.environ, "KAFKA_HEAP_OPTS": "-Xmx256M"},
                                         start_new_session=True)
        process.wait_for(lambda: four_letter_word(self.port, "srvr").startswith("Zookeeper version"),
                         timeout=60, what="ZooKeeper", proc=self.proc, log_path=self.output)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            process.terminate(self.proc, timeout=20)


class LabBroker(KafpyBroker):
    """A broker started as the lab does: ``kafka-server-start.sh <its server-N.properties>``."""

    def __init__(self, work: Path, broker_id: int, port: int, zk_connect: str):
        super().__init__(log_dir=work / f"kafka-{broker_id}", port=port, work_dir=work)
        self.broker_id = broker_id
        self.properties = work / f"server-{broker_id}.properties"
        rewrite_properties(REPO / "config" / f"server-{broker_id}.properties", self.properties, {
            "listeners": f"PLAINTEXT://{LOOPBACK}:{port}",
            "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{port}",
            "log.dirs": str(self.log_dir),
            "zookeeper.connect": zk_connect,
        })

    def command(self) -> list[str]:
        return [script("kafka-server-start"), str(self.properties)]


@pytest.fixture
def lab(tmp_path):
    """ZooKeeper and brokers 0, 1, 2 of the lab, all stopped at teardown."""
    zk_port, *ports = free_ports(4)
    zk = LabZooKeeper(tmp_path, zk_port)
    brokers: list[LabBroker] = []
    try:
        zk.start()
        brokers = [LabBroker(tmp_path, i, ports[i], zk.connect_string) for i in range(3)]
        # side by side, as the lab's three terminals may start them: a start is mostly the
        # interpreter loading, and nothing in the lab depends on which registers first
        with ThreadPoolExecutor(3) as pool:
            list(pool.map(lambda b: b.start(), brokers))
        yield zk, brokers
    finally:
        for b in brokers:
            b.kill()
        zk.stop()


# ----------------------------------------------------------------------------- the tools
class Consumer:
    """A console consumer process and the values it printed so far (read on a thread)."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.values: list[str] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None, "started with stdout=PIPE"
        for line in self.proc.stdout:
            if re.fullmatch(r"m\d+", line.strip()):
                with self._lock:
                    self.values.append(line.strip())

    def got(self) -> list[str]:
        with self._lock:
            return list(self.values)


def sigint_as_from_a_terminal() -> None:
    """In a tool's child process before exec: SIGINT at its default disposition. A pytest run
    as a background job inherits it ignored, and a JVM started so keeps ignoring it: the lab's
    Ctrl-C to a console consumer then did nothing until the SIGKILL 30 s later, and the group
    waited out the killed member's 45 s session before it rebalanced."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Tools:
    """The lab's commands, from this project's scripts ("kafpy") or from an Apache Kafka
    distribution ("3.9", "4"), each started from / in a session of its own."""

    def __init__(self, flavour: str, work: Path):
        self.flavour = flavour
        self.work = work
        self.started: list[subprocess.Popen] = []

    def topics(self, *args: str) -> str:
        if self.flavour == "kafpy":
            res = run_script("kafka-topics", *args, timeout=120)
        else:
            res = kafka_dist.run_tool(self.flavour, "kafka-topics", args, check=False, timeout=120)
        assert res.returncode == 0, res.stdout + res.stderr
        return res.stdout

    def start(self, tool: str, *args: str) -> subprocess.Popen:
        err = open(self.work / f"{tool}-{len(self.started)}.err", "w")
        command = [script(tool), *args] if self.flavour == "kafpy" else kafka_dist.java_command(self.flavour, tool, args)
        proc = subprocess.Popen(command, cwd="/", start_new_session=True, text=True, bufsize=1,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                preexec_fn=sigint_as_from_a_terminal)
        err.close()
        self.started.append(proc)
        return proc

    def producer(self, brokers: str) -> subprocess.Popen:
        # Apache 4 dropped --broker-list; the lab's keys spread the lines over the partitions
        # (a console producer's sticky partitioner would put unkeyed lines on one partition)
        flag = "--bootstrap-server" if self.flavour == "4" else "--broker-list"
        return self.start("kafka-console-producer", flag, brokers, "--topic", TOPIC,
                          "--property", "parse.key=true", "--property", "key.separator=:")

    def consumer(self, brokers: str) -> Consumer:
        return Consumer(self.start("kafka-console-consumer", "--bootstrap-server", brokers, "--topic", TOPIC,
                                   "--consumer-property", f"group.id={GROUP}", "--from-beginning"))

    def stop_all(self) -> None:
        for proc in self.started:
            process.kill(proc)


@pytest.fixture(params=["kafpy", "3.9", "4"], ids=lambda f: f"tools-{f}")
def tools(request, tmp_path):
    t = Tools(request.param, tmp_path)
    yield t
    t.stop_all()


def describe(tools: Tools, zk: LabZooKeeper, broker: LabBroker) -> dict[int, tuple[str, list[int], list[int]]]:
    """partition -> (leader, replicas, isr) as kafka-topics --describe prints them."""
    where = ["--zookeeper", zk.connect_string] if tools.flavour == "kafpy" else ["--bootstrap-server", broker.bootstrap]
    out = tools.topics("--describe", "--topic", TOPIC, *where)
    return {int(p): (lead, [int(r) for r in reps.split(",")], [int(r) for r in isr.split(",") if r])
            for p, lead, reps, isr in DESCRIBE_ROW.findall(out)}


# partition -> (leader, replicas, isr), as kafka-topics --describe prints them
Rows = dict[int, tuple[str, list[int], list[int]]]


def wire_rows(broker: LabBroker) -> Rows:
    """partition -> (leader, replicas, isr) as ``broker`` answers Metadata on the wire: the
    cheap probe ``described`` polls before it runs the tool."""
    return {p.partition_index: (str(p.leader_id) if p.leader_id >= 0 else "none", list(p.replica_nodes),
                                list(p.isr_nodes))
            for t in metadata(broker, [TOPIC]).topics if t.name == TOPIC for p in t.partitions}


def described(tools: Tools, zk: LabZooKeeper, broker: LabBroker, ok: Callable[[Rows], bool], timeout: float,
              what: str) -> Rows:
    """Wait until kafka-topics --describe shows a state ``ok`` accepts, and return it. Metadata
    on the wire is polled until it agrees first, so the describe (a JVM start with Apache's
    tools) runs once or twice instead of all through a failover; the deadline is the same."""
    deadline = time.monotonic() + timeout
    try:
        wait_until(lambda: ok(wire_rows(broker)), timeout, what)
    except AssertionError:
        pass   # the tool's describe decides, and reports what it saw

    def settled() -> Rows | None:
        try:
            rows = describe(tools, zk, broker)
        except AssertionError as e:
            # Apache's admin client lists topics at its least loaded node, not always the
            # one it was given: a broker the controller has not told of a new topic yet
            # answers without it (as Apache brokers do in that moment)
            if "does not exist" in str(e):
                return None
            raise
        return rows if ok(rows) else None
    found = wait_until(settled, max(deadline - time.monotonic(), 5.0), what)
    assert found is not None, "wait_until returns a true value"
    return found


def group_rows(broker: LabBroker, *what: str) -> list[list[str]]:
    """Rows of our kafka-consumer-groups --describe for the lab's group (header dropped)."""
    res = run_script("kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--describe",
                     "--group", GROUP, *what, timeout=60)
    if res.returncode != 0:
        return []
    lines = [ln.split() for ln in res.stdout.splitlines() if ln.strip()]
    return [r for r in lines if r and r[0] == GROUP]


def stable_members(broker: LabBroker, n: int) -> bool:
    """The group is Stable with ``n`` members, each assigned some of the 13 partitions, all
    of them assigned."""
    state = group_rows(broker, "--state")
    members = group_rows(broker, "--members")
    return (bool(state) and "Stable" in state[0] and len(members) == n
            and all(int(r[-1]) > 0 for r in members) and sum(int(r[-1]) for r in members) == PARTITIONS)


def wire_group(broker: LabBroker) -> tuple[int, str, int] | None:
    """(coordinator id, state, member count) of the lab's group as FindCoordinator and
    DescribeGroups answer on the wire; None while no coordinator answers."""
    found = find_coordinator(broker, GROUP)
    if found.error_code != 0:
        return None
    header = RequestHeader(request_api_key=15, request_api_version=5, correlation_id=1, client_id="lab2-test")
    frame = codec.encode_request(header, DescribeGroupsRequest(groups=[GROUP]))
    response = codec.decode_response(15, 5, wire.roundtrip(found.host, found.port, frame, timeout=5))[1]
    assert isinstance(response, DescribeGroupsResponse)
    (group,) = response.groups
    return found.node_id, group.group_state, len(group.members)


def after_wire_agrees(probe: Callable[[], bool], check: Callable[[], _T], timeout: float, what: str) -> _T:
    """``wait_until(check, timeout, what)``, where ``check`` runs kafka-consumer-groups (a
    Python process per call): the wire ``probe`` is polled until it agrees first, so the tool
    runs once or twice instead of all through a rebalance or a failover. The tool decides,
    within the same deadline."""
    deadline = time.monotonic() + timeout

    def agrees() -> bool:
        try:
            return probe()
        except Exception:  # noqa: BLE001 - a probe that cannot tell yet; the tool decides
            return False
    try:
        wait_until(agrees, timeout, what)
    except AssertionError:
        pass
    return wait_until(check, max(deadline - time.monotonic(), 5.0), what)


def group_on_wire(broker: LabBroker, members: int, not_on: int | None = None) -> Callable[[], bool]:
    """A probe: the group is Stable with ``members`` members (on a coordinator other than
    ``not_on``)."""
    def probe() -> bool:
        group = wire_group(broker)
        return (group is not None and group[0] != not_on and group[1] == "Stable"
                and group[2] == members)
    return probe


def committed(broker: LabBroker) -> dict[int, tuple[str, str]]:
    """partition -> (committed offset, log end offset) of the group on TOPIC."""
    return {int(r[2]): (r[3], r[4]) for r in group_rows(broker, "--offsets") if len(r) > 4 and r[1] == TOPIC}


def coordinator_id(broker: LabBroker) -> int | None:
    state = group_rows(broker, "--state")
    m = re.search(r"\((\d+)\)", " ".join(state[0])) if state else None
    return int(m.group(1)) if m else None


class Lab:
    """The producer side: sends numbered lines and checks who received them."""

    def __init__(self, producer: subprocess.Popen):
        self.producer = producer
        self.sent: list[str] = []

    def send(self, count: int) -> list[str]:
        values = [f"m{len(self.sent) + i + 1}" for i in range(count)]
        assert self.producer.stdin is not None, "started with stdin=PIPE"
        for v in values:
            self.producer.stdin.write(f"key-{v}:{v}\n")
        self.producer.stdin.flush()
        self.sent += values
        return values

    def delivered(self, consumers: list[Consumer], values: list[str], timeout: float) -> list[list[str]]:
        """Wait until ``consumers`` together got every value in ``values``; what each got of them."""
        want = set(values)
        wait_until(lambda: want <= {v for c in consumers for v in c.got()}, timeout,
                   f"{len(values)} lines {values[0]}..{values[-1]} reached the consumers")
        return [[v for v in c.got() if v in want] for c in consumers]


def test_lab2_cluster_and_failover(lab, tools):
    zk, brokers = lab
    b0, b1, b2 = brokers

    # create-replicated-topic.sh
    where = ["--zookeeper", zk.connect_string] if tools.flavour == "kafpy" else ["--bootstrap-server", b0.bootstrap]
    out = tools.topics("--create", *where, "--replication-factor", "3", "--partitions", str(PARTITIONS),
                       "--topic", TOPIC)
    assert "Created topic" in out, out

    # describe-topics.sh: leaders spread over the three brokers, every replica in sync
    rows = described(tools, zk, b1, lambda d: len(d) == PARTITIONS and all(len(isr) == 3 for _, _, isr in d.values()),
                     60, "13 partitions with full ISRs")
    assert {lead for lead, _, _ in rows.values()} == {"0", "1", "2"}, rows
    assert all(sorted(reps) == [0, 1, 2] and sorted(isr) == [0, 1, 2] for _, reps, isr in rows.values()), rows

    # start-producer-console-replicated.sh and three start-consumer-console-replicated.sh
    lab = Lab(tools.producer(f"{b0.bootstrap},{b1.bootstrap}"))
    consumers = [tools.consumer(f"{b2.bootstrap},{b0.bootstrap}") for _ in range(3)]
    after_wire_agrees(group_on_wire(b1, 3), lambda: stable_members(b1, 3), 120,
                      "mygroup stable with three members sharing the partitions")

    # the consumers share the messages: each gets some, none twice
    got = lab.delivered(consumers, lab.send(39), 60)
    assert all(got), got
    assert sorted(v for g in got for v in g) == sorted(lab.sent[:39]), got

    # one consumer stopped (Ctrl-C): the other two take over its partitions
    code = process.terminate(consumers[2].proc, sig=signal.SIGINT, timeout=30)
    assert code != -signal.SIGKILL, "the console consumer ignored Ctrl-C and was killed 30 s later"
    after_wire_agrees(group_on_wire(b1, 2), lambda: stable_members(b1, 2), 120,
                      "mygroup stable with the two remaining members")
    got = lab.delivered(consumers[:2], lab.send(39), 60)
    assert all(got), got

    # broker 0 killed: new leaders from the ISR, producing and consuming carry on, nothing lost
    before = describe(tools, zk, b1)
    b0.kill()
    after = described(tools, zk, b1, lambda d: len(d) == PARTITIONS and all(
        lead != "0" and 0 not in isr for lead, _, isr in d.values()), FAILOVER_S, "broker 0 out of every leadership and ISR")
    for p, (lead, _, isr) in after.items():
        assert int(lead) in before[p][2] and sorted(isr) == sorted(set(before[p][2]) - {0}), (p, before[p], after[p])
    assert {lead for lead, _, _ in after.values()} == {"1", "2"}, after
    lab.delivered(consumers[:2], lab.send(26), FAILOVER_S)

    # broker 0 restarted: back in every ISR
    b0.start()
    described(tools, zk, b1, lambda d: len(d) == PARTITIONS and all(sorted(isr) == [0, 1, 2] for _, _, isr in d.values()),
              120, "broker 0 back in every ISR")
    lab.delivered(consumers[:2], lab.send(13), 60)

    received = [v for c in consumers for v in c.got()]
    assert set(received) == set(lab.sent), set(lab.sent) - set(received)

    # the group's coordinator killed: its committed offsets survive on the new coordinator
    total = str(len(lab.sent))

    def all_committed(broker: LabBroker) -> dict | None:
        offsets = committed(broker)
        done = len(offsets) == PARTITIONS and all(c == end for c, end in offsets.values())
        return offsets if done and sum(int(end) for _, end in offsets.values()) == int(total) else None

    offsets = wait_until(lambda: all_committed(b1), 60, "mygroup committed everything it consumed")
    old = wait_until(lambda: coordinator_id(b1), 30, "mygroup's coordinator known")
    count_before = len(received)
    brokers[old].kill()
    survivor = next(b for b in brokers if b.broker_id != old)
    after_wire_agrees(group_on_wire(survivor, 2, not_on=old),
                      lambda: (coordinator_id(survivor) not in (None, old)) and stable_members(survivor, 2),
                      FAILOVER_S + 60, f"mygroup moved off killed coordinator {old} and is stable again")
    assert wait_until(lambda: all_committed(survivor), 30, "mygroup's committed offsets on the new coordinator") == offsets
    # Consumers that had lost their offsets would read their partitions from the beginning
    # again, before any later line of those partitions: once new lines on every partition
    # have reached them, every partition has been read past the move, and no line came twice.
    fresh = lab.send(lines_covering_every_partition(len(lab.sent)))
    lab.delivered(consumers[:2], fresh, 60)
    received = [v for c in consumers for v in c.got()]
    assert len(received) == count_before + len(fresh) and len(set(received)) == len(received), \
        "lines delivered twice after the coordinator moved"


def lines_covering_every_partition(sent: int) -> int:
    """How many lines ``Lab.send`` must write next (keys ``key-m<n>``, n after ``sent``) so
    that the default partitioner (murmur2 of the key) puts at least one on every partition."""
    n, covered = 0, set[int]()
    while len(covered) < PARTITIONS:
        n += 1
        covered.add((murmur2(f"key-m{sent + n}".encode()) & 0x7FFFFFFF) % PARTITIONS)
    return n


def find_coordinator(broker, group: str):
    header = RequestHeader(request_api_key=10, request_api_version=3, correlation_id=1, client_id="lab2-test")
    frame = codec.encode_request(header, FindCoordinatorRequest(key=group, key_type=0))
    return codec.decode_response(10, 3, wire.roundtrip(broker.host, broker.port, frame, timeout=5))[1]


@pytest.mark.timeout(300)
def test_offsets_topic_waits_for_its_replication_factor(zookeeper, broker_factory):
    """offsets.topic.replication.factor=3 with two brokers alive: FindCoordinator answers
    COORDINATOR_NOT_AVAILABLE and no under-replicated __consumer_offsets is created (Kafka 3.x);
    once the third broker registers the topic is created with three replicas per partition."""
    b0, b1 = start_cluster(zookeeper, broker_factory, n=2)
    assert ErrorCode(find_coordinator(b0, GROUP).error_code) == ErrorCode.COORDINATOR_NOT_AVAILABLE
    # the request made the broker try to create the topic, and it refused (as Kafka 3.x does)
    wait_until(lambda: "Number of alive brokers '2' does not meet the required replication factor '3'"
               in b0.log_text(), 30, "the broker refusing an under-replicated offsets topic")
    assert ErrorCode(find_coordinator(b0, GROUP).error_code) == ErrorCode.COORDINATOR_NOT_AVAILABLE
    assert GROUP_METADATA_TOPIC_NAME not in {t.name for t in metadata(b1).topics}

    b2 = broker_factory({**CLUSTER_OVERRIDES, "broker.id": 2}, zookeeper=zookeeper)
    wait_until(lambda: len(metadata(b0).brokers) == 3, 60, "broker 2 registered")
    found = wait_until(lambda: (lambda r: r.error_code == 0 and r)(find_coordinator(b0, GROUP)), 60,
                       "a coordinator for mygroup")
    assert found.node_id in (0, 1, 2)
    # the topic was created through b0; b2 lists it once the controller's UpdateMetadata
    # about it has reached b2 too
    (offsets,) = wait_until(lambda: [t for t in metadata(b2).topics if t.name == GROUP_METADATA_TOPIC_NAME],
                            60, "broker 2 listing __consumer_offsets")
    assert offsets.partitions and all(sorted(p.replica_nodes) == [0, 1, 2] for p in offsets.partitions)
