"""ShareFetch (78) and ShareAcknowledge (79), v1-2 (KIP-932): share consumers acquire
records from share partitions and acknowledge them, inside share sessions.

A ShareFetch opens its member's session (epoch 0), or names the session's current epoch
and adds or forgets partitions; its acknowledgements are applied (and written) before
records are acquired. A ShareAcknowledge only acknowledges; epoch -1 closes the session
after applying them, making what the member still holds available to the others.
The records of a partition go back as the log holds them (whole batches, opaque, sent
with sendfile), with the AcquiredRecords ranges the client delivers from.

Session and partition state are the broker's `services.share_partitions`
(broker/share/); this module translates requests and answers.
"""
from __future__ import annotations

from typing import Callable, TypeVar

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (ShareAcknowledgeRequest, ShareAcknowledgeResponse, ShareFetchRequest,
                                     ShareFetchResponse)

from kafpy.broker.authz_check import topic_permission
from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.security.acl import AclOperation
from kafpy.broker.share.share_partition import AckBatch, AcquireMode
from kafpy.broker.share.share_partition_manager import ShareFetchParams, ShareFetchResult, SharePartitionRef
from kafpy.broker.share.share_session import (FINAL_EPOCH, INITIAL_EPOCH, ShareSession, ShareSessionError,
                                              ShareSessionKey, next_epoch)

_EndpointT = TypeVar("_EndpointT")
DEFAULT_MAX_RECORDS = 500


def _acks(ctx: RequestContext, topics: list[ShareFetchRequest.FetchTopic] | list[ShareAcknowledgeRequest.AcknowledgeTopic]
          ) -> dict[tuple[bytes, int], tuple[str, list[AckBatch]]]:
    """Acknowledgements by (topic id, partition): (topic name or "", batches)."""
    md = ctx.services.metadata_cache
    out: dict[tuple[bytes, int], tuple[str, list[AckBatch]]] = {}
    for t in topics:
        name = md.topic_name(t.topic_id) or ""
        for p in t.partitions:
            batches = [AckBatch(b.first_offset, b.last_offset, list(b.acknowledge_types))
                       for b in p.acknowledgement_batches]
            if batches:
                out[(t.topic_id, p.partition_index)] = (name, batches)
    return out


async def _acknowledge(ctx: RequestContext, group_id: str, member_id: str,
                       acks: dict[tuple[bytes, int], tuple[str, list[AckBatch]]],
                       renew_allowed: bool) -> dict[tuple[bytes, int], ErrorCode]:
    mgr = ctx.services.share_partitions
    assert mgr is not None, "share fetches are served only with share partitions"
    readable = topic_permission(ctx, AclOperation.READ)
    out = {}
    for (tid, p), (name, batches) in acks.items():
        if not name:
            out[(tid, p)] = ErrorCode.UNKNOWN_TOPIC_ID
            continue
        if readable is not None and not readable(name):
            out[(tid, p)] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            continue
        out[(tid, p)] = await mgr.acknowledge(group_id, member_id, SharePartitionRef(name, tid, p), batches,
                                              renew_allowed)
    return out


def _refs(ctx: RequestContext, session: ShareSession) -> list[SharePartitionRef]:
    md = ctx.services.metadata_cache
    refs = []
    for (tid, p), name in session.partitions.items():
        if not name:
            name = md.topic_name(tid) or ""
        refs.append(SharePartitionRef(name, tid, p))
    return refs


def _node_endpoints(ctx: RequestContext, leaders: set[int], cls: Callable[..., _EndpointT]) -> list[_EndpointT]:
    md = ctx.services.metadata_cache
    out = []
    for node_id in sorted(leaders):
        b = md.broker(node_id)
        if b is None:
            continue
        ep = b.endpoint(ctx.listener)
        if ep is None:
            continue
        host, port = ep
        out.append(cls(node_id=node_id, host=host, port=port, rack=b.rack))
    return out


def fetch_error(code: ErrorCode, message: str | None = None) -> ShareFetchResponse:
    return ShareFetchResponse(throttle_time_ms=0, error_code=code, error_message=message, acquisition_lock_timeout_ms=0,
                              responses=[], node_endpoints=[])


def _share_groups_enabled(ctx: RequestContext) -> bool:
    """share.version >= 1 finalized (Kafka answers UNSUPPORTED_VERSION otherwise)."""
    services = ctx.services
    if services.share_partitions is None:
        return False
    features = services.features
    return features is None or features.current().enables(ctx.header.request_api_key)


async def handle_share_fetch(ctx: RequestContext, req: ShareFetchRequest) -> ShareFetchResponse:
    services = ctx.services
    mgr = services.share_partitions
    if mgr is None or not _share_groups_enabled(ctx):
        return fetch_error(ErrorCode.UNSUPPORTED_VERSION)
    group_id, member_id = req.group_id, req.member_id
    if not group_id or not member_id:
        return fetch_error(ErrorCode.INVALID_REQUEST, "The group id and member id of a share fetch must be set")
    epoch = req.share_session_epoch
    key = ShareSessionKey(group_id, member_id)
    cache = mgr.sessions
    now = services.now_ms()
    acks = _acks(ctx, req.topics)
    v = ctx.api_version
    renew_allowed = v >= 2 and req.is_renew_ack
    try:
        if epoch == INITIAL_EPOCH:
            if acks:
                return fetch_error(ErrorCode.INVALID_REQUEST, "Acknowledge data present in an initial share fetch")
            session = cache.open(key, now, ctx.connection_id)
        else:
            session = cache.get(key, epoch, now)
    except ShareSessionError as e:
        return fetch_error(e.error_code, str(e))
    md = services.metadata_cache
    for t in req.topics:
        name = md.topic_name(t.topic_id) or ""
        for p in t.partitions:
            session.partitions[(t.topic_id, p.partition_index)] = name
    for ft in req.forgotten_topics_data:
        for forgotten in ft.partitions:
            session.partitions.pop((ft.topic_id, forgotten), None)

    unknown = [tp for tp, name in session.partitions.items() if not name]
    if epoch != FINAL_EPOCH and epoch != INITIAL_EPOCH:
        session.epoch = next_epoch(session.epoch)
    ack_errors = await _acknowledge(ctx, group_id, member_id, acks, renew_allowed)
    if epoch == FINAL_EPOCH:
        refs = _refs(ctx, session)
        cache.remove(key)
        await mgr.release_member(group_id, member_id, refs)
        results: list[ShareFetchResult] = []
    else:
        refs = [r for r in _refs(ctx, session) if r.topic]
        readable = topic_permission(ctx, AclOperation.READ)
        denied = [r for r in refs if readable is not None and not readable(r.topic)]
        refs = [r for r in refs if r not in denied]
        max_records = req.max_records if req.max_records > 0 else DEFAULT_MAX_RECORDS
        mode = AcquireMode(req.share_acquire_mode) if v >= 2 and req.share_acquire_mode in (0, 1) \
            else AcquireMode.BATCH_OPTIMIZED
        params = ShareFetchParams(req.max_wait_ms, req.min_bytes, req.max_bytes, max_records, mode,
                                  max(req.batch_size, 0))
        results = await mgr.fetch(group_id, member_id, refs, params)
        results += [ShareFetchResult(r, ErrorCode.TOPIC_AUTHORIZATION_FAILED) for r in denied]
    by_topic: dict[bytes, list] = {}
    leaders: set[int] = set()
    seen = set()
    for r in results:
        tp = (r.ref.topic_id, r.ref.partition)
        seen.add(tp)
        ack_error = ack_errors.get(tp, ErrorCode.NONE)
        if epoch != INITIAL_EPOCH and not (r.acquired or r.error or tp in ack_errors):
            continue
        if r.error == ErrorCode.NOT_LEADER_OR_FOLLOWER and r.leader[0] >= 0:
            leaders.add(r.leader[0])
        by_topic.setdefault(r.ref.topic_id, []).append(ShareFetchResponse.PartitionData(
            partition_index=r.ref.partition, error_code=r.error, error_message=r.error_message,
            acknowledge_error_code=ack_error, acknowledge_error_message=None,
            current_leader=ShareFetchResponse.LeaderIdAndEpoch(leader_id=r.leader[0], leader_epoch=r.leader[1]),
            records=r.records if r.records is not None else b"",
            acquired_records=[ShareFetchResponse.AcquiredRecords(first_offset=a.first_offset, last_offset=a.last_offset,
                                                                 delivery_count=a.delivery_count) for a in r.acquired]))
    extra = [tp for tp in ack_errors if tp not in seen]
    extra += [tp for tp in unknown if tp not in seen and tp not in ack_errors]
    for tid, index in extra:
        by_topic.setdefault(tid, []).append(ShareFetchResponse.PartitionData(
            partition_index=index, error_code=ErrorCode.UNKNOWN_TOPIC_ID if (tid, index) not in ack_errors else ErrorCode.NONE,
            error_message=None, acknowledge_error_code=ack_errors.get((tid, index), ErrorCode.NONE),
            acknowledge_error_message=None, current_leader=ShareFetchResponse.LeaderIdAndEpoch(leader_id=-1, leader_epoch=-1),
            records=b"", acquired_records=[]))
    return ShareFetchResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None,
                              acquisition_lock_timeout_ms=mgr.record_lock_duration_ms(group_id),
                              responses=[ShareFetchResponse.ShareFetchableTopicResponse(topic_id=tid, partitions=parts)
                                         for tid, parts in by_topic.items()],
                              node_endpoints=_node_endpoints(ctx, leaders, ShareFetchResponse.NodeEndpoint))


def ack_error(code: ErrorCode, message: str | None = None) -> ShareAcknowledgeResponse:
    return ShareAcknowledgeResponse(throttle_time_ms=0, error_code=code, error_message=message, acquisition_lock_timeout_ms=0,
                                    responses=[], node_endpoints=[])


async def handle_share_acknowledge(ctx: RequestContext, req: ShareAcknowledgeRequest
                                   ) -> ShareAcknowledgeResponse:
    services = ctx.services
    mgr = services.share_partitions
    if mgr is None or not _share_groups_enabled(ctx):
        return ack_error(ErrorCode.UNSUPPORTED_VERSION)
    group_id, member_id = req.group_id, req.member_id
    if not group_id or not member_id:
        return ack_error(ErrorCode.INVALID_REQUEST, "The group id and member id of a share acknowledge must be set")
    epoch = req.share_session_epoch
    key = ShareSessionKey(group_id, member_id)
    cache = mgr.sessions
    if epoch == INITIAL_EPOCH:
        return ack_error(ErrorCode.INVALID_SHARE_SESSION_EPOCH, "A share acknowledge cannot open a share session")
    try:
        session = cache.get(key, epoch, services.now_ms())
    except ShareSessionError as e:
        return ack_error(e.error_code, str(e))
    if epoch != FINAL_EPOCH:
        session.epoch = next_epoch(session.epoch)
    acks = _acks(ctx, req.topics)
    ack_errors = await _acknowledge(ctx, group_id, member_id, acks, ctx.api_version >= 2 and req.is_renew_ack)
    if epoch == FINAL_EPOCH:
        refs = _refs(ctx, session)
        cache.remove(key)
        await mgr.release_member(group_id, member_id, refs)
    by_topic: dict[bytes, list] = {}
    leaders: set[int] = set()
    for (tid, p), code in ack_errors.items():
        leader = (-1, -1)
        if code == ErrorCode.NOT_LEADER_OR_FOLLOWER:
            name = acks[(tid, p)][0]
            leader = mgr.current_leader(SharePartitionRef(name, tid, p))
            if leader[0] >= 0:
                leaders.add(leader[0])
        by_topic.setdefault(tid, []).append(ShareAcknowledgeResponse.PartitionData(
            partition_index=p, error_code=code, error_message=None,
            current_leader=ShareAcknowledgeResponse.LeaderIdAndEpoch(leader_id=leader[0], leader_epoch=leader[1])))
    return ShareAcknowledgeResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None,
                                    acquisition_lock_timeout_ms=mgr.record_lock_duration_ms(group_id),
                                    responses=[ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse(topic_id=tid, partitions=parts)
                                               for tid, parts in by_topic.items()],
                                    node_endpoints=_node_endpoints(ctx, leaders, ShareAcknowledgeResponse.NodeEndpoint))


HANDLERS = [
    Handler(ApiKey.SHARE_FETCH, 1, 2, handle_share_fetch),
    Handler(ApiKey.SHARE_ACKNOWLEDGE, 1, 2, handle_share_acknowledge),
]
