"""DescribeQuorum (API 55) as Kafka 4.4's raft client answers it: only the leader describes the
quorum (its epoch and high watermark, each voter and each recently seen observer with its log
end offset and last fetch / caught-up timestamps, and from v2 the voters' listeners); any
other node answers NOT_LEADER_OR_FOLLOWER, and a request that is not for
``__cluster_metadata-0`` gets UNKNOWN_TOPIC_OR_PARTITION on each partition it named.

Called by the controller's request handlers (``kafpy.broker.controller_apis``) with the core,
the voters' endpoints (from ``controller.quorum.voters``) and the clock.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import DescribeQuorumRequest, DescribeQuorumResponse
from kafpy.raft.leader_state import LeaderState, ReplicaState
from kafpy.raft.quorum_state_store import NO_DIRECTORY_ID
from kafpy.raft.raft_core import RaftCore
from kafpy.raft.raft_messages import METADATA_PARTITION, METADATA_TOPIC
from kafpy.raft.voter_set import Endpoint

OBSERVER_SESSION_TIMEOUT_MS = 300_000  # Kafka's LeaderState: observers silent this long are dropped

# Kafka's Errors messages for the two errors answered here
_MESSAGES = {
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION: "This server does not host this topic-partition.",
    ErrorCode.NOT_LEADER_OR_FOLLOWER: (
        "For requests intended only for the leader, this error indicates that the broker is not "
        "the current leader. For requests intended for any replica, this error indicates that "
        "the broker is not a replica of the topic partition."),
}


def _valid_partition(request: DescribeQuorumRequest) -> bool:
    topics = request.topics
    return (len(topics) == 1 and topics[0].topic_name == METADATA_TOPIC and len(topics[0].partitions) == 1
            and topics[0].partitions[0].partition_index == METADATA_PARTITION)


def _partition_errors(request: DescribeQuorumRequest, error: ErrorCode) -> DescribeQuorumResponse:
    return DescribeQuorumResponse(error_code=0, topics=[DescribeQuorumResponse.TopicData(
        topic_name=t.topic_name, partitions=[DescribeQuorumResponse.PartitionData(
            partition_index=p.partition_index, error_code=int(error), error_message=_MESSAGES[error])
            for p in t.partitions]) for t in request.topics])


def _replica(state: ReplicaState, leader_id: int, now_ms: int,
             directory_id: bytes = NO_DIRECTORY_ID) -> DescribeQuorumResponse.ReplicaState:
    """The leader reports itself fetched and caught up now, as Kafka does."""
    is_leader = state.node_id == leader_id
    return DescribeQuorumResponse.ReplicaState(
        replica_id=state.node_id, replica_directory_id=directory_id,
        log_end_offset=-1 if state.end_offset is None else state.end_offset,
        last_fetch_timestamp=now_ms if is_leader else state.last_fetch_ms,
        last_caught_up_timestamp=now_ms if is_leader else state.last_caught_up_ms)


def describe_quorum(core: RaftCore, request: DescribeQuorumRequest, api_version: int,
                    endpoints: Mapping[int, Sequence[Endpoint]], now_ms: int,
                    directory_ids: Mapping[int, bytes] | None = None) -> DescribeQuorumResponse:
    """The answer to ``request`` (read at ``api_version``) on this node now; the voters'
    ``directory_ids`` when the quorum knows them (kraft.version 1)."""
    dirs = directory_ids or {}
    if not _valid_partition(request):
        return _partition_errors(request, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    state = core.quorum.state
    if not isinstance(state, LeaderState):
        return DescribeQuorumResponse(error_code=0, topics=[DescribeQuorumResponse.TopicData(
            topic_name=METADATA_TOPIC, partitions=[DescribeQuorumResponse.PartitionData(
                partition_index=METADATA_PARTITION, error_code=int(ErrorCode.NOT_LEADER_OR_FOLLOWER),
                error_message=_MESSAGES[ErrorCode.NOT_LEADER_OR_FOLLOWER])])])
    for node_id, observer in list(state.observer_states.items()):
        if now_ms - observer.last_fetch_ms >= OBSERVER_SESSION_TIMEOUT_MS:
            del state.observer_states[node_id]
    leader = core.node_id
    partition = DescribeQuorumResponse.PartitionData(
        partition_index=METADATA_PARTITION, error_code=0, error_message=None, leader_id=leader,
        leader_epoch=state.epoch, high_watermark=-1 if state.high_watermark is None else state.high_watermark,
        current_voters=[_replica(state.voter_states[v], leader, now_ms, dirs.get(v, NO_DIRECTORY_ID))
                        for v in sorted(state.voter_states)],
        observers=[_replica(state.observer_states[o], leader, now_ms,
                            state.observer_states[o].directory_id or NO_DIRECTORY_ID)
                   for o in sorted(state.observer_states)])
    response = DescribeQuorumResponse(error_code=0, topics=[DescribeQuorumResponse.TopicData(
        topic_name=METADATA_TOPIC, partitions=[partition])])
    if api_version >= 2:
        response.nodes = [DescribeQuorumResponse.Node(node_id=v, listeners=[
            DescribeQuorumResponse.Listener(name=e.name, host=e.host, port=e.port)
            for e in endpoints.get(v, ())]) for v in sorted(state.voter_states)]
    return response
