"""``num.replica.fetchers`` altered with Apache's kafka-configs.sh on a running three-broker
ZooKeeper cluster: every broker resizes its fetcher pool without a restart (Kafka's
``resizeThreadPool``; a pool at most doubles per change, as Kafka checks), each followed partition moving to the fetcher Kafka's hash gives it
for the new count, and replication goes on (records written with acks=all afterwards are
replicated to full ISRs)."""
from __future__ import annotations

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafpy.replication.fetch_state import TopicPartition
from kafpy.replication.fetcher_manager import fetcher_id_for
from tests.integration.cluster.harness import metadata, start_cluster, wait_until
from tests.support.kafka_dist import run_tool

pytestmark = pytest.mark.timeout(600)
TOPIC = "fetchers"
PARTITIONS = 6


def configs(*args: str) -> str:
    return run_tool("4", "kafka-configs", list(args), timeout=120).stdout


def _partitions(broker) -> list:
    return [p for t in metadata(broker).topics if t.name == TOPIC for p in t.partitions]


def test_num_replica_fetchers_resizes_every_brokers_pool(zookeeper, broker_factory):
    brokers = start_cluster(zookeeper, broker_factory, 3)
    bootstrap = ",".join(b.bootstrap for b in brokers)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3)])[TOPIC].result(30)
    wait_until(lambda: len(_partitions(brokers[0])) == PARTITIONS and
               all(len(p.isr_nodes) == 3 for p in _partitions(brokers[0])), 60, "full ISRs")
    marks = [len(b.log_text()) for b in brokers]

    alter = ["--bootstrap-server", brokers[0].bootstrap, "--entity-type", "brokers", "--entity-default", "--alter",
             "--add-config"]
    # a pool at most doubles per change, as Kafka's DynamicThreadPool checks
    bad = run_tool("4", "kafka-configs", [*alter, "num.replica.fetchers=3"], timeout=120, check=False)
    assert bad.returncode != 0 and ("Dynamic thread count update validation failed for num.replica.fetchers=3, "
                                    "value should not be greater than double the current value 1") in bad.stderr
    configs(*alter, "num.replica.fetchers=2")
    leaders = {p.partition_index: p.leader_id for p in _partitions(brokers[0])}
    for i, (b, mark) in enumerate(zip(brokers, marks)):
        # the fetchers Kafka's hash asks for with 2 per leader; those of id 1 are new (each broker
        # follows 4 of the 6 partitions, so some of each parity: the hash alternates with it)
        expected = {(fetcher_id_for(TopicPartition(TOPIC, p), 2), leader) for p, leader in leaders.items() if leader != i}
        new = {f"[ReplicaFetcherThread-{fid}-{leader}] Starting" for fid, leader in expected if fid > 0}
        assert new, expected
        wait_until(lambda b=b, mark=mark, new=new: (
            "Resizing fetcher thread pool size from 1 to 2" in b.log_text()[mark:]
            and all(line in b.log_text()[mark:] for line in new)), 60,
            f"{b.name} resized its fetcher pool to 2 per leader")
    assert "num.replica.fetchers=2 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:num.replica.fetchers=2" in \
        configs("--bootstrap-server", brokers[1].bootstrap, "--entity-type", "brokers", "--entity-name", "1",
                "--describe", "--all")

    # replication goes on through the new fetchers: acks=all needs every follower in the ISR
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    errors: list = []
    for n in range(300):
        p.produce(TOPIC, value=b"%d" % n, partition=n % PARTITIONS, on_delivery=lambda err, msg: errors.append(err))
    assert p.flush(60) == 0
    assert errors == [None] * 300
    wait_until(lambda: all(len(p.isr_nodes) == 3 for p in _partitions(brokers[0])), 60, "full ISRs after the resize")
