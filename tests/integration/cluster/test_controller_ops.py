"""The controller under operations, on three kafpy brokers and one ZooKeeper: a broker stopped
with SIGTERM hands its leaderships over before it exits (controlled shutdown); a broker back
from SIGKILL rejoins the ISRs and takes its preferred leaderships back through
kafka-leader-election.sh; the cluster survives a ZooKeeper restart and a controller whose
session expired; every broker refuses requests from a controller that lost its epoch; Apache's
kafka-topics.sh describes the cluster's topics. The tests share one cluster (a start and a stop
per file, not per test), each on topics of its own."""
from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import threading
import time
from typing import Any

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import InvalidReplicationFactorError, NotControllerError, TopicAlreadyExistsError
from kafka.admin import KafkaAdminClient, NewTopic
from kazoo.client import KazooClient

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import LeaderAndIsrRequest, StopReplicaRequest, UpdateMetadataRequest
from kafpy.replication.network_client import NetworkClient
from tests.conftest import BrokerFactory
from tests.integration.cluster.harness import SESSION_TIMEOUT_MS, SharedCluster, leaders, metadata, wait_until
from tests.integration.scripts.tools import run_script
from tests.support.kafka_dist import VERSIONS, run_tool
from tests.support.zookeeper import ZooKeeperServer

pytestmark = pytest.mark.timeout(300)

PARTITIONS = 13
FAILOVER_S = SESSION_TIMEOUT_MS / 1000 + 15


@pytest.fixture(scope="module")
def zookeeper(tmp_path_factory):
    """The file's one ZooKeeper (in place of the suite's per-test one): the shared cluster's."""
    zk = ZooKeeperServer(data_dir=tmp_path_factory.mktemp("zk"))
    try:
        yield zk.start()
    finally:
        zk.stop()


@pytest.fixture(scope="module")
def shared_cluster(zookeeper, tmp_path_factory):
    """One cluster for the file's tests, each on topics of its own: what a test stopped, killed
    or froze is started again before the next one (``SharedCluster.ready``)."""
    shared = SharedCluster(zookeeper, BrokerFactory(tmp_path_factory.mktemp("kafpy")))
    try:
        yield shared
    finally:
        shared.close()


@pytest.fixture
def cluster(shared_cluster):
    return shared_cluster.ready()


# -- helpers ---------------------------------------------------------------------------------
def create_topic(cluster: list, topic: str, partitions: int = PARTITIONS, exists_ok: bool = False) -> None:
    """An RF-3 topic, returned once every broker sees a leader and the full ISR everywhere
    (``exists_ok``: a retry after an attempt whose answer was lost)."""
    admin = KafkaAdminClient(bootstrap_servers=[b.bootstrap for b in cluster], request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic(topic, partitions, 3)])
    except TopicAlreadyExistsError:
        if not exists_ok:
            raise
    finally:
        admin.close()
    for b in cluster:
        wait_until(lambda b=b: healthy(metadata(b), topic, partitions, {0, 1, 2}), 30,
                   f"broker {b.bootstrap} sees leaders and full ISRs for {topic}")


def partitions_of(md: Any, topic: str) -> list:
    return [p for t in md.topics if t.name == topic for p in t.partitions]


def healthy(md: Any, topic: str, count: int, isr: set[int]) -> bool:
    """Every partition led by a broker the metadata lists, with exactly ``isr`` in sync."""
    live = {b.node_id for b in md.brokers}
    ps = partitions_of(md, topic)
    return len(ps) == count and all(p.leader_id in live and set(p.isr_nodes) == isr for p in ps)


def assignment(md: Any, topic: str) -> dict[int, list[int]]:
    return {p.partition_index: list(p.replica_nodes) for p in partitions_of(md, topic)}


class Zk:
    """A short-lived ZooKeeper session to read what the controller wrote."""

    def __init__(self, zookeeper: Any) -> None:
        self.client = KazooClient(hosts=zookeeper.connect_string, timeout=10)

    def __enter__(self) -> "Zk":
        self.client.start(timeout=15)
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.stop()
        self.client.close()

    def controller(self) -> tuple[int, int]:
        """(controller id, controller epoch)."""
        data, _ = self.client.get("/controller")
        epoch, _ = self.client.get("/controller_epoch")
        return json.loads(data)["brokerid"], int(epoch)

    def broker_epoch(self, broker_id: int) -> int:
        return self.client.get(f"/brokers/ids/{broker_id}")[1].czxid

    def broker_ids(self) -> list[int]:
        return sorted(int(i) for i in self.client.get_children("/brokers/ids"))


def produce_and_consume(cluster: list, topic: str, n: int = 100) -> None:
    """``n`` acks=all records across the topic's partitions, then all of them read back."""
    bootstrap = [b.bootstrap for b in cluster]
    p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=5, request_timeout_ms=20000)
    try:
        futures = [p.send(topic, value=f"v-{i}".encode(), partition=i % PARTITIONS) for i in range(n)]
        p.flush(60)
        for f in futures:
            f.get(timeout=30)
    finally:
        p.close()
    c = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False,
                      request_timeout_ms=20000)
    try:
        c.assign([TopicPartition(topic, i) for i in range(PARTITIONS)])
        got: list[bytes] = []
        deadline = time.monotonic() + 60
        while len(got) < n and time.monotonic() < deadline:
            for recs in c.poll(timeout_ms=1000).values():
                got.extend(r.value for r in recs)
    finally:
        c.close()
    assert sorted(got) == sorted(f"v-{i}".encode() for i in range(n))


# -- 1. rejoin and preferred election --------------------------------------------------------
# First of the file's tests: kafka-leader-election --all-topic-partitions moves every partition
# of the shared cluster whose leader is not its preferred replica, so no earlier test may have
# left one (the controlled shutdown below moves leaderships for good).
def test_restarted_broker_rejoins_isrs_and_takes_back_preferred_leaders(cluster):
    topic = "preferred"
    create_topic(cluster, topic)
    md = metadata(cluster[0])
    preferred = {p: reps[0] for p, reps in assignment(md, topic).items()}
    assert leaders(md, topic) == preferred
    victim_id = next(i for i in range(3) if i != md.controller_id)
    victim = cluster[victim_id]
    other = cluster[(victim_id + 1) % 3]
    produce_and_consume(cluster, topic)

    victim.kill()
    wait_until(lambda: (lambda md: victim_id not in leaders(md, topic).values()
                        and healthy(md, topic, PARTITIONS, {0, 1, 2} - {victim_id}))(metadata(other)),
               FAILOVER_S, "leaders moved off the killed broker and it left the ISRs")
    victim.start()
    for b in cluster:
        wait_until(lambda b=b: healthy(metadata(b), topic, PARTITIONS, {0, 1, 2}), 60,
                   f"broker {b.bootstrap}: the restarted broker back in every ISR")
    moved = sorted(p for p, lead in leaders(metadata(other), topic).items() if lead != preferred[p])
    assert moved == sorted(p for p, r in preferred.items() if r == victim_id)

    res = run_script("kafka-leader-election", "--bootstrap-server", other.bootstrap,
                     "--election-type", "PREFERRED", "--all-topic-partitions")
    assert res.returncode == 0, res.stdout + res.stderr
    m = re.fullmatch(r"Successfully completed leader election \(PREFERRED\) for partitions (.*)\n", res.stdout)
    assert m, res.stdout
    assert sorted(m.group(1).split(", ")) == sorted(f"{topic}-{p}" for p in moved)
    for b in cluster:
        wait_until(lambda b=b: leaders(metadata(b), topic) == preferred, 15,
                   f"broker {b.bootstrap} sees every preferred replica leading")

    again = run_script("kafka-leader-election", "--bootstrap-server", other.bootstrap,
                       "--election-type", "PREFERRED", "--all-topic-partitions")
    assert again.returncode == 0 and again.stdout == "", again.stdout + again.stderr


# -- 2. controlled shutdown ------------------------------------------------------------------
def test_kafka_topics_describes_then_sigterm_moves_leaderships_before_the_broker_exits(cluster):
    apache_kafka_topics_describes_the_cluster(cluster)
    topic = "controlled"
    create_topic(cluster, topic)
    controller = metadata(cluster[0]).controller_id
    victim_id = next(i for i in range(3) if i != controller)
    victim = cluster[victim_id]
    survivors = [b for i, b in enumerate(cluster) if i != victim_id]
    assert victim_id in leaders(metadata(survivors[0]), topic).values()

    snapshots: list[tuple[bool, dict[int, int], set[int]]] = []  # (victim alive after the read, leaders, brokers)
    problems: list[str] = []
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            for b in survivors:
                try:
                    md = metadata(b)
                except OSError as e:
                    problems.append(f"{b.bootstrap}: {e!r}")
                    continue
                alive = victim.running
                lead = leaders(md, topic)
                live = {n.node_id for n in md.brokers}
                snapshots.append((alive, lead, live))
                if len(lead) != PARTITIONS or any(l not in live for l in lead.values()):
                    problems.append(f"{b.bootstrap}: leaders {lead}, brokers {sorted(live)}")
            time.sleep(0.02)

    t = threading.Thread(target=poll, daemon=True)
    t.start()
    mark = len(victim.log_text())  # the shared cluster's brokers log all their starts in one file
    try:
        # every survivor read while the victim runs, then again after it exited
        wait_until(lambda: sum(alive for alive, _, _ in snapshots) >= 2 * len(survivors), 15,
                   "two rounds of Metadata reads while the victim runs")
        code = victim.stop()
        wait_until(lambda: sum(not alive for alive, _, _ in snapshots) >= 2 * len(survivors), 15,
                   "two rounds of Metadata reads after the victim exited")
    finally:
        stop.set()
        t.join(10)
    assert code == 0
    assert not problems, problems[:5]
    # some survivor already named other leaders for every partition while the victim still ran
    assert any(alive and victim_id not in lead.values() for alive, lead, _ in snapshots), snapshots[-3:]
    log = victim.log_text()[mark:]
    assert "Starting controlled shutdown" in log
    assert re.search(r"Controlled shutdown request returned successfully after \d+ms", log), log[-3000:]
    assert "unclean shutdown" not in log
    for b in survivors:
        wait_until(lambda b=b: healthy(metadata(b), topic, PARTITIONS, {0, 1, 2} - {victim_id}), 15,
                   f"broker {b.bootstrap}: the stopped broker out of the ISRs")


# -- 3. ZooKeeper restart --------------------------------------------------------------------
def test_cluster_survives_a_zookeeper_restart(cluster, zookeeper):
    topic = "zk-restart"
    create_topic(cluster, topic)
    before = {b.bootstrap: (leaders(metadata(b), topic), assignment(metadata(b), topic)) for b in cluster}

    zookeeper.stop()
    time.sleep(SESSION_TIMEOUT_MS / 1000 + 2)   # down longer than the brokers' session timeout
    for b in cluster:                            # brokers keep serving what they know meanwhile
        assert healthy(metadata(b), topic, PARTITIONS, {0, 1, 2})
    zookeeper.start()

    with Zk(zookeeper) as zk:
        wait_until(lambda: zk.broker_ids() == [0, 1, 2], FAILOVER_S + 15, "the three brokers registered again")
        wait_until(lambda: zk.client.exists("/controller"), FAILOVER_S, "a controller elected")
        controller, _ = zk.controller()
    for b in cluster:
        wait_until(lambda b=b: (lambda md: md.controller_id == controller and len(md.brokers) == 3
                                and healthy(md, topic, PARTITIONS, {0, 1, 2}))(metadata(b)), FAILOVER_S,
                   f"broker {b.bootstrap} knows controller {controller}, three brokers and full ISRs")
        md = metadata(b)
        assert assignment(md, topic) == before[b.bootstrap][1]
        assert set(leaders(md, topic).values()) == {0, 1, 2}
    produce_and_consume(cluster, topic)
    # the new controller does its job: a topic created now gets leaders on every broker. A
    # broker whose session ZooKeeper expired on restart registers again a moment later, and
    # until the controller has seen it, replication factor 3 is refused as Kafka refuses it.
    # A controller whose session expires while it creates the topic resigns and answers
    # NOT_CONTROLLER (the client looks for the new one), never a closed connection.
    def created() -> bool:
        try:
            create_topic(cluster, "after-zk-restart", exists_ok=True)
            return True
        except (InvalidReplicationFactorError, NotControllerError):
            return False
        except RuntimeError as e:  # kafka-python, when NOT_CONTROLLER comes twice in a row
            if "active controller" not in str(e):
                raise
            return False
    wait_until(created, FAILOVER_S, "a replication-factor-3 topic created after the restart")


def test_controller_whose_session_expired_resigns_and_re_registers(cluster, zookeeper):
    """A controller frozen (SIGSTOP) past its session timeout loses its session while ZooKeeper
    runs: another broker takes over; thawed, it finds its session expired, stops acting as
    controller, registers again with a new broker epoch and rejoins every ISR."""
    topic = "expired"
    create_topic(cluster, topic)
    with Zk(zookeeper) as zk:
        frozen, _ = zk.controller()
        epoch_before = zk.broker_epoch(frozen)
        proc = cluster[frozen].proc
        others = [b for i, b in enumerate(cluster) if i != frozen]
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            wait_until(lambda: (lambda md: md.controller_id not in (-1, frozen)
                                and frozen not in {b.node_id for b in md.brokers}
                                and healthy(md, topic, PARTITIONS, {0, 1, 2} - {frozen}))(metadata(others[0])),
                       FAILOVER_S, "another controller, and the frozen broker out of the ISRs")
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        new_controller, _ = zk.controller()
        wait_until(lambda: zk.broker_ids() == [0, 1, 2] and zk.broker_epoch(frozen) > epoch_before, FAILOVER_S,
                   "the thawed broker registered again with a new epoch")
        assert zk.controller()[0] == new_controller
    for b in cluster:
        wait_until(lambda b=b: (lambda md: md.controller_id == new_controller and len(md.brokers) == 3
                                and healthy(md, topic, PARTITIONS, {0, 1, 2}))(metadata(b)), 60,
                   f"broker {b.bootstrap} knows controller {new_controller} and full ISRs")
    produce_and_consume(cluster, topic)


# -- 4. stale controller epoch ---------------------------------------------------------------
async def send_as_controller(broker: Any, controller_id: int, controller_epoch: int, broker_epoch: int,
                             topic: str, state: Any) -> dict[str, int]:
    """LeaderAndIsr, UpdateMetadata and StopReplica as controller ``controller_id`` of
    ``controller_epoch`` would send them about partition 0 of ``topic``; their error codes."""
    p = state
    lai = LeaderAndIsrRequest(
        controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, live_leaders=[
            LeaderAndIsrRequest.LeaderAndIsrLiveLeader(broker_id=broker.node_id, host_name=broker.host,
                                                       port=broker.port)],
        topic_states=[LeaderAndIsrRequest.LeaderAndIsrTopicState(topic_name=topic, partition_states=[
            LeaderAndIsrRequest.LeaderAndIsrPartitionState(
                topic_name=topic, partition_index=0, controller_epoch=controller_epoch, leader=broker.node_id,
                leader_epoch=p.leader_epoch + 10, isr=[broker.node_id], partition_epoch=100,
                replicas=list(p.replica_nodes), is_new=False)])])
    um = UpdateMetadataRequest(
        controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch, live_brokers=[],
        topic_states=[UpdateMetadataRequest.UpdateMetadataTopicState(topic_name=topic, partition_states=[
            UpdateMetadataRequest.UpdateMetadataPartitionState(
                topic_name=topic, partition_index=0, controller_epoch=controller_epoch, leader=-1,
                leader_epoch=p.leader_epoch + 10, isr=[], zk_version=100, replicas=list(p.replica_nodes),
                offline_replicas=[])])])
    sr = StopReplicaRequest(
        controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch,
        topic_states=[StopReplicaRequest.StopReplicaTopicState(topic_name=topic, partition_states=[
            StopReplicaRequest.StopReplicaPartitionState(partition_index=0, leader_epoch=p.leader_epoch + 10,
                                                         delete_partition=True)])])
    client = NetworkClient(broker.host, broker.port, client_id=f"controller-{controller_id}", node_id=broker.node_id)
    try:
        return {"LeaderAndIsr": (await client.send(ApiKey.LEADER_AND_ISR, lai, version=4)).error_code,
                "UpdateMetadata": (await client.send(ApiKey.UPDATE_METADATA, um, version=6)).error_code,
                "StopReplica": (await client.send(ApiKey.STOP_REPLICA, sr, version=3)).error_code}
    finally:
        await client.close()


class Node:
    """Where to reach broker ``node_id`` (``send_as_controller``'s target)."""

    def __init__(self, node_id: int, broker: Any) -> None:
        self.node_id, self.host, self.port = node_id, broker.host, broker.port


def test_every_broker_refuses_a_stale_controller(cluster, zookeeper):
    topic = "fenced"
    create_topic(cluster, topic)
    with Zk(zookeeper) as zk:
        old_controller, old_epoch = zk.controller()
        cluster[old_controller].kill()
        survivor = cluster[(old_controller + 1) % 3]
        wait_until(lambda: (lambda c: c >= 0 and c != old_controller)(metadata(survivor).controller_id),
                   FAILOVER_S, "a new controller")
        new_controller, new_epoch = zk.controller()
        assert new_epoch > old_epoch
        cluster[old_controller].start()   # back as a plain broker; the new controller tells it the epoch
        for b in cluster:
            wait_until(lambda b=b: (lambda md: md.controller_id == new_controller
                                    and healthy(md, topic, PARTITIONS, {0, 1, 2}))(metadata(b)), 60,
                       f"broker {b.bootstrap} follows controller {new_controller} with full ISRs")
        epochs = {i: zk.broker_epoch(i) for i in range(3)}
    before = {i: partitions_of(metadata(b), topic) for i, b in enumerate(cluster)}
    for i, b in enumerate(cluster):
        state = next(p for p in before[i] if p.partition_index == 0)
        errors = asyncio.run(send_as_controller(Node(i, b), old_controller, old_epoch, epochs[i], topic, state))
        assert errors == dict.fromkeys(("LeaderAndIsr", "UpdateMetadata", "StopReplica"),
                                       ErrorCode.STALE_CONTROLLER_EPOCH), (i, errors)
    # nothing changed: same leaders and ISRs everywhere, the partition still served
    for i, b in enumerate(cluster):
        assert partitions_of(metadata(b), topic) == before[i]
        assert (b.log_dir / f"{topic}-0").is_dir()
    produce_and_consume(cluster, topic)


# -- 5. Apache's kafka-topics --describe -----------------------------------------------------
def apache_kafka_topics_describes_the_cluster(cluster: list) -> None:
    """Apache Kafka's kafka-topics (each installed release) describes a fresh RF-3 topic as
    Kafka would: leaders spread, preferred replica first, full ISRs. Needs the three brokers
    in every ISR, so it runs first in the controlled-shutdown test, before the victim stops."""
    topic = "described"
    create_topic(cluster, topic)
    bootstrap = ",".join(b.bootstrap for b in cluster)
    for version in sorted(VERSIONS):
        res = run_tool(version, "kafka-topics", ["--bootstrap-server", bootstrap, "--describe", "--topic", topic])
        assert f"Topic: {topic}\tTopicId: " in res.stdout, (version, res.stdout)
        assert f"\tPartitionCount: {PARTITIONS}\tReplicationFactor: 3\t" in res.stdout, (version, res.stdout)
        rows = re.findall(r"\tPartition: (\d+)\tLeader: (\d+)\tReplicas: ([\d,]+)\tIsr: ([\d,]+)", res.stdout)
        assert sorted(int(p) for p, _, _, _ in rows) == list(range(PARTITIONS)), (version, res.stdout)
        lead = [int(l) for _, l, _, _ in rows]
        assert {0, 1, 2} == set(lead) and max(lead.count(i) for i in range(3)) <= 5, (version, res.stdout)
        for _, l, reps, isr in rows:
            replicas = [int(r) for r in reps.split(",")]
            assert sorted(replicas) == [0, 1, 2] and replicas[0] == int(l), (version, res.stdout)
            assert sorted(int(r) for r in isr.split(",")) == [0, 1, 2], (version, res.stdout)
