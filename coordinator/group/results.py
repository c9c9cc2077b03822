"""What the coordinator's request methods answer, for broker/handlers/group.py to turn
into responses. Plain data; error fields are `kafpy.protocol.errors.ErrorCode` values."""

from __future__ import annotations

from dataclasses import dataclass, field

from kafpy.protocol.errors import ErrorCode

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
    offset: int
    leader_epoch: int
    metadata: str
    error: int = ErrorCode.NONE
