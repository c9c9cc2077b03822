"""Building and reading the single-partition KRaft requests and responses (Kafka's
``RaftUtil``): Vote, BeginQuorumEpoch, EndQuorumEpoch and Fetch on ``__cluster_metadata-0``,
as the generated message classes of Kafka 4.4's latest versions. Used by ``raft_core``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, Union

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AddRaftVoterRequest, AddRaftVoterResponse, ApiVersionsRequest, ApiVersionsResponse, RemoveRaftVoterRequest,
    RemoveRaftVoterResponse,
    BeginQuorumEpochRequest, BeginQuorumEpochResponse, EndQuorumEpochRequest,
    EndQuorumEpochResponse, FetchRequest, FetchResponse, FetchSnapshotRequest, FetchSnapshotResponse,
    UpdateRaftVoterRequest, UpdateRaftVoterResponse, VoteRequest, VoteResponse,
)
from kafpy.raft.quorum_state_store import NO_DIRECTORY_ID, ReplicaKey

METADATA_TOPIC = "__cluster_metadata"
METADATA_PARTITION = 0
METADATA_TOPIC_ID = bytes(15) + b"\x01"  # Kafka's Uuid.METADATA_TOPIC_ID

RaftRequestData = Union[VoteRequest, BeginQuorumEpochRequest, EndQuorumEpochRequest, FetchRequest,
                        FetchSnapshotRequest, UpdateRaftVoterRequest, AddRaftVoterRequest, RemoveRaftVoterRequest,
                        ApiVersionsRequest]
RaftResponseData = Union[VoteResponse, BeginQuorumEpochResponse, EndQuorumEpochResponse, FetchResponse,
                         FetchSnapshotResponse, UpdateRaftVoterResponse, AddRaftVoterResponse, RemoveRaftVoterResponse,
                         ApiVersionsResponse]


@dataclass(frozen=True)
class OutboundRequest:
    """A request the core asks the network driver to send; the driver hands the answer back
    with the same ``correlation_id`` (or nothing, and the core times the request out)."""

    destination: int
    correlation_id: int
    api_key: ApiKey
    data: RaftRequestData


def _dir(directory: bytes | None) -> bytes:
    return directory or NO_DIRECTORY_ID


def vote_request(cluster_id: str | None, epoch: int, candidate: ReplicaKey, voter: ReplicaKey,
                 last_epoch: int, last_offset: int, pre_vote: bool) -> VoteRequest:
    return VoteRequest(cluster_id=cluster_id, voter_id=voter.id, topics=[VoteRequest.TopicData(
        topic_name=METADATA_TOPIC, partitions=[VoteRequest.PartitionData(
            partition_index=METADATA_PARTITION, replica_epoch=epoch, replica_id=candidate.id,
            replica_directory_id=_dir(candidate.directory_id),
            voter_directory_id=_dir(voter.directory_id), last_offset_epoch=last_epoch,
            last_offset=last_offset, pre_vote=pre_vote)])])


def vote_response(error: ErrorCode, partition_error: ErrorCode = ErrorCode.NONE, epoch: int = -1,
                  leader_id: int | None = None, granted: bool = False) -> VoteResponse:
    if error != ErrorCode.NONE:
        return VoteResponse(error_code=int(error))
    return VoteResponse(error_code=0, topics=[VoteResponse.TopicData(
        topic_name=METADATA_TOPIC, partitions=[VoteResponse.PartitionData(
            partition_index=METADATA_PARTITION, error_code=int(partition_error),
            leader_id=-1 if leader_id is None else leader_id, leader_epoch=epoch,
            vote_granted=granted)])])


def begin_quorum_epoch_request(cluster_id: str | None, epoch: int, leader_id: int,
                               voter: ReplicaKey) -> BeginQuorumEpochRequest:
    return BeginQuorumEpochRequest(cluster_id=cluster_id, voter_id=voter.id, topics=[
        BeginQuorumEpochRequest.TopicData(topic_name=METADATA_TOPIC, partitions=[
            BeginQuorumEpochRequest.PartitionData(
                partition_index=METADATA_PARTITION, voter_directory_id=_dir(voter.directory_id),
                leader_id=leader_id, leader_epoch=epoch)])])


def begin_quorum_epoch_response(error: ErrorCode, partition_error: ErrorCode = ErrorCode.NONE,
                                epoch: int = -1, leader_id: int | None = None) -> BeginQuorumEpochResponse:
    if error != ErrorCode.NONE:
        return BeginQuorumEpochResponse(error_code=int(error))
    return BeginQuorumEpochResponse(error_code=0, topics=[BeginQuorumEpochResponse.TopicData(
        topic_name=METADATA_TOPIC, partitions=[BeginQuorumEpochResponse.PartitionData(
            partition_index=METADATA_PARTITION, error_code=int(partition_error),
            leader_id=-1 if leader_id is None else leader_id, leader_epoch=epoch)])])


def end_quorum_epoch_request(cluster_id: str | None, epoch: int, leader_id: int,
                             preferred: list[ReplicaKey]) -> EndQuorumEpochRequest:
    return EndQuorumEpochRequest(cluster_id=cluster_id, topics=[EndQuorumEpochRequest.TopicData(
        topic_name=METADATA_TOPIC, partitions=[EndQuorumEpochRequest.PartitionData(
            partition_index=METADATA_PARTITION, leader_id=leader_id, leader_epoch=epoch,
            preferred_successors=[k.id for k in preferred],
            preferred_candidates=[EndQuorumEpochRequest.ReplicaInfo(
                candidate_id=k.id, candidate_directory_id=_dir(k.directory_id))
                for k in preferred])])])


def end_quorum_epoch_response(error: ErrorCode, partition_error: ErrorCode = ErrorCode.NONE,
                              epoch: int = -1, leader_id: int | None = None) -> EndQuorumEpochResponse:
    if error != ErrorCode.NONE:
        return EndQuorumEpochResponse(error_code=int(error))
    return EndQuorumEpochResponse(error_code=0, topics=[EndQuorumEpochResponse.TopicData(
        topic_name=METADATA_TOPIC, partitions=[EndQuorumEpochResponse.PartitionData(
            partition_index=METADATA_PARTITION, error_code=int(partition_error),
            leader_id=-1 if leader_id is None else leader_id, leader_epoch=epoch)])])


def preferred_candidates(partition: EndQuorumEpochRequest.PartitionData) -> list[ReplicaKey]:
    """v1's PreferredCandidates, or v0's PreferredSuccessors (Kafka's
    ``EndQuorumEpochRequest.preferredCandidates``)."""
    if partition.preferred_candidates:
        return [ReplicaKey.of(c.candidate_id, c.candidate_directory_id)
                for c in partition.preferred_candidates]
    return [ReplicaKey(i) for i in partition.preferred_successors]


def fetch_request(cluster_id: str | None, replica: ReplicaKey, epoch: int, fetch_offset: int,
                  last_fetched_epoch: int, max_bytes: int, max_wait_ms: int,
                  high_watermark: int = -1) -> FetchRequest:
    """A follower's Fetch of the metadata partition; ``high_watermark`` is the one it knows
    (-1: none yet), sent from v18 so that the leader answers at once when its own is ahead
    (KIP-1166)."""
    return FetchRequest(
        cluster_id=cluster_id, replica_id=replica.id,
        replica_state=FetchRequest.ReplicaState(replica_id=replica.id, replica_epoch=-1),
        max_wait_ms=max_wait_ms, min_bytes=0, max_bytes=max_bytes,
        topics=[FetchRequest.FetchTopic(topic=METADATA_TOPIC, topic_id=METADATA_TOPIC_ID, partitions=[
            FetchRequest.FetchPartition(
                partition=METADATA_PARTITION, current_leader_epoch=epoch, fetch_offset=fetch_offset,
                last_fetched_epoch=last_fetched_epoch, log_start_offset=-1,
                partition_max_bytes=max_bytes, replica_directory_id=_dir(replica.directory_id),
                high_watermark=high_watermark)])])


def fetch_response(error: ErrorCode, partition_error: ErrorCode = ErrorCode.NONE, *, epoch: int = -1,
                   leader_id: int | None = None, high_watermark: int | None = None,
                   diverging: tuple[int, int] | None = None, records: bytes = b"",
                   snapshot_id: tuple[int, int] | None = None) -> FetchResponse:
    """``diverging`` and ``snapshot_id`` are (epoch, end offset)."""
    if error != ErrorCode.NONE:
        return FetchResponse(error_code=int(error))
    part = FetchResponse.PartitionData(
        partition_index=METADATA_PARTITION, error_code=int(partition_error),
        high_watermark=-1 if high_watermark is None else high_watermark,
        current_leader=FetchResponse.LeaderIdAndEpoch(
            leader_id=-1 if leader_id is None else leader_id, leader_epoch=epoch),
        records=records)
    if diverging is not None:
        part.diverging_epoch = FetchResponse.EpochEndOffset(epoch=diverging[0], end_offset=diverging[1])
    if snapshot_id is not None:
        part.snapshot_id = FetchResponse.SnapshotId(epoch=snapshot_id[0], end_offset=snapshot_id[1])
    return FetchResponse(error_code=0, responses=[FetchResponse.FetchableTopicResponse(
        topic=METADATA_TOPIC, topic_id=METADATA_TOPIC_ID, partitions=[part])])


class _Partition(Protocol):
    @property
    def partition_index(self) -> int: ...


class _Topic(Protocol):
    @property
    def topic_name(self) -> str: ...

    @property
    def partitions(self) -> Sequence[_Partition]: ...


def single_partition_ok(topics: Sequence[_Topic]) -> bool:
    """Exactly ``__cluster_metadata`` partition 0 (Kafka's ``hasValidTopicPartition``), for
    Vote, BeginQuorumEpoch and EndQuorumEpoch requests and responses."""
    if len(topics) != 1 or topics[0].topic_name != METADATA_TOPIC:
        return False
    parts = topics[0].partitions
    return len(parts) == 1 and parts[0].partition_index == METADATA_PARTITION


def fetch_partition_ok(request: FetchRequest) -> bool:
    """The Fetch names ``__cluster_metadata-0`` by topic id (v13+) or by name."""
    if len(request.topics) != 1:
        return False
    topic = request.topics[0]
    if topic.topic_id != METADATA_TOPIC_ID and topic.topic != METADATA_TOPIC:
        return False
    return len(topic.partitions) == 1 and topic.partitions[0].partition == METADATA_PARTITION


def fetch_request_partition(request: FetchRequest) -> FetchRequest.FetchPartition | None:
    """The request's one partition of the metadata topic (None in any other shape)."""
    if len(request.topics) != 1 or len(request.topics[0].partitions) != 1:
        return None
    return request.topics[0].partitions[0]


def fetch_response_partition(response: FetchResponse) -> FetchResponse.PartitionData | None:
    if len(response.responses) != 1:
        return None
    topic = response.responses[0]
    if topic.topic_id != METADATA_TOPIC_ID and topic.topic != METADATA_TOPIC:
        return None
    if len(topic.partitions) != 1 or topic.partitions[0].partition_index != METADATA_PARTITION:
        return None
    return topic.partitions[0]


def fetch_snapshot_request(cluster_id: str | None, replica: ReplicaKey, epoch: int, end_offset: int,
                           snapshot_epoch: int, position: int, max_bytes: int) -> FetchSnapshotRequest:
    """Kafka's ``RaftUtil.singletonFetchSnapshotRequest``: the next chunk of a snapshot."""
    return FetchSnapshotRequest(cluster_id=cluster_id, replica_id=replica.id, max_bytes=max_bytes, topics=[
        FetchSnapshotRequest.TopicSnapshot(name=METADATA_TOPIC, partitions=[
            FetchSnapshotRequest.PartitionSnapshot(
                partition=METADATA_PARTITION, current_leader_epoch=epoch,
                snapshot_id=FetchSnapshotRequest.SnapshotId(end_offset=end_offset, epoch=snapshot_epoch),
                position=position, replica_directory_id=_dir(replica.directory_id))])])


def fetch_snapshot_response(error: ErrorCode, partition_error: ErrorCode = ErrorCode.NONE, *,
                            partition: int = METADATA_PARTITION, topic: str = METADATA_TOPIC, epoch: int = -1,
                            leader_id: int | None = None, snapshot_id: tuple[int, int] | None = None,
                            size: int = 0, position: int = 0, records: bytes | None = None) -> FetchSnapshotResponse:
    """``snapshot_id`` is (end offset, epoch), as the message has it."""
    if error != ErrorCode.NONE:
        return FetchSnapshotResponse(error_code=int(error))
    part = FetchSnapshotResponse.PartitionSnapshot(
        index=partition, error_code=int(partition_error),
        current_leader=FetchSnapshotResponse.LeaderIdAndEpoch(
            leader_id=-1 if leader_id is None else leader_id, leader_epoch=epoch),
        size=size, position=position, unaligned_records=records if records is not None else b"")
    if snapshot_id is not None:
        part.snapshot_id = FetchSnapshotResponse.SnapshotId(end_offset=snapshot_id[0], epoch=snapshot_id[1])
    else:
        part.snapshot_id = FetchSnapshotResponse.SnapshotId(end_offset=-1, epoch=-1)
    return FetchSnapshotResponse(error_code=0, topics=[FetchSnapshotResponse.TopicSnapshot(
        name=topic, partitions=[part])])


def fetch_snapshot_partition(topics: Sequence[FetchSnapshotRequest.TopicSnapshot]
                             ) -> FetchSnapshotRequest.PartitionSnapshot | None:
    """The request's ``__cluster_metadata-0``, if that is what it names."""
    topic = topics[0]
    if topic.name != METADATA_TOPIC or topic.partitions[0].partition != METADATA_PARTITION:
        return None
    return topic.partitions[0]


def fetch_snapshot_response_partition(response: FetchSnapshotResponse
                                      ) -> FetchSnapshotResponse.PartitionSnapshot | None:
    if len(response.topics) != 1 or response.topics[0].name != METADATA_TOPIC:
        return None
    parts = response.topics[0].partitions
    if len(parts) != 1 or parts[0].index != METADATA_PARTITION:
        return None
    return parts[0]
