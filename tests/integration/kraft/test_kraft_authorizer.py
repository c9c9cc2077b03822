"""Kafka's StandardAuthorizer in KRaft mode: three combined kafpy nodes and one combined Apache
Kafka 4.4 node, each with ``authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer``,
no ``allow.everyone.if.no.acl.found``, a SASL_PLAINTEXT listener with SCRAM-SHA-256 users made
through the controller (kafka-configs), and ``super.users=User:ANONYMOUS`` (the PLAINTEXT and
controller listeners: the nodes' own traffic and the test's admin).

On both: an unprivileged SCRAM user gets the same refusal from every request of the matrix,
the admin requests among them forwarded to the controller in an Envelope and refused there as
that user; Apache's kafka-acls.sh adds and lists ACLs the same way; with the ACLs the user may do
what they allow. On the kafpy cluster: an ACL added through one node is enforced by every node
once the metadata log carries it, a DENY added through another node too, and a restarted node
enforces them again. A kafpy broker with an Apache Kafka 4.4 controller: its Envelopes carry
the principal Apache's controller reads and judges; an Apache broker on kafpy's dedicated
controllers: they read Apache's Envelopes, and Apache enforces the ACL records they write."""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from kafpy.broker.security.scram import ScramClient
from kafpy.protocol import messages as M
from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.errors import ErrorCode as E
from tests.integration.broker.raw import RawConnection, create_topic, produce_request
from tests.support.kafka_dist import run_tool
from tests.support.kraft_combined import CombinedCluster, CombinedNode, SingleNode
from tests.support.kraft_brokers import KRaftCluster
from tests.support.kraft_controllers import eventually
from tests.support.ports import LOOPBACK, free_ports

pytestmark = pytest.mark.timeout(1200)

STANDARD = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
SECURE = {
    "authorizer.class.name": STANDARD, "super.users": "User:ANONYMOUS",
    "sasl.enabled.mechanisms": "SCRAM-SHA-256",
    "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config":
        "org.apache.kafka.common.security.scram.ScramLoginModule required;",
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
    "auto.create.topics.enable": "false", "group.initial.rebalance.delay.ms": 0,
}
TOPIC = "payments"
USERS = {"alice": "alice-secret", "bob": "bob-secret"}


def secure(node: CombinedNode) -> int:
    """Adds the SASL listener and the authorizer settings to ``node``; the SASL port."""
    (sasl_port,) = free_ports(1)
    node.configure({
        **SECURE,
        "listeners": f"PLAINTEXT://{LOOPBACK}:{node.port},SASL_PLAINTEXT://{LOOPBACK}:{sasl_port},"
                     f"CONTROLLER://{LOOPBACK}:{node.controller_port}",
        "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{node.port},SASL_PLAINTEXT://{LOOPBACK}:{sasl_port}",
    })
    return sasl_port


class Secured:
    """One cluster: its nodes' PLAINTEXT (super user) and SASL ports."""

    def __init__(self, impl: str, nodes: list[CombinedNode], sasl_ports: list[int], bootstrap: str = "") -> None:
        self.impl = impl
        self.nodes = nodes
        self.sasl_ports = sasl_ports
        self.bootstrap = bootstrap or nodes[0].bootstrap


def scram(port: int, user: str) -> RawConnection:
    """A connection authenticated as ``user`` with SCRAM-SHA-256 (SaslHandshake v1,
    SaslAuthenticate v2)."""
    c = RawConnection(LOOPBACK, port, timeout=15)
    try:
        hs = c.request(17, 1, M.SaslHandshakeRequest(mechanism="SCRAM-SHA-256"))
        assert hs.error_code == E.NONE, hs
        client = ScramClient("SCRAM-SHA-256", user, USERS[user])
        first = c.request(36, 2, M.SaslAuthenticateRequest(auth_bytes=client.first()))
        assert first.error_code == E.NONE, first
        final = c.request(36, 2, M.SaslAuthenticateRequest(auth_bytes=client.final(first.auth_bytes)))
        assert final.error_code == E.NONE, final
        client.verify(final.auth_bytes)
    except BaseException:
        c.close()
        raise
    return c


def as_user(port: int, user: str, api_key: int, version: int, body: Any) -> Any:
    with scram(port, user) as c:
        return c.request(api_key, version, body)


def logs_in(port: int, user: str) -> bool:
    try:
        scram(port, user).close()
        return True
    except (AssertionError, OSError):
        return False


def add_users(cluster: Secured) -> None:
    for user, password in USERS.items():
        run_tool("4", "kafka-configs", ["--bootstrap-server", cluster.bootstrap, "--alter", "--entity-type", "users",
                                        "--entity-name", user, "--add-config",
                                        f"SCRAM-SHA-256=[iterations=4096,password={password}]"], timeout=120)
    for port in cluster.sasl_ports:
        for user in USERS:
            eventually(lambda: logs_in(port, user), 60, f"{user} logs in on {cluster.impl} :{port}", interval=0.5)


@pytest.fixture(scope="module")
def clusters(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Secured]]:
    root = tmp_path_factory.mktemp("kraft-authz")
    apache = SingleNode("apache", root / "apache")
    kafpy = CombinedCluster("kafpy", root / "kafpy")
    made: dict[str, Secured] = {}
    try:
        made["kafka"] = Secured("apache", [apache.node], [secure(apache.node)])
        made["kafpy"] = Secured("kafpy", list(kafpy.nodes.values()), [secure(n) for n in kafpy.nodes.values()])
        kafpy.format()
        for n in kafpy.nodes.values():
            n.start()
        apache.start()
        for n in kafpy.nodes.values():
            kafpy.wait_serving(n, 3, 180)
        for cluster in made.values():
            create_topic(cluster.nodes[0].port, TOPIC)
            add_users(cluster)
        yield made
    finally:
        # no clean shutdown checked here: SIGTERM would leave the last kafpy node waiting a
        # session timeout for a controlled shutdown that a quorum without a majority cannot grant
        kafpy.kill_all()
        apache.stop()


# -- the matrix: an unprivileged SCRAM user --------------------------------------------------
def _topics(resp: Any, attr: str = "topics") -> list[int]:
    return [t.error_code for t in getattr(resp, attr)]


def matrix() -> dict[str, tuple[int, int, Any, Callable[[Any], object]]]:
    """API -> (key, version, request, what of the answer is compared)."""
    T = M.MetadataRequest.MetadataRequestTopic
    C = M.CreateTopicsRequest
    IA = M.IncrementalAlterConfigsRequest
    DC = M.DescribeConfigsRequest
    A = M.AlterClientQuotasRequest
    U = M.AlterUserScramCredentialsRequest
    EL = M.ElectLeadersRequest
    return {
        "Metadata": (3, 12, M.MetadataRequest(topics=[T(name=TOPIC)], allow_auto_topic_creation=False),
                     lambda r: _topics(r)),
        "Produce": (0, 9, produce_request(TOPIC, build_batch([(None, b"x")])),
                    lambda r: [p.error_code for t in r.responses for p in t.partition_responses]),
        "ListOffsets": (2, 7, M.ListOffsetsRequest(replica_id=-1, topics=[M.ListOffsetsRequest.ListOffsetsTopic(
            name=TOPIC, partitions=[M.ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-1)])]),
                        lambda r: [p.error_code for t in r.topics for p in t.partitions]),
        "CreateTopics": (19, 7, C(timeout_ms=30000, topics=[C.CreatableTopic(
            name="bob-made", num_partitions=1, replication_factor=1)]), lambda r: _topics(r)),
        "DeleteTopics": (20, 6, M.DeleteTopicsRequest(timeout_ms=30000, topics=[
            M.DeleteTopicsRequest.DeleteTopicState(name=TOPIC)]), lambda r: _topics(r, "responses")),
        "CreatePartitions": (37, 3, M.CreatePartitionsRequest(timeout_ms=30000, topics=[
            M.CreatePartitionsRequest.CreatePartitionsTopic(name=TOPIC, count=2)]), lambda r: _topics(r, "results")),
        "CreateAcls": (30, 3, M.CreateAclsRequest(creations=[M.CreateAclsRequest.AclCreation(
            resource_type=2, resource_name=TOPIC, resource_pattern_type=3, principal="User:bob", host="*",
            operation=2, permission_type=3)]), lambda r: [x.error_code for x in r.results]),
        "DescribeAcls": (29, 3, M.DescribeAclsRequest(
            resource_type_filter=2, resource_name_filter=TOPIC, pattern_type_filter=3, principal_filter=None,
            host_filter=None, operation=1, permission_type=1), lambda r: r.error_code),
        "DeleteAcls": (31, 3, M.DeleteAclsRequest(filters=[M.DeleteAclsRequest.DeleteAclsFilter(
            resource_type_filter=2, resource_name_filter=TOPIC, pattern_type_filter=3, principal_filter=None,
            host_filter=None, operation=1, permission_type=1)]), lambda r: [f.error_code for f in r.filter_results]),
        "IncrementalAlterConfigs": (44, 1, IA(resources=[IA.AlterConfigsResource(
            resource_type=2, resource_name=TOPIC, configs=[IA.AlterableConfig(
                name="retention.ms", config_operation=0, value="1000")])]),
                                    lambda r: [x.error_code for x in r.responses]),
        "DescribeConfigs": (32, 4, DC(resources=[DC.DescribeConfigsResource(resource_type=2, resource_name=TOPIC,
                                                                            configuration_keys=None)]),
                            lambda r: [x.error_code for x in r.results]),
        "AlterClientQuotas": (49, 1, A(entries=[A.EntryData(entity=[A.EntityData(entity_type="user",
                                                                                 entity_name="bob")],
                                                          ops=[A.OpData(key="producer_byte_rate", value=1.0)])]),
                              lambda r: [x.error_code for x in r.entries]),
        "AlterUserScramCredentials": (51, 0, U(deletions=[U.ScramCredentialDeletion(name="alice", mechanism=1)]),
                                      lambda r: [x.error_code for x in r.results]),
        "DescribeUserScramCredentials": (50, 0, M.DescribeUserScramCredentialsRequest(
            users=[M.DescribeUserScramCredentialsRequest.UserName(name="alice")]),
                                         lambda r: (r.error_code, [x.error_code for x in r.results])),
        "ElectLeaders": (43, 2, EL(election_type=0, topic_partitions=[EL.TopicPartitions(topic=TOPIC,
                                                                                          partitions=[0])]),
                         lambda r: (r.error_code, [p.error_code for t in r.replica_election_results
                                                   for p in t.partition_result])),
        "DescribeQuorum": (55, 2, M.DescribeQuorumRequest(topics=[M.DescribeQuorumRequest.TopicData(
            topic_name="__cluster_metadata", partitions=[M.DescribeQuorumRequest.PartitionData(partition_index=0)])]),
                           lambda r: r.error_code),
        "FindCoordinator": (10, 4, M.FindCoordinatorRequest(key_type=0, coordinator_keys=["bob-group"]),
                            lambda r: [c.error_code for c in r.coordinators]),
        "InitProducerId": (22, 4, M.InitProducerIdRequest(transactional_id="bob-txn", transaction_timeout_ms=60000,
                                                          producer_id=-1, producer_epoch=-1),
                           lambda r: r.error_code),
        "DescribeCluster": (60, 1, M.DescribeClusterRequest(include_cluster_authorized_operations=True),
                            lambda r: (r.error_code, r.cluster_authorized_operations)),
    }


TOPIC_FAILED, CLUSTER_FAILED = int(E.TOPIC_AUTHORIZATION_FAILED), int(E.CLUSTER_AUTHORIZATION_FAILED)
EXPECTED: dict[str, object] = {
    "Metadata": [TOPIC_FAILED], "Produce": [TOPIC_FAILED], "ListOffsets": [TOPIC_FAILED],
    "CreateTopics": [TOPIC_FAILED], "DeleteTopics": [TOPIC_FAILED], "CreatePartitions": [TOPIC_FAILED],
    "CreateAcls": [CLUSTER_FAILED], "DescribeAcls": CLUSTER_FAILED, "DeleteAcls": [CLUSTER_FAILED],
    "IncrementalAlterConfigs": [TOPIC_FAILED], "DescribeConfigs": [TOPIC_FAILED],
    "AlterClientQuotas": [CLUSTER_FAILED], "AlterUserScramCredentials": [CLUSTER_FAILED],
    "DescribeUserScramCredentials": (CLUSTER_FAILED, [CLUSTER_FAILED]), "ElectLeaders": (CLUSTER_FAILED, [CLUSTER_FAILED]),
    "DescribeQuorum": CLUSTER_FAILED, "FindCoordinator": [int(E.GROUP_AUTHORIZATION_FAILED)],
    "InitProducerId": int(E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED), "DescribeCluster": (0, 0),
}


def refusals(cluster: Secured, port: int) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, (key, version, request, summary) in matrix().items():
        try:
            out[name] = summary(as_user(port, "bob", key, version, request))
        except (OSError, EOFError, ConnectionError) as e:  # a timeout or a closed connection is an answer too
            out[name] = f"no answer: {type(e).__name__}"
    return out


def test_an_unprivileged_scram_user_gets_the_refusals_apache_gives(clusters: dict[str, Secured]) -> None:
    apache = refusals(clusters["kafka"], clusters["kafka"].sasl_ports[0])
    kafpy = refusals(clusters["kafpy"], clusters["kafpy"].sasl_ports[1])
    assert {k: (apache[k], kafpy[k]) for k in apache if apache[k] != kafpy[k]} == {}, (apache, kafpy)
    assert kafpy == EXPECTED
    # nothing bob asked for happened
    T = M.MetadataRequest.MetadataRequestTopic
    with RawConnection(LOOPBACK, clusters["kafpy"].nodes[0].port) as c:
        meta = c.request(3, 12, M.MetadataRequest(topics=[T(name="bob-made"), T(name=TOPIC)],
                                                  allow_auto_topic_creation=False))
    assert [(t.name, t.error_code, len(t.partitions)) for t in meta.topics] == [
        ("bob-made", E.UNKNOWN_TOPIC_OR_PARTITION, 0), (TOPIC, E.NONE, 1)]


def leader_sasl_port(cluster: Secured, topic: str) -> int:
    """The SASL port of the node leading partition 0 of ``topic`` (asked as the super user)."""
    T = M.MetadataRequest.MetadataRequestTopic
    with RawConnection(LOOPBACK, cluster.nodes[0].port) as c:
        meta = c.request(3, 12, M.MetadataRequest(topics=[T(name=topic)], allow_auto_topic_creation=False))
    leader = meta.topics[0].partitions[0].leader_id
    return next(p for n, p in zip(cluster.nodes, cluster.sasl_ports) if n.node_id == leader)


# -- kafka-acls.sh, then the rights it grants --------------------------------------------------
def kafka_acls(cluster: Secured, *args: str) -> str:
    return run_tool("4", "kafka-acls", ["--bootstrap-server", cluster.bootstrap, *args], timeout=120).stdout


def listing(text: str) -> list[str]:
    """kafka-acls --list, one line per ACL and resource, sorted (the order is the map's)."""
    return sorted(line.strip() for line in text.splitlines() if line.strip())


def test_kafka_acls_grants_and_lists_the_same_on_both(clusters: dict[str, Secured]) -> None:
    listed = {}
    for kind, cluster in clusters.items():
        kafka_acls(cluster, "--add", "--allow-principal", "User:alice", "--operation", "Write", "--operation",
                   "Describe", "--topic", TOPIC)
        kafka_acls(cluster, "--add", "--allow-principal", "User:alice", "--operation", "Create",
                   "--resource-pattern-type", "prefixed", "--topic", "alice-")
        # the broker that lists learns of the new bindings from the metadata log a moment later

        def both_listed() -> list[str] | None:
            lines = listing(kafka_acls(cluster, "--list", "--principal", "User:alice"))
            return lines if sum("Current ACLs for resource" in line for line in lines) == 2 else None
        listed[kind] = eventually(both_listed, timeout=30, what=f"{kind} listing both bindings")
    assert listed["kafpy"] == listed["kafka"]
    assert any("(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)" in line
               for line in listed["kafpy"]), listed["kafpy"]
    C = M.CreateTopicsRequest
    for kind, cluster in clusters.items():
        port = leader_sasl_port(cluster, TOPIC)

        def produced() -> bool:
            # acks=1: the topic has one replica, the kafpy cluster min.insync.replicas=2
            r = as_user(port, "alice", 0, 9, produce_request(TOPIC, build_batch([(None, b"alice")]), acks=1))
            seen.append([p.error_code for t in r.responses for p in t.partition_responses])
            return seen[-1] == [E.NONE]
        seen: list[list[int]] = []
        deadline = time.monotonic() + 30
        while not produced() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert seen[-1] == [E.NONE], (kind, seen[-3:])
        unauthorized = as_user(port, "bob", 0, 9, produce_request(TOPIC, build_batch([(None, b"bob")]), acks=1))
        assert [p.error_code for t in unauthorized.responses for p in t.partition_responses] == [TOPIC_FAILED]
        made = as_user(port, "alice", 19, 7, C(timeout_ms=30000, topics=[C.CreatableTopic(
            name="alice-topic", num_partitions=1, replication_factor=1)]))
        assert _topics(made) == [E.NONE], (kind, made)
        refused = as_user(port, "alice", 19, 7, C(timeout_ms=30000, topics=[C.CreatableTopic(
            name="other-topic", num_partitions=1, replication_factor=1)]))
        assert _topics(refused) == [TOPIC_FAILED], (kind, refused)


# -- every kafpy node enforces what the metadata log carries ------------------------------------
def metadata_error(port: int, user: str, topic: str) -> int:
    T = M.MetadataRequest.MetadataRequestTopic
    resp = as_user(port, user, 3, 12, M.MetadataRequest(topics=[T(name=topic)], allow_auto_topic_creation=False))
    return int(resp.topics[0].error_code)


def test_an_acl_added_on_one_node_is_enforced_by_every_node_and_after_a_restart(
        clusters: dict[str, Secured]) -> None:
    cluster = clusters["kafpy"]
    topic = "shared-readings"
    create_topic(cluster.nodes[0].port, topic)
    for port in cluster.sasl_ports:
        assert metadata_error(port, "bob", topic) == TOPIC_FAILED
    # through node 1 (forwarded to whichever node is the active controller)
    run_tool("4", "kafka-acls", ["--bootstrap-server", cluster.nodes[0].bootstrap, "--add", "--allow-principal",
                                 "User:bob", "--operation", "Describe", "--topic", topic], timeout=120)
    for port in cluster.sasl_ports:
        eventually(lambda: metadata_error(port, "bob", topic) == E.NONE, 30, f"bob describes {topic} on :{port}")
    # a DENY through node 2 wins on every node
    run_tool("4", "kafka-acls", ["--bootstrap-server", cluster.nodes[1].bootstrap, "--add", "--deny-principal",
                                 "User:bob", "--operation", "Describe", "--topic", topic], timeout=120)
    for port in cluster.sasl_ports:
        eventually(lambda: metadata_error(port, "bob", topic) == TOPIC_FAILED, 30, f"bob refused on :{port}")
    # node 3 restarted: it loads the ACLs from its metadata log and snapshot again
    node = cluster.nodes[2]
    node.stop()
    node.start()
    eventually(lambda: node.serves(3), 180, "node 3 serving again", interval=0.5)
    port = cluster.sasl_ports[2]
    assert eventually(lambda: logs_in(port, "bob"), 60, "bob logs in on the restarted node", interval=0.5)
    assert metadata_error(port, "bob", topic) == TOPIC_FAILED
    assert metadata_error(port, "alice", TOPIC) == E.NONE
    assert metadata_error(port, "bob", TOPIC) == TOPIC_FAILED
    # the DENY removed (DeleteAcls through node 3): bob's ALLOW is back everywhere
    run_tool("4", "kafka-acls", ["--bootstrap-server", node.bootstrap, "--remove", "--force", "--deny-principal",
                                 "User:bob", "--operation", "Describe", "--topic", topic], timeout=120)
    for port in cluster.sasl_ports:
        eventually(lambda: metadata_error(port, "bob", topic) == E.NONE, 30, f"bob describes {topic} on :{port}")


def test_the_zookeeper_mode_authorizer_is_refused_on_a_kraft_node(tmp_path: Path) -> None:
    """Kafka 4.4 no longer has kafka.security.authorizer.AclAuthorizer: the node does not start
    (Apache's fatal fault is a ClassNotFoundException, kafpy's ConfigError names it too)."""
    outputs = {}
    for impl in ("kafpy", "apache"):
        node = SingleNode(impl, tmp_path / impl, {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer"})
        node.node.format(impl, node.cluster_id)
        node.node.start()
        assert node.node.proc is not None
        assert node.node.proc.wait(timeout=120) != 0
        outputs[impl] = node.node.output()
    for impl, text in outputs.items():
        assert re.search(r"ClassNotFoundException: kafka\.security\.authorizer\.AclAuthorizer", text), \
            (impl, text[-2000:])


def test_an_apache_controller_judges_what_a_kafpy_broker_forwards_as_the_client(tmp_path: Path) -> None:
    """The kafpy broker forwards CreateTopics and CreateAcls in Envelopes; Apache's controller
    reads the client's principal from them (Kafka's DefaultPrincipalData) and refuses bob,
    allows the super user's ACL and then alice's topic."""
    (sasl_port,) = free_ports(1)
    cluster = KRaftCluster(tmp_path, controllers=1, brokers=1,
                           controller_overrides={"authorizer.class.name": STANDARD, "super.users": "User:ANONYMOUS"})
    broker = cluster.brokers[0]
    broker.overrides.update({
        **SECURE, "offsets.topic.replication.factor": 1, "transaction.state.log.replication.factor": 1,
        "share.coordinator.state.topic.replication.factor": 1,
        "listeners": f"PLAINTEXT://{LOOPBACK}:{broker.port},SASL_PLAINTEXT://{LOOPBACK}:{sasl_port}",
        "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{broker.port},SASL_PLAINTEXT://{LOOPBACK}:{sasl_port}",
    })
    C = M.CreateTopicsRequest

    def create(user: str, name: str) -> list[int]:
        made = as_user(sasl_port, user, 19, 7, C(timeout_ms=30000, topics=[C.CreatableTopic(
            name=name, num_partitions=1, replication_factor=1)]))
        return _topics(made)
    try:
        cluster.start()
        add_users(Secured("kafpy", [], [sasl_port], broker.bootstrap))
        assert create("bob", "bob-topic") == [TOPIC_FAILED]
        acl = as_user(sasl_port, "bob", 30, 3, M.CreateAclsRequest(creations=[M.CreateAclsRequest.AclCreation(
            resource_type=2, resource_name="alice-", resource_pattern_type=4, principal="User:alice", host="*",
            operation=5, permission_type=3)]))
        assert [r.error_code for r in acl.results] == [CLUSTER_FAILED]
        run_tool("4", "kafka-acls", ["--bootstrap-server", broker.bootstrap, "--add", "--allow-principal",
                                     "User:alice", "--operation", "Create", "--resource-pattern-type", "prefixed",
                                     "--topic", "alice-"], timeout=120)
        # the broker lists the binding once the metadata log brought it back from the controller
        assert eventually(lambda: "User:alice" in run_tool("4", "kafka-acls", [
            "--bootstrap-server", broker.bootstrap, "--list"], timeout=120).stdout, 30, "the binding listed")
        assert eventually(lambda: create("alice", "alice-topic") == [E.NONE], 30, "alice creates alice-topic")
        assert create("alice", "other-topic") == [TOPIC_FAILED]
    finally:
        cluster.stop()


def test_kafpy_controllers_judge_what_an_apache_broker_forwards_as_the_client(tmp_path: Path) -> None:
    """Three kafpy dedicated controllers with the StandardAuthorizer under an Apache Kafka 4.4
    broker: the controllers read the principal of Apache's Envelopes (bob is refused CreateTopics
    and CreateAcls), write the ACLs the super user adds, and Apache's authorizer enforces those
    records (alice creates under her prefix, kafka-acls.sh lists her ACLs, her DESCRIBE lets her
see her topic in Metadata, which the Apache broker decides itself)."""
    from tests.support.kraft_controllers import ApacheBroker, KafpyControllers
    from tests.support.kafka_dist import random_cluster_id
    controllers = KafpyControllers(tmp_path, random_cluster_id(), {
        "authorizer.class.name": STANDARD, "super.users": "User:ANONYMOUS"})
    broker = ApacheBroker(tmp_path, controllers)
    (sasl_port,) = free_ports(1)
    props = dict(line.split("=", 1) for line in broker.config.read_text().splitlines() if "=" in line)
    props.update({k: str(v) for k, v in SECURE.items()})
    props.update({
        "listeners": f"PLAINTEXT://{LOOPBACK}:{broker.port},SASL_PLAINTEXT://{LOOPBACK}:{sasl_port}",
        "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{broker.port},SASL_PLAINTEXT://{LOOPBACK}:{sasl_port}"})
    broker.config.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    C = M.CreateTopicsRequest

    def create(user: str, name: str) -> list[int]:
        return _topics(as_user(sasl_port, user, 19, 7, C(timeout_ms=30000, topics=[C.CreatableTopic(
            name=name, num_partitions=1, replication_factor=1)])))
    try:
        controllers.format()
        controllers.start_all()
        broker.format()
        broker.start()
        eventually(broker.serves_metadata, 180, "the Apache broker unfenced", interval=0.5)
        add_users(Secured("apache", [], [sasl_port], broker.bootstrap))
        assert create("bob", "bob-topic") == [TOPIC_FAILED]
        acl = as_user(sasl_port, "bob", 30, 3, M.CreateAclsRequest(creations=[M.CreateAclsRequest.AclCreation(
            resource_type=2, resource_name="alice-", resource_pattern_type=4, principal="User:alice", host="*",
            operation=5, permission_type=3)]))
        assert [r.error_code for r in acl.results] == [CLUSTER_FAILED]
        run_tool("4", "kafka-acls", ["--bootstrap-server", broker.bootstrap, "--add", "--allow-principal",
                                     "User:alice", "--operation", "Create", "--resource-pattern-type", "prefixed",
                                     "--topic", "alice-"], timeout=120)
        assert eventually(lambda: create("alice", "alice-topic") == [E.NONE], 30, "alice creates alice-topic")
        assert create("alice", "other-topic") == [TOPIC_FAILED]
        listed = run_tool("4", "kafka-acls", ["--bootstrap-server", broker.bootstrap, "--list"], timeout=120).stdout
        assert "(principal=User:alice, host=*, operation=CREATE, permissionType=ALLOW)" in listed, listed
        # Metadata is the broker's own check: Apache's authorizer over the records kafpy wrote
        assert metadata_error(sasl_port, "alice", "alice-topic") == TOPIC_FAILED
        run_tool("4", "kafka-acls", ["--bootstrap-server", broker.bootstrap, "--add", "--allow-principal",
                                     "User:alice", "--operation", "Describe", "--topic", "alice-topic"], timeout=120)
        eventually(lambda: metadata_error(sasl_port, "alice", "alice-topic") == E.NONE, 30, "alice describes")
        assert metadata_error(sasl_port, "bob", "alice-topic") == TOPIC_FAILED
    finally:
        broker.stop()
        controllers.stop_all()
