"""The request versions Kafka 4.4 added, the same raw requests to Apache Kafka 4.4 and kafpy
in the same test:

- ApiVersions: for every API both brokers serve, kafpy's newest version is Kafka 4.4's
  (a 4.4 client negotiates the same versions with either);
- Produce v13 and OffsetCommit v10, OffsetFetch v10, TxnOffsetCommit v6 name topics by id
  (KIP-516, KIP-848, KIP-1319): a known id works as its name did, an unknown one is
  UNKNOWN_TOPIC_ID; OffsetFetch v10 of every topic answers with their ids; a commit by id
  is written as OffsetCommitValue v4 with the topic id, as kafka-dump-log reads it;
- ListTransactions v2 keeps the transactional ids a TransactionalIdPattern matches whole
  (RE2), and refuses a pattern RE2 cannot compile with INVALID_REGULAR_EXPRESSION;
- DescribeCluster v2 with IncludeFencedBrokers, DeleteGroups v3, Metadata v13, ListOffsets
  v11 (EARLIEST_PENDING_UPLOAD), DescribeLogDirs v5 and Fetch v18 answer as Kafka's do.
"""
from __future__ import annotations

import base64
import time
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.records import build_batch
from tests.integration.broker.raw import RawConnection
from tests.support.offsets_dump import dumped_records
from tests.support.side_by_side import apache_and_kafpy
from tests.support.wire import api_versions

RETRIABLE = (ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE,
             ErrorCode.NOT_COORDINATOR)
UNKNOWN_ID = uuid.UUID("6c9b0a3e-2f55-4c1e-9d6b-4b1f3a8e7d21").bytes


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    yield from apache_and_kafpy(tmp_path_factory.mktemp("kafka44-versions"))


def _conn(broker: Any) -> RawConnection:
    host, port = broker.bootstrap.split(":")
    return RawConnection(host, int(port), timeout=30)


def _topic(conn: RawConnection, name: str, partitions: int = 2) -> bytes:
    """Create `name`; its topic id once Metadata knows it (a broker's image can lag)."""
    T = M.CreateTopicsRequest
    r = conn.request(ApiKey.CREATE_TOPICS, 7, T(timeout_ms=30000, validate_only=False, topics=[
        T.CreatableTopic(name=name, num_partitions=partitions, replication_factor=1, assignments=[], configs=[])]))
    assert r.topics[0].error_code == 0, r.topics[0]
    deadline = time.monotonic() + 60
    while True:
        md = conn.request(ApiKey.METADATA, 12, M.MetadataRequest(
            topics=[M.MetadataRequest.MetadataRequestTopic(name=name)], allow_auto_topic_creation=False))
        t = md.topics[0]
        if t.error_code == 0 and t.topic_id != bytes(16) and all(p.leader_id >= 0 for p in t.partitions) \
                and len(t.partitions) == partitions:
            return bytes(t.topic_id)
        assert time.monotonic() < deadline, t
        time.sleep(0.2)


def _find_coordinator(conn: RawConnection, key: str, key_type: int = 0) -> None:
    """Wait until `key`'s coordinator (this single broker) is ready."""
    deadline = time.monotonic() + 60
    while True:
        r = conn.request(ApiKey.FIND_COORDINATOR, 4, M.FindCoordinatorRequest(
            key="", key_type=key_type, coordinator_keys=[key]))
        if r.coordinators[0].error_code == 0:
            return
        assert time.monotonic() < deadline, r
        time.sleep(0.2)


def _retrying(call: Any, error_of: Any, retriable: tuple[int, ...] = RETRIABLE) -> Any:
    """``call()`` again while ``error_of`` its answer is retriable (up to 60 s)."""
    deadline = time.monotonic() + 60
    while True:
        r = call()
        if error_of(r) not in retriable:
            return r
        assert time.monotonic() < deadline, r
        time.sleep(0.2)


def test_newest_versions_are_kafka_44s(brokers: dict[str, Any]) -> None:
    ranges = {}
    for side, b in brokers.items():
        host, port = b.bootstrap.split(":")
        ranges[side] = api_versions(host, int(port))
    both = set(ranges["apache"]) & set(ranges["kafpy"])
    assert len(both) >= 60
    differ = {k: (ranges["kafpy"][k], ranges["apache"][k]) for k in sorted(both)
              if ranges["kafpy"][k][1] != ranges["apache"][k][1]}
    assert differ == {}


def _produce(conn: RawConnection, topic_id: bytes, partition: int, version: int = 13) -> Any:
    """One record by topic id, retried while the new partition's leader is not ready."""
    P = M.ProduceRequest
    body = P(transactional_id=None, acks=-1, timeout_ms=30000, topic_data=[
        P.TopicProduceData(topic_id=topic_id, partition_data=[
            P.PartitionProduceData(index=partition, records=build_batch([(b"k", b"by id")]))])])
    return _retrying(lambda: conn.request(ApiKey.PRODUCE, version, body),
                     lambda r: r.responses[0].partition_responses[0].error_code,
                     (ErrorCode.NOT_LEADER_OR_FOLLOWER,))


def test_produce_v13_by_topic_id(brokers: dict[str, Any]) -> None:
    seen = {}
    for side, b in brokers.items():
        with _conn(b) as c:
            tid = _topic(c, "produce-by-id")
            first = _produce(c, tid, 1)
            second = _produce(c, tid, 1)
            unknown = _produce(c, UNKNOWN_ID, 0)
            seen[side] = [
                [(bytes(t.topic_id), [(p.index, p.error_code, p.base_offset) for p in t.partition_responses])
                 for t in r.responses]
                for r in (first, second)] + [
                [(bytes(t.topic_id), [(p.index, p.error_code) for p in t.partition_responses]) for t in unknown.responses]]
            assert seen[side][0] == [(tid, [(1, 0, 0)])]
            assert seen[side][1] == [(tid, [(1, 0, 1)])]
    assert seen["kafpy"][2] == seen["apache"][2] == [(UNKNOWN_ID, [(0, ErrorCode.UNKNOWN_TOPIC_ID)])]


def _commit(conn: RawConnection, group: str, topics: list[tuple[bytes, list[tuple[int, int]]]]) -> Any:
    C = M.OffsetCommitRequest
    body = C(group_id=group, generation_id_or_member_epoch=-1, member_id="", group_instance_id=None,
             retention_time_ms=-1, topics=[
                 C.OffsetCommitRequestTopic(topic_id=tid, partitions=[
                     C.OffsetCommitRequestPartition(partition_index=p, committed_offset=o,
                                                    committed_leader_epoch=-1, committed_metadata="m")
                     for p, o in parts])
                 for tid, parts in topics])
    # retried while any partition's answer is retriable: Kafka answers unknown topic ids first,
    # so the first partition's error alone can hide a coordinator still loading
    return _retrying(lambda: conn.request(ApiKey.OFFSET_COMMIT, 10, body),
                     lambda r: next((p.error_code for t in r.topics for p in t.partitions
                                     if p.error_code in RETRIABLE), ErrorCode.NONE))


def _fetch_offsets(conn: RawConnection, group: str, topics: list[tuple[bytes, list[int]]] | None) -> Any:
    F = M.OffsetFetchRequest
    body = F(require_stable=False, groups=[F.OffsetFetchRequestGroup(
        group_id=group, member_id=None, member_epoch=-1,
        topics=None if topics is None else [F.OffsetFetchRequestTopics(topic_id=tid, partition_indexes=ps)
                                            for tid, ps in topics])])
    return _retrying(lambda: conn.request(ApiKey.OFFSET_FETCH, 10, body), lambda r: r.groups[0].error_code)


def _offsets(resp: Any) -> list[tuple[bytes, list[tuple[int, int, str, int]]]]:
    return sorted((bytes(t.topic_id), sorted((p.partition_index, p.committed_offset, p.metadata or "", p.error_code)
                                             for p in t.partitions))
                  for g in resp.groups for t in g.topics)


def test_offset_commit_and_fetch_v10_by_topic_id(brokers: dict[str, Any]) -> None:
    for side, b in brokers.items():
        with _conn(b) as c:
            tid = _topic(c, "offsets-by-id")
            other = _topic(c, "offsets-by-id-gone", partitions=1)
            group = "offsets-by-id-group"
            _find_coordinator(c, group)
            committed = _commit(c, group, [(tid, [(0, 5), (1, 7)]), (UNKNOWN_ID, [(0, 1)]), (other, [(0, 3)])])
            # sorted: Kafka answers the unknown ids first, kafpy in request order
            commit_answer = sorted((bytes(t.topic_id), [(p.partition_index, p.error_code) for p in t.partitions])
                                   for t in committed.topics)
            named = _fetch_offsets(c, group, [(tid, [0, 1]), (UNKNOWN_ID, [0])])
            # offsets of every topic name their ids; a deleted topic's are left out
            D = M.DeleteTopicsRequest
            r = c.request(ApiKey.DELETE_TOPICS, 6, D(timeout_ms=30000, topic_names=[], topics=[
                D.DeleteTopicState(name="offsets-by-id-gone", topic_id=bytes(16))]))
            assert r.responses[0].error_code == 0, r.responses[0]
            deadline = time.monotonic() + 60
            while True:
                everything = _offsets(_fetch_offsets(c, group, None))
                if [t for t, _ in everything] == [tid]:
                    break
                assert time.monotonic() < deadline, everything
                time.sleep(0.2)
            assert commit_answer == sorted([(tid, [(0, 0), (1, 0)]), (UNKNOWN_ID, [(0, ErrorCode.UNKNOWN_TOPIC_ID)]),
                                            (other, [(0, 0)])]), side
            assert _offsets(named) == sorted([(tid, [(0, 5, "m", 0), (1, 7, "m", 0)]),
                                              (UNKNOWN_ID, [(0, -1, "", ErrorCode.UNKNOWN_TOPIC_ID)])]), side
            assert everything == [(tid, [(0, 5, "m", 0), (1, 7, "m", 0)])], side


def _offset_commit_values(log_dir: Path, group: str) -> list[dict[str, Any]]:
    """The OffsetCommitValue records of ``group`` as Kafka 4.4's kafka-dump-log decodes them
    ({"version": ..., "data": {...}}), oldest first."""
    return [value for key, value in dumped_records(sorted(log_dir.glob("__consumer_offsets-*/*.log")))
            if str(key["type"]) == "1" and key["data"]["group"] == group and value is not None]


def test_a_commit_by_topic_id_is_written_as_kafka_44_writes_it(brokers: dict[str, Any]) -> None:
    """OffsetCommit v10 names the topic by id: both brokers keep the id in OffsetCommitValue
    v4 (tagged field topicId), as kafka-dump-log reads it back."""
    written = {}
    for side, b in brokers.items():
        with _conn(b) as c:
            tid = _topic(c, "dumped-by-id", partitions=1)
            group = "dumped-by-id-group"
            _find_coordinator(c, group)
            committed = _commit(c, group, [(tid, [(0, 11)])])
            assert committed.topics[0].partitions[0].error_code == 0, (side, committed)
        deadline = time.monotonic() + 60
        while not (values := _offset_commit_values(Path(b.log_dir), group)):
            assert time.monotonic() < deadline, side   # Kafka appends through its coordinator runtime
            time.sleep(0.5)
        [value] = values
        data = dict(value["data"])
        assert data.pop("topicId") == base64.urlsafe_b64encode(tid).decode().rstrip("="), (side, value)
        assert data.pop("commitTimestamp") > 0, (side, value)
        written[side] = (value["version"], data)
    assert written["kafpy"] == written["apache"]
    assert written["kafpy"] == ("4", {"offset": 11, "leaderEpoch": -1, "metadata": "m"})


def test_txn_offset_commit_v6_unknown_topic_id(brokers: dict[str, Any]) -> None:
    answers = {}
    for side, b in brokers.items():
        with _conn(b) as c:
            group = "txn-offsets-by-id-group"
            _find_coordinator(c, group)
            T = M.TxnOffsetCommitRequest
            r = c.request(ApiKey.TXN_OFFSET_COMMIT, 6, T(
                transactional_id="txn-offsets-by-id", group_id=group, producer_id=1000, producer_epoch=0,
                generation_id=-1, member_id="", group_instance_id=None, topics=[
                    T.TxnOffsetCommitRequestTopic(topic_id=UNKNOWN_ID, partitions=[
                        T.TxnOffsetCommitRequestPartition(partition_index=0, committed_offset=1,
                                                          committed_leader_epoch=-1, committed_metadata="")])]))
            answers[side] = [(bytes(t.topic_id), [(p.partition_index, p.error_code) for p in t.partitions])
                             for t in r.topics]
    assert answers["kafpy"] == answers["apache"] == [(UNKNOWN_ID, [(0, ErrorCode.UNKNOWN_TOPIC_ID)])]


def test_list_transactions_v2_pattern(brokers: dict[str, Any]) -> None:
    answers = {}
    for side, b in brokers.items():
        with _conn(b) as c:
            for tid in ("orders-eu-1", "orders-us-1", "payments-eu-1"):
                _find_coordinator(c, tid, key_type=1)
                _retrying(lambda tid=tid: c.request(ApiKey.INIT_PRODUCER_ID, 5, M.InitProducerIdRequest(
                    transactional_id=tid, transaction_timeout_ms=60000, producer_id=-1, producer_epoch=-1)),
                    lambda r: r.error_code)

            def listed(pattern: str | None) -> tuple[int, list[str]]:
                r = c.request(ApiKey.LIST_TRANSACTIONS, 2, M.ListTransactionsRequest(
                    state_filters=[], producer_id_filters=[], duration_filter=-1, transactional_id_pattern=pattern))
                return r.error_code, sorted(t.transactional_id for t in r.transaction_states)
            answers[side] = {p: listed(p) for p in ("orders-.*", "orders", ".*-eu-1", "", None, "orders-(eu", "(?=x)")}
    assert answers["kafpy"] == answers["apache"]
    a = answers["kafpy"]
    assert a["orders-.*"] == (0, ["orders-eu-1", "orders-us-1"])
    assert a["orders"] == (0, [])     # the whole id must match
    assert a[".*-eu-1"] == (0, ["orders-eu-1", "payments-eu-1"])
    assert a[""] == a[None] == (0, ["orders-eu-1", "orders-us-1", "payments-eu-1"])
    assert a["orders-(eu"][0] == a["(?=x)"][0] == ErrorCode.INVALID_REGULAR_EXPRESSION


def test_other_new_versions(brokers: dict[str, Any]) -> None:
    answers = {}
    for side, b in brokers.items():
        with _conn(b) as c:
            tid = _topic(c, "new-versions")
            out: dict[str, Any] = {}
            r = c.request(ApiKey.DESCRIBE_CLUSTER, 2, M.DescribeClusterRequest(
                include_cluster_authorized_operations=False, endpoint_type=1, include_fenced_brokers=True))
            out["describe_cluster"] = (r.error_code, [(x.port, x.is_fenced) for x in r.brokers])
            r = c.request(ApiKey.DELETE_GROUPS, 3, M.DeleteGroupsRequest(groups_names=["no-such-group"]))
            out["delete_groups"] = [(g.group_id, g.error_code, g.error_message) for g in r.results]
            r = c.request(ApiKey.METADATA, 13, M.MetadataRequest(
                topics=[M.MetadataRequest.MetadataRequestTopic(name="new-versions")], allow_auto_topic_creation=False))
            out["metadata"] = (r.error_code, [(t.error_code, bytes(t.topic_id), len(t.partitions)) for t in r.topics])
            L = M.ListOffsetsRequest
            r = c.request(ApiKey.LIST_OFFSETS, 11, L(replica_id=-1, isolation_level=0, timeout_ms=30000, topics=[
                L.ListOffsetsTopic(name="new-versions", partitions=[
                    L.ListOffsetsPartition(partition_index=0, current_leader_epoch=-1, timestamp=ts)
                    for ts in (-6,)])]))
            out["list_offsets"] = [(p.error_code, p.offset, p.timestamp) for t in r.topics for p in t.partitions]
            r = c.request(ApiKey.DESCRIBE_LOG_DIRS, 5, M.DescribeLogDirsRequest(topics=None))
            out["log_dirs"] = (r.error_code, [(d.error_code, d.is_cordoned) for d in r.results])
            _produce(c, tid, 0)
            F = M.FetchRequest
            r = c.request(ApiKey.FETCH, 18, F(
                cluster_id=None, replica_id=-1, replica_state=F.ReplicaState(replica_id=-1, replica_epoch=-1),
                max_wait_ms=100, min_bytes=1, max_bytes=1 << 20, isolation_level=0, session_id=0, session_epoch=-1,
                topics=[F.FetchTopic(topic_id=tid, partitions=[F.FetchPartition(
                    partition=0, current_leader_epoch=-1, fetch_offset=0, last_fetched_epoch=-1,
                    log_start_offset=-1, partition_max_bytes=1 << 20)])],
                forgotten_topics_data=[], rack_id=""))
            p = r.responses[0].partitions[0]
            out["fetch"] = (r.error_code, p.error_code, p.high_watermark, len(p.records or b"") > 0)
            answers[side] = out
    for key in ("describe_cluster",):
        assert [f for _, f in answers["kafpy"][key][1]] == [f for _, f in answers["apache"][key][1]] == [False]
        answers["kafpy"].pop(key), answers["apache"].pop(key)
    for side in answers:   # topic ids differ between the two brokers
        answers[side]["metadata"] = (answers[side]["metadata"][0],
                                     [(e, n) for e, _, n in answers[side]["metadata"][1]])
    assert answers["kafpy"] == answers["apache"]
    a = answers["kafpy"]
    assert a["delete_groups"] == [("no-such-group", ErrorCode.GROUP_ID_NOT_FOUND, None)]
    assert a["metadata"] == (0, [(0, 2)])
    assert a["list_offsets"] == [(0, -1, -1)]
    assert a["fetch"] == (0, 0, 1, True)
