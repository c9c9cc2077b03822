"""The quorum controller's managers against Apache Kafka 4.4's own controller.

A scripted sequence of admin operations (topics created with configs, configs altered and
deleted, a broker default, ACLs added and removed, SCRAM users, client quotas, a topic
deleted, a feature safely downgraded) runs against an Apache Kafka 4.4 node (KRaft, combined roles) with Kafka's own
tools; ``kafka-dump-log --cluster-metadata-decoder`` gives the records its controller wrote.
The same operations, as the requests those tools send, then go through kafpy's managers,
starting from Kafka's own records up to the first operation (its features and broker
registration), each operation's records replayed before the next. Kafka writes each
operation as one batch; kafpy's records must equal that batch field by field.

Ignored, as random by nature: topic ids and ACL ids (compared by where they are used:
each side's ids are numbered in order of first use, so a PartitionRecord must name its own
TopicRecord's id and a RemoveTopicRecord the deleted topic's). Not ignored: the SCRAM
salt is random too, so kafpy's request carries the salt Kafka's tool chose (as the tool would
send it) and the stored and server keys kafpy derives from the password must be Kafka's.
Within one batch ConfigRecords, ClientQuotaRecords and PartitionChangeRecords are compared as
a multiset, as Kafka orders them by hash; the order of record types is compared exactly.

The broker's own lifecycle is compared too: its registration (the request rebuilt from what
Kafka registered), the heartbeat that unfences it, and, as the node stops, the controlled
shutdown and the fencing after it."""
from __future__ import annotations

import collections
import dataclasses
import random
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from kafpy.broker.security import scram as broker_scram
from kafpy.metadata.controller.acl_control_manager import AclControlManager
from kafpy.metadata.controller.client_quota_control_manager import ClientQuotaControlManager
from kafpy.metadata.controller.cluster_control_manager import ClusterControlManager
from kafpy.metadata.controller.configuration_control_manager import ConfigurationControlManager
from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import ControllerResult
from kafpy.metadata.controller.feature_control_manager import FeatureControlManager, QuorumFeatures
from kafpy.metadata.controller.replication_control_manager import ReplicationControlManager
from kafpy.metadata.controller.scram_control_manager import ScramControlManager
from kafpy.metadata.controller.striped_replica_placer import StripedReplicaPlacer
from kafpy.metadata.image.cluster import VersionRange
from kafpy.protocol import messages as M
from kafpy.protocol.messages import AlterClientQuotasRequest as CQ
from kafpy.protocol.messages import AlterUserScramCredentialsRequest as SC
from kafpy.protocol.messages import CreateAclsRequest as CA
from kafpy.protocol.messages import CreateTopicsRequest as CT
from kafpy.protocol.messages import DeleteAclsRequest as DA
from kafpy.protocol.messages import IncrementalAlterConfigsRequest as IA
from kafpy.protocol.messages import Message, Struct
from tests.support.kafka_dist import ReferenceKafka, run_tool
from tests.support.metadata_json import DumpedBatch, parse_dump

TOPIC, BROKER = 2, 4
SET, DELETE = 0, 1
# codes: resource TOPIC 2 / GROUP 3 / CLUSTER 4; pattern LITERAL 3 / PREFIXED 4;
# operation READ 3 / WRITE 4 / DESCRIBE 8 / IDEMPOTENT_WRITE 12; permission DENY 2 / ALLOW 3


class Acl(NamedTuple):
    resource_type: int
    resource_name: str
    pattern_type: int
    principal: str
    operation: int
    permission_type: int
    host: str = "*"

    def creation(self) -> CA:
        return CA(creations=[CA.AclCreation(
            resource_type=self.resource_type, resource_name=self.resource_name,
            resource_pattern_type=self.pattern_type, principal=self.principal, host=self.host,
            operation=self.operation, permission_type=self.permission_type)])

    def deletion(self) -> DA:
        return DA(filters=[DA.DeleteAclsFilter(
            resource_type_filter=self.resource_type, resource_name_filter=self.resource_name,
            pattern_type_filter=self.pattern_type, principal_filter=self.principal,
            host_filter=self.host, operation=self.operation, permission_type=self.permission_type)])


ALICE_READ = Acl(2, "alpha", 3, "User:alice", 3, 3)
BOB_DENY = Acl(2, "be", 4, "User:bob", 4, 2)
CAROL = Acl(3, "g1", 3, "User:carol", 8, 3)


@dataclasses.dataclass
class Managers:
    metadata: ControllerMetadata
    features: FeatureControlManager
    replication: ReplicationControlManager
    configs: ConfigurationControlManager
    acls: AclControlManager
    scram: ScramControlManager
    quotas: ClientQuotaControlManager

    @property
    def cluster(self) -> ClusterControlManager:
        return self.replication.cluster


Op = tuple[list[str], Callable[[Managers, list[Message]], ControllerResult[object]]]


def _topic(name: str, partitions: int, **configs: str) -> CT:
    return CT(topics=[CT.CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=-1,
        configs=[CT.CreatableTopicConfig(name=k.replace("_", "."), value=v) for k, v in configs.items()])])


def _alter(rtype: int, name: str, *ops: tuple[str, int, str | None]) -> IA:
    return IA(resources=[IA.AlterConfigsResource(resource_type=rtype, resource_name=name, configs=[
        IA.AlterableConfig(name=k, config_operation=op, value=v) for k, op, v in ops])])


def _scram_upsert(user: str, mechanism: int, password: str, iterations: int,
                  kafka_batch: list[Message]) -> SC:
    """The request kafka-configs sends: the salt it drew (read back from Kafka's record, being
    random) and the password salted with it."""
    salts = [r.salt for r in kafka_batch if isinstance(r, M.UserScramCredentialRecord) and r.name == user]
    assert len(salts) == 1, kafka_batch
    name = "SCRAM-SHA-256" if mechanism == 1 else "SCRAM-SHA-512"
    salted = broker_scram.salted_password(name, password, salts[0], iterations)
    return SC(upsertions=[SC.ScramCredentialUpsertion(name=user, mechanism=mechanism, iterations=iterations,
                                                      salt=salts[0], salted_password=salted)])


def _quota(entity: list[tuple[str, str | None]], *ops: tuple[str, float | None]) -> CQ:
    return CQ(entries=[CQ.EntryData(
        entity=[CQ.EntityData(entity_type=t, entity_name=n) for t, n in entity],
        ops=[CQ.OpData(key=k, value=v or 0.0, remove=v is None) for k, v in ops])])


def _ops() -> list[Op]:
    """(kafka tool and its arguments, the same operation through kafpy's managers)."""
    return [
        (["kafka-topics", "--create", "--topic", "alpha", "--partitions", "3",
          "--config", "retention.ms=12345", "--config", "cleanup.policy=compact"],
         lambda m, _k: m.replication.create_topics(_topic("alpha", 3, retention_ms="12345",
                                                          cleanup_policy="compact"))),
        (["kafka-topics", "--create", "--topic", "beta", "--partitions", "2",
          "--config", "segment.ms=600000", "--config", "retention.bytes=1048576"],
         lambda m, _k: m.replication.create_topics(_topic("beta", 2, segment_ms="600000",
                                                          retention_bytes="1048576"))),
        (["kafka-configs", "--alter", "--entity-type", "topics", "--entity-name", "beta",
          "--delete-config", "retention.bytes", "--add-config", "max.message.bytes=2000000"],
         lambda m, _k: m.configs.incremental_alter_configs(_alter(
             TOPIC, "beta", ("retention.bytes", DELETE, None), ("max.message.bytes", SET, "2000000")))),
        (["kafka-topics", "--create", "--topic", "gone", "--partitions", "1", "--config", "retention.ms=1"],
         lambda m, _k: m.replication.create_topics(_topic("gone", 1, retention_ms="1"))),
        (["kafka-topics", "--delete", "--topic", "gone"],
         lambda m, _k: m.replication.delete_topics(names=["gone"])),
        (["kafka-acls", "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "alpha"],
         lambda m, _k: m.acls.create_acls(ALICE_READ.creation())),
        (["kafka-acls", "--add", "--deny-principal", "User:bob", "--operation", "Write",
          "--topic", "be", "--resource-pattern-type", "prefixed"],
         lambda m, _k: m.acls.create_acls(BOB_DENY.creation())),
        (["kafka-acls", "--add", "--allow-principal", "User:carol", "--operation", "Describe", "--group", "g1"],
         lambda m, _k: m.acls.create_acls(CAROL.creation())),
        (["kafka-acls", "--remove", "--force", "--allow-principal", "User:carol",
          "--operation", "Describe", "--group", "g1"],
         lambda m, _k: m.acls.delete_acls(CAROL.deletion())),
        (["kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "alice",
          "--add-config", "SCRAM-SHA-256=[iterations=8192,password=secret]"],
         lambda m, k: m.scram.alter_credentials(_scram_upsert("alice", 1, "secret", 8192, k))),
        (["kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "bob",
          "--add-config", "SCRAM-SHA-512=[password=pw]"],
         lambda m, k: m.scram.alter_credentials(_scram_upsert("bob", 2, "pw", 4096, k))),
        (["kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "bob",
          "--delete-config", "SCRAM-SHA-512"],
         lambda m, _k: m.scram.alter_credentials(SC(deletions=[SC.ScramCredentialDeletion(name="bob", mechanism=2)]))),
        (["kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "alice",
          "--add-config", "producer_byte_rate=1024,consumer_byte_rate=2048"],
         lambda m, _k: m.quotas.alter_client_quotas(_quota(
             [("user", "alice")], ("producer_byte_rate", 1024.0), ("consumer_byte_rate", 2048.0)))),
        (["kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "alice",
          "--delete-config", "consumer_byte_rate"],
         lambda m, _k: m.quotas.alter_client_quotas(_quota([("user", "alice")], ("consumer_byte_rate", None)))),
        (["kafka-configs", "--alter", "--entity-type", "clients", "--entity-default",
          "--add-config", "producer_byte_rate=4096"],
         lambda m, _k: m.quotas.alter_client_quotas(_quota([("client-id", None)], ("producer_byte_rate", 4096.0)))),
        (["kafka-features", "downgrade", "--feature", "transaction.version=1"],
         lambda m, _k: m.features.update_features(M.UpdateFeaturesRequest(feature_updates=[
             M.UpdateFeaturesRequest.FeatureUpdateKey(feature="transaction.version", max_version_level=1,
                                                      upgrade_type=2)]))),
        (["kafka-configs", "--alter", "--entity-type", "brokers", "--entity-default",
          "--add-config", "log.cleaner.threads=2"],
         lambda m, _k: m.configs.incremental_alter_configs(_alter(BROKER, "", ("log.cleaner.threads", SET, "2")))),
    ]


@dataclasses.dataclass
class Run:
    bootstrap: list[tuple[int, Message]]   # Kafka's records before the first operation
    batches: list[list[Message]]           # the batches after it (NoOps left out), in order

    def trailing(self) -> list[list[Message]]:
        """The batches after the operations: the node's controlled shutdown as it stopped."""
        return self.batches[len(_ops()):]


def _is_admin_batch(batch: DumpedBatch) -> bool:
    return not batch.is_control and not all(isinstance(r, M.NoOpRecord) for _o, r in batch.records)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    base = tmp_path_factory.mktemp("controller-interop")
    kafka = ReferenceKafka("4", work_dir=base / "kafka", overrides={
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:ANONYMOUS"})
    partition_dir: Path = kafka.work_dir / "metadata" / "__cluster_metadata-0"
    kafka.start()
    try:
        for args, _ours in _ops():
            if args[0] == "kafka-configs" and "users" in args and "--delete-config" in args:
                # a user's quota or credential set by the operation before: wait until described
                kafka.wait_user_config_described(args[args.index("--entity-name") + 1],
                                                 args[args.index("--delete-config") + 1])
            kafka.run_tool(args[0], ["--bootstrap-server", kafka.bootstrap, *args[1:]])
            if args[:2] == ["kafka-topics", "--create"]:
                # the next operation alters or deletes it through this broker's metadata
                kafka.wait_topic_listed(args[args.index("--topic") + 1])
    finally:
        kafka.stop()
    files = ",".join(str(p) for p in sorted(partition_dir.glob("*.log")))
    dumped = parse_dump(run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", files]).stdout)
    first = next(i for i, b in enumerate(dumped)
                 if any(isinstance(r, M.TopicRecord) for _o, r in b.records))
    bootstrap = [(o, r) for b in dumped[:first] if not b.is_control for o, r in b.records]
    # a NoOpRecord (written every half second) may share a batch with an operation
    batches = [[r for _o, r in b.records if not isinstance(r, M.NoOpRecord)]
               for b in dumped[first:] if _is_admin_batch(b)]
    yield Run(bootstrap, batches)


def _managers(bootstrap: list[tuple[int, Message]]) -> Managers:
    metadata = ControllerMetadata()
    for offset, record in bootstrap:
        metadata.replay(record, offset)
    # this controller supports what Kafka's own controller registered it supports
    (controller,) = [r for _o, r in bootstrap if isinstance(r, M.RegisterControllerRecord)]
    local = {f.name: VersionRange(f.min_supported_version, f.max_supported_version)
             for f in controller.features}
    features = FeatureControlManager(metadata, QuorumFeatures(1, local))
    cluster = ClusterControlManager(metadata, features, "unused", 9000)
    configs = ConfigurationControlManager(metadata)
    ids = iter(range(1, 1 << 20))

    def new_uuid() -> bytes:
        return uuid.UUID(int=next(ids)).bytes
    replication = ReplicationControlManager(metadata, features, cluster, configs,
                                            StripedReplicaPlacer(random.Random(0)), new_uuid)
    return Managers(metadata, features, replication, configs, AclControlManager(metadata, new_uuid),
                    ScramControlManager(metadata), ClientQuotaControlManager(metadata))


class UuidNames:
    """Numbers each side's uuids in order of first use (ids are random by nature)."""

    def __init__(self) -> None:
        self.names: dict[bytes, str] = {}

    def name(self, value: bytes) -> str:
        return self.names.setdefault(value, f"uuid#{len(self.names)}")


def _normalized(record: Message, uuids: UuidNames) -> str:
    fields = []
    for f in type(record).FIELDS:
        value = getattr(record, f.name)
        if f.name in ("topic_id", "id") and isinstance(value, bytes):
            value = uuids.name(value)
        elif isinstance(value, list) and value and isinstance(value[0], Struct):
            value = sorted(map(repr, value))
        fields.append(f"{f.name}={value!r}")
    return f"{type(record).__name__}({', '.join(fields)})"


_UNORDERED = (M.ConfigRecord, M.ClientQuotaRecord, M.PartitionChangeRecord)


def _shape(records: list[Message]) -> list[str]:
    """The sequence of record types, runs of hash-ordered ones collapsed."""
    out: list[str] = []
    for r in records:
        name = type(r).__name__
        if not (isinstance(r, _UNORDERED) and out and out[-1] == name):
            out.append(name)
    return out


def _same(ours: list[Message], kafka: list[Message], our_ids: UuidNames, kafka_ids: UuidNames,
          what: object) -> None:
    assert _shape(ours) == _shape(kafka), (what, ours, kafka)
    assert collections.Counter(_normalized(r, our_ids) for r in ours) == \
        collections.Counter(_normalized(r, kafka_ids) for r in kafka), what


def _run_ops(m: Managers, run: Run, our_ids: UuidNames, kafka_ids: UuidNames) -> None:
    for (args, ours), kafka_batch in zip(_ops(), run.batches):
        result = ours(m, kafka_batch)
        _same(result.records, kafka_batch, our_ids, kafka_ids, args)
        m.metadata.replay_all(result.records)


def test_kafpys_managers_write_what_kafka_44_writes(run: Run) -> None:
    assert len(run.batches) >= len(_ops()), [[type(r).__name__ for r in b] for b in run.batches]
    lifecycle = (M.BrokerRegistrationChangeRecord, M.PartitionChangeRecord)
    assert all(isinstance(r, lifecycle) for b in run.trailing() for r in b), run.trailing()
    m = _managers(run.bootstrap)
    _run_ops(m, run, UuidNames(), UuidNames())
    # and the image both sides end with is the same but for the random ids
    assert sorted(m.metadata.image.configs.topic_config("beta").items()) == \
        [("max.message.bytes", "2000000"), ("segment.ms", "600000")]
    assert m.metadata.image.topic("gone") is None


def _registration_request(record: M.RegisterBrokerRecord) -> M.BrokerRegistrationRequest:
    """The BrokerRegistrationRequest Kafka's broker sent, read back from what it registered."""
    R = M.BrokerRegistrationRequest
    return R(broker_id=record.broker_id, cluster_id="unused", incarnation_id=record.incarnation_id,
             listeners=[R.Listener(name=e.name, host=e.host, port=e.port, security_protocol=e.security_protocol)
                        for e in record.end_points],
             features=[R.Feature(name=f.name, min_supported_version=f.min_supported_version,
                                 max_supported_version=f.max_supported_version) for f in record.features],
             rack=record.rack, log_dirs=list(record.log_dirs))


def test_the_broker_lifecycle_as_kafka_44_writes_it(run: Run) -> None:
    """Registration, unfencing once caught up, and at the end the controlled shutdown that
    moves every partition's ISR to its ELR, then the fencing that lets the broker go."""
    (register_at, kafka_register), = [(o, r) for o, r in run.bootstrap
                                       if isinstance(r, M.RegisterBrokerRecord)]
    m = _managers([(o, r) for o, r in run.bootstrap if o < register_at])
    our_ids, kafka_ids = UuidNames(), UuidNames()
    result = m.cluster.register_broker(_registration_request(kafka_register), register_at, now_ms=0)
    _same(result.records, [kafka_register], our_ids, kafka_ids, "registration")
    m.metadata.replay_all(result.records, register_at)
    # the broker's first heartbeat once caught up: unfenced, and its cordoned log directories
    # (none) recorded; Kafka may have taken one heartbeat or two for these
    after = [r for o, r in run.bootstrap if o > register_at and not isinstance(r, M.NoOpRecord)]
    heartbeat = m.replication.process_broker_heartbeat(M.BrokerHeartbeatRequest(
        broker_id=1, broker_epoch=register_at, current_metadata_offset=register_at,
        cordoned_log_dirs=[]), now_ms=10)
    assert not heartbeat.response.is_fenced and heartbeat.response.is_caught_up
    assert collections.Counter(_normalized(r, our_ids) for r in heartbeat.records) == \
        collections.Counter(_normalized(r, kafka_ids) for r in after)
    m.metadata.replay_all(heartbeat.records)
    _run_ops(m, run, our_ids, kafka_ids)
    shutdown, fence = run.trailing()
    reg = m.cluster.registration(1)
    assert reg is not None
    first = m.replication.process_broker_heartbeat(M.BrokerHeartbeatRequest(
        broker_id=1, broker_epoch=reg.epoch, current_metadata_offset=m.metadata.last_offset,
        want_shut_down=True), now_ms=20)
    _same(first.records, shutdown, our_ids, kafka_ids, "controlled shutdown")
    m.metadata.replay_all(first.records)
    second = m.replication.process_broker_heartbeat(M.BrokerHeartbeatRequest(
        broker_id=1, broker_epoch=reg.epoch, current_metadata_offset=m.metadata.last_offset,
        want_shut_down=True), now_ms=30)
    assert second.response.should_shut_down
    _same(second.records, fence, our_ids, kafka_ids, "shutdown")
