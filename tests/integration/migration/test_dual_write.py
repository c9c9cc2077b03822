"""Step two of a ZooKeeper to KRaft migration (KIP-866, as Kafka 3.9 does it): once ZooKeeper's
metadata is in the log, the KRaft controller is the controller of the ZooKeeper brokers. A topic
created, a config altered and a topic deleted through the KRaft controller are written back to
ZooKeeper in Kafka's znode formats (dual writes) and reach the ZooKeeper brokers as
LeaderAndIsr / UpdateMetadata / StopReplica from the KRaft controller: the brokers list, host
and serve the new topic and drop the deleted one."""
from __future__ import annotations

import json

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic
from kazoo.client import KazooClient

from kafpy.metadata.image.uuids import uuid_str
from kafpy.protocol.messages import (
    CreateTopicsRequest, CreateTopicsResponse, DeleteTopicsRequest, DeleteTopicsResponse,
    IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse,
)
from tests.integration.cluster.harness import leaders, metadata, start_cluster, wait_until
from tests.integration.migration.support import (
    MigratingController, controller_port, create_user_metadata, migrating_broker_overrides, read_znode,
)
from tests.integration.raft.quorum_support import call

pytestmark = pytest.mark.timeout(420)


def zk_children(connect: str, path: str) -> list[str]:
    zk = KazooClient(hosts=connect)
    zk.start(30)
    try:
        return sorted(zk.get_children(path)) if zk.exists(path) else []
    finally:
        zk.stop()
        zk.close()


def topic_leaders(broker: object, topic: str) -> dict[int, int]:
    """Partition -> leader as ``broker`` answers Metadata ({} while it does not list the topic)."""
    md = metadata(broker)
    return leaders(md, topic) if any(t.name == topic for t in md.topics) else {}


def test_the_kraft_controller_dual_writes_and_drives_the_zookeeper_brokers(zookeeper, broker_factory, tmp_path):
    port = controller_port()
    brokers = start_cluster(zookeeper, broker_factory, **migrating_broker_overrides(port))
    create_user_metadata(brokers)
    controller = MigratingController(tmp_path / "controller", port, zookeeper.connect_string,
                                     metadata(brokers[0]).cluster_id)
    controller.start()
    try:
        wait_until(lambda: "from KRAFT_CONTROLLER_TO_BROKER_COMM to DUAL_WRITE" in controller.output(), 120,
                   "the migration driver in dual-write mode")
        for i, b in enumerate(brokers):  # registered brokers are fenced until their heartbeat says caught up
            wait_until(lambda i=i, b=b: f"[BrokerLifecycleManager id={i}] The broker has been unfenced" in b.log_text(),
                       60, f"broker {i} unfenced by the KRaft controller")
        # a topic created through the KRaft controller
        C = CreateTopicsRequest
        created = call(port, C(topics=[C.CreatableTopic(name="after-migration", num_partitions=3,
                                                        replication_factor=3)], timeout_ms=30000),
                       CreateTopicsResponse, 7, timeout=35)
        (result,) = created.topics
        assert result.error_code == 0, result
        # ... is in ZooKeeper, with its id, assignment and partition states
        topic_znode = wait_until(lambda: read_znode(zookeeper.connect_string, "/brokers/topics/after-migration"),
                                 30, "the new topic written to ZooKeeper")[0]
        assert topic_znode["topic_id"] == uuid_str(result.topic_id)
        assert sorted(topic_znode["partitions"]) == ["0", "1", "2"]
        for p, replicas in topic_znode["partitions"].items():
            state = wait_until(lambda p=p: read_znode(
                zookeeper.connect_string, f"/brokers/topics/after-migration/partitions/{p}/state"), 30,
                f"partition {p}'s state znode")[0]
            assert state["leader"] in replicas and sorted(state["isr"]) == sorted(replicas), state
        # ... every ZooKeeper broker lists it (UpdateMetadata from the KRaft controller)
        for b in brokers:
            wait_until(lambda b=b: (lambda ls: len(ls) == 3 and all(lead >= 0 for lead in ls.values()))(
                topic_leaders(b, "after-migration")), 30,
                f"broker {b.bootstrap} knows the new topic's leaders")
        # ... and they host and serve it (LeaderAndIsr from the KRaft controller)
        bootstrap = [b.bootstrap for b in brokers]
        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True)
        try:
            for future in [producer.send("after-migration", f"m{i}".encode(), partition=i % 3) for i in range(30)]:
                future.get(30)
        finally:
            producer.close()
        consumer = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                                 consumer_timeout_ms=10000, enable_auto_commit=False)
        try:
            consumer.assign([TopicPartition("after-migration", p) for p in range(3)])
            values = sorted(r.value for r in consumer)
        finally:
            consumer.close()
        assert values == sorted(f"m{i}".encode() for i in range(30))

        # a ZooKeeper broker names itself as controller to clients and forwards their admin requests
        assert {metadata(b).controller_id for b in brokers} == {0, 1, 2}
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
        try:
            admin.create_topics([NewTopic("via-zk-broker", 2, 3)])
        finally:
            admin.close()
        wait_until(lambda: read_znode(zookeeper.connect_string, "/brokers/topics/via-zk-broker") is not None, 30,
                   "the topic created through a ZooKeeper broker written to ZooKeeper by the KRaft controller")
        for b in brokers:
            wait_until(lambda b=b: len(topic_leaders(b, "via-zk-broker")) == 2, 30,
                       f"broker {b.bootstrap} knows the forwarded topic")

        # a topic a ZooKeeper broker auto-creates (Metadata for an unknown topic) is created by the
        # KRaft controller (CreateTopics, as Kafka 3.9's AutoTopicCreationManager): written to
        # ZooKeeper by it, and led and served by the brokers it tells
        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", max_block_ms=60000)
        try:
            producer.send("auto-during-migration", b"auto").get(60)
        finally:
            producer.close()
        wait_until(lambda: read_znode(zookeeper.connect_string, "/brokers/topics/auto-during-migration") is not None,
                   30, "the auto-created topic written to ZooKeeper by the KRaft controller")
        for b in brokers:
            wait_until(lambda b=b: (lambda ls: len(ls) == 1 and all(lead >= 0 for lead in ls.values()))(
                topic_leaders(b, "auto-during-migration")), 30, f"broker {b.bootstrap} knows the auto-created topic")
        assert "auto-during-migration" in controller.output(), "the KRaft controller never saw the auto-created topic"

        # a config altered through the KRaft controller lands in /config/topics and its notification
        A = IncrementalAlterConfigsRequest
        altered = call(port, A(resources=[A.AlterConfigsResource(resource_type=2, resource_name="orders", configs=[
            A.AlterableConfig(name="retention.ms", config_operation=0, value="7200000")])]),
            IncrementalAlterConfigsResponse, 1)
        assert [r.error_code for r in altered.responses] == [0]
        wait_until(lambda: (read_znode(zookeeper.connect_string, "/config/topics/orders") or ({}, 0))[0]
                   .get("config", {}).get("retention.ms") == "7200000", 30, "the altered config in ZooKeeper")
        changes = zk_children(zookeeper.connect_string, "/config/changes")
        assert changes, "no config change notification"
        last = read_znode(zookeeper.connect_string, f"/config/changes/{changes[-1]}")
        assert last is not None and last[0]["entity_path"] == "topics/orders"

        # a topic deleted through the KRaft controller leaves ZooKeeper and the brokers
        D = DeleteTopicsRequest
        deleted = call(port, D(topic_names=["events"], timeout_ms=30000), DeleteTopicsResponse, 5, timeout=35)
        assert [r.error_code for r in deleted.responses] == [0]
        wait_until(lambda: read_znode(zookeeper.connect_string, "/brokers/topics/events") is None, 30,
                   "the deleted topic gone from ZooKeeper")
        assert read_znode(zookeeper.connect_string, "/config/topics/events") is None
        for b in brokers:
            wait_until(lambda b=b: not any(t.name == "events" for t in metadata(b).topics), 30,
                       f"broker {b.bootstrap} dropped the deleted topic")
            wait_until(lambda b=b: not any(d.name.startswith("events-") for d in b.log_dir.iterdir()), 60,
                       f"broker {b.bootstrap} deleted the topic's logs (StopReplica)")
        migration = read_znode(zookeeper.connect_string, "/migration")
        assert migration is not None and json.dumps(migration[0])
        assert migration[0]["kraft_metadata_offset"] > 0
    finally:
        for b in brokers:  # before the controller their controlled shutdown asks (see test_zk_metadata_copy)
            b.stop()
        controller.stop()
