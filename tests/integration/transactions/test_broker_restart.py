"""The broker restarted (SIGTERM) in the middle of transactions: a transaction
committed before stays visible, one whose producer commits after the restart is visible
whole or not at all, and one whose producer died (transaction.timeout.ms 3 s) is aborted by
the coordinator after its timeout, so read_committed readers get past it and never see it.

A clean restart, not SIGKILL: a single combined KRaft node of Apache Kafka killed that way
stays fenced until its old session times out, and its coordinator may try the timed-out
transaction's markers meanwhile, find no leader, drop them and leave the transaction hanging
(the reference would then fail this test for a reason unrelated to transactions)."""
from __future__ import annotations

import time

from confluent_kafka import KafkaException, Producer

from tests.integration.coordinator.helpers import create_topic
from tests.support import process

from .helpers import read_confluent, read_kafka_python, start_python_client

TOPIC = "restart-topic"


def _producer(bootstrap: str, txn_id: str) -> Producer:
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id,
                  "transaction.timeout.ms": 60000, "reconnect.backoff.max.ms": 500})
    p.init_transactions(60)
    return p


def _send(p: Producer, prefix: str) -> set[str]:
    values = {f"{prefix}-{i}" for i in range(9)}
    for i, v in enumerate(sorted(values)):
        p.produce(TOPIC, value=v.encode(), partition=i % 3)
    assert p.flush(30) == 0
    return values


def test_transactions_across_a_broker_restart(txn_broker, tmp_path):
    bootstrap = txn_broker.bootstrap
    create_topic(bootstrap, TOPIC, 3)
    a = _producer(bootstrap, "restart-a")
    a.begin_transaction()
    committed = _send(a, "ra")
    a.commit_transaction(30)
    a.close()

    with open(tmp_path / "hang.err", "w") as err:
        dead = start_python_client(err, "hang", bootstrap, TOPIC, "restart-b", "rb", "9")
    try:
        assert process.LineReader(dead.stdout).lines(1, timeout=60) == ["open"]
    finally:
        process.kill(dead)  # its transaction stays open: only its timeout can end it

    c = _producer(bootstrap, "restart-c")
    c.begin_transaction()
    pending = _send(c, "rc")

    txn_broker.stop()
    txn_broker.start()

    try:
        c.commit_transaction(60)
        committed |= pending
        c.close()
    except KafkaException as e:  # refused: then none of it may become visible
        assert e.args[0].txn_requires_abort() or e.args[0].fatal(), e
    d = _producer(bootstrap, "restart-d")
    d.begin_transaction()
    committed |= _send(d, "rd")
    d.commit_transaction(60)
    d.close()

    deadline = time.monotonic() + 60  # the dead producer's transaction times out (3 s)
    while True:
        seen = {v for _, v in read_confluent(bootstrap, TOPIC)}
        if any(v.startswith("rd-") for v in seen) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert seen == committed
    assert {v for _, v in read_kafka_python(bootstrap, TOPIC)} == committed
    everything = {v for _, v in read_confluent(bootstrap, TOPIC, "read_uncommitted")}
    assert everything - committed == {f"rb-{i}" for i in range(9)} | (pending - committed)
