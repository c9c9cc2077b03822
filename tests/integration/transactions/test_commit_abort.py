"""Java's transactional producer (Kafka 3.9 and 4.x clients) commits and aborts transactions
spanning three partitions; read_committed readers (Java's console consumer, confluent-kafka,
kafka-python) see exactly the committed records, read_uncommitted readers see them all.
Then the zombie: of two producers sharing a transactional id, the older is fenced and
nothing it sent becomes visible."""
from __future__ import annotations

from collections import Counter

import pytest
from confluent_kafka import KafkaException, Producer

from tests.integration.coordinator.helpers import create_topic

from .helpers import read_confluent, read_java, read_kafka_python, run_java_program

PARTITIONS = 3
TRANSACTIONS = 7  # 0, 2, 4, 6 committed; 1, 3, 5 aborted


@pytest.mark.parametrize("client", ["3.9", "4"], ids=lambda v: f"java{v}")
def test_java_commits_and_aborts_across_partitions(txn_broker, client):
    prefix = f"ca{client.replace('.', '')}"
    topic = f"{prefix}-topic"
    create_topic(txn_broker.bootstrap, topic, PARTITIONS)
    out = run_java_program(client, "TxnProducer", [
        txn_broker.bootstrap, "commit-abort", topic, str(PARTITIONS), str(TRANSACTIONS), prefix])
    assert out == [f"{'aborted' if t % 2 else 'committed'} {t}" for t in range(TRANSACTIONS)]

    def records(ts) -> Counter:
        return Counter((p, f"{prefix}-t{t}-p{p}") for t in ts for p in range(PARTITIONS))
    committed = records(range(0, TRANSACTIONS, 2))
    everything = records(range(TRANSACTIONS))

    assert Counter(read_confluent(txn_broker.bootstrap, topic)) == committed
    assert Counter(read_kafka_python(txn_broker.bootstrap, topic, "read_committed")) == committed
    # the last transaction was committed, so an aborted record read would be among the first
    assert Counter(read_java(client, txn_broker.bootstrap, topic, len(committed), prefix)) == \
        Counter(v for _, v in committed)
    assert Counter(read_confluent(txn_broker.bootstrap, topic, "read_uncommitted")) == everything
    assert Counter(read_kafka_python(txn_broker.bootstrap, topic, "read_uncommitted")) == everything


def test_java_zombie_is_fenced(txn_broker):
    topic = "zombie-java"
    create_topic(txn_broker.bootstrap, topic, 1)
    out = run_java_program("4", "TxnProducer", [txn_broker.bootstrap, "zombie", topic, "zj"])
    assert out[0] in ("fenced ProducerFencedException", "fenced InvalidProducerEpochException"), out
    assert out[1:] == ["committed new"]
    assert read_confluent(txn_broker.bootstrap, topic) == [(0, "zj-new")]
    assert sorted(v for _, v in read_confluent(txn_broker.bootstrap, topic, "read_uncommitted")) \
        == ["zj-new", "zj-old-before"]  # the fenced one's open transaction was aborted


def test_confluent_zombie_is_fenced(txn_broker):
    topic = "zombie-confluent"
    create_topic(txn_broker.bootstrap, topic, 2)

    def producer() -> Producer:
        return Producer({"bootstrap.servers": txn_broker.bootstrap, "transactional.id": "zc",
                         "transaction.timeout.ms": 10000})
    old = producer()
    old.init_transactions(60)
    old.begin_transaction()
    old.produce(topic, value=b"zc-old-before", partition=0)
    assert old.flush(30) == 0
    new = producer()
    new.init_transactions(60)  # fences `old`, aborting its transaction
    with pytest.raises(KafkaException) as fenced:
        old.produce(topic, value=b"zc-old-after", partition=1)
        old.flush(30)
        old.commit_transaction(30)
    assert fenced.value.args[0].fatal(), fenced.value
    new.begin_transaction()
    new.produce(topic, value=b"zc-new", partition=1)
    new.commit_transaction(30)
    old.close()
    new.close()
    assert read_confluent(txn_broker.bootstrap, topic) == [(1, "zc-new")]
    assert "zc-old-after" not in {v for _, v in read_confluent(
        txn_broker.bootstrap, topic, "read_uncommitted")}


def test_java_pipelined_produce_requests_start_each_transaction(txn_broker):
    """Transaction version 2 under a Kafka Streams-like load: one record a batch, so
    several Produce v12 requests of the producer are in flight at once and each asks
    the broker to add the same partitions to the transaction just begun (one of them
    while another's add is being written, which is retried). Every transaction commits."""
    prefix, transactions, records = "burst", 8, 5
    topic = f"{prefix}-topic"
    create_topic(txn_broker.bootstrap, topic, PARTITIONS)
    out = run_java_program("4", "TxnProducer", [
        txn_broker.bootstrap, "burst", topic, str(PARTITIONS), str(transactions), str(records),
        prefix, f"{prefix}-group"])
    assert out == [f"committed {t}" for t in range(transactions)]
    assert Counter(read_confluent(txn_broker.bootstrap, topic)) == Counter(
        (p, f"{prefix}-t{t}-p{p}-r{r}") for t in range(transactions) for p in range(PARTITIONS)
        for r in range(records))
