"""RaftCore side by side with Apache Kafka 4.4's KRaft controller: the same Vote, Fetch,
FetchSnapshot, BeginQuorumEpoch and EndQuorumEpoch requests (latest versions, over the wire to Apache's
CONTROLLER listener) get the same answers (error codes, leader and epoch, vote granted,
diverging epoch) from a single-voter leader of the same epoch on both sides."""
from __future__ import annotations

import random
import socket
from typing import Callable, Iterator

import pytest

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.codec import decode_response, encode_request
from kafpy.protocol.messages import (
    BeginQuorumEpochResponse, EndQuorumEpochResponse, FetchResponse, FetchSnapshotResponse, RequestHeader,
    VoteResponse,
)
from kafpy.raft import raft_messages as msg
from kafpy.raft.memory_log import MemoryReplicatedLog
from kafpy.raft.quorum_state_store import (
    ElectionState, FileQuorumStateStore, MemoryQuorumStateStore, ReplicaKey, quorum_state_path,
)
from kafpy.raft.raft_core import RaftCore
from tests.support.kafka_dist import ReferenceKafka
from tests.support.wire import read_frame

VERSIONS = {ApiKey.VOTE: 2, ApiKey.BEGIN_QUORUM_EPOCH: 1, ApiKey.END_QUORUM_EPOCH: 1, ApiKey.FETCH: 17,
            ApiKey.FETCH_SNAPSHOT: 1}
START_EPOCH = 5  # both sides start Unattached here and elect themselves in the next epoch

Answer = tuple[object, ...]

# Apache Kafka 4.4 fails to encode a FetchSnapshot response with a partition error (its
# UnalignedRecords is null: NullPointerException in FetchSnapshotResponseData.addSize), so its
# ControllerApis answers these with a top-level UNKNOWN_SERVER_ERROR instead. kafpy answers the
# partition error KafkaRaftClient.handleFetchSnapshotRequest sets, with empty records.
APACHE_FETCH_SNAPSHOT_NPE = {
    "fetch snapshot: not __cluster_metadata-0": ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    "fetch snapshot: stale epoch": ErrorCode.FENCED_LEADER_EPOCH,
    "fetch snapshot: future epoch": ErrorCode.UNKNOWN_LEADER_EPOCH,
    "fetch snapshot: the bootstrap snapshot": ErrorCode.SNAPSHOT_NOT_FOUND,
    "fetch snapshot: one the leader does not have": ErrorCode.SNAPSHOT_NOT_FOUND,
}
Send = Callable[[ApiKey, msg.RaftRequestData], msg.RaftResponseData]


def summary(response: msg.RaftResponseData) -> Answer:
    """What must agree: error codes, the leader and epoch named, the vote, the divergence."""
    if isinstance(response, VoteResponse):
        if response.error_code or not response.topics:
            return ("vote", response.error_code)
        p = response.topics[0].partitions[0]
        return ("vote", 0, p.error_code, p.leader_id, p.leader_epoch, p.vote_granted)
    if isinstance(response, (BeginQuorumEpochResponse, EndQuorumEpochResponse)):
        if response.error_code or not response.topics:
            return (type(response).__name__, response.error_code)
        q = response.topics[0].partitions[0]
        return (type(response).__name__, 0, q.error_code, q.leader_id, q.leader_epoch)
    if isinstance(response, FetchSnapshotResponse):
        if response.error_code or not response.topics:
            return ("fetch snapshot", response.error_code)
        s = response.topics[0].partitions[0]
        return ("fetch snapshot", 0, response.topics[0].name, s.index, s.error_code, s.current_leader.leader_id,
                s.current_leader.leader_epoch, s.snapshot_id.end_offset, s.snapshot_id.epoch, s.size)
    assert isinstance(response, FetchResponse)
    if response.error_code or not response.responses:
        return ("fetch", response.error_code)
    f = response.responses[0].partitions[0]
    return ("fetch", 0, f.error_code, f.current_leader.leader_id, f.current_leader.leader_epoch,
            f.diverging_epoch.epoch, bool(f.records))


@pytest.fixture(scope="module")
def apache() -> Iterator[ReferenceKafka]:
    kafka = ReferenceKafka("4")
    try:
        kafka.start()
        kafka.stop()
        # Start it again from an epoch kafpy wrote, so that epoch - 1 is a legal stale epoch.
        store = FileQuorumStateStore(quorum_state_path(kafka.work_dir / "metadata"))
        store.write_election_state(ElectionState(START_EPOCH, None, None, frozenset({1})), 0)
        kafka.start()
        yield kafka
    finally:
        kafka.stop()
        kafka.cleanup()


def apache_sender(kafka: ReferenceKafka) -> Iterator[Send]:
    sock = socket.create_connection(("127.0.0.1", kafka.controller_port), timeout=30)
    corr = iter(range(1, 1_000_000))

    def send(api_key: ApiKey, data: msg.RaftRequestData) -> msg.RaftResponseData:
        version = VERSIONS[api_key]
        header = RequestHeader(request_api_key=int(api_key), request_api_version=version,
                               correlation_id=next(corr), client_id="raft-fidelity")
        sock.sendall(encode_request(header, data))
        _, body = decode_response(int(api_key), version, read_frame(sock))
        assert isinstance(body, (VoteResponse, BeginQuorumEpochResponse, EndQuorumEpochResponse, FetchResponse,
                                 FetchSnapshotResponse))
        return body

    try:
        yield send
    finally:
        sock.close()


def kafpy_sender(cluster_id: str) -> Send:
    store = MemoryQuorumStateStore(ElectionState(START_EPOCH).to_json(0))
    log = MemoryReplicatedLog()
    log.append_as_leader([b"x", b"y", b"z"], 1)  # Apache's log too has epoch 1 (its first start)
    core = RaftCore(1, frozenset({1}), log, store, now_ms=0, cluster_id=cluster_id,
                    rng=random.Random(0), quorum_state_version=0)
    core.poll(10_000)
    assert core.is_leader() and core.epoch == START_EPOCH + 1
    core.append([b"a", b"b"], 10_000)

    def send(api_key: ApiKey, data: msg.RaftRequestData) -> msg.RaftResponseData:
        return core.handle_request(2, api_key, data, 10_001)

    return send


def scenario(cluster_id: str, epoch: int) -> list[tuple[str, ApiKey, msg.RaftRequestData]]:
    """The requests, in order; the last two move the leader to new epochs."""
    me, other = ReplicaKey(1), ReplicaKey(2)
    far = 10 ** 9
    wrong_topic = msg.vote_request(cluster_id, epoch, other, me, epoch - 1, far, False)
    wrong_topic.topics[0].topic_name = "not-metadata"

    def vote(e: int, last_epoch: int, last_offset: int, pre: bool, voter: ReplicaKey = me,
             cid: str | None = cluster_id) -> msg.RaftRequestData:
        return msg.vote_request(cid, e, other, voter, last_epoch, last_offset, pre)

    def fetch(e: int, offset: int, last_epoch: int, cid: str | None = cluster_id) -> msg.RaftRequestData:
        request = msg.fetch_request(cid, other, e, offset, last_epoch, 1 << 20, 0)
        return request

    def fetch_snapshot(e: int, end_offset: int, snapshot_epoch: int, position: int = 0,
                       cid: str | None = cluster_id) -> msg.RaftRequestData:
        return msg.fetch_snapshot_request(cid, other, e, end_offset, snapshot_epoch, position, 1 << 20)

    wrong_snapshot_topic = msg.fetch_snapshot_request(cluster_id, other, epoch, 0, 0, 0, 1 << 20)
    wrong_snapshot_topic.topics[0].name = "not-metadata"

    return [
        ("vote: another cluster", ApiKey.VOTE, vote(epoch + 1, epoch, far, False, cid="Zm9vYmFyYmF6cXV4cXV1eA")),
        ("vote: not __cluster_metadata-0", ApiKey.VOTE, wrong_topic),
        ("vote: stale epoch", ApiKey.VOTE, vote(epoch - 1, 0, 0, False)),
        ("vote: last epoch not below the epoch", ApiKey.VOTE, vote(epoch + 1, epoch + 1, 5, False)),
        ("pre-vote: last epoch above the epoch", ApiKey.VOTE, vote(epoch, epoch + 1, 5, True)),
        ("vote: negative last offset", ApiKey.VOTE, vote(epoch + 1, epoch, -1, False)),
        ("pre-vote to the leader", ApiKey.VOTE, vote(epoch, epoch, far, True)),
        ("vote to the leader in its epoch", ApiKey.VOTE, vote(epoch, epoch - 1, far, False)),
        ("fetch: another cluster", ApiKey.FETCH, fetch(epoch, 0, 0, cid="Zm9vYmFyYmF6cXV4cXV1eA")),
        ("fetch: stale epoch", ApiKey.FETCH, fetch(epoch - 1, 0, 0)),
        ("fetch: future epoch", ApiKey.FETCH, fetch(epoch + 1, 0, 0)),
        ("fetch: negative offset", ApiKey.FETCH, fetch(epoch, -1, 0)),
        ("fetch: last fetched epoch above the epoch", ApiKey.FETCH, fetch(epoch, 1, epoch + 1)),
        ("fetch: from the start", ApiKey.FETCH, fetch(epoch, 0, 0)),
        ("fetch: past the end of the epoch", ApiKey.FETCH, fetch(epoch, far, epoch)),
        ("fetch: an epoch the leader never had", ApiKey.FETCH, fetch(epoch, far, epoch - 1)),
        ("fetch snapshot: another cluster", ApiKey.FETCH_SNAPSHOT, fetch_snapshot(epoch, 3, 1, cid="Zm9vYmFyYmF6cXV4cXV1eA")),
        ("fetch snapshot: not __cluster_metadata-0", ApiKey.FETCH_SNAPSHOT, wrong_snapshot_topic),
        ("fetch snapshot: stale epoch", ApiKey.FETCH_SNAPSHOT, fetch_snapshot(epoch - 1, 3, 1)),
        ("fetch snapshot: future epoch", ApiKey.FETCH_SNAPSHOT, fetch_snapshot(epoch + 1, 3, 1)),
        ("fetch snapshot: the bootstrap snapshot", ApiKey.FETCH_SNAPSHOT, fetch_snapshot(epoch, 0, 0)),
        ("fetch snapshot: one the leader does not have", ApiKey.FETCH_SNAPSHOT, fetch_snapshot(epoch, 3, 1)),
        ("begin epoch: stale", ApiKey.BEGIN_QUORUM_EPOCH, msg.begin_quorum_epoch_request(cluster_id, epoch - 1, 2, me)),
        ("begin epoch: another cluster", ApiKey.BEGIN_QUORUM_EPOCH,
         msg.begin_quorum_epoch_request("Zm9vYmFyYmF6cXV4cXV1eA", epoch, 1, me)),
        ("end epoch: stale", ApiKey.END_QUORUM_EPOCH, msg.end_quorum_epoch_request(cluster_id, epoch - 1, 2, [me])),
        ("vote: a voter key that is not this node", ApiKey.VOTE, vote(epoch, epoch - 1, far, False, voter=ReplicaKey(7))),
        # Kafka 4.4 moves to a higher epoch a pre-vote names (it grants nothing durable).
        ("pre-vote: a higher epoch, up-to-date log", ApiKey.VOTE, vote(epoch + 1, epoch, far, True)),
        ("vote: a higher epoch, up-to-date log", ApiKey.VOTE, vote(epoch + 2, epoch, far, False)),
    ]


def test_same_answers_as_apache_kafka_4_4(apache: ReferenceKafka) -> None:
    epoch = START_EPOCH + 1
    ours = kafpy_sender(apache.cluster_id)
    differences = []
    for theirs in apache_sender(apache):
        # Apache is the leader of the epoch after the one kafpy's file named.
        first = theirs(ApiKey.FETCH, msg.fetch_request(apache.cluster_id, ReplicaKey(2), epoch, 0, 0, 1 << 20, 0))
        assert summary(first)[2:5] == (0, 1, epoch), summary(first)
        for name, api_key, request in scenario(apache.cluster_id, epoch):
            a, k = summary(theirs(api_key, request)), summary(ours(api_key, request))
            if name in APACHE_FETCH_SNAPSHOT_NPE:
                if a != ("fetch snapshot", ErrorCode.UNKNOWN_SERVER_ERROR) or k[4] != APACHE_FETCH_SNAPSHOT_NPE[name]:
                    differences.append(f"{name}: Apache {a}, kafpy {k}")
            elif a != k:
                differences.append(f"{name}: Apache {a}, kafpy {k}")
    assert not differences, "\n".join(differences)
