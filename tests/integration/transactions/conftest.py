"""One broker of each kind for the whole transactions suite: a reference Apache Kafka 4.x
and kafpy, with the same settings (one node, so the transaction state log has one replica;
timed-out transactions looked for every second so hanging ones end quickly).

Shared by every test of the directory: tests use their own topic names and transactional
ids. A test may restart it (it comes back on the same port and log dir).
"""
from __future__ import annotations

from typing import Iterator

import pytest

from tests.support.kafka_dist import ReferenceKafka
from tests.support.kafpy_broker import KafpyBroker

BROKER_SETTINGS: dict[str, object] = {
    "offsets.topic.replication.factor": 1,
    "offsets.topic.num.partitions": 5,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "transaction.state.log.num.partitions": 5,
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 1000,
    "group.initial.rebalance.delay.ms": 0,
    "auto.create.topics.enable": "false",
    "log.cleaner.backoff.ms": 500,   # test_compacted_transactions waits for the cleaner
}

Broker = ReferenceKafka | KafpyBroker


@pytest.fixture(scope="package", params=["apache", "kafpy"])
def txn_broker(request: pytest.FixtureRequest,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """The broker under test (`.bootstrap`, `.kill()`, `.start()`)."""
    base = tmp_path_factory.mktemp(f"txn-{request.param}")
    broker: Broker
    if request.param == "apache":
        broker = ReferenceKafka("4", work_dir=base, overrides=BROKER_SETTINGS)
    else:
        broker = KafpyBroker(work_dir=base, overrides=BROKER_SETTINGS)
    try:
        broker.start()
        yield broker
    finally:
        broker.stop()
