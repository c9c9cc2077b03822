"""Replication across three kafpy brokers and one ZooKeeper: a topic with replication factor 3
and min.insync.replicas=2 takes acks=all writes from kafka-python and confluent-kafka, every
follower reaches its leader's log end with the ISR full; a leader killed with SIGKILL during an
acks=all load is replaced from the ISR, no acknowledged record is lost or duplicated, and the
restarted broker rejoins every ISR."""
from __future__ import annotations

import threading

import pytest
from confluent_kafka import Producer as ConfluentProducer
from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic

from tests.integration.cluster.harness import (ISR_CHECK_LOGGING, SESSION_TIMEOUT_MS, end_offsets, metadata,
                                              read_all, start_cluster, wait_for_isr_checks, wait_until)

pytestmark = pytest.mark.timeout(300)

PARTITIONS = 3


@pytest.fixture
def cluster(zookeeper, broker_factory):
    return start_cluster(zookeeper, broker_factory, env=ISR_CHECK_LOGGING)


def create_topic(cluster, topic: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=[b.bootstrap for b in cluster], request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic(topic, PARTITIONS, 3, topic_configs={"min.insync.replicas": "2"})])
    finally:
        admin.close()
    wait_until(lambda: all(len(partitions(metadata(b), topic)) == PARTITIONS
                           and all(p.leader_id >= 0 for p in partitions(metadata(b), topic)) for b in cluster),
               30, f"every broker knows the leaders of {topic}")


def partitions(md, topic: str) -> list:
    return [p for t in md.topics if t.name == topic for p in t.partitions]


def isrs(broker, topic: str) -> dict[int, list[int]]:
    return {p.partition_index: sorted(p.isr_nodes) for p in partitions(metadata(broker), topic)}


def isr_full(broker, topic: str) -> bool:
    got = isrs(broker, topic)
    return len(got) == PARTITIONS and all(isr == [0, 1, 2] for isr in got.values())


def test_acks_all_from_both_clients_reaches_every_replica(cluster):
    topic = "replicated"
    create_topic(cluster, topic)
    bootstrap = [b.bootstrap for b in cluster]
    p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    futures = [p.send(topic, value=f"kp-{i}".encode(), partition=i % PARTITIONS) for i in range(300)]
    p.flush(60)
    acked = [f.get(timeout=30) for f in futures]
    p.close()
    assert len(acked) == 300

    delivered: list = []
    cp = ConfluentProducer({"bootstrap.servers": ",".join(bootstrap), "acks": "all", "linger.ms": 5})
    for i in range(300):
        cp.produce(topic, value=f"ck-{i}".encode(), partition=i % PARTITIONS,
                   on_delivery=lambda err, msg: delivered.append(err))
        cp.poll(0)
    assert cp.flush(60) == 0
    assert delivered == [None] * 300

    # With the ISR full the high watermark is the lowest log end over all three replicas, so a
    # high watermark at the leader's log end means every follower has every record.
    wait_until(lambda: end_offsets(bootstrap, topic) == {p: 200 for p in range(PARTITIONS)}, 30,
               "every partition's high watermark at the leader's log end")
    for b in cluster:
        wait_until(lambda b=b: isr_full(b, topic), 10, f"broker {b.bootstrap} sees the full ISR")
    # idle now: every leader's next ISR expiration check looks at its followers and drops none
    checks = wait_for_isr_checks(cluster)
    assert checks and all(led > 0 and shrinking == 0 for led, shrinking in checks), checks
    for b in cluster:
        assert isr_full(b, topic), isrs(b, topic)
    # Followers append the leader's batches unchanged: every replica's segment is the same bytes.
    for part in range(PARTITIONS):
        segments = {(b.log_dir / f"{topic}-{part}" / ("0" * 20 + ".log")).read_bytes() for b in cluster}
        assert len(segments) == 1 and len(segments.pop()) > 0, f"partition {part}: replicas differ"
    got = read_all(bootstrap, topic, 600)
    for part, recs in got.items():
        assert [o for o, _ in recs] == list(range(200)), part
        values = [v for _, v in recs]
        assert values[:100] == [f"kp-{i}".encode() for i in range(part, 300, PARTITIONS)]
        assert values[100:] == [f"ck-{i}".encode() for i in range(part, 300, PARTITIONS)]


def test_killed_leader_loses_no_acknowledged_record_and_rejoins(cluster):
    topic = "failover-acks-all"
    create_topic(cluster, topic)
    bootstrap = [b.bootstrap for b in cluster]
    wait_until(lambda: isr_full(cluster[0], topic), 20, "full ISR")
    victim_id = {p.partition_index: p.leader_id for p in partitions(metadata(cluster[0]), topic)}[0]
    victim = cluster[victim_id]

    acked: dict[int, dict[int, bytes]] = {p: {} for p in range(PARTITIONS)}
    errors: list[BaseException] = []
    stop = threading.Event()

    def produce() -> None:
        p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=2147483647, linger_ms=2,
                          request_timeout_ms=10000, delivery_timeout_ms=120000, max_in_flight_requests_per_connection=1)
        i = 0
        pending = []
        while not stop.is_set():
            value = f"r-{i}".encode()
            pending.append((value, p.send(topic, value=value, partition=i % PARTITIONS)))
            i += 1
            if len(pending) >= 50:
                for v, f in pending:
                    try:
                        md = f.get(timeout=120)
                        acked[md.partition][md.offset] = v
                    except Exception as e:  # noqa: BLE001 - not acknowledged: may or may not be there
                        errors.append(e)
                pending = []
        for v, f in pending:
            try:
                md = f.get(timeout=120)
                acked[md.partition][md.offset] = v
            except Exception as e:  # noqa: BLE001
                errors.append(e)
        p.close()

    t = threading.Thread(target=produce, daemon=True)
    t.start()
    try:
        wait_until(lambda: sum(map(len, acked.values())) >= 300, 60, "acknowledged records before the kill")
        victim.kill()
        survivor = next(b for b in cluster if b is not victim)
        wait_until(lambda: (lambda ps: all(p.leader_id not in (-1, victim_id) for p in ps) and ps)(
            partitions(metadata(survivor), topic)), SESSION_TIMEOUT_MS / 1000 + 15,
            "new leaders from the ISR")
        before = sum(map(len, acked.values()))
        wait_until(lambda: sum(map(len, acked.values())) >= before + 300, 60, "acknowledged records after the kill")
    finally:
        stop.set()
        t.join(150)
    assert not t.is_alive()

    victim.restart()
    wait_until(lambda: isr_full(cluster[(victim_id + 1) % 3], topic), 60, "the restarted broker back in every ISR")
    total = sum(map(len, acked.values()))
    ends = end_offsets(bootstrap, topic)
    got = read_all(bootstrap, topic, sum(ends.values()))
    for part in range(PARTITIONS):
        offsets = [o for o, _ in got[part]]
        assert offsets == list(range(ends[part])), f"partition {part}: offsets not read once each, in order"
        by_offset = dict(got[part])
        for off, value in acked[part].items():
            assert by_offset.get(off) == value, f"acknowledged record {value!r} at {part}/{off} lost"
    assert total >= 600
