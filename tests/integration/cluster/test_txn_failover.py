"""The transaction coordinator fails over: the broker leading `__transaction_state-0` is
killed (SIGKILL) with one transaction Ongoing and another in PrepareCommit whose markers are
not all written (the leader of one of its partitions is frozen). The next leader loads the
partition, writes the commit markers again and completes the commit, and aborts the Ongoing
transaction once it times out; read_committed readers then see exactly the committed
records, and the last stable offset reaches the end of every partition."""
from __future__ import annotations

import os
import signal
import time

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.admin import NewTopic

from kafpy.protocol.topics import TRANSACTION_STATE_TOPIC_NAME
from tests.integration.broker.raw import RawConnection
from tests.integration.cluster.harness import metadata, start_cluster, wait_until
from tests.integration.cluster.txn_raw import RawTxnProducer, describe_txn, find_txn_coordinator, latest_offset

TOPIC = "txn-failover"


def read_values(bootstrap: list[str], isolation: str, expected: int) -> dict[int, list[bytes]]:
    c = KafkaConsumer(bootstrap_servers=bootstrap, isolation_level=isolation, auto_offset_reset="earliest",
                      enable_auto_commit=False, request_timeout_ms=20000)
    try:
        tps = [TopicPartition(TOPIC, p) for p in range(2)]
        c.assign(tps)
        out: dict[int, list[bytes]] = {0: [], 1: []}
        deadline = time.monotonic() + 30
        while sum(map(len, out.values())) < expected and time.monotonic() < deadline:
            for tp, recs in c.poll(timeout_ms=500).items():
                out[tp.partition] += [r.value for r in recs]
        for tp, recs in c.poll(timeout_ms=500).items():  # nothing more may show up
            out[tp.partition] += [r.value for r in recs]
        return out
    finally:
        c.close()


@pytest.mark.timeout(120)
def test_coordinator_failover_completes_and_aborts(zookeeper, broker_factory):
    brokers = start_cluster(zookeeper, broker_factory, **{
        "transaction.state.log.num.partitions": 1, "transaction.state.log.replication.factor": 2,
        "transaction.state.log.min.isr": 1,
        "transaction.abort.timed.out.transaction.cleanup.interval.ms": 500})
    by_id = {i: b for i, b in enumerate(brokers)}
    with RawConnection(brokers[0].host, brokers[0].port) as c:
        wait_until(lambda: find_txn_coordinator(c, "t-commit")[0] == 0, 60, "__transaction_state created")
    (state,) = metadata(brokers[0], [TRANSACTION_STATE_TOPIC_NAME]).topics
    coord_id = state.partitions[0].leader_id
    (standby_id,) = set(state.partitions[0].replica_nodes) - {coord_id}
    (frozen_id,) = {0, 1, 2} - {coord_id, standby_id}
    bootstrap = [by_id[standby_id].bootstrap]
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic(TOPIC, -1, -1, replica_assignments={0: [standby_id], 1: [frozen_id]})])
    finally:
        admin.close()
    wait_until(lambda: all(p.leader_id >= 0 for p in metadata(brokers[0], [TOPIC]).topics[0].partitions), 30,
               f"{TOPIC} has leaders")

    coord, standby = by_id[coord_id], by_id[standby_id]
    leaders = {0: RawConnection(standby.host, standby.port), 1: RawConnection(by_id[frozen_id].host,
                                                                              by_id[frozen_id].port)}
    with RawConnection(coord.host, coord.port) as cc:
        ongoing = RawTxnProducer(cc, "t-ongoing", timeout_ms=6000)
        committing = RawTxnProducer(cc, "t-commit")
        for txn in (ongoing, committing):
            wait_until(lambda txn=txn: txn.init() == 0, 30, f"{txn.transactional_id} initialized")
            assert txn.add_partitions(TOPIC, [0, 1]) == {0: 0, 1: 0}
            for p in (0, 1):
                assert txn.produce(leaders[p], TOPIC, p, [f"{txn.transactional_id}-{p}".encode()]) == 0
        os.killpg(by_id[frozen_id].proc.pid, signal.SIGSTOP)
        try:
            assert committing.end(commit=True) == 0  # answered once PrepareCommit is written
            assert describe_txn(cc, "t-commit").transaction_state == "PrepareCommit"
            assert describe_txn(cc, "t-ongoing").transaction_state == "Ongoing"
            coord.kill()
        finally:
            os.killpg(by_id[frozen_id].proc.pid, signal.SIGCONT)

    with RawConnection(standby.host, standby.port) as sc:
        wait_until(lambda: find_txn_coordinator(sc, "t-commit")[1] == standby_id, 60, "the standby coordinates")
        wait_until(lambda: describe_txn(sc, "t-commit").transaction_state == "CompleteCommit", 30,
                   "the prepared commit completed by the new coordinator")
        wait_until(lambda: describe_txn(sc, "t-ongoing").transaction_state == "CompleteAbort", 30,
                   "the timed-out transaction aborted by the new coordinator")
        assert describe_txn(sc, "t-ongoing").producer_epoch == ongoing.epoch + 1  # its producer is fenced
        assert ongoing.produce(leaders[0], TOPIC, 0, [b"zombie"]) != 0
    for p, conn in leaders.items():
        wait_until(lambda conn=conn, p=p: latest_offset(conn, TOPIC, p, True) == latest_offset(conn, TOPIC, p, False)
                   > 2, 30, f"partition {p}: the last stable offset at the high watermark")
        conn.close()
    assert read_values(bootstrap, "read_committed", 2) == {0: [b"t-commit-0"], 1: [b"t-commit-1"]}
    assert read_values(bootstrap, "read_uncommitted", 4) == {0: [b"t-ongoing-0", b"t-commit-0"],
                                                              1: [b"t-ongoing-1", b"t-commit-1"]}
