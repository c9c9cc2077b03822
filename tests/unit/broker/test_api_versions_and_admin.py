"""ApiVersions (ranges from the registry, KIP-511 name check) and the admin handlers'
pagination and error answers, against a socket-free broker."""
from __future__ import annotations

import asyncio

import pytest

from kafpy.protocol.messages import (ApiVersionsRequest, CreatePartitionsRequest, DeleteTopicsRequest,
                               DescribeTopicPartitionsRequest)

from kafpy.protocol import codec
from kafpy.protocol.messages import RequestHeader

from kafpy.broker.apis import ApiRegistry
from kafpy.broker.handlers.admin import (handle_create_partitions, handle_delete_topics,
                                   handle_describe_topic_partitions)
from kafpy.broker.handlers.api_versions import handle_api_versions
from tests.unit.broker.helpers import LocalBroker, call

UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS, INVALID_REQUEST = 3, 37, 42
REBOOTSTRAP_REQUIRED = 129


@pytest.fixture
def broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop)
    b.apis = ApiRegistry.load()
    try:
        yield b
    finally:
        b.close()
        loop.close()


def test_api_versions_lists_exactly_the_registry(broker):
    resp = call(broker, handle_api_versions, 18, 3, ApiVersionsRequest(client_software_name="unit-test",
                                                                        client_software_version="1.0.0"))
    assert resp.error_code == 0
    # every registered API but those a feature level gates (share.version for ShareFetch...)
    features = broker.services.features
    finalized = features.current() if features is not None else None
    expected = [r for r in broker.apis.version_ranges() if finalized is None or finalized.enables(r[0])]
    assert [(k.api_key, k.min_version, k.max_version) for k in resp.api_keys] == expected
    ranges = {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}
    # what old librdkafka and kafka-python's version probing need (Produce v7+, Fetch v11+,
    # ListOffsets v10+, ApiVersions up to v5)
    assert ranges[0][0] == 0 and ranges[0][1] >= 7 and ranges[1][0] == 0 and ranges[1][1] >= 11
    assert ranges[18] == (0, 5) and ranges[2][1] >= 10


def test_api_versions_checks_client_software_name(broker):
    resp = call(broker, handle_api_versions, 18, 3, ApiVersionsRequest(client_software_name="bad name!",
                                                                        client_software_version="1"))
    assert resp.error_code == INVALID_REQUEST and resp.api_keys  # ranges still listed
    resp = call(broker, handle_api_versions, 18, 0, ApiVersionsRequest())
    assert resp.error_code == 0


def test_api_versions_v5_from_the_wire_checks_cluster_and_node(broker):
    """v5 (KIP-1242) as a Java 4.4 client sends it: answered with the ranges when it names
    no cluster or this one with our node id; REBOOTSTRAP_REQUIRED (no ranges) otherwise."""
    def ask(cluster_id, node_id):
        frame = codec.encode_request(
            RequestHeader(request_api_key=18, request_api_version=5, correlation_id=7, client_id="java"),
            codec.ApiVersionsRequestV5(client_software_name="apache-kafka-java", client_software_version="4.4.0",
                                       cluster_id=cluster_id, node_id=node_id))
        header, req = codec.decode_request(frame[4:])
        assert (req.cluster_id, req.node_id) == (cluster_id, node_id)
        resp = call(broker, handle_api_versions, 18, header.request_api_version, req)
        # the v5 answer has v4's layout, with the v0 response header
        cid, back = codec.decode_response(18, 5, codec.encode_response(18, 5, 7, resp)[4:])
        assert cid == 7 and back.error_code == resp.error_code
        return resp

    ok = ask(None, -1)
    assert ok.error_code == 0 and ok.api_keys
    ok = ask(broker.metadata.cluster_id, broker.config.broker_id)
    assert ok.error_code == 0 and ok.api_keys
    for cluster_id, node_id in (("another-cluster", 0), (broker.metadata.cluster_id, 5)):
        bad = ask(cluster_id, node_id)
        assert bad.error_code == REBOOTSTRAP_REQUIRED and not bad.api_keys


def test_describe_topic_partitions_pages_with_a_cursor(broker):
    D = DescribeTopicPartitionsRequest
    broker.create_topic("a", 3)
    broker.create_topic("b", 1)
    r = call(broker, handle_describe_topic_partitions, 75, 0, D(topics=[], response_partition_limit=2, cursor=None))
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in r.topics] == [("a", [0, 1])]
    assert (r.next_cursor.topic_name, r.next_cursor.partition_index) == ("a", 2)
    r = call(broker, handle_describe_topic_partitions, 75, 0, D(
        topics=[], response_partition_limit=2, cursor=D.Cursor(topic_name="a", partition_index=2)))
    assert [(t.name, [p.partition_index for p in t.partitions]) for t in r.topics] == [("a", [2]), ("b", [0])]
    assert r.next_cursor is None
    r = call(broker, handle_describe_topic_partitions, 75, 0, D(
        topics=[D.TopicRequest(name="zz")], response_partition_limit=10, cursor=None))
    assert r.topics[0].error_code == UNKNOWN_TOPIC_OR_PARTITION


def test_describe_topic_partitions_answers_at_most_the_brokers_partition_limit(tmp_path):
    """max.request.partition.size.limit caps the client's response_partition_limit, so one
    request cannot make the broker describe every partition of the cluster at once."""
    D = DescribeTopicPartitionsRequest
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop, **{"max.request.partition.size.limit": "3"})
    try:
        b.create_topic("a", 5)
        r = call(b, handle_describe_topic_partitions, 75, 0, D(topics=[], response_partition_limit=2**31 - 1, cursor=None))
        assert [p.partition_index for p in r.topics[0].partitions] == [0, 1, 2]
        assert (r.next_cursor.topic_name, r.next_cursor.partition_index) == ("a", 3)
        r = call(b, handle_describe_topic_partitions, 75, 0, D(topics=[], response_partition_limit=2, cursor=None))
        assert [p.partition_index for p in r.topics[0].partitions] == [0, 1]   # the smaller of the two
    finally:
        b.close()
        loop.close()


def test_create_partitions_grows_and_refuses_shrinking(broker):
    C = CreatePartitionsRequest
    broker.create_topic("a", 2)
    r = call(broker, handle_create_partitions, 37, 3, C(timeout_ms=1000, validate_only=False, topics=[
        C.CreatePartitionsTopic(name="a", count=4, assignments=None)]))
    assert r.results[0].error_code == 0
    assert sorted(broker.metadata.topic("a").partitions) == [0, 1, 2, 3]
    assert broker.replica_manager.get_partition("a", 3) is not None
    r = call(broker, handle_create_partitions, 37, 3, C(timeout_ms=1000, validate_only=False, topics=[
        C.CreatePartitionsTopic(name="a", count=1, assignments=None),
        C.CreatePartitionsTopic(name="missing", count=3, assignments=None)]))
    assert [x.error_code for x in r.results] == [INVALID_PARTITIONS, UNKNOWN_TOPIC_OR_PARTITION]


def test_delete_topics_by_name_and_unknown(broker):
    Dt = DeleteTopicsRequest
    broker.create_topic("a", 1)
    broker.append("a", 0, [b"x"])
    r = call(broker, handle_delete_topics, 20, 5, Dt(topic_names=["a", "missing"], timeout_ms=1000))
    assert [(x.name, x.error_code) for x in r.responses] == [("a", 0), ("missing", UNKNOWN_TOPIC_OR_PARTITION)]
    assert broker.metadata.topic("a") is None and broker.replica_manager.get_partition("a", 0) is None
