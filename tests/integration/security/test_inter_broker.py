"""Brokers talk to each other over a SASL_SSL inter-broker listener (SCRAM-SHA-256, the broker
user's credential in ZooKeeper, client certificates required): three kafpy brokers in ZooKeeper
mode whose clients use a PLAINTEXT listener. Replication is only possible if the fetchers and
the controller's channel open TLS connections and log in: the ISR stays full, an acks=all
produce survives the leader's death, and nothing acknowledged is lost."""
from __future__ import annotations

import json
from pathlib import Path

from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic
from kazoo.client import KazooClient

from kafpy.broker.security.scram import new_credential
from tests.integration.cluster.harness import SESSION_TIMEOUT_MS, CLUSTER_OVERRIDES, metadata, read_all, wait_until
from tests.support.ports import LOOPBACK, free_ports

TOPIC = "secured-replication"
JAAS = ('org.apache.kafka.common.security.scram.ScramLoginModule required '
        'username="broker" password="broker-secret";')


def _broker_user(zookeeper) -> None:
    """The inter-broker user's SCRAM credential, written before the brokers start (as
    ``kafka-configs --zookeeper`` or ``kafka-storage --add-scram`` would)."""
    config = {"SCRAM-SHA-256": new_credential("SCRAM-SHA-256", "broker-secret").to_string()}
    zk = KazooClient(hosts=zookeeper.connect_string)
    zk.start(timeout=30)
    try:
        zk.create("/config/users/broker", json.dumps({"version": 1, "config": config}).encode(), makepath=True)
    finally:
        zk.stop()
        zk.close()


def _security(certs: Path) -> dict[str, object]:
    return {
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL",
        "inter.broker.listener.name": "SASL_SSL",
        "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-256",
        "sasl.enabled.mechanisms": "SCRAM-SHA-256",
        "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config": JAAS,
        "listener.name.sasl_ssl.ssl.client.auth": "required",
        "ssl.keystore.type": "PEM", "ssl.keystore.location": certs / "server-keystore.pem",
        "ssl.truststore.type": "PEM", "ssl.truststore.location": certs / "ca.pem",
    }


def _isr_full(broker) -> bool:
    ps = [p for t in metadata(broker).topics if t.name == TOPIC for p in t.partitions]
    return len(ps) == 3 and all(sorted(p.isr_nodes) == [0, 1, 2] for p in ps)


def test_replication_over_a_sasl_ssl_inter_broker_listener(zookeeper, broker_factory, certs):
    _broker_user(zookeeper)
    brokers = []
    for i in range(3):
        plain, secured = free_ports(2)
        listeners = f"PLAINTEXT://{LOOPBACK}:{plain},SASL_SSL://{LOOPBACK}:{secured}"
        brokers.append(broker_factory({**CLUSTER_OVERRIDES, **_security(certs), "broker.id": i,
                                       "listeners": listeners, "advertised.listeners": listeners},
                                      port=plain, zookeeper=zookeeper))
    bootstrap = [b.bootstrap for b in brokers]
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic(TOPIC, 3, 3, topic_configs={"min.insync.replicas": "2"})])
    finally:
        admin.close()
    wait_until(lambda: _isr_full(brokers[0]), 30, "full ISRs: the followers fetch over SASL_SSL")

    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=20, request_timeout_ms=20000)
    for i in range(300):
        producer.send(TOPIC, b"%d" % i, partition=i % 3)
    producer.flush()
    leader = {p.partition_index: p.leader_id for t in metadata(brokers[0]).topics if t.name == TOPIC
              for p in t.partitions}[0]
    brokers[leader].kill()
    survivors = [b for i, b in enumerate(brokers) if i != leader]
    wait_until(lambda: all(p.leader_id not in (leader, -1) for t in metadata(survivors[0]).topics
                           if t.name == TOPIC for p in t.partitions),
               SESSION_TIMEOUT_MS / 1000 + 15, "new leaders elected by the controller over SASL_SSL")
    for i in range(300, 600):
        producer.send(TOPIC, b"%d" % i, partition=i % 3)
    producer.flush()
    producer.close()
    records = read_all([b.bootstrap for b in survivors], TOPIC, 600)
    for p, recs in records.items():
        assert [v for _, v in recs] == [b"%d" % i for i in range(p, 600, 3)]
