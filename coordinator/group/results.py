"""What the group coordinators' request methods answer, for broker/handlers/group.py,
consumer_group.py, share_group.py and streams_group.py to turn into responses. Plain data; error fields are `kafpy.protocol.errors.ErrorCode` values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import ZERO_UUID

if TYPE_CHECKING:
    from kafpy.coordinator.group.streams.group import Tasks
    from kafpy.coordinator.group.streams.topology import TopicInfo

UNKNOWN_MEMBER_ID = ""


@dataclass
class JoinResult:
    error: int
    member_id: str = UNKNOWN_MEMBER_ID
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str = ""
    skip_assignment: bool = False
    # (member id, group instance id, metadata); only the leader gets them
    members: list[tuple[str, str | None, bytes]] = field(default_factory=list)


@dataclass
class SyncResult:
    error: int
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


@dataclass
class MemberSummary:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


@dataclass
class GroupSummary:
    group_id: str
    error: int
    state: str
    protocol_type: str
    protocol: str
    members: list[MemberSummary] = field(default_factory=list)
    # why a group described Dead does not exist as a classic group (DescribeGroups v6+)
    message: str | None = None


@dataclass
class GroupOverview:
    group_id: str
    protocol_type: str
    state: str
    group_type: str = "classic"


@dataclass
class FetchedOffset:
    """A committed offset as OffsetFetch answers it; ``topic_id``: the id the commit named
    the topic by (OffsetCommit v10, TxnOffsetCommit v6), else the zero id."""
    offset: int
    leader_epoch: int
    metadata: str
    error: int = ErrorCode.NONE
    topic_id: bytes = ZERO_UUID


@dataclass
class HeartbeatResult:
    """The answer to a ConsumerGroupHeartbeat, ShareGroupHeartbeat or
    StreamsGroupHeartbeat (one for the three kinds; the Streams-only fields stay at
    their defaults for the others)."""

    error: int = ErrorCode.NONE
    message: str | None = None
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    # consumer and share groups: topic id -> partitions; None: unchanged since the last answer
    assignment: dict[bytes, set[int]] | None = None
    # Streams groups: the member's status, its tasks (None: unchanged since the last
    # answer), the endpoint information's epoch and, when the member's is not current,
    # (host, port, active topic partitions, standby topic partitions) of every member
    # with an endpoint, and the internal topics the broker should create
    status: list[tuple[int, str]] = field(default_factory=list)
    tasks: Tasks | None = None
    endpoint_information_epoch: int = 0
    partitions_by_endpoint: list[tuple[str, int, dict[str, list[int]], dict[str, list[int]]]] | None = None
    topics_to_create: list[TopicInfo] = field(default_factory=list)
