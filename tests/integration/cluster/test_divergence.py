"""Divergent logs are repaired (issue 14), at process level after Kafka's
``EpochDrivenReplicationProtocolAcceptanceTest``: a leader that took acks=1 writes its followers
never fetched, and was then cut off (SIGSTOP past the ZooKeeper session timeout), comes back
(SIGCONT) as a follower of the leader elected meanwhile, truncates the records that leader never
had (OffsetsForLeaderEpoch) and ends with the same log, byte for byte; and every replica keeps
the same leader-epoch cache across leader changes. The tests share two clusters (three brokers,
then two), each test on a topic of its own."""
from __future__ import annotations

import os
import signal
import time

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic

from tests.integration.cluster.harness import SharedClusters, metadata, shared_cluster_on_own_zookeeper, wait_until

pytestmark = pytest.mark.timeout(300)

SESSION_TIMEOUT_MS = 8000
# The two-broker tests kill or stop a leader and wait for the other to lead: a killed one's
# ZooKeeper session is waited out four times over, so it is short here (what they check is the
# replicas' logs and epoch caches, not how soon a dead broker is noticed).
TWO_BROKERS = {"zookeeper.session.timeout.ms": 3000}
SEGMENT = "0" * 20 + ".log"


@pytest.fixture(scope="module")
def clusters(tmp_path_factory):
    """The file's tests share their clusters, each test on a topic of its own: the three-broker
    ones (cut-off leaders, ``SESSION_TIMEOUT_MS``) come first, then the two-broker ones."""
    shared = SharedClusters(lambda n, overrides: shared_cluster_on_own_zookeeper(tmp_path_factory, n, overrides))
    try:
        yield shared
    finally:
        shared.close()


class NoMetadataYet:
    """What partition0 answers while a (re)started broker has no metadata of the topic yet."""
    leader_id = -1
    leader_epoch = -1
    isr_nodes: list[int] = []


def partition0(broker, topic: str):
    found = [p for t in metadata(broker, [topic]).topics if t.name == topic for p in t.partitions]
    return found[0] if found else NoMetadataYet()


def create_topic(cluster, topic: str, rf: int, replicas: list[int] | None = None, **configs: str) -> None:
    """One partition, min.insync.replicas=1; ``replicas`` (preferred leader first) if given."""
    admin = KafkaAdminClient(bootstrap_servers=[b.bootstrap for b in cluster], request_timeout_ms=30000)
    configs = {"min.insync.replicas": "1", **configs}
    new = (NewTopic(topic, -1, -1, replica_assignments={0: replicas}, topic_configs=configs)
           if replicas else NewTopic(topic, 1, rf, topic_configs=configs))
    try:
        admin.create_topics([new])
    finally:
        admin.close()
    for b in cluster:
        wait_until(lambda b=b: len(partition0(b, topic).isr_nodes) == rf, 30,
                   f"broker {b.bootstrap} sees {topic} with a full ISR")


def signal_broker(broker, sig: int) -> None:
    """SIGSTOP / SIGCONT a broker's process group: frozen, it neither answers nor heartbeats."""
    os.killpg(broker.proc.pid, sig)


def unread_from(broker, port: int) -> int:
    """Bytes waiting unread in ``broker``'s TCP connections to ``port`` (/proc/net/tcp's
    rx_queue of the sockets among the process's descriptors)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{broker.proc.pid}/fd"):
        try:
            target = os.readlink(f"/proc/{broker.proc.pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    total = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[9] in inodes and int(fields[2].rsplit(":", 1)[1], 16) == port:
                    total += int(fields[4].split(":")[1], 16)
    return total


def wait_for_parked_fetches_answered(followers: list, leader) -> None:
    """The followers are frozen: wait until the fetch each had parked at ``leader`` has been
    answered (its bytes wait unread in the follower's socket), so that no record appended to
    the leader from now on is on its way to them. A follower frozen between two fetches had
    none parked; nothing arrives for it, and the wait ends after replica.fetch.wait.max.ms
    (500 ms) has passed three times over."""
    deadline = time.monotonic() + 1.5
    waiting = list(followers)
    while waiting and time.monotonic() < deadline:
        waiting = [b for b in waiting if not unread_from(b, leader.port)]
        if waiting:
            time.sleep(0.02)


def producer(bootstrap: list[str], acks) -> KafkaProducer:
    return KafkaProducer(bootstrap_servers=bootstrap, acks=acks, linger_ms=0, request_timeout_ms=15000,
                         retries=2147483647, delivery_timeout_ms=60000, max_in_flight_requests_per_connection=1)


def send(p: KafkaProducer, topic: str, values: list[bytes]) -> list[int]:
    """The offsets the leader acknowledged, in order."""
    futures = [p.send(topic, value=v, partition=0) for v in values]
    p.flush(60)
    return [f.get(timeout=60).offset for f in futures]


def produce(bootstrap: list[str], topic: str, values: list[bytes], acks) -> list[int]:
    p = producer(bootstrap, acks)
    try:
        return send(p, topic, values)
    finally:
        p.close(10)


def read_all(bootstrap: list[str], topic: str, end: int) -> list[tuple[int, bytes]]:
    c = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False,
                      request_timeout_ms=20000)
    try:
        c.assign([TopicPartition(topic, 0)])
        out: list[tuple[int, bytes]] = []
        deadline = time.monotonic() + 30
        while len(out) < end and time.monotonic() < deadline:
            for recs in c.poll(timeout_ms=1000).values():
                out.extend((r.offset, r.value) for r in recs)
        return out
    finally:
        c.close()


def replica_files(broker, topic: str) -> tuple[bytes, str]:
    """One replica's segment bytes and leader-epoch-checkpoint text."""
    d = broker.log_dir / f"{topic}-0"
    return (d / SEGMENT).read_bytes(), (d / "leader-epoch-checkpoint").read_text()


def epoch_entries(checkpoint: str) -> list[tuple[int, int]]:
    lines = checkpoint.split("\n")
    return [tuple(map(int, line.split())) for line in lines[2:2 + int(lines[1])]]  # type: ignore[misc]


@pytest.mark.parametrize("leader_is_controller", [False, True], ids=["leader", "leader-and-controller"])
def test_cut_off_leader_truncates_what_the_new_leader_never_had(clusters, leader_is_controller):
    """Also when the cut-off leader was the controller: the zombie's requests, sent with the
    old controller epoch once it runs again, change nothing."""
    topic = "divergent-controller" if leader_is_controller else "divergent"
    cluster = clusters.ready(**{"zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS})
    controller = metadata(cluster[0]).controller_id
    leader = controller if leader_is_controller else (controller + 1) % 3
    create_topic(cluster, topic, 3, [leader] + [i for i in range(3) if i != leader])
    bootstrap = [b.bootstrap for b in cluster]
    base = [f"base-{i}".encode() for i in range(20)]
    assert produce(bootstrap, topic, base[:10], "all") == list(range(10))
    first = partition0(cluster[0], topic)
    assert first.leader_id == leader
    old = cluster[first.leader_id]
    followers = [b for b in cluster if b is not old]
    # Connected to the leader with its metadata before the followers freeze: no request of this
    # producer waits on a frozen broker.
    acks1 = producer(bootstrap, 1)
    try:
        assert send(acks1, topic, base[10:]) == list(range(10, 20))
        wait_until(lambda: len({replica_files(b, topic)[0] for b in cluster}) == 1, 10,
                   "the followers with every base record")
        # Freeze the followers long enough for their parked fetches to be answered empty (so no
        # later record is on its way to them), then the old leader alone takes acks=1 writes,
        # and is frozen in turn, all well within the followers' ZooKeeper session.
        for b in followers:
            signal_broker(b, signal.SIGSTOP)
        try:
            wait_for_parked_fetches_answered(followers, old)
            lost = [f"acks1-{i}".encode() for i in range(5)]
            assert send(acks1, topic, lost) == list(range(20, 25))
            signal_broker(old, signal.SIGSTOP)
        finally:
            for b in followers:
                signal_broker(b, signal.SIGCONT)
    finally:
        acks1.close(0)
    try:
        # Past the old leader's session timeout the controller elects a follower.
        new_leader = wait_until(lambda: (lambda p: p.leader_id not in (-1, first.leader_id)
                                         and p.leader_epoch > first.leader_epoch and p)(
            partition0(followers[0], topic)), SESSION_TIMEOUT_MS / 1000 + 20, "a new leader from the followers")
        survivors = [b.bootstrap for b in followers]
        new = [f"new-{i}".encode() for i in range(8)]
        # The new leader never had the acks=1 records: it hands out their offsets again.
        assert produce(survivors, topic, new, "all") == list(range(20, 28))
    finally:
        signal_broker(old, signal.SIGCONT)

    wait_until(lambda: all(sorted(partition0(b, topic).isr_nodes) == [0, 1, 2] for b in cluster), 60,
               "the old leader back in the ISR")
    leader = cluster[new_leader.leader_id]
    # the leader-epoch-checkpoint file is rewritten with the periodic checkpoint flush (its
    # content is rebuilt from the log on recovery), so wait for the new epoch to reach it
    wait_until(lambda: len(files := {replica_files(b, topic) for b in cluster}) == 1
               and epoch_entries(next(iter(files))[1])[-1] == (new_leader.leader_epoch, 20), 30,
               "every replica with the new leader's segment bytes and leader-epoch cache")
    segment, checkpoint = replica_files(leader, topic)
    assert b"acks1-" not in segment
    assert epoch_entries(checkpoint)[-1] == (new_leader.leader_epoch, 20), checkpoint
    assert read_all(bootstrap, topic, 28) == list(enumerate(base + new))


def test_acks_all_write_to_a_cut_off_leader_is_never_acknowledged_and_lost(clusters):
    """A leader that lost its ZooKeeper session keeps accepting (as Kafka's does): acks=all writes parked
    at a leader whose followers stopped fetching, then cut off past its session, must not be
    answered as written unless they survive: once it runs again and follows the new leader,
    every write it acknowledged is in the final log at the acknowledged offset."""
    topic = "zombie-acks-all"
    cluster = clusters.ready(**{"zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS})
    controller = metadata(cluster[0]).controller_id
    leader_id = (controller + 1) % 3
    create_topic(cluster, topic, 3, [leader_id] + [i for i in range(3) if i != leader_id],
                 **{"min.insync.replicas": "2"})
    bootstrap = [b.bootstrap for b in cluster]
    old = cluster[leader_id]
    followers = [b for b in cluster if b is not old]
    p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=0, linger_ms=0,
                      request_timeout_ms=90000, max_in_flight_requests_per_connection=5)
    try:
        assert send(p, topic, [b"base"]) == [0]
        for b in followers:
            signal_broker(b, signal.SIGSTOP)
        try:
            wait_for_parked_fetches_answered(followers, old)
            parked = [(v, p.send(topic, value=v, partition=0)) for v in (b"parked-0", b"parked-1")]
            # the old leader appended both (acks=all: they wait there for the frozen followers)
            wait_until(lambda: all(v in replica_files(old, topic)[0] for v, _ in parked), 10,
                       "the old leader holds the parked records")
            signal_broker(old, signal.SIGSTOP)
        finally:
            for b in followers:
                signal_broker(b, signal.SIGCONT)
        try:
            wait_until(lambda: partition0(followers[0], topic).leader_id not in (-1, leader_id),
                       SESSION_TIMEOUT_MS / 1000 + 20, "a new leader from the followers")
            assert produce([b.bootstrap for b in followers], topic, [b"new"], "all")
        finally:
            signal_broker(old, signal.SIGCONT)
        outcomes = []
        for value, fut in parked:
            try:
                outcomes.append((value, fut.get(timeout=90).offset))
            except Exception as e:  # noqa: BLE001 - refused or timed out: not acknowledged
                outcomes.append((value, type(e).__name__))
    finally:
        p.close(10)
    wait_until(lambda: all(sorted(partition0(b, topic).isr_nodes) == [0, 1, 2] for b in cluster), 60, "full ISR")
    wait_until(lambda: len({replica_files(b, topic)[0] for b in cluster}) == 1, 30, "identical segments")
    final = dict(read_all(bootstrap, topic, 2))
    assert final[0] == b"base" and b"new" in final.values(), final
    for value, outcome in outcomes:
        if isinstance(outcome, int):
            assert final.get(outcome) == value, f"{value!r} acknowledged at {outcome} but lost: {final}"


def test_a_leader_cut_off_before_any_write_in_its_epoch_rejoins_the_isr(clusters):
    """Fault seeds 259 and 271: a replica elected leader is cut off (SIGSTOP past its ZooKeeper
    session) before any write in its epoch, so its epoch cache ends with an epoch no other
    replica has, starting at its log end. Following the leader elected meanwhile, it drops
    that entry and rejoins the ISR."""
    topic = "empty-epoch"
    cluster = clusters.ready(**{"zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS})
    controller = metadata(cluster[0]).controller_id
    first, second = (controller + 1) % 3, (controller + 2) % 3
    create_topic(cluster, topic, 3, [first, second, controller])
    assert produce([b.bootstrap for b in cluster], topic, [b"base"], "all") == [0]
    wait_until(lambda: len({replica_files(b, topic)[0] for b in cluster}) == 1, 10, "every replica with the record")
    cluster[first].stop()     # controlled shutdown: ``second`` leads a new epoch at once
    wait_until(lambda: partition0(cluster[controller], topic).leader_id == second, 30, "the second replica leads")
    signal_broker(cluster[second], signal.SIGSTOP)
    try:
        wait_until(lambda: partition0(cluster[controller], topic).leader_id == controller,
                   SESSION_TIMEOUT_MS / 1000 + 20, "the controller's replica leads")
    finally:
        signal_broker(cluster[second], signal.SIGCONT)
    wait_until(lambda: sorted(partition0(cluster[controller], topic).isr_nodes) == sorted([second, controller]),
               30, "the cut-off leader back in the ISR")
    survivors = [cluster[second], cluster[controller]]
    assert produce([b.bootstrap for b in survivors], topic, [b"after"], "all") == [1]
    wait_until(lambda: len({replica_files(b, topic) for b in survivors}) == 1, 30,
               "both replicas with the same segment bytes and leader-epoch cache")
    epochs = [e for e, _ in epoch_entries(replica_files(cluster[second], topic)[1])]
    assert epochs == [0, partition0(cluster[controller], topic).leader_epoch] == [0, 2], epochs


def test_epoch_cache_follows_leader_changes_and_offsets_never_go_backwards(clusters):
    """Kafka's shouldFollowLeaderEpochBasicWorkflow and offsetsShouldNotGoBackwards: one record
    per leader, the leader killed after each; every replica ends with one epoch entry per
    record, at offsets 0, 1, 2, ... and with rising epochs; no acknowledged offset is reused."""
    topic = "epochs"
    cluster = clusters.ready(n=2, **TWO_BROKERS)
    create_topic(cluster, topic, 2)
    bootstrap = [b.bootstrap for b in cluster]
    offsets: list[int] = []
    for i in range(4):
        wait_until(lambda: all(sorted(partition0(b, topic).isr_nodes) == [0, 1] for b in cluster), 60,
                   "a full ISR")
        p = partition0(cluster[0], topic)
        offsets += produce(bootstrap, topic, [f"v{i}".encode()], "all")
        leader = cluster[p.leader_id]
        leader.kill()
        other = next(b for b in cluster if b is not leader)
        wait_until(lambda: partition0(other, topic).leader_id == other_id(cluster, leader), 30,
                   "the other replica leads")
        leader.start()
    # A leader keeps an entry for its epoch from the moment it leads, a follower only from the
    # first batch of that epoch: one more record so that the last epoch has one on both.
    wait_until(lambda: all(sorted(partition0(b, topic).isr_nodes) == [0, 1] for b in cluster), 60, "full ISR")
    offsets += produce(bootstrap, topic, [b"v4"], "all")
    assert offsets == [0, 1, 2, 3, 4]
    wait_until(lambda: len(files := {replica_files(b, topic) for b in cluster}) == 1
               and len(epoch_entries(next(iter(files))[1])) == 5, 30,
               "identical replicas, their leader-epoch checkpoints flushed")
    entries = epoch_entries(replica_files(cluster[0], topic)[1])
    assert [o for _, o in entries] == [0, 1, 2, 3, 4], entries
    assert [e for e, _ in entries] == sorted(set(e for e, _ in entries)), entries
    assert read_all(bootstrap, topic, 5) == [(i, f"v{i}".encode()) for i in range(5)]


def other_id(cluster, broker) -> int:
    return next(i for i, b in enumerate(cluster) if b is not broker)


def test_fast_leader_changes_lose_nothing(clusters):
    """Kafka's shouldSurviveFastLeaderChange: write, bounce the follower, then the leader, each
    as soon as the ISR is full again; after every round both replicas hold exactly the records
    written, byte for byte."""
    topic = "fast-leader-change"
    cluster = clusters.ready(n=2, **TWO_BROKERS)
    create_topic(cluster, topic, 2)
    bootstrap = [b.bootstrap for b in cluster]

    def await_isr() -> None:
        wait_until(lambda: all(sorted(partition0(b, topic).isr_nodes) == [0, 1]
                               and partition0(b, topic).leader_id >= 0 for b in cluster), 60, "a leader and full ISR")

    written = produce(bootstrap, topic, [b"first"], "all")
    for i in range(4):
        await_isr()
        leader = cluster[partition0(cluster[0], topic).leader_id]
        follower = next(b for b in cluster if b is not leader)
        written += produce(bootstrap, topic, [f"message-{i}".encode()], "all")
        follower.restart()
        await_isr()
        leader.restart()
        await_isr()
        assert written == list(range(len(written)))
        wait_until(lambda: len({replica_files(b, topic)[0] for b in cluster}) == 1, 30, "identical segments")
        assert read_all(bootstrap, topic, len(written))[-1][0] == len(written) - 1
    values = [v for _, v in read_all(bootstrap, topic, len(written))]
    assert values == [b"first"] + [f"message-{i}".encode() for i in range(4)]


def test_logs_do_not_diverge_after_an_unclean_leader_election(clusters):
    """Kafka's logsShouldNotDivergeOnUncleanLeaderElections: the follower is stopped, the leader
    takes an acks=1 write alone and is stopped too; the follower starts again and is elected
    uncleanly, takes other writes at the same offsets; the old leader, started again, truncates
    its extra record and ends with the new leader's log."""
    topic = "unclean"
    cluster = clusters.ready(n=2, **TWO_BROKERS)
    create_topic(cluster, topic, 2, [0, 1], **{"unclean.leader.election.enable": "true"})
    bootstrap = [b.bootstrap for b in cluster]
    leader, follower = cluster
    assert produce(bootstrap, topic, [b"both"], 1) == [0]
    wait_until(lambda: len({replica_files(b, topic)[0] for b in cluster}) == 1, 30, "the follower caught up")
    follower.stop()
    wait_until(lambda: partition0(leader, topic).isr_nodes == [0], 30, "the ISR shrunk to the leader")
    assert produce([leader.bootstrap], topic, [b"leader-only"], 1) == [1]
    leader.stop()
    follower.start()
    wait_until(lambda: partition0(follower, topic).leader_id == 1, 30, "the follower elected uncleanly")
    assert produce([follower.bootstrap], topic, [b"new-1", b"new-2"], 1) == [1, 2]
    leader.start()
    wait_until(lambda: all(sorted(partition0(b, topic).isr_nodes) == [0, 1] for b in cluster), 60, "full ISR")
    wait_until(lambda: len({replica_files(b, topic)[0] for b in cluster}) == 1, 30, "identical segments")
    assert b"leader-only" not in replica_files(leader, topic)[0]
    assert [v for _, v in read_all(bootstrap, topic, 3)] == [b"both", b"new-1", b"new-2"]
