"""Transactions on a compacted topic, through the log cleaner, on Apache Kafka 4.4 and kafpy
alike: confluent-kafka's transactional producer commits a value for a key, then a later
transaction writes the same key and aborts. Once the cleaner has been over the segments (each
transaction rolled into a segment of its own by ``segment.ms``), the aborted records are gone
for read_uncommitted readers too, and a read_committed reader still finds the key's committed
value (a cleaner that mapped the aborted value as the key's latest would have compacted the
committed one away)."""
from __future__ import annotations

import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from .helpers import read_records

ROLL_MS = 200


def create_compacted(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, 1, 1, config={
        "cleanup.policy": "compact", "segment.ms": str(ROLL_MS), "min.cleanable.dirty.ratio": "0.01",
        "delete.retention.ms": "100", "min.compaction.lag.ms": "0"})])
    futures[topic].result(60)


def transaction(producer: Producer, topic: str, records: list[tuple[bytes, bytes]], commit: bool) -> None:
    time.sleep(ROLL_MS / 1000 + 0.05)   # the next append rolls a new segment
    producer.begin_transaction()
    for key, value in records:
        producer.produce(topic, key=key, value=value)
    if commit:
        producer.commit_transaction(30)
    else:
        producer.flush(30)
        producer.abort_transaction(30)


def test_the_cleaner_drops_aborted_records_and_keeps_the_committed_value(txn_broker):
    topic = "compacted-txns"
    create_compacted(txn_broker.bootstrap, topic)
    p = Producer({"bootstrap.servers": txn_broker.bootstrap, "transactional.id": "compacted-txns",
                  "linger.ms": 0})
    p.init_transactions(60)
    transaction(p, topic, [(b"k", b"committed"), (b"j", b"j1")], commit=True)
    transaction(p, topic, [(b"k", b"aborted"), (b"only-aborted", b"x")], commit=False)
    transaction(p, topic, [(b"j", b"j2")], commit=True)
    committed_before = {k: v for _, k, v in read_records(txn_broker.bootstrap, topic)}
    assert committed_before == {b"k": b"committed", b"j": b"j2"}

    # the cleaner runs every log.cleaner.backoff.ms on logs past their dirty ratio; a
    # transaction now and then rolls the segment holding the last one, so it becomes cleanable
    deadline = time.monotonic() + 120
    filler = 0
    while True:
        uncommitted = [(k, v) for _, k, v in read_records(txn_broker.bootstrap, topic, "read_uncommitted")]
        if b"aborted" not in [v for _, v in uncommitted] and [v for k, v in uncommitted if k == b"j"] == [b"j2"]:
            break
        assert time.monotonic() < deadline, f"not cleaned in 120 s: {uncommitted}"
        transaction(p, topic, [(b"filler", b"%d" % filler)], commit=True)
        filler += 1
    p.flush(30)
    del p   # librdkafka's producer ends with its last reference, before the broker stops
    committed = {k: v for _, k, v in read_records(txn_broker.bootstrap, topic)}
    assert {k: committed[k] for k in (b"k", b"j")} == {b"k": b"committed", b"j": b"j2"}
    assert b"only-aborted" not in committed
    assert b"x" not in [v for _, _, v in read_records(txn_broker.bootstrap, topic, "read_uncommitted")]
