"""What the request glue of the modern groups (consumer, share and Streams groups) shares:
finding the group kind's coordinator behind its feature gate, the client host as Kafka
reports it, the operations a DescribedGroup may list, and the topic-id assignments of
consumer and share group answers.

Who calls it: broker/handlers/consumer_group.py, share_group.py and streams_group.py.
"""
from __future__ import annotations

from typing import Any, Callable

from kafpy.protocol.errors import ErrorCode as E

from kafpy.broker.handler import RequestContext

NO_OPERATIONS = -2147483648
# READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS on a group without an authorizer
GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11)


def modern_coordinator(ctx: RequestContext, kind: str, feature: str) -> Any:
    """The group coordinator's `kind` ("consumer", "share", "streams") coordinator, or
    None when it is not attached or the cluster's `feature` level is below 1."""
    service = ctx.services.group_coordinator
    coordinator = getattr(service.coordinator, kind, None) if service is not None else None
    features = ctx.services.features
    if features is not None and features.current().level(feature) < 1:
        return None
    return coordinator


def client_host(ctx: RequestContext) -> str:
    """The client's address with Kafka's leading slash."""
    host = ctx.client_host or ""
    return host if host.startswith("/") else "/" + host


def authorized_operations(req: Any, error: int) -> int:
    """A DescribedGroup's authorized operations: listed when asked for and found."""
    if error != E.NONE or not req.include_authorized_operations:
        return NO_OPERATIONS
    return GROUP_OPERATIONS


def heartbeat_assignment(R: Any, assignment: dict[bytes, set[int]] | None) -> Any:
    """A heartbeat answer's Assignment (None: unchanged), empty topics left out."""
    if assignment is None:
        return None
    return R.Assignment(topic_partitions=[
        R.TopicPartitions(topic_id=t, partitions=sorted(ps))
        for t, ps in sorted(assignment.items()) if ps])


def described_assignment(R: Any, topic_by_id: Callable[[bytes], Any],
                         a: dict[bytes, set[int]]) -> Any:
    """A described member's Assignment with topic names; unknown and empty topics left out."""
    out = []
    for t, ps in sorted(a.items()):
        meta = topic_by_id(t)
        if meta is not None and ps:
            out.append(R.TopicPartitions(topic_id=t, topic_name=meta.name, partitions=sorted(ps)))
    return R.Assignment(topic_partitions=out)
