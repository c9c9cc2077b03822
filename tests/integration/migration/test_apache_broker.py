"""The migration of a mixed ZooKeeper cluster (KIP-866, Kafka 3.9's procedure): two kafpy
brokers and one Apache Kafka 3.9.1 broker on one ZooKeeper, a topic with replicas on both
implementations, an idempotent acks=all producer and a consumer group running throughout. A
kafpy KRaft controller migrates it: the Apache broker is restarted with Kafka's documented
migration settings, registers with kafpy's controller as a migrating ZooKeeper broker, takes
the KRaft controller's UpdateMetadata, LeaderAndIsr and StopReplica in dual-write mode, and is
rolled into KRaft mode with the kafpy brokers; the controller finalizes and ZooKeeper stops.
Nothing acknowledged is lost, the group keeps its offsets, and Apache's kafka-metadata-quorum
reports the quorum with the Apache broker among its observers."""
from __future__ import annotations

import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from kafka.admin import KafkaAdminClient, NewTopic

from kafpy.metadata.image.partition import MIGRATING, UNASSIGNED
from kafpy.protocol.messages import (
    PartitionChangeRecord, PartitionRecord, RegisterBrokerRecord, TopicRecord, ZkMigrationStateRecord,
)
from tests.integration.cluster.harness import CLUSTER_OVERRIDES, metadata, wait_until
from tests.integration.migration.support import (
    CONTROLLER_ID, MigratingController, RollingApacheKafka, apache_kraft_properties, apache_migration_overrides,
    controller_port, finalize_controller_properties, roll_into_kraft, migrating_broker_overrides,
)
from tests.integration.migration.test_broker_roll import (
    GROUP, TOPIC, GroupConsumer, SteadyProducer, partitions_of, whole_log,
)
from tests.support.kafka_dist import run_tool
from tests.support.metadata_json import parse_dump

pytestmark = pytest.mark.timeout(420)
APACHE = 2
# every broker must agree on __consumer_offsets' partition count (a group's coordinator is
# hash(group) % partitions); three keeps the Python brokers quick
SETTINGS: dict[str, object] = {**CLUSTER_OVERRIDES, "offsets.topic.num.partitions": 3,
                               "transaction.state.log.num.partitions": 3, "group.initial.rebalance.delay.ms": 0}


# Kafka's BrokerLifecycleManager names a migrating ZooKeeper broker isZkBroker=true
ZK_UNFENCED = f"[BrokerLifecycleManager id={APACHE} isZkBroker=true] The broker has been unfenced"


def unfenced(broker: Any, node: int) -> bool:
    """The broker's log says the KRaft controller unfenced it as a KRaft broker."""
    return f"[BrokerLifecycleManager id={node}] The broker has been unfenced" in broker.log_text()


def full_isr(broker: Any) -> bool:
    parts = partitions_of(broker)
    return len(parts) == 3 and all(lead >= 0 and isr == [0, 1, 2] for _, lead, isr in parts)


# Apache's own race, against an Apache controller too: its AssignmentsManager sends the broker
# epoch of its metadata image, which names the previous registration until the broker has caught
# up, so the first AssignReplicasToDirs after a re-registration gets STALE_BROKER_EPOCH and is
# retried (the directories assigned in the end are checked in the log)
EXPECTED_ERRORS = ("[AssignmentsManager id=2] handleResponse: 6 assignments failed; global error: "
                   "Response-level error: STALE_BROKER_EPOCH. Retrying.",)


def apache_errors(apache: RollingApacheKafka) -> list[str]:
    """The ERROR lines of the Apache broker: each is a request of kafpy's it refused or an
    answer of kafpy's it could not use."""
    return [line for line in apache.log_text().splitlines()
            if "] ERROR " in line and not any(e in line for e in EXPECTED_ERRORS)]


def group_offsets(bootstrap: str) -> dict[int, tuple[int, int]]:
    """partition -> (committed offset, log end offset) as Apache 3.9.1's kafka-consumer-groups
    describes the group."""
    out = run_tool("3.9", "kafka-consumer-groups", ["--bootstrap-server", bootstrap, "--describe",
                                                    "--group", GROUP]).stdout
    rows = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 6 and f[0] == GROUP and f[1] == TOPIC:
            rows[int(f[2])] = (int(f[3]), int(f[4]))
    return rows


def test_apache_391_broker_is_migrated_with_kafpy_brokers(zookeeper, broker_factory, tmp_path):
    port = controller_port()
    kafpy = [broker_factory({**migrating_broker_overrides(port), **SETTINGS, "broker.id": i}, zookeeper=zookeeper,
                            start=False) for i in range(2)]
    apache = RollingApacheKafka(zookeeper.connect_string, APACHE, overrides=SETTINGS, work_dir=tmp_path / "apache",
                                log_dir=tmp_path / "apache" / "data")
    controller: MigratingController | None = None
    producer: SteadyProducer | None = None
    consumer: GroupConsumer | None = None
    rolled: list[Any] = []
    try:
        with ThreadPoolExecutor(3) as pool:
            list(pool.map(lambda start: start(), [kafpy[0].start, kafpy[1].start, apache.start]))
        brokers = [*kafpy, apache]
        bootstrap = [b.bootstrap for b in brokers]
        for b in brokers:
            wait_until(lambda b=b: (lambda md: sorted(x.node_id for x in md.brokers) == [0, 1, 2]
                                    and md.controller_id >= 0)(metadata(b)), 60, f"{b.bootstrap} knows the brokers")
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
        try:
            admin.create_topics([NewTopic(TOPIC, 3, 3)])
        finally:
            admin.close()
        producer, consumer = SteadyProducer(bootstrap), GroupConsumer(bootstrap)
        producer.start()
        consumer.start()
        wait_until(lambda: len(producer.acked) > 50 and len(consumer.seen) > 20, 60, "traffic before the migration")

        # the KRaft controller, then the Apache broker restarted with the migration settings
        controller = MigratingController(tmp_path / "controller", port, zookeeper.connect_string,
                                         metadata(kafpy[0]).cluster_id)
        controller.start()
        apache.overrides.update(apache_migration_overrides(port))
        apache.restart()
        wait_until(lambda: "from KRAFT_CONTROLLER_TO_BROKER_COMM to DUAL_WRITE" in controller.output(), 120,
                   "the migration driver in dual-write mode")
        registered = re.search(r"Successfully registered broker 2 with broker epoch (\d+)", apache.log_text())
        assert registered, apache.log_text()[-3000:]
        wait_until(lambda: ZK_UNFENCED in apache.log_text(), 60, "the Apache broker unfenced by kafpy's controller")
        for i, b in enumerate(kafpy):
            wait_until(lambda i=i, b=b: unfenced(b, i), 60, f"kafpy broker {i} unfenced")
        # dual write: a topic created and deleted reaches the Apache broker as LeaderAndIsr and StopReplica
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
        try:
            admin.create_topics([NewTopic("dual-write", 1, 3)])
            wait_until(lambda: any(t.name == "dual-write" and t.partitions[0].leader_id >= 0
                                   for t in metadata(apache).topics), 60, "the Apache broker learns of a new topic")
            admin.delete_topics(["dual-write"])
            wait_until(lambda: all(t.name != "dual-write" for t in metadata(apache).topics), 60,
                       "the Apache broker drops a deleted topic")
        finally:
            admin.close()
        wait_until(lambda: not (apache.log_dir / "dual-write-0").exists(), 60,
                   "the Apache broker deletes the topic's replica (StopReplica)")
        log = apache.log_text()  # Apache's state-change log: what it took from the KRaft controller
        for took in (f"in response to UpdateMetadata request sent by controller {CONTROLLER_ID}",
                     f"Handling LeaderAndIsr request correlationId \\d+ from controller {CONTROLLER_ID}",
                     f"Handling StopReplica request correlationId \\d+ from controller {CONTROLLER_ID}"):
            assert re.search(took, log), (took, log[-3000:])
        # a rolling restart in dual-write mode: the Apache broker registers again with a new broker
        # epoch; kafpy's controller sends it every partition's metadata and a LeaderAndIsr of its
        # replicas (Kafka's MigrationPropagator for a changed ZooKeeper broker), and its replicas
        # rejoin the ISR
        apache.restart()
        wait_until(lambda: apache.log_text().count(ZK_UNFENCED) == 2, 60,
                   "the restarted Apache broker unfenced by kafpy's controller")
        wait_until(lambda: full_isr(apache) and full_isr(kafpy[0]), 90,
                   "the Apache broker's replicas back in the ISR after its restart in dual-write mode")
        acked = len(producer.acked)
        wait_until(lambda: len(producer.acked) > acked + 20, 60, "traffic in dual-write mode")

        # the roll into KRaft mode, one broker at a time
        for i, old in enumerate(kafpy):
            new = roll_into_kraft(broker_factory, old, i, tmp_path, port)
            rolled.append(new)
            wait_until(lambda i=i, new=new: unfenced(new, i), 120, f"broker {i} back as a KRaft broker")
            wait_until(lambda new=new: full_isr(new), 120, f"every replica in sync after rolling broker {i}")
        apache.stop()
        apache.kraft = apache_kraft_properties(apache, port, SETTINGS)
        apache.start()
        rolled.append(apache)
        wait_until(lambda: unfenced(apache, APACHE), 60, "the Apache broker back as a KRaft broker")
        wait_until(lambda: full_isr(apache) and full_isr(rolled[0]), 120,
                   "every replica in sync after rolling the Apache broker")
        acked = len(producer.acked)
        wait_until(lambda: len(producer.acked) > acked + 20, 60, "traffic after the roll")

        controller.stop()
        finalize_controller_properties(controller)
        controller.start()
        wait_until(lambda: "writing ZkMigrationState POST_MIGRATION" in controller.output(), 60,
                   "the controller finalizing the migration")
        zookeeper.stop()
        acked = len(producer.acked)
        wait_until(lambda: len(producer.acked) > acked + 20, 60, "traffic with ZooKeeper gone")
        # the quorum as Apache Kafka 4.4's and 3.9.1's kafka-metadata-quorum describe it: kafpy's
        # controller leads, the three brokers (kafpy's and Apache's) follow it as observers
        quorum = ["--bootstrap-controller", f"127.0.0.1:{port}", "describe"]
        with ThreadPoolExecutor(3) as pool:
            status4, status39, replication = [f.result().stdout for f in [
                pool.submit(run_tool, "4", "kafka-metadata-quorum", [*quorum, "--status"]),
                pool.submit(run_tool, "3.9", "kafka-metadata-quorum", [*quorum, "--status"]),
                pool.submit(run_tool, "3.9", "kafka-metadata-quorum", [*quorum, "--replication"])]]
        for status in (status4, status39):
            assert f"LeaderId: {CONTROLLER_ID}" in " ".join(status.split()), status
        observers = {int(line.split()[0]) for line in replication.splitlines() if "Observer" in line}
        assert observers == {0, 1, APACHE}, replication
        producer.stopping.set()
        producer.join(180)
        wait_until(lambda: set(producer.acked) <= consumer.seen, 120, "the group saw every acknowledged record")
        consumer.stopping.set()
        consumer.join(30)
        final = [b.bootstrap for b in rolled]
        assert not producer.failed, producer.failed[:3]
        log_values = whole_log(final)
        duplicates = [v for v, n in Counter(log_values).items() if n > 1]
        assert not duplicates, duplicates[:10]
        assert set(producer.acked) <= set(log_values), sorted(set(producer.acked) - set(log_values))[:10]
        # the group's offsets survived the migration: committed at the end of every partition
        offsets = group_offsets(apache.bootstrap)
        assert sorted(offsets) == [0, 1, 2] and all(c == end for c, end in offsets.values()), offsets
        assert not apache_errors(apache), apache_errors(apache)[:10]
    finally:
        for thread in (producer, consumer):
            if thread is not None:
                thread.stopping.set()
                thread.join(60)
        # the brokers first: a KRaft broker's controlled shutdown asks the controller
        for b in [*rolled, apache]:
            b.stop()
        if controller is not None:
            controller.stop()
    records = [r for b in parse_dump(controller.dump_log()) for _, r in b.records]
    assert [r.zk_migration_state for r in records if isinstance(r, ZkMigrationStateRecord)] == [2, 1, 3]
    regs = [(r.broker_id, r.is_migrating_zk_broker) for r in records if isinstance(r, RegisterBrokerRecord)]
    assert (APACHE, True) in regs and regs[-1] == (APACHE, False), regs
    # the Apache broker in KRaft mode assigned its migrated replicas to its log directory
    (topic_id,) = [r.topic_id for r in records if isinstance(r, TopicRecord) and r.name == TOPIC]
    replicas = {r.partition_id: list(r.replicas) for r in records
                if isinstance(r, PartitionRecord) and r.topic_id == topic_id}
    directories: dict[int, bytes] = {}
    for r in records:
        if isinstance(r, PartitionChangeRecord) and r.topic_id == topic_id and r.directories:
            replicas[r.partition_id] = list(r.replicas) if r.replicas is not None else replicas[r.partition_id]
            directories[r.partition_id] = r.directories[replicas[r.partition_id].index(APACHE)]
    assert sorted(directories) == [0, 1, 2] and not {MIGRATING, UNASSIGNED} & set(directories.values()), \
        directories
