"""Topic administration and cluster description: CreateTopics (19), DeleteTopics (20),
CreatePartitions (37), DeleteRecords (21), DescribeCluster (60), DescribeTopicPartitions (75),
DescribeLogDirs (35)."""
from __future__ import annotations

import logging
import os
import shutil

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (CreatePartitionsResponse, CreateTopicsResponse, DeleteRecordsResponse,
                               DeleteTopicsResponse, DescribeClusterResponse, DescribeLogDirsResponse,
                               DescribeTopicPartitionsResponse)
from kafpy.protocol.messages import (CreatePartitionsRequest, CreateTopicsRequest, DeleteRecordsRequest,
    DeleteTopicsRequest, DescribeClusterRequest, DescribeLogDirsRequest, DescribeTopicPartitionsRequest)
from kafpy.storage.errors import StorageError

from kafpy.protocol.topics import INTERNAL_TOPICS
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.message_base import ZERO_UUID

from kafpy.broker.handler import Handler, RequestContext
from kafpy.replication.metadata_cache import TopicError
from kafpy.broker.handlers.configs import topic_config_entry
from kafpy.broker.topic_config import TOPIC_CONFIGS, InvalidConfig, validate_topic_configs

log = logging.getLogger("kafka.server.KafkaApis")



def not_the_controller(ctx: RequestContext) -> bool:
    """ZooKeeper mode: topic changes are answered only by the active controller; the others
    say NOT_CONTROLLER for every topic and the client asks again where Metadata points."""
    cc = ctx.services.cluster_controller
    return cc is not None and not cc.is_active


# -- CreateTopics ------------------------------------------------------------------------
async def handle_create_topics(ctx: RequestContext, req: CreateTopicsRequest) -> CreateTopicsResponse:
    s = ctx.services
    v = ctx.api_version
    results = []
    if not_the_controller(ctx):
        return CreateTopicsResponse(throttle_time_ms=0, topics=[CreateTopicsResponse.CreatableTopicResult(name=t.name, error_code=ErrorCode.NOT_CONTROLLER)
                                                                for t in req.topics])
    seen: dict[str, int] = {}
    for t in req.topics:
        seen[t.name] = seen.get(t.name, 0) + 1
    for t in req.topics:
        res = CreateTopicsResponse.CreatableTopicResult(name=t.name, error_code=ErrorCode.NONE, error_message=None,
                                                        num_partitions=-1, replication_factor=-1, configs=None)
        results.append(res)
        if seen[t.name] > 1:
            res.error_code, res.error_message = ErrorCode.INVALID_REQUEST, f"Create topics request from client `{ctx.client_id}` contains multiple entries for the following topics: {t.name}"
            continue
        configs = {c.name: c.value for c in t.configs}
        try:
            validate_topic_configs(configs)
        except InvalidConfig as e:
            res.error_code, res.error_message = ErrorCode.INVALID_CONFIG, str(e)
            continue
        topic_configs = {k: v_ for k, v_ in configs.items() if v_ is not None}
        if t.assignments and (t.num_partitions != -1 or t.replication_factor != -1):
            res.error_code = ErrorCode.INVALID_REQUEST
            res.error_message = "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time."
            continue
        parts = t.num_partitions if t.num_partitions != -1 else s.config["num.partitions"]
        rf = t.replication_factor if t.replication_factor != -1 else s.config["default.replication.factor"]
        assignments = {a.partition_index: list(a.broker_ids) for a in t.assignments} or None
        try:
            info = await s.controller.create_topic(t.name, parts, rf, topic_configs, assignments,
                                                   validate_only=req.validate_only)
        except TopicError as e:
            res.error_code, res.error_message = e.error_code, e.message
            continue
        res.topic_id = info.topic_id if not req.validate_only else ZERO_UUID
        res.num_partitions = len(info.partitions)
        res.replication_factor = info.replication_factor
        if v >= 5:
            res.configs = _created_configs(ctx, topic_configs)
    return CreateTopicsResponse(throttle_time_ms=0, topics=results)


def _created_configs(ctx: RequestContext, overrides: dict[str, str]) -> list:
    out = []
    for name in sorted(TOPIC_CONFIGS):
        val, src, _ = topic_config_entry(ctx.services.config, name, overrides)
        out.append(CreateTopicsResponse.CreatableTopicConfigs(name=name, value=val, read_only=False, config_source=src,
                                                              is_sensitive=False))
    return out


# -- DeleteTopics ------------------------------------------------------------------------
async def handle_delete_topics(ctx: RequestContext, req: DeleteTopicsRequest) -> DeleteTopicsResponse:
    s = ctx.services
    md = s.metadata_cache
    v = ctx.api_version
    wanted: list[tuple[str | None, bytes]] = []
    if v >= 6:
        wanted = [(t.name, t.topic_id) for t in req.topics]
    else:
        wanted = [(n, ZERO_UUID) for n in req.topic_names]
    out = []
    for name, tid in wanted:
        res = DeleteTopicsResponse.DeletableTopicResult(name=name, topic_id=tid, error_code=ErrorCode.NONE, error_message=None)
        out.append(res)
        if not_the_controller(ctx):
            res.error_code = ErrorCode.NOT_CONTROLLER
            continue
        if name is None and tid == ZERO_UUID or name is not None and tid != ZERO_UUID:
            res.error_code, res.error_message = ErrorCode.INVALID_REQUEST, "Neither or both topic name and id were set"
            continue
        if not s.config["delete.topic.enable"]:
            res.error_code = ErrorCode.TOPIC_DELETION_DISABLED
            continue
        info = md.topic(name) if name is not None else md.topic_by_id(tid)
        if info is None:
            res.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION if name is not None else ErrorCode.UNKNOWN_TOPIC_ID
            continue
        res.name, res.topic_id = info.name, info.topic_id
        if info.name in INTERNAL_TOPICS:
            res.error_code, res.error_message = ErrorCode.INVALID_TOPIC_EXCEPTION, f"Topic {info.name} is internal and cannot be deleted"
            continue
        try:
            await s.controller.delete_topic(info.name)
        except TopicError as e:  # deleted meanwhile by another request
            res.error_code, res.error_message = e.error_code, e.message
    return DeleteTopicsResponse(throttle_time_ms=0, responses=out)


# -- CreatePartitions ---------------------------------------------------------------------
async def handle_create_partitions(ctx: RequestContext, req: CreatePartitionsRequest) -> CreatePartitionsResponse:
    s = ctx.services
    out = []
    for t in req.topics:
        res = CreatePartitionsResponse.CreatePartitionsTopicResult(name=t.name, error_code=ErrorCode.NONE, error_message=None)
        out.append(res)
        if not_the_controller(ctx):
            res.error_code = ErrorCode.NOT_CONTROLLER
            continue
        current = s.metadata_cache.topic(t.name)
        added = t.count - (len(current.partitions) if current is not None else 0)
        try:
            if t.assignments is not None and len(t.assignments) != added:
                raise TopicError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, f"Increasing the number of partitions by {added} "
                                                               f"but {len(t.assignments)} assignments provided.")
            await s.controller.create_partitions(t.name, t.count, validate_only=req.validate_only)
        except TopicError as e:
            res.error_code, res.error_message = e.error_code, e.message
    return CreatePartitionsResponse(throttle_time_ms=0, results=out)


# -- DeleteRecords -------------------------------------------------------------------------
async def handle_delete_records(ctx: RequestContext, req: DeleteRecordsRequest) -> DeleteRecordsResponse:
    rm = ctx.services.replica_manager
    topics = []
    for t in req.topics:
        parts = []
        for p in t.partitions:
            pr = DeleteRecordsResponse.DeleteRecordsPartitionResult(partition_index=p.partition_index, low_watermark=-1, error_code=ErrorCode.NONE)
            parts.append(pr)
            part = rm.get_partition(t.name, p.partition_index)
            if part is None:
                pr.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                continue
            if not part.is_leader:
                pr.error_code = ErrorCode.NOT_LEADER_OR_FOLLOWER
                continue
            lg = part.log
            off = lg.high_watermark if p.offset == -1 else p.offset
            if off < 0 or off > lg.high_watermark:
                pr.error_code = ErrorCode.OFFSET_OUT_OF_RANGE
                continue
            try:
                pr.low_watermark = lg.delete_records_before(off)
            except StorageError as e:
                pr.error_code = e.error_code
        topics.append(DeleteRecordsResponse.DeleteRecordsTopicResult(name=t.name, partitions=parts))
    return DeleteRecordsResponse(throttle_time_ms=0, topics=topics)


# -- DescribeCluster ------------------------------------------------------------------------
async def handle_describe_cluster(ctx: RequestContext, req: DescribeClusterRequest) -> DescribeClusterResponse:
    md = ctx.services.metadata_cache
    if ctx.api_version >= 1 and req.endpoint_type != 1:
        return DescribeClusterResponse(throttle_time_ms=0, error_code=ErrorCode.MISMATCHED_ENDPOINT_TYPE, error_message="The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER",
                                       endpoint_type=1, cluster_id=md.cluster_id, controller_id=-1, brokers=[])
    # v2 (KIP-1073): IncludeFencedBrokers adds the registered brokers a KRaft controller has
    # fenced, each with IsFenced
    listed = [(x, False) for x in md.brokers()]
    if ctx.api_version >= 2 and req.include_fenced_brokers:
        listed += [(x, True) for x in md.fenced_brokers()]
    brokers = [DescribeClusterResponse.DescribeClusterBroker(broker_id=x.node_id, host=ep[0], port=ep[1], rack=x.rack,
                                                             is_fenced=fenced)
               for x, fenced in sorted(listed, key=lambda b: b[0].node_id) if (ep := x.endpoint(ctx.listener)) is not None]
    return DescribeClusterResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None, endpoint_type=1, cluster_id=md.cluster_id,
                                   controller_id=md.controller_id, brokers=brokers)


# -- DescribeTopicPartitions ---------------------------------------------------------------
async def handle_describe_topic_partitions(ctx: RequestContext, req: DescribeTopicPartitionsRequest) -> DescribeTopicPartitionsResponse:
    md = ctx.services.metadata_cache
    if req.topics:
        names = sorted({t.name for t in req.topics})
    else:
        names = sorted(md.topics())
    cursor = req.cursor
    if cursor is not None:
        names = [n for n in names if n >= cursor.topic_name]
    # the broker's max.request.partition.size.limit caps what a client may ask for (Kafka's rule)
    limit = max(1, min(req.response_partition_limit, ctx.services.config["max.request.partition.size.limit"]))
    out = []
    next_cursor = None
    budget = limit
    for name in names:
        info = md.topic(name)
        if info is None:
            out.append(DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic(error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name=name,
                                                                                            topic_id=ZERO_UUID, partitions=[]))
            continue
        start = cursor.partition_index if cursor is not None and cursor.topic_name == name else 0
        parts = []
        for p in sorted(info.partitions):
            if p < start:
                continue
            if budget == 0:
                next_cursor = DescribeTopicPartitionsResponse.Cursor(topic_name=name, partition_index=p)
                break
            pi = info.partitions[p]
            parts.append(DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponsePartition(
                error_code=ErrorCode.NONE, partition_index=p, leader_id=pi.leader, leader_epoch=pi.leader_epoch,
                replica_nodes=list(pi.replicas), isr_nodes=list(pi.isr), eligible_leader_replicas=[],
                last_known_elr=[], offline_replicas=list(pi.offline_replicas)))
            budget -= 1
        out.append(DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic(error_code=ErrorCode.NONE, name=name, topic_id=info.topic_id,
                                                                                        is_internal=info.is_internal, partitions=parts))
        if next_cursor is not None:
            break
    return DescribeTopicPartitionsResponse(throttle_time_ms=0, topics=out, next_cursor=next_cursor)


# -- DescribeLogDirs ------------------------------------------------------------------------
async def handle_describe_log_dirs(ctx: RequestContext, req: DescribeLogDirsRequest) -> DescribeLogDirsResponse:
    s = ctx.services
    wanted = None
    if req.topics is not None:
        wanted = {(t.topic, p) for t in req.topics for p in t.partitions}
    by_dir: dict[str, dict[str, list]] = {d: {} for d in s.config.log_dirs}
    for (topic, p), part in sorted(s.replica_manager.partitions.items()):
        if wanted is not None and (topic, p) not in wanted:
            continue
        lg = part.log
        parent = os.path.dirname(str(lg.dir).rstrip("/"))
        size = lg.size_in_bytes()
        key = parent if parent in by_dir else s.config.log_dirs[0]
        by_dir[key].setdefault(topic, []).append(DescribeLogDirsResponse.DescribeLogDirsPartition(
            partition_index=p, partition_size=size, offset_lag=0, is_future_key=False))
    results = []
    for d, topics in by_dir.items():
        try:
            usage = shutil.disk_usage(d)
            total, free = usage.total, usage.free
        except OSError:
            total = free = -1
        results.append(DescribeLogDirsResponse.DescribeLogDirsResult(
            error_code=ErrorCode.NONE, log_dir=d, total_bytes=total, usable_bytes=free,
            topics=[DescribeLogDirsResponse.DescribeLogDirsTopic(name=n, partitions=ps) for n, ps in sorted(topics.items())]))
    return DescribeLogDirsResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, results=results)


HANDLERS = [
    Handler(ApiKey.CREATE_TOPICS, 0, 7, handle_create_topics),
    Handler(ApiKey.DELETE_TOPICS, 0, 6, handle_delete_topics),
    Handler(ApiKey.CREATE_PARTITIONS, 0, 3, handle_create_partitions),
    Handler(ApiKey.DELETE_RECORDS, 0, 2, handle_delete_records),
    Handler(ApiKey.DESCRIBE_CLUSTER, 0, 2, handle_describe_cluster),
    Handler(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0, 0, handle_describe_topic_partitions),
    Handler(ApiKey.DESCRIBE_LOG_DIRS, 0, 5, handle_describe_log_dirs),
]

