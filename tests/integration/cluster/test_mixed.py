"""A mixed cluster: one ZooKeeper, two kafpy brokers (ids 0, 1) and one Apache Kafka 3.9.1
broker in ZooKeeper mode (id 2) form ONE cluster. The Apache broker registers and accepts the
LeaderAndIsr/UpdateMetadata of a kafpy controller; a topic with replication factor 3 replicates
across both kinds with the ISR full; the Apache broker as controller drives the kafpy brokers;
a killed leader of either kind is replaced and every acks=all record reads back from both;
idempotent producers get producer ids on either kind and __consumer_offsets spans both. The
tests share one cluster (``shared_mixed``), each on topics of its own."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from confluent_kafka import Consumer as ConfluentConsumer
from confluent_kafka import ElectionType
from confluent_kafka import Producer as ConfluentProducer
from confluent_kafka import TopicPartition as ConfluentTopicPartition
from confluent_kafka.admin import AdminClient
from kafka import KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewPartitions, NewTopic

from tests.integration.cluster.harness import (CLUSTER_OVERRIDES, ISR_CHECK_LOGGING, SESSION_TIMEOUT_MS, end_offsets,
                                              metadata, read_all, wait_for_isr_checks, wait_until)

from tests.conftest import BrokerFactory
from tests.support.zk_kafka import ZkReferenceKafka
from tests.support.zookeeper import ZooKeeperServer

pytestmark = pytest.mark.timeout(400)

PARTITIONS = 3

APACHE_ID = 2
FAILOVER_S = SESSION_TIMEOUT_MS / 1000 + 20
# Every broker must agree on the internal topics' partition counts (a group's coordinator is
# hash(group) % partitions); few partitions keep the Python brokers quick.
SETTINGS = {**CLUSTER_OVERRIDES, "offsets.topic.num.partitions": 3, "transaction.state.log.num.partitions": 3}


class MixedCluster:
    """Brokers by id (0, 1: kafpy; 2: Apache) and the Apache broker's own handle."""

    def __init__(self, kafpy: list, apache: ZkReferenceKafka):
        self.kafpy = kafpy
        self.apache = apache
        self.by_id = {0: kafpy[0], 1: kafpy[1], APACHE_ID: apache}

    @property
    def bootstrap(self) -> list[str]:
        return [b.bootstrap for b in self.by_id.values()]

    def failure_logs(self) -> list[tuple[str, str]]:
        return [(b.name, b.log_text()) for b in self.by_id.values()]

    # where this test's part of the Apache broker's log begins (shared cluster: all tests')
    apache_log_mark = 0

    def ready(self, kafpy_controller: bool = True) -> "MixedCluster":
        """The shared cluster for the next test: every broker an earlier test stopped or killed
        started again, all three knowing each other and the controller, which is a kafpy one
        if ``kafpy_controller`` (the Apache broker restarted to hand it over, when it has it)."""
        for b in [*self.kafpy, self.apache]:
            b.start()   # returns at once while it runs
        self.wait_for_all()
        if kafpy_controller and metadata(self.kafpy[0]).controller_id == APACHE_ID:
            self.apache.stop()
            wait_until(lambda: metadata(self.kafpy[0]).controller_id in (0, 1), FAILOVER_S, "a kafpy controller")
            self.apache.start()
            self.wait_for_all()
        self.apache_log_mark = len(self.apache.log_text())
        return self

    def wait_for_all(self) -> None:
        def agreed() -> bool:
            mds = [metadata(b) for b in self.by_id.values()]
            return (all(sorted(x.node_id for x in md.brokers) == [0, 1, 2] for md in mds)
                    and len({md.controller_id for md in mds}) == 1 and mds[0].controller_id >= 0)
        wait_until(agreed, 60, "the three brokers know each other and agree on the controller")

    def close(self) -> None:
        for b in [*self.kafpy, self.apache]:
            b.kill()


@pytest.fixture
def apache_factory(tmp_path_factory):
    """Starts ZkReferenceKafka brokers; stops them all at teardown, also on failure."""
    started: list[ZkReferenceKafka] = []
    base = tmp_path_factory.mktemp("apache-zk")

    def start(zookeeper, broker_id: int, overrides: dict) -> ZkReferenceKafka:
        work_dir = base / f"kafka{broker_id}"
        kafka = ZkReferenceKafka(zookeeper.connect_string, broker_id, overrides=overrides,
                                 work_dir=work_dir, log_dir=work_dir / "data")
        started.append(kafka)
        kafka.start()
        return kafka

    start.failure_logs = lambda: [(k.name, k.log_text()) for k in started]
    try:
        yield start
    finally:
        for kafka in reversed(started):
            try:
                kafka.stop()
            except Exception:  # noqa: BLE001 - stop the others
                kafka.kill()


@pytest.fixture
def cluster(zookeeper, broker_factory, apache_factory) -> MixedCluster:
    """kafpy 0 starts first and becomes the controller; then kafpy 1 and Apache 2 start side
    by side (the Apache JVM's start is most of the fixture's time; kafpy 1's overlaps it)."""
    kafpy = [broker_factory({**SETTINGS, "broker.id": i}, zookeeper=zookeeper, env=ISR_CHECK_LOGGING,
                            start=i == 0) for i in range(2)]
    wait_until(lambda: metadata(kafpy[0]).controller_id == 0, 60, "kafpy 0 is the controller")
    with ThreadPoolExecutor(2) as pool:
        started = pool.submit(kafpy[1].start)
        apache_started = pool.submit(apache_factory, zookeeper, APACHE_ID, dict(SETTINGS))
        started.result()
        apache = apache_started.result()
    mixed = MixedCluster(kafpy, apache)
    for b in mixed.by_id.values():
        wait_until(lambda b=b: (lambda md: sorted(x.node_id for x in md.brokers) == [0, 1, 2]
                                and md.controller_id >= 0)(metadata(b)), 60,
                   f"{b.name} knows the three brokers and the controller")
    return mixed


@pytest.fixture(scope="module")
def shared_mixed(tmp_path_factory):
    """The cluster test_mixed's tests share (``cluster`` above, one per test, is
    test_txn_mixed's): started as ``cluster`` starts one, kafpy 0 the first controller."""
    zk = ZooKeeperServer(data_dir=tmp_path_factory.mktemp("zk"))
    factory = BrokerFactory(tmp_path_factory.mktemp("kafpy"))
    apache_dir = tmp_path_factory.mktemp("apache-zk") / f"kafka{APACHE_ID}"
    mixed: MixedCluster | None = None
    try:
        zk.start()
        kafpy = [factory({**SETTINGS, "broker.id": i}, zookeeper=zk, env=ISR_CHECK_LOGGING, start=i == 0)
                 for i in range(2)]
        wait_until(lambda: metadata(kafpy[0]).controller_id == 0, 60, "kafpy 0 is the controller")
        apache = ZkReferenceKafka(zk.connect_string, APACHE_ID, overrides=dict(SETTINGS), work_dir=apache_dir,
                                  log_dir=apache_dir / "data")
        mixed = MixedCluster(kafpy, apache)
        with ThreadPoolExecutor(2) as pool:
            started = [pool.submit(kafpy[1].start), pool.submit(apache.start)]
            for f in started:
                f.result()
        yield mixed
    finally:
        if mixed is not None:
            mixed.close()
        factory.stop_all()
        zk.stop()


@pytest.fixture
def mixed(shared_mixed: MixedCluster) -> MixedCluster:
    """The shared cluster, every broker up, a kafpy controller."""
    return shared_mixed.ready()


@pytest.fixture
def mixed_any_controller(shared_mixed: MixedCluster) -> MixedCluster:
    """The shared cluster, every broker up, whichever controller it has."""
    return shared_mixed.ready(kafpy_controller=False)


def partitions(md, topic: str) -> list:
    return [p for t in md.topics if t.name == topic for p in t.partitions]


def states(broker, topic: str) -> dict[int, tuple[int, list[int]]]:
    return {p.partition_index: (p.leader_id, sorted(p.isr_nodes)) for p in partitions(metadata(broker), topic)}


def isr_full_everywhere(cluster: MixedCluster, topic: str) -> bool:
    for b in cluster.by_id.values():
        got = states(b, topic)
        if len(got) != PARTITIONS or any(isr != [0, 1, 2] or lead < 0 for lead, isr in got.values()):
            return False
    return True


# ERROR lines Apache Kafka logs in an all-Apache cluster too: on failover its controller first
# takes the dead replicas out of the ISRs (leader -1) and tells the others before electing.
EXPECTED_ERRORS = ("cannot become follower since the new leader -1 is unavailable",)
INTERRUPTED_SEND = "fails to send a request to broker"


def delete_topic(cluster: MixedCluster, topic: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=30000)
    try:
        admin.delete_topics([topic], timeout_ms=30000)
    finally:
        admin.close()


def apache_errors(cluster: MixedCluster) -> list[str]:
    """The ERROR entries of the Apache broker's log: each one is a request of ours it refused
    or a request of its own that we answered wrongly. An entry is its line and the stack
    trace under it (the first 12 lines), so a failure says what Kafka threw."""
    lines = cluster.apache.log_text()[cluster.apache_log_mark:].splitlines()
    entries = []
    for i, line in enumerate(lines):
        if "] ERROR " in line and not any(e in line for e in EXPECTED_ERRORS):
            trace = []
            for follow in lines[i + 1:i + 13]:
                if follow.startswith("["):  # the next entry
                    break
                trace.append(follow)
            # Kafka's controller interrupts its send thread to a broker it removes (one the
            # test killed) and logs the interruption as an ERROR: not a request of ours
            if INTERRUPTED_SEND in line and trace and trace[0].startswith("java.lang.InterruptedException"):
                continue
            entries.append("\n".join([line, *trace]))
    return entries


def create_topic(cluster: MixedCluster, topic: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic(topic, PARTITIONS, 3, topic_configs={"min.insync.replicas": "2"})])
    finally:
        admin.close()


def apache_broker_joins_a_kafpy_controlled_cluster(cluster: MixedCluster) -> None:
    """The Apache broker follows the kafpy controller and takes part in a new topic's ISR
    (checked at the start of the idempotent-producer test, on the same cluster)."""
    controller = metadata(cluster.kafpy[0]).controller_id
    assert controller in (0, 1)
    assert metadata(cluster.apache).controller_id == controller
    topic = "mixed-a"
    create_topic(cluster, topic)
    wait_until(lambda: isr_full_everywhere(cluster, topic), 60, "full ISR on every broker")
    assert apache_errors(cluster) == []


def produce_acks_all(cluster: MixedCluster, topic: str, count: int, prefix: str) -> dict[int, list[bytes]]:
    """``count`` records round-robin over the partitions with acks=all; returns what was
    acknowledged per partition, in offset order."""
    p = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all", linger_ms=5, retries=20,
                      request_timeout_ms=20000)
    try:
        futures = [p.send(topic, value=f"{prefix}-{i}".encode(), partition=i % PARTITIONS) for i in range(count)]
        p.flush(60)
        acked = [(f.get(timeout=30), f"{prefix}-{i}".encode()) for i, f in enumerate(futures)]
    finally:
        p.close()
    out: dict[int, list[bytes]] = {part: [] for part in range(PARTITIONS)}
    for md, value in sorted(acked, key=lambda a: (a[0].partition, a[0].offset)):
        out[md.partition].append(value)
    return out


def logs_differ(cluster: MixedCluster, topic: str) -> list[int]:
    """Followers of either kind append the leader's batches unchanged, so a partition's whole
    log (every segment, in order) is the same bytes on all three brokers: where it is not."""
    differ = []
    for part in range(PARTITIONS):
        logs = {b"".join(f.read_bytes() for f in sorted((b.log_dir / f"{topic}-{part}").glob("*.log")))
                for b in cluster.by_id.values()}
        if len(logs) != 1:
            differ.append(part)
    return differ


def controller_everywhere(cluster: MixedCluster, controller: int) -> bool:
    return all((lambda md: md.controller_id == controller and len(md.brokers) == 3)(metadata(b))
               for b in cluster.by_id.values())


def isrs_everywhere(cluster: MixedCluster, topic: str, isr: list[int], alive: list[int]) -> bool:
    return all(len(got := states(cluster.by_id[i], topic)) == PARTITIONS
               and all(i_ == isr and lead in isr for lead, i_ in got.values()) for i in alive)


def move_controller_to_apache(cluster: MixedCluster, topic: str) -> None:
    """Stop kafpy 1, kill kafpy 0: only the Apache broker is left, it becomes controller and
    leads every partition of ``topic``; then both kafpy brokers come back under it."""
    cluster.kafpy[1].stop()
    cluster.kafpy[0].kill()
    wait_until(lambda: (lambda md: md.controller_id == APACHE_ID
                        and set(p.leader_id for p in partitions(md, topic)) == {APACHE_ID})(metadata(cluster.apache)),
               FAILOVER_S, "the Apache broker controls the cluster and leads every partition")
    for b in cluster.kafpy:
        b.restart()
    wait_until(lambda: controller_everywhere(cluster, APACHE_ID), 60, "every broker knows the Apache controller")
    wait_until(lambda: isr_full_everywhere(cluster, topic), 60, "kafpy followers back in every ISR")


class AcksAllLoad:
    """A producer thread sending acks=all round-robin until stopped; keeps what was
    acknowledged as partition -> offset -> value (a failed send may or may not be in the log)."""

    def __init__(self, cluster: MixedCluster, topic: str) -> None:
        self.cluster, self.topic = cluster, topic
        self.acked: dict[int, dict[int, bytes]] = {p: {} for p in range(PARTITIONS)}
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def count(self) -> int:
        return sum(map(len, self.acked.values()))

    def __enter__(self) -> "AcksAllLoad":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(150)
        assert not self._thread.is_alive(), "producer thread did not stop"

    def _collect(self, pending: list) -> None:
        for value, future in pending:
            try:
                md = future.get(timeout=120)
                self.acked[md.partition][md.offset] = value
            except Exception as e:  # noqa: BLE001 - not acknowledged
                self.errors.append(e)
        pending.clear()

    def _run(self) -> None:
        p = KafkaProducer(bootstrap_servers=self.cluster.bootstrap, acks="all", retries=2147483647, linger_ms=2,
                          request_timeout_ms=10000, delivery_timeout_ms=120000,
                          max_in_flight_requests_per_connection=1)
        pending: list = []
        i = 0
        try:
            while not self._stop.is_set():
                value = f"d-{i}".encode()
                pending.append((value, p.send(self.topic, value=value, partition=i % PARTITIONS)))
                i += 1
                if len(pending) >= 50:
                    self._collect(pending)
            self._collect(pending)
        finally:
            p.close()

    def wait_for_more(self, n: int, what: str) -> None:
        before = self.count
        wait_until(lambda: self.count >= before + n, 90, f"{n} more acknowledged records {what}")


def elect_preferred_leaders(cluster: MixedCluster, topic: str) -> None:
    """ElectLeaders (preferred) through the controller: each partition led by its first replica,
    which spreads the leaders over the three brokers again."""
    admin = AdminClient({"bootstrap.servers": ",".join(cluster.bootstrap)})
    future = admin.elect_leaders(ElectionType.PREFERRED,
                                 [ConfluentTopicPartition(topic, p) for p in range(PARTITIONS)])
    future.result(timeout=30)
    wait_until(lambda: {lead for lead, _ in states(cluster.kafpy[0], topic).values()} == {0, 1, 2}, 30,
               "preferred leaders, one per broker")


def kill_and_restart_leader(cluster: MixedCluster, load: AcksAllLoad, topic: str, victim_id: int) -> None:
    """SIGKILL broker ``victim_id`` (it leads a partition of ``topic``) under the load; the
    controller elects new leaders from the ISR, the load goes on, the broker comes back into
    every ISR."""
    assert victim_id in {lead for lead, _ in states(cluster.by_id[victim_id], topic).values()}
    survivor = next(b for i, b in cluster.by_id.items() if i != victim_id)
    cluster.by_id[victim_id].kill()
    wait_until(lambda: (lambda st: len(st) == PARTITIONS and all(lead not in (-1, victim_id) for lead, _ in st.values()))(
        states(survivor, topic)), FAILOVER_S, f"new leaders in place of killed broker {victim_id}")
    load.wait_for_more(200, f"after broker {victim_id} was killed")
    cluster.by_id[victim_id].restart()
    wait_until(lambda: isr_full_everywhere(cluster, topic), 90, f"broker {victim_id} back in every ISR")
    load.wait_for_more(200, f"after broker {victim_id} came back")


def replicas_of(broker, topic: str) -> dict[int, tuple[list[int], list[int]]]:
    """partition -> (replicas in assignment order, ISR sorted) as ``broker`` answers Metadata."""
    return {p.partition_index: (list(p.replica_nodes), sorted(p.isr_nodes)) for p in partitions(metadata(broker), topic)}


def reassign_and_back(cluster: MixedCluster, topic: str, part: int, without: int) -> None:
    """Reassign ``part`` off broker ``without`` (its replica deleted there), then onto all three
    again (it catches up and rejoins the ISR), through the controller of the moment."""
    full = replicas_of(cluster.apache, topic)[part][0]
    smaller = [b for b in full if b != without]
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=30000)
    try:
        assert admin.alter_partition_reassignments({TopicPartition(topic, part): smaller}) == {
            TopicPartition(topic, part): None}
        wait_until(lambda: all(replicas_of(cluster.by_id[i], topic)[part] == (smaller, sorted(smaller))
                               for i in smaller), 60, f"{topic}-{part} on {smaller} only")
        wait_until(lambda: not (cluster.by_id[without].log_dir / f"{topic}-{part}").exists(), 30,
                   f"replica {topic}-{part} deleted on broker {without}")
        assert admin.alter_partition_reassignments({TopicPartition(topic, part): full}) == {
            TopicPartition(topic, part): None}
        wait_until(lambda: all(replicas_of(b, topic)[part] == (full, [0, 1, 2]) for b in cluster.by_id.values()), 60,
                   f"{topic}-{part} back on {full} with a full ISR")
    finally:
        admin.close()


# The tests share one cluster, in this order: the first three want the kafpy controller the
# cluster starts with and keep it (the Apache broker stopped by the first is started again);
# the fourth hands it to the Apache broker and, killing that one, back to a kafpy broker,
# which the fifth starts under. In another order, ready() restarts the Apache broker to
# hand a kafpy broker the controller.
def test_topic_replicates_across_both_kinds(mixed):
    topic = "mixed-b"
    create_topic(mixed, topic)
    wait_until(lambda: isr_full_everywhere(mixed, topic), 60, "full ISR on every broker")
    lead = {part: lead for part, (lead, _) in states(mixed.apache, topic).items()}
    assert set(lead.values()) == {0, 1, 2}, lead  # a leader of each kind, followers of each kind
    acked = produce_acks_all(mixed, topic, 300, "b")
    wait_until(lambda: end_offsets(mixed.bootstrap, topic) == {p: 100 for p in range(PARTITIONS)}, 30,
               "every high watermark at the leader's log end")
    wait_until(lambda: isr_full_everywhere(mixed, topic), 10, "full ISR after the load")
    # Idle now, no follower of either kind drops out: each kafpy leader runs its ISR expiration
    # check twice and shrinks nothing; those two checks are one check interval apart, and the
    # Apache leader checks at the same interval (replica.lag.time.max.ms / 2), so it has run one
    # meanwhile too.
    checks = wait_for_isr_checks(mixed.kafpy, 2)
    assert all(shrinking == 0 for _, shrinking in checks), checks
    assert isr_full_everywhere(mixed, topic), {b.name: states(b, topic) for b in mixed.by_id.values()}
    wait_until(lambda: logs_differ(mixed, topic) == [], 10, "identical segments on every replica")
    got = read_all(mixed.bootstrap, topic, 300)
    for part in range(PARTITIONS):
        assert [o for o, _ in got[part]] == list(range(100)), part
        assert [v for _, v in got[part]] == acked[part], part
    assert apache_errors(mixed) == []
    # The kafpy controller deletes the topic: StopReplica(delete) reaches the Apache broker too
    # (it renames the partition dirs to *-delete and removes them later).
    delete_topic(mixed, topic)
    wait_until(lambda: not any((b.log_dir / f"{topic}-{p}").exists()
                               for b in mixed.by_id.values() for p in range(PARTITIONS)), 30,
               "every replica's directory gone")
    # The Apache broker shuts down through the kafpy controller: its leadership moves, it leaves
    # the ISRs, and it reports the controlled shutdown a success.
    survivor = "mixed-b2"
    create_topic(mixed, survivor)
    wait_until(lambda: isr_full_everywhere(mixed, survivor), 60, "full ISR")
    mixed.apache.stop()
    assert "Controlled shutdown request returned successfully" in mixed.apache.log_text()[mixed.apache_log_mark:]
    wait_until(lambda: isrs_everywhere(mixed, survivor, [0, 1], [0, 1]), 10, "Apache broker out of every ISR")
    assert apache_errors(mixed) == []


def test_apache_broker_joins_then_idempotent_producers_and_group_offsets_span_both_kinds(mixed):
    """First the Apache broker joins the kafpy-controlled mixed (a test of its own before,
    merged here to start one mixed fewer). Then: producer ids come from blocks each kind
    allocates (kafpy in ZooKeeper, Apache through AllocateProducerIds to the controller);
    __consumer_offsets is replicated across both."""
    apache_broker_joins_a_kafpy_controlled_cluster(mixed)
    topic = "mixed-e"
    create_topic(mixed, topic)
    wait_until(lambda: isr_full_everywhere(mixed, topic), 60, "full ISR")
    for b in mixed.by_id.values():  # each broker's own InitProducerId
        delivered: list = []
        p = ConfluentProducer({"bootstrap.servers": b.bootstrap, "enable.idempotence": True, "linger.ms": 5})
        for i in range(60):
            p.produce(topic, value=f"e-{i}".encode(), partition=i % PARTITIONS,
                      on_delivery=lambda err, msg: delivered.append(err))
            p.poll(0)
        assert p.flush(60) == 0
        assert delivered == [None] * 60
    consumer = ConfluentConsumer({"bootstrap.servers": ",".join(mixed.bootstrap), "group.id": "mixed-group",
                                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        consumer.subscribe([topic])
        got = []
        deadline = time.monotonic() + 60
        while len(got) < 180 and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                got.append(msg.value())
        assert sorted(got) == sorted([f"e-{i}".encode() for i in range(60)] * 3)
        consumer.commit(asynchronous=False)
        committed = consumer.committed([ConfluentTopicPartition(topic, p) for p in range(PARTITIONS)], timeout=30)
        assert {tp.partition: tp.offset for tp in committed} == {p: 60 for p in range(PARTITIONS)}
    finally:
        consumer.close()
    offsets_topic = "__consumer_offsets"
    wait_until(lambda: all(len(st := states(b, offsets_topic)) == 3 and all(i == [0, 1, 2] for _, i in st.values())
                           for b in mixed.by_id.values()), 30, "__consumer_offsets with a full ISR everywhere")
    assert apache_errors(mixed) == []


def test_partitions_added_and_reassigned_across_kinds(mixed):
    topic = "mixed-g"
    create_topic(mixed, topic)
    wait_until(lambda: isr_full_everywhere(mixed, topic), 60, "full ISR")
    produce_acks_all(mixed, topic, 90, "g")
    # under the kafpy controller: the Apache replica moved off and back
    reassign_and_back(mixed, topic, 0, APACHE_ID)
    move_controller_to_apache(mixed, topic)
    # under the Apache controller: a kafpy replica moved off and back; a partition added
    reassign_and_back(mixed, topic, 1, 1)
    admin = KafkaAdminClient(bootstrap_servers=mixed.bootstrap, request_timeout_ms=30000)
    try:
        admin.create_partitions({topic: NewPartitions(total_count=PARTITIONS + 1)})
    finally:
        admin.close()
    wait_until(lambda: all(len(got := replicas_of(b, topic)) == PARTITIONS + 1
                           and got[PARTITIONS][1] == [0, 1, 2] for b in mixed.by_id.values()), 60,
               "the added partition on every broker with a full ISR")
    wait_until(lambda: logs_differ(mixed, topic) == [], 20, "every replica's log the same bytes")
    assert sum(end_offsets(mixed.bootstrap, topic).values()) == 90
    assert apache_errors(mixed) == []


def test_killed_leaders_of_either_kind_lose_no_acknowledged_record(mixed_any_controller):
    topic = "mixed-d"
    create_topic(mixed_any_controller, topic)
    wait_until(lambda: isr_full_everywhere(mixed_any_controller, topic), 60, "full ISR")
    move_controller_to_apache(mixed_any_controller, topic)
    elect_preferred_leaders(mixed_any_controller, topic)
    with AcksAllLoad(mixed_any_controller, topic) as load:
        load.wait_for_more(300, "before any kill")
        # a kafpy leader killed: the Apache controller elects, kafpy 0 comes back under it
        kill_and_restart_leader(mixed_any_controller, load, topic, 0)
        # the Apache broker killed, controller and leader at once: a kafpy broker takes over
        kill_and_restart_leader(mixed_any_controller, load, topic, APACHE_ID)
        assert metadata(mixed_any_controller.kafpy[0]).controller_id in (0, 1)
    ends = end_offsets(mixed_any_controller.bootstrap, topic)
    got = read_all(mixed_any_controller.bootstrap, topic, sum(ends.values()))
    for part in range(PARTITIONS):
        assert [o for o, _ in got[part]] == list(range(ends[part])), f"partition {part}: offsets not read once each"
        by_offset = dict(got[part])
        lost = {off: v for off, v in load.acked[part].items() if by_offset.get(off) != v}
        assert not lost, f"partition {part}: acknowledged records lost or moved: {sorted(lost.items())[:5]}"
    wait_until(lambda: logs_differ(mixed_any_controller, topic) == [], 20, "every replica's log the same bytes")
    assert apache_errors(mixed_any_controller) == []


def test_apache_controller_drives_kafpy_brokers(mixed):
    first = "mixed-c"
    create_topic(mixed, first)
    wait_until(lambda: isr_full_everywhere(mixed, first), 60, "full ISR under the kafpy controller")
    move_controller_to_apache(mixed, first)
    # A topic the Apache controller creates: kafpy brokers lead and follow by its LeaderAndIsr.
    topic = "mixed-c2"
    create_topic(mixed, topic)
    wait_until(lambda: isr_full_everywhere(mixed, topic), 60, "full ISR under the Apache controller")
    lead = {part: lead for part, (lead, _) in states(mixed.kafpy[0], topic).items()}
    assert set(lead.values()) == {0, 1, 2}, lead
    # kafpy 1 killed: the Apache controller takes it out of the ISRs; back, the kafpy leader
    # of a partition puts it in again through AlterPartition to the Apache controller.
    mixed.kafpy[1].kill()
    wait_until(lambda: isrs_everywhere(mixed, topic, [0, 2], [0, APACHE_ID]), FAILOVER_S,
               "broker 1 out of every ISR")
    mixed.kafpy[1].restart()
    wait_until(lambda: isr_full_everywhere(mixed, topic), 60, "broker 1 back in every ISR")
    acked = produce_acks_all(mixed, topic, 300, "c")
    wait_until(lambda: end_offsets(mixed.bootstrap, topic) == {p: 100 for p in range(PARTITIONS)}, 30,
               "every high watermark at the leader's log end")
    wait_until(lambda: logs_differ(mixed, topic) == [], 10, "identical segments on every replica")
    got = read_all(mixed.bootstrap, topic, 300)
    assert {part: [v for _, v in recs] for part, recs in got.items()} == acked
    # The Apache controller deletes a topic: the kafpy replicas remove their partitions.
    delete_topic(mixed, first)
    wait_until(lambda: not any((b.log_dir / f"{first}-{p}").exists()
                               for b in mixed.by_id.values() for p in range(PARTITIONS)), 30,
               "every replica's directory gone")
    wait_until(lambda: all(not partitions(metadata(b), first) for b in mixed.by_id.values()), 30,
               "the topic gone from every broker's metadata")
    assert apache_errors(mixed) == []
