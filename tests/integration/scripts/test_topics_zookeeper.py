"""`kafka-topics.sh --zookeeper` reads and writes the topic znodes itself, as Kafka 2.x's
TopicCommand did: a real ZooKeeper, three brokers registered in it (no broker process
needed: nothing but ZooKeeper is asked), and the znodes read back after each command."""
from __future__ import annotations

import json
from typing import Iterator

import pytest
from kazoo.client import KazooClient

from kafpy.replication import zk_data as zd
from tests.integration.scripts.tools import run_script


@pytest.fixture
def zk(zookeeper) -> Iterator[KazooClient]:
    client = KazooClient(hosts=zookeeper.connect_string)
    client.start(timeout=15)
    try:
        for b in (0, 1, 2):
            reg = zd.BrokerRegistration(b, (zd.EndPoint("PLAINTEXT", "localhost", 9092 + b),))
            client.create(zd.broker_path(b), reg.encode(0), ephemeral=True, makepath=True)
        yield client
    finally:
        client.stop()
        client.close()


def topics(zookeeper, *args: str):
    return run_script("kafka-topics", "--zookeeper", zookeeper.connect_string, *args)


def znode(zk: KazooClient, path: str) -> dict:
    return json.loads(zk.get(path)[0])


def test_create_list_describe_alter_delete(zookeeper, zk):
    created = topics(zookeeper, "--create", "--topic", "my-failsafe-topic", "--partitions", "3",
                     "--replication-factor", "3", "--config", "retention.ms=1000")
    assert (created.returncode, created.stdout) == (0, "Created topic my-failsafe-topic.\n"), created.stderr
    assignment = znode(zk, "/brokers/topics/my-failsafe-topic")
    assert assignment["version"] == 3 and len(assignment["topic_id"]) == 22
    assert sorted(assignment["partitions"]) == ["0", "1", "2"]
    assert all(sorted(r) == [0, 1, 2] for r in assignment["partitions"].values())
    leaders = [r[0] for _, r in sorted(assignment["partitions"].items())]
    assert sorted(leaders) == [0, 1, 2]  # preferred leaders spread over the brokers
    assert znode(zk, "/config/topics/my-failsafe-topic")["config"] == {"retention.ms": "1000"}

    again = topics(zookeeper, "--create", "--topic", "my-failsafe-topic", "--partitions", "1",
                   "--replication-factor", "1")
    assert (again.returncode, again.stdout) == (
        1, "Error while executing topic command : Topic 'my-failsafe-topic' already exists.\n")
    quiet = topics(zookeeper, "--create", "--if-not-exists", "--topic", "my-failsafe-topic",
                   "--partitions", "1", "--replication-factor", "1")
    assert (quiet.returncode, quiet.stdout) == (0, "")

    assert topics(zookeeper, "--list").stdout == "my-failsafe-topic\n"

    # the controller has not elected yet: no state znode, no leader
    described = topics(zookeeper, "--describe", "--topic", "my-failsafe-topic").stdout.splitlines()
    assert described[0] == (f"Topic: my-failsafe-topic\tTopicId: {assignment['topic_id']}"
                            "\tPartitionCount: 3\tReplicationFactor: 3\tConfigs: retention.ms=1000")
    assert described[1].startswith("\tTopic: my-failsafe-topic\tPartition: 0\tLeader: none\tReplicas: ")
    # once a partition state exists, its leader and ISR are shown
    r0 = assignment["partitions"]["0"]
    zk.create(zd.partition_state_path("my-failsafe-topic", 0), json.dumps(
        {"controller_epoch": 1, "leader": r0[0], "version": 1, "leader_epoch": 0,
         "isr": r0[:2]}).encode(), makepath=True)
    described = topics(zookeeper, "--describe", "--topic", "my-failsafe-topic").stdout.splitlines()
    replicas = ",".join(map(str, r0))
    isr = ",".join(map(str, r0[:2]))
    assert described[1] == (f"\tTopic: my-failsafe-topic\tPartition: 0\tLeader: {r0[0]}"
                            f"\tReplicas: {replicas}\tIsr: {isr}\tElr: N/A\tLastKnownElr: N/A")
    unavailable = topics(zookeeper, "--describe", "--unavailable-partitions").stdout.splitlines()
    assert [line.split("\t")[2] for line in unavailable] == ["Partition: 1", "Partition: 2"]

    altered = topics(zookeeper, "--alter", "--topic", "my-failsafe-topic", "--partitions", "5")
    assert (altered.returncode, altered.stdout) == (0, ""), altered.stderr
    after = znode(zk, "/brokers/topics/my-failsafe-topic")
    assert after["topic_id"] == assignment["topic_id"]
    assert {p: after["partitions"][p] for p in "012"} == assignment["partitions"]  # unmoved
    assert sorted(after["partitions"]) == ["0", "1", "2", "3", "4"]
    shrink = topics(zookeeper, "--alter", "--topic", "my-failsafe-topic", "--partitions", "2")
    assert shrink.returncode == 1 and "can only be increased" in shrink.stdout

    deleted = topics(zookeeper, "--delete", "--topic", "my-failsafe-topic")
    assert (deleted.returncode, deleted.stdout) == (0, ""), deleted.stderr
    assert zk.exists("/admin/delete_topics/my-failsafe-topic") is not None


def test_manual_assignment_and_refusals(zookeeper, zk):
    created = topics(zookeeper, "--create", "--topic", "manual", "--replica-assignment", "2:1,1:0")
    assert created.returncode == 0, created.stdout + created.stderr
    assert znode(zk, "/brokers/topics/manual")["partitions"] == {"0": [2, 1], "1": [1, 0]}
    added = topics(zookeeper, "--alter", "--topic", "manual", "--partitions", "3",
                   "--replica-assignment", "2:1,1:0,0:2")
    assert added.returncode == 0, added.stdout + added.stderr
    assert znode(zk, "/brokers/topics/manual")["partitions"]["2"] == [0, 2]

    too_many = topics(zookeeper, "--create", "--topic", "big", "--partitions", "1",
                      "--replication-factor", "4")
    assert (too_many.returncode, too_many.stdout) == (
        1, "Error while executing topic command : Replication factor: 4 larger than available "
           "brokers: 3.\n")
    dead = topics(zookeeper, "--create", "--topic", "dead", "--replica-assignment", "7")
    assert dead.returncode == 1 and "not available" in dead.stdout
    missing = topics(zookeeper, "--create", "--topic", "nopart", "--replication-factor", "1")
    assert missing.returncode == 1 and 'Missing required argument "[partitions]"' in missing.stderr
    assert not zk.exists("/brokers/topics/big") and not zk.exists("/brokers/topics/dead")
    internal = topics(zookeeper, "--delete", "--topic", "__consumer_offsets")
    assert internal.returncode == 1  # not there; and never marked for deletion
    assert not zk.exists("/admin/delete_topics/__consumer_offsets")
