"""Authorization rules for groups, transactions and admin requests (the operations Kafka's
KafkaApis checks for each), used by ``kafpy.broker.authorization.RULES``.

Who may call it: ``kafpy.broker.authorization``. Pure functions of one request.
"""
from __future__ import annotations

from typing import Any, Callable

from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.authz_check import (AuthzCheck, Next, Rule, TopicPath, add_topic_errors, cluster_rule, filter_topics,
                                group_rule, top_error)
from kafpy.broker.handler import RequestContext
from kafpy.broker.security.acl import CLUSTER_NAME, AclOperation as Op, ResourceType

TOPIC_FAILED = ErrorCode.TOPIC_AUTHORIZATION_FAILED
GROUP_FAILED = ErrorCode.GROUP_AUTHORIZATION_FAILED
TXN_FAILED = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
CLUSTER_FAILED = ErrorCode.CLUSTER_AUTHORIZATION_FAILED


async def filter_items(ctx: RequestContext, req: Any, func: Next, items_attr: str, key: Callable[[Any], str],
                       allowed: Callable[[str], bool], resp_attr: str, error_entry: Callable[[Any, Any], Any]) -> Any:
    """Runs ``func`` on the items of ``req.<items_attr>`` that ``allowed`` accepts; each
    other item is answered by ``error_entry(response, item)`` appended to ``resp.<resp_attr>``."""
    items = getattr(req, items_attr)
    if not items:
        return await func(ctx, req)
    denied = [i for i in items if not allowed(key(i))]
    if not denied:
        return await func(ctx, req)
    setattr(req, items_attr, [i for i in items if allowed(key(i))])
    resp = await func(ctx, req)
    getattr(resp, resp_attr).extend(error_entry(resp, i) for i in denied)
    return resp


def _topic(az: AuthzCheck, op: Op) -> Callable[[str], bool]:
    return lambda name: az.ok(op, ResourceType.TOPIC, name)


# -- groups ----------------------------------------------------------------------------------
COMMIT = TopicPath("topics", "name", "partitions", "partition_index", "topics", "name", "partitions",
                   "partition_index")
OFFSET_FETCH_V7 = TopicPath("topics", "name", "partition_indexes", None, "topics", "name", "partitions",
                            "partition_index")
TXN_COMMIT = COMMIT


async def offset_commit(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return await filter_topics(az, ctx, req, func, COMMIT, lambda _n: False, GROUP_FAILED)
    return await filter_topics(az, ctx, req, func, COMMIT, _topic(az, Op.READ))


async def offset_fetch(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    """DESCRIBE on each group; the topics it may not describe are answered with the error
    when named, and left out of an all-topics answer."""
    if ctx.api_version < 8:
        if not az.ok(Op.DESCRIBE, ResourceType.GROUP, req.group_id):
            return top_error(ctx, GROUP_FAILED) if ctx.api_version >= 2 else await filter_topics(
                az, ctx, req, func, OFFSET_FETCH_V7, lambda _n: False, GROUP_FAILED)
        named = req.topics is not None
        resp = await filter_topics(az, ctx, req, func, OFFSET_FETCH_V7, _topic(az, Op.DESCRIBE))
        if not named:
            resp.topics = [t for t in resp.topics if az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.name)]
        return resp
    refused = [g for g in req.groups if not az.ok(Op.DESCRIBE, ResourceType.GROUP, g.group_id)]
    req.groups = [g for g in req.groups if g not in refused]
    denied_topics: dict[str, list[tuple[Any, str]]] = {}
    path = TopicPath("topics", "name", "partition_indexes", None, "topics", "name", "partitions", "partition_index")
    for g in req.groups:
        if g.topics:
            denied_topics[g.group_id] = [(t, t.name) for t in g.topics if not az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.name)]
            g.topics = [t for t in g.topics if az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.name)]
    resp = await func(ctx, req) if req.groups else M.OffsetFetchResponse(groups=[])
    G = M.OffsetFetchResponse.OffsetFetchResponseGroup
    for g in resp.groups:
        if g.group_id in denied_topics:
            add_topic_errors(resp, g, path, denied_topics[g.group_id], TOPIC_FAILED)
        else:
            g.topics = [t for t in g.topics if az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.name)]
    resp.groups.extend(G(group_id=g.group_id, error_code=GROUP_FAILED, topics=[]) for g in refused)
    return resp


async def find_coordinator(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    rtype = ResourceType.TRANSACTIONAL_ID if getattr(req, "key_type", 0) == 1 else ResourceType.GROUP
    code = TXN_FAILED if rtype == ResourceType.TRANSACTIONAL_ID else GROUP_FAILED
    allowed = lambda k: az.ok(Op.DESCRIBE, rtype, k)  # noqa: E731
    if getattr(req, "key_type", 0) == 2:   # a share coordinator: brokers only (CLUSTER_ACTION)
        code, allowed = CLUSTER_FAILED, lambda _k: az.cluster(Op.CLUSTER_ACTION)
    if ctx.api_version < 4:
        if allowed(req.key):
            return await func(ctx, req)
        return top_error(ctx, code, node_id=-1, host="", port=-1)
    C = M.FindCoordinatorResponse.Coordinator
    return await filter_items(ctx, req, func, "coordinator_keys", lambda k: k, allowed,
                              "coordinators", lambda _r, k: C(key=k, node_id=-1, host="", port=-1, error_code=code))


async def describe_groups(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    D = M.DescribeGroupsResponse.DescribedGroup
    resp = await filter_items(ctx, req, func, "groups", lambda g: g, lambda g: az.ok(Op.DESCRIBE, ResourceType.GROUP, g),
                              "groups", lambda _r, g: D(group_id=g, error_code=GROUP_FAILED, members=[]))
    if getattr(req, "include_authorized_operations", False):
        for g in resp.groups:
            if g.error_code == ErrorCode.NONE:
                g.authorized_operations = az.operations_bits(ResourceType.GROUP, g.group_id)
    return resp


async def list_groups(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    resp = await func(ctx, req)
    if not az.cluster(Op.DESCRIBE):
        resp.groups = [g for g in resp.groups if az.ok(Op.DESCRIBE, ResourceType.GROUP, g.group_id)]
    return resp


async def delete_groups(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    R = M.DeleteGroupsResponse.DeletableGroupResult
    return await filter_items(ctx, req, func, "groups_names", lambda g: g,
                              lambda g: az.ok(Op.DELETE, ResourceType.GROUP, g),
                              "results", lambda _r, g: R(group_id=g, error_code=GROUP_FAILED))


async def offset_delete(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if not az.ok(Op.DELETE, ResourceType.GROUP, req.group_id):
        return top_error(ctx, GROUP_FAILED)
    return await filter_topics(az, ctx, req, func, COMMIT, _topic(az, Op.READ))


async def consumer_group_heartbeat(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    """READ on the group, and DESCRIBE on every topic named in the subscription."""
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return top_error(ctx, GROUP_FAILED, member_epoch=-1, heartbeat_interval_ms=0)
    if req.subscribed_topic_names and not all(
            az.ok(Op.DESCRIBE, ResourceType.TOPIC, t) for t in req.subscribed_topic_names):
        return top_error(ctx, TOPIC_FAILED, member_epoch=-1, heartbeat_interval_ms=0)
    return await func(ctx, req)


async def consumer_group_describe(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    D = M.ConsumerGroupDescribeResponse.DescribedGroup
    return await filter_items(ctx, req, func, "group_ids", lambda g: g,
                              lambda g: az.ok(Op.DESCRIBE, ResourceType.GROUP, g), "groups",
                              lambda _r, g: D(group_id=g, error_code=GROUP_FAILED, group_state="",
                                              group_epoch=-1, assignment_epoch=-1,
                                              assignor_name="", members=[]))


async def streams_group_heartbeat(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
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


async def streams_group_describe(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    D = M.StreamsGroupDescribeResponse.DescribedGroup
    return await filter_items(ctx, req, func, "group_ids", lambda g: g,
                              lambda g: az.ok(Op.DESCRIBE, ResourceType.GROUP, g), "groups",
                              lambda _r, g: D(group_id=g, error_code=GROUP_FAILED, group_state="",
                                              group_epoch=-1, assignment_epoch=-1, members=[]))


def group_rules() -> dict[ApiKey, Rule]:
    return {
        ApiKey.OFFSET_COMMIT: offset_commit,
        ApiKey.OFFSET_FETCH: offset_fetch,
        ApiKey.FIND_COORDINATOR: find_coordinator,
        ApiKey.CONSUMER_GROUP_HEARTBEAT: consumer_group_heartbeat,
        ApiKey.CONSUMER_GROUP_DESCRIBE: consumer_group_describe,
        ApiKey.STREAMS_GROUP_HEARTBEAT: streams_group_heartbeat,
        ApiKey.STREAMS_GROUP_DESCRIBE: streams_group_describe,
        ApiKey.JOIN_GROUP: group_rule(Op.READ),
        ApiKey.HEARTBEAT: group_rule(Op.READ),
        ApiKey.LEAVE_GROUP: group_rule(Op.READ),
        ApiKey.SYNC_GROUP: group_rule(Op.READ),
        ApiKey.DESCRIBE_GROUPS: describe_groups,
        ApiKey.LIST_GROUPS: list_groups,
        ApiKey.DELETE_GROUPS: delete_groups,
        ApiKey.OFFSET_DELETE: offset_delete,
    }


# -- transactions ----------------------------------------------------------------------------
async def init_producer_id(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if req.transactional_id is not None:
        if not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id):
            return top_error(ctx, TXN_FAILED, producer_id=-1, producer_epoch=-1)
    elif not (az.cluster(Op.IDEMPOTENT_WRITE) or az.any_of_type(Op.WRITE, ResourceType.TOPIC)):
        return top_error(ctx, CLUSTER_FAILED, producer_id=-1, producer_epoch=-1)
    return await func(ctx, req)


ADD_PARTITIONS_V3 = TopicPath("v3_and_below_topics", "name", "partitions", None, "results_by_topic_v3_and_below",
                              "name", "results_by_partition", "partition_index", "partition_error_code")


async def add_partitions_to_txn(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if ctx.api_version >= 4:  # broker-to-broker verification (KIP-890)
        return await cluster_rule(Op.CLUSTER_ACTION)(az, ctx, req, func)
    if not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.v3_and_below_transactional_id):
        return await filter_topics(az, ctx, req, func, ADD_PARTITIONS_V3, lambda _n: False, TXN_FAILED)
    return await filter_topics(az, ctx, req, func, ADD_PARTITIONS_V3, _topic(az, Op.WRITE))


async def add_offsets_to_txn(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id):
        return top_error(ctx, TXN_FAILED)
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return top_error(ctx, GROUP_FAILED)
    return await func(ctx, req)


async def end_txn(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id):
        return top_error(ctx, TXN_FAILED)
    return await func(ctx, req)


async def txn_offset_commit(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id):
        return await filter_topics(az, ctx, req, func, TXN_COMMIT, lambda _n: False, TXN_FAILED)
    if not az.ok(Op.READ, ResourceType.GROUP, req.group_id):
        return await filter_topics(az, ctx, req, func, TXN_COMMIT, lambda _n: False, GROUP_FAILED)
    return await filter_topics(az, ctx, req, func, TXN_COMMIT, _topic(az, Op.READ))


async def describe_transactions(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    S = M.DescribeTransactionsResponse.TransactionState
    return await filter_items(ctx, req, func, "transactional_ids", lambda t: t,
                              lambda t: az.ok(Op.DESCRIBE, ResourceType.TRANSACTIONAL_ID, t),
                              "transaction_states", lambda _r, t: S(transactional_id=t, error_code=TXN_FAILED,
                                                                    transaction_state="", topics=[]))


async def list_transactions(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    resp = await func(ctx, req)
    resp.transaction_states = [s for s in resp.transaction_states
                               if az.ok(Op.DESCRIBE, ResourceType.TRANSACTIONAL_ID, s.transactional_id)]
    return resp


WRITE_MARKERS = TopicPath("topics", "name", "partition_indexes", None, "topics", "name", "partitions",
                          "partition_index")


async def write_txn_markers(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if az.cluster(Op.CLUSTER_ACTION):
        return await func(ctx, req)
    R = M.WriteTxnMarkersResponse
    resp = R(markers=[])
    for m in req.markers:
        entry = R.WritableTxnMarkerResult(producer_id=m.producer_id, topics=[])
        add_topic_errors(resp, entry, WRITE_MARKERS, [(t, t.name) for t in m.topics], CLUSTER_FAILED)
        resp.markers.append(entry)
    return resp


def txn_rules() -> dict[ApiKey, Rule]:
    return {
        ApiKey.INIT_PRODUCER_ID: init_producer_id,
        ApiKey.ADD_PARTITIONS_TO_TXN: add_partitions_to_txn,
        ApiKey.ADD_OFFSETS_TO_TXN: add_offsets_to_txn,
        ApiKey.END_TXN: end_txn,
        ApiKey.TXN_OFFSET_COMMIT: txn_offset_commit,
        ApiKey.DESCRIBE_TRANSACTIONS: describe_transactions,
        ApiKey.LIST_TRANSACTIONS: list_transactions,
        ApiKey.WRITE_TXN_MARKERS: write_txn_markers,
    }


# -- topics, configs, cluster ----------------------------------------------------------------
async def create_topics(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    R = M.CreateTopicsResponse.CreatableTopicResult
    cluster_ok = az.cluster(Op.CREATE)
    return await filter_items(ctx, req, func, "topics", lambda t: t.name,
                              lambda n: cluster_ok or az.ok(Op.CREATE, ResourceType.TOPIC, n), "topics",
                              lambda _r, t: R(name=t.name, error_code=TOPIC_FAILED, num_partitions=-1,
                                              replication_factor=-1, configs=[]))


async def delete_topics(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    R = M.DeleteTopicsResponse.DeletableTopicResult
    if ctx.api_version < 6:
        return await filter_items(ctx, req, func, "topic_names", lambda n: n,
                                  lambda n: az.ok(Op.DELETE, ResourceType.TOPIC, n), "responses",
                                  lambda _r, n: R(name=n, error_code=TOPIC_FAILED))
    cache = ctx.services.metadata_cache

    def name_of(t: Any) -> str:
        if t.name is None and t.topic_id is not None:
            info = cache.topic_by_id(t.topic_id)
            return info.name if info is not None else ""
        return t.name or ""
    return await filter_items(ctx, req, func, "topics", name_of,
                              lambda n: not n or az.ok(Op.DELETE, ResourceType.TOPIC, n), "responses",
                              lambda _r, t: R(name=t.name, topic_id=t.topic_id, error_code=TOPIC_FAILED))


async def create_partitions(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    R = M.CreatePartitionsResponse.CreatePartitionsTopicResult
    return await filter_items(ctx, req, func, "topics", lambda t: t.name,
                              lambda n: az.ok(Op.ALTER, ResourceType.TOPIC, n), "results",
                              lambda _r, t: R(name=t.name, error_code=TOPIC_FAILED))


async def delete_records(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    return await filter_topics(az, ctx, req, func, COMMIT, _topic(az, Op.DELETE))


async def describe_producers(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    path = TopicPath("topics", "name", "partition_indexes", None, "topics", "name", "partitions", "partition_index")
    return await filter_topics(az, ctx, req, func, path, _topic(az, Op.READ))


CONFIG_TOPIC, CONFIG_BROKER, CONFIG_BROKER_LOGGER, CONFIG_GROUP = 2, 4, 8, 32


def _config_allowed(az: AuthzCheck, op: Op, resource: Any) -> bool:
    if resource.resource_type == CONFIG_TOPIC:
        return az.ok(op, ResourceType.TOPIC, resource.resource_name)
    if resource.resource_type in (CONFIG_BROKER, CONFIG_BROKER_LOGGER):
        return az.cluster(op)
    if resource.resource_type == CONFIG_GROUP:
        return az.ok(op, ResourceType.GROUP, resource.resource_name)
    return True  # unknown types are answered by the handler


def _config_error(resp: Any, resource: Any, entry: type) -> Any:
    code = {CONFIG_TOPIC: TOPIC_FAILED, CONFIG_GROUP: GROUP_FAILED}.get(resource.resource_type, CLUSTER_FAILED)
    return entry(error_code=code, error_message=None, resource_type=resource.resource_type,
                 resource_name=resource.resource_name)


async def describe_configs(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    E = M.DescribeConfigsResponse.DescribeConfigsResult
    return await filter_items(ctx, req, func, "resources", lambda r: r,
                              lambda r: _config_allowed(az, Op.DESCRIBE_CONFIGS, r), "results",
                              lambda resp, r: _config_error(resp, r, E))


def _alter_configs(entry: type) -> Rule:
    async def rule(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
        return await filter_items(ctx, req, func, "resources", lambda r: r,
                                  lambda r: _config_allowed(az, Op.ALTER_CONFIGS, r), "responses",
                                  lambda resp, r: _config_error(resp, r, entry))
    return rule


async def describe_cluster(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    resp = await func(ctx, req)
    if getattr(req, "include_cluster_authorized_operations", False):
        resp.cluster_authorized_operations = az.operations_bits(ResourceType.CLUSTER, CLUSTER_NAME)
    return resp


async def describe_log_dirs(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if az.cluster(Op.DESCRIBE):
        return await func(ctx, req)
    if ctx.api_version >= 3:
        return top_error(ctx, CLUSTER_FAILED, results=[])
    return M.DescribeLogDirsResponse(results=[])


async def describe_topic_partitions(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    T = M.DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic
    named = bool(req.topics)
    resp = await filter_items(ctx, req, func, "topics", lambda t: t.name,
                              lambda n: az.ok(Op.DESCRIBE, ResourceType.TOPIC, n), "topics",
                              lambda _r, t: T(name=t.name, error_code=TOPIC_FAILED, is_internal=False, partitions=[]))
    if not named:
        resp.topics = [t for t in resp.topics if az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.name)]
    return resp


async def describe_acls(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if az.cluster(Op.DESCRIBE):
        return await func(ctx, req)
    return M.DescribeAclsResponse(error_code=CLUSTER_FAILED, error_message="Cluster authorization failed.")


async def create_acls(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if az.cluster(Op.ALTER):
        return await func(ctx, req)
    R = M.CreateAclsResponse.AclCreationResult
    return M.CreateAclsResponse(results=[R(error_code=CLUSTER_FAILED) for _ in req.creations])


async def delete_acls(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if az.cluster(Op.ALTER):
        return await func(ctx, req)
    R = M.DeleteAclsResponse.DeleteAclsFilterResult
    return M.DeleteAclsResponse(filter_results=[R(error_code=CLUSTER_FAILED) for _ in req.filters])


def admin_rules() -> dict[ApiKey, Rule]:
    return {
        ApiKey.CREATE_TOPICS: create_topics,
        ApiKey.DELETE_TOPICS: delete_topics,
        ApiKey.CREATE_PARTITIONS: create_partitions,
        ApiKey.DELETE_RECORDS: delete_records,
        ApiKey.DESCRIBE_PRODUCERS: describe_producers,
        ApiKey.DESCRIBE_CONFIGS: describe_configs,
        ApiKey.ALTER_CONFIGS: _alter_configs(M.AlterConfigsResponse.AlterConfigsResourceResponse),
        ApiKey.INCREMENTAL_ALTER_CONFIGS: _alter_configs(M.IncrementalAlterConfigsResponse.AlterConfigsResourceResponse),
        ApiKey.DESCRIBE_CLUSTER: describe_cluster,
        ApiKey.DESCRIBE_LOG_DIRS: describe_log_dirs,
        ApiKey.DESCRIBE_TOPIC_PARTITIONS: describe_topic_partitions,
        ApiKey.DESCRIBE_ACLS: describe_acls,
        ApiKey.CREATE_ACLS: create_acls,
        ApiKey.DELETE_ACLS: delete_acls,
    }
