"""Transactions in a mixed cluster (kafpy brokers 0 and 1, Apache Kafka 3.9.1 broker 2, one
kafpy controller; see test_mixed.py): a transactional producer whose coordinator is the
Apache broker writes to partitions led by both kinds, and so does one whose coordinator is a
kafpy broker. Markers cross both ways (WriteTxnMarkers), and so does each leader's
produce-time verification (AddPartitionsToTxn verifyOnly); read_committed consumers see
exactly the committed records. The kafpy brokers do not offer transaction version 2 next to
an Apache 3.9 broker that cannot serve it (kafpy's default is capped by the brokers'
registered features), so a Java 4.x client would stay on version 1 everywhere."""
from __future__ import annotations

import time
from typing import cast

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as ConfluentTopicPartition

from kafpy.coordinator.group.partitioner import partition_for
from kafpy.protocol.messages import ApiVersionsRequest
from kafpy.protocol.topics import TRANSACTION_STATE_TOPIC_NAME
from tests.integration.broker.raw import RawConnection
from tests.integration.cluster.harness import leaders, metadata, wait_until
from tests.integration.cluster.test_mixed import (APACHE_ID, PARTITIONS, SETTINGS, apache_errors,  # noqa: F401
                                                  apache_factory, cluster, create_topic, isr_full_everywhere)
from tests.integration.cluster.txn_raw import find_txn_coordinator

pytestmark = pytest.mark.timeout(300)
TOPIC = "mixed-txn"


def coordinated_by(state_leaders: dict[int, int], kafpy: bool) -> str:
    """A transactional id whose __transaction_state partition a broker of that kind leads."""
    n = len(state_leaders)
    for i in range(1000):
        tid = f"tx-{i}"
        if (state_leaders[partition_for(tid, n)] != APACHE_ID) == kafpy:
            return tid
    raise AssertionError(f"no id coordinated by a {'kafpy' if kafpy else 'Apache'} broker: {state_leaders}")


def read_committed(bootstrap: str, expected: int) -> dict[int, list[bytes]]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "mixed-txn-reader", "enable.auto.commit": False,
                  "isolation.level": "read_committed"})
    try:
        c.assign([ConfluentTopicPartition(TOPIC, p, 0) for p in range(PARTITIONS)])
        out: dict[int, list[bytes]] = {p: [] for p in range(PARTITIONS)}
        deadline = time.monotonic() + 30
        polls_after = 0
        while time.monotonic() < deadline and polls_after < 3:
            m = c.poll(1.0)
            if m is None:
                polls_after += sum(map(len, out.values())) >= expected
                continue
            if m.error() is None:
                # a record (not an event): it has a partition; the test writes no null values
                out[cast(int, m.partition())].append(cast(bytes, m.value()))
        return out
    finally:
        c.close()


def test_transactions_cross_both_kinds(cluster):
    bootstrap = ",".join(cluster.bootstrap)
    with RawConnection(cluster.kafpy[0].host, cluster.kafpy[0].port) as c:
        wait_until(lambda: find_txn_coordinator(c, "tx-probe")[0] == 0, 60, "__transaction_state created")
        versions = c.request(18, 3, ApiVersionsRequest(client_software_name="t", client_software_version="1"))
        assert "transaction.version" not in {f.name for f in versions.finalized_features}
    state = leaders(metadata(cluster.kafpy[0], [TRANSACTION_STATE_TOPIC_NAME]), TRANSACTION_STATE_TOPIC_NAME)
    create_topic(cluster, TOPIC)
    wait_until(lambda: isr_full_everywhere(cluster, TOPIC), 60, "full ISR on every broker")
    assert set(leaders(metadata(cluster.apache, [TOPIC]), TOPIC).values()) == {0, 1, APACHE_ID}

    expected: dict[int, list[bytes]] = {p: [] for p in range(PARTITIONS)}
    for kafpy_coordinator in (False, True):
        tid = coordinated_by(state, kafpy_coordinator)
        p = Producer({"bootstrap.servers": bootstrap, "transactional.id": tid})
        p.init_transactions(60)
        for commit in (True, False, True):
            p.begin_transaction()
            for part in range(PARTITIONS):
                value = f"{tid}-{commit}-{part}".encode()
                p.produce(TOPIC, value, partition=part)
                if commit:
                    expected[part].append(value)
            if commit:
                p.commit_transaction(60)
            else:
                p.flush(30)
                p.abort_transaction(60)
    assert read_committed(bootstrap, sum(map(len, expected.values()))) == expected
    assert apache_errors(cluster) == []
