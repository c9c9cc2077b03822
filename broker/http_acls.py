"""What a request on the HTTP stack needs from the broker's ACLs: (resource type, name,
operation) triples, from the matched route's template and parameters.

Who may call it: ``kafpy.broker.http_auth`` for every authenticated request when the broker
has an authorizer. A route absent from the table (the status page, ``/v3/clusters``,
``/brokers``, the registry's global reads) needs only a valid login.

The mapping, following Confluent's REST Proxy (which passes the caller's principal on to
Kafka, so Kafka's own rules for produce, consume and admin apply) and its Schema Registry's
topic-based ACL authorizer (a subject's rights are its topic's rights):

- REST produce (v2 ``POST /topics/{t}[/partitions/{p}]``, v3 ``.../records``): WRITE on the topic;
  v2's, which creates a missing topic, also CREATE on the cluster or the topic when it is missing.
- Topic and partition metadata (v2 and v3 ``GET``): DESCRIBE on the topic; topic configs:
  DESCRIBE_CONFIGS; v3 create: CREATE on the topic; v3 delete: DELETE on the topic.
- v2 consumer instances (every ``/consumers/{group}...`` route): READ on the group (reading
  committed offsets: DESCRIBE, as OffsetFetch); subscribing to or assigning topics also READ
  on each topic named in the body. What the route cannot name is checked by the handler as
  the caller (``kafpy.web.access``): READ on each topic at every ``/records`` and commit,
  DESCRIBE for an offsets read and for what a ``topic_pattern`` may match.
- v3 consumer groups and lags: DESCRIBE on the group.
- Listings (v2 and v3 topics, v3 consumer groups, the status page) need a login only and
  list what the caller may DESCRIBE, as Kafka's Metadata and ListGroups filter.
- Schema Registry subjects map to topics by Confluent's default TopicNameStrategy: subject
  ``<topic>-key`` or ``<topic>-value`` is topic ``<topic>``; any other subject is the topic
  of the same name. Confluent's SUBJECT_READ and SUBJECT_COMPATIBILITY_READ (read versions,
  look a schema up, read a subject's config or mode) need READ on the topic; SUBJECT_WRITE,
  SUBJECT_DELETE and SUBJECT_COMPATIBILITY_WRITE (register, test compatibility, delete,
  set a subject's config or mode) need WRITE on it. GLOBAL_COMPATIBILITY_WRITE (``PUT
  /config``, ``PUT /mode``) needs ALTER_CONFIGS on the cluster. Global reads (``/subjects``,
  ``/schemas...``, ``GET /config``, ``GET /mode``) need a login only: a schema id reveals a
  schema, never a record; the subjects they name are only those whose topic the caller may
  DESCRIBE (as a topic listing is filtered).
"""
from __future__ import annotations

import re
from typing import Callable, Mapping

from kafpy.broker.security.acl import AclOperation as Op
from kafpy.broker.security.acl import ResourceType as RT
from kafpy.web.access import subject_topic

__all__ = ["ROUTE_NEEDS", "BODY_ROUTES", "AUTO_CREATING_ROUTES", "route_needs", "body_needs", "subject_topic"]

Need = tuple[RT, str, Op]
CLUSTER_NAME = "kafka-cluster"

_C = "/v3/clusters/{cluster_id}"
_INST = "/consumers/{group}/instances/{instance}"


def _topic(op: Op) -> Callable[[Mapping[str, str]], list[Need]]:
    return lambda p: [(RT.TOPIC, p["topic"], op)]


def _group(op: Op) -> Callable[[Mapping[str, str]], list[Need]]:
    return lambda p: [(RT.GROUP, p["group"], op)]


def _subject(op: Op) -> Callable[[Mapping[str, str]], list[Need]]:
    return lambda p: [(RT.TOPIC, subject_topic(p["subject"]), op)]


def _login_only(p: Mapping[str, str]) -> list[Need]:
    """A route whose parameters name no resource an ACL can hold: a login suffices."""
    return []


def _cluster(op: Op) -> Callable[[Mapping[str, str]], list[Need]]:
    return lambda p: [(RT.CLUSTER, CLUSTER_NAME, op)]


ROUTE_NEEDS: dict[tuple[str, str], Callable[[Mapping[str, str]], list[Need]]] = {
    # REST Proxy v2
    ("GET", "/topics/{topic}"): _topic(Op.DESCRIBE),
    ("POST", "/topics/{topic}"): _topic(Op.WRITE),
    ("GET", "/topics/{topic}/partitions"): _topic(Op.DESCRIBE),
    ("GET", "/topics/{topic}/partitions/{partition}"): _topic(Op.DESCRIBE),
    ("POST", "/topics/{topic}/partitions/{partition}"): _topic(Op.WRITE),
    ("POST", "/consumers/{group}"): _group(Op.READ),
    **{(m, _INST + tail): _group(Op.READ) for m, tail in [
        ("DELETE", ""), ("POST", "/subscription"), ("GET", "/subscription"), ("DELETE", "/subscription"),
        ("POST", "/assignments"), ("GET", "/assignments"), ("POST", "/positions"),
        ("POST", "/positions/beginning"), ("POST", "/positions/end"), ("GET", "/records"),
        ("POST", "/offsets")]},
    ("GET", _INST + "/offsets"): _group(Op.DESCRIBE),   # OffsetFetch: DESCRIBE on the group
    # REST Proxy v3: the cluster and its brokers need a login only, as Kafka's Metadata and
    # DescribeCluster do; the listings show only what the caller may DESCRIBE (kafpy.web.access)
    ("GET", _C): _login_only,
    ("GET", _C + "/brokers"): _login_only,
    ("GET", _C + "/brokers/{broker_id}"): _login_only,
    ("GET", _C + "/topics"): _login_only,
    ("GET", _C + "/consumer-groups"): _login_only,
    ("POST", _C + "/topics"): lambda p: [],   # the topic's name is in the body: see body_needs
    ("GET", _C + "/topics/{topic}"): _topic(Op.DESCRIBE),
    ("DELETE", _C + "/topics/{topic}"): _topic(Op.DELETE),
    ("GET", _C + "/topics/{topic}/partitions"): _topic(Op.DESCRIBE),
    ("GET", _C + "/topics/{topic}/partitions/{partition}"): _topic(Op.DESCRIBE),
    ("GET", _C + "/topics/{topic}/configs"): _topic(Op.DESCRIBE_CONFIGS),
    ("POST", _C + "/topics/{topic}/records"): _topic(Op.WRITE),
    ("GET", _C + "/consumer-groups/{group}"): _group(Op.DESCRIBE),
    ("GET", _C + "/consumer-groups/{group}/lags"): _group(Op.DESCRIBE),
    ("GET", _C + "/consumer-groups/{group}/lag-summary"): _group(Op.DESCRIBE),
    # Schema Registry: a schema by id needs a login only (Confluent's registry has no rule on
    # ids); the subjects it lists are filtered by DESCRIBE on their topics
    **{("GET", "/schemas/ids/{id}" + tail): _login_only for tail in ("", "/schema", "/subjects", "/versions")},
    ("POST", "/subjects/{subject}"): _subject(Op.READ),
    ("DELETE", "/subjects/{subject}"): _subject(Op.WRITE),
    ("GET", "/subjects/{subject}/versions"): _subject(Op.READ),
    ("GET", "/subjects/{subject}/metadata"): _subject(Op.READ),
    ("POST", "/subjects/{subject}/versions"): _subject(Op.WRITE),
    ("GET", "/subjects/{subject}/versions/{version}"): _subject(Op.READ),
    ("GET", "/subjects/{subject}/versions/{version}/schema"): _subject(Op.READ),
    ("GET", "/subjects/{subject}/versions/{version}/referencedby"): _subject(Op.READ),
    ("DELETE", "/subjects/{subject}/versions/{version}"): _subject(Op.WRITE),
    ("POST", "/compatibility/subjects/{subject}/versions/{version}"): _subject(Op.WRITE),
    ("POST", "/compatibility/subjects/{subject}/versions"): _subject(Op.WRITE),
    ("PUT", "/config"): _cluster(Op.ALTER_CONFIGS),
    ("GET", "/config/{subject}"): _subject(Op.READ),
    ("PUT", "/config/{subject}"): _subject(Op.WRITE),
    ("DELETE", "/config/{subject}"): _subject(Op.WRITE),
    ("PUT", "/mode"): _cluster(Op.ALTER_CONFIGS),
    ("GET", "/mode/{subject}"): _subject(Op.READ),
    ("PUT", "/mode/{subject}"): _subject(Op.WRITE),
    ("DELETE", "/mode/{subject}"): _subject(Op.WRITE),
}

AUTO_CREATING_ROUTES = {("POST", "/topics/{topic}"), ("POST", "/topics/{topic}/partitions/{partition}")}
"""v2 produce creates a missing topic, as a producer's Metadata does: that also needs CREATE on
the cluster or on the topic (Kafka's rule for auto-creation), checked when the topic is missing."""

BODY_ROUTES = {("POST", _INST + "/subscription"), ("POST", _INST + "/assignments"), ("POST", _C + "/topics")}
"""Routes whose body names topics: ``body_needs`` adds their rights."""


_PATTERN_IN_BRACES = re.compile(r"\{(\w+):[^}]*\}")


def plain_template(template: str) -> str:
    """``/subjects/{subject:[^/]+}`` as ``/subjects/{subject}``: a route may narrow what its
    parameter matches, and its rule is still found by the parameter's name."""
    return _PATTERN_IN_BRACES.sub(r"{\1}", template)


def route_needs(method: str, template: str, params: Mapping[str, str]) -> list[Need]:
    """The rights the route needs by its path alone."""
    needs = ROUTE_NEEDS.get((method, plain_template(template)))
    return needs(params) if needs is not None else []


def body_needs(method: str, template: str, body: object) -> list[Need]:
    """The rights named in the JSON body of a ``BODY_ROUTES`` route (a malformed body needs
    nothing here: the handler refuses it)."""
    if not isinstance(body, dict):
        return []
    if template.endswith("/subscription"):
        topics = body.get("topics")
        return [(RT.TOPIC, t, Op.READ) for t in topics if isinstance(t, str)] if isinstance(topics, list) else []
    if template.endswith("/assignments"):
        parts = body.get("partitions")
        if not isinstance(parts, list):
            return []
        return [(RT.TOPIC, p["topic"], Op.READ) for p in parts
                if isinstance(p, dict) and isinstance(p.get("topic"), str)]
    name = body.get("topic_name")
    return [(RT.TOPIC, name, Op.CREATE)] if isinstance(name, str) else []
