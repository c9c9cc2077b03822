"""The consumer group protocol of Kafka 4 (KIP-848): ConsumerGroupHeartbeat (68) and
ConsumerGroupDescribe (69), v0-1.

Thin glue between decoded requests and the ConsumerGroupCoordinator attached to the
group coordinator (`services.group_coordinator.consumer`; None when
`group.coordinator.rebalance.protocols` leaves "consumer" out). Both APIs need the
cluster's group.version at 1 (broker/features.py); below it, or without the
coordinator, they answer UNSUPPORTED_VERSION as Kafka does.
"""
from __future__ import annotations

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import ConsumerGroupDescribeResponse, ConsumerGroupHeartbeatResponse
from kafpy.protocol.messages import ConsumerGroupDescribeRequest, ConsumerGroupHeartbeatRequest

from kafpy.broker.authz_check import topic_permission
from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.security.acl import AclOperation
from kafpy.broker.handlers.modern_group import (
    group_service,
    authorized_operations, client_host, described_assignment, heartbeat_assignment, consumer_coordinator)

_UNSUPPORTED = "The new consumer group protocol is not enabled on this cluster (group.version)."


async def handle_consumer_group_heartbeat(ctx: RequestContext, req: ConsumerGroupHeartbeatRequest) -> ConsumerGroupHeartbeatResponse:
    group_service(ctx).expire_due()   # session ends already due
    consumer = consumer_coordinator(ctx)
    if consumer is None:
        return ConsumerGroupHeartbeatResponse(throttle_time_ms=0, error_code=ErrorCode.UNSUPPORTED_VERSION, error_message=_UNSUPPORTED,
                                              member_id=None, member_epoch=-1, heartbeat_interval_ms=0, assignment=None)
    owned = None
    if req.topic_partitions is not None:
        owned = {bytes(tp.topic_id): set(tp.partitions) for tp in req.topic_partitions}
    fut = consumer.heartbeat(
        req.group_id, req.member_id, req.member_epoch, instance_id=req.instance_id,
        rack_id=req.rack_id, rebalance_timeout_ms=req.rebalance_timeout_ms,
        subscribed_topic_names=req.subscribed_topic_names,
        subscribed_topic_regex=req.subscribed_topic_regex if ctx.api_version >= 1 else None,
        server_assignor=req.server_assignor, owned=owned, client_id=ctx.client_id or "",
        client_host=client_host(ctx), api_version=ctx.api_version,
        now_ms=group_service(ctx).now_ms(),
        topic_authorized=topic_permission(ctx, AclOperation.DESCRIBE),
        acl_version=ctx.services.authorizer.acl_version if ctx.services.authorizer is not None else 0)
    r = await fut
    assignment = heartbeat_assignment(ConsumerGroupHeartbeatResponse.Assignment, ConsumerGroupHeartbeatResponse.TopicPartitions, r.assignment) if r.error == ErrorCode.NONE else None
    return ConsumerGroupHeartbeatResponse(throttle_time_ms=0, error_code=r.error, error_message=r.message,
                                          member_id=r.member_id if r.error == ErrorCode.NONE else None,
                                          member_epoch=r.member_epoch if r.error == ErrorCode.NONE else -1,
                                          heartbeat_interval_ms=r.heartbeat_interval_ms if r.error == ErrorCode.NONE else 0,
                                          assignment=assignment)


async def handle_consumer_group_describe(ctx: RequestContext, req: ConsumerGroupDescribeRequest) -> ConsumerGroupDescribeResponse:
    group_service(ctx).expire_due()   # session ends already due
    consumer = consumer_coordinator(ctx)
    groups = []
    for gid in req.group_ids:
        if consumer is None:
            groups.append(ConsumerGroupDescribeResponse.DescribedGroup(error_code=ErrorCode.UNSUPPORTED_VERSION, error_message=_UNSUPPORTED,
                                                                       group_id=gid, group_state="", group_epoch=-1,
                                                                       assignment_epoch=-1, assignor_name="", members=[]))
            continue
        d = consumer.describe(gid)

        def assignment(a: dict[bytes, set[int]]) -> ConsumerGroupDescribeResponse.Assignment:
            return described_assignment(ConsumerGroupDescribeResponse.Assignment, ConsumerGroupDescribeResponse.TopicPartitions, consumer.topics.topic_by_id, a)

        members = [ConsumerGroupDescribeResponse.Member(
            member_id=dm.member.member_id, instance_id=dm.member.instance_id, rack_id=dm.member.rack_id,
            member_epoch=dm.member.member_epoch, client_id=dm.member.client_id,
            client_host=dm.member.client_host,
            subscribed_topic_names=sorted(dm.member.subscribed_topic_names),
            subscribed_topic_regex=dm.member.subscribed_topic_regex,
            assignment=assignment(dm.member.assigned), target_assignment=assignment(dm.target),
            # v1+: 0 a classic member (of a migrating group), 1 a consumer-protocol one
            member_type=0 if dm.member.uses_classic_protocol else 1) for dm in d.members]
        groups.append(ConsumerGroupDescribeResponse.DescribedGroup(
            error_code=d.error, error_message=d.message, group_id=gid, group_state=d.state,
            group_epoch=d.group_epoch, assignment_epoch=d.assignment_epoch, assignor_name=d.assignor,
            members=members, authorized_operations=authorized_operations(req, d.error)))
    return ConsumerGroupDescribeResponse(throttle_time_ms=0, groups=groups)


HANDLERS = [
    Handler(ApiKey.CONSUMER_GROUP_HEARTBEAT, 0, 1, handle_consumer_group_heartbeat),
    Handler(ApiKey.CONSUMER_GROUP_DESCRIBE, 0, 1, handle_consumer_group_describe),
]
