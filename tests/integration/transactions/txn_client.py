"""confluent-kafka transactional clients the tests run as processes (so they can be killed
with SIGKILL at any point):

    python -m tests.integration.transactions.txn_client copy BOOTSTRAP SOURCE SINK TXN_ID
        consume-transform-produce: reads every partition of SOURCE from the group's committed
        offsets up to the end offsets seen at start, writes "out-<value>" to the same partition
        of SINK, and commits the consumed offsets with send_offsets_to_transaction, 20 records
        a transaction. Prints "committed <n>" after each transaction and "done" at the end.
    python -m tests.integration.transactions.txn_client hang BOOTSTRAP TOPIC TXN_ID PREFIX N
        begins a transaction, writes N records "<PREFIX>-<i>" over TOPIC's partitions, flushes,
        prints "open" and waits (a producer that dies in the middle of its transaction).
    python -m tests.integration.transactions.txn_client stress BOOTSTRAP SOURCE PARTITION SINK
            GROUP TXN_ID SEED ABANDON_AT
        the stress worker of TxnStress.java, with librdkafka: copies one partition in short
        transactions (1-5 records), aborting one in five and redoing it, beginning and at
        once aborting a throw-away transaction after one commit in three, and abandoning
        transaction ABANDON_AT (1-based, 0: none) mid-way (exit code 3, nothing ended).
"""
from __future__ import annotations

import os
import random
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

BATCH = 20


def copy(bootstrap: str, source: str, sink: str, txn_id: str) -> None:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{txn_id}-group",
                         "enable.auto.commit": False, "isolation.level": "read_committed"})
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id,
                         "transaction.timeout.ms": 10000, "linger.ms": 5})
    producer.init_transactions(60)  # fences an earlier incarnation and aborts its transaction
    parts = sorted(consumer.list_topics(source, timeout=30).topics[source].partitions)
    committed = consumer.committed([TopicPartition(source, p) for p in parts], timeout=60)
    positions = {tp.partition: max(tp.offset, 0) for tp in committed}
    ends = {p: consumer.get_watermark_offsets(TopicPartition(source, p), timeout=30)[1]
            for p in parts}
    consumer.assign([TopicPartition(source, p, positions[p]) for p in parts])
    done = 0
    while any(positions[p] < ends[p] for p in parts):
        records = [m for m in consumer.consume(BATCH, timeout=1.0) if not m.error()]
        if not records:
            continue
        producer.begin_transaction()
        for m in records:
            partition, offset, value = m.partition(), m.offset(), m.value()
            assert partition is not None and offset is not None and value is not None
            producer.produce(sink, key=m.key(), value=b"out-" + value, partition=partition)
            positions[partition] = offset + 1
        producer.send_offsets_to_transaction(
            [TopicPartition(source, p, o) for p, o in positions.items()],
            consumer.consumer_group_metadata(), 60)
        producer.commit_transaction(60)
        done += len(records)
        print(f"committed {done}", flush=True)
    consumer.close()
    print("done", flush=True)


def hang(bootstrap: str, topic: str, txn_id: str, prefix: str, n: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id,
                         "transaction.timeout.ms": 3000})
    producer.init_transactions(60)
    producer.begin_transaction()
    parts = len(producer.list_topics(topic, timeout=30).topics[topic].partitions)
    for i in range(n):
        producer.produce(topic, value=f"{prefix}-{i}".encode(), partition=i % parts)
    assert producer.flush(60) == 0
    print("open", flush=True)
    time.sleep(3600)  # killed by the test


def stress(bootstrap: str, source: str, partition: int, sink: str, group: str, txn_id: str,
           seed: int, abandon_at: int) -> None:
    rnd = random.Random(seed)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "enable.auto.commit": False, "isolation.level": "read_committed"})
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id,
                         "transaction.timeout.ms": 10000, "linger.ms": 0})
    producer.init_transactions(60)  # fences an abandoned incarnation, aborts its transaction
    tp = TopicPartition(source, partition)
    committed = consumer.committed([tp], timeout=60)[0].offset
    position = max(committed, 0)
    end = consumer.get_watermark_offsets(tp, timeout=30)[1]
    consumer.assign([TopicPartition(source, partition, position)])
    transactions = commits = 0
    while position < end:
        records = [m for m in consumer.consume(rnd.randint(1, 5), timeout=1.0) if not m.error()]
        if not records:
            continue
        transactions += 1
        producer.begin_transaction()
        for m in records:
            value = m.value()
            assert value is not None
            producer.produce(sink, key=m.key(), value=b"out-" + value, partition=partition)
        last = records[-1].offset()
        assert last is not None
        following = last + 1
        if transactions == abandon_at:
            producer.flush(60)
            print(f"abandoned {transactions}", flush=True)
            os._exit(3)
        if rnd.randrange(5) == 0:
            producer.flush(60)  # see below
            producer.abort_transaction(60)
            consumer.seek(TopicPartition(source, partition, position))  # redo these records
            continue
        producer.send_offsets_to_transaction([TopicPartition(source, partition, following)],
                                             consumer.consumer_group_metadata(), 60)
        producer.commit_transaction(60)
        commits += 1
        position = following
        if rnd.randrange(3) == 0:
            producer.begin_transaction()
            producer.produce(sink, value=f"junk-{txn_id}".encode(), partition=partition)
            # librdkafka sends EndTxn right behind an AddPartitionsToTxn that may be told
            # CONCURRENT_TRANSACTIONS (the commit's markers still out); the retried abort then
            # finds CompleteCommit and is answered INVALID_TXN_STATE, fatal to the producer.
            # Apache Kafka 4.4 answers it so too (1 of 3 runs of 300 commit-then-abort rounds),
            # so the records are flushed (partition added) before the abort.
            producer.flush(60)
            producer.abort_transaction(60)
    consumer.close()
    print(f"done {commits}", flush=True)


if __name__ == "__main__":
    mode, *rest = sys.argv[1:]
    if mode == "copy":
        copy(*rest)
    elif mode == "stress":
        stress(rest[0], rest[1], int(rest[2]), rest[3], rest[4], rest[5], int(rest[6]),
               int(rest[7]))
    else:
        hang(rest[0], rest[1], rest[2], rest[3], int(rest[4]))
