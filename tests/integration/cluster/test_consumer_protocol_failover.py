"""Kafka 4's consumer group protocol on the three-broker ZooKeeper cluster (which Apache
Kafka never offered: its new coordinator needs KRaft): a confluent-kafka member, or
Apache 4.4's Java console consumer, with `group.protocol=consumer` reads a 3-partition
topic while the broker coordinating its group is killed (SIGKILL). The group's state and offsets are in the replicated
`__consumer_offsets`; the new leader of its partition loads them and the member carries
on: every record read, the committed offsets never go back."""
from __future__ import annotations

import subprocess
import threading
from typing import Callable, Iterator, cast

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import pytest

from kafpy.coordinator.group.partitioner import partition_for
from tests.integration.cluster.harness import metadata, start_cluster, wait_until
from tests.support import process
from tests.support.kafka_dist import popen_tool

TOPIC, GROUP, PARTITIONS, RECORDS = "cg-failover", "cg-failover-group", 3, 600
OVERRIDES = {
    "group.consumer.heartbeat.interval.ms": 500,
    "group.consumer.min.heartbeat.interval.ms": 500,
    "group.consumer.session.timeout.ms": 10000,
    "group.consumer.min.session.timeout.ms": 6000,
    "offsets.topic.num.partitions": 5,
    "min.insync.replicas": 1,
}


def _produce(bootstrap: str, start: int, end: int) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True})
    for i in range(start, end):
        p.produce(TOPIC, value=b"r%d" % i, partition=i % PARTITIONS)
        p.poll(0)
    assert p.flush(60) == 0


@pytest.fixture
def console_consumer() -> Iterator[Callable[[str], subprocess.Popen]]:
    """Starts Apache 4.4's console consumer in the group; the process is this fixture's, so it
    ends with the test, also when the test fails while the consumer waits for records (its
    reading thread cannot stop it: it blocks on the consumer's silent output)."""
    started: list[subprocess.Popen] = []

    def start(bootstrap: str) -> subprocess.Popen:
        proc = popen_tool("4", "kafka-console-consumer", [
            "--bootstrap-server", bootstrap, "--topic", TOPIC, "--group", GROUP, "--from-beginning",
            "--consumer-property", "group.protocol=consumer",
            "--consumer-property", "auto.commit.interval.ms=200"], stdin=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        process.terminate(proc, timeout=30)


def _java_member(proc: subprocess.Popen, seen: set[bytes], errors: list[str], stop: threading.Event) -> None:
    """Reads the console consumer's records until its output closes (the test stops it)."""
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("r"):
            seen.add(line.strip().encode())
    if not stop.is_set():
        errors.append(f"console consumer exited {proc.wait()}")


@pytest.mark.parametrize("client", ["confluent", "java"])
def test_member_carries_on_when_the_coordinator_is_killed(zookeeper, broker_factory, console_consumer,
                                                          client):
    brokers = start_cluster(zookeeper, broker_factory, **OVERRIDES)
    bootstrap = ",".join(b.bootstrap for b in brokers)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3)])[TOPIC].result(60)
    _produce(bootstrap, 0, RECORDS // 2)

    seen: set[bytes] = set()
    # each observer's own sequence (interleaving the two would compare a read that started
    # before a commit with that commit): the member's commit results, the watcher's reads
    commits: list[dict[int, int]] = []
    watched: list[dict[int, int]] = []
    errors: list[str] = []
    stop = threading.Event()

    def member() -> None:
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP, "group.protocol": "consumer",
                      "auto.offset.reset": "earliest", "enable.auto.commit": False})
        c.subscribe([TOPIC])
        try:
            while not stop.is_set():
                msg = c.poll(0.2)
                if msg is None or msg.error() is not None:
                    if msg is not None and (err := msg.error()) is not None and err.fatal():
                        errors.append(str(msg.error()))
                        return
                    continue
                seen.add(cast(bytes, msg.value()))   # the test's records all have values
                try:
                    got = c.commit(message=msg, asynchronous=False)
                    commits.append({tp.partition: tp.offset for tp in got})
                except Exception as e:  # noqa: BLE001 - retried by the next record's commit
                    errors.append(f"commit: {e}")
        finally:
            c.close()

    def watch_commits() -> None:
        """The group's committed offsets, read every half second (they must never go back)."""
        while not stop.is_set():
            check = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP})
            try:
                got = check.committed([TopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout=5)
                watched.append({tp.partition: tp.offset for tp in got if tp.offset >= 0})
            except Exception:  # noqa: BLE001,S110 - the coordinator is moving
                pass
            finally:
                check.close()
            stop.wait(0.5)

    java = None
    if client == "confluent":
        t = threading.Thread(target=member, daemon=True)
    else:
        java = console_consumer(bootstrap)
        t = threading.Thread(target=_java_member, args=(java, seen, errors, stop), daemon=True)
    t.start()
    watcher = threading.Thread(target=watch_commits, daemon=True)
    watcher.start()
    try:
        wait_until(lambda: len(seen) >= RECORDS // 4, 90, "the member reads before the kill")
        offsets_md = metadata(brokers[0], ["__consumer_offsets"]).topics[0]
        n = len(offsets_md.partitions)
        coordinator = {p.partition_index: p.leader_id for p in offsets_md.partitions}[partition_for(GROUP, n)]
        brokers[coordinator].kill()
        survivors = ",".join(b.bootstrap for i, b in enumerate(brokers) if i != coordinator)
        _produce(survivors, RECORDS // 2, RECORDS)
        wait_until(lambda: len(seen) == RECORDS or not t.is_alive(), 180,
                   f"every record read after broker {coordinator} (the coordinator) was killed")
        wait_until(lambda: sum(last_committed(survivors).values()) == RECORDS, 60,
                   "every record's offset committed")
    finally:
        # the members and the watcher stop whatever happened (a failed wait included)
        stop.set()
        if java is not None:
            process.terminate(java, timeout=30)  # closes its output: the reading thread ends
        t.join(60)
        watcher.join(30)
    assert not t.is_alive(), "the member stopped"
    assert len(seen) == RECORDS, (len(seen), errors[-5:])
    assert not [e for e in errors if not e.startswith("commit")], errors
    for history in (commits, watched):
        last: dict[int, int] = {}
        for c in history:
            for p, off in c.items():
                assert off >= last.get(p, -1), f"partition {p}: committed {off} after {last[p]}"
                last[p] = off
    assert watched, "the watcher read the committed offsets"
    assert last_committed(survivors) == {p: RECORDS // PARTITIONS for p in range(PARTITIONS)}


def last_committed(bootstrap: str) -> dict[int, int]:
    check = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP})
    try:
        final = check.committed([TopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout=30)
    finally:
        check.close()
    return {tp.partition: tp.offset for tp in final}
