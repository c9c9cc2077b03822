"""The pre-3.0 `kafka-topics.sh --zookeeper` of the course's labs: the brokers registered in
ZooKeeper become the bootstrap servers."""
from __future__ import annotations

from tests.integration.scripts.tools import run_script


def test_lab1_topics_through_zookeeper(zookeeper, broker_factory):
    broker_factory(zookeeper=zookeeper)
    zk = zookeeper.connect_string
    created = run_script("kafka-topics", "--create", "--zookeeper", zk, "--replication-factor", "1",
                         "--partitions", "13", "--topic", "my-topic")
    assert (created.returncode, created.stdout) == (0, "Created topic my-topic.\n"), created.stderr
    listed = run_script("kafka-topics", "--list", "--zookeeper", zk)
    assert "my-topic" in listed.stdout.splitlines(), listed.stdout + listed.stderr
    described = run_script("kafka-topics", "--describe", "--zookeeper", zk, "--topic", "my-topic")
    assert "\tPartitionCount: 13\t" in described.stdout.splitlines()[0]


def test_zookeeper_without_brokers(zookeeper):
    res = run_script("kafka-topics", "--list", "--zookeeper", zookeeper.connect_string)
    assert res.returncode == 1
    assert res.stdout.startswith("Error while executing topic command : No Kafka brokers are "
                                 "registered in ZooKeeper at ")
