"""Kafka 4's consumer group protocol (KIP-848) against kafpy, side by side with Apache
Kafka 4.4 (KRaft: its new coordinator needs it) in the same test: the Java 4.4 consumer
(Apache's kafka-console-consumer, a stock KafkaConsumer) and confluent-kafka
(librdkafka) with `group.protocol=consumer` read every record of a 3-partition topic,
commit, and the committed offsets match on both brokers."""
from __future__ import annotations

import threading
import time
from typing import cast

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.coordinator.helpers import wait_until
from tests.support.kafka_dist import run_tool

RECORDS = 300
PARTITIONS = 3
CONSUMER_GROUP_BROKER = {
    "group.initial.rebalance.delay.ms": 0,
    "group.consumer.heartbeat.interval.ms": 500,
    "group.consumer.min.heartbeat.interval.ms": 500,
    "group.consumer.session.timeout.ms": 10000,
    "group.consumer.min.session.timeout.ms": 6000,
}


def _topic_with_records(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(60)
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    deadline = time.monotonic() + 60
    for i in range(RECORDS):
        while True:
            try:
                p.produce(topic, value=b"r%d" % i, key=b"k%d" % i, partition=i % PARTITIONS)
                break
            except BufferError:
                p.poll(0.1)
    assert p.flush(max(1.0, deadline - time.monotonic())) == 0


def _confluent_read_all(bootstrap: str, topic: str, group: str) -> set[bytes]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                  "group.protocol": "consumer", "auto.offset.reset": "earliest",
                  "enable.auto.commit": False})
    seen: set[bytes] = set()
    try:
        c.subscribe([topic])
        deadline = time.monotonic() + 90
        while len(seen) < RECORDS and time.monotonic() < deadline:
            msg = c.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            seen.add(cast(bytes, msg.value()))   # the test's records all have values
        c.commit(asynchronous=False)
        committed = c.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=30)
        assert sum(tp.offset for tp in committed) == RECORDS
    finally:
        c.close()
    return seen


def _java_read_all(bootstrap: str, topic: str, group: str) -> set[bytes]:
    out = run_tool("4", "kafka-console-consumer", [
        "--bootstrap-server", bootstrap, "--topic", topic, "--group", group,
        "--from-beginning", "--max-messages", str(RECORDS), "--timeout-ms", "60000",
        "--consumer-property", "group.protocol=consumer"], timeout=180)
    return {line.encode() for line in out.stdout.splitlines() if line.startswith("r")}


def _committed(bootstrap: str, topic: str, group: str) -> dict[int, int]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        got = c.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=30)
    finally:
        c.close()
    return {tp.partition: tp.offset for tp in got}


@pytest.mark.parametrize("client", ["confluent", "java"])
def test_consumer_protocol_reads_every_record_as_on_apache_kafka(broker_factory, reference_kafka, client):
    ours = broker_factory(CONSUMER_GROUP_BROKER)
    results = {}
    for name, bootstrap in (("kafpy", ours.bootstrap), ("kafka", reference_kafka.bootstrap)):
        topic, group = f"kip848-{client}", f"kip848-{client}-group"
        _topic_with_records(bootstrap, topic)
        read = _confluent_read_all if client == "confluent" else _java_read_all
        seen = read(bootstrap, topic, group)
        results[name] = (len(seen), _committed(bootstrap, topic, group))
    expected = (RECORDS, {p: RECORDS // PARTITIONS for p in range(PARTITIONS)})
    assert results == {"kafpy": expected, "kafka": expected}


def test_two_confluent_members_share_the_partitions(broker_factory):
    """Two consumer-protocol members: each partition read by one member at a time, the
    group describes as Kafka's tools show it (ConsumerGroupDescribe)."""
    b = broker_factory(CONSUMER_GROUP_BROKER)
    _topic_with_records(b.bootstrap, "shared")
    owners: dict[str, set[int]] = {"a": set(), "b": set()}
    overlap: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()
    counts = {"a": 0, "b": 0}

    def member(name: str) -> None:
        def on_assign(_c, parts):
            with lock:
                for tp in parts:
                    other = "b" if name == "a" else "a"
                    if tp.partition in owners[other]:
                        overlap.append(f"{name} got {tp.partition} still owned by {other}")
                    owners[name].add(tp.partition)

        def on_revoke(_c, parts):
            with lock:
                for tp in parts:
                    owners[name].discard(tp.partition)
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "shared-group",
                      "group.protocol": "consumer", "auto.offset.reset": "earliest",
                      "client.id": f"member-{name}"})
        c.subscribe(["shared"], on_assign=on_assign, on_revoke=on_revoke)
        try:
            while not stop.is_set():
                msg = c.poll(0.2)
                if msg is not None and msg.error() is None:
                    counts[name] += 1
        finally:
            c.close()

    threads = [threading.Thread(target=member, args=(n,), daemon=True) for n in ("a", "b")]
    threads[0].start()
    wait_until(lambda: counts["a"] > 0, 60, "the first member reads")
    threads[1].start()
    wait_until(lambda: owners["a"] and owners["b"]
               and len(owners["a"]) + len(owners["b"]) == PARTITIONS, 60,
               "both members own partitions")
    out = run_tool("4", "kafka-consumer-groups", ["--bootstrap-server", b.bootstrap, "--describe",
                                                  "--group", "shared-group", "--members"],
                   timeout=120).stdout
    assert "member-a" in out and "member-b" in out, out
    stop.set()
    for t in threads:
        t.join(30)
    assert not overlap


def test_regex_subscription_picks_up_a_topic_created_later(broker_factory):
    """A confluent-kafka member subscribed to `^regex-.*` with the consumer protocol: the
    broker resolves the expression (SubscribedTopicRegex) and assigns a topic created
    after the member joined."""
    b = broker_factory(CONSUMER_GROUP_BROKER)
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    admin.create_topics([NewTopic("regex-a", 2, 1), NewTopic("other-x", 1, 1)])["regex-a"].result(60)
    p = Producer({"bootstrap.servers": b.bootstrap})
    c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "regex-group", "group.protocol": "consumer",
                  "auto.offset.reset": "earliest", "topic.metadata.refresh.interval.ms": 1000})
    seen: set[tuple[str, bytes]] = set()
    try:
        c.subscribe(["^regex-.*"])
        p.produce("regex-a", value=b"a1")
        p.produce("other-x", value=b"x1")
        p.flush(30)

        def poll_until(want) -> bool:
            msg = c.poll(0.2)
            if msg is not None and msg.error() is None:
                seen.add((msg.topic(), msg.value()))
            return want <= seen
        wait_until(lambda: poll_until({("regex-a", b"a1")}), 60, "the regex's first topic read")
        admin.create_topics([NewTopic("regex-b", 1, 1)])["regex-b"].result(60)
        p.produce("regex-b", value=b"b1")
        p.flush(30)
        wait_until(lambda: poll_until({("regex-b", b"b1")}), 90, "the topic created later read")
    finally:
        c.close()
    assert ("other-x", b"x1") not in seen
