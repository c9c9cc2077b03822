"""The transaction coordinator against real clients: confluent-kafka and kafka-python
transactional producers commit, abort and fence a zombie; Apache Kafka's
kafka-transactions and kafka-dump-log --transaction-log-decoder read its state."""
from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka import KafkaException, Producer
from kafka import KafkaProducer

from coordinator.partitioner import partition_for
from tests.integration.coordinator.helpers import create_topic
from tests.support.kafka_dist import DEFAULT_KAFKA_4, run_tool
from tests.support.kafpy_broker import KafpyBroker


@pytest.fixture(scope="module")
def txn_broker(tmp_path_factory):
    work = tmp_path_factory.mktemp("kafpy-txn")
    b = KafpyBroker(work_dir=work, log_dir=work / "logs", start_timeout=150,
                    overrides={"transaction.state.log.num.partitions": 5})
    b.start()
    try:
        yield b
    finally:
        b.stop()


def _producer(bootstrap: str, tid: str) -> Producer:
    return Producer({"bootstrap.servers": bootstrap, "transactional.id": tid,
                     "transaction.timeout.ms": 60_000})


def test_commit_abort_and_a_fenced_zombie(txn_broker):
    bootstrap = txn_broker.bootstrap
    create_topic(bootstrap, "txn-orders", 2)
    first = _producer(bootstrap, "tx-a")
    first.init_transactions(60)
    first.begin_transaction()
    first.produce("txn-orders", b"committed", partition=0)
    first.produce("txn-orders", b"committed", partition=1)
    first.commit_transaction(60)
    first.begin_transaction()
    first.produce("txn-orders", b"aborted", partition=0)
    first.flush(30)  # the partition joins the transaction before the abort
    first.abort_transaction(60)

    second = _producer(bootstrap, "tx-a")  # a new instance fences the first
    second.init_transactions(60)
    first.begin_transaction()
    first.produce("txn-orders", b"zombie", partition=0)
    with pytest.raises(KafkaException) as fenced:
        first.commit_transaction(30)
    assert fenced.value.args[0].fatal(), fenced.value
    second.begin_transaction()
    second.produce("txn-orders", b"second", partition=1)
    second.commit_transaction(60)

    described = run_tool(DEFAULT_KAFKA_4, "kafka-transactions",
                         ["--bootstrap-server", bootstrap, "describe", "--transactional-id", "tx-a"]).stdout
    row = dict(zip(*[line.split("\t") for line in described.strip().splitlines()[:2]]))
    assert row["TransactionalId"].strip() == "tx-a" and row["TransactionState"].strip() == "CompleteCommit"
    assert int(row["ProducerEpoch"]) >= 1
    listed = run_tool(DEFAULT_KAFKA_4, "kafka-transactions", ["--bootstrap-server", bootstrap, "list"]).stdout
    assert "tx-a" in listed

    # the state log is in Kafka's format
    segment = Path(txn_broker.log_dir) / f"__transaction_state-{partition_for('tx-a', 5)}" / "00000000000000000000.log"
    dumped = run_tool(DEFAULT_KAFKA_4, "kafka-dump-log",
                      ["--files", str(segment), "--transaction-log-decoder", "--print-data-log"]).stdout
    for state in ("Empty", "Ongoing", "PrepareCommit", "CompleteCommit", "PrepareAbort", "CompleteAbort"):
        assert f'"transactionStatus":"{state}"' in dumped, dumped[-3000:]


def test_kafka_python_transactional_producer(txn_broker):
    bootstrap = txn_broker.bootstrap
    create_topic(bootstrap, "txn-kp", 1)
    p = KafkaProducer(bootstrap_servers=bootstrap, transactional_id="tx-kafka-python")
    try:
        p.init_transactions()
        p.begin_transaction()
        p.send("txn-kp", b"one")
        p.commit_transaction()
        p.begin_transaction()
        p.send("txn-kp", b"two")
        p.abort_transaction()
    finally:
        p.close(timeout=10)
