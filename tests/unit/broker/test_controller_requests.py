"""ControllerApis with the quorum controller behind it, over the in-memory three-controller
quorum of test_controller_events: what Kafka's ControllerApis adds around the managers
(duplicate and ``__cluster_metadata`` topic names, DeleteTopics by name and by id), DescribeConfigs
from the committed image, ACLs answered SECURITY_DISABLED without an authorizer and written as
records with one, a request forwarded in an Envelope (judged as the Envelope's principal with an
authorizer), and a manager's refusal as the request's error response."""
from __future__ import annotations

import asyncio
import logging

import pytest

from kafpy.broker.config import KafkaConfig
from kafpy.broker.controller_apis import ControllerApis, RequestScope
from kafpy.broker.controller_authorization import ControllerAuthorizer
from kafpy.broker.controller_requests import ControllerRequests
from kafpy.broker.security.image_acl_store import ImageAclStore
from kafpy.broker.security.principal import KafkaPrincipal
from kafpy.broker.security.principal_serde import serialize
from kafpy.broker.security.standard_authorizer import STANDARD_AUTHORIZER, create_kraft_authorizer
from kafpy.protocol import codec
from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode
from kafpy.raft.voter_set import VoterSet

from tests.unit.broker.test_controller_events import Quorum
from tests.unit.metadata.controller.helpers import CLUSTER_ID, registration

SCOPE = RequestScope("CONTROLLER")
CT = M.CreateTopicsRequest


def _header(key: int, version: int) -> M.RequestHeader:
    return M.RequestHeader(request_api_key=key, request_api_version=version, correlation_id=9, client_id="t")


async def _apis(q: Quorum, node: int) -> ControllerApis:
    config = KafkaConfig({"process.roles": "controller", "node.id": str(node),
                          "controller.quorum.voters": "1@localhost:1,2@localhost:2,3@localhost:3",
                          "controller.listener.names": "CONTROLLER", "listeners": "CONTROLLER://localhost:1",
                          "listener.security.protocol.map": "CONTROLLER:PLAINTEXT"})
    voters = VoterSet.from_static({1: ("localhost", 1), 2: ("localhost", 2), 3: ("localhost", 3)}, "CONTROLLER")
    return ControllerApis(q.net.clients[node], CLUSTER_ID, node, voters,
                          ControllerRequests(q.controllers[node], q.events[node], config))


async def _call(apis: ControllerApis, request: M.Message, version: int) -> M.Message:
    key = request.API_KEY
    assert key is not None and apis.is_enabled(key, version)
    return await apis.handle(_header(key, version), request, SCOPE)


async def _unfenced_broker(q: Quorum, apis: ControllerApis, broker_id: int) -> None:
    reg = await _call(apis, registration(broker_id), 4)
    assert isinstance(reg, M.BrokerRegistrationResponse) and reg.error_code == 0
    c = q.controllers[apis.node_id]
    beat = await _call(apis, M.BrokerHeartbeatRequest(broker_id=broker_id, broker_epoch=reg.broker_epoch,
                                                      current_metadata_offset=c.metadata.last_offset), 1)
    assert isinstance(beat, M.BrokerHeartbeatResponse) and not beat.is_fenced


def test_admin_requests_through_the_active_controller() -> None:
    async def run() -> None:
        q = Quorum()
        try:
            leader = await q.wait_active()
            apis = await _apis(q, leader)
            await _unfenced_broker(q, apis, 4)
            created = await _call(apis, CT(timeout_ms=1000, topics=[
                CT.CreatableTopic(name="a", num_partitions=2, replication_factor=1,
                                  configs=[CT.CreatableTopicConfig(name="retention.ms", value="1000")]),
                CT.CreatableTopic(name="dup", num_partitions=1, replication_factor=1),
                CT.CreatableTopic(name="dup", num_partitions=1, replication_factor=1),
                CT.CreatableTopic(name="__cluster_metadata", num_partitions=1, replication_factor=1)]), 7)
            assert isinstance(created, M.CreateTopicsResponse)
            assert sorted((t.name, t.error_code, t.error_message) for t in created.topics) == [
                ("__cluster_metadata", 42, "Creation of internal topic __cluster_metadata is prohibited."),
                ("a", 0, None), ("dup", 42, "Duplicate topic name.")]
            # every controller replays it; DescribeConfigs on a standby reads its own image
            standby = await _apis(q, next(n for n in q.controllers if n != leader))
            c = q.controllers[standby.node_id]
            await asyncio.wait_for(_until(lambda: c.metadata.image.topic("a") is not None), 5)
            described = await _call(standby, M.DescribeConfigsRequest(resources=[
                M.DescribeConfigsRequest.DescribeConfigsResource(resource_type=2, resource_name="a",
                                                                 configuration_keys=["retention.ms"]),
                M.DescribeConfigsRequest.DescribeConfigsResource(resource_type=2, resource_name="nope")]), 4)
            assert isinstance(described, M.DescribeConfigsResponse)
            (entry,) = described.results[0].configs
            assert (entry.name, entry.value, entry.config_source) == ("retention.ms", "1000", 1)
            assert described.results[1].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            # a write on the standby
            refused = await _call(standby, M.DeleteTopicsRequest(topic_names=["a"]), 5)
            assert isinstance(refused, M.DeleteTopicsResponse)
            assert [r.error_code for r in refused.responses] == [ErrorCode.NOT_CONTROLLER]
            # DeleteTopics v6 by id, and an unknown name
            topic_id = q.controllers[leader].metadata.image.topic("a").id  # type: ignore[union-attr]
            D = M.DeleteTopicsRequest.DeleteTopicState
            deleted = await _call(apis, M.DeleteTopicsRequest(topics=[D(name=None, topic_id=topic_id),
                                                                     D(name="nope")]), 6)
            assert isinstance(deleted, M.DeleteTopicsResponse)
            assert sorted((r.name, r.error_code) for r in deleted.responses) == [
                ("a", 0), ("nope", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]
            # Kafka's refusals around the manager
            odd = await _call(apis, M.DeleteTopicsRequest(topics=[
                D(name=None), D(name="x", topic_id=topic_id), D(name="y"), D(name="y")]), 6)
            assert isinstance(odd, M.DeleteTopicsResponse)
            assert sorted((r.name or "", r.error_code, r.error_message or "") for r in odd.responses) == [
                ("", 42, "Neither topic name nor id were specified."),
                ("x", 42, "You may not specify both topic name and topic id."),
                ("y", 42, "Duplicate topic name.")]
            # ACLs: no authorizer on a controller
            acls = await _call(apis, M.DescribeAclsRequest(resource_type_filter=1, pattern_type_filter=1,
                                                           operation=1, permission_type=1), 3)
            assert isinstance(acls, M.DescribeAclsResponse)
            assert (acls.error_code, acls.error_message) == (ErrorCode.SECURITY_DISABLED, "No Authorizer is configured.")
        finally:
            await q.close()
    asyncio.run(run())


def test_an_envelope_carries_a_forwarded_request_and_its_answer() -> None:
    async def run() -> None:
        q = Quorum()
        try:
            leader = await q.wait_active()
            apis = await _apis(q, leader)
            inner = codec.encode_request(_header(M.CreatePartitionsRequest.API_KEY or 0, 3), M.CreatePartitionsRequest(
                topics=[M.CreatePartitionsRequest.CreatePartitionsTopic(name="missing", count=3)], timeout_ms=100))
            answer = await _call(apis, M.EnvelopeRequest(request_data=inner[4:], request_principal=b"",
                                                         client_host_address=bytes([127, 0, 0, 1])), 0)
            assert isinstance(answer, M.EnvelopeResponse) and answer.error_code == 0
            assert answer.response_data is not None
            correlation_id, body = codec.decode_response(M.CreatePartitionsRequest.API_KEY or 0, 3,
                                                         answer.response_data)
            assert correlation_id == 9 and isinstance(body, M.CreatePartitionsResponse)
            assert [(r.name, r.error_code) for r in body.results] == [("missing", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]
            # what cannot be forwarded (a raft API, garbage) is INVALID_REQUEST
            vote = codec.encode_request(_header(52, 0), M.VoteRequest())
            for data in (vote[4:], b"\x00\x01"):
                refused = await _call(apis, M.EnvelopeRequest(request_data=data), 0)
                assert isinstance(refused, M.EnvelopeResponse) and refused.error_code == ErrorCode.INVALID_REQUEST
        finally:
            await q.close()
    asyncio.run(run())


def _envelope(key: int, version: int, request: M.Message) -> M.EnvelopeRequest:
    inner = codec.encode_request(_header(key, version), request)
    return M.EnvelopeRequest(request_data=inner[4:], request_principal=b"", client_host_address=bytes([127, 0, 0, 1]))


def test_an_envelope_to_a_controller_that_is_not_active_says_not_controller() -> None:
    """As Kafka's RequestChannel: a forwarded request answered NOT_CONTROLLER (a DescribeQuorum
    answered NOT_LEADER_OR_FOLLOWER) comes back as an envelope with NOT_CONTROLLER and no data,
    so the forwarding broker looks for the active controller again. DescribeQuorum,
    AddRaftVoter and RemoveRaftVoter are forwardable (Kafka's ApiKeys), so the active controller
    answers them in an envelope."""
    async def run() -> None:
        q = Quorum()
        try:
            leader = await q.wait_active()
            standby = await _apis(q, next(n for n in q.controllers if n != leader))
            active = await _apis(q, leader)
            delete = _envelope(M.DeleteTopicsRequest.API_KEY or 0, 5, M.DeleteTopicsRequest(topic_names=["a"]))
            DQ = M.DescribeQuorumRequest
            quorum = _envelope(DQ.API_KEY or 0, 2, DQ(topics=[DQ.TopicData(
                topic_name="__cluster_metadata", partitions=[DQ.PartitionData(partition_index=0)])]))
            for request in (delete, quorum):
                answer = await _call(standby, request, 0)
                assert isinstance(answer, M.EnvelopeResponse)
                assert (answer.error_code, answer.response_data) == (ErrorCode.NOT_CONTROLLER, None)
            answer = await _call(active, quorum, 0)
            assert isinstance(answer, M.EnvelopeResponse) and answer.error_code == 0
            assert answer.response_data is not None
            _, body = codec.decode_response(DQ.API_KEY or 0, 2, answer.response_data)
            assert isinstance(body, M.DescribeQuorumResponse)
            assert body.topics[0].partitions[0].leader_id == leader
        finally:
            await q.close()
    asyncio.run(run())


def test_a_managers_refusal_is_the_requests_error_response(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "org.apache.kafka.controller.QuorumController")

    async def run() -> None:
        q = Quorum()
        try:
            leader = await q.wait_active()
            apis = await _apis(q, leader)
            wrong = registration(5)
            wrong.cluster_id = "another"
            refused = await _call(apis, wrong, 4)
            assert isinstance(refused, M.BrokerRegistrationResponse)
            assert refused.error_code == ErrorCode.INCONSISTENT_CLUSTER_ID
            # BrokerRegistrationResponse has no message: the controller's log gives the reason
            assert ("BROKER_REGISTRATION: event failed with INCONSISTENT_CLUSTER_ID. Exception message: "
                    f"Expected cluster ID {CLUSTER_ID}, but got cluster ID another") in caplog.text
            # a broker that is not registered
            bad = await _call(apis, M.AlterPartitionRequest(broker_id=5, broker_epoch=1, topics=[]), 3)
            assert isinstance(bad, M.AlterPartitionResponse)
            assert bad.error_code == ErrorCode.STALE_BROKER_EPOCH
        finally:
            await q.close()
    asyncio.run(run())


async def _until(predicate: object) -> None:
    assert callable(predicate)
    while not predicate():
        await asyncio.sleep(0.01)


async def _secured_apis(q: Quorum, node: int) -> ControllerApis:
    """``_apis`` with Kafka's StandardAuthorizer over the controller's image (User:ANONYMOUS a
    super user, as the nodes' own PLAINTEXT traffic is)."""
    config = KafkaConfig({"process.roles": "controller", "node.id": str(node),
                          "controller.quorum.voters": "1@localhost:1,2@localhost:2,3@localhost:3",
                          "controller.listener.names": "CONTROLLER", "listeners": "CONTROLLER://localhost:1",
                          "listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
                          "authorizer.class.name": STANDARD_AUTHORIZER, "super.users": "User:ANONYMOUS"})
    store = ImageAclStore()
    authorizer = create_kraft_authorizer(config, store)
    assert authorizer is not None
    await authorizer.start()
    controller = q.controllers[node]
    voters = VoterSet.from_static({1: ("localhost", 1), 2: ("localhost", 2), 3: ("localhost", 3)}, "CONTROLLER")
    return ControllerApis(q.net.clients[node], CLUSTER_ID, node, voters,
                          ControllerRequests(controller, q.events[node], config, authorizer),
                          ControllerAuthorizer(authorizer, store, lambda: controller.metadata.image, lambda: True))


def _envelope_as(request: M.Message, version: int, principal: bytes) -> M.EnvelopeRequest:
    inner = codec.encode_request(_header(request.API_KEY or 0, version), request)
    return M.EnvelopeRequest(request_data=inner[4:], request_principal=principal,
                             client_host_address=bytes([127, 0, 0, 1]))


def test_acls_are_records_and_an_envelope_is_judged_as_its_principal() -> None:
    async def run() -> None:
        q = Quorum()
        try:
            leader = await q.wait_active()
            apis = await _secured_apis(q, leader)
            await _unfenced_broker(q, apis, 4)
            C = M.CreateAclsRequest
            made = await _call(apis, C(creations=[C.AclCreation(
                resource_type=2, resource_name="a-", resource_pattern_type=4, principal="User:alice", host="*",
                operation=5, permission_type=3)]), 3)
            assert isinstance(made, M.CreateAclsResponse) and [r.error_code for r in made.results] == [0]
            # the authorizer takes the ACLs of the committed image it replayed (as Kafka's, after the commit)
            image = q.controllers[leader].metadata
            await _until(lambda: image.image.acls.acls)
            listed = await _call(apis, M.DescribeAclsRequest(
                resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1, principal_filter=None,
                host_filter=None, operation=1, permission_type=1), 3)
            assert isinstance(listed, M.DescribeAclsResponse) and listed.error_code == 0
            assert [(r.resource_name, r.pattern_type, [a.principal for a in r.acls]) for r in listed.resources] == [
                ("a-", 4, ["User:alice"])]
            create = M.CreateTopicsRequest(topics=[CT.CreatableTopic(name="a-topic", num_partitions=1,
                                                                     replication_factor=1)], timeout_ms=1000)
            results = {}
            for user in ("bob", "alice"):
                answer = await _call(apis, _envelope_as(create, 7, serialize(KafkaPrincipal.user(user))), 0)
                assert isinstance(answer, M.EnvelopeResponse) and answer.error_code == 0
                assert answer.response_data is not None
                _, body = codec.decode_response(19, 7, answer.response_data)
                assert isinstance(body, M.CreateTopicsResponse)
                results[user] = [(t.name, t.error_code) for t in body.topics]
            assert results == {"bob": [("a-topic", ErrorCode.TOPIC_AUTHORIZATION_FAILED)],
                               "alice": [("a-topic", ErrorCode.NONE)]}
            # the ACL change through an Envelope: judged as bob, who may not ALTER the cluster
            refused = await _call(apis, _envelope_as(M.DeleteAclsRequest(filters=[M.DeleteAclsRequest.DeleteAclsFilter(
                resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1, principal_filter=None,
                host_filter=None, operation=1, permission_type=1)]), 3,
                serialize(KafkaPrincipal.user("bob"))), 0)
            assert isinstance(refused, M.EnvelopeResponse) and refused.response_data is not None
            _, deleted = codec.decode_response(31, 3, refused.response_data)
            assert isinstance(deleted, M.DeleteAclsResponse)
            assert [f.error_code for f in deleted.filter_results] == [ErrorCode.CLUSTER_AUTHORIZATION_FAILED]
            garbled = await _call(apis, _envelope_as(create, 7, b"\x00\x07junk"), 0)
            assert isinstance(garbled, M.EnvelopeResponse)
            assert garbled.error_code == ErrorCode.PRINCIPAL_DESERIALIZATION_FAILURE
        finally:
            await q.close()
    asyncio.run(run())


def test_update_features_answers_as_kafka_44s_quorum_controller() -> None:
    """A refusal is the top-level error alone (no per-feature results, even below v2), its
    message saying that nothing changed."""
    async def run() -> None:
        q = Quorum()
        try:
            leader = await q.wait_active()
            apis = await _apis(q, leader)
            U = M.UpdateFeaturesRequest
            too_far = U(timeout_ms=1000, feature_updates=[U.FeatureUpdateKey(
                feature="group.version", max_version_level=5, upgrade_type=1)])
            refused = await _call(apis, too_far, 1)
            assert isinstance(refused, M.UpdateFeaturesResponse)
            assert (refused.error_code, refused.error_message, refused.results) == (
                ErrorCode.INVALID_UPDATE_VERSION,
                "The update failed for all features since the following feature had an error: Invalid update "
                f"version 5 for feature group.version. Local controller {leader} only supports versions 0-1", [])
        finally:
            await q.close()
    asyncio.run(run())
