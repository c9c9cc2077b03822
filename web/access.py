"""What a handler asks of the caller's rights beyond the route's own: a listing filtered to
what the caller may DESCRIBE, the topics a REST consumer reads, the groups on the status page.

Who may call it: the handlers of the HTTP stack (``kafpy.rest``, ``kafpy.web.status_page``).
The broker's HTTP authorization (``kafpy.broker.http_auth``) leaves ``request[MAY_KEY]``, a
``May``; without it (no authorizer, or HTTP authentication off) every right is granted, as
Kafka grants everything without an authorizer. The keys of what the HTTP stack leaves on a
request are here, as aiohttp's typed ``RequestKey`` objects: every writer and reader names the
same object, so a reader cannot miss a right left under a misspelt string. Names are Kafka's, as strings, because this
floor sits below the broker's ACL types: resource types ``TOPIC``, ``GROUP``, ``CLUSTER``,
operations ``READ``, ``WRITE``, ``DESCRIBE``, ``DESCRIBE_CONFIGS``...
"""
from __future__ import annotations

from typing import Callable, Iterable, TypeVar

from aiohttp import web

May = Callable[[str, str, str], bool]
"""(resource type, resource name, operation) -> whether the caller holds the right."""
MAY_KEY = web.RequestKey[May]("may")
"""The caller's rights, left by the broker's HTTP authorization."""
PRINCIPAL_KEY = web.RequestKey("principal", str)
"""The logged-in caller's ``User:<name>``, left by Basic authentication."""
BODY_KEY = web.RequestKey("body", bytes)
"""The request's body, read whole (bounded) by the HTTP server before authorization."""
T = TypeVar("T")


def may(request: web.Request, resource_type: str, name: str, operation: str) -> bool:
    check = request.get(MAY_KEY)
    return True if check is None else check(resource_type, name, operation)


def allowed(request: web.Request, resource_type: str, operation: str, items: Iterable[T],
            name: Callable[[T], str]) -> list[T]:
    """The items whose resource (``name(item)``) the caller may ``operation``, in order."""
    return [item for item in items if may(request, resource_type, name(item), operation)]


def subject_topic(subject: str) -> str:
    """The topic a Schema Registry subject belongs to under Confluent's TopicNameStrategy
    (``<topic>-key``, ``<topic>-value``; any other subject is the topic of its own name): a
    subject's rights are its topic's."""
    for suffix in ("-key", "-value"):
        if subject.endswith(suffix) and len(subject) > len(suffix):
            return subject[:-len(suffix)]
    return subject


def principal_of(request: web.Request) -> str | None:
    """The caller's ``User:<name>``; None when HTTP authentication is off or the path is open."""
    return request.get(PRINCIPAL_KEY)
