"""The metadata image against Apache Kafka 4.4's own metadata log.

An Apache Kafka 4.4 node (KRaft, combined roles, StandardAuthorizer) gets topics with
configs, a deleted topic, a removed config key, ACLs (one added and removed again), SCRAM
users (one credential deleted), client quotas (one key deleted), a broker default config and
a block of producer ids (an idempotent producer);
Kafka's Admin tools describe what it holds, and Kafka writes a snapshot once all of it is in.
The node is stopped, ``kafka-dump-log --cluster-metadata-decoder`` prints its log and that
snapshot as JSON records, and kafpy replays them into its image:

- the image at the snapshot's offset holds what kafka-topics / kafka-configs / kafka-acls /
  kafka-features answered (so field names and semantics are Kafka's);
- Kafka's own snapshot, replayed, is the same image, and kafpy writes the same records for it;
- the controlled shutdown at the end of the log leaves the broker fenced and in controlled
  shutdown, and each partition leaderless with the broker moved from the ISR to the ELR.
"""
from __future__ import annotations

import collections
import dataclasses
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafpy.broker.security.acl import AclOperation, AclPermissionType, PatternType, ResourceType
from kafpy.metadata.image.loader import MetadataBatchLoader
from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import EMPTY_PROVENANCE
from kafpy.metadata.image.scram import ScramMechanism
from kafpy.metadata.image.uuids import uuid_str
from kafpy.protocol.messages import Message, Struct
from tests.support.kafka_dist import ReferenceKafka, run_tool
from tests.support.metadata_json import DumpedBatch, parse_dump

SETTINGS = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:ANONYMOUS",
    # a snapshot every 2 s once there is something new, so one covers all the changes soon
    "metadata.log.max.snapshot.interval.ms": 2000,
}
SNAPSHOT_WAIT_S = 90


@dataclasses.dataclass
class Run:
    described: dict[str, str]
    log_batches: list[DumpedBatch]
    snapshot_end_offset: int
    snapshot_batches: list[DumpedBatch]


def _changes(kafka: ReferenceKafka) -> None:
    bs = ["--bootstrap-server", kafka.bootstrap]

    def tool(name: str, *args: str) -> None:
        kafka.run_tool(name, [*bs, *args])
        if (name, args[0]) == ("kafka-topics", "--create"):
            # the next tool alters or deletes it through this broker's metadata
            kafka.wait_topic_listed(args[args.index("--topic") + 1])

    tool("kafka-topics", "--create", "--topic", "alpha", "--partitions", "3",
         "--config", "retention.ms=12345", "--config", "cleanup.policy=compact")
    tool("kafka-topics", "--create", "--topic", "beta", "--partitions", "2",
         "--config", "segment.ms=600000", "--config", "retention.bytes=1048576")
    tool("kafka-configs", "--alter", "--entity-type", "topics", "--entity-name", "beta",
         "--delete-config", "retention.bytes")
    tool("kafka-topics", "--create", "--topic", "gone", "--partitions", "1",
         "--config", "retention.ms=1")
    tool("kafka-topics", "--delete", "--topic", "gone")
    tool("kafka-acls", "--add", "--allow-principal", "User:alice", "--operation", "Read",
         "--topic", "alpha")
    tool("kafka-acls", "--add", "--deny-principal", "User:bob", "--operation", "Write",
         "--topic", "be", "--resource-pattern-type", "prefixed")
    tool("kafka-acls", "--add", "--allow-principal", "User:carol", "--operation", "Describe",
         "--group", "g1")
    tool("kafka-acls", "--add", "--allow-principal", "User:dave", "--allow-host", "10.0.0.1",
         "--operation", "IdempotentWrite", "--cluster")
    tool("kafka-acls", "--remove", "--force", "--allow-principal", "User:carol",
         "--operation", "Describe", "--group", "g1")
    tool("kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "alice",
         "--add-config", "SCRAM-SHA-256=[iterations=8192,password=secret]")
    tool("kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "bob",
         "--add-config", "SCRAM-SHA-512=[password=pw]")
    tool("kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "bob",
         "--add-config", "SCRAM-SHA-256=[password=pw2]")
    kafka.wait_user_config_described("bob", "SCRAM-SHA-512")
    tool("kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "bob",
         "--delete-config", "SCRAM-SHA-512")
    tool("kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "alice",
         "--add-config", "producer_byte_rate=1024,consumer_byte_rate=2048")
    kafka.wait_user_config_described("alice", "consumer_byte_rate")
    tool("kafka-configs", "--alter", "--entity-type", "users", "--entity-name", "alice",
         "--delete-config", "consumer_byte_rate")
    tool("kafka-configs", "--alter", "--entity-type", "clients", "--entity-default",
         "--add-config", "producer_byte_rate=4096")
    tool("kafka-configs", "--alter", "--entity-type", "brokers", "--entity-default",
         "--add-config", "log.cleaner.threads=2")
    # an idempotent producer: the controller hands out a block of producer ids
    kafka.run_tool("kafka-console-producer", [*bs, "--topic", "alpha"], input="one\ntwo\n")


def _describe(kafka: ReferenceKafka) -> dict[str, str]:
    bs = ["--bootstrap-server", kafka.bootstrap]
    commands = {
        "topics": ("kafka-topics", ["--describe"]),
        "topic_configs": ("kafka-configs", ["--describe", "--entity-type", "topics"]),
        "broker_defaults": ("kafka-configs", ["--describe", "--entity-type", "brokers",
                                              "--entity-default"]),
        "acls": ("kafka-acls", ["--list"]),
        "users": ("kafka-configs", ["--describe", "--entity-type", "users"]),
        "default_client": ("kafka-configs", ["--describe", "--entity-type", "clients",
                                             "--entity-default"]),
        "features": ("kafka-features", ["describe"]),
        "quorum": ("kafka-metadata-quorum", ["describe", "--status"]),
    }
    return {key: kafka.run_tool(tool, [*bs, *args]).stdout for key, (tool, args) in commands.items()}


def _checkpoints(partition_dir: Path) -> dict[int, Path]:
    return {int(p.name.split("-")[0]): p for p in partition_dir.glob("*.checkpoint")}


def _dump(path: Path | list[Path]) -> list[DumpedBatch]:
    files = ",".join(str(p) for p in (path if isinstance(path, list) else [path]))
    return parse_dump(run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", files]).stdout)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    base = tmp_path_factory.mktemp("metadata-image")
    kafka = ReferenceKafka("4", work_dir=base / "kafka", overrides=SETTINGS)
    partition_dir = kafka.work_dir / "metadata" / "__cluster_metadata-0"
    kafka.start()
    try:
        _changes(kafka)
        described = _describe(kafka)
        m = re.search(r"HighWatermark:\s+(\d+)", described["quorum"])
        assert m, described["quorum"]
        high_watermark = int(m[1])
        deadline = time.monotonic() + SNAPSHOT_WAIT_S
        while not any(end >= high_watermark for end in _checkpoints(partition_dir)):
            assert time.monotonic() < deadline, f"no snapshot at or past offset {high_watermark}"
            time.sleep(0.5)
    finally:
        kafka.stop()
    end_offset = min(end for end in _checkpoints(partition_dir) if end >= high_watermark)
    segments = sorted(partition_dir.glob("*.log"))
    yield Run(described, _dump(segments), end_offset, _dump(_checkpoints(partition_dir)[end_offset]))


def _load(batches: list[DumpedBatch], end_offset: int | None = None) -> MetadataImage:
    """Replay the batches (those below ``end_offset``) as a node's loader does."""
    loader = MetadataBatchLoader(EMPTY_IMAGE, lambda _delta, _image: None)
    for batch in batches:
        if end_offset is not None and batch.base_offset >= end_offset:
            break
        if not batch.is_control:
            loader.load_batch(batch.base_offset, batch.epoch, batch.append_time_ms,
                              [record for _offset, record in batch.records])
            loader.maybe_flush()
    return loader.image


@pytest.fixture(scope="module")
def image(run: Run) -> MetadataImage:
    image = _load(run.log_batches, run.snapshot_end_offset)
    assert image.provenance.last_contained_offset == run.snapshot_end_offset - 1
    return image


def _fields(line: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, v in re.findall(r"(\w+): *([^\t]*)", line)}


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x)


def test_topics_and_partitions_as_kafka_topics_describes_them(run: Run, image: MetadataImage):
    described: dict[str, tuple[str, int, dict[int, dict[str, str]]]] = {}
    for line in run.described["topics"].splitlines():
        f = _fields(line)
        if "TopicId" in f:
            described[f["Topic"]] = (f["TopicId"], int(f["PartitionCount"]), {})
        elif "Partition" in f:
            described[f["Topic"]][2][int(f["Partition"])] = f
    assert sorted(described) == sorted(image.topics.topics_by_name) == ["alpha", "beta"]
    for name, (topic_id, count, partitions) in described.items():
        topic = image.topic(name)
        assert topic is not None and uuid_str(topic.id) == topic_id
        assert len(topic.partitions) == count == len(partitions)
        for index, f in partitions.items():
            p = topic.partitions[index]
            assert p.leader == int(f["Leader"]), (name, index)
            assert p.replicas == _ints(f["Replicas"])
            assert p.isr == _ints(f["Isr"])
            assert p.elr == _ints(f["Elr"]) and p.last_known_elr == _ints(f["LastKnownElr"])


def _config_blocks(text: str) -> dict[str, dict[str, str]]:
    blocks: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in text.splitlines():
        header = re.match(r"(?:Dynamic configs for topic (\S+)|Default configs for brokers in the cluster) are:", line)
        if header:
            current = blocks.setdefault(header[1] or "", {})
        elif line.startswith("  "):
            m = re.match(r"\s+([^=\s]+)=(\S*) sensitive=", line)
            assert m, line
            current[m[1]] = m[2]
    return blocks


def test_configs_as_kafka_configs_describes_them(run: Run, image: MetadataImage):
    topics = _config_blocks(run.described["topic_configs"])
    assert {t: c for t, c in topics.items() if c} == {
        "alpha": {"retention.ms": "12345", "cleanup.policy": "compact"},
        "beta": {"segment.ms": "600000"},
    }
    for topic in ("alpha", "beta", "gone"):
        assert image.topic_config(topic) == topics.get(topic, {})
    defaults = _config_blocks(run.described["broker_defaults"])[""]
    assert "log.cleaner.threads" in defaults
    assert dict(image.configs.broker_config(None)) == defaults


def test_acls_as_kafka_acls_lists_them(run: Run, image: MetadataImage):
    listed = set()
    pattern = None
    for line in run.described["acls"].splitlines():
        m = re.search(r"ResourcePattern\(resourceType=(\w+), name=(.*), patternType=(\w+)\)", line)
        if m:
            pattern = (ResourceType[m[1]], m[2], PatternType[m[3]])
            continue
        m = re.search(r"\(principal=(.*), host=(.*), operation=(\w+), permissionType=(\w+)\)", line)
        if m:
            assert pattern is not None
            listed.add((*pattern, m[1], m[2], AclOperation[m[3]], AclPermissionType[m[4]]))
    assert len(listed) == 3
    assert {(a.resource_type, a.resource_name, a.pattern_type, a.principal, a.host, a.operation,
             a.permission_type) for a in image.acls.acls.values()} == listed


def test_quotas_and_scram_as_kafka_configs_describes_them(run: Run, image: MetadataImage):
    quotas: dict[str, dict[str, float]] = {}
    scram: dict[str, dict[str, int]] = {}
    for line in run.described["users"].splitlines():
        m = re.match(r"Quota configs for user-principal '(\w+)' are (.*)", line)
        if m:
            quotas[m[1]] = {k: float(v) for k, v in (kv.split("=") for kv in m[2].split(", "))}
        m = re.match(r"SCRAM credential configs for user-principal '(\w+)' are (.*)", line)
        if m:
            scram[m[1]] = {k: int(v.removeprefix("iterations="))
                           for k, v in (kv.split("=", 1) for kv in m[2].split(", "))}
    assert quotas == {"alice": {"producer_byte_rate": 1024.0}}
    assert {user: dict(image.client_quotas.quotas((("user", user),))) for user in ("alice", "bob")} == {
        "alice": quotas["alice"], "bob": {}}
    assert scram == {"alice": {"SCRAM-SHA-256": 8192}, "bob": {"SCRAM-SHA-256": 4096}}
    from_image: dict[str, dict[str, int]] = {}
    for mechanism, users in image.scram.mechanisms.items():
        for user, credential in users.items():
            from_image.setdefault(user, {})[mechanism.name.replace("_", "-")] = credential.iterations
    assert from_image == scram
    assert image.scram.credential(ScramMechanism.SCRAM_SHA_512, "bob") is None
    m = re.match(r"Quota configs for the default client-id are producer_byte_rate=(\S+)",
                 run.described["default_client"])
    assert m and dict(image.client_quotas.quotas((("client-id", None),))) == {"producer_byte_rate": float(m[1])}


def test_features_and_registrations_as_kafka_describes_them(run: Run, image: MetadataImage):
    finalized: dict[str, str] = {}
    supported_max: dict[str, str] = {}
    for line in run.described["features"].splitlines():
        f = dict(re.findall(r"(\w+):\s+(\S+)", line))
        finalized[f["Feature"]] = f["FinalizedVersionLevel"]
        supported_max[f["Feature"]] = f["SupportedMaxVersion"]
    numeric = {k: int(v) for k, v in finalized.items()
               if k not in ("metadata.version", "kraft.version")}  # kraft.version: the quorum's, not the image's
    assert dict(image.features.finalized_versions) == numeric
    # metadata.version prints by name; the node runs its highest, which it registered by level
    assert finalized["metadata.version"] == supported_max["metadata.version"]
    broker = image.cluster.broker(1)
    assert broker is not None and not broker.fenced
    assert image.features.metadata_version == broker.supported_features["metadata.version"].max_supported
    assert list(image.live_broker_endpoints("PLAINTEXT")) == [1]
    assert 1 in image.cluster.controllers
    # the first block of producer ids Kafka hands out is 0..999
    assert image.producer_ids.next_producer_id == 1000


def _same_content(a: MetadataImage, b: MetadataImage) -> bool:
    return dataclasses.replace(a, provenance=EMPTY_PROVENANCE) == dataclasses.replace(b, provenance=EMPTY_PROVENANCE)


def test_kafkas_snapshot_is_the_same_image_and_we_write_the_same_records(run: Run, image: MetadataImage):
    snapshot_records = [r for batch in run.snapshot_batches for _o, r in batch.records]
    delta = MetadataDelta(EMPTY_IMAGE)
    delta.replay_all(snapshot_records)
    from_snapshot = delta.apply(image.provenance)
    assert _same_content(from_snapshot, image)
    ours = [r.message for r in image.records()]
    assert collections.Counter(map(_normalized, ours)) == collections.Counter(map(_normalized, snapshot_records))
    assert ours[0] == snapshot_records[0]  # metadata.version first


def _normalized(record: Message) -> str:
    """The record as text, its lists of structs (a registration's features, which Kafka keeps
    in hash order) sorted."""
    fields = []
    for field in type(record).FIELDS:
        name = field.name
        value = getattr(record, name)
        if isinstance(value, list) and value and isinstance(value[0], Struct):
            value = sorted(map(repr, value))
        fields.append(f"{name}={value!r}")
    return f"{type(record).__name__}({', '.join(fields)})"


def test_controlled_shutdown_moves_the_isr_to_the_elr(run: Run, image: MetadataImage):
    final = _load(run.log_batches)
    broker = final.cluster.broker(1)
    assert broker is not None and broker.fenced and broker.in_controlled_shutdown
    assert final.live_brokers() == []
    for name in ("alpha", "beta"):
        before, after = image.topic(name), final.topic(name)
        assert before is not None and after is not None
        for index, p in after.partitions.items():
            was = before.partitions[index]
            assert (p.leader, p.isr, p.elr, p.last_known_elr) == (-1, (), (1,), (1,))
            assert p.leader_epoch == was.leader_epoch + 1 and p.partition_epoch == was.partition_epoch + 1
    assert final.configs == image.configs and final.acls == image.acls


def test_apache_reads_the_snapshot_we_write_of_that_image(run: Run, image: MetadataImage, tmp_path: Path):
    """Our SnapshotEmitter writes the image at Kafka's snapshot offset; Apache's
    ``kafka-dump-log`` decodes the file, header and footer included, into the records of
    Kafka's own snapshot of it."""
    from kafpy.metadata.publisher.snapshot_emitter import SnapshotEmitter
    from kafpy.raft.snapshot import RawSnapshotWriter, SnapshotId

    class SnapshotDir:
        def create_new_snapshot(self, snapshot_id: SnapshotId) -> RawSnapshotWriter:
            return RawSnapshotWriter(tmp_path, snapshot_id)

    path = SnapshotEmitter(1, SnapshotDir(), lambda: int(time.time() * 1000)).maybe_emit(image)
    assert path is not None and path.name.startswith(f"{run.snapshot_end_offset:020d}-")
    text = run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", str(path)]).stdout
    assert "SnapshotHeader" in text and "SnapshotFooter" in text, text[:2000]
    ours = [r for batch in parse_dump(text) for _o, r in batch.records]
    kafkas = [r for batch in run.snapshot_batches for _o, r in batch.records]
    assert collections.Counter(map(_normalized, ours)) == collections.Counter(map(_normalized, kafkas))
