"""Every Kafka API's authorization rule, one row each in ``RULES``: the operations Kafka 4.4's
KafkaApis (or, for what a KRaft broker forwards, its ControllerApis) checks, the error each
refusal answers and what is filtered out of an answer. A rule runs before its handler: it
refuses a request outright, or takes the resources the principal may not touch out of it, runs
the handler on the rest and answers them with the error, so a handler never sees what it must
not serve. Checks Kafka makes after the coordinator answered (the topics a regular expression
resolves to, a Streams group's internal topics) use ``authz_check.topic_permission`` and
``unauthorized_to_create`` where the answer is known. An API without a row is refused (closed
connection) by ``kafpy.broker.authorization``, which applies the table; the HTTP routes' rules
live beside it in ``kafpy.broker.http_acls``. Pure functions of one request.
"""
from __future__ import annotations

from typing import Callable, cast

from kafpy.protocol import messages
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode

from kafpy.broker.authz_check import (
    AuthzCheck, ConfigResource, Next, Response, Rule, TopicPath, add_topic_errors, cluster_rule, filter_items,
    filter_topics, group_rule, hide_groups_naming_denied_topics, hide_streams_groups_naming_denied_topics, no_check,
    top_error, topic_allowed, topic_id_of)
from kafpy.broker.handler import CloseConnection, RequestContext
from kafpy.broker.handlers.share import ack_error, fetch_error
from kafpy.broker.handlers.share_state import SHARE_STATE_ERROR_FIELDS, ShareStateRequest
from kafpy.broker.metadata_responses import EncodedMetadataResponse
from kafpy.broker.security.acl import CLUSTER_NAME, AclOperation as Op, ResourceType

TOPIC_FAILED = ErrorCode.TOPIC_AUTHORIZATION_FAILED
GROUP_FAILED = ErrorCode.GROUP_AUTHORIZATION_FAILED
TXN_FAILED = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
CLUSTER_FAILED = ErrorCode.CLUSTER_AUTHORIZATION_FAILED


# -- produce, fetch, offsets, metadata -------------------------------------------------------
PRODUCE = TopicPath("topic_data", "name", "partition_data", "index", "responses", "name", "partition_responses",
                    "index")
FETCH = TopicPath("topics", "topic", "partitions", "partition", "responses", "topic", "partitions",
                  "partition_index")
LIST_OFFSETS = TopicPath("topics", "name", "partitions", "partition_index", "topics", "name", "partitions",
                         "partition_index")
EPOCHS = TopicPath("topics", "topic", "partitions", "partition", "topics", "topic", "partitions", "partition")


async def produce(az: AuthzCheck, ctx: RequestContext, req: messages.ProduceRequest, func: Next) -> Response:
    tid = getattr(req, "transactional_id", None)
    if tid is not None and not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, tid):
        resp = await filter_topics(az, ctx, req, func, PRODUCE, lambda _n: False,
                                   ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    else:
        resp = await filter_topics(az, ctx, req, func, PRODUCE, lambda n: az.ok(Op.WRITE, ResourceType.TOPIC, n))
    if req.acks == 0 and az.denied:
        raise CloseConnection("Produce with acks=0 to topics it may not write")
    return resp


def _is_follower(req: messages.FetchRequest, version: int) -> bool:
    if version >= 15:
        return req.replica_state is not None and req.replica_state.replica_id >= 0
    return req.replica_id >= 0


async def fetch(az: AuthzCheck, ctx: RequestContext, req: messages.FetchRequest, func: Next) -> Response:
    """A follower needs CLUSTER_ACTION. A consumer's READ is judged by the handler itself
    (``authz_check.topic_permission``) on every partition it serves: an incremental fetch
    session serves partitions the request does not name, and Kafka re-checks them all on
    every fetch, so a revoked READ stops a session that already holds the topic."""
    if _is_follower(req, ctx.api_version):
        allowed = az.cluster(Op.CLUSTER_ACTION)
        return await filter_topics(az, ctx, req, func, FETCH, lambda _n: allowed)
    return await func(ctx, req)


async def list_offsets(az: AuthzCheck, ctx: RequestContext, req: messages.ListOffsetsRequest, func: Next) -> Response:
    return await filter_topics(az, ctx, req, func, LIST_OFFSETS, lambda n: az.ok(Op.DESCRIBE, ResourceType.TOPIC, n))


async def offset_for_leader_epoch(az: AuthzCheck, ctx: RequestContext, req: messages.OffsetForLeaderEpochRequest, func: Next) -> Response:
    """CLUSTER_ACTION on the cluster serves every topic; else DESCRIBE on each (Kafka 4.4,
    whoever the replica id claims to be)."""
    if az.cluster(Op.CLUSTER_ACTION):
        return await func(ctx, req)
    return await filter_topics(az, ctx, req, func, EPOCHS, lambda n: az.ok(Op.DESCRIBE, ResourceType.TOPIC, n))


async def metadata(az: AuthzCheck, ctx: RequestContext, req: messages.MetadataRequest, func: Next) -> Response:
    """Topics the principal may not describe are left out of an all-topics answer and
    answered TOPIC_AUTHORIZATION_FAILED when named; a missing topic is auto-created only with
    CREATE on the cluster or the topic; authorized operations are filled in when asked."""
    cache = ctx.services.metadata_cache
    explicit = bool(req.topics) or (req.topics is not None and ctx.api_version >= 1)
    denied: list[str] = []
    by_id = {bytes(t.topic_id) for t in req.topics or [] if t.name is None and any(bytes(t.topic_id or b''))}
    if req.topics:
        keep = []
        auto = getattr(req, "allow_auto_topic_creation", True) and ctx.services.config.get("auto.create.topics.enable", True)
        for t in req.topics:
            name = t.name
            if name is None:  # by id: judged on the answer
                keep.append(t)
            elif not az.ok(Op.DESCRIBE, ResourceType.TOPIC, name):
                denied.append(name)
            elif auto and cache.topic(name) is None and not (
                    az.cluster(Op.CREATE) or az.ok(Op.CREATE, ResourceType.TOPIC, name)):
                denied.append(name)
            else:
                keep.append(t)
        req.topics = keep
    resp = cast(messages.MetadataResponse, await func(ctx, req))
    if isinstance(resp, EncodedMetadataResponse):
        resp = resp.plain()   # changed below: not the cache's shared, pre-encoded entries
    if explicit and not req.topics and ctx.api_version == 0:
        resp.topics = []  # v0's empty list asks for every topic: none of them is wanted
    topics: list[messages.MetadataResponse.MetadataResponseTopic] = []
    for rt in resp.topics:
        if rt.name is None or az.ok(Op.DESCRIBE, ResourceType.TOPIC, rt.name):
            topics.append(rt)
        elif rt.topic_id is not None and bytes(rt.topic_id) in by_id:
            # asked by id (v12+): Kafka does not tell the name of a topic it refuses
            topics.append(type(resp).MetadataResponseTopic(error_code=TOPIC_FAILED, name=None, topic_id=rt.topic_id, is_internal=False, partitions=[]))
        elif explicit:
            denied.append(rt.name)
    topics.extend(type(resp).MetadataResponseTopic(error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED, name=n, is_internal=False, partitions=[])
                  for n in denied)
    resp.topics = topics
    if ctx.api_version >= 8:
        if req.include_topic_authorized_operations:
            for rt in topics:
                if rt.error_code == ErrorCode.NONE and rt.name is not None:
                    rt.topic_authorized_operations = az.operations_bits(ResourceType.TOPIC, rt.name)
        if ctx.api_version <= 10 and req.include_cluster_authorized_operations:
            resp.cluster_authorized_operations = az.operations_bits(ResourceType.CLUSTER, CLUSTER_NAME)
    return resp


# -- groups ----------------------------------------------------------------------------------
COMMIT = TopicPath("topics", "name", "partitions", "partition_index", "topics", "name", "partitions",
                   "partition_index")
OFFSET_FETCH_V7 = TopicPath("topics", "name", "partition_indexes", None, "topics", "name", "partitions",
                            "partition_index")
TXN_COMMIT = COMMIT


async def offset_commit(az: AuthzCheck, ctx: RequestContext, req: messages.OffsetCommitRequest, func: Next) -> Response:
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return await filter_topics(az, ctx, req, func, COMMIT, lambda _n: False, GROUP_FAILED)
    return await filter_topics(az, ctx, req, func, COMMIT, topic_allowed(az, Op.READ))


async def offset_fetch(az: AuthzCheck, ctx: RequestContext, req: messages.OffsetFetchRequest, func: Next) -> Response:
    """DESCRIBE on each group; the topics it may not describe are answered with the error
    when named, and left out of an all-topics answer."""
    if ctx.api_version < 8:
        if not az.ok(Op.DESCRIBE, ResourceType.GROUP, req.group_id):
            return top_error(ctx, GROUP_FAILED) if ctx.api_version >= 2 else await filter_topics(
                az, ctx, req, func, OFFSET_FETCH_V7, lambda _n: False, GROUP_FAILED)
        named = req.topics is not None
        resp = cast(messages.OffsetFetchResponse, await filter_topics(az, ctx, req, func, OFFSET_FETCH_V7, topic_allowed(az, Op.DESCRIBE)))
        if not named:
            resp.topics = [t for t in resp.topics if az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.name)]
        return resp
    refused = [g for g in req.groups if not az.ok(Op.DESCRIBE, ResourceType.GROUP, g.group_id)]
    req.groups = [g for g in req.groups if g not in refused]
    denied_topics: dict[str, list[tuple[messages.OffsetFetchRequest.OffsetFetchRequestTopics, str | None]]] = {}
    path = TopicPath("topics", "name", "partition_indexes", None, "topics", "name", "partitions", "partition_index")
    cache = ctx.services.metadata_cache

    def name_of(t: messages.OffsetFetchRequest.OffsetFetchRequestTopics | messages.OffsetFetchResponse.OffsetFetchResponseTopics
                ) -> str | None:
        """The topic's name; v10 names topics by id (None: an id this broker does not know,
        which the handler answers UNKNOWN_TOPIC_ID whatever the ACLs)."""
        return t.name if ctx.api_version < 10 else cache.topic_name(t.topic_id)

    def may_describe(name: str | None) -> bool:
        return name is None or az.ok(Op.DESCRIBE, ResourceType.TOPIC, name)
    for g in req.groups:
        if g.topics:
            asked = [(t, name_of(t)) for t in g.topics]
            denied_topics[g.group_id] = [(t, n) for t, n in asked if not may_describe(n)]
            g.topics = [t for t, n in asked if may_describe(n)]
    resp = cast(messages.OffsetFetchResponse, await func(ctx, req) if req.groups else messages.OffsetFetchResponse(groups=[]))
    for rg in resp.groups:
        if rg.group_id in denied_topics:
            add_topic_errors(resp, rg, path, denied_topics[rg.group_id], TOPIC_FAILED)
        else:
            rg.topics = [t for t in rg.topics if may_describe(name_of(t))]
    resp.groups.extend(messages.OffsetFetchResponse.OffsetFetchResponseGroup(group_id=g.group_id, error_code=GROUP_FAILED, topics=[]) for g in refused)
    return resp


async def find_coordinator(az: AuthzCheck, ctx: RequestContext, req: messages.FindCoordinatorRequest, func: Next) -> Response:
    rtype = ResourceType.TRANSACTIONAL_ID if getattr(req, "key_type", 0) == 1 else ResourceType.GROUP
    code = TXN_FAILED if rtype == ResourceType.TRANSACTIONAL_ID else GROUP_FAILED
    allowed = lambda k: az.ok(Op.DESCRIBE, rtype, k)  # noqa: E731
    if getattr(req, "key_type", 0) == 2:   # a share coordinator: brokers only (CLUSTER_ACTION)
        code, allowed = CLUSTER_FAILED, lambda _k: az.cluster(Op.CLUSTER_ACTION)
    if ctx.api_version < 4:
        if allowed(req.key):
            return await func(ctx, req)
        return top_error(ctx, code, node_id=-1, host="", port=-1)
    return await filter_items(ctx, req, func, "coordinator_keys", lambda k: k, allowed,
                              "coordinators", lambda _r, k: messages.FindCoordinatorResponse.Coordinator(key=k, node_id=-1, host="", port=-1, error_code=code))


async def sync_group(az: AuthzCheck, ctx: RequestContext, req: messages.SyncGroupRequest, func: Next) -> Response:
    """v5+ without the protocol type and name is INCONSISTENT_GROUP_PROTOCOL before any check."""
    if ctx.api_version >= 5 and (req.protocol_type is None or req.protocol_name is None):
        return top_error(ctx, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, assignment=b"")
    return await group_rule(Op.READ)(az, ctx, req, func)


async def describe_groups(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeGroupsRequest, func: Next) -> Response:
    resp = cast(messages.DescribeGroupsResponse, await filter_items(ctx, req, func, "groups", lambda g: g, lambda g: az.ok(Op.DESCRIBE, ResourceType.GROUP, g),
                              "groups", lambda _r, g: messages.DescribeGroupsResponse.DescribedGroup(group_id=g, error_code=GROUP_FAILED, members=[])))
    if getattr(req, "include_authorized_operations", False):
        for g in resp.groups:
            if g.error_code == ErrorCode.NONE:
                g.authorized_operations = az.operations_bits(ResourceType.GROUP, g.group_id)
    return resp


async def list_groups(az: AuthzCheck, ctx: RequestContext, req: messages.ListGroupsRequest, func: Next) -> Response:
    resp = cast(messages.ListGroupsResponse, await func(ctx, req))
    if not az.cluster(Op.DESCRIBE):
        resp.groups = [g for g in resp.groups if az.ok(Op.DESCRIBE, ResourceType.GROUP, g.group_id)]
    return resp


async def delete_groups(az: AuthzCheck, ctx: RequestContext, req: messages.DeleteGroupsRequest, func: Next) -> Response:
    return await filter_items(ctx, req, func, "groups_names", lambda g: g,
                              lambda g: az.ok(Op.DELETE, ResourceType.GROUP, g),
                              "results", lambda _r, g: messages.DeleteGroupsResponse.DeletableGroupResult(group_id=g, error_code=GROUP_FAILED))


async def offset_delete(az: AuthzCheck, ctx: RequestContext, req: messages.OffsetDeleteRequest, func: Next) -> Response:
    if not az.ok(Op.DELETE, ResourceType.GROUP, req.group_id):
        return top_error(ctx, GROUP_FAILED)
    return await filter_topics(az, ctx, req, func, COMMIT, topic_allowed(az, Op.READ))


async def consumer_group_heartbeat(az: AuthzCheck, ctx: RequestContext, req: messages.ConsumerGroupHeartbeatRequest, func: Next) -> Response:
    """READ on the group, and DESCRIBE on every topic named in the subscription."""
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return top_error(ctx, GROUP_FAILED, member_epoch=-1, heartbeat_interval_ms=0)
    if req.subscribed_topic_names and not all(
            az.ok(Op.DESCRIBE, ResourceType.TOPIC, t) for t in req.subscribed_topic_names):
        return top_error(ctx, TOPIC_FAILED, member_epoch=-1, heartbeat_interval_ms=0)
    return await func(ctx, req)


async def consumer_group_describe(az: AuthzCheck, ctx: RequestContext, req: messages.ConsumerGroupDescribeRequest, func: Next) -> Response:
    resp = cast(messages.ConsumerGroupDescribeResponse, await filter_items(ctx, req, func, "group_ids", lambda g: g,
                              lambda g: az.ok(Op.DESCRIBE, ResourceType.GROUP, g), "groups",
                              lambda _r, g: messages.ConsumerGroupDescribeResponse.DescribedGroup(group_id=g, error_code=GROUP_FAILED, group_state="",
                                                                                                  group_epoch=-1, assignment_epoch=-1,
                                                                                                  assignor_name="", members=[])))
    hide_groups_naming_denied_topics(az, resp, messages.ConsumerGroupDescribeResponse.DescribedGroup, targets=True)
    return resp


async def streams_group_heartbeat(az: AuthzCheck, ctx: RequestContext, req: messages.StreamsGroupHeartbeatRequest, func: Next) -> Response:
    """READ on the group, and DESCRIBE on every topic the topology names."""
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return top_error(ctx, GROUP_FAILED, member_id="", member_epoch=0,
                         heartbeat_interval_ms=0)
    if req.topology is not None:
        names = {t for s in req.topology.subtopologies for t in (
            *s.source_topics, *s.repartition_sink_topics,
            *(x.name for x in s.repartition_source_topics),
            *(x.name for x in s.state_changelog_topics))}
        if not all(az.ok(Op.DESCRIBE, ResourceType.TOPIC, t) for t in names):
            return top_error(ctx, TOPIC_FAILED, member_id="", member_epoch=0,
                             heartbeat_interval_ms=0)
    return await func(ctx, req)


async def streams_group_describe(az: AuthzCheck, ctx: RequestContext, req: messages.StreamsGroupDescribeRequest, func: Next) -> Response:
    resp = cast(messages.StreamsGroupDescribeResponse, await filter_items(ctx, req, func, "group_ids", lambda g: g,
                              lambda g: az.ok(Op.DESCRIBE, ResourceType.GROUP, g), "groups",
                              lambda _r, g: messages.StreamsGroupDescribeResponse.DescribedGroup(group_id=g, error_code=GROUP_FAILED, group_state="",
                                                                                                 group_epoch=-1, assignment_epoch=-1, members=[])))
    hide_streams_groups_naming_denied_topics(az, resp, messages.StreamsGroupDescribeResponse.DescribedGroup)
    return resp


# -- transactions ----------------------------------------------------------------------------
async def init_producer_id(az: AuthzCheck, ctx: RequestContext, req: messages.InitProducerIdRequest, func: Next) -> Response:
    if req.transactional_id is not None:
        if not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id):
            return top_error(ctx, TXN_FAILED, producer_id=-1, producer_epoch=-1)
    elif not (az.cluster(Op.IDEMPOTENT_WRITE) or az.any_of_type(Op.WRITE, ResourceType.TOPIC)):
        return top_error(ctx, CLUSTER_FAILED, producer_id=-1, producer_epoch=-1)
    return await func(ctx, req)


ADD_PARTITIONS_V3 = TopicPath("v3_and_below_topics", "name", "partitions", None, "results_by_topic_v3_and_below",
                              "name", "results_by_partition", "partition_index", "partition_error_code")


async def add_partitions_to_txn(az: AuthzCheck, ctx: RequestContext, req: messages.AddPartitionsToTxnRequest, func: Next) -> Response:
    if ctx.api_version >= 4:  # broker-to-broker verification (KIP-890)
        return await cluster_rule(Op.CLUSTER_ACTION)(az, ctx, req, func)
    if not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.v3_and_below_transactional_id):
        return await filter_topics(az, ctx, req, func, ADD_PARTITIONS_V3, lambda _n: False, TXN_FAILED)
    return await filter_topics(az, ctx, req, func, ADD_PARTITIONS_V3, topic_allowed(az, Op.WRITE))


async def add_offsets_to_txn(az: AuthzCheck, ctx: RequestContext, req: messages.AddOffsetsToTxnRequest, func: Next) -> Response:
    if not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id):
        return top_error(ctx, TXN_FAILED)
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return top_error(ctx, GROUP_FAILED)
    return await func(ctx, req)


async def end_txn(az: AuthzCheck, ctx: RequestContext, req: messages.EndTxnRequest, func: Next) -> Response:
    if not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id):
        return top_error(ctx, TXN_FAILED)
    return await func(ctx, req)


async def txn_offset_commit(az: AuthzCheck, ctx: RequestContext, req: messages.TxnOffsetCommitRequest, func: Next) -> Response:
    if not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id):
        return await filter_topics(az, ctx, req, func, TXN_COMMIT, lambda _n: False, TXN_FAILED)
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return await filter_topics(az, ctx, req, func, TXN_COMMIT, lambda _n: False, GROUP_FAILED)
    return await filter_topics(az, ctx, req, func, TXN_COMMIT, topic_allowed(az, Op.READ))


async def describe_transactions(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeTransactionsRequest, func: Next) -> Response:
    """DESCRIBE on each transactional id; the topics of a transaction the caller may not
    DESCRIBE are left out of its answer (as Kafka does)."""
    resp = cast(messages.DescribeTransactionsResponse, await filter_items(ctx, req, func, "transactional_ids", lambda t: t,
                              lambda t: az.ok(Op.DESCRIBE, ResourceType.TRANSACTIONAL_ID, t),
                              "transaction_states", lambda _r, t: messages.DescribeTransactionsResponse.TransactionState(transactional_id=t, error_code=TXN_FAILED,
                                                                                                                         transaction_state="", topics=[])))
    for s in resp.transaction_states:
        s.topics = [t for t in s.topics if az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.topic)]
    return resp


async def list_transactions(az: AuthzCheck, ctx: RequestContext, req: messages.ListTransactionsRequest, func: Next) -> Response:
    resp = cast(messages.ListTransactionsResponse, await func(ctx, req))
    resp.transaction_states = [s for s in resp.transaction_states
                               if az.ok(Op.DESCRIBE, ResourceType.TRANSACTIONAL_ID, s.transactional_id)]
    return resp


WRITE_MARKERS = TopicPath("topics", "name", "partition_indexes", None, "topics", "name", "partitions",
                          "partition_index")


async def write_txn_markers(az: AuthzCheck, ctx: RequestContext, req: messages.WriteTxnMarkersRequest, func: Next) -> Response:
    if az.cluster(Op.CLUSTER_ACTION):
        return await func(ctx, req)
    resp = messages.WriteTxnMarkersResponse(markers=[])
    for m in req.markers:
        entry = messages.WriteTxnMarkersResponse.WritableTxnMarkerResult(producer_id=m.producer_id, topics=[])
        add_topic_errors(resp, entry, WRITE_MARKERS, [(t, t.name) for t in m.topics], CLUSTER_FAILED)
        resp.markers.append(entry)
    return resp


# -- topics, configs, cluster ----------------------------------------------------------------
async def create_topics(az: AuthzCheck, ctx: RequestContext, req: messages.CreateTopicsRequest, func: Next) -> Response:
    cluster_ok = az.cluster(Op.CREATE)
    return await filter_items(ctx, req, func, "topics", lambda t: t.name,
                              lambda n: cluster_ok or az.ok(Op.CREATE, ResourceType.TOPIC, n), "topics",
                              lambda _r, t: messages.CreateTopicsResponse.CreatableTopicResult(name=t.name, error_code=TOPIC_FAILED, num_partitions=-1,
                                                                                               replication_factor=-1, configs=[]))


async def delete_topics(az: AuthzCheck, ctx: RequestContext, req: messages.DeleteTopicsRequest, func: Next) -> Response:
    """DELETE on the cluster (every topic) or on each topic, as Kafka's controller checks it."""
    cache = ctx.services.metadata_cache
    cluster_ok = az.cluster(Op.DELETE)
    deletable = lambda n: cluster_ok or az.ok(Op.DELETE, ResourceType.TOPIC, n)  # noqa: E731
    if ctx.api_version < 6:
        return await filter_items(ctx, req, func, "topic_names", lambda n: n, deletable, "responses",
                                  lambda _r, n: messages.DeleteTopicsResponse.DeletableTopicResult(name=n, error_code=TOPIC_FAILED))

    def name_of(t: messages.DeleteTopicsRequest.DeleteTopicState) -> str:
        if t.name is None and t.topic_id is not None:
            return cache.topic_name(t.topic_id) or ""
        return t.name or ""
    return await filter_items(ctx, req, func, "topics", name_of, lambda n: not n or deletable(n), "responses",
                              lambda _r, t: messages.DeleteTopicsResponse.DeletableTopicResult(name=t.name, topic_id=t.topic_id, error_code=TOPIC_FAILED))


async def create_partitions(az: AuthzCheck, ctx: RequestContext, req: messages.CreatePartitionsRequest, func: Next) -> Response:
    return await filter_items(ctx, req, func, "topics", lambda t: t.name,
                              lambda n: az.ok(Op.ALTER, ResourceType.TOPIC, n), "results",
                              lambda _r, t: messages.CreatePartitionsResponse.CreatePartitionsTopicResult(name=t.name, error_code=TOPIC_FAILED))


async def delete_records(az: AuthzCheck, ctx: RequestContext, req: messages.DeleteRecordsRequest, func: Next) -> Response:
    return await filter_topics(az, ctx, req, func, COMMIT, topic_allowed(az, Op.DELETE))


async def describe_producers(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeProducersRequest, func: Next) -> Response:
    path = TopicPath("topics", "name", "partition_indexes", None, "topics", "name", "partitions", "partition_index")
    return await filter_topics(az, ctx, req, func, path, topic_allowed(az, Op.READ))


CONFIG_TOPIC, CONFIG_BROKER, CONFIG_BROKER_LOGGER, CONFIG_GROUP = 2, 4, 8, 32


def _config_allowed(az: AuthzCheck, op: Op, resource: ConfigResource) -> bool:
    if resource.resource_type == CONFIG_TOPIC:
        return az.ok(op, ResourceType.TOPIC, resource.resource_name)
    if resource.resource_type in (CONFIG_BROKER, CONFIG_BROKER_LOGGER):
        return az.cluster(op)
    if resource.resource_type == CONFIG_GROUP:
        return az.ok(op, ResourceType.GROUP, resource.resource_name)
    return True  # unknown types are answered by the handler


def _config_error(resp: Response, resource: ConfigResource, entry: Callable[..., messages.Struct]) -> messages.Struct:
    code = {CONFIG_TOPIC: TOPIC_FAILED, CONFIG_GROUP: GROUP_FAILED}.get(resource.resource_type, CLUSTER_FAILED)
    return entry(error_code=code, error_message=None, resource_type=resource.resource_type,
                 resource_name=resource.resource_name)


async def describe_configs(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeConfigsRequest, func: Next) -> Response:
    return await filter_items(ctx, req, func, "resources", lambda r: r,
                              lambda r: _config_allowed(az, Op.DESCRIBE_CONFIGS, r), "results",
                              lambda resp, r: _config_error(resp, r, messages.DescribeConfigsResponse.DescribeConfigsResult))


def _alter_configs(entry: type) -> Rule:
    async def rule(az: AuthzCheck, ctx: RequestContext, req: messages.AlterConfigsRequest | messages.IncrementalAlterConfigsRequest, func: Next) -> Response:
        return await filter_items(ctx, req, func, "resources", lambda r: r,
                                  lambda r: _config_allowed(az, Op.ALTER_CONFIGS, r), "responses",
                                  lambda resp, r: _config_error(resp, r, entry))
    return rule


async def describe_cluster(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeClusterRequest, func: Next) -> Response:
    resp = cast(messages.DescribeClusterResponse, await func(ctx, req))
    if getattr(req, "include_cluster_authorized_operations", False):
        resp.cluster_authorized_operations = az.operations_bits(ResourceType.CLUSTER, CLUSTER_NAME)
    return resp


async def describe_log_dirs(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeLogDirsRequest, func: Next) -> Response:
    if az.cluster(Op.DESCRIBE):
        return await func(ctx, req)
    if ctx.api_version >= 3:
        return top_error(ctx, CLUSTER_FAILED, results=[])
    return messages.DescribeLogDirsResponse(results=[])


async def describe_topic_partitions(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeTopicPartitionsRequest, func: Next) -> Response:
    named = bool(req.topics)
    resp = cast(messages.DescribeTopicPartitionsResponse, await filter_items(ctx, req, func, "topics", lambda t: t.name,
                              lambda n: az.ok(Op.DESCRIBE, ResourceType.TOPIC, n), "topics",
                              lambda _r, t: messages.DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic(name=t.name, error_code=TOPIC_FAILED, is_internal=False, partitions=[])))
    if not named:
        resp.topics = [t for t in resp.topics if t.name is not None and az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.name)]
    return resp


async def describe_acls(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeAclsRequest, func: Next) -> Response:
    if az.cluster(Op.DESCRIBE):
        return await func(ctx, req)
    return messages.DescribeAclsResponse(error_code=CLUSTER_FAILED, error_message="Cluster authorization failed.")


async def create_acls(az: AuthzCheck, ctx: RequestContext, req: messages.CreateAclsRequest, func: Next) -> Response:
    if az.cluster(Op.ALTER):
        return await func(ctx, req)
    return messages.CreateAclsResponse(results=[messages.CreateAclsResponse.AclCreationResult(error_code=CLUSTER_FAILED) for _ in req.creations])


async def delete_acls(az: AuthzCheck, ctx: RequestContext, req: messages.DeleteAclsRequest, func: Next) -> Response:
    if az.cluster(Op.ALTER):
        return await func(ctx, req)
    return messages.DeleteAclsResponse(filter_results=[messages.DeleteAclsResponse.DeleteAclsFilterResult(error_code=CLUSTER_FAILED) for _ in req.filters])


# -- share groups ----------------------------------------------------------------------------
async def share_rule(az: AuthzCheck, ctx: RequestContext, req: messages.ShareFetchRequest | messages.ShareAcknowledgeRequest, func: Next) -> Response:
    """READ on the group, else GROUP_AUTHORIZATION_FAILED for the whole request; READ on each
    topic is checked by the handlers, on every partition they serve (a share session serves
    partitions the request does not name)."""
    if az.ok(Op.READ, ResourceType.GROUP, req.group_id or ""):
        return await func(ctx, req)
    failed = fetch_error if ctx.header.request_api_key == ApiKey.SHARE_FETCH else ack_error
    return failed(GROUP_FAILED)


async def share_group_heartbeat(az: AuthzCheck, ctx: RequestContext, req: messages.ShareGroupHeartbeatRequest, func: Next) -> Response:
    """READ on the group, and DESCRIBE on every topic named in the subscription."""
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return top_error(ctx, GROUP_FAILED, heartbeat_interval_ms=0)
    if req.subscribed_topic_names and not all(
            az.ok(Op.DESCRIBE, ResourceType.TOPIC, t) for t in req.subscribed_topic_names):
        return top_error(ctx, TOPIC_FAILED, heartbeat_interval_ms=0)
    return await func(ctx, req)


async def share_group_describe(az: AuthzCheck, ctx: RequestContext, req: messages.ShareGroupDescribeRequest, func: Next) -> Response:
    """DESCRIBE on each group; a group whose members are assigned a topic the caller may not
    DESCRIBE is answered TOPIC_AUTHORIZATION_FAILED."""
    resp = cast(messages.ShareGroupDescribeResponse, await filter_items(ctx, req, func, "group_ids", lambda g: g,
                              lambda g: az.ok(Op.DESCRIBE, ResourceType.GROUP, g), "groups",
                              lambda _r, g: messages.ShareGroupDescribeResponse.DescribedGroup(group_id=g, error_code=GROUP_FAILED, members=[])))
    hide_groups_naming_denied_topics(az, resp, messages.ShareGroupDescribeResponse.DescribedGroup, targets=False)
    return resp


TOPIC_FAILED_MESSAGE = "Topic authorization failed."


async def describe_share_group_offsets(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeShareGroupOffsetsRequest, func: Next) -> Response:
    """DESCRIBE on each group (else GROUP_AUTHORIZATION_FAILED); named topics the caller may not
    DESCRIBE are answered TOPIC_AUTHORIZATION_FAILED per partition, and left out of an
    all-topics answer."""
    G, T, P = (messages.DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup, messages.DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic,
               messages.DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition)
    refused = [g.group_id for g in req.groups if not az.ok(Op.DESCRIBE, ResourceType.GROUP, g.group_id)]
    req.groups = [g for g in req.groups if g.group_id not in refused]
    denied: dict[str, list[messages.DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic]] = {}
    for g in req.groups:
        if g.topics is not None:
            denied[g.group_id] = [t for t in g.topics if not az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.topic_name)]
            g.topics = [t for t in g.topics if t not in denied[g.group_id]]
    resp = cast(messages.DescribeShareGroupOffsetsResponse, await func(ctx, req) if req.groups else messages.DescribeShareGroupOffsetsResponse(groups=[]))
    for rg in resp.groups:
        if rg.group_id not in denied:
            rg.topics = [t for t in rg.topics if az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.topic_name)]
            continue
        rg.topics.extend(T(topic_name=t.topic_name, topic_id=bytes(16), partitions=[
            P(partition_index=i, start_offset=-1, lag=-1, error_code=TOPIC_FAILED, error_message=TOPIC_FAILED_MESSAGE)
            for i in t.partitions]) for t in denied[rg.group_id])
    resp.groups.extend(G(group_id=g, error_code=GROUP_FAILED, topics=[]) for g in refused)
    return resp


async def alter_share_group_offsets(az: AuthzCheck, ctx: RequestContext, req: messages.AlterShareGroupOffsetsRequest, func: Next) -> Response:
    """READ on the group (else the top-level GROUP_AUTHORIZATION_FAILED); topics the caller may
    not READ are answered TOPIC_AUTHORIZATION_FAILED per partition."""
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return top_error(ctx, GROUP_FAILED, error_message="Group authorization failed.", responses=[])
    T, P = messages.AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic, messages.AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition
    denied = [t for t in req.topics if not az.ok(Op.READ, ResourceType.TOPIC, t.topic_name)]
    req.topics = [t for t in req.topics if t not in denied]
    # nothing left: Kafka's coordinator answers an empty success without touching the group
    resp = cast(messages.AlterShareGroupOffsetsResponse, await func(ctx, req) if req.topics or not denied else messages.AlterShareGroupOffsetsResponse(error_code=ErrorCode.NONE, responses=[]))
    resp.responses.extend(T(topic_name=t.topic_name, topic_id=topic_id_of(ctx, t.topic_name), partitions=[
        P(partition_index=p.partition_index, error_code=TOPIC_FAILED, error_message=TOPIC_FAILED_MESSAGE)
        for p in t.partitions]) for t in denied)
    return resp


async def delete_share_group_offsets(az: AuthzCheck, ctx: RequestContext, req: messages.DeleteShareGroupOffsetsRequest, func: Next) -> Response:
    """DELETE on the group (else the top-level GROUP_AUTHORIZATION_FAILED); topics the caller
    may not READ are answered TOPIC_AUTHORIZATION_FAILED."""
    if not az.ok(Op.DELETE, ResourceType.GROUP, req.group_id):
        return top_error(ctx, GROUP_FAILED, error_message="Group authorization failed.", responses=[])
    denied = [t for t in req.topics if not az.ok(Op.READ, ResourceType.TOPIC, t.topic_name)]
    req.topics = [t for t in req.topics if t not in denied]
    resp = cast(messages.DeleteShareGroupOffsetsResponse, await func(ctx, req))
    if resp.error_code == ErrorCode.NONE:   # else the coordinator's error is the whole answer, as in Kafka
        resp.responses.extend(messages.DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic(topic_name=t.topic_name, topic_id=topic_id_of(ctx, t.topic_name),
                                                                                                            error_code=TOPIC_FAILED, error_message=TOPIC_FAILED_MESSAGE) for t in denied)
    return resp


async def share_state_rule(az: AuthzCheck, ctx: RequestContext, req: ShareStateRequest, func: Next) -> Response:
    """CLUSTER_ACTION on the cluster, else CLUSTER_AUTHORIZATION_FAILED in every partition
    (Kafka's getErrorResponse of these requests)."""
    if az.cluster(Op.CLUSTER_ACTION):
        return await func(ctx, req)
    resp_cls, extra = SHARE_STATE_ERROR_FIELDS[ApiKey(ctx.header.request_api_key)]
    result_cls = getattr(resp_cls, resp_cls.FIELDS[0].type.lstrip("[]"))
    error = CLUSTER_FAILED
    return resp_cls(results=[result_cls(topic_id=t.topic_id, partitions=[
        resp_cls.PartitionResult(partition=p.partition, error_code=error, error_message=error.name, **extra)
        for p in t.partitions]) for t in req.topics])


# -- SCRAM credentials ----------------------------------------------------------------------
MESSAGE = "Cluster authorization failed."


async def describe_user_scram_credentials(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeUserScramCredentialsRequest, func: Next) -> Response:
    if az.cluster(Op.DESCRIBE):
        return await func(ctx, req)
    return messages.DescribeUserScramCredentialsResponse(error_code=CLUSTER_FAILED, error_message=MESSAGE, results=[
        messages.DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult(user=u.name, error_code=CLUSTER_FAILED, error_message=MESSAGE)
        for u in req.users or []])


async def alter_user_scram_credentials(az: AuthzCheck, ctx: RequestContext, req: messages.AlterUserScramCredentialsRequest, func: Next) -> Response:
    if az.cluster(Op.ALTER):
        return await func(ctx, req)
    users = sorted({u.name for u in req.deletions} | {u.name for u in req.upsertions})
    return messages.AlterUserScramCredentialsResponse(results=[messages.AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult(user=u, error_code=CLUSTER_FAILED, error_message=MESSAGE)
                                                               for u in users])


# -- client quotas ---------------------------------------------------------------------------
async def describe_client_quotas(az: AuthzCheck, ctx: RequestContext, req: messages.DescribeClientQuotasRequest, func: Next) -> Response:
    """DESCRIBE_CONFIGS on the cluster."""
    if az.cluster(Op.DESCRIBE_CONFIGS):
        return await func(ctx, req)
    return top_error(ctx, CLUSTER_FAILED, error_message=MESSAGE, entries=None)


async def alter_client_quotas(az: AuthzCheck, ctx: RequestContext, req: messages.AlterClientQuotasRequest, func: Next) -> Response:
    """ALTER_CONFIGS on the cluster (Kafka's controller checks it); refused, every entry is
    answered CLUSTER_AUTHORIZATION_FAILED."""
    if az.cluster(Op.ALTER_CONFIGS):
        return await func(ctx, req)
    return messages.AlterClientQuotasResponse(entries=[messages.AlterClientQuotasResponse.EntryData(error_code=CLUSTER_FAILED, error_message=MESSAGE, entity=[
        messages.AlterClientQuotasResponse.EntityData(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity])
        for entry in req.entries])


# -- the table: one row per API the broker serves ---------------------------------------------
RULES: dict[ApiKey, Rule] = {
    # served to anyone: ApiVersions and the SASL exchange
    ApiKey.API_VERSIONS: no_check, ApiKey.SASL_HANDSHAKE: no_check, ApiKey.SASL_AUTHENTICATE: no_check,
    # produce, fetch, offsets, metadata
    ApiKey.PRODUCE: produce,
    ApiKey.FETCH: fetch,
    ApiKey.LIST_OFFSETS: list_offsets,
    ApiKey.METADATA: metadata,
    ApiKey.OFFSET_FOR_LEADER_EPOCH: offset_for_leader_epoch,
    # controller and broker-to-broker requests
    **{key: cluster_rule(Op.CLUSTER_ACTION) for key in (
        ApiKey.LEADER_AND_ISR, ApiKey.STOP_REPLICA, ApiKey.UPDATE_METADATA, ApiKey.CONTROLLED_SHUTDOWN,
        ApiKey.ALTER_PARTITION, ApiKey.ALLOCATE_PRODUCER_IDS)},
    **{key: cluster_rule(Op.ALTER) for key in (
        ApiKey.ELECT_LEADERS, ApiKey.ALTER_PARTITION_REASSIGNMENTS, ApiKey.UPDATE_FEATURES)},
    ApiKey.LIST_PARTITION_REASSIGNMENTS: cluster_rule(Op.DESCRIBE),
    # the quorum's APIs a KRaft broker forwards (Kafka's ControllerApis checks)
    ApiKey.DESCRIBE_QUORUM: cluster_rule(Op.DESCRIBE),
    **{key: cluster_rule(Op.ALTER) for key in (
        ApiKey.UNREGISTER_BROKER, ApiKey.ADD_RAFT_VOTER, ApiKey.REMOVE_RAFT_VOTER)},
    # groups
    ApiKey.OFFSET_COMMIT: offset_commit,
    ApiKey.OFFSET_FETCH: offset_fetch,
    ApiKey.FIND_COORDINATOR: find_coordinator,
    **{key: group_rule(Op.READ) for key in (ApiKey.JOIN_GROUP, ApiKey.HEARTBEAT, ApiKey.LEAVE_GROUP)},
    ApiKey.SYNC_GROUP: sync_group,
    ApiKey.DESCRIBE_GROUPS: describe_groups,
    ApiKey.LIST_GROUPS: list_groups,
    ApiKey.DELETE_GROUPS: delete_groups,
    ApiKey.OFFSET_DELETE: offset_delete,
    ApiKey.CONSUMER_GROUP_HEARTBEAT: consumer_group_heartbeat, ApiKey.CONSUMER_GROUP_DESCRIBE: consumer_group_describe,
    ApiKey.STREAMS_GROUP_HEARTBEAT: streams_group_heartbeat, ApiKey.STREAMS_GROUP_DESCRIBE: streams_group_describe,
    # share groups
    ApiKey.SHARE_GROUP_HEARTBEAT: share_group_heartbeat, ApiKey.SHARE_GROUP_DESCRIBE: share_group_describe,
    ApiKey.SHARE_FETCH: share_rule, ApiKey.SHARE_ACKNOWLEDGE: share_rule,
    ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS: describe_share_group_offsets,
    ApiKey.ALTER_SHARE_GROUP_OFFSETS: alter_share_group_offsets,
    ApiKey.DELETE_SHARE_GROUP_OFFSETS: delete_share_group_offsets,
    **{key: share_state_rule for key in SHARE_STATE_ERROR_FIELDS},   # the share coordinator's persister RPCs
    # transactions
    ApiKey.INIT_PRODUCER_ID: init_producer_id,
    ApiKey.ADD_PARTITIONS_TO_TXN: add_partitions_to_txn,
    ApiKey.ADD_OFFSETS_TO_TXN: add_offsets_to_txn,
    ApiKey.END_TXN: end_txn,
    ApiKey.TXN_OFFSET_COMMIT: txn_offset_commit,
    ApiKey.DESCRIBE_TRANSACTIONS: describe_transactions,
    ApiKey.LIST_TRANSACTIONS: list_transactions,
    ApiKey.WRITE_TXN_MARKERS: write_txn_markers,
    # topics, configs, cluster, ACLs, credentials, quotas
    ApiKey.CREATE_TOPICS: create_topics,
    ApiKey.DELETE_TOPICS: delete_topics,
    ApiKey.CREATE_PARTITIONS: create_partitions,
    ApiKey.DELETE_RECORDS: delete_records,
    ApiKey.DESCRIBE_PRODUCERS: describe_producers,
    ApiKey.DESCRIBE_CONFIGS: describe_configs,
    ApiKey.ALTER_CONFIGS: _alter_configs(messages.AlterConfigsResponse.AlterConfigsResourceResponse),
    ApiKey.INCREMENTAL_ALTER_CONFIGS: _alter_configs(messages.IncrementalAlterConfigsResponse.AlterConfigsResourceResponse),
    ApiKey.DESCRIBE_CLUSTER: describe_cluster,
    ApiKey.DESCRIBE_LOG_DIRS: describe_log_dirs,
    ApiKey.DESCRIBE_TOPIC_PARTITIONS: describe_topic_partitions,
    ApiKey.DESCRIBE_ACLS: describe_acls,
    ApiKey.CREATE_ACLS: create_acls,
    ApiKey.DELETE_ACLS: delete_acls,
    ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS: describe_user_scram_credentials,
    ApiKey.ALTER_USER_SCRAM_CREDENTIALS: alter_user_scram_credentials,
    ApiKey.DESCRIBE_CLIENT_QUOTAS: describe_client_quotas,
    ApiKey.ALTER_CLIENT_QUOTAS: alter_client_quotas,
}
