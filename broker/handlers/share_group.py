"""Share groups (KIP-932): ShareGroupHeartbeat (76) and ShareGroupDescribe (77), v1, and
the share group offsets admin APIs: DescribeShareGroupOffsets (90, v0-1),
AlterShareGroupOffsets (91) and DeleteShareGroupOffsets (92), which read and change
share-partition state through the persister.

Thin glue between decoded requests and the ShareGroupCoordinator attached to the group
coordinator (`services.group_coordinator.share`). All need the cluster's
share.version at 1 or more (broker/features.py gates them in ApiVersions); below it they
answer UNSUPPORTED_VERSION as Kafka does.
"""
from __future__ import annotations

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AlterShareGroupOffsetsResponse, DeleteShareGroupOffsetsResponse, DescribeShareGroupOffsetsResponse,
    ShareGroupDescribeResponse, ShareGroupHeartbeatResponse)
from kafpy.protocol.messages import (AlterShareGroupOffsetsRequest, DeleteShareGroupOffsetsRequest,
    DescribeShareGroupOffsetsRequest, ShareGroupDescribeRequest, ShareGroupHeartbeatRequest)

from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.handlers.modern_group import (
    group_service,
    authorized_operations, client_host, described_assignment, heartbeat_assignment, share_coordinator)

_UNSUPPORTED = "The share group protocol is not enabled on this cluster (share.version)."


async def handle_share_group_heartbeat(ctx: RequestContext, req: ShareGroupHeartbeatRequest) -> ShareGroupHeartbeatResponse:
    group_service(ctx).expire_due()   # session ends already due
    share = share_coordinator(ctx)
    if share is None:
        return ShareGroupHeartbeatResponse(throttle_time_ms=0, error_code=ErrorCode.UNSUPPORTED_VERSION, error_message=_UNSUPPORTED,
                                           member_id=None, member_epoch=-1, heartbeat_interval_ms=0, assignment=None)
    # the coordinator's Completion is a loop future here
    r = await share.heartbeat(req.group_id, req.member_id, req.member_epoch, rack_id=req.rack_id,
                              subscribed_topic_names=req.subscribed_topic_names,
                              client_id=ctx.client_id or "", client_host=client_host(ctx),
                              now_ms=group_service(ctx).now_ms())
    ok = r.error == ErrorCode.NONE
    assignment = heartbeat_assignment(ShareGroupHeartbeatResponse.Assignment, ShareGroupHeartbeatResponse.TopicPartitions, r.assignment) if ok else None
    return ShareGroupHeartbeatResponse(throttle_time_ms=0, error_code=r.error, error_message=r.message,
                                       member_id=r.member_id if ok else None, member_epoch=r.member_epoch if ok else 0,
                                       heartbeat_interval_ms=r.heartbeat_interval_ms if ok else 0, assignment=assignment)


async def handle_share_group_describe(ctx: RequestContext, req: ShareGroupDescribeRequest) -> ShareGroupDescribeResponse:
    group_service(ctx).expire_due()   # session ends already due
    share = share_coordinator(ctx)
    groups = []
    for gid in req.group_ids:
        if share is None:
            groups.append(ShareGroupDescribeResponse.DescribedGroup(error_code=ErrorCode.UNSUPPORTED_VERSION, error_message=_UNSUPPORTED,
                                                                    group_id=gid, group_state="", group_epoch=-1,
                                                                    assignment_epoch=-1, assignor_name="", members=[]))
            continue
        d = share.describe(gid)

        def assignment(a: dict[bytes, set[int]]) -> ShareGroupDescribeResponse.Assignment:
            return described_assignment(ShareGroupDescribeResponse.Assignment, ShareGroupDescribeResponse.TopicPartitions, share.topics.topic_by_id, a)

        members = [ShareGroupDescribeResponse.Member(member_id=m.member_id, rack_id=m.rack_id, member_epoch=m.member_epoch,
                                                     client_id=m.client_id, client_host=m.client_host,
                                                     subscribed_topic_names=sorted(m.subscribed_topic_names),
                                                     assignment=assignment(m.assigned)) for m in d.members]
        groups.append(ShareGroupDescribeResponse.DescribedGroup(
            error_code=d.error, error_message=d.message, group_id=gid, group_state=d.state,
            group_epoch=d.group_epoch, assignment_epoch=d.assignment_epoch,
            assignor_name=d.assignor if d.error == ErrorCode.NONE else "", members=members,
            authorized_operations=authorized_operations(req, d.error)))
    return ShareGroupDescribeResponse(throttle_time_ms=0, groups=groups)


HANDLERS = [
    Handler(ApiKey.SHARE_GROUP_HEARTBEAT, 1, 1, handle_share_group_heartbeat),
    Handler(ApiKey.SHARE_GROUP_DESCRIBE, 1, 1, handle_share_group_describe),
]


# ---------------------------------------------------------------- share group offsets (90-92)
def _end_offset(ctx: RequestContext, topic: str, partition: int) -> int | None:
    """The partition's high watermark when this broker leads it (for the lag)."""
    p = ctx.services.replica_manager.get_partition(topic, partition)
    if p is None or not p.is_leader:
        return None
    return p.high_watermark


async def handle_describe_share_group_offsets(ctx: RequestContext, req: DescribeShareGroupOffsetsRequest) -> DescribeShareGroupOffsetsResponse:
    share = share_coordinator(ctx)
    groups = []
    for g in req.groups:
        problem = ((ErrorCode.UNSUPPORTED_VERSION, _UNSUPPORTED) if share is None
                   else share.offsets_group_error(g.group_id, "DescribeShareGroupOffsets"))
        # Kafka reads the named partitions' state whether or not the group exists; only
        # "every partition" (Topics null) needs the group
        if problem is not None and (problem[0] != ErrorCode.GROUP_ID_NOT_FOUND or g.topics is None):
            groups.append(DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup(
                group_id=g.group_id, topics=[], error_code=problem[0], error_message=problem[1]))
            continue
        assert share is not None   # else problem is UNSUPPORTED_VERSION, answered above
        wanted = None if g.topics is None else [(t.topic_name, list(t.partitions)) for t in g.topics]
        by_topic: dict[str, DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic] = {}
        for meta, p, summary in await share.describe_offsets(g.group_id, wanted):
            name = meta if isinstance(meta, str) else meta.name
            topic = by_topic.get(name)
            if topic is None:
                topic = by_topic[name] = DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic(
                    topic_name=name, topic_id=b"\0" * 16 if isinstance(meta, str) else meta.topic_id,
                    partitions=[])
            if isinstance(summary, int):
                topic.partitions.append(DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition(
                    partition_index=p, start_offset=-1, leader_epoch=-1, lag=-1,
                    error_code=summary, error_message=None))
                continue
            lag = -1
            if summary.error_code == ErrorCode.NONE and summary.start_offset >= 0:
                end = _end_offset(ctx, name, p)
                if end is not None:
                    done = max(summary.delivery_complete_count, 0)
                    lag = max(end - summary.start_offset - done, 0)
            topic.partitions.append(DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition(
                partition_index=p, start_offset=summary.start_offset if summary.error_code == ErrorCode.NONE else -1,
                leader_epoch=summary.leader_epoch if summary.error_code == ErrorCode.NONE else -1,
                lag=lag, error_code=summary.error_code, error_message=summary.error_message))
        groups.append(DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup(
            group_id=g.group_id, topics=list(by_topic.values()), error_code=ErrorCode.NONE, error_message=None))
    return DescribeShareGroupOffsetsResponse(throttle_time_ms=0, groups=groups)


async def handle_alter_share_group_offsets(ctx: RequestContext, req: AlterShareGroupOffsetsRequest) -> AlterShareGroupOffsetsResponse:
    share = share_coordinator(ctx)
    if share is None:
        return AlterShareGroupOffsetsResponse(throttle_time_ms=0, error_code=ErrorCode.UNSUPPORTED_VERSION, error_message=_UNSUPPORTED,
                                              responses=[])
    topics = {t.topic_name: {p.partition_index: p.start_offset for p in t.partitions} for t in req.topics}
    error, message, results = await share.alter_offsets(req.group_id, topics,
                                                        group_service(ctx).now_ms())
    if error != ErrorCode.NONE:
        return AlterShareGroupOffsetsResponse(throttle_time_ms=0, error_code=error, error_message=message, responses=[])
    by_topic: dict[str, AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic] = {}
    for name, topic_id, p, err in results:
        topic = by_topic.setdefault(name, AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic(
            topic_name=name, topic_id=topic_id, partitions=[]))
        topic.partitions.append(AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition(
            partition_index=p, error_code=err, error_message=None if err == ErrorCode.NONE else err.name))
    return AlterShareGroupOffsetsResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None, responses=list(by_topic.values()))


async def handle_delete_share_group_offsets(ctx: RequestContext, req: DeleteShareGroupOffsetsRequest) -> DeleteShareGroupOffsetsResponse:
    share = share_coordinator(ctx)
    if share is None:
        return DeleteShareGroupOffsetsResponse(throttle_time_ms=0, error_code=ErrorCode.UNSUPPORTED_VERSION, error_message=_UNSUPPORTED,
                                               responses=[])
    error, message, results = await share.delete_offsets(
        req.group_id, [t.topic_name for t in req.topics], group_service(ctx).now_ms())
    if error != ErrorCode.NONE:
        return DeleteShareGroupOffsetsResponse(throttle_time_ms=0, error_code=error, error_message=message, responses=[])
    return DeleteShareGroupOffsetsResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None, responses=[
        DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic(
            topic_name=name, topic_id=topic_id, error_code=err,
            error_message=None if err == ErrorCode.NONE else _TOPIC_MESSAGES.get(err, err.name))
        for name, topic_id, err in results])


_TOPIC_MESSAGES = {ErrorCode.UNKNOWN_TOPIC_OR_PARTITION: "This server does not host this topic-partition."}

HANDLERS += [
    Handler(ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, 0, 1, handle_describe_share_group_offsets),
    Handler(ApiKey.ALTER_SHARE_GROUP_OFFSETS, 0, 0, handle_alter_share_group_offsets),
    Handler(ApiKey.DELETE_SHARE_GROUP_OFFSETS, 0, 0, handle_delete_share_group_offsets),
]
