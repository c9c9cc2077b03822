"""Fetch (1): read whole record batches up to the high watermark, long-poll until
``min_bytes`` arrive or ``max_wait_ms`` passes, with incremental fetch sessions.

A read_committed consumer (``isolation_level`` 1, v4+) reads up to the last stable offset
instead, with the aborted transactions overlapping what it got (from the segments'
.txnindex) so it can drop their records; every answer reports the LSO, and the session
caches it like the high watermark, so an incremental fetch hears when it moves. A parked
fetch is woken by appends and high-watermark moves, which are what move the LSO.

Only the leader serves a fetch (NOT_LEADER_OR_FOLLOWER otherwise); consumers read up to the
high watermark, followers (replica_id >= 0 up to v14, replica_state from v15) up to the log
end. Record data is never read into Python: the log returns file regions that the
connection's writer sends with ``sendfile``.

This handler keeps the sessions, the authorization and the response; the reads, a
follower's fetch state and the wait for ``min_bytes`` are ReplicaManager.fetch_messages'
(``kafpy.replication.log_read``). Only follower fetches pay for the follower's part.
"""
from __future__ import annotations

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchResponse
from kafpy.protocol.messages import FetchRequest
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.message_base import ZERO_UUID
from kafpy.replication.log_read import FetchIsolation, FetchParams, LogReadResult

from kafpy.broker.authz_check import topic_permission
from kafpy.broker.fetch_session import (FINAL_EPOCH, INITIAL_EPOCH, CachedPartition, FetchSessionError,
                                  next_epoch)
from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.security.acl import AclOperation

LOG_END, HIGH_WATERMARK, TXN_COMMITTED = FetchIsolation.LOG_END, FetchIsolation.HIGH_WATERMARK, FetchIsolation.TXN_COMMITTED
EMPTY = b""
# The default (absent) tagged fields every partition's answer carries, shared: the encoder
# only reads them, and three objects fewer per partition is ~1 us per partition and Fetch.
# A partition with a diverging epoch gets its own object.
NO_DIVERGING_EPOCH = FetchResponse.EpochEndOffset()
NO_CURRENT_LEADER = FetchResponse.LeaderIdAndEpoch()
NO_SNAPSHOT_ID = FetchResponse.SnapshotId()


def _resolve(ctx: RequestContext, req: FetchRequest, uses_ids: bool) -> list[CachedPartition]:
    md = ctx.services.metadata_cache
    out = []
    for t in req.topics:
        if uses_ids:
            name = md.topic_name(t.topic_id) or ""
            tid = t.topic_id
        else:
            name = t.topic
            info = md.topic(name)
            tid = info.topic_id if info else ZERO_UUID
        for p in t.partitions:
            out.append(CachedPartition(name, tid, p.partition, p.fetch_offset, p.partition_max_bytes,
                                       p.log_start_offset, p.current_leader_epoch))
    return out


def _last_fetched_epochs(req: FetchRequest, uses_ids: bool) -> dict[tuple[str | bytes, int], int]:
    """A follower's last fetched epoch per (topic id or name, partition), Fetch v12+."""
    out = {}
    for t in req.topics:
        key = t.topic_id if uses_ids else t.topic
        for p in t.partitions:
            if p.last_fetched_epoch >= 0:
                out[(key, p.partition)] = p.last_fetched_epoch
    return out


def _authorized(ctx: RequestContext, parts: list[CachedPartition], is_follower: bool
                ) -> tuple[list[CachedPartition], list[LogReadResult]]:
    """(partitions a consumer may READ, answers TOPIC_AUTHORIZATION_FAILED for the rest):
    every partition served, the session's included, as Kafka checks them on every fetch.
    Followers were judged (CLUSTER_ACTION) before the handler; without an authorizer this is
    one attribute test."""
    readable = None if is_follower else topic_permission(ctx, AclOperation.READ)
    if readable is None:
        return parts, []
    allowed, denied = [], []
    for cp in parts:
        if not cp.topic or readable(cp.topic):
            allowed.append(cp)
        else:
            denied.append(LogReadResult(cp, ErrorCode.TOPIC_AUTHORIZATION_FAILED))
    return allowed, denied


async def handle_fetch(ctx: RequestContext, req: FetchRequest) -> FetchResponse:
    v = ctx.api_version
    uses_ids = v >= 13
    services = ctx.services
    now = services.now_ms()
    cache = services.fetch_sessions
    session = None
    top_error = ErrorCode.NONE
    session_id = req.session_id if v >= 7 else 0
    epoch = req.session_epoch if v >= 7 else FINAL_EPOCH
    replica_id = req.replica_state.replica_id if v >= 15 else req.replica_id
    is_follower = replica_id >= 0
    incremental = False
    try:
        if epoch in (INITIAL_EPOCH, FINAL_EPOCH):
            # A full fetch closes the session it names: the Java client sends (id, 0) to
            # replace its session after an error or a reconnect, (id, -1) to drop it.
            if session_id != 0:
                cache.remove(session_id)
            parts = _resolve(ctx, req, uses_ids)
            if epoch == INITIAL_EPOCH:
                session = cache.create(parts, uses_ids, now)
        elif session_id == 0:
            # an incremental epoch without a session
            return FetchResponse(throttle_time_ms=0, error_code=ErrorCode.FETCH_SESSION_ID_NOT_FOUND, session_id=0, responses=[])
        else:
            session = cache.get_incremental(session_id, epoch, now)
            incremental = True
            for asked in _resolve(ctx, req, uses_ids):
                tp = (asked.topic_id if uses_ids else asked.topic, asked.partition)
                old = session.partitions.get(tp)
                if old is not None:
                    old.fetch_offset = asked.fetch_offset
                    old.max_bytes = asked.max_bytes
                    old.log_start_offset = asked.log_start_offset
                    old.current_leader_epoch = asked.current_leader_epoch
                else:
                    session.partitions[tp] = asked
            for ft in req.forgotten_topics_data:
                key_topic: bytes | str
                if uses_ids:
                    key_topic = ft.topic_id
                else:
                    key_topic = ft.topic
                for p in ft.partitions:
                    session.partitions.pop((key_topic, p), None)
            parts = list(session.partitions.values())
    except FetchSessionError as e:
        return FetchResponse(throttle_time_ms=0, error_code=e.error_code, session_id=0, responses=[])

    max_bytes = req.max_bytes if v >= 3 else 2147483647
    max_bytes = min(max_bytes, services.config["fetch.max.bytes"]) if v >= 3 else max_bytes
    quotas = services.quotas
    if quotas is not None and quotas.active and not is_follower:   # no bigger answer than the quota allows
        max_bytes = int(min(max_bytes, quotas.fetch_max_bytes(ctx)))
    read_committed = v >= 4 and req.isolation_level == 1
    # (replica id, max wait, min bytes, max bytes, isolation, hard max bytes, uses topic ids,
    # fetch time, last fetched epochs): positional, a third of the keywords' cost per Fetch
    params = FetchParams(replica_id, req.max_wait_ms, req.min_bytes, max_bytes,
                         LOG_END if is_follower else TXN_COMMITTED if read_committed else HIGH_WATERMARK,
                         v <= 2, uses_ids, now,
                         _last_fetched_epochs(req, uses_ids) if is_follower and v >= 12 else None)
    parts, denied = _authorized(ctx, parts, is_follower)
    results = await services.replica_manager.fetch_messages(params, parts)
    if denied:
        results.extend(denied)

    by_topic: dict = {}
    order = []
    for r in results:
        # fetch_messages answers with the partitions it was given: this session's CachedPartitions
        cp: CachedPartition = r.partition  # type: ignore[assignment]
        if r.error:
            # As Kafka: an errored partition reports no offsets, and caching -1 as its high
            # watermark makes the session send it again once the error clears.
            r.hw = r.lso = r.log_start = -1
        if incremental:
            changed = (r.records is not None or r.error or r.hw != cp.high_watermark
                       or r.lso != cp.last_stable_offset or r.log_start != cp.sent_log_start_offset)
            if not changed:
                continue
        cp.high_watermark = r.hw
        cp.last_stable_offset = r.lso
        cp.sent_log_start_offset = r.log_start
        key = cp.topic_id if uses_ids else cp.topic
        bucket = by_topic.get(key)
        if bucket is None:
            bucket = by_topic[key] = []
            order.append((key, cp))
        pd = FetchResponse.PartitionData(
            partition_index=cp.partition, error_code=r.error, high_watermark=r.hw, last_stable_offset=r.lso,
            log_start_offset=r.log_start,
            diverging_epoch=r.diverging if r.diverging is not None else NO_DIVERGING_EPOCH,
            current_leader=NO_CURRENT_LEADER, snapshot_id=NO_SNAPSHOT_ID,
            aborted_transactions=(r.aborted or []) if read_committed else None,
            preferred_read_replica=-1, records=r.records if r.records is not None else EMPTY)
        bucket.append(pd)
    responses = [FetchResponse.FetchableTopicResponse(topic=cp.topic, topic_id=cp.topic_id, partitions=by_topic[key])
                 for key, cp in order]
    if session is not None:
        if incremental:
            session.epoch = next_epoch(session.epoch)
            # Partitions that returned data go to the back, so others get their turn next time.
            for r in results:
                if r.records is not None:
                    k = (r.partition.topic_id if uses_ids else r.partition.topic, r.partition.partition)
                    if k in session.partitions:
                        session.partitions.move_to_end(k)
        out_session = session.id
    else:
        out_session = 0
    return FetchResponse(throttle_time_ms=0, error_code=top_error, session_id=out_session, responses=responses)


HANDLERS = [Handler(ApiKey.FETCH, 0, 18, handle_fetch)]
