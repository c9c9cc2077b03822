"""The pre-3.0 `kafka-topics.sh --zookeeper` of the course's labs, next to a kafpy broker
registered in that ZooKeeper."""
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
    listed = run_script("kafka-topics", "--list", "--zookeeper", zookeeper.connect_string)
    assert (listed.returncode, listed.stdout) == (0, "\n"), listed.stderr  # as Kafka: one empty line
    res = run_script("kafka-topics", "--create", "--zookeeper", zookeeper.connect_string,
                     "--topic", "t", "--partitions", "1", "--replication-factor", "1")
    assert (res.returncode, res.stdout) == (1, "Error while executing topic command : Replication "
                                               "factor: 1 larger than available brokers: 0.\n")
