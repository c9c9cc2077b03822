"""What the request glue of the modern groups (consumer, share and Streams groups) shares:
finding each group kind's coordinator (by name) behind its feature gate, the client host as Kafka
reports it, the operations a DescribedGroup may list, and the topic-id assignments of
consumer and share group answers.

Who calls it: broker/handlers/consumer_group.py, share_group.py and streams_group.py.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, TypeVar

from kafpy.protocol.errors import ErrorCode

from kafpy.broker.features import GROUP_VERSION, SHARE_VERSION, STREAMS_VERSION
from kafpy.broker.handler import RequestContext

if TYPE_CHECKING:
    from kafpy.coordinator.group.consumer.coordinator import ConsumerGroupCoordinator
    from kafpy.coordinator.group.service import GroupCoordinatorService
    from kafpy.coordinator.group.share.coordinator import ShareGroupCoordinator
    from kafpy.coordinator.group.streams.coordinator import StreamsGroupCoordinator

class _DescribeRequest(Protocol):
    """A ConsumerGroupDescribe, ShareGroupDescribe or StreamsGroupDescribe request."""

    @property
    def include_authorized_operations(self) -> bool: ...


class _NamedTopic(Protocol):
    """What an assignment's answer reads of a topic the coordinator knows: its name."""

    @property
    def name(self) -> str: ...


NO_OPERATIONS = -2147483648
# READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS on a group without an authorizer
GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11)


def feature_enabled(ctx: RequestContext, feature: str) -> bool:
    """Whether the cluster's `feature` (group.version, share.version, streams.version) is
    at level 1 or more (no features finalized: enabled, as in handler unit tests)."""
    features = ctx.services.features
    return features is None or features.current().level(feature) >= 1


def group_service(ctx: RequestContext) -> GroupCoordinatorService:
    """The group coordinator service (every broker serving group APIs has one)."""
    service = ctx.services.group_coordinator
    assert service is not None, "a broker serving group APIs has a group coordinator"
    return service


def consumer_coordinator(ctx: RequestContext) -> ConsumerGroupCoordinator | None:
    """The ConsumerGroupCoordinator, or None when not configured or group.version < 1."""
    service = ctx.services.group_coordinator
    if service is None or not feature_enabled(ctx, GROUP_VERSION):
        return None
    return service.consumer


def share_coordinator(ctx: RequestContext) -> ShareGroupCoordinator | None:
    """The ShareGroupCoordinator, or None when not configured or share.version < 1."""
    service = ctx.services.group_coordinator
    if service is None or not feature_enabled(ctx, SHARE_VERSION):
        return None
    return service.share


def streams_coordinator(ctx: RequestContext) -> StreamsGroupCoordinator | None:
    """The StreamsGroupCoordinator, or None when not configured or streams.version < 1."""
    service = ctx.services.group_coordinator
    if service is None or not feature_enabled(ctx, STREAMS_VERSION):
        return None
    return service.streams


def client_host(ctx: RequestContext) -> str:
    """The client's address with Kafka's leading slash."""
    host = ctx.client_host or ""
    return host if host.startswith("/") else "/" + host


def authorized_operations(req: _DescribeRequest, error: int) -> int:
    """A DescribedGroup's authorized operations: listed when asked for and found."""
    if error != ErrorCode.NONE or not req.include_authorized_operations:
        return NO_OPERATIONS
    return GROUP_OPERATIONS


_Assignment = TypeVar("_Assignment")   # a consumer or share group response's nested Assignment


def heartbeat_assignment(assignment_class: Callable[..., _Assignment], partitions_class: Callable[..., object],
                         assignment: dict[bytes, set[int]] | None) -> _Assignment | None:
    """A heartbeat answer's Assignment (None: unchanged), empty topics left out; the
    response's nested classes are given (consumer and share groups have their own)."""
    if assignment is None:
        return None
    return assignment_class(topic_partitions=[
        partitions_class(topic_id=t, partitions=sorted(ps))
        for t, ps in sorted(assignment.items()) if ps])


def described_assignment(assignment_class: Callable[..., _Assignment], partitions_class: Callable[..., object],
                         topic_by_id: Callable[[bytes], _NamedTopic | None], a: dict[bytes, set[int]]) -> _Assignment:
    """A described member's Assignment with topic names; unknown and empty topics left out."""
    out = []
    for t, ps in sorted(a.items()):
        meta = topic_by_id(t)
        if meta is not None and ps:
            out.append(partitions_class(topic_id=t, topic_name=meta.name, partitions=sorted(ps)))
    return assignment_class(topic_partitions=out)
