"""A failed handler is answered with Kafka's error response, built from the schemas."""
from __future__ import annotations

from typing import TypeVar

import pytest

from kafpy.broker.error_responses import error_response
from kafpy.protocol.errors import error_code_for
from kafpy.protocol import codec
from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode as E, InvalidRequest
from kafpy.storage.errors import KafkaStorageError

ERR = E.UNKNOWN_SERVER_ERROR
_R = TypeVar("_R", bound=M.Message)


def roundtrip(api_key: int, version: int, request: M.Message, answer: type[_R]) -> _R:
    """The error response as a client decodes it off the wire (an ``answer``)."""
    body = error_response(api_key, version, request, ERR)
    assert body is not None
    frame = codec.encode_response(api_key, version, 7, body)
    corr, decoded = codec.decode_response(api_key, version, frame[4:])
    assert corr == 7
    assert isinstance(decoded, answer)
    return decoded


@pytest.mark.parametrize("version", [3, 9, 11])
def test_produce_answers_every_partition(version: int) -> None:
    R = M.ProduceRequest
    req = R(acks=-1, topic_data=[R.TopicProduceData(name="t", partition_data=[
        R.PartitionProduceData(index=0, records=b"x"), R.PartitionProduceData(index=3, records=b"y")])])
    resp = roundtrip(0, version, req, M.ProduceResponse)
    assert [(t.name, [(p.index, p.error_code) for p in t.partition_responses]) for t in resp.responses] == \
        [("t", [(0, ERR), (3, ERR)])]


def test_produce_acks_0_closes_the_connection() -> None:
    assert error_response(0, 9, M.ProduceRequest(acks=0), ERR) is None


@pytest.mark.parametrize("version", [4, 12, 13])
def test_fetch_mirrors_topics_not_forgotten_ones(version: int) -> None:
    R = M.FetchRequest
    tid = bytes(range(16))
    req = R(topics=[R.FetchTopic(topic="t", topic_id=tid, partitions=[R.FetchPartition(partition=2)])],
            forgotten_topics_data=[R.ForgottenTopic(topic="gone", topic_id=bytes(16), partitions=[9])])
    resp = roundtrip(1, version, req, M.FetchResponse)
    (topic,) = resp.responses
    assert (topic.topic if version < 13 else topic.topic_id) == ("t" if version < 13 else tid)
    (p,) = topic.partitions
    assert (p.partition_index, p.error_code) == (2, ERR)
    assert bytes(p.records or b"") == b""
    if version >= 7:
        assert resp.error_code == ERR


def test_list_offsets_and_offset_for_leader_epoch() -> None:
    R = M.ListOffsetsRequest
    req = R(topics=[R.ListOffsetsTopic(name="t", partitions=[R.ListOffsetsPartition(partition_index=1, timestamp=-1)])])
    resp = roundtrip(2, 7, req, M.ListOffsetsResponse)
    assert [(t.name, [(p.partition_index, p.error_code) for p in t.partitions]) for t in resp.topics] == [("t", [(1, ERR)])]
    O = M.OffsetForLeaderEpochRequest
    req2 = O(topics=[O.OffsetForLeaderTopic(topic="t", partitions=[O.OffsetForLeaderPartition(partition=4)])])
    resp2 = roundtrip(23, 4, req2, M.OffsetForLeaderEpochResponse)
    assert [(t.topic, [(p.partition, p.error_code) for p in t.partitions]) for t in resp2.topics] == [("t", [(4, ERR)])]


@pytest.mark.parametrize("version", [0, 1, 9, 12])
def test_metadata_answers_each_topic_and_no_brokers(version: int) -> None:
    R = M.MetadataRequest
    resp = roundtrip(3, version, R(topics=[R.MetadataRequestTopic(name="a"), R.MetadataRequestTopic(name="b")]), M.MetadataResponse)
    assert [(t.name, t.error_code, t.partitions) for t in resp.topics] == [("a", ERR, []), ("b", ERR, [])]
    assert resp.brokers == []
    if version >= 1:
        assert roundtrip(3, version, R(topics=None), M.MetadataResponse).topics == []


def test_group_apis() -> None:
    C = M.OffsetCommitRequest
    commit = C(group_id="g", topics=[C.OffsetCommitRequestTopic(name="t", partitions=[
        C.OffsetCommitRequestPartition(partition_index=5, committed_offset=10)])])
    resp = roundtrip(8, 8, commit, M.OffsetCommitResponse)
    assert [(p.partition_index, p.error_code) for p in resp.topics[0].partitions] == [(5, ERR)]
    F = M.OffsetFetchRequest
    old = roundtrip(9, 7, F(group_id="g", topics=[F.OffsetFetchRequestTopic(name="t", partition_indexes=[0, 1])]), M.OffsetFetchResponse)
    assert old.error_code == ERR
    assert [(p.partition_index, p.error_code) for p in old.topics[0].partitions] == [(0, ERR), (1, ERR)]
    new = roundtrip(9, 8, F(groups=[F.OffsetFetchRequestGroup(group_id="g1"), F.OffsetFetchRequestGroup(group_id="g2")]), M.OffsetFetchResponse)
    assert [(g.group_id, g.error_code) for g in new.groups] == [("g1", ERR), ("g2", ERR)]
    join = roundtrip(11, 7, M.JoinGroupRequest(group_id="g", member_id="m"), M.JoinGroupResponse)
    assert (join.error_code, join.generation_id, join.members) == (ERR, -1, [])
    assert roundtrip(12, 4, M.HeartbeatRequest(group_id="g"), M.HeartbeatResponse).error_code == ERR
    described = roundtrip(15, 5, M.DescribeGroupsRequest(groups=["g1", "g2"]), M.DescribeGroupsResponse)
    assert [(g.group_id, g.error_code) for g in described.groups] == [("g1", ERR), ("g2", ERR)]
    coord = roundtrip(10, 4, M.FindCoordinatorRequest(coordinator_keys=["g"]), M.FindCoordinatorResponse)
    assert [(c.key, c.error_code) for c in coord.coordinators] == [("g", ERR)]
    assert roundtrip(10, 2, M.FindCoordinatorRequest(key="g"), M.FindCoordinatorResponse).error_code == ERR


def test_admin_apis() -> None:
    T = M.CreateTopicsRequest
    created = roundtrip(19, 7, T(topics=[T.CreatableTopic(name="t", num_partitions=3, configs=[
        T.CreatableTopicConfig(name="retention.ms", value="1")])]), M.CreateTopicsResponse)
    assert [(t.name, t.error_code) for t in created.topics] == [("t", ERR)]
    deleted = roundtrip(20, 5, M.DeleteTopicsRequest(topic_names=["a", "b"]), M.DeleteTopicsResponse)
    assert [(r.name, r.error_code) for r in deleted.responses] == [("a", ERR), ("b", ERR)]
    D = M.DescribeConfigsRequest
    described = roundtrip(32, 4, D(resources=[D.DescribeConfigsResource(resource_type=2, resource_name="t",
                                                                        configuration_keys=["x"])]), M.DescribeConfigsResponse)
    assert [(r.resource_type, r.resource_name, r.error_code, r.configs) for r in described.results] == \
        [(2, "t", ERR, [])]


def test_transaction_apis() -> None:
    A = M.AddPartitionsToTxnRequest
    old = roundtrip(24, 3, A(v3_and_below_transactional_id="x", v3_and_below_topics=[
        A.AddPartitionsToTxnTopic(name="t", partitions=[0, 2])]), M.AddPartitionsToTxnResponse)
    assert [(r.partition_index, r.partition_error_code) for r in old.results_by_topic_v3_and_below[0].results_by_partition] == \
        [(0, ERR), (2, ERR)]
    new = roundtrip(24, 4, A(transactions=[A.AddPartitionsToTxnTransaction(transactional_id="x")]), M.AddPartitionsToTxnResponse)
    assert (new.error_code, [r.transactional_id for r in new.results_by_transaction]) == (ERR, ["x"])
    assert roundtrip(22, 4, M.InitProducerIdRequest(transactional_id="x"), M.InitProducerIdResponse).error_code == ERR
    assert roundtrip(26, 3, M.EndTxnRequest(transactional_id="x"), M.EndTxnResponse).error_code == ERR


def test_every_api_and_version_encodes() -> None:
    for key, spec in codec.SPECS.items():
        for version in range(spec.min_version, spec.max_version + 1):
            body = error_response(key, version, M.ProduceRequest(acks=1) if key == 0 else spec.request_class(), ERR)
            assert body is not None and codec.encode_response(key, version, 1, body)


def test_error_code_for_maps_known_exceptions() -> None:
    assert error_code_for(KafkaStorageError("disk")) == E.KAFKA_STORAGE_ERROR
    assert error_code_for(InvalidRequest("bad")) == E.INVALID_REQUEST
    assert error_code_for(RuntimeError("bug")) == E.UNKNOWN_SERVER_ERROR
