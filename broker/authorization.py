"""Authorization of every request, in one place: the operations Kafka's KafkaApis checks per API
(``RULES``), applied by wrapping the handlers before the broker serves them.

A rule sees the request before its handler: it answers a request it may not run at all with
Kafka's error (CLUSTER_, GROUP_, TRANSACTIONAL_ID_, TOPIC_AUTHORIZATION_FAILED), and for
per-topic requests takes the topics the principal may not touch out of the request, runs the
handler on the rest, then puts them back into the response with the error, so a handler
never sees a resource it must not serve. An API served without a rule here is refused
(closed connection) rather than served unchecked.

With no authorizer (``authorizer.class.name`` empty) ``guard_registry`` is not called and the
handlers run bare: no cost at all. With one, a check is the authorizer's cached decision.

Who may call it: the broker, once at startup (``guard_registry``).
"""
from __future__ import annotations

from typing import Any, Callable

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.apis import ApiRegistry
from kafpy.broker.authorization_rules import group_rules, txn_rules, admin_rules
from kafpy.broker.handlers.share import SHARE_APIS, share_rule
from kafpy.broker.handlers.share_state import SHARE_STATE_APIS, share_state_rule
from kafpy.broker.authz_check import AuthzCheck, Next, Rule, TopicPath, cluster_rule, filter_topics, no_check
from kafpy.broker.handler import CloseConnection, Handler, RequestContext
from kafpy.broker.metadata_responses import EncodedMetadataResponse
from kafpy.broker.security.acl import AclOperation as Op, CLUSTER_NAME, ResourceType
from kafpy.broker.security.acl_store import LocalAclStore, ZkAclStore
from kafpy.broker.security.authorizer import Authorizer, create_authorizer
from kafpy.broker.security.credential_rules import credential_rules

__all__ = ["guard_registry", "RULES"]


# -- produce, fetch, offsets, metadata -------------------------------------------------------
PRODUCE = TopicPath("topic_data", "name", "partition_data", "index", "responses", "name", "partition_responses",
                    "index")
FETCH = TopicPath("topics", "topic", "partitions", "partition", "responses", "topic", "partitions",
                  "partition_index")
LIST_OFFSETS = TopicPath("topics", "name", "partitions", "partition_index", "topics", "name", "partitions",
                         "partition_index")
EPOCHS = TopicPath("topics", "topic", "partitions", "partition", "topics", "topic", "partitions", "partition")


async def produce(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    tid = getattr(req, "transactional_id", None)
    if tid is not None and not az.ok(Op.WRITE, ResourceType.TRANSACTIONAL_ID, tid):
        resp = await filter_topics(az, ctx, req, func, PRODUCE, lambda _n: False,
                                   ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    else:
        resp = await filter_topics(az, ctx, req, func, PRODUCE, lambda n: az.ok(Op.WRITE, ResourceType.TOPIC, n))
    if req.acks == 0 and az.denied:
        raise CloseConnection("Produce with acks=0 to topics it may not write")
    return resp


def _is_follower(req: Any, version: int) -> bool:
    if version >= 15:
        return req.replica_state is not None and req.replica_state.replica_id >= 0
    return req.replica_id >= 0


async def fetch(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    """A follower needs CLUSTER_ACTION. A consumer's READ is judged by the handler itself
    (``authz_check.topic_permission``) on every partition it serves: an incremental fetch
    session serves partitions the request does not name, and Kafka re-checks them all on
    every fetch, so a revoked READ stops a session that already holds the topic."""
    if _is_follower(req, ctx.api_version):
        allowed = az.cluster(Op.CLUSTER_ACTION)
        return await filter_topics(az, ctx, req, func, FETCH, lambda _n: allowed)
    return await func(ctx, req)


async def list_offsets(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    return await filter_topics(az, ctx, req, func, LIST_OFFSETS, lambda n: az.ok(Op.DESCRIBE, ResourceType.TOPIC, n))


async def offset_for_leader_epoch(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if getattr(req, "replica_id", -1) >= 0:
        allowed = az.cluster(Op.CLUSTER_ACTION)
        return await filter_topics(az, ctx, req, func, EPOCHS, lambda _n: allowed)
    return await filter_topics(az, ctx, req, func, EPOCHS, lambda n: az.ok(Op.DESCRIBE, ResourceType.TOPIC, n))


async def metadata(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    """Topics the principal may not describe are left out of an all-topics answer and
    answered TOPIC_AUTHORIZATION_FAILED when named; a missing topic is auto-created only with
    CREATE on the cluster or the topic; authorized operations are filled in when asked."""
    cache = ctx.services.metadata_cache
    explicit = bool(req.topics) or (req.topics is not None and ctx.api_version >= 1)
    denied: list[str] = []
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
    resp = await func(ctx, req)
    if isinstance(resp, EncodedMetadataResponse):
        resp = resp.plain()   # changed below: not the cache's shared, pre-encoded entries
    if explicit and not req.topics and ctx.api_version == 0:
        resp.topics = []  # v0's empty list asks for every topic: none of them is wanted
    T = type(resp).MetadataResponseTopic
    topics = []
    for t in resp.topics:
        if t.name is None or az.ok(Op.DESCRIBE, ResourceType.TOPIC, t.name):
            topics.append(t)
        elif explicit:
            denied.append(t.name)
    topics.extend(T(error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED, name=n, is_internal=False, partitions=[])
                  for n in denied)
    resp.topics = topics
    if ctx.api_version >= 8:
        if req.include_topic_authorized_operations:
            for t in topics:
                if t.error_code == ErrorCode.NONE and t.name is not None:
                    t.topic_authorized_operations = az.operations_bits(ResourceType.TOPIC, t.name)
        if ctx.api_version <= 10 and req.include_cluster_authorized_operations:
            resp.cluster_authorized_operations = az.operations_bits(ResourceType.CLUSTER, CLUSTER_NAME)
    return resp


# -- the table -------------------------------------------------------------------------------
RULES: dict[ApiKey, Rule] = {
    ApiKey.PRODUCE: produce,
    ApiKey.FETCH: fetch,
    ApiKey.LIST_OFFSETS: list_offsets,
    ApiKey.METADATA: metadata,
    ApiKey.API_VERSIONS: no_check,
    ApiKey.SASL_HANDSHAKE: no_check,
    ApiKey.SASL_AUTHENTICATE: no_check,
    ApiKey.OFFSET_FOR_LEADER_EPOCH: offset_for_leader_epoch,
    # controller and broker-to-broker requests
    ApiKey.LEADER_AND_ISR: cluster_rule(Op.CLUSTER_ACTION),
    ApiKey.STOP_REPLICA: cluster_rule(Op.CLUSTER_ACTION),
    ApiKey.UPDATE_METADATA: cluster_rule(Op.CLUSTER_ACTION),
    ApiKey.CONTROLLED_SHUTDOWN: cluster_rule(Op.CLUSTER_ACTION),
    ApiKey.ALTER_PARTITION: cluster_rule(Op.CLUSTER_ACTION),
    ApiKey.ALLOCATE_PRODUCER_IDS: cluster_rule(Op.CLUSTER_ACTION),
    ApiKey.ELECT_LEADERS: cluster_rule(Op.ALTER),
    ApiKey.ALTER_PARTITION_REASSIGNMENTS: cluster_rule(Op.ALTER),
    ApiKey.LIST_PARTITION_REASSIGNMENTS: cluster_rule(Op.DESCRIBE),
    ApiKey.UPDATE_FEATURES: cluster_rule(Op.ALTER),
    **{key: share_state_rule for key in SHARE_STATE_APIS},   # the share coordinator's persister RPCs
    **{key: share_rule for key in SHARE_APIS},               # ShareFetch, ShareAcknowledge
    **group_rules(),
    **txn_rules(),
    **admin_rules(),
    **credential_rules(),   # DescribeUserScramCredentials, AlterUserScramCredentials
}


def guard(handler: Handler, authorizer: Authorizer) -> Handler:
    """``handler`` with its API's rule in front."""
    rule = RULES.get(handler.api_key)
    if rule is no_check:
        return handler
    inner = handler.func

    if rule is None:
        async def refuse(ctx: RequestContext, req: Any) -> Any:
            raise CloseConnection(f"api key {handler.api_key} has no authorization rule")
        return Handler(handler.api_key, handler.min_version, handler.max_version, refuse)

    async def checked(ctx: RequestContext, req: Any) -> Any:
        return await rule(AuthzCheck(ctx, authorizer), ctx, req, inner)
    return Handler(handler.api_key, handler.min_version, handler.max_version, checked)


async def start_authorizer(config: Any, zk: Any, controller: Any, clock: Callable[[], float]) -> Authorizer | None:
    """The authorizer ``authorizer.class.name`` names, loaded and started, with its ACLs in
    ZooKeeper (``zk`` given) or in the standalone controller's metadata file; None when the
    setting is empty."""
    if zk is not None:
        store: Any = ZkAclStore(zk, clock)
    else:
        store = LocalAclStore(controller.acls, controller.update_acls)
    authorizer = create_authorizer(config, store)
    if authorizer is not None:
        await authorizer.start()
    return authorizer


def guard_registry(apis: ApiRegistry, authorizer: Authorizer) -> ApiRegistry:
    """The same APIs and versions, each behind its authorization rule."""
    return ApiRegistry([guard(h, authorizer) for h in apis.by_key.values()])

