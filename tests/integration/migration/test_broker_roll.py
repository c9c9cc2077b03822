"""The whole ZooKeeper to KRaft migration under load (KIP-866, Kafka 3.9's procedure): a kafpy
ZooKeeper cluster of three brokers with a KRaft controller in dual-write mode, an idempotent
acks=all producer and a consumer group running throughout; the brokers are rolled one at a time
into KRaft mode (process.roles=broker, no zookeeper.connect), the controller is restarted
without the migration flag (ZkMigrationState POST_MIGRATION) and ZooKeeper is stopped. Nothing
acknowledged is lost or written twice, the consumer group saw all of it, the metadata copied
from ZooKeeper is still there, and Apache Kafka 4.4's and 3.9.1's ``kafka-metadata-quorum
describe --status`` report the quorum."""
from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import KafkaConnectionError

from kafpy.protocol.messages import (
    AccessControlEntryRecord, RegisterBrokerRecord, UserScramCredentialRecord, ZkMigrationStateRecord,
)
from tests.integration.cluster.harness import metadata, start_cluster, wait_until
from tests.integration.migration.support import (
    CONTROLLER_ID, MigratingController, controller_port, create_user_metadata, finalize_controller_properties,
    roll_into_kraft, migrating_broker_overrides,
)
from tests.support.kafka_dist import run_tool
from tests.support.metadata_json import parse_dump

pytestmark = pytest.mark.timeout(900)
TOPIC, GROUP = "steady", "migration-group"


class SteadyProducer(threading.Thread):
    """acks=all, idempotent; keeps every value the cluster acknowledged."""

    def __init__(self, bootstrap: list[str]) -> None:
        super().__init__(daemon=True)
        self.producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True,
                                      retries=1_000_000, delivery_timeout_ms=120_000, request_timeout_ms=15_000,
                                      max_block_ms=60_000)
        self.acked: list[bytes] = []
        self.failed: list[BaseException] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        n = 0
        while not self.stopping.is_set():
            value = f"v{n}".encode()
            future = self.producer.send(TOPIC, value)
            future.add_callback(lambda _md, value=value: self.acked.append(value))
            future.add_errback(self.failed.append)
            n += 1
            time.sleep(0.02)
        self.producer.flush(120)
        self.producer.close()


class GroupConsumer(threading.Thread):
    """A consumer group member that keeps polling through the rolls: kafka-python's poll raises
    a connection error when the broker it refreshes metadata from has just stopped (a Java
    consumer retries), so such a poll counts as an empty one."""

    def __init__(self, bootstrap: list[str]) -> None:
        super().__init__(daemon=True)
        self.consumer = KafkaConsumer(TOPIC, bootstrap_servers=bootstrap, group_id=GROUP,
                                      auto_offset_reset="earliest", enable_auto_commit=True,
                                      auto_commit_interval_ms=500, request_timeout_ms=30_000)
        self.seen: set[bytes] = set()
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                polled = self.consumer.poll(500)
            except KafkaConnectionError:
                time.sleep(0.2)
                continue
            for records in polled.values():
                self.seen.update(r.value for r in records)
        self.consumer.close()


def whole_log(bootstrap: list[str]) -> list[bytes]:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False,
                             consumer_timeout_ms=10_000)
    try:
        consumer.assign([TopicPartition(TOPIC, p) for p in range(3)])
        return [r.value for r in consumer]
    finally:
        consumer.close()


def partitions_of(broker: object) -> list[tuple[int, int, list[int]]]:
    """(partition, leader, ISR) of the topic as ``broker`` answers Metadata."""
    md = metadata(broker)
    return sorted((p.partition_index, p.leader_id, sorted(p.isr_nodes))
                  for t in md.topics if t.name == TOPIC for p in t.partitions)


def wait_for_full_isr(brokers: list, what: str) -> None:
    """Every broker's Metadata shows all three partitions led, with all three replicas in sync."""
    for b in brokers:
        try:
            wait_until(lambda b=b: (lambda parts: len(parts) == 3 and all(
                lead >= 0 and isr == [0, 1, 2] for _, lead, isr in parts))(partitions_of(b)), 120, what)
        except AssertionError as e:
            raise AssertionError(f"{e}; {b.bootstrap} answers {partitions_of(b)}") from None


def test_brokers_roll_into_kraft_and_the_migration_finishes_under_load(zookeeper, broker_factory, tmp_path):
    port = controller_port()
    brokers = start_cluster(zookeeper, broker_factory, **migrating_broker_overrides(port))
    create_user_metadata(brokers)
    bootstrap = [b.bootstrap for b in brokers]
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(TOPIC, 3, 3)])
    finally:
        admin.close()
    controller = MigratingController(tmp_path / "controller", port, zookeeper.connect_string,
                                     metadata(brokers[0]).cluster_id)
    # the producer and the consumer group run on the ZooKeeper cluster before the migration starts
    producer, consumer = SteadyProducer(bootstrap), GroupConsumer(bootstrap)
    producer.start()
    consumer.start()
    rolled: list = []
    try:
        wait_until(lambda: len(producer.acked) > 50 and len(consumer.seen) > 20, 60, "traffic before the migration")
        controller.start()
        wait_until(lambda: "from KRAFT_CONTROLLER_TO_BROKER_COMM to DUAL_WRITE" in controller.output(), 120,
                   "the migration driver in dual-write mode")
        for i, b in enumerate(brokers):
            wait_until(lambda i=i, b=b: f"[BrokerLifecycleManager id={i}] The broker has been unfenced" in b.log_text(),
                       60, f"broker {i} unfenced by the KRaft controller")
        acked = len(producer.acked)
        wait_until(lambda: len(producer.acked) > acked + 20, 60, "traffic in dual-write mode")

        for i, old in enumerate(brokers):
            new = roll_into_kraft(broker_factory, old, i, tmp_path, port)
            rolled.append(new)
            wait_until(lambda i=i, new=new: f"[BrokerLifecycleManager id={i}] The broker has been unfenced"
                       in new.log_text(), 120, f"broker {i} back as a KRaft broker")
            wait_for_full_isr([new], f"every replica in sync after rolling broker {i}")
            acked = len(producer.acked)
            wait_until(lambda acked=acked: len(producer.acked) > acked + 20, 60, f"traffic after rolling broker {i}")

        # finalize: the controller restarted without the migration flag, then ZooKeeper retired
        controller.stop()
        finalize_controller_properties(controller)
        controller.start()
        wait_until(lambda: "writing ZkMigrationState POST_MIGRATION" in controller.output(), 60,
                   "the controller finalizing the migration")
        zookeeper.stop()
        acked = len(producer.acked)
        wait_until(lambda: len(producer.acked) > acked + 50, 60, "traffic with ZooKeeper gone")
        # the quorum, as Apache Kafka's tools report it
        for version in ("4", "3.9"):
            status = run_tool(version, "kafka-metadata-quorum", ["--bootstrap-controller", f"127.0.0.1:{port}",
                                                                 "describe", "--status"]).stdout
            assert f"LeaderId: {CONTROLLER_ID}" in " ".join(status.split()), status
        producer.stopping.set()
        producer.join(180)
        # the group keeps consuming until it has seen everything acknowledged
        wait_until(lambda: set(producer.acked) <= consumer.seen, 120,
                   "the consumer group saw every acknowledged record")
    finally:
        producer.stopping.set()
        producer.join(180)
        consumer.stopping.set()
        consumer.join(30)
        controller.stop()
    final_bootstrap = [b.bootstrap for b in rolled]
    assert not producer.failed, producer.failed[:3]
    log_values = whole_log(final_bootstrap)
    duplicates = [v for v, n in Counter(log_values).items() if n > 1]
    assert not duplicates, duplicates[:10]
    assert set(producer.acked) <= set(log_values), sorted(set(producer.acked) - set(log_values))[:10]

    records = [r for b in parse_dump(controller.dump_log()) for _, r in b.records]
    assert [r.zk_migration_state for r in records if isinstance(r, ZkMigrationStateRecord)] == [2, 1, 3]
    final = {r.broker_id: r.is_migrating_zk_broker for r in records if isinstance(r, RegisterBrokerRecord)}
    assert final == {0: False, 1: False, 2: False}, final
    assert any(isinstance(r, UserScramCredentialRecord) and r.name == "alice" for r in records)
    assert sum(isinstance(r, AccessControlEntryRecord) for r in records) == 3
