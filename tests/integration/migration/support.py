"""What the migration tests share: a ZooKeeper-mode cluster of kafpy brokers started with
``zookeeper.metadata.migration.enable``, the metadata a user would have in it (topics with
configs, a broker default config, a SCRAM user with a quota, a client quota, ACLs, an idempotent
producer's producer id block), a kafpy KRaft controller (``process.roles=controller``) started
with the migration flag, and ZooKeeper's content read straight off the znodes (json and kazoo,
not kafpy's ZooKeeper code) to hold the migrated image to."""
from __future__ import annotations

import base64
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from tests.integration.cluster.harness import CLUSTER_OVERRIDES
from tests.integration.raft.quorum_support import REPO_ROOT, controller_properties, kafpy_format, write_properties
from tests.integration.security.raw_acls import ALLOW, DENY, DESCRIBE, LITERAL, PREFIXED, READ, TOPIC, create_acl
from tests.support.kafka_dist import run_tool
from tests.support.ports import LOOPBACK, free_ports
from tests.support.process import terminate
from tests.support.zk_kafka import ZkReferenceKafka

WRITE = 4  # AclOperation.WRITE
CONTROLLER_ID = 3000  # the node id Kafka's migration guide gives its first controller
AUTHORIZER = {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
              "allow.everyone.if.no.acl.found": "true"}


def migrating_broker_overrides(controller_port: int) -> dict[str, object]:
    """What Kafka's guide adds to every ZooKeeper broker before the migration."""
    return {**CLUSTER_OVERRIDES, **AUTHORIZER,
            "zookeeper.metadata.migration.enable": "true",
            "controller.quorum.voters": f"{CONTROLLER_ID}@{LOOPBACK}:{controller_port}",
            "controller.listener.names": "CONTROLLER",
            "broker.heartbeat.interval.ms": "500"}


def create_user_metadata(brokers: list[Any]) -> None:
    """Topics, configs, a SCRAM user and quotas (Apache Kafka 3.9.1's kafka-configs.sh, as a
    user of a ZooKeeper cluster runs it), ACLs, and a producer id block."""
    bootstrap = ",".join(b.bootstrap for b in brokers)
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic("orders", 6, 3, topic_configs={"retention.ms": "3600000",
                                                                     "cleanup.policy": "delete"}),
                             NewTopic("events", 3, 3, topic_configs={"max.message.bytes": "200000"})])
    finally:
        admin.close()
    configs = [
        ["--entity-type", "users", "--entity-name", "alice", "--add-config",
         "SCRAM-SHA-256=[iterations=4096,password=alice-secret]"],
        ["--entity-type", "users", "--entity-name", "alice", "--add-config", "producer_byte_rate=1048576"],
        ["--entity-type", "clients", "--entity-name", "reporting", "--add-config", "consumer_byte_rate=2097152"],
        ["--entity-type", "brokers", "--entity-default", "--add-config", "log.cleaner.threads=2"],
    ]
    for args in configs:
        run_tool("3.9", "kafka-configs", ["--bootstrap-server", bootstrap, "--alter", *args])
    producer = KafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True, acks="all")
    try:
        for future in [producer.send("orders", f"before-{i}".encode()) for i in range(10)]:
            future.get(30)
    finally:
        producer.close()
    create_acl(brokers[0], TOPIC, "orders", READ, ALLOW, LITERAL, principal="User:alice")
    create_acl(brokers[0], TOPIC, "orders", WRITE, DENY, LITERAL, principal="User:mallory")
    create_acl(brokers[0], TOPIC, "ev", DESCRIBE, ALLOW, PREFIXED, principal="User:alice")


class MigratingController:
    """One kafpy KRaft controller started with the migration flag: its properties, process, log."""

    def __init__(self, work: Path, port: int, zk_connect: str, cluster_id: str) -> None:
        self.work = work
        self.port = port
        self.config = write_properties(work / "controller.properties", controller_properties(
            CONTROLLER_ID, {CONTROLLER_ID: port}, work,
            {"zookeeper.metadata.migration.enable": "true", "zookeeper.connect": zk_connect}))
        # Kafka 3.9's migration runs at a 3.x metadata.version (the guide formats with ZooKeeper's
        # cluster id and the release the ZooKeeper brokers run)
        kafpy_format(self.config, cluster_id, "--release-version", "3.9-IV0")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def metadata_dir(self) -> Path:
        return self.work / f"controller-{CONTROLLER_ID}" / "__cluster_metadata-0"

    def start(self) -> None:
        with open(self.work / "controller.out", "ab") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "kafpy.broker", str(self.config)], stdout=out,
                                         stderr=subprocess.STDOUT, cwd=REPO_ROOT, start_new_session=True)

    def output(self) -> str:
        path = self.work / "controller.out"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.proc is not None:
            terminate(self.proc, timeout=20)
            self.proc = None

    def dump_log(self) -> str:
        """Apache Kafka 4.4's ``kafka-dump-log --cluster-metadata-decoder`` of every segment."""
        segments = sorted(str(p) for p in self.metadata_dir.glob("*.log"))
        return run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", ",".join(segments)]).stdout


def controller_port() -> int:
    (port,) = free_ports(1)
    return port


# -- ZooKeeper as it is, read with kazoo and json -----------------------------------------

@dataclass
class ZkContent:
    cluster_id: str
    topic_ids: dict[str, str]
    partitions: dict[tuple[str, int], tuple[list[int], list[int], int, int, int]]  # replicas isr leader epoch pe
    topic_configs: dict[str, dict[str, str]]
    broker_configs: dict[str, dict[str, str]]
    scram: dict[tuple[str, str], tuple[bytes, int]]  # (user, mechanism) -> (salt, iterations)
    quotas: dict[tuple[tuple[str, str | None], ...], dict[str, float]]
    acls: set[tuple[str, str, str, str, str, str, str]]  # prefixed?, type, name, principal, host, op, perm
    next_producer_id: int | None


def read_zookeeper(connect: str) -> ZkContent:
    zk = KazooClient(hosts=connect)
    zk.start(30)
    try:
        def js(path: str) -> Any:
            data, _ = zk.get(path)
            return json.loads(data) if data else None

        cluster_id = js("/cluster/id")["id"]
        topic_ids, partitions, topic_configs = {}, {}, {}
        deleting = set(zk.get_children("/admin/delete_topics")) if zk.exists("/admin/delete_topics") else set()
        for topic in set(zk.get_children("/brokers/topics")) - deleting:
            t = js(f"/brokers/topics/{topic}")
            topic_ids[topic] = t["topic_id"]
            for p, replicas in t["partitions"].items():
                data, stat = zk.get(f"/brokers/topics/{topic}/partitions/{p}/state")
                s = json.loads(data)
                partitions[(topic, int(p))] = (replicas, s["isr"], s["leader"], s["leader_epoch"], stat.version)
            if zk.exists(f"/config/topics/{topic}"):
                topic_configs[topic] = js(f"/config/topics/{topic}")["config"]
        broker_configs = {("" if b == "<default>" else b): js(f"/config/brokers/{b}")["config"]
                          for b in zk.get_children("/config/brokers")}
        scram: dict[tuple[str, str], tuple[bytes, int]] = {}
        quotas: dict[tuple[tuple[str, str | None], ...], dict[str, float]] = {}
        for ztype, qtype in (("users", "user"), ("clients", "client-id"), ("ips", "ip")):
            for name in zk.get_children(f"/config/{ztype}"):
                config = dict(js(f"/config/{ztype}/{name}")["config"])
                for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
                    if mechanism in config:
                        fields = dict(kv.split("=", 1) for kv in config.pop(mechanism).split(","))
                        scram[(unquote(name), mechanism)] = (base64.b64decode(fields["salt"]),
                                                             int(fields["iterations"]))
                if config:
                    entity: tuple[tuple[str, str | None], ...] = (
                        (qtype, None if name == "<default>" else unquote(name)),)
                    quotas[entity] = {k: float(v) for k, v in config.items()}
        acls = set()
        for root, prefixed in (("/kafka-acl", "LITERAL"), ("/kafka-acl-extended/prefixed", "PREFIXED")):
            if not zk.exists(root):
                continue
            for rtype in zk.get_children(root):
                for name in zk.get_children(f"{root}/{rtype}"):
                    for a in js(f"{root}/{rtype}/{name}")["acls"]:
                        acls.add((prefixed, rtype, name, a["principal"], a["host"], a["operation"],
                                  a["permissionType"]))
        block = js("/latest_producer_id_block") if zk.exists("/latest_producer_id_block") else None
        next_pid = int(block["block_end"]) + 1 if block else None
        return ZkContent(cluster_id, topic_ids, partitions, topic_configs, broker_configs, scram, quotas, acls,
                         next_pid)
    finally:
        zk.stop()
        zk.close()


def read_znode(connect: str, path: str) -> tuple[Any, int] | None:
    """A znode's JSON and version (None when it does not exist)."""
    zk = KazooClient(hosts=connect)
    zk.start(30)
    try:
        try:
            data, stat = zk.get(path)
        except NoNodeError:   # absent, or deleted since a look that found it
            return None
        return json.loads(data), stat.version
    finally:
        zk.stop()
        zk.close()


def kraft_broker_properties(path: Path, node_id: int, port: int, log_dir: Path, controller_port: int) -> Path:
    """What Kafka's guide gives a broker rolled into KRaft mode: process.roles=broker, its
    broker id as node.id, the controllers, no zookeeper.connect and no migration flag."""
    return write_properties(path, {
        "process.roles": "broker", "node.id": str(node_id), "broker.id": str(node_id),
        "controller.quorum.voters": f"{CONTROLLER_ID}@{LOOPBACK}:{controller_port}",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "listeners": f"PLAINTEXT://{LOOPBACK}:{port}", "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{port}",
        "inter.broker.listener.name": "PLAINTEXT", "log.dirs": str(log_dir),
        "default.replication.factor": "3", "offsets.topic.replication.factor": "3",
        "replica.lag.time.max.ms": "10000", "broker.heartbeat.interval.ms": "500",
        "group.initial.rebalance.delay.ms": "0",
    })


def roll_into_kraft(broker_factory: Any, old: Any, node_id: int, work: Path, controller_port: int) -> Any:
    """One step of the roll: the ZooKeeper-mode kafpy broker ``old`` stopped and started again
    as a KRaft broker on its port and log dir (``kraft_broker_properties``); the new broker."""
    old.stop()
    config = kraft_broker_properties(work / f"kraft-broker-{node_id}.properties", node_id, old.port, old.log_dir,
                                     controller_port)
    return broker_factory({}, port=old.port, log_dir=old.log_dir, config=config)


def finalize_controller_properties(controller: MigratingController) -> None:
    """Kafka's guide, last step: the controllers restarted without the migration flag and
    without zookeeper.connect."""
    lines = [line for line in controller.config.read_text().splitlines()
             if not line.startswith(("zookeeper.metadata.migration.enable=", "zookeeper.connect="))]
    controller.config.write_text("\n".join(lines) + "\n")


def apache_migration_overrides(controller_port: int) -> dict[str, str]:
    """Kafka 3.9's guide for a ZooKeeper broker joining the migration: the flag, the
    controllers, their listener and its security protocol, and the inter-broker protocol
    pinned to the release the controllers were formatted at."""
    return {"zookeeper.metadata.migration.enable": "true",
            "controller.quorum.voters": f"{CONTROLLER_ID}@{LOOPBACK}:{controller_port}",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "inter.broker.protocol.version": "3.9",
            "broker.heartbeat.interval.ms": "500"}


def apache_kraft_properties(broker: Any, controller_port: int, settings: dict[str, object]) -> dict[str, str]:
    """An Apache Kafka 3.9.1 ZooKeeper broker rolled into KRaft mode (the guide's last broker
    step): process.roles=broker, its broker.id as node.id, the same listener and log dirs,
    no zookeeper.connect and no migration flag."""
    props: dict[str, object] = {
        **{k: v for k, v in settings.items() if not k.startswith("zookeeper.") and k != "broker.id"},
        "process.roles": "broker", "node.id": broker.node_id,
        "controller.quorum.voters": f"{CONTROLLER_ID}@{LOOPBACK}:{controller_port}",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "listeners": f"PLAINTEXT://{LOOPBACK}:{broker.port}",
        "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{broker.port}",
        "inter.broker.listener.name": "PLAINTEXT", "log.dirs": broker.log_dir,
        "num.partitions": 1, "group.initial.rebalance.delay.ms": 0, "broker.heartbeat.interval.ms": 500,
    }
    return {k: str(v) for k, v in props.items()}


class RollingApacheKafka(ZkReferenceKafka):
    """An Apache Kafka 3.9.1 broker that starts in ZooKeeper mode and is rolled through the
    migration: ``overrides`` changed for the migration restart, ``kraft`` set for the roll into
    KRaft mode (then its properties are those alone)."""

    kraft: dict[str, str] | None = None

    def properties(self) -> dict[str, str]:
        return dict(self.kraft) if self.kraft is not None else super().properties()
