"""The transaction coordinator in a ZooKeeper-mode cluster of three brokers:
`__transaction_state` is created with three replicas, and a transaction over partitions
led by every broker completes (markers written on remote leaders), so the next one starts;
the same with the Java 4.4 producer on transaction version 2."""
from __future__ import annotations

from collections import Counter

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafpy.protocol.topics import TRANSACTION_STATE_TOPIC_NAME
from tests.integration.cluster.harness import CLUSTER_OVERRIDES, leaders, metadata, wait_until
from tests.integration.coordinator.test_txn_admin_tools import table, tool
from tests.integration.transactions.helpers import read_confluent, run_java_program


@pytest.mark.timeout(300)
def test_transactions_across_a_cluster(zookeeper, broker_factory):
    settings = {**CLUSTER_OVERRIDES, "transaction.state.log.num.partitions": 3}
    brokers = [broker_factory({**settings, "broker.id": i}, zookeeper=zookeeper) for i in range(3)]
    wait_until(lambda: all(len(metadata(b).brokers) == 3 for b in brokers), 60, "every broker knows the three")
    bootstrap = ",".join(b.bootstrap for b in brokers)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("txn-spread", 3, 3)])["txn-spread"].result(60)
    wait_until(lambda: set(leaders(metadata(brokers[0], ["txn-spread"]), "txn-spread").values()) == {0, 1, 2},
               60, "txn-spread led by every broker")

    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": "tx-cluster"})
    p.init_transactions(90)
    for round_ in range(2):  # the second begins only once the first one's markers are all written
        p.begin_transaction()
        for partition in range(3):
            p.produce("txn-spread", f"r{round_}".encode(), partition=partition)
        p.commit_transaction(90)

    (state,) = [t for t in metadata(brokers[1], [TRANSACTION_STATE_TOPIC_NAME]).topics]
    assert len(state.partitions) == 3
    assert all(sorted(part.replica_nodes) == [0, 1, 2] for part in state.partitions)

    # Java 4.4 uses transaction version 2 here (ZooKeeper mode serves it by default): the
    # leaders add their partitions on the coordinator's broker (AddPartitionsToTxn v5), the
    # group's offsets partition too (TxnOffsetCommit v5), and every end bumps the epoch
    out = run_java_program("4", "TxnProducer", [
        bootstrap, "commit-abort", "txn-spread", "3", "3", "v2", "v2-group"])
    assert out == ["committed 0", "aborted 1", "committed 2"]
    # one epoch per end: 0 from InitProducerId, 3 after the three transactions
    (row,) = table(tool(bootstrap, "describe", "--transactional-id", "v2-txn"))
    assert (row["ProducerEpoch"], row["TransactionState"]) == ("3", "CompleteCommit"), row
    got = Counter(read_confluent(bootstrap, "txn-spread"))
    assert got == Counter({**{(p, f"r{r}"): 1 for r in range(2) for p in range(3)},
                           **{(p, f"v2-t{t}-p{p}"): 1 for t in (0, 2) for p in range(3)}})
