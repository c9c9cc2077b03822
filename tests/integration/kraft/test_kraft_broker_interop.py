"""kafpy brokers (``process.roles=broker``) on an Apache Kafka 4.4 controller quorum.

The controllers are Apache's (formatted with Apache's kafka-storage), the brokers kafpy's
(formatted with our kafka-storage). The brokers register and are unfenced; Apache's
``kafka-topics.sh --create`` sent to a kafpy broker creates a topic (forwarded to the active
controller) whose partitions kafpy brokers lead; acks=all writes are read back; a leader
killed with SIGKILL is replaced by the other kafpy broker once the controller fences it, with
every acknowledged record still there; a broker stopped with SIGTERM hands its leaderships over
in a controlled shutdown first. Nothing Apache's controllers wrote was skipped by the brokers'
metadata loaders (what they skip is logged as "Skipping the metadata record")."""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Iterator

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from tests.integration.cluster.harness import leaders, metadata, read_all, wait_until
from tests.integration.raft.quorum_support import describe_quorum
from tests.support.kafka_dist import run_tool
from tests.support.ports import free_ports
from tests.support.kraft_brokers import ApacheController, KafpyKRaftBroker, KRaftCluster

pytestmark = pytest.mark.timeout(420)

TOPIC = "kraft-interop"
DOOMED = "kraft-doomed"  # deleted while a broker is down
PARTITIONS = 2
FENCE_S = 30  # the controllers' broker.session.timeout.ms (4 s) plus elections and heartbeats


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[KRaftCluster]:
    c = KRaftCluster(tmp_path, controllers=1, brokers=2)
    try:
        yield c.start()
    finally:
        c.stop()


def isr(broker: KafpyKRaftBroker, topic: str) -> dict[int, list[int]]:
    (t,) = [t for t in metadata(broker).topics if t.name == topic]
    return {p.partition_index: sorted(p.isr_nodes) for p in t.partitions}


def produce(bootstrap: list[str], values: list[bytes]) -> list[tuple[int, int, bytes]]:
    """acks=all writes spread over the partitions; (partition, offset, value) of each acknowledged."""
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=5, request_timeout_ms=20000,
                             max_block_ms=30000)
    try:
        futures = [(producer.send(TOPIC, value=v, partition=i % PARTITIONS), v) for i, v in enumerate(values)]
        acked = []
        for fut, v in futures:
            md = fut.get(timeout=60)
            acked.append((md.partition, md.offset, v))
        return acked
    finally:
        producer.close()


def assert_all_readable(bootstrap: list[str], acked: list[tuple[int, int, bytes]]) -> None:
    got = read_all(bootstrap, TOPIC, len(acked), PARTITIONS)
    have = {(p, off, v) for p, recs in got.items() for off, v in recs}
    missing = [a for a in acked if a not in have]
    assert not missing, f"{len(missing)} acknowledged records missing, e.g. {missing[:3]}"


def commit_group(bootstrap: list[str], expected: int) -> dict[int, int | None]:
    """Consume ``expected`` records in group ``kraft-group``, commit, and read the commits back."""
    consumer = KafkaConsumer(TOPIC, bootstrap_servers=bootstrap, group_id="kraft-group", auto_offset_reset="earliest",
                             enable_auto_commit=False, consumer_timeout_ms=30000, request_timeout_ms=30000)
    try:
        seen = 0
        for _ in consumer:
            seen += 1
            if seen == expected:
                break
        consumer.commit()
        return {p: consumer.committed(TopicPartition(TOPIC, p)) for p in range(PARTITIONS)}
    finally:
        consumer.close()


def skipped_records(broker: KafpyKRaftBroker) -> list[str]:
    return re.findall(r"Skipping the metadata record at offset .*", broker.log_text())


def test_kafpy_brokers_on_apache_controllers(cluster: KRaftCluster) -> None:
    b1, b2 = cluster.brokers
    for b in cluster.brokers:
        assert sorted(node.node_id for node in metadata(b).brokers) == [1, 2]
    res = run_tool("4", "kafka-topics", ["--bootstrap-server", b1.bootstrap, "--create", "--topic", TOPIC,
                                         "--partitions", str(PARTITIONS), "--replication-factor", "2"], timeout=120)
    assert f"Created topic {TOPIC}" in res.stdout, res.stdout + res.stderr
    res = run_tool("4", "kafka-topics", ["--bootstrap-server", b2.bootstrap, "--create", "--topic", DOOMED,
                                         "--partitions", "1", "--replication-factor", "2"], timeout=120)
    assert f"Created topic {DOOMED}" in res.stdout, res.stdout + res.stderr
    for b in cluster.brokers:
        wait_until(lambda b=b: set(leaders(metadata(b), TOPIC)) == set(range(PARTITIONS))
                   and set(leaders(metadata(b), TOPIC).values()) <= {1, 2}, 30,
                   f"broker {b.node_id} sees kafpy leaders of {TOPIC}")
        assert isr(b, TOPIC) == {p: [1, 2] for p in range(PARTITIONS)}
    described = run_tool("4", "kafka-topics", ["--bootstrap-server", b2.bootstrap, "--describe", "--topic", TOPIC])
    assert len(re.findall(r"Leader: [12]\s+Replicas: [12],[12]\s+Isr: [12],[12]", described.stdout)) == PARTITIONS, \
        described.stdout

    acked = produce([b1.bootstrap, b2.bootstrap], [b"before-%d" % i for i in range(200)])
    assert_all_readable([b1.bootstrap, b2.bootstrap], acked)
    # a consumer group: __consumer_offsets is created through the controller, its partitions'
    # leaders load them as coordinators, and the commits are read back
    committed = commit_group([b1.bootstrap, b2.bootstrap], len(acked))
    assert committed == {p: sum(1 for a in acked if a[0] == p) for p in range(PARTITIONS)}
    assert set(leaders(metadata(b1), "__consumer_offsets").values()) <= {1, 2}

    victim = cluster.broker(leaders(metadata(b1), TOPIC)[0])
    survivor = b2 if victim is b1 else b1
    victim.kill()
    wait_until(lambda: set(leaders(metadata(survivor), TOPIC).values()) == {survivor.node_id}, FENCE_S,
               f"broker {survivor.node_id} leads every partition after {victim.node_id} was killed")
    assert_all_readable([survivor.bootstrap], acked)
    more = produce([survivor.bootstrap], [b"after-%d" % i for i in range(50)])
    assert_all_readable([survivor.bootstrap], acked + more)

    # a topic deleted while the victim is down leaves a stray log there, removed when it comes back
    assert (victim.log_dir / f"{DOOMED}-0").is_dir()
    run_tool("4", "kafka-topics", ["--bootstrap-server", survivor.bootstrap, "--delete", "--topic", DOOMED])
    wait_until(lambda: DOOMED not in {t.name for t in metadata(survivor).topics}, 30, f"{DOOMED} deleted")

    # the killed broker comes back, catches up, and a SIGTERM moves the survivor's leaderships to it
    victim.start()
    victim.wait_registered()
    assert f"Removing stray log {DOOMED}-0" in victim.log_text()
    wait_until(lambda: not (victim.log_dir / f"{DOOMED}-0").exists(), 30, f"the stray {DOOMED}-0 log removed")
    wait_until(lambda: isr(survivor, TOPIC) == {p: [1, 2] for p in range(PARTITIONS)}, 60,
               f"broker {victim.node_id} back in every ISR")
    assert survivor.stop(timeout=60) == 0
    assert "The controller has asked us to exit controlled shutdown" in survivor.log_text()
    wait_until(lambda: set(leaders(metadata(victim), TOPIC).values()) == {victim.node_id}, FENCE_S,
               f"broker {victim.node_id} leads every partition after the controlled shutdown")
    assert_all_readable([victim.bootstrap], acked + more)
    for b in cluster.brokers:
        assert skipped_records(b) == [], f"broker {b.node_id} skipped records Apache's controller wrote"
        assert "Error publishing metadata" not in b.log_text()


SNAPSHOTTING = {  # Apache's controller snapshots and drops old segments within seconds
    "metadata.log.max.snapshot.interval.ms": 500, "metadata.log.segment.ms": 500,
    "metadata.max.retention.ms": 1000, "metadata.max.idle.interval.ms": 100,
}


def test_a_broker_joining_after_the_log_was_snapshotted_loads_the_snapshot(tmp_path: Path) -> None:
    """The controller's log no longer starts at 0: a new kafpy broker fetches the snapshot
    (FetchSnapshot), loads it, and knows the topics created before it joined."""
    cluster = KRaftCluster(tmp_path, controllers=1, brokers=2, controller_overrides=SNAPSHOTTING)
    try:
        cluster.start()
        b1 = cluster.brokers[0]
        res = run_tool("4", "kafka-topics", ["--bootstrap-server", b1.bootstrap, "--create", "--topic", TOPIC,
                                             "--partitions", str(PARTITIONS), "--replication-factor", "2"])
        assert f"Created topic {TOPIC}" in res.stdout, res.stdout + res.stderr
        log_dir = cluster.controllers[0].metadata_dir / "__cluster_metadata-0"

        def log_start() -> int:
            return min(int(p.name.split(".")[0]) for p in log_dir.glob("*.log"))
        wait_until(lambda: log_start() > 0 and any(log_dir.glob("*.checkpoint")), 60,
                   "the controller's metadata log starts after a snapshot")
        topic_id = [t.topic_id for t in metadata(b1).topics if t.name == TOPIC]
        late = cluster.add_broker()
        late.start()
        late.wait_registered()
        md = metadata(late)
        assert [t.topic_id for t in md.topics if t.name == TOPIC] == topic_id
        assert set(leaders(md, TOPIC).values()) <= {1, 2}
        assert sorted(b.node_id for b in md.brokers) == [1, 2, 3]
        assert "Loaded snapshot" in late.log_text()
        # configs and quotas altered through one kafpy broker are described by another, from its image
        for args in (["--entity-type", "topics", "--entity-name", TOPIC, "--add-config", "retention.ms=86400000"],
                     ["--entity-type", "users", "--entity-name", "alice", "--add-config", "producer_byte_rate=1024"]):
            run_tool("4", "kafka-configs", ["--bootstrap-server", b1.bootstrap, "--alter", *args])

        def described(*args: str) -> str:
            return run_tool("4", "kafka-configs", ["--bootstrap-server", late.bootstrap, "--describe", *args]).stdout
        wait_until(lambda: "retention.ms=86400000" in described("--entity-type", "topics", "--entity-name", TOPIC),
                   30, "the topic config on the late broker")
        wait_until(lambda: "producer_byte_rate=1024" in described("--entity-type", "users", "--entity-name", "alice"),
                   30, "the user quota on the late broker")
        assert skipped_records(late) == []
    finally:
        cluster.stop()


def active_controller(controllers: list[ApacheController]) -> int | None:
    """The leader, as the controller that leads answers DescribeQuorum (the others answer
    NOT_LEADER_OR_FOLLOWER)."""
    for c in controllers:
        try:
            part = describe_quorum(c.port)
        except OSError:
            continue
        if part.error_code == 0 and part.leader_id == c.node_id:
            return c.node_id
    return None


def test_brokers_follow_a_new_active_controller(tmp_path: Path) -> None:
    """Three Apache controllers; the active one killed with SIGKILL: the kafpy brokers learn the
    new leader from the metadata log, keep heartbeating to it (still unfenced after more than a
    session timeout), and forward a new CreateTopics to it."""
    cluster = KRaftCluster(tmp_path, controllers=3, brokers=2)
    try:
        cluster.start()
        b1, b2 = cluster.brokers
        active = wait_until(lambda: active_controller(cluster.controllers), 30, "the active controller")
        victim = next(c for c in cluster.controllers if c.node_id == active)
        victim.kill()
        others = [c for c in cluster.controllers if c is not victim]
        new_active = wait_until(lambda: active_controller(others), 60, "a new active controller")
        # the brokers must still be unfenced more than the controllers' broker.session.timeout.ms
        # (4 s) after the new controller took over: the steps below count towards that
        unfenced_until = time.monotonic() + 5
        res = run_tool("4", "kafka-topics", ["--bootstrap-server", b2.bootstrap, "--create", "--topic", TOPIC,
                                             "--partitions", str(PARTITIONS), "--replication-factor", "2"],
                       timeout=120)
        assert f"Created topic {TOPIC}" in res.stdout, res.stdout + res.stderr
        # b1 may learn of the topic created through b2 a moment later: not there yet is "not yet"
        wait_until(lambda: TOPIC in {t.name for t in metadata(b1).topics}
                   and set(leaders(metadata(b1), TOPIC).values()) <= {1, 2}
                   and len(leaders(metadata(b1), TOPIC)) == PARTITIONS, 30, "leaders of the new topic")
        acked = produce([b1.bootstrap, b2.bootstrap], [b"v-%d" % i for i in range(50)])
        assert_all_readable([b1.bootstrap, b2.bootstrap], acked)
        status = run_tool("4", "kafka-metadata-quorum", ["--bootstrap-server", b1.bootstrap, "describe", "--status"])
        assert re.search(rf"LeaderId:\s+{new_active}\b", status.stdout), status.stdout  # forwarded to the controller
        time.sleep(max(0.0, unfenced_until - time.monotonic()))
        assert sorted(b.node_id for b in metadata(b1).brokers) == [1, 2], f"fenced after {new_active} took over"
    finally:
        cluster.stop()


def scram_login(port: int, user: str, password: str) -> bool:
    """A SASL/SCRAM-SHA-256 client (kafka-python) lists the topics; False when refused (after
    5 s of retries, not the client's default 30 s of bootstrap: with the broker up, a login
    that is accepted takes well under a second)."""
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError
    try:
        admin = KafkaAdminClient(bootstrap_servers=[f"127.0.0.1:{port}"], security_protocol="SASL_PLAINTEXT",
                                 sasl_mechanism="SCRAM-SHA-256", sasl_plain_username=user,
                                 sasl_plain_password=password, request_timeout_ms=5000, bootstrap_timeout_ms=5000)
    except (KafkaError, OSError):
        return False
    try:
        admin.list_topics()
        return True
    finally:
        admin.close()


def test_scram_users_made_through_the_controller_log_in(tmp_path: Path) -> None:
    """A SCRAM user added with kafka-configs (AlterUserScramCredentials, forwarded to Apache's
    controller) logs in on the kafpy broker's SASL_PLAINTEXT listener: the credential comes from
    the metadata image."""
    cluster = KRaftCluster(tmp_path, controllers=1, brokers=1)
    broker = cluster.brokers[0]
    (sasl_port,) = free_ports(1)
    broker.overrides.update({
        "listeners": f"PLAINTEXT://127.0.0.1:{broker.port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{broker.port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "sasl.enabled.mechanisms": "SCRAM-SHA-256", "offsets.topic.replication.factor": 1,
    })
    try:
        cluster.start()
        refusals = "Failed authentication with SASL mechanism SCRAM-SHA-256"
        assert not scram_login(sasl_port, "bob", "bob-secret")
        assert broker.log_text().count(refusals) > 0  # refused by the broker, not merely slow to answer
        run_tool("4", "kafka-configs", ["--bootstrap-server", broker.bootstrap, "--alter", "--entity-type", "users",
                                        "--entity-name", "bob", "--add-config",
                                        "SCRAM-SHA-256=[iterations=4096,password=bob-secret]"])
        wait_until(lambda: scram_login(sasl_port, "bob", "bob-secret"), 30, "bob logs in with SCRAM-SHA-256")
        refused_before = broker.log_text().count(refusals)
        assert not scram_login(sasl_port, "bob", "wrong")
        assert broker.log_text().count(refusals) > refused_before
        described = run_tool("4", "kafka-configs", ["--bootstrap-server", broker.bootstrap, "--describe",
                                                    "--entity-type", "users", "--entity-name", "bob"]).stdout
        assert "SCRAM-SHA-256=iterations=4096" in described, described
    finally:
        cluster.stop()
