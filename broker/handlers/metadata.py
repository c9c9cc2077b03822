"""Metadata (3): brokers, cluster id, controller, and topics with their partitions; creates
unknown topics when ``auto.create.topics.enable`` is on and the request allows it."""
from __future__ import annotations

import logging
from typing import AbstractSet

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import MetadataResponse
from kafpy.protocol.messages import MetadataRequest
from kafpy.protocol.topics import INTERNAL_TOPICS, InvalidTopicName, validate_topic_name
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.message_base import ZERO_UUID

from kafpy.broker.handler import Handler, RequestContext
from kafpy.replication.metadata_cache import PartitionInfo, TopicError, TopicInfo
from kafpy.broker.metadata_responses import EncodedMetadataResponse, entry_cache, layout

log = logging.getLogger("kafka.server.KafkaApis")


def broker_entries(ctx: RequestContext) -> list:
    out = []
    for b in ctx.services.metadata_cache.brokers():
        ep = b.endpoint(ctx.listener)
        if ep is None:
            continue
        host, port = ep
        out.append(MetadataResponse.MetadataResponseBroker(node_id=b.node_id, host=host, port=port, rack=b.rack))
    return out


def partition_entry(index: int, pi: PartitionInfo, live: AbstractSet[int], version: int,
                    offline_here: int | None = None, unreachable: AbstractSet[int] = frozenset()
                    ) -> "MetadataResponse.MetadataResponsePartition":
    """ZkMetadataCache.getPartitionMetadata: a leader that is not a live broker is
    LEADER_NOT_AVAILABLE with leader -1, one live but without the request's listener
    (``unreachable``) LISTENER_NOT_FOUND with leader -1; v0 lists only live replicas and says
    REPLICA_NOT_AVAILABLE when some are missing. ``offline_here``: this broker's id when
    its replica is in a failed log dir (listed offline before the controller says so)."""
    replicas, isr, error = list(pi.replicas), list(pi.isr), ErrorCode.NONE
    if version == 0:
        replicas = [r for r in replicas if r in live]
        isr = [r for r in isr if r in live]
        if len(replicas) < len(pi.replicas) or len(isr) < len(pi.isr):
            error = ErrorCode.REPLICA_NOT_AVAILABLE
    leader = pi.leader
    if leader not in live:
        leader, error = -1, ErrorCode.LEADER_NOT_AVAILABLE
    elif leader in unreachable:
        leader, error = -1, ErrorCode.LISTENER_NOT_FOUND
    offline = list(pi.offline_replicas)
    if offline_here is not None and offline_here not in offline:
        offline.append(offline_here)
    return MetadataResponse.MetadataResponsePartition(
        error_code=error, partition_index=index, leader_id=leader, leader_epoch=pi.leader_epoch,
        replica_nodes=replicas, isr_nodes=isr, offline_replicas=offline)


def topic_entry(info: TopicInfo, version: int, live: AbstractSet[int],
                offline: tuple[set[tuple[str, int]], int] | None = None,
                unreachable: AbstractSet[int] = frozenset()) -> "MetadataResponse.MetadataResponseTopic":
    """``offline``: (the partitions in this broker's failed log dirs, this broker's id);
    ``unreachable``: live brokers without the request's listener."""
    if offline and offline[0]:
        gone, me = offline
        name = info.name
        parts = [partition_entry(p, info.partitions[p], live, version, me if (name, p) in gone else None,
                                 unreachable)
                 for p in sorted(info.partitions)]
    else:
        parts = [partition_entry(p, info.partitions[p], live, version, None, unreachable)
                 for p in sorted(info.partitions)]
    return MetadataResponse.MetadataResponseTopic(error_code=ErrorCode.NONE, name=info.name, topic_id=info.topic_id,
                                                  is_internal=info.is_internal, partitions=parts)


async def auto_create(ctx: RequestContext, name: str) -> TopicInfo:
    """Create a topic with the broker's defaults through the controller, as Kafka does for Metadata."""
    s = ctx.services
    info = await s.controller.auto_create_topic(
        name, s.config["num.partitions"], min(s.config["default.replication.factor"],
                                              len(s.metadata_cache.brokers())), {})
    log.info("Auto-created topic %s with %d partitions (client %s at %s)", name, len(info.partitions),
             ctx.client_id, ctx.client_host)
    return info


async def handle_metadata(ctx: RequestContext, req: MetadataRequest) -> MetadataResponse:
    """Topic entries come from ``kafpy.broker.metadata_responses``: built and encoded once per
    metadata change, not per request (a full Metadata of 20,000 partitions would otherwise
    hold the event loop for a quarter of a second)."""
    s = ctx.services
    md = s.metadata_cache
    v = ctx.api_version
    live = frozenset(b.node_id for b in md.brokers())
    unreachable = frozenset(b.node_id for b in md.brokers() if b.endpoint(ctx.listener) is None)
    gone = s.replica_manager.offline_partitions
    offline = (gone, s.broker_id)
    key = (live, unreachable, len(gone))
    cache = entry_cache(md)

    def build(info: TopicInfo) -> "MetadataResponse.MetadataResponseTopic":
        return topic_entry(info, v, live, offline, unreachable)
    if req.topics is None or (v == 0 and not req.topics):
        topics_out, encoded = cache.all_topics(v, md, key, build)
    else:
        topics_out, parts = [], []
        allow_auto = req.allow_auto_topic_creation if v >= 4 else True
        for t in req.topics:
            info = await _requested_topic(ctx, t, allow_auto)
            if isinstance(info, TopicInfo):
                entry, data = cache.entry(v, info, key, build)
            else:
                entry, data = info, layout(v).topic_bytes(info)
            topics_out.append(entry)
            parts.append(data)
        encoded = b"".join(parts)
    resp = EncodedMetadataResponse(throttle_time_ms=0, brokers=broker_entries(ctx), cluster_id=md.cluster_id,
                                   controller_id=md.controller_id, topics=topics_out)
    resp.topic_bytes = encoded
    return resp


async def _requested_topic(ctx: RequestContext, t: MetadataRequest.MetadataRequestTopic, allow_auto: bool) -> "TopicInfo | MetadataResponse.MetadataResponseTopic":
    """The topic a request names (by name or id), auto-created if allowed, or the error
    entry that answers for it."""
    s = ctx.services
    md = s.metadata_cache
    name = t.name
    if name is None:
        info = md.topic_by_id(t.topic_id) if t.topic_id != ZERO_UUID else None
        if info is None:
            return MetadataResponse.MetadataResponseTopic(error_code=ErrorCode.UNKNOWN_TOPIC_ID, name=None, topic_id=t.topic_id,
                                                          partitions=[])
        return info
    info = md.topic(name)
    if info is not None:
        return info
    try:
        validate_topic_name(name)
    except InvalidTopicName:
        return MetadataResponse.MetadataResponseTopic(error_code=ErrorCode.INVALID_TOPIC_EXCEPTION, name=name, partitions=[])
    if not (allow_auto and s.config["auto.create.topics.enable"] and name not in INTERNAL_TOPICS):
        return MetadataResponse.MetadataResponseTopic(error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name=name, partitions=[])
    try:
        return await auto_create(ctx, name)
    except TopicError as e:
        # a concurrent request may be creating it: answer what the cache says
        info = md.topic(name)
        if info is not None:
            return info
        code = ErrorCode.LEADER_NOT_AVAILABLE if e.error_code == ErrorCode.TOPIC_ALREADY_EXISTS else e.error_code
        return MetadataResponse.MetadataResponseTopic(error_code=code, name=name, partitions=[])


HANDLERS = [Handler(ApiKey.METADATA, 0, 13, handle_metadata)]
