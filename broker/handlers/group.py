"""Group and offset APIs: FindCoordinator (10), JoinGroup (11), Heartbeat (12),
LeaveGroup (13), SyncGroup (14), DescribeGroups (15), ListGroups (16),
OffsetCommit (8), OffsetFetch (9), DeleteGroups (42), OffsetDelete (47),
TxnOffsetCommit (28).

Thin glue between decoded requests and `services.group_coordinator` (a
coordinator.GroupCoordinatorService): it maps fields per version, awaits the futures
of JoinGroup/SyncGroup (parked until the rebalance step completes), and builds the
responses. All versions from 0: librdkafka relies on the low ones.
"""
from __future__ import annotations

import asyncio

import logging
from typing import Callable, Iterable, Protocol, Sequence, TypeVar

from kafpy.protocol.messages import (
    DeleteGroupsResponse, DescribeGroupsResponse, FindCoordinatorResponse, HeartbeatResponse,
    JoinGroupResponse, LeaveGroupResponse, ListGroupsResponse, OffsetCommitResponse,
    OffsetDeleteResponse, OffsetFetchResponse, SyncGroupResponse, TxnOffsetCommitResponse)
from kafpy.protocol.messages import (DeleteGroupsRequest, DescribeGroupsRequest, FindCoordinatorRequest,
    HeartbeatRequest, JoinGroupRequest, LeaveGroupRequest, ListGroupsRequest, OffsetCommitRequest,
    OffsetDeleteRequest, OffsetFetchRequest, SyncGroupRequest, TxnOffsetCommitRequest)

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.topics import GROUP_METADATA_TOPIC_NAME
from kafpy.protocol.message_base import ZERO_UUID

from kafpy.broker.handler import Handler, RequestContext
from kafpy.coordinator.group.classic.coordinator import GroupCoordinator
from kafpy.coordinator.group.records import OffsetAndMetadata
from kafpy.coordinator.group.results import FetchedOffset
from kafpy.coordinator.group.service import GroupCoordinatorService

log = logging.getLogger("kafka.server.KafkaApis")

TopicPartition = tuple[str, int]
# a partition as a request named it: (topic name, "" for an unknown topic id; topic id, or
# the zero id where the request names topics; partition)
_Requested = tuple[str, bytes, int]


class _CommitPartition(Protocol):
    """A partition of an OffsetCommit or TxnOffsetCommit request."""

    @property
    def partition_index(self) -> int: ...


_PartitionT = TypeVar("_PartitionT", bound=_CommitPartition, covariant=True)
_ResponsePartitionT = TypeVar("_ResponsePartitionT")


class _CommitTopic(Protocol[_PartitionT]):
    """A topic of an OffsetCommit or TxnOffsetCommit request."""

    @property
    def name(self) -> str: ...

    @property
    def topic_id(self) -> bytes: ...

    @property
    def partitions(self) -> Sequence[_PartitionT]: ...


class _FetchTopic(Protocol):
    """A topic of an OffsetFetch request (v0-7 or a v8+ group's)."""

    @property
    def name(self) -> str: ...

    @property
    def partition_indexes(self) -> Sequence[int]: ...

# Authorized operations of a group without an authorizer: READ, DELETE, DESCRIBE.
_GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8)
_NO_OPERATIONS = -2147483648


def _service(ctx: RequestContext) -> GroupCoordinatorService:
    service = ctx.services.group_coordinator
    assert service is not None, "a broker serving group APIs has a group coordinator"
    return service


def _coordinator(ctx: RequestContext) -> GroupCoordinator:
    return _service(ctx).classic


def _now(ctx: RequestContext) -> int:
    return _service(ctx).now_ms()


def _client_host(ctx: RequestContext) -> str:
    # Kafka reports InetAddress.toString(): "/127.0.0.1".
    host = ctx.client_host or ""
    return host if host.startswith("/") else "/" + host


# --------------------------------------------------------------------- FindCoordinator
async def handle_find_coordinator(ctx: RequestContext, req: FindCoordinatorRequest) -> FindCoordinatorResponse:
    v = ctx.api_version
    key_type = req.key_type if v >= 1 else 0

    def find(key: str, key_type: int) -> tuple[ErrorCode, int, str, int]:
        if key_type == 1:
            txn = ctx.services.txn_coordinator
            assert txn is not None, "a broker serving FindCoordinator has a transaction coordinator"
            err, node, host, port = txn.find_coordinator(key)
        elif key_type == 2:
            err, node, host, port = _share_coordinator(ctx, key)
        else:
            err, node, host, port = _service(ctx).find_coordinator(key, key_type)
        broker = next((b for b in ctx.services.metadata_cache.brokers() if b.node_id == node), None)
        if broker is not None:   # the endpoint of the listener this request came in on
            ep = broker.endpoint(ctx.listener)
            if ep is None:   # Kafka's getAliveBrokerNode finds no node on this listener
                return ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, "", -1
            host, port = ep
        return err, node, host, port

    if v < 4:
        err, node, host, port = find(req.key, key_type)
        return FindCoordinatorResponse(
            throttle_time_ms=0, error_code=err, error_message=None,
            node_id=node if err == ErrorCode.NONE else -1, host=host if err == ErrorCode.NONE else "",
            port=port if err == ErrorCode.NONE else -1)
    coordinators = []
    for key in req.coordinator_keys:
        err, node, host, port = find(key, key_type)
        coordinators.append(FindCoordinatorResponse.Coordinator(
            key=key, node_id=node if err == ErrorCode.NONE else -1, host=host if err == ErrorCode.NONE else "",
            port=port if err == ErrorCode.NONE else -1, error_code=err, error_message=None))
    return FindCoordinatorResponse(throttle_time_ms=0, coordinators=coordinators)


def _share_coordinator(ctx: RequestContext, key: str) -> tuple[ErrorCode, int, str, int]:
    """Key type 2 (SHARE): "group:topicId:partition" (Kafka's SharePartitionKey.validate:
    three parts, a topic id and an int partition, else INVALID_REQUEST)."""
    parts = key.rsplit(":", 2)
    if len(parts) != 3 or not parts[0] or not parts[1] or not parts[2].lstrip("-").isdigit():
        return ErrorCode.INVALID_REQUEST, -1, "", -1
    service = ctx.services.share_coordinator
    if service is None:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, "", -1
    return service.find_coordinator(key)


# --------------------------------------------------------------------- JoinGroup
async def handle_join_group(ctx: RequestContext, req: JoinGroupRequest) -> JoinGroupResponse:
    _service(ctx).expire_due()   # session ends already due
    v = ctx.api_version
    instance = req.group_instance_id if v >= 5 else None
    coordinator = _coordinator(ctx)
    now = _now(ctx)
    fut = coordinator.join_group(
        req.group_id, req.member_id, instance,
        require_known_member_id=v >= 4 and instance is None,
        support_skipping_assignment=v >= 9,
        client_id=ctx.client_id, client_host=_client_host(ctx),
        rebalance_timeout_ms=req.session_timeout_ms if v == 0 else req.rebalance_timeout_ms,
        session_timeout_ms=req.session_timeout_ms,
        protocol_type=req.protocol_type,
        protocols=[(p.name, bytes(p.metadata)) for p in req.protocols],
        now_ms=now)
    if not fut.done() and coordinator.has_due(now):
        # a timer due at once (no initial rebalance delay): it fires after the requests
        # already read, as Kafka's 0 ms timer runs after the events already queued
        asyncio.get_running_loop().call_soon(_service(ctx).expire_due)
    r = await fut
    return JoinGroupResponse(
        throttle_time_ms=0, error_code=r.error, generation_id=r.generation_id,
        protocol_type=r.protocol_type if v >= 7 else None,
        protocol_name=r.protocol_name if v >= 7 else (r.protocol_name or ""),
        leader=r.leader, skip_assignment=r.skip_assignment, member_id=r.member_id,
        members=[JoinGroupResponse.JoinGroupResponseMember(member_id=mid, group_instance_id=iid, metadata=meta)
                 for mid, iid, meta in r.members])


# --------------------------------------------------------------------- SyncGroup
async def handle_sync_group(ctx: RequestContext, req: SyncGroupRequest) -> SyncGroupResponse:
    _service(ctx).expire_due()   # session ends already due
    v = ctx.api_version
    ptype = req.protocol_type if v >= 5 else None
    pname = req.protocol_name if v >= 5 else None
    if v >= 5 and (ptype is None or pname is None):
        return SyncGroupResponse(throttle_time_ms=0, error_code=ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
                                 protocol_type=None, protocol_name=None, assignment=b"")
    fut = _coordinator(ctx).sync_group(
        req.group_id, req.generation_id, req.member_id, ptype, pname,
        req.group_instance_id if v >= 3 else None,
        {a.member_id: bytes(a.assignment) for a in req.assignments}, _now(ctx))
    r = await fut
    return SyncGroupResponse(throttle_time_ms=0, error_code=r.error,
                             protocol_type=r.protocol_type if v >= 5 else None,
                             protocol_name=r.protocol_name if v >= 5 else None,
                             assignment=r.assignment)


# --------------------------------------------------------------------- Heartbeat
async def handle_heartbeat(ctx: RequestContext, req: HeartbeatRequest) -> HeartbeatResponse:
    _service(ctx).expire_due()   # session ends already due
    err = _coordinator(ctx).heartbeat(req.group_id, req.member_id,
                                      req.group_instance_id if ctx.api_version >= 3 else None,
                                      req.generation_id, _now(ctx))
    return HeartbeatResponse(throttle_time_ms=0, error_code=err)


# --------------------------------------------------------------------- LeaveGroup
async def handle_leave_group(ctx: RequestContext, req: LeaveGroupRequest) -> LeaveGroupResponse:
    _service(ctx).expire_due()   # session ends already due
    v = ctx.api_version
    if v < 3:
        members: list[tuple[str, str | None]] = [(req.member_id, None)]
    else:
        members = [(m.member_id, m.group_instance_id) for m in req.members]
    err, results = _coordinator(ctx).leave_group(req.group_id, members, _now(ctx))
    if v < 3:
        if err == ErrorCode.NONE and results:
            err = results[0][2]
        return LeaveGroupResponse(throttle_time_ms=0, error_code=err)
    return LeaveGroupResponse(
        throttle_time_ms=0, error_code=err,
        members=[LeaveGroupResponse.MemberResponse(member_id=mid, group_instance_id=iid, error_code=e) for mid, iid, e in results])


# --------------------------------------------------------------------- DescribeGroups
async def handle_describe_groups(ctx: RequestContext, req: DescribeGroupsRequest) -> DescribeGroupsResponse:
    _service(ctx).expire_due()   # session ends already due
    coord = _coordinator(ctx)
    with_ops = ctx.api_version >= 3 and req.include_authorized_operations
    D, DM = DescribeGroupsResponse.DescribedGroup, DescribeGroupsResponse.DescribedGroupMember
    groups = []
    for gid in req.groups:
        s = coord.describe_group(gid)
        message = None
        if ctx.api_version >= 6 and s.error == ErrorCode.NONE and s.state == "Dead" and not s.members:
            # v6 (KIP-1043) names a group that does not exist instead of describing it Dead
            s.error, message = ErrorCode.GROUP_ID_NOT_FOUND, s.message or f"Group {gid} not found."
        groups.append(D(
            error_code=s.error, error_message=message, group_id=gid, group_state=s.state,
            protocol_type=s.protocol_type,
            protocol_data=s.protocol,
            members=[DM(member_id=m.member_id, group_instance_id=m.group_instance_id,
                        client_id=m.client_id, client_host=m.client_host,
                        member_metadata=m.metadata, member_assignment=m.assignment)
                     for m in s.members],
            authorized_operations=_GROUP_OPERATIONS if with_ops else _NO_OPERATIONS))
    return DescribeGroupsResponse(throttle_time_ms=0, groups=groups)


# --------------------------------------------------------------------- ListGroups
async def handle_list_groups(ctx: RequestContext, req: ListGroupsRequest) -> ListGroupsResponse:
    _service(ctx).expire_due()   # session ends already due
    v = ctx.api_version
    err, groups = _coordinator(ctx).list_groups(
        req.states_filter if v >= 4 else None, req.types_filter if v >= 5 else None)
    return ListGroupsResponse(
        throttle_time_ms=0, error_code=err,
        groups=[ListGroupsResponse.ListedGroup(group_id=g.group_id, protocol_type=g.protocol_type, group_state=g.state,
                                               group_type=g.group_type) for g in groups])


# --------------------------------------------------------------------- OffsetCommit
def _partition_exists(ctx: RequestContext, topic: str, partition: int) -> bool:
    info = ctx.services.metadata_cache.topic(topic)
    return info is not None and partition in info.partitions


def _requested_offsets(ctx: RequestContext, topics: Iterable[_CommitTopic[_PartitionT]],
                       make: Callable[[_PartitionT], OffsetAndMetadata], uses_ids: bool = False
                       ) -> tuple[list[_Requested], dict[TopicPartition, OffsetAndMetadata], dict[TopicPartition, int]]:
    """(partitions in request order, offsets to commit, UNKNOWN_TOPIC_OR_PARTITION errors)
    of an OffsetCommit or TxnOffsetCommit; ``make(partition)`` builds an OffsetAndMetadata.
    With ``uses_ids`` (OffsetCommit v10, TxnOffsetCommit v6) topics are named by id, and an
    id this broker does not know answers UNKNOWN_TOPIC_ID."""
    md = ctx.services.metadata_cache
    offsets: dict[tuple[str, int], OffsetAndMetadata] = {}
    errors: dict[tuple[str, int], int] = {}
    order: list[_Requested] = []
    for t in topics:
        if uses_ids:
            name, topic_id = md.topic_name(t.topic_id) or "", t.topic_id
        else:
            name, topic_id = t.name, ZERO_UUID
        for p in t.partitions:
            order.append((name, topic_id, p.partition_index))
            tp = (name, p.partition_index)
            if uses_ids and not name:
                errors[tp] = ErrorCode.UNKNOWN_TOPIC_ID
            elif not _partition_exists(ctx, name, p.partition_index):
                errors[tp] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            else:
                offsets[tp] = om = make(p)
                om.topic_id = topic_id   # kept in OffsetCommitValue v4, as Kafka 4.4 does
    return order, offsets, errors


def _by_topic(order: list[_Requested], errors: dict[TopicPartition, int],
              make: Callable[..., _ResponsePartitionT]) -> dict[tuple[str, bytes], list[_ResponsePartitionT]]:
    """The answers per (topic name, topic id) in request order: an unknown topic id is its
    own topic, named ""."""
    topics: dict[tuple[str, bytes], list[_ResponsePartitionT]] = {}
    for name, topic_id, part in order:
        topics.setdefault((name, topic_id), []).append(make(partition_index=part, error_code=errors[(name, part)]))
    return topics


async def handle_offset_commit(ctx: RequestContext, req: OffsetCommitRequest) -> OffsetCommitResponse:
    _service(ctx).expire_due()   # session ends already due
    v = ctx.api_version
    now = _now(ctx)
    retention = req.retention_time_ms if 2 <= v <= 4 else -1
    order, offsets, errors = _requested_offsets(ctx, req.topics, lambda p: OffsetAndMetadata(
        offset=p.committed_offset,
        leader_epoch=p.committed_leader_epoch if v >= 6 else -1,
        metadata=p.committed_metadata if p.committed_metadata is not None else "",
        commit_timestamp=p.commit_timestamp if v == 1 and p.commit_timestamp != -1 else now,
        expire_timestamp=now + retention if retention != -1 else -1), uses_ids=v >= 10)
    if offsets:
        errors.update(await _coordinator(ctx).commit_offsets(
            req.group_id, req.member_id if v >= 1 else "",
            req.group_instance_id if v >= 7 else None,
            req.generation_id_or_member_epoch if v >= 1 else -1, offsets, now, api_version=v))
    topics = _by_topic(order, errors, OffsetCommitResponse.OffsetCommitResponsePartition)
    return OffsetCommitResponse(throttle_time_ms=0, topics=[
        OffsetCommitResponse.OffsetCommitResponseTopic(name=n, topic_id=tid, partitions=ps)
        for (n, tid), ps in topics.items()])


# --------------------------------------------------------------------- TxnOffsetCommit
async def _add_offsets_partition(ctx: RequestContext, req: TxnOffsetCommitRequest) -> ErrorCode:
    """TxnOffsetCommit v5 (transaction version 2): the client sent no AddOffsetsToTxn, so
    the group's `__consumer_offsets` partition is added to the transaction first, as
    Kafka's group coordinator does through AddPartitionsToTxnManager. Errors as the
    client sees them: PRODUCER_FENCED as INVALID_PRODUCER_EPOCH, what to retry as
    COORDINATOR_NOT_AVAILABLE."""
    verifier = ctx.services.txn_verifier
    if verifier is None:
        return ErrorCode.NONE
    partition = (GROUP_METADATA_TOPIC_NAME, _coordinator(ctx).partition_for(req.group_id))
    errors = await verifier.verify(req.transactional_id, req.producer_id, req.producer_epoch,
                                   [partition], add=True)
    error = errors.get(partition, ErrorCode.NONE)
    if error == ErrorCode.PRODUCER_FENCED:
        return ErrorCode.INVALID_PRODUCER_EPOCH
    if error in (ErrorCode.NETWORK_EXCEPTION, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR,
                 ErrorCode.CONCURRENT_TRANSACTIONS):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    return error


async def handle_txn_offset_commit(ctx: RequestContext, req: TxnOffsetCommitRequest) -> TxnOffsetCommitResponse:
    """Offsets committed inside the producer's transaction: pending until its marker."""
    v = ctx.api_version
    now = _now(ctx)
    order, offsets, errors = _requested_offsets(ctx, req.topics, lambda p: OffsetAndMetadata(
        offset=p.committed_offset, leader_epoch=p.committed_leader_epoch if v >= 2 else -1,
        metadata=p.committed_metadata if p.committed_metadata is not None else "", commit_timestamp=now),
        uses_ids=v >= 6)
    if offsets and v >= 5:
        added = await _add_offsets_partition(ctx, req)
        if added != ErrorCode.NONE:
            errors.update({tp: added for tp in offsets})
            offsets = {}
    if offsets:
        errors.update(await _coordinator(ctx).txn_commit_offsets(
            req.group_id, req.producer_id, req.producer_epoch,
            req.member_id if v >= 3 else "", req.group_instance_id if v >= 3 else None,
            req.generation_id if v >= 3 else -1, offsets, now))
    topics = _by_topic(order, errors, TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition)
    return TxnOffsetCommitResponse(throttle_time_ms=0, topics=[
        TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic(name=n, topic_id=tid, partitions=ps)
        for (n, tid), ps in topics.items()])


# --------------------------------------------------------------------- OffsetFetch
def _fetch_group(ctx: RequestContext, group_id: str, topics: Iterable[_FetchTopic] | None, require_stable: bool,
                 member_id: str | None = None, member_epoch: int = -1
                 ) -> tuple[ErrorCode, dict[str, list[tuple[int, FetchedOffset]]]]:
    """(error, [(topic, [(partition, FetchedOffset)])]) in request order. v9+ names the
    member (a consumer-protocol group checks its epoch)."""
    wanted = None
    if topics is not None:
        wanted = [(t.name, p) for t in topics for p in t.partition_indexes]
    err, got = _coordinator(ctx).fetch_offsets(group_id, wanted, require_stable,
                                               member_id, member_epoch)
    by_topic: dict[str, list[tuple[int, FetchedOffset]]] = {}
    if err != ErrorCode.NONE:
        return err, by_topic
    for (topic, part), fo in (got.items() if wanted is None
                              else ((tp, got[tp]) for tp in wanted)):
        by_topic.setdefault(topic, []).append((part, fo))
    return err, by_topic


class _NamedFetchTopic:
    """An OffsetFetch v10 topic (named by id) with the name this broker knows it by."""

    __slots__ = ("name", "partition_indexes")

    def __init__(self, name: str, partition_indexes: Sequence[int]) -> None:
        self.name = name
        self.partition_indexes = partition_indexes


def _fetch_group_by_ids(ctx: RequestContext, g: OffsetFetchRequest.OffsetFetchRequestGroup, require_stable: bool
                        ) -> tuple[ErrorCode, list[OffsetFetchResponse.OffsetFetchResponseTopics]]:
    """One group of an OffsetFetch v10 (KIP-848: topics named by id), as Kafka answers it:
    an id this broker does not know is UNKNOWN_TOPIC_ID for each partition asked; offsets of
    every topic (no topics asked) leave out the topics that no longer exist."""
    md = ctx.services.metadata_cache
    T, P = OffsetFetchResponse.OffsetFetchResponseTopics, OffsetFetchResponse.OffsetFetchResponsePartitions
    known: list[_FetchTopic] | None = None
    unknown: list[OffsetFetchResponse.OffsetFetchResponseTopics] = []
    if g.topics is not None:
        known = []
        for t in g.topics:
            name = md.topic_name(t.topic_id)
            if name is None:
                unknown.append(T(topic_id=t.topic_id, partitions=[
                    P(partition_index=p, committed_offset=-1, committed_leader_epoch=-1, metadata="",
                      error_code=ErrorCode.UNKNOWN_TOPIC_ID) for p in t.partition_indexes]))
            else:
                known.append(_NamedFetchTopic(name, t.partition_indexes))
    err, by_topic = _fetch_group(ctx, g.group_id, known, require_stable, g.member_id, g.member_epoch)
    out = []
    for name, parts in by_topic.items():
        info = md.topic(name)
        if info is None:
            continue
        if known is not None:   # asked by id: an offset committed for another topic of that name is none
            parts = [(p, _NO_OFFSET if _committed_for_another_topic(fo, info.topic_id) else fo) for p, fo in parts]
        out.append(T(topic_id=info.topic_id, partitions=[
            P(partition_index=p, committed_offset=fo.offset, committed_leader_epoch=fo.leader_epoch,
              metadata=fo.metadata, error_code=fo.error) for p, fo in parts]))
    return err, out + unknown


_NO_OFFSET = FetchedOffset(-1, -1, "")


def _committed_for_another_topic(fo: FetchedOffset, topic_id: bytes) -> bool:
    """The offset was committed by id for a topic of the same name that has since been
    deleted and created again (Kafka 4.4's ``isMismatchedTopicId``): a consumer asking by
    the new topic's id must not resume at the old topic's position. Commits by name carry
    no id and always match."""
    return fo.error == ErrorCode.NONE and fo.topic_id != ZERO_UUID and topic_id != ZERO_UUID \
        and fo.topic_id != topic_id


async def handle_offset_fetch(ctx: RequestContext, req: OffsetFetchRequest) -> OffsetFetchResponse:
    v = ctx.api_version
    if v >= 10:
        groups = []
        for g in req.groups:
            err, topics_out = _fetch_group_by_ids(ctx, g, req.require_stable)
            groups.append(OffsetFetchResponse.OffsetFetchResponseGroup(
                group_id=g.group_id, error_code=err, topics=[] if err else topics_out))
        return OffsetFetchResponse(throttle_time_ms=0, groups=groups)
    if v >= 8:
        groups = []
        for g in req.groups:
            err, by_topic = _fetch_group(ctx, g.group_id, g.topics, req.require_stable,
                                         g.member_id if v >= 9 else None,
                                         g.member_epoch if v >= 9 else -1)
            groups.append(OffsetFetchResponse.OffsetFetchResponseGroup(
                group_id=g.group_id, error_code=err,
                topics=[OffsetFetchResponse.OffsetFetchResponseTopics(name=t, partitions=[
                    OffsetFetchResponse.OffsetFetchResponsePartitions(
                        partition_index=p, committed_offset=fo.offset,
                        committed_leader_epoch=fo.leader_epoch, metadata=fo.metadata,
                        error_code=fo.error)
                    for p, fo in parts]) for t, parts in by_topic.items()]))
        return OffsetFetchResponse(throttle_time_ms=0, groups=groups)
    topics = req.topics if v >= 2 else (req.topics or [])
    err, by_topic = _fetch_group(ctx, req.group_id, topics, v >= 7 and req.require_stable)
    if err != ErrorCode.NONE and v < 2 and topics:
        # No top-level error before v2: each requested partition carries it.
        return OffsetFetchResponse(throttle_time_ms=0, topics=[
            OffsetFetchResponse.OffsetFetchResponseTopic(name=t.name, partitions=[
                OffsetFetchResponse.OffsetFetchResponsePartition(partition_index=p, committed_offset=-1,
                                                                 committed_leader_epoch=-1, metadata="",
                                                                 error_code=err)
                for p in t.partition_indexes]) for t in topics])
    return OffsetFetchResponse(
        throttle_time_ms=0, error_code=err,
        topics=[OffsetFetchResponse.OffsetFetchResponseTopic(name=t, partitions=[
            OffsetFetchResponse.OffsetFetchResponsePartition(
                partition_index=p, committed_offset=fo.offset,
                committed_leader_epoch=fo.leader_epoch, metadata=fo.metadata,
                error_code=fo.error)
            for p, fo in parts]) for t, parts in by_topic.items()])


# --------------------------------------------------------------------- DeleteGroups
async def handle_delete_groups(ctx: RequestContext, req: DeleteGroupsRequest) -> DeleteGroupsResponse:
    _service(ctx).expire_due()   # session ends already due
    names = list(dict.fromkeys(req.groups_names))
    share = _service(ctx).share
    # share groups: their share state is deleted first, a failure answered as Kafka does
    failed = {} if share is None else await share.delete_groups_state(names, _now(ctx))
    result = _coordinator(ctx).delete_groups([g for g in names if g not in failed], _now(ctx))
    result.update(failed)
    return DeleteGroupsResponse(throttle_time_ms=0,
                                results=[DeleteGroupsResponse.DeletableGroupResult(group_id=g, error_code=result[g]) for g in names])


# --------------------------------------------------------------------- OffsetDelete
async def handle_offset_delete(ctx: RequestContext, req: OffsetDeleteRequest) -> OffsetDeleteResponse:
    _service(ctx).expire_due()   # session ends already due
    known: list[tuple[str, int]] = []
    errors: dict[tuple[str, int], int] = {}
    order: list[tuple[str, int]] = []
    for t in req.topics:
        for p in t.partitions:
            tp = (t.name, p.partition_index)
            order.append(tp)
            if _partition_exists(ctx, t.name, p.partition_index):
                known.append(tp)
            else:
                errors[tp] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    err, res = _coordinator(ctx).delete_offsets(req.group_id, known, _now(ctx))
    if err != ErrorCode.NONE:
        return OffsetDeleteResponse(error_code=err, throttle_time_ms=0, topics=[])
    errors.update(res)
    T, P = OffsetDeleteResponse.OffsetDeleteResponseTopic, OffsetDeleteResponse.OffsetDeleteResponsePartition
    topics: dict[str, list] = {}
    for name, part in order:
        topics.setdefault(name, []).append(P(partition_index=part, error_code=errors[(name, part)]))
    return OffsetDeleteResponse(error_code=ErrorCode.NONE, throttle_time_ms=0,
                                topics=[T(name=n, partitions=ps) for n, ps in topics.items()])


HANDLERS = [
    Handler(ApiKey.OFFSET_COMMIT, 0, 10, handle_offset_commit),
    Handler(ApiKey.OFFSET_FETCH, 0, 10, handle_offset_fetch),
    Handler(ApiKey.FIND_COORDINATOR, 0, 6, handle_find_coordinator),
    Handler(ApiKey.JOIN_GROUP, 0, 9, handle_join_group),
    Handler(ApiKey.HEARTBEAT, 0, 4, handle_heartbeat),
    Handler(ApiKey.LEAVE_GROUP, 0, 5, handle_leave_group),
    Handler(ApiKey.SYNC_GROUP, 0, 5, handle_sync_group),
    Handler(ApiKey.DESCRIBE_GROUPS, 0, 6, handle_describe_groups),
    Handler(ApiKey.LIST_GROUPS, 0, 5, handle_list_groups),
    Handler(ApiKey.DELETE_GROUPS, 0, 3, handle_delete_groups),
    Handler(ApiKey.OFFSET_DELETE, 0, 0, handle_offset_delete),
    Handler(ApiKey.TXN_OFFSET_COMMIT, 0, 6, handle_txn_offset_commit),
]
