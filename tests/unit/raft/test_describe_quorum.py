"""DescribeQuorum on the leader and elsewhere, as Kafka 4.4's raft client answers it: voters and
observers with their log end offsets and fetch / caught-up timestamps (Kafka's
``ReplicaState.updateFollowerState``), the voters' listeners from v2, NOT_LEADER_OR_FOLLOWER
off the leader and UNKNOWN_TOPIC_OR_PARTITION for another partition."""
from __future__ import annotations

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import DescribeQuorumRequest
from kafpy.raft.describe_quorum import OBSERVER_SESSION_TIMEOUT_MS, describe_quorum
from kafpy.raft.memory_log import MemoryReplicatedLog
from kafpy.raft.voter_set import Endpoint
from tests.unit.raft.test_replication import fetch, follower_core, make_leader

ENDPOINTS = {n: [Endpoint("CONTROLLER", "localhost", 9092 + n)] for n in (1, 2, 3)}


def request(topic: str = "__cluster_metadata", partition: int = 0) -> DescribeQuorumRequest:
    return DescribeQuorumRequest(topics=[DescribeQuorumRequest.TopicData(
        topic_name=topic, partitions=[DescribeQuorumRequest.PartitionData(partition_index=partition)])])


def test_the_leader_describes_voters_observers_and_timestamps() -> None:
    core = make_leader(MemoryReplicatedLog(), epoch=4)  # log: the LeaderChange at offset 0
    core.append([b"a", b"b"], 6000)  # leader end offset 3
    fetch(core, 2, 1, 4, now=7000)  # behind the leader's end (3): fetched, not caught up
    fetch(core, 3, 3, 4, now=7100)  # at the end: caught up now
    fetch(core, 2, 3, 4, now=7200)  # reaches the end the leader had at its last fetch
    fetch(core, 7, 0, 0, now=7300)  # an observer
    response = describe_quorum(core, request(), 2, ENDPOINTS, now_ms=8000)
    p = response.topics[0].partitions[0]
    assert (p.error_code, p.leader_id, p.leader_epoch, p.high_watermark) == (0, 1, 4, 3)
    voters = {v.replica_id: (v.log_end_offset, v.last_fetch_timestamp, v.last_caught_up_timestamp)
              for v in p.current_voters}
    assert voters == {1: (3, 8000, 8000), 2: (3, 7200, 7200), 3: (3, 7100, 7100)}
    assert [(o.replica_id, o.log_end_offset, o.last_fetch_timestamp, o.last_caught_up_timestamp)
            for o in p.observers] == [(7, 0, 7300, -1)]
    assert [(n.node_id, [(li.name, li.host, li.port) for li in n.listeners]) for n in response.nodes] == [
        (1, [("CONTROLLER", "localhost", 9093)]), (2, [("CONTROLLER", "localhost", 9094)]),
        (3, [("CONTROLLER", "localhost", 9095)])]
    # a follower that fetched behind the end and then up to the end the leader had at its
    # previous fetch was caught up as of that previous fetch
    core.append([b"c"], 8100)  # end 4
    fetch(core, 3, 3, 4, now=8200)  # behind: caught-up time stays
    core.append([b"d"], 8300)  # end 5
    fetch(core, 3, 4, 4, now=8400)  # reaches 4, the end at its last fetch: caught up at 8200
    p = describe_quorum(core, request(), 2, ENDPOINTS, now_ms=8500).topics[0].partitions[0]
    assert {v.replica_id: v.last_caught_up_timestamp for v in p.current_voters}[3] == 8200
    # observers silent for the observer session timeout are dropped
    p = describe_quorum(core, request(), 2, ENDPOINTS, now_ms=7300 + OBSERVER_SESSION_TIMEOUT_MS).topics[0].partitions[0]
    assert p.observers == []


def test_version_1_has_no_nodes() -> None:
    core = make_leader(MemoryReplicatedLog())
    assert describe_quorum(core, request(), 1, ENDPOINTS, now_ms=9000).nodes == []


def test_voters_directory_ids_when_the_quorum_knows_them() -> None:
    core = make_leader(MemoryReplicatedLog())
    dirs = {n: bytes([n]) * 16 for n in (1, 2, 3)}
    p = describe_quorum(core, request(), 2, ENDPOINTS, now_ms=9000, directory_ids=dirs).topics[0].partitions[0]
    assert [v.replica_directory_id for v in p.current_voters] == [dirs[1], dirs[2], dirs[3]]


def test_errors_off_the_leader_and_for_another_partition() -> None:
    follower = follower_core(MemoryReplicatedLog())
    p = describe_quorum(follower, request(), 2, ENDPOINTS, now_ms=1).topics[0].partitions[0]
    assert p.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER and (p.error_message or "").startswith("For requests intended")
    leader = make_leader(MemoryReplicatedLog())
    response = describe_quorum(leader, request("other", 3), 2, ENDPOINTS, now_ms=1)
    t = response.topics[0]
    assert (t.topic_name, t.partitions[0].partition_index, t.partitions[0].error_code) == (
        "other", 3, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
