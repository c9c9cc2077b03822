"""The Streams group protocol of Kafka 4 (KIP-1071): StreamsGroupHeartbeat (88) and
StreamsGroupDescribe (89), v0-1.

Thin glue between decoded requests and the StreamsGroupCoordinator attached to the
group coordinator (`services.group_coordinator.streams`; None when
`group.coordinator.rebalance.protocols` leaves "streams" out). Both APIs need the
cluster's streams.version at 1 (broker/features.py); below it, or without the
coordinator, they answer UNSUPPORTED_VERSION as Kafka does.

The coordinator names the internal topics (repartition, changelog) a group's topology
needs and that do not exist yet; they are created here in the background, as Kafka's
KafkaApis hands them to its AutoTopicCreationManager, and the heartbeat is answered at
once (members hear MISSING_INTERNAL_TOPICS until the topics exist).
"""
from __future__ import annotations

import asyncio
import logging
import weakref
from typing import TYPE_CHECKING, Callable, TypeVar

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import StreamsGroupDescribeResponse, StreamsGroupHeartbeatResponse
from kafpy.protocol.messages import StreamsGroupDescribeRequest, StreamsGroupHeartbeatRequest
from kafpy.protocol.topics import INTERNAL_TOPICS, InvalidTopicName, validate_topic_name

from kafpy.broker.authz_check import unauthorized_to_create
from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.handlers.modern_group import authorized_operations, client_host, group_service, streams_coordinator
from kafpy.coordinator.group.streams.group import Tasks, TaskSet
from kafpy.coordinator.group.streams.topology import MISSING_INTERNAL_TOPICS, TopicInfo, from_request

if TYPE_CHECKING:
    from kafpy.broker.services import BrokerServices

log = logging.getLogger("kafka.server.AutoTopicCreationManager")
_StructT = TypeVar("_StructT")

_UNSUPPORTED = "The streams group protocol is not enabled on this cluster (streams.version)."

# internal topics being created, per broker (its services), so that the heartbeats of
# many members ask for each only once
_creating: "weakref.WeakKeyDictionary[BrokerServices, set[str]]" = weakref.WeakKeyDictionary()


def _task_set(items: list[StreamsGroupHeartbeatRequest.TaskIds] | None) -> TaskSet:
    return {t.subtopology_id: set(t.partitions) for t in items or () if t.partitions}


def _owned(req: StreamsGroupHeartbeatRequest) -> Tasks | None:
    if req.active_tasks is None and req.standby_tasks is None and req.warmup_tasks is None:
        return None
    return Tasks(_task_set(req.active_tasks), _task_set(req.standby_tasks),
                 _task_set(req.warmup_tasks))


def _task_offsets(items: list[StreamsGroupHeartbeatRequest.TaskOffset] | None) -> dict[tuple[str, int], int] | None:
    """TaskOffsets / TaskEndOffsets of a heartbeat (None: unchanged since the last one)."""
    if items is None:
        return None
    return {(o.subtopology_id, o.partition): o.offset for o in items}


def _task_offset_list(cls: Callable[..., _StructT], offsets: dict[tuple[str, int], int]) -> list[_StructT]:
    return [cls(subtopology_id=s, partition=p, offset=off)
            for (s, p), off in sorted(offsets.items())]


def _task_ids(cls: Callable[..., _StructT], t: TaskSet) -> list[_StructT]:
    return [cls(subtopology_id=s, partitions=sorted(ps)) for s, ps in sorted(t.items()) if ps]


def _invalid_topology(topology: StreamsGroupHeartbeatRequest.Topology) -> str | None:
    """Why a topology is STREAMS_INVALID_TOPOLOGY before it reaches the coordinator
    (Kafka's KafkaApis: Kafka's own internal topics, then illegal names)."""
    names: list[str] = []
    for s in topology.subtopologies:
        names += [*s.source_topics, *s.repartition_sink_topics,
                  *(t.name for t in s.repartition_source_topics),
                  *(t.name for t in s.state_changelog_topics)]
    names = list(dict.fromkeys(names))
    internal = [n for n in names if n in INTERNAL_TOPICS]
    if internal:
        return f"Use of Kafka internal topics {','.join(internal)} in a Kafka Streams topology is prohibited."
    invalid = []
    for n in names:
        try:
            validate_topic_name(n)
        except InvalidTopicName:
            invalid.append(n)
    if invalid:
        return f"Topic names {','.join(invalid)} are not valid topic names."
    return None


def create_internal_topics(ctx: RequestContext, topics: list[TopicInfo]) -> None:
    """Create the missing internal topics in the background (each once at a time)."""
    s = ctx.services
    creating = _creating.setdefault(s, set())
    for t in topics:
        if t.name in creating or s.metadata_cache.topic(t.name) is not None:
            continue
        creating.add(t.name)
        live = max(1, len(s.metadata_cache.brokers()))
        rf = t.replication_factor if t.replication_factor > 0 else min(
            s.config["default.replication.factor"], live)

        async def create(t: TopicInfo = t, rf: int = rf) -> None:
            try:
                await s.controller.auto_create_topic(t.name, t.partitions, rf, dict(t.configs))
                log.info("Created internal topic %s of a streams group with %d partitions",
                         t.name, t.partitions)
            except Exception as e:  # noqa: BLE001 - the next heartbeat asks again
                log.info("Could not create internal topic %s: %s", t.name, e)
            finally:
                creating.discard(t.name)
        asyncio.get_running_loop().create_task(create())


def _unauthorized_status(status: list[tuple[int, str]], refused: list[str]) -> list[tuple[int, str]]:
    """MISSING_INTERNAL_TOPICS saying which topics the caller may not create (appended to the
    status the coordinator gave, as Kafka words it)."""
    why = f"Unauthorized to CREATE on topics {', '.join(refused)}."
    for i, (code, detail) in enumerate(status):
        if code == MISSING_INTERNAL_TOPICS:
            return [*status[:i], (code, f"{detail}; {why}"), *status[i + 1:]]
    return [*status, (MISSING_INTERNAL_TOPICS, why)]


async def handle_streams_group_heartbeat(ctx: RequestContext, req: StreamsGroupHeartbeatRequest) -> StreamsGroupHeartbeatResponse:
    group_service(ctx).expire_due()   # session ends already due
    streams = streams_coordinator(ctx)
    if streams is None:
        return StreamsGroupHeartbeatResponse(throttle_time_ms=0, error_code=ErrorCode.UNSUPPORTED_VERSION, error_message=_UNSUPPORTED,
                                             member_id="", member_epoch=0, heartbeat_interval_ms=0, status=None)
    if req.topology is not None:
        reason = _invalid_topology(req.topology)
        if reason is not None:
            return StreamsGroupHeartbeatResponse(throttle_time_ms=0, error_code=ErrorCode.STREAMS_INVALID_TOPOLOGY,
                                                 error_message=reason, member_id="", member_epoch=0,
                                                 heartbeat_interval_ms=0, status=None)
    endpoint = None
    if req.user_endpoint is not None:
        endpoint = (req.user_endpoint.host, req.user_endpoint.port)
    tags = None if req.client_tags is None else {kv.key: kv.value for kv in req.client_tags}
    fut = streams.heartbeat(
        req.group_id, req.member_id, req.member_epoch,
        endpoint_information_epoch=req.endpoint_information_epoch,
        instance_id=req.instance_id, rack_id=req.rack_id,
        rebalance_timeout_ms=req.rebalance_timeout_ms,
        topology=None if req.topology is None else from_request(req.topology),
        owned=_owned(req), process_id=req.process_id, user_endpoint=endpoint,
        client_tags=tags, shutdown_application=req.shutdown_application,
        client_id=ctx.client_id or "", client_host=client_host(ctx),
        task_offsets=_task_offsets(req.task_offsets),
        task_end_offsets=_task_offsets(req.task_end_offsets),
        now_ms=group_service(ctx).now_ms())
    r = await fut
    status = list(r.status or [])
    if r.topics_to_create:
        refused = unauthorized_to_create(ctx, sorted(t.name for t in r.topics_to_create))
        if refused:
            # Kafka 4.4 (KAFKA-18613): nothing is created; the members hear why
            status = _unauthorized_status(status, refused)
        else:
            create_internal_topics(ctx, r.topics_to_create)
    ok = r.error == ErrorCode.NONE
    lag = streams.acceptable_recovery_lag(req.group_id)
    out = StreamsGroupHeartbeatResponse(throttle_time_ms=0, error_code=r.error, error_message=r.message,
                                        # an error carries the data's defaults, as Kafka's error responses do
                                        member_id=(r.member_id or req.member_id) if ok else "",
                                        member_epoch=r.member_epoch if ok else 0,
                                        heartbeat_interval_ms=r.heartbeat_interval_ms if ok else 0,
                                        acceptable_recovery_lag_legacy=min(lag, 2**31 - 1), acceptable_recovery_lag=lag,
                                        task_offset_interval_ms=streams.task_offset_interval_ms(req.group_id),
                                        status=[StreamsGroupHeartbeatResponse.Status(status_code=c, status_detail=d) for c, d in status] if ok else None,
                                        endpoint_information_epoch=r.endpoint_information_epoch)
    if ok and r.tasks is not None:
        out.active_tasks = _task_ids(StreamsGroupHeartbeatResponse.TaskIds, r.tasks.active)
        out.standby_tasks = _task_ids(StreamsGroupHeartbeatResponse.TaskIds, r.tasks.standby)
        out.warmup_tasks = _task_ids(StreamsGroupHeartbeatResponse.TaskIds, r.tasks.warmup)
    if ok and r.partitions_by_endpoint is not None:
        out.partitions_by_user_endpoint = [StreamsGroupHeartbeatResponse.EndpointToPartitions(
            user_endpoint=StreamsGroupHeartbeatResponse.Endpoint(host=host, port=port),
            active_partitions=[StreamsGroupHeartbeatResponse.TopicPartition(topic=t, partitions=sorted(ps))
                               for t, ps in sorted(active.items())],
            standby_partitions=[StreamsGroupHeartbeatResponse.TopicPartition(topic=t, partitions=sorted(ps))
                                for t, ps in sorted(standby.items())])
            for host, port, active, standby in r.partitions_by_endpoint]
    return out


async def handle_streams_group_describe(ctx: RequestContext, req: StreamsGroupDescribeRequest) -> StreamsGroupDescribeResponse:
    group_service(ctx).expire_due()   # session ends already due
    streams = streams_coordinator(ctx)
    groups = []
    for gid in req.group_ids:
        if streams is None:
            groups.append(StreamsGroupDescribeResponse.DescribedGroup(error_code=ErrorCode.UNSUPPORTED_VERSION, error_message=_UNSUPPORTED,
                                                                      group_id=gid, group_state="", group_epoch=-1,
                                                                      assignment_epoch=-1, members=[]))
            continue
        d = streams.describe(gid)
        if d.error != ErrorCode.NONE:
            groups.append(StreamsGroupDescribeResponse.DescribedGroup(error_code=d.error, error_message=d.message, group_id=gid,
                                                                      group_state="", group_epoch=-1, assignment_epoch=-1,
                                                                      members=[]))
            continue

        def assignment(t: Tasks) -> StreamsGroupDescribeResponse.Assignment:
            return StreamsGroupDescribeResponse.Assignment(active_tasks=_task_ids(StreamsGroupDescribeResponse.TaskIds, t.active),
                                                           standby_tasks=_task_ids(StreamsGroupDescribeResponse.TaskIds, t.standby),
                                                           warmup_tasks=_task_ids(StreamsGroupDescribeResponse.TaskIds, t.warmup))

        def info(x: TopicInfo) -> StreamsGroupDescribeResponse.TopicInfo:
            return StreamsGroupDescribeResponse.TopicInfo(name=x.name, partitions=x.partitions,
                                                          replication_factor=x.replication_factor,
                                                          topic_configs=[StreamsGroupDescribeResponse.KeyValue(key=k, value=v) for k, v in x.configs])

        topology = None
        if d.topology is not None:
            topology = StreamsGroupDescribeResponse.Topology(epoch=d.topology.epoch, subtopologies=[StreamsGroupDescribeResponse.Subtopology(
                subtopology_id=s.subtopology_id, source_topics=list(s.source_topics),
                repartition_sink_topics=list(s.repartition_sink_topics),
                state_changelog_topics=[info(x) for x in s.state_changelog_topics],
                repartition_source_topics=[info(x) for x in s.repartition_source_topics])
                for s in d.topology.subtopologies])
        members = [StreamsGroupDescribeResponse.Member(
            member_id=m.member_id, member_epoch=m.member_epoch, instance_id=m.instance_id,
            rack_id=m.rack_id, client_id=m.client_id, client_host=m.client_host,
            topology_epoch=m.topology_epoch, process_id=m.process_id,
            user_endpoint=None if m.user_endpoint is None else StreamsGroupDescribeResponse.Endpoint(
                host=m.user_endpoint[0], port=m.user_endpoint[1]),
            client_tags=[StreamsGroupDescribeResponse.KeyValue(key=k, value=v) for k, v in sorted(m.client_tags.items())],
            task_offsets=_task_offset_list(StreamsGroupDescribeResponse.TaskOffset, m.task_offsets),
            task_end_offsets=_task_offset_list(StreamsGroupDescribeResponse.TaskOffset, m.task_end_offsets),
            assignment=assignment(m.tasks),
            target_assignment=assignment(target), is_classic=False) for m, target in d.members]
        group = StreamsGroupDescribeResponse.DescribedGroup(
            error_code=ErrorCode.NONE, error_message=None, group_id=gid, group_state=d.state,
            group_epoch=d.group_epoch, assignment_epoch=d.assignment_epoch, topology=topology,
            members=members, authorized_operations=authorized_operations(req, ErrorCode.NONE))
        if ctx.api_version >= 1:
            group.assignor_name = streams.assignor_name
        groups.append(group)
    return StreamsGroupDescribeResponse(throttle_time_ms=0, groups=groups)


HANDLERS = [
    Handler(ApiKey.STREAMS_GROUP_HEARTBEAT, 0, 1, handle_streams_group_heartbeat),
    Handler(ApiKey.STREAMS_GROUP_DESCRIBE, 0, 1, handle_streams_group_describe),
]
