"""Apache Kafka's metadata shell reads kafpy's metadata log and snapshot (issue 37).

One combined kafpy node (``process.roles=broker,controller``, its own quorum), formatted by our
``kafka-storage format --release-version 4.3-IV0``: the newest metadata.version Kafka 4.3 ships
as production (level 30, ``MetadataVersion.LATEST_PRODUCTION`` in 4.3.1's
kafka-server-common, read with ``javap -c``; 4.3.1 lists 4.4-IV0 at level 31 only as a
version still in development, and the 4.4 levels 32 and 33 not at all). The shell is 4.3.1's
(tests/support/metadata_shell.py says why not 4.4's). Through the node: two topics of several
partitions with topic configs, ACLs (StandardAuthorizer), a SCRAM-SHA-256 user and client
quotas; snapshots every second (``metadata.log.max.snapshot.interval.ms``). Once a snapshot
holds all of it, the node is killed (SIGKILL: nothing more is written, and its directory lock,
which the shell takes, is free), and Apache's ``kafka-metadata-shell --snapshot`` runs ``ls``,
``tree`` and ``cat`` on the log segment ``__cluster_metadata-0/00000000000000000000.log`` and on
the ``.checkpoint``: every value it prints matches what the running node answered (Metadata,
DescribeConfigs, DescribeAcls, DescribeUserScramCredentials, DescribeClientQuotas, ApiVersions v4's
finalized and supported features, DescribeCluster of the controllers, the broker's incarnation
and epoch as its controller logged them), the SCRAM keys it prints are those of the password,
and the log and the snapshot give the same image.

The reverse (kafpy reading Apache's metadata log and snapshots) is covered by
tests/integration/raft/test_metadata_log_interop.py, tests/integration/metadata/test_read_apache_format.py
and test_metadata_snapshots.py's test_a_kafpy_broker_loads_the_snapshot_an_apache_controller_wrote.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
from confluent_kafka.admin import (
    AclBinding, AclOperation, AclPermissionType, AdminClient, NewTopic,
    ResourcePatternType, ResourceType, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion,
)

from kafpy.protocol.batch_header import iter_batches
from kafpy.protocol.messages import (
    AlterClientQuotasRequest, AlterClientQuotasResponse, ApiVersionsRequest, ApiVersionsResponse,
    DescribeAclsRequest, DescribeAclsResponse, DescribeClientQuotasRequest, DescribeClientQuotasResponse, DescribeClusterRequest, DescribeClusterResponse,
    DescribeConfigsRequest, DescribeConfigsResponse, MetadataRequest, MetadataResponse,
)
from kafpy.raft.snapshot import CLUSTER_METADATA_DIR, parse_snapshot_path

from tests.integration.raft.quorum_support import call, describe_quorum
from tests.support.kraft_combined import SingleNode
from tests.support.kraft_controllers import eventually
from tests.support.metadata_shell import ShellNode, parse_tree, run_shell, shell_libs

pytestmark = pytest.mark.timeout(300)

RELEASE = "4.3-IV0"
METADATA_VERSION_LEVEL = 30
SHELL_TRIES = 5  # runs of one shell command at most (see settled)
TOPICS = {"orders": 3, "payments": 2}
TOPIC_CONFIGS = {"orders": {"retention.ms": "3600000", "cleanup.policy": "compact"},
                 "payments": {"max.message.bytes": "65536"}}
SCRAM_USER, SCRAM_PASSWORD, SCRAM_ITERATIONS = "alice", "alice-secret", 8192
QUOTAS = {("user", "alice"): {"producer_byte_rate": 1024.0, "consumer_byte_rate": 2048.0},
          ("client-id", "reporting"): {"request_percentage": 50.0}}
NODE_SETTINGS = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:ANONYMOUS",
    "metadata.log.max.snapshot.interval.ms": "1000",
    "metadata.max.idle.interval.ms": "200",
}


@dataclass
class Known:
    """What the running node answered, as the shell would print it."""

    topics: dict[str, tuple[str, dict[int, dict[str, object]]]]  # name -> (id, partition -> fields)
    configs: dict[str, dict[str, str]]  # shell node name (TOPIC:orders, BROKER) -> dynamic configs
    features: dict[str, int]  # finalized feature -> level (ApiVersions)
    brokers: dict[int, tuple[str, int]]  # broker id -> host, port (Metadata)
    registrations: dict[int, tuple[str, int]]  # broker id -> incarnation id, broker epoch (the node's log)
    supported: dict[str, str]  # feature -> "min-max" the broker supports (ApiVersions)
    controllers: dict[int, tuple[str, int]]  # controller id -> host, port (DescribeCluster)
    acls: set[str]  # as StandardAcl prints them
    scram: dict[str, dict[str, int]]  # mechanism -> user -> iterations
    quotas: dict[str, dict[str, float]]  # shell entity name (user(alice)) -> quotas


def test_apache_metadata_shell_reads_kafpy_log_and_snapshot(tmp_path: Path) -> None:
    shell_libs()  # installed, or fail before starting anything
    single = SingleNode("kafpy", tmp_path, NODE_SETTINGS)
    node = single.node
    node.format("kafpy", single.cluster_id, "--release-version", RELEASE)
    single.formatted = True
    metadata_dir = node.work_dir / "data" / CLUSTER_METADATA_DIR
    single.start()
    try:
        make_metadata(single.bootstrap, node.port)
        known = what_kafpy_knows(single.bootstrap, node.port, node.controller_port, node.output())
        # the node holds what was made (so that the comparisons below compare something)
        assert {name: len(partitions) for name, (_, partitions) in known.topics.items()} == TOPICS, known.topics
        assert {f"TOPIC:{t}": c for t, c in TOPIC_CONFIGS.items()}.items() <= known.configs.items(), known.configs
        assert len(known.acls) == len(ACLS) and known.scram == {"SCRAM-SHA-256": {SCRAM_USER: SCRAM_ITERATIONS}}
        assert known.quotas == {"user(alice)": QUOTAS[("user", "alice")],
                                "clientId(reporting)": QUOTAS[("client-id", "reporting")]}, known.quotas
        # a snapshot past every record written so far; then the node is killed, so that
        # nothing more is written and its directory lock (which the shell takes) is free
        high_watermark = describe_quorum(node.controller_port).high_watermark
        eventually(lambda: latest_snapshot(metadata_dir, high_watermark), timeout=60,
                   what=f"a snapshot at or past offset {high_watermark}")
        node.kill()
    except BaseException:
        print(node.output()[-8000:])
        raise
    finally:
        single.stop()

    snapshot = latest_snapshot(metadata_dir, high_watermark)
    assert snapshot is not None
    segment = metadata_dir / "00000000000000000000.log"
    images = {}
    for source in (segment, snapshot):
        image = shell_image(source)
        check_topics(image.at("topics"), known)
        assert config_nodes(image.at("configs")) == known.configs, source
        check_features(image.at("features"), known)
        check_cluster(image.at("cluster"), known)
        assert {n.value for n in image.at("acls/byId").children.values()} == known.acls, source
        check_scram(image.at("scram"), known)
        assert quota_nodes(image.at("clientQuotas")) == known.quotas, source
        del image.children["provenance"]  # where each file ends: the rest must be the same
        images[source.suffix] = image
    assert images[".log"] == images[".checkpoint"]

    # ls and cat, as an operator would look around
    listing = settled(segment, lambda out: "orders" in out, "ls", "/image/topics/byName").split()
    assert listing == sorted(TOPICS), listing
    listing = settled(snapshot, lambda out: "acls" in out, "ls", "/image").split()
    assert {"acls", "clientQuotas", "cluster", "configs", "features", "scram", "topics"} <= set(listing), listing
    orders_id = settled(snapshot, lambda out: "No such file" not in out, "cat", "/image/topics/byName/orders/id")
    assert orders_id.strip() == known.topics["orders"][0]
    retention = settled(segment, lambda out: "No such file" not in out,
                        "cat", "/image/configs/TOPIC:orders/retention.ms")
    assert retention.strip() == TOPIC_CONFIGS["orders"]["retention.ms"]


def settled(source: Path, done: Callable[[str], bool], *command: str) -> str:
    """A shell command's output once ``done`` accepts it. Apache's shell runs its command as
    soon as the loader has applied a first batch (MetadataShell.waitUntilCaughtUp waits for
    lastAppliedOffset > 0), which on a log of many batches can be before its publisher saw an
    image: the command then prints an empty or older image, and is run again."""
    for _ in range(SHELL_TRIES - 1):
        out = run_shell(source, *command)
        if done(out):
            return out
    return run_shell(source, *command)


def shell_image(source: Path) -> ShellNode:
    """``tree /image`` of a log segment or snapshot, once the image printed is the file's last
    (its provenance names the offset of the last data record: for a snapshot, the offset
    within the snapshot file, as Apache's SnapshotFileReader counts)."""
    last = last_data_offset(source)

    def complete(out: str) -> bool:
        return parse_tree(out).at("provenance").value.startswith(f"offset {last}, ")
    out = settled(source, complete, "tree", "/image")
    assert complete(out), (source, last, out)
    return parse_tree(out)


def last_data_offset(path: Path) -> int:
    """The last offset of the last data batch (not a control batch) of a records file."""
    return max(h.last_offset for _, h in iter_batches(path.read_bytes()) if not h.is_control)


def latest_snapshot(directory: Path, at_least: int) -> Path | None:
    """The newest ``.checkpoint`` whose end offset is at least ``at_least``."""
    found = []
    for path in directory.glob("*.checkpoint"):
        parsed = parse_snapshot_path(path)
        if parsed is not None and parsed.snapshot_id.end_offset >= at_least:
            found.append((parsed.snapshot_id, path))
    return max(found)[1] if found else None


def make_metadata(bootstrap: str, port: int) -> None:
    """Topics with configs, ACLs, a SCRAM user and client quotas, through the node."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topics = [NewTopic(name, partitions, 1, config=TOPIC_CONFIGS[name]) for name, partitions in TOPICS.items()]
    for future in admin.create_topics(topics, request_timeout=30).values():
        future.result(timeout=60)
    for future in admin.create_acls(ACLS, request_timeout=30).values():
        future.result(timeout=60)
    upsert = UserScramCredentialUpsertion(SCRAM_USER, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256,
                                                                         SCRAM_ITERATIONS), SCRAM_PASSWORD.encode())
    for future in admin.alter_user_scram_credentials([upsert], request_timeout=30).values():
        future.result(timeout=60)
    request = AlterClientQuotasRequest(entries=[
        AlterClientQuotasRequest.EntryData(
            entity=[AlterClientQuotasRequest.EntityData(entity_type=kind, entity_name=name)],
            ops=[AlterClientQuotasRequest.OpData(key=k, value=v) for k, v in quotas.items()])
        for (kind, name), quotas in QUOTAS.items()])
    response = call(port, request, AlterClientQuotasResponse, 1, timeout=30)
    assert [e.error_code for e in response.entries] == [0] * len(QUOTAS), response


def uuid_string(raw: bytes) -> str:
    """A Uuid as Kafka prints it (base64url, no padding)."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def what_kafpy_knows(bootstrap: str, port: int, controller_port: int, output: str) -> Known:
    """The running node's answers: Metadata, DescribeConfigs, ApiVersions, DescribeCluster,
    DescribeAcls, DescribeUserScramCredentials and DescribeClientQuotas; and the broker's
    incarnation id and epoch from its controller's log line."""
    metadata = call(port, MetadataRequest(topics=None, allow_auto_topic_creation=False), MetadataResponse, 12)
    topics = {t.name or "": (uuid_string(t.topic_id), {
        p.partition_index: {"replicas": p.replica_nodes, "isr": p.isr_nodes, "leader": p.leader_id,
                            "leaderEpoch": p.leader_epoch} for p in t.partitions}) for t in metadata.topics}
    brokers = {b.node_id: (b.host, b.port) for b in metadata.brokers}
    cluster = call(controller_port, DescribeClusterRequest(endpoint_type=2), DescribeClusterResponse, 1)
    controllers = {b.broker_id: (b.host, b.port) for b in cluster.brokers}
    versions = call(port, ApiVersionsRequest(client_software_name="kafpy-tests", client_software_version="1"),
                    ApiVersionsResponse, 4)
    features = {f.name: f.max_version_level for f in versions.finalized_features}
    supported = {f.name: f"{f.min_version}-{f.max_version}" for f in versions.supported_features}
    registrations = {int(b): (uuid_string(bytes.fromhex(incarnation)), int(epoch)) for b, incarnation, epoch in
                     re.findall(r"Registering broker (\d+), incarnation ([0-9a-f]{32}): broker epoch (\d+)", output)}

    # DescribeConfigs of the topics and of the cluster's defaults (BROKER ""), dynamic entries
    request = DescribeConfigsRequest(resources=[
        *(DescribeConfigsRequest.DescribeConfigsResource(resource_type=TOPIC, resource_name=t, configuration_keys=None)
          for t in TOPICS),
        DescribeConfigsRequest.DescribeConfigsResource(resource_type=BROKER, resource_name="", configuration_keys=None)])
    configs: dict[str, dict[str, str]] = {}
    for result in call(port, request, DescribeConfigsResponse, 4, timeout=30).results:
        assert result.error_code == 0, result
        own = DYNAMIC_TOPIC_CONFIG if result.resource_type == TOPIC else DYNAMIC_DEFAULT_BROKER_CONFIG
        entries = {c.name: c.value or "" for c in result.configs if c.config_source == own}
        if entries:
            kind = "TOPIC" if result.resource_type == TOPIC else "BROKER"
            configs[f"{kind}:{result.resource_name}" if result.resource_name else kind] = entries
    admin = AdminClient({"bootstrap.servers": bootstrap})
    described_acls = call(port, DescribeAclsRequest(
        resource_type_filter=ResourceType.ANY.value, resource_name_filter=None,
        pattern_type_filter=ResourcePatternType.ANY.value, principal_filter=None, host_filter=None,
        operation=AclOperation.ANY.value, permission_type=AclPermissionType.ANY.value), DescribeAclsResponse, 3)
    assert described_acls.error_code == 0, described_acls
    acls = {standard_acl(r, a) for r in described_acls.resources for a in r.acls}
    scram: dict[str, dict[str, int]] = {}
    every_user = admin.describe_user_scram_credentials(request_timeout=30)
    assert not isinstance(every_user, dict)  # no users named: one future for all of them
    for user, description in every_user.result(timeout=60).items():
        for info in description.scram_credential_infos:
            scram.setdefault(info.mechanism.name.replace("_", "-"), {})[user] = info.iterations
    described = call(port, DescribeClientQuotasRequest(components=[], strict=False), DescribeClientQuotasResponse, 1)
    assert described.error_code == 0, described
    quotas = {quota_entity({e.entity_type: e.entity_name or "" for e in entry.entity}):
              {v.key: v.value for v in entry.values} for entry in described.entries or []}
    return Known(topics, configs, features, brokers, registrations, supported, controllers, acls, scram, quotas)


TOPIC, BROKER = 2, 4  # ConfigResource.Type ids
DYNAMIC_TOPIC_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG = 1, 3  # DescribeConfigs' config sources
def standard_acl(resource: DescribeAclsResponse.DescribeAclsResource,
                 acl: DescribeAclsResponse.AclDescription) -> str:
    """An ACL of DescribeAcls as Kafka's StandardAcl prints it (confluent-kafka's enums have
    Kafka's codes)."""
    return (f"StandardAcl[resourceType={ResourceType(resource.resource_type).name}, "
            f"resourceName={resource.resource_name}, "
            f"patternType={ResourcePatternType(resource.pattern_type).name}, principal={acl.principal}, "
            f"host={acl.host}, operation={AclOperation(acl.operation).name}, "
            f"permissionType={AclPermissionType(acl.permission_type).name}]")


def quota_entity(entries: dict[str, str]) -> str:
    """A client quota entity as ClientQuotasImageNode names it (clientId, ip, user; escaped)."""
    def escape(text: str) -> str:
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    names = {"client-id": "clientId", "ip": "ip", "user": "user"}
    return "_".join(f"{names[kind]}({escape(entries[kind])})" for kind in names if kind in entries)


def config_nodes(configs: ShellNode) -> dict[str, dict[str, str]]:
    return {resource: {k: v.value for k, v in node.children.items()} for resource, node in configs.children.items()}


def quota_nodes(quotas: ShellNode) -> dict[str, dict[str, float]]:
    return {entity: {k: float(v.value) for k, v in node.children.items()} for entity, node in quotas.children.items()}


def fields(text: str) -> dict[str, str]:
    """The ``key=value`` fields of a Java toString (``PartitionRegistration(replicas=[1], ...)``),
    lists kept whole."""
    body = text[text.index("(") + 1:text.rindex(")")]
    return {m[1]: m[2] for m in re.finditer(r"(\w+)=(\[[^\]]*\]|\{[^}]*\}|'[^']*'|[^,]*)", body)}


def int_list(text: str) -> list[int]:
    return [int(x) for x in text.strip("[]").split(",") if x.strip()]


def check_topics(topics: ShellNode, known: Known) -> None:
    assert sorted(topics.at("byName").children) == sorted(known.topics), list(topics.at("byName").children)
    for name, (topic_id, partitions) in known.topics.items():
        node = topics.at(f"byName/{name}")
        assert node.at("name").value == name and node.at("id").value == topic_id, (name, node)
        assert topics.at(f"byId/{topic_id}") == node
        shown = {int(p): fields(child.value) for p, child in node.children.items() if p.isdigit()}
        assert sorted(shown) == sorted(partitions), (name, shown)
        for index, expected in partitions.items():
            got = shown[index]
            assert {"replicas": int_list(got["replicas"]), "isr": int_list(got["isr"]), "leader": int(got["leader"]),
                    "leaderEpoch": int(got["leaderEpoch"])} == expected, (name, index, got)
            assert got["leaderRecoveryState"] == "RECOVERED", got


def check_features(features: ShellNode, known: Known) -> None:
    """metadata.version as the release formatted (level 30) and every other finalized feature
    at the level ApiVersions gives (kraft.version lives in the raft log, not in the image)."""
    assert features.at("metadataVersion").value == f"Optional[{RELEASE}]"
    assert known.features["metadata.version"] == METADATA_VERSION_LEVEL, known.features
    shown = {name.removeprefix("finalized_"): int(node.value) for name, node in features.children.items()
             if name.startswith("finalized_")}
    expected = {k: v for k, v in known.features.items() if k not in ("metadata.version", "kraft.version")}
    assert shown == expected, (shown, known.features)


def check_cluster(cluster: ShellNode, known: Known) -> None:
    brokers = {int(i): fields(n.value) for i, n in cluster.at("brokers").children.items()}
    assert sorted(brokers) == sorted(known.brokers), brokers
    for broker_id, (host, port) in known.brokers.items():
        got = brokers[broker_id]
        assert int(got["id"]) == broker_id and got["fenced"] == "false", got
        assert (got["incarnationId"], int(got["epoch"])) == known.registrations[broker_id], (got, known.registrations)
        shown = dict(f.split(": ") for f in got["supportedFeatures"].strip("{}").split(", "))
        assert shown == known.supported, (shown, known.supported)
        assert f"host='{host}', port={port})" in cluster.at(f"brokers/{broker_id}").value, got
        assert "listenerName='PLAINTEXT'" in cluster.at(f"brokers/{broker_id}").value, got
    controllers = {int(i): n.value for i, n in cluster.at("controllers").children.items()}
    assert sorted(controllers) == sorted(known.controllers), controllers
    for controller_id, (host, port) in known.controllers.items():
        assert f"listenerName='CONTROLLER', securityProtocol=PLAINTEXT, host='{host}', port={port})" \
            in controllers[controller_id], controllers


def check_scram(scram: ShellNode, known: Known) -> None:
    """The users and iterations DescribeUserScramCredentials gives, and keys derived from the
    password with the salt shown (RFC 5802: StoredKey = H(HMAC(SaltedPassword, "Client Key")))."""
    shown = {mechanism: {user: fields(n.value) for user, n in node.children.items()}
             for mechanism, node in scram.children.items()}
    assert {m: {u: int(f["iterations"]) for u, f in users.items()} for m, users in shown.items() if users} \
        == known.scram, (shown, known.scram)
    got = shown["SCRAM-SHA-256"][SCRAM_USER]
    salted = hashlib.pbkdf2_hmac("sha256", SCRAM_PASSWORD.encode(), bytes.fromhex(got["salt"]), SCRAM_ITERATIONS)
    client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    assert got["storedKey"] == hashlib.sha256(client_key).hexdigest(), got
    assert got["serverKey"] == hmac.new(salted, b"Server Key", hashlib.sha256).hexdigest(), got


ACLS = [
    AclBinding(ResourceType.TOPIC, "orders", ResourcePatternType.LITERAL, "User:alice", "*",
               AclOperation.READ, AclPermissionType.ALLOW),
    AclBinding(ResourceType.TOPIC, "pay", ResourcePatternType.PREFIXED, "User:bob", "10.0.0.1",
               AclOperation.WRITE, AclPermissionType.DENY),
    AclBinding(ResourceType.GROUP, "*", ResourcePatternType.LITERAL, "User:alice", "*",
               AclOperation.DESCRIBE, AclPermissionType.ALLOW),
]
