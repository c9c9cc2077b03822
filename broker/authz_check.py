"""The pieces authorization rules are made of: the per-request check (``AuthzCheck``), the
topic filter that takes unauthorized topics out of a request and answers them with an error,
and rules for requests judged on one resource (cluster, group).

Who may call it: ``kafpy.broker.authorization_rules``, and handlers whose checks Kafka makes
after the coordinator answered (``topic_permission``, ``unauthorized_to_create``). No state beyond
one request.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, NoReturn, Optional, Protocol, Sequence, TypeVar, Union

from kafpy.protocol import codec, messages
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message, Struct

from kafpy.broker.handler import RequestContext
from kafpy.broker.security.acl import CLUSTER_NAME, SUPPORTED_OPERATIONS, AclOperation, ResourceType
from kafpy.broker.security.authorizer import Authorizer

ANONYMOUS = "User:ANONYMOUS"
_Key = TypeVar("_Key")

# What a handler answers: its API's response, or None for none (Produce with acks=0).
Response = Optional[Message]
# The handler a rule runs (``Handler.func``: dispatch gives it its API's request class).
Next = Callable[[RequestContext, Message], Awaitable[Response]]
# A rule is written on the request class of the API it serves; the table that holds them spans
# every API, so the request is the bottom type here (any rule fits) and the one caller,
# ``authorization.guard``, casts once to call it on the request dispatch decoded for its API.
Rule = Callable[["AuthzCheck", RequestContext, NoReturn, Next], Awaitable[Response]]
RuleCall = Callable[["AuthzCheck", RequestContext, Message, Next], Awaitable[Response]]


class ConfigResource(Protocol):
    """A resource of a DescribeConfigs, AlterConfigs or IncrementalAlterConfigs request."""

    @property
    def resource_type(self) -> int: ...

    @property
    def resource_name(self) -> str: ...


# A request judged on one group.
GroupRequest = Union[messages.JoinGroupRequest, messages.HeartbeatRequest, messages.LeaveGroupRequest,
                     messages.SyncGroupRequest]


def principal_of(ctx: RequestContext) -> str:
    """``Type:name`` of who sent the request (User:ANONYMOUS before authentication)."""
    return str(ctx.principal)


class AuthzCheck:
    """One request's questions to the authorizer; ``denied`` counts refusals (Produce with
    acks=0 closes the connection on any)."""

    __slots__ = ("authorizer", "principal", "host", "denied")

    def __init__(self, ctx: RequestContext, authorizer: Authorizer) -> None:
        self.authorizer = authorizer
        self.principal = principal_of(ctx)
        self.host = ctx.client_host
        self.denied = 0

    def ok(self, op: AclOperation, resource_type: ResourceType, name: str) -> bool:
        if self.authorizer.authorize(self.principal, self.host, op, resource_type, name):
            return True
        self.denied += 1
        return False

    def cluster(self, op: AclOperation) -> bool:
        return self.ok(op, ResourceType.CLUSTER, CLUSTER_NAME)

    def any_of_type(self, op: AclOperation, resource_type: ResourceType) -> bool:
        return self.authorizer.authorize_by_resource_type(self.principal, self.host, op, resource_type)

    def operations_bits(self, resource_type: ResourceType, name: str) -> int:
        """Kafka's authorized-operations bit field: bit ``op`` for each allowed operation."""
        bits = 0
        for op in SUPPORTED_OPERATIONS[resource_type]:
            if self.authorizer.authorize(self.principal, self.host, op, resource_type, name):
                bits |= 1 << op
        return bits


def topic_permission(ctx: RequestContext, op: AclOperation) -> Callable[[str], bool] | None:
    """For a handler that must judge topics the request does not name (an incremental fetch
    session's partitions): None without an authorizer, else ``topic -> allowed``, decided
    once per topic per request (each decision is the authorizer's cached dict lookup)."""
    authorizer = ctx.services.authorizer
    if authorizer is None:
        return None
    az = AuthzCheck(ctx, authorizer)
    decided: dict[str, bool] = {}

    def allowed(topic: str) -> bool:
        d = decided.get(topic)
        if d is None:
            d = decided[topic] = az.ok(op, ResourceType.TOPIC, topic)
        return d
    return allowed


def unauthorized_to_create(ctx: RequestContext, names: list[str]) -> list[str]:
    """The topics of ``names`` the request's principal may not create (none without an
    authorizer, or with CREATE on the cluster): Kafka's check before it creates a Streams
    group's internal topics, made after the coordinator named them."""
    authorizer = ctx.services.authorizer
    if authorizer is None or not names:
        return []
    az = AuthzCheck(ctx, authorizer)
    if az.cluster(AclOperation.CREATE):
        return []
    return [n for n in names if not az.ok(AclOperation.CREATE, ResourceType.TOPIC, n)]


def top_error(ctx: RequestContext, code: ErrorCode, **fields: object) -> Message:
    """This API's response with only its top-level ``error_code`` set."""
    response: Message = codec.response_class(ctx.header.request_api_key, ctx.api_version)(error_code=code, **fields)
    return response


def nested(owner: type[Message], struct: type[Struct], field: str) -> type[Struct]:
    """The struct class of array ``field`` of ``struct`` (generated classes hang off ``owner``)."""
    for f in getattr(struct, "FIELDS"):
        if f.name == field:
            struct_class: type[Struct] = getattr(owner, f.type.lstrip("[]"))
            return struct_class
    raise KeyError(field)


@dataclass(frozen=True)
class TopicPath:
    """Where a request keeps its topics and partitions and where its response answers them:
    ``req_index`` None means the partitions are plain ints."""
    req_topics: str
    req_name: str
    req_parts: str
    req_index: str | None
    resp_topics: str
    resp_name: str
    resp_parts: str
    resp_index: str
    resp_error: str = "error_code"


def _topic_name(ctx: RequestContext, t: Struct, path: TopicPath) -> str | None:
    name = getattr(t, path.req_name, None)
    if not name:
        tid = getattr(t, "topic_id", None)
        name = ctx.services.metadata_cache.topic_name(tid) if tid else None
    return name


async def filter_topics(az: AuthzCheck, ctx: RequestContext, req: Message, func: Next, path: TopicPath,
                        allowed: Callable[[str], bool],
                        code: ErrorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED, holder: Struct | None = None
                        ) -> Response:
    """Runs ``func`` on the topics ``allowed`` accepts; the others are answered ``code`` for
    every partition the request named. ``holder`` is the struct holding the topics (the
    request itself unless nested)."""
    holder = req if holder is None else holder
    topics = getattr(holder, path.req_topics)
    if not topics:
        return await func(ctx, req)
    keep: list[tuple[Struct, str | None]] = []
    denied: list[tuple[Struct, str | None]] = []
    for t in topics:
        name = _topic_name(ctx, t, path)
        (keep if name is None or allowed(name) else denied).append((t, name))
    if not denied:
        return await func(ctx, req)
    setattr(holder, path.req_topics, [t for t, _ in keep])
    resp = await func(ctx, req)
    if resp is None:
        return None
    add_topic_errors(resp, resp, path, [(t, n) for t, n in denied], code)
    return resp


def add_topic_errors(resp: Message, holder: Struct, path: TopicPath, denied: Sequence[tuple[Struct, str | None]],
                     code: ErrorCode) -> None:
    """Appends an entry per denied request topic to ``holder``'s response topics."""
    owner = type(resp)
    topic_class = nested(owner, type(holder), path.resp_topics)
    part_class = nested(owner, topic_class, path.resp_parts)
    topic_fields = set(getattr(topic_class, "__slots__"))
    out = getattr(holder, path.resp_topics)
    for t, name in denied:
        parts = getattr(t, path.req_parts) or []
        indexes = parts if path.req_index is None else [getattr(p, path.req_index) for p in parts]
        entry = topic_class(**{path.resp_name: name,
                               path.resp_parts: [part_class(**{path.resp_index: i, path.resp_error: code})
                                                 for i in indexes]})
        if "topic_id" in topic_fields and getattr(t, "topic_id", None) is not None:
            setattr(entry, "topic_id", getattr(t, "topic_id"))
        out.append(entry)


async def filter_items(ctx: RequestContext, req: Message, func: Next, items_attr: str, key: Callable[[Any], _Key],
                       allowed: Callable[[_Key], bool], resp_attr: str,
                       error_entry: Callable[[Response, Any], Struct]) -> Response:
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


DESCRIBED_UNAUTHORIZED = "The group has described topic(s) that the client is not authorized to describe."


def hide_groups_naming_denied_topics(az: AuthzCheck, resp: Any, D: type, targets: bool) -> None:
    """Kafka 4.4's describe of a modern group: a group whose members' assignments (and target
    assignments, ``targets``) name a topic the caller may not DESCRIBE is answered
    TOPIC_AUTHORIZATION_FAILED without its members."""
    for i, g in enumerate(resp.groups):
        if g.error_code != ErrorCode.NONE:
            continue
        names = {tp.topic_name for m in g.members
                 for a in ((m.assignment, m.target_assignment) if targets else (m.assignment,)) if a is not None
                 for tp in a.topic_partitions}
        if not all(az.ok(AclOperation.DESCRIBE, ResourceType.TOPIC, n) for n in sorted(names)):
            resp.groups[i] = D(group_id=g.group_id, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED,
                               error_message=DESCRIBED_UNAUTHORIZED, members=[])


STREAMS_DESCRIBED_UNAUTHORIZED = "The described group uses topics that the client is not authorized to describe."


def hide_streams_groups_naming_denied_topics(az: AuthzCheck, resp: Any, D: type) -> None:
    """Kafka 4.4's StreamsGroupDescribe: a group whose topology names a topic (source,
    repartition, changelog) the caller may not DESCRIBE is answered TOPIC_AUTHORIZATION_FAILED
    without its members and topology."""
    for i, g in enumerate(resp.groups):
        if g.error_code != ErrorCode.NONE or g.topology is None:
            continue
        names = {n for s in g.topology.subtopologies for n in (
            *s.source_topics, *s.repartition_sink_topics, *(t.name for t in s.repartition_source_topics),
            *(t.name for t in s.state_changelog_topics))}
        if not all(az.ok(AclOperation.DESCRIBE, ResourceType.TOPIC, n) for n in sorted(names)):
            resp.groups[i] = D(group_id=g.group_id, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED,
                               error_message=STREAMS_DESCRIBED_UNAUTHORIZED, members=[])


def topic_id_of(ctx: RequestContext, name: str) -> bytes:
    """The topic's id, or the zero id when it does not exist (as Kafka answers it)."""
    info = ctx.services.metadata_cache.topic(name)
    return bytes(info.topic_id) if info is not None and getattr(info, "topic_id", None) else bytes(16)


def topic_allowed(az: AuthzCheck, op: AclOperation) -> Callable[[str], bool]:
    """``name -> az.ok(op, TOPIC, name)``, for ``filter_topics``."""
    return lambda name: az.ok(op, ResourceType.TOPIC, name)


async def no_check(az: AuthzCheck, ctx: RequestContext, req: Message, func: Next) -> Response:
    """Served to anyone (ApiVersions, the SASL exchange)."""
    return await func(ctx, req)


def cluster_rule(op: AclOperation) -> RuleCall:
    """Allowed only with ``op`` on the cluster; otherwise the top-level error."""
    async def rule(az: AuthzCheck, ctx: RequestContext, req: Message, func: Next) -> Response:
        if az.cluster(op):
            return await func(ctx, req)
        return top_error(ctx, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    return rule


def group_rule(op: AclOperation) -> Callable[[AuthzCheck, RequestContext, GroupRequest, Next], Awaitable[Response]]:
    """Allowed only with ``op`` on the request's ``group_id``; otherwise the top-level error."""
    async def rule(az: AuthzCheck, ctx: RequestContext, req: GroupRequest, func: Next) -> Response:
        if az.ok(op, ResourceType.GROUP, req.group_id):
            return await func(ctx, req)
        return top_error(ctx, ErrorCode.GROUP_AUTHORIZATION_FAILED)
    return rule
