"""Share groups (KIP-932): ShareGroupHeartbeat (76) and ShareGroupDescribe (77), v1.

Thin glue between decoded requests and the ShareGroupCoordinator attached to the group
coordinator (`services.group_coordinator.coordinator.share`). Both need the cluster's
share.version at 1 or more (broker/features.py gates them in ApiVersions); below it they
answer UNSUPPORTED_VERSION as Kafka does.
"""
from __future__ import annotations

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode as E
from kafpy.protocol.messages import ShareGroupDescribeResponse, ShareGroupHeartbeatResponse

from kafpy.broker.features import SHARE_VERSION
from kafpy.broker.handler import Handler, RequestContext

_NO_OPERATIONS = -2147483648
# READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS on a group without an authorizer
_GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11)
_UNSUPPORTED = "The share group protocol is not enabled on this cluster (share.version)."


def share_coordinator(ctx: RequestContext):
    """The ShareGroupCoordinator, or None when share.version is below 1."""
    service = ctx.services.group_coordinator
    share = getattr(service.coordinator, "share", None) if service is not None else None
    features = ctx.services.features
    if features is not None and features.current().level(SHARE_VERSION) < 1:
        return None
    return share


def _client_host(ctx: RequestContext) -> str:
    host = ctx.client_host or ""
    return host if host.startswith("/") else "/" + host


async def handle_share_group_heartbeat(ctx: RequestContext, req) -> ShareGroupHeartbeatResponse:
    R = ShareGroupHeartbeatResponse
    share = share_coordinator(ctx)
    if share is None:
        return R(throttle_time_ms=0, error_code=E.UNSUPPORTED_VERSION, error_message=_UNSUPPORTED,
                 member_id=None, member_epoch=-1, heartbeat_interval_ms=0, assignment=None)
    r = await share.heartbeat(req.group_id, req.member_id, req.member_epoch, rack_id=req.rack_id,
                              subscribed_topic_names=req.subscribed_topic_names,
                              client_id=ctx.client_id or "", client_host=_client_host(ctx),
                              now_ms=ctx.services.group_coordinator.now_ms())
    ok = r.error == E.NONE
    assignment = None
    if ok and r.assignment is not None:
        assignment = R.Assignment(topic_partitions=[
            R.TopicPartitions(topic_id=t, partitions=sorted(ps))
            for t, ps in sorted(r.assignment.items()) if ps])
    return R(throttle_time_ms=0, error_code=r.error, error_message=r.message,
             member_id=r.member_id if ok else None, member_epoch=r.member_epoch if ok else -1,
             heartbeat_interval_ms=r.heartbeat_interval_ms if ok else 0, assignment=assignment)


async def handle_share_group_describe(ctx: RequestContext, req) -> ShareGroupDescribeResponse:
    R = ShareGroupDescribeResponse
    share = share_coordinator(ctx)
    groups = []
    for gid in req.group_ids:
        if share is None:
            groups.append(R.DescribedGroup(error_code=E.UNSUPPORTED_VERSION, error_message=_UNSUPPORTED,
                                           group_id=gid, group_state="", group_epoch=-1,
                                           assignment_epoch=-1, assignor_name="", members=[]))
            continue
        d = share.describe(gid)

        def assignment(a):
            out = []
            for t, ps in sorted(a.items()):
                meta = share.topics.topic_by_id(t)
                if meta is not None and ps:
                    out.append(R.TopicPartitions(topic_id=t, topic_name=meta.name, partitions=sorted(ps)))
            return R.Assignment(topic_partitions=out)

        members = [R.Member(member_id=m.member_id, rack_id=m.rack_id, member_epoch=m.member_epoch,
                            client_id=m.client_id, client_host=m.client_host,
                            subscribed_topic_names=sorted(m.subscribed_topic_names),
                            assignment=assignment(m.assigned)) for m in d.members]
        ops = _GROUP_OPERATIONS if req.include_authorized_operations else _NO_OPERATIONS
        groups.append(R.DescribedGroup(
            error_code=d.error, error_message=d.message, group_id=gid, group_state=d.state,
            group_epoch=d.group_epoch, assignment_epoch=d.assignment_epoch,
            assignor_name=d.assignor if d.error == E.NONE else "", members=members,
            authorized_operations=ops if d.error == E.NONE else _NO_OPERATIONS))
    return R(throttle_time_ms=0, groups=groups)


HANDLERS = [
    Handler(ApiKey.SHARE_GROUP_HEARTBEAT, 1, 1, handle_share_group_heartbeat),
    Handler(ApiKey.SHARE_GROUP_DESCRIBE, 1, 1, handle_share_group_describe),
]
