"""What a KRaft controller answers to admin requests it refuses, kafpy's single combined node
beside Apache Kafka 4.4's, the same raw requests to both: error code and message of each
topic or partition in CreateTopics, CreatePartitions, DeleteTopics,
AlterPartitionReassignments, ListPartitionReassignments and IncrementalAlterConfigs (what
``kafka-topics.sh``, ``kafka-reassign-partitions.sh`` and ``kafka-configs.sh`` print)."""
from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from tests.integration.broker.raw import RawConnection
from tests.support.kraft_combined import SingleNode
from tests.support.ports import LOOPBACK

pytestmark = pytest.mark.timeout(600)
TOPIC = "answered"
UNKNOWN_ID = uuid.UUID("1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b").bytes
TOPIC_RESOURCE = 2


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SingleNode]]:
    base = tmp_path_factory.mktemp("controller-answers")
    both = {impl: SingleNode(impl, base / impl) for impl in ("apache", "kafpy")}
    try:
        with ThreadPoolExecutor(2) as pool:
            for started in [pool.submit(n.start) for n in both.values()]:
                started.result()
        yield both
    finally:
        for n in both.values():
            n.stop()


def _create_topics(c: RawConnection, *topics: Any) -> list[tuple[str, int, str | None]]:
    r = c.request(ApiKey.CREATE_TOPICS, 7, M.CreateTopicsRequest(timeout_ms=30000, validate_only=False,
                                                                 topics=list(topics)))
    return [(t.name, t.error_code, t.error_message) for t in r.topics]


def _topic(name: str, partitions: int = 2, rf: int = 1, configs: dict[str, str] | None = None) -> Any:
    T = M.CreateTopicsRequest
    return T.CreatableTopic(name=name, num_partitions=partitions, replication_factor=rf, assignments=[],
                            configs=[T.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()])


def _known(c: RawConnection, name: str) -> bool:
    r = c.request(ApiKey.METADATA, 12, M.MetadataRequest(topics=[M.MetadataRequest.MetadataRequestTopic(
        name=name)], allow_auto_topic_creation=False))
    return r.topics[0].error_code == 0 and len(r.topics[0].partitions) == 2


def _answers(node: SingleNode) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    with RawConnection(LOOPBACK, node.port, timeout=30) as c:
        assert _create_topics(c, _topic(TOPIC)) == [(TOPIC, 0, None)]
        deadline = time.monotonic() + 60   # the broker's image follows the controller's commit
        while not _known(c, TOPIC):
            assert time.monotonic() < deadline, f"{TOPIC} not in {node.node.impl}'s metadata"
            time.sleep(0.2)
        seen["create"] = _create_topics(
            c, _topic(TOPIC), _topic("too-many-replicas", rf=3), _topic("bad-policy", configs={
                "cleanup.policy": "sometimes"}), _topic("bad name!"), _topic("no-partitions", partitions=0))
        P = M.CreatePartitionsRequest
        r = c.request(ApiKey.CREATE_PARTITIONS, 3, P(timeout_ms=30000, validate_only=True, topics=[
            P.CreatePartitionsTopic(name="no-such-topic", count=3, assignments=None),
            P.CreatePartitionsTopic(name=TOPIC, count=2, assignments=None)]))
        # Kafka lists the topics in a hash set's order: compared sorted
        seen["create partitions"] = sorted((t.name, t.error_code, t.error_message) for t in r.results)
        r = c.request(ApiKey.CREATE_PARTITIONS, 3, P(timeout_ms=30000, validate_only=True, topics=[
            P.CreatePartitionsTopic(name=TOPIC, count=1, assignments=None)]))
        seen["fewer partitions"] = [(t.name, t.error_code, t.error_message) for t in r.results]
        r = c.request(ApiKey.CREATE_PARTITIONS, 3, P(timeout_ms=30000, validate_only=True, topics=[
            P.CreatePartitionsTopic(name=TOPIC, count=4, assignments=[P.CreatePartitionsAssignment(
                broker_ids=[1])])]))
        seen["too few assignments"] = [(t.name, t.error_code, t.error_message) for t in r.results]
        D = M.DeleteTopicsRequest
        r = c.request(ApiKey.DELETE_TOPICS, 6, D(timeout_ms=30000, topics=[
            D.DeleteTopicState(name="no-such-topic", topic_id=bytes(16)),
            D.DeleteTopicState(name=None, topic_id=UNKNOWN_ID)]))
        seen["delete"] = sorted(((t.name or "", t.error_code, t.error_message) for t in r.responses))
        A = M.AlterPartitionReassignmentsRequest
        r = c.request(ApiKey.ALTER_PARTITION_REASSIGNMENTS, 0, A(timeout_ms=30000, topics=[
            A.ReassignableTopic(name=TOPIC, partitions=[A.ReassignablePartition(partition_index=0, replicas=None),
                                                        A.ReassignablePartition(partition_index=1, replicas=[1, 7]),
                                                        A.ReassignablePartition(partition_index=5, replicas=[1])]),
            A.ReassignableTopic(name="no-such-topic", partitions=[
                A.ReassignablePartition(partition_index=0, replicas=[1])])]))
        seen["reassign"] = (r.error_code, r.error_message, [
            (t.name, [(p.partition_index, p.error_code, p.error_message) for p in t.partitions])
            for t in r.responses])
        r = c.request(ApiKey.LIST_PARTITION_REASSIGNMENTS, 0, M.ListPartitionReassignmentsRequest(
            timeout_ms=30000, topics=None))
        seen["list reassignments"] = (r.error_code, r.error_message, [t.name for t in r.topics])
        C = M.IncrementalAlterConfigsRequest

        def alter(*resources: tuple[str, str, str]) -> list[tuple[str, int, str | None]]:
            r = c.request(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, C(validate_only=True, resources=[
                C.AlterConfigsResource(resource_type=TOPIC_RESOURCE, resource_name=topic, configs=[
                    C.AlterableConfig(name=name, config_operation=0, value=value)]) for topic, name, value in resources]))
            return [(x.resource_name, x.error_code, x.error_message) for x in r.responses]
        seen["alter configs"] = alter(("no-such-topic", "retention.ms", "1000"), (TOPIC, "retention.ms", "soon"))
        seen["alter unknown config"] = alter((TOPIC, "no.such.config", "1"))
        seen["alter a topic twice"] = alter((TOPIC, "retention.ms", "1000"), ("no-such-topic", "retention.ms", "1"),
                                            (TOPIC, "retention.bytes", "1000"))
    return seen


def test_refusals_answer_as_kafka_44s_controller(nodes: dict[str, SingleNode]) -> None:
    seen = {impl: _answers(node) for impl, node in nodes.items()}
    differ = {k: (seen["kafpy"][k], seen["apache"][k]) for k in seen["apache"] if seen["kafpy"][k] != seen["apache"][k]}
    assert not differ, differ
    # each case was refused (a case both accept would compare nothing)
    assert all(code for _, code, _ in seen["kafpy"]["create"]), seen["kafpy"]["create"]
    assert all(code for _, code, _ in seen["kafpy"]["create partitions"] + seen["kafpy"]["delete"])
    assert all(code for _, parts in seen["kafpy"]["reassign"][2] for _, code, _ in parts)
    assert [code for _, code, _ in seen["kafpy"]["alter a topic twice"]] == [42, 3, 42]   # INVALID_REQUEST


def _security_answers(node: SingleNode) -> dict[str, Any]:
    """ACLs (no authorizer is configured), client quotas, SCRAM credentials and features the
    controller refuses."""
    seen: dict[str, Any] = {}
    A = M.CreateAclsRequest

    def acl(rtype: int = 2, pattern: int = 3, principal: str = "User:alice", op: int = 3, permission: int = 3,
            name: str = TOPIC, host: str = "*") -> Any:
        return A.AclCreation(resource_type=rtype, resource_name=name, resource_pattern_type=pattern,
                             principal=principal, host=host, operation=op, permission_type=permission)
    Q = M.AlterClientQuotasRequest

    def quota(entity: list[tuple[str, str]], key: str = "producer_byte_rate", value: float = 1024.0) -> Any:
        return Q.EntryData(entity=[Q.EntityData(entity_type=t, entity_name=n) for t, n in entity],
                           ops=[Q.OpData(key=key, value=value, remove=False)])
    S = M.AlterUserScramCredentialsRequest
    F = M.UpdateFeaturesRequest
    with RawConnection(LOOPBACK, node.port, timeout=30) as c:
        r = c.request(ApiKey.CREATE_ACLS, 3, A(creations=[
            acl(), acl(rtype=1), acl(pattern=1), acl(pattern=4), acl(principal="alice"), acl(op=1), acl(permission=1),
            acl(name=""), acl(host="")]))
        seen["acls"] = [(x.error_code, x.error_message) for x in r.results]
        for shape, entry in {
                "unknown key": quota([("user", "u")], key="no.such.quota"),
                "negative rate": quota([("user", "u")], value=-5.0),
                "no entity": quota([]),
                "unknown entity type": quota([("bogus", "b")]),
                "ip with client": quota([("client-id", "c"), ("ip", "1.2.3.4")]),
                "not an ip": quota([("ip", "not-an-ip")], key="connection_creation_rate"),
                "rate on an ip": quota([("ip", "1.2.3.4")]),
                "fractional": quota([("user", "u")], value=1.5),
                "too large for an int": quota([("ip", "1.2.3.4")], key="connection_creation_rate", value=3e9),
                "infinite": quota([("client-id", "c")], key="request_percentage", value=float("inf")),
                "empty name": quota([("user", "")]),
                "same type twice": quota([("user", "a"), ("user", "b")])}.items():
            r = c.request(ApiKey.ALTER_CLIENT_QUOTAS, 1, Q(validate_only=True, entries=[entry]))
            seen[f"quota: {shape}"] = [(x.error_code, x.error_message) for x in r.entries]
        r = c.request(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, 0, S(
            deletions=[S.ScramCredentialDeletion(name="ghost", mechanism=1)],
            upsertions=[S.ScramCredentialUpsertion(name="few", mechanism=1, iterations=10, salt=b"s" * 16,
                                                   salted_password=b"p" * 32),
                        S.ScramCredentialUpsertion(name="odd", mechanism=0, iterations=8192, salt=b"s" * 16,
                                                   salted_password=b"p" * 32),
                        S.ScramCredentialUpsertion(name="", mechanism=1, iterations=8192, salt=b"s" * 16,
                                                   salted_password=b"p" * 32)]))
        seen["scram"] = sorted((x.user, x.error_code, x.error_message) for x in r.results)
        for shape, update in {
                "unknown feature": F.FeatureUpdateKey(feature="no.such.feature", max_version_level=1, upgrade_type=1),
                "downgrade without asking": F.FeatureUpdateKey(feature="metadata.version", max_version_level=1,
                                                               upgrade_type=1),
                "kraft.version too high": F.FeatureUpdateKey(feature="kraft.version", max_version_level=9,
                                                             upgrade_type=1)}.items():
            r = c.request(ApiKey.UPDATE_FEATURES, 1, F(timeout_ms=30000, validate_only=True, feature_updates=[update]))
            seen[f"features: {shape}"] = (r.error_code, r.error_message,
                                          [(x.feature, x.error_code, x.error_message) for x in r.results])
    return seen


def test_acl_quota_scram_and_feature_refusals_answer_as_kafka_44s_controller(
        nodes: dict[str, SingleNode]) -> None:
    seen = {impl: _security_answers(node) for impl, node in nodes.items()}
    differ = {k: (seen["kafpy"][k], seen["apache"][k]) for k in seen["apache"] if seen["kafpy"][k] != seen["apache"][k]}
    assert not differ, differ
    # no authorizer on either node: each creation is refused as such
    assert seen["kafpy"]["acls"] == [(54, "No Authorizer is configured.")] * 9   # SECURITY_DISABLED
    assert all(code for key, value in seen["kafpy"].items() if key.startswith("quota: ")
               and key != "quota: same type twice" for code, _ in value), seen["kafpy"]
    # Kafka reads an entity into a map: a type named twice is not refused, its last name counts
    assert seen["kafpy"]["quota: same type twice"] == [(0, None)]
