"""The transaction coordinator against real clients: confluent-kafka and kafka-python
transactional producers commit, abort and fence a zombie; Apache Kafka's
kafka-transactions and kafka-dump-log --transaction-log-decoder read its state."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from confluent_kafka import KafkaException, Producer
from kafka import KafkaProducer

from kafpy.coordinator.group.partitioner import partition_for
from kafpy.protocol.errors import ErrorCode as E
from tests.integration.broker.raw import RawConnection
from tests.integration.cluster.harness import wait_until
from tests.integration.cluster.txn_raw import RawTxnProducer, describe_txn, find_txn_coordinator, latest_offset
from tests.integration.coordinator.helpers import create_topic
from tests.integration.transactions.helpers import read_confluent, read_kafka_python
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

    # the commit returned once PrepareCommit was written; CompleteCommit follows the markers,
    # which a loaded machine may still be writing when the tool asks (as on Apache Kafka)
    deadline = time.monotonic() + 60
    while True:
        described = run_tool(DEFAULT_KAFKA_4, "kafka-transactions",
                             ["--bootstrap-server", bootstrap, "describe", "--transactional-id", "tx-a"]).stdout
        row = dict(zip(*[line.split("\t") for line in described.strip().splitlines()[:2]]))
        if row["TransactionState"].strip() != "PrepareCommit" or time.monotonic() > deadline:
            break
        time.sleep(0.5)
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
        p.flush()  # in the log before the abort (kafka-python drops an unsent batch on abort)
        p.abort_transaction()
    finally:
        p.close(timeout=10)
    # offsets 0 one, 1 commit marker, 2 two, 3 abort marker: the aborted record is in the
    # log, read_uncommitted returns it, read_committed skips it (the abort marker ends it)
    assert read_confluent(bootstrap, "txn-kp", "read_uncommitted") == [(0, "one"), (0, "two")]
    assert read_confluent(bootstrap, "txn-kp", "read_committed") == [(0, "one")]
    assert read_kafka_python(bootstrap, "txn-kp", "read_committed") == [(0, "one")]
    with RawConnection(txn_broker.host, txn_broker.port) as c:
        assert latest_offset(c, "txn-kp", 0, read_committed=False) == 4
        assert latest_offset(c, "txn-kp", 0, read_committed=True) == 4


def test_produce_verifies_the_partition_is_in_the_transaction(txn_broker):
    """KIP-890 part 1: a transactional batch for a partition never added to the transaction
    is refused (INVALID_TXN_STATE), before and after the partition's transaction, at old and
    new Produce versions; once added, every batch appends."""
    create_topic(txn_broker.bootstrap, "txn-verify", 2)
    with RawConnection(txn_broker.host, txn_broker.port) as c:
        wait_until(lambda: find_txn_coordinator(c, "tx-verify")[0] == 0, 30, "the coordinator")
        p = RawTxnProducer(c, "tx-verify")
        wait_until(lambda: p.init() == 0, 30, "InitProducerId")
        assert p.produce(c, "txn-verify", 0, [b"stray"]) == E.INVALID_TXN_STATE
        assert p.add_partitions("txn-verify", [0]) == {0: 0}
        assert p.produce(c, "txn-verify", 0, [b"a"]) == 0
        assert p.produce(c, "txn-verify", 0, [b"b"], version=3) == 0  # the transaction is open here
        assert p.produce(c, "txn-verify", 1, [b"stray"], version=3) == E.INVALID_TXN_STATE
        assert p.end(commit=True) == 0
        wait_until(lambda: describe_txn(c, "tx-verify").transaction_state == "CompleteCommit", 30, "committed")
        assert p.produce(c, "txn-verify", 0, [b"late"]) == E.INVALID_TXN_STATE  # its marker ended it
        assert latest_offset(c, "txn-verify", 0, False) == 3 and latest_offset(c, "txn-verify", 1, False) == 0
