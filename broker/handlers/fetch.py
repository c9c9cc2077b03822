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

A follower's fetch is the leader's side of replication (Partition.fetchRecords): a replica
not assigned is UNKNOWN_LEADER_EPOCH (NOT_LEADER_OR_FOLLOWER without a leader epoch); a
``last_fetched_epoch`` whose end in the leader's log is before the fetch offset (or whose
epoch the leader does not have) gets no records but a ``diverging_epoch``, answered at once;
otherwise the fetch offset feeds the follower's state, the ISR and the high watermark. Only
follower fetches pay for this.
"""
from __future__ import annotations

import logging

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchResponse
from kafpy.protocol.api_keys import ApiKey
from kafpy.storage.errors import OffsetOutOfRangeError, StorageError

from kafpy.broker.authz_check import topic_permission
from kafpy.broker.fetch_session import (FINAL_EPOCH, INITIAL_EPOCH, CachedPartition, FetchSessionError,
                                  next_epoch)
from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.security.acl import AclOperation

log = logging.getLogger("kafka.server.ReplicaManager")

R = FetchResponse
E = ErrorCode
ZERO_UUID = bytes(16)
EMPTY = b""


def _resolve(ctx: RequestContext, req, uses_ids: bool) -> list[CachedPartition]:
    md = ctx.services.metadata_cache
    out = []
    for t in req.topics:
        if uses_ids:
            info = md.topic_by_id(t.topic_id)
            name = info.name if info else ""
            tid = t.topic_id
        else:
            name = t.topic
            info = md.topic(name)
            tid = info.topic_id if info else ZERO_UUID
        for p in t.partitions:
            out.append(CachedPartition(name, tid, p.partition, p.fetch_offset, p.partition_max_bytes,
                                       p.log_start_offset, p.current_leader_epoch))
    return out


class _Read:
    __slots__ = ("cp", "error", "hw", "lso", "log_start", "records", "size", "diverging", "aborted")

    def __init__(self, cp: CachedPartition) -> None:
        self.cp = cp
        self.diverging = None
        self.aborted: list | None = None
        self.error = E.NONE
        self.hw = -1
        self.lso = -1
        self.log_start = -1
        self.records = None
        self.size = 0


class _Follower:
    """A follower's fetch: who it is, the epochs it last fetched (by session key), and
    whether this read records its position (the first read of the request does)."""

    __slots__ = ("replica_id", "last_fetched_epochs", "now_ms", "update")

    def __init__(self, replica_id: int, req, uses_ids: bool, version: int, now_ms: int) -> None:
        self.replica_id = replica_id
        self.now_ms = now_ms
        self.update = True
        self.last_fetched_epochs: dict = {}
        if version >= 12:
            for t in req.topics:
                key = t.topic_id if uses_ids else t.topic
                for p in t.partitions:
                    if p.last_fetched_epoch >= 0:
                        self.last_fetched_epochs[(key, p.partition)] = p.last_fetched_epoch

    def check(self, part, cp: CachedPartition, uses_ids: bool, r: _Read) -> bool:
        """False when the read stops here: ``r`` has the error or the diverging epoch."""
        if self.replica_id not in part.remote_replicas:
            log.debug("Leader %d failed to record follower %d's position %d since the replica is not recognized "
                      "to be one of the assigned replicas %s for %s-%d", part.local_broker_id, self.replica_id,
                      cp.fetch_offset, list(part.assigned_replicas), cp.topic, cp.partition)
            r.error = E.UNKNOWN_LEADER_EPOCH if cp.current_leader_epoch >= 0 else E.NOT_LEADER_OR_FOLLOWER
            return False
        last = self.last_fetched_epochs.get((cp.topic_id if uses_ids else cp.topic, cp.partition))
        if last is not None:
            epoch, end = part.log.leader_epoch_cache.end_offset_for(last)
            if epoch < 0 or end < 0:
                r.error = E.OFFSET_OUT_OF_RANGE
                return False
            if epoch < last or end < cp.fetch_offset:
                r.diverging = R.EpochEndOffset(epoch=epoch, end_offset=end)
                return False
        if self.update:
            part.update_follower_fetch_state(self.replica_id, cp.fetch_offset, self.now_ms)
        return True


def _authorized(ctx: RequestContext, parts: list[CachedPartition], is_follower: bool
                ) -> tuple[list[CachedPartition], list[_Read]]:
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
            r = _Read(cp)
            r.error = E.TOPIC_AUTHORIZATION_FAILED
            denied.append(r)
    return allowed, denied


def _read_all(ctx: RequestContext, parts: list[CachedPartition], max_bytes: int, follower: _Follower | None,
              read_committed: bool, hard_limit: bool, uses_ids: bool) -> tuple[list[_Read], int, list, bool]:
    """(reads, bytes read, partitions to wait on, whether to answer at once)."""
    rm = ctx.services.replica_manager
    is_follower = follower is not None
    now_answer = False
    results = []
    waiting = []
    total = 0
    budget = max_bytes
    min_one = not hard_limit
    for cp in parts:
        r = _Read(cp)
        results.append(r)
        part = rm.get_partition(cp.topic, cp.partition) if cp.topic else None
        if part is None:
            r.error = (E.UNKNOWN_TOPIC_ID if (cp.topic_id != ZERO_UUID and not cp.topic)
                       else rm.partition_error(cp.topic, cp.partition))
            continue
        if not part.is_leader:
            r.error = E.NOT_LEADER_OR_FOLLOWER
            continue
        lg = part.log
        if cp.current_leader_epoch >= 0 and cp.current_leader_epoch != part.leader_epoch:
            r.error = E.FENCED_LEADER_EPOCH if cp.current_leader_epoch < part.leader_epoch else E.UNKNOWN_LEADER_EPOCH
            continue
        hw = lg.high_watermark
        r.hw = hw
        r.lso = lso = lg.last_stable_offset
        r.log_start = lg.log_start_offset
        if is_follower:
            if not follower.check(part, cp, uses_ids, r):
                now_answer = True
                continue
            r.hw = lg.high_watermark  # the follower's position may just have moved it
            r.lso = lg.last_stable_offset
        limit = lg.log_end_offset if is_follower else lso if read_committed else hw
        fetch_offset = cp.fetch_offset
        waiting.append(part)
        if fetch_offset >= limit and fetch_offset <= lg.log_end_offset:
            continue  # nothing visible yet: an empty answer, not an error
        part_budget = min(cp.max_bytes, budget)
        if part_budget <= 0 and not min_one:
            continue
        try:
            info = lg.read(fetch_offset, part_budget, limit, min_one, read_committed)
        except OffsetOutOfRangeError:
            r.error = E.OFFSET_OUT_OF_RANGE
            continue
        except StorageError as e:
            r.error = e.error_code
            continue
        except Exception:
            log.exception("Error reading %s-%d at offset %d", cp.topic, cp.partition, fetch_offset)
            r.error = E.UNKNOWN_SERVER_ERROR
            continue
        recs = info.records
        if recs is not None and recs.size > 0:
            r.records = recs
            r.size = recs.size
            if info.aborted_transactions:
                r.aborted = [R.AbortedTransaction(producer_id=pid, first_offset=first)
                             for pid, first in info.aborted_transactions]
            total += recs.size
            budget -= recs.size
            min_one = False
    if is_follower:
        follower.update = False
    return results, total, waiting, now_answer


async def handle_fetch(ctx: RequestContext, req) -> FetchResponse:
    v = ctx.api_version
    uses_ids = v >= 13
    services = ctx.services
    now = services.now_ms()
    cache = services.fetch_sessions
    session = None
    top_error = E.NONE
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
            return R(throttle_time_ms=0, error_code=E.FETCH_SESSION_ID_NOT_FOUND, session_id=0, responses=[])
        else:
            session = cache.get_incremental(session_id, epoch, now)
            incremental = True
            for cp in _resolve(ctx, req, uses_ids):
                key = (cp.topic_id if uses_ids else cp.topic, cp.partition)
                old = session.partitions.get(key)
                if old is not None:
                    old.fetch_offset = cp.fetch_offset
                    old.max_bytes = cp.max_bytes
                    old.log_start_offset = cp.log_start_offset
                    old.current_leader_epoch = cp.current_leader_epoch
                else:
                    session.partitions[key] = cp
            for ft in req.forgotten_topics_data:
                if uses_ids:
                    key_topic = ft.topic_id
                else:
                    key_topic = ft.topic
                for p in ft.partitions:
                    session.partitions.pop((key_topic, p), None)
            parts = list(session.partitions.values())
    except FetchSessionError as e:
        return R(throttle_time_ms=0, error_code=e.error_code, session_id=0, responses=[])

    max_bytes = req.max_bytes if v >= 3 else 2147483647
    max_bytes = min(max_bytes, services.config["fetch.max.bytes"]) if v >= 3 else max_bytes
    quotas = services.quotas
    if quotas is not None and quotas.active and not is_follower:   # no bigger answer than the quota allows
        max_bytes = int(min(max_bytes, quotas.fetch_max_bytes(ctx)))
    read_committed = v >= 4 and req.isolation_level == 1
    hard_limit = v <= 2
    deadline = now + max(req.max_wait_ms, 0)
    rm = services.replica_manager
    follower = _Follower(replica_id, req, uses_ids, v, now) if is_follower else None
    parts, denied = _authorized(ctx, parts, is_follower)
    while True:
        results, total, waiting, now_answer = _read_all(ctx, parts, max_bytes, follower, read_committed,
                                                        hard_limit, uses_ids)
        if now_answer or total >= req.min_bytes or any(r.error for r in results):
            break
        remaining = deadline - services.now_ms()
        if remaining <= 0 or not waiting:
            break
        await rm.wait_for_fetch(waiting, remaining)
    if denied:
        results.extend(denied)

    by_topic: dict = {}
    order = []
    for r in results:
        cp = r.cp
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
        pd = R.PartitionData(
            partition_index=cp.partition, error_code=r.error, high_watermark=r.hw, last_stable_offset=r.lso,
            log_start_offset=r.log_start,
            aborted_transactions=(r.aborted or []) if read_committed else None,
            preferred_read_replica=-1, records=r.records if r.records is not None else EMPTY)
        if r.diverging is not None:
            pd.diverging_epoch = r.diverging
        bucket.append(pd)
    responses = [R.FetchableTopicResponse(topic=cp.topic, topic_id=cp.topic_id, partitions=by_topic[key])
                 for key, cp in order]
    if session is not None:
        if incremental:
            session.epoch = next_epoch(session.epoch)
            # Partitions that returned data go to the back, so others get their turn next time.
            for r in results:
                if r.records is not None:
                    k = (r.cp.topic_id if uses_ids else r.cp.topic, r.cp.partition)
                    if k in session.partitions:
                        session.partitions.move_to_end(k)
        out_session = session.id
    else:
        out_session = 0
    return R(throttle_time_ms=0, error_code=top_error, session_id=out_session, responses=responses)


HANDLERS = [Handler(ApiKey.FETCH, 0, 17, handle_fetch)]
