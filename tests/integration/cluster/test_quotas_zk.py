"""Client quotas in a ZooKeeper-mode cluster: a quota altered through one broker is stored
where Kafka stores it (``/config/clients/<id>``, announced under ``/config/changes``) and is
enforced at once by another broker, which throttles that client id's producer and not
another's."""
from __future__ import annotations

import json

import pytest
from kafka.admin import KafkaAdminClient, NewTopic
from kazoo.client import KazooClient

from tests.integration.broker.test_quotas import alter_quota, describe_quotas, produce_throttles
from tests.integration.cluster.harness import CLUSTER_OVERRIDES, leaders, metadata, wait_until


@pytest.mark.timeout(240)
def test_a_quota_set_through_one_broker_is_kept_in_zookeeper_and_enforced_by_another(zookeeper, broker_factory):
    brokers = [broker_factory({**CLUSTER_OVERRIDES, "broker.id": i, "default.replication.factor": 1,
                               "offsets.topic.replication.factor": 1}, zookeeper=zookeeper) for i in range(2)]
    wait_until(lambda: all(len(metadata(b).brokers) == 2 for b in brokers), 60, "both brokers know each other")
    topic = "quota-zk"
    admin = KafkaAdminClient(bootstrap_servers=[brokers[0].bootstrap])
    try:
        admin.create_topics([NewTopic(topic, num_partitions=-1, replication_factor=-1, replica_assignments={0: [1]})])
    finally:
        admin.close()
    wait_until(lambda: leaders(metadata(brokers[1], [topic]), topic) == {0: 1}, 30, "broker 1 leads the topic")

    alter_quota(brokers[0].port, [("client-id", "slow")], "producer_byte_rate", 1024)

    zk = KazooClient(hosts=zookeeper.connect_string)
    zk.start(timeout=15)
    try:
        data, _ = zk.get("/config/clients/slow")
        stored = json.loads(data)
        assert stored["version"] == 1 and float(stored["config"]["producer_byte_rate"]) == 1024.0, stored
        changes = [json.loads(zk.get(f"/config/changes/{c}")[0]) for c in zk.get_children("/config/changes")]
        assert {"version": 2, "entity_path": "clients/slow"} in changes, changes
    finally:
        zk.stop()

    # broker 1 learned it from ZooKeeper: it describes it and throttles the client id
    wait_until(lambda: describe_quotas(brokers[1].port).get((("client-id", "slow"),)) == {"producer_byte_rate": 1024.0},
               30, "broker 1 knows the quota")
    slow = produce_throttles(brokers[1].port, "slow", topic, 20, 2000)
    assert slow[-1] > 0 and len(slow) < 20, slow
    assert produce_throttles(brokers[1].port, "fast", topic, 20, 2000) == [0] * 20
