"""Issue 25's acceptance for metrics: a real Prometheus server scrapes a three-broker
ZooKeeper cluster under load, and its HTTP API shows what happened under Kafka's names:

- messages-in per topic match what the producer sent (the total, and the rate while it ran);
- a consumer group's lag is what it has not committed, and falls to 0 when it catches up;
- with a broker killed, under-replicated partitions rise to the number of partitions it held
  a replica of, and return to 0 once it is back (the leaders counting an ISR expand each);
- exactly one active controller."""
from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.cluster.harness import metadata, start_cluster, wait_until
from tests.support.ports import LOOPBACK, free_ports
from tests.support.prometheus import PrometheusServer, wait_value

pytestmark = pytest.mark.timeout(600)

TOPIC = "metrics-load"
PARTITIONS = 6
RATE = 200          # records/s the producer sends
SECONDS = 15
GROUP = "metrics-lag-group"


@pytest.fixture
def cluster(zookeeper, broker_factory, tmp_path):
    http_ports = free_ports(3)
    brokers = [None] * 3

    def factory(overrides, **kw):
        i = overrides["broker.id"]
        overrides = {**overrides, "kafpy.http.listeners": f"http://{LOOPBACK}:{http_ports[i]}"}
        return broker_factory(overrides, **kw)
    brokers = start_cluster(zookeeper, factory, 3)
    prom = PrometheusServer(tmp_path / "prometheus", [f"{LOOPBACK}:{p}" for p in http_ports]).start()
    try:
        yield brokers, prom
    finally:
        prom.stop()


def _produce_at_rate(bootstrap: str) -> tuple[int, float, float]:
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    sent = 0
    start = time.time()
    for second in range(SECONDS):
        for i in range(RATE):
            p.produce(TOPIC, key=str(sent).encode(), value=b"x" * 100)
            sent += 1
            p.poll(0)
        p.flush(30)
        pause = start + second + 1 - time.time()
        if pause > 0:
            time.sleep(pause)   # pacing the producer, not waiting for state
    end = time.time()
    assert p.flush(30) == 0
    return sent, start, end


def _commit(bootstrap: str, fraction: float) -> int:
    """Commits, for group GROUP, ``fraction`` of each partition's records; returns the lag
    that leaves (records not committed)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP, "enable.auto.commit": False})
    try:
        ends = {p: c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=10)[1] for p in range(PARTITIONS)}
        offsets = {p: int(end * fraction) for p, end in ends.items()}
        c.commit(offsets=[TopicPartition(TOPIC, p, o) for p, o in offsets.items()], asynchronous=False)
        return sum(ends[p] - offsets[p] for p in ends)
    finally:
        c.close()


def test_prometheus_sees_messages_in_lag_and_under_replicated_partitions(cluster):
    brokers, prom = cluster
    bootstrap = ",".join(b.bootstrap for b in brokers)
    wait_value(prom, "sum(up)", lambda v: v == 3, 30, "Prometheus scrapes the three brokers")
    assert prom.value("sum(kafka_controller_kafkacontroller_activecontrollercount)") == 1

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3)])[TOPIC].result(30)

    sent, start, end = _produce_at_rate(bootstrap)
    total = f'sum(kafka_server_brokertopicmetrics_messagesin_total{{topic="{TOPIC}"}})'
    wait_value(prom, total, lambda v: v == sent, 30, f"messages-in adds up to the {sent} records sent")
    # the rate over the middle of the run is the producer's
    mid = (start + end) / 2
    rate = prom.value(f'sum(rate(kafka_server_brokertopicmetrics_messagesin_total{{topic="{TOPIC}"}}[6s]))', at=mid)
    assert rate is not None and abs(rate - RATE) <= RATE * 0.25, rate
    assert prom.value('sum(kafka_network_requestmetrics_requests_total{request="Produce"})') > 0

    # a group that committed a third of each partition lags by the rest, then by nothing
    lag = f'sum(kafka_consumergroup_lag{{consumergroup="{GROUP}",topic="{TOPIC}"}})'
    behind = _commit(bootstrap, 1 / 3)
    assert behind > sent / 2
    wait_value(prom, lag, lambda v: v == behind, 60, f"the group's lag is the {behind} records it has not committed")
    assert _commit(bootstrap, 1.0) == 0
    wait_value(prom, lag, lambda v: v == 0, 60, "the group's lag falls to 0 once it caught up")

    # kill a broker: every partition it held a replica of becomes under-replicated
    # (not the controller: the broker change must be timed by a controller that lives on)
    md = metadata(brokers[0])
    victim_id = max(i for i in range(len(brokers)) if i != md.controller_id)
    victim = brokers[victim_id]
    held = sum(1 for t in md.topics for p in t.partitions if victim_id in p.replica_nodes)
    assert held > PARTITIONS   # the topic and __consumer_offsets
    urp = "sum(kafka_server_replicamanager_underreplicatedpartitions)"
    assert prom.value(urp) == 0
    victim.kill()
    wait_value(prom, urp, lambda v: v == held, 90, f"under-replicated partitions rise to the {held} it held")
    # the controller timed the broker changes (Kafka's LeaderElectionRateAndTimeMs), all clean
    elections = "sum(kafka_controller_controllerstats_leaderelectionrateandtimems_count)"
    wait_value(prom, elections, lambda v: v >= 1, 30, "the broker changes are timed")
    assert prom.value("sum(kafka_controller_controllerstats_uncleanleaderelections_total)") == 0
    assert prom.value("sum(kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms_count)") > 0
    assert prom.value('sum(kafka_network_requestmetrics_errors_total{request="Produce",error="NONE"})') >= PARTITIONS
    expands = "sum(kafka_server_replicamanager_isrexpands_total)"
    before = prom.value(expands) or 0
    victim.start()
    wait_value(prom, urp, lambda v: v == 0, 120, "under-replicated partitions return to 0")
    # the leaders took the restarted broker back into each ISR with AlterPartition
    wait_value(prom, expands, lambda v: v >= before + held, 30, "ISR expands counted for each of its partitions")
    wait_until(lambda: prom.targets_up() == 3, 30, "the restarted broker is scraped again")
