"""What a handler asks of the caller's rights beyond the route's own: a listing filtered to
what the caller may DESCRIBE, the topics a REST consumer reads, the groups on the status page.

Who may call it: the handlers of the HTTP stack (``kafpy.rest``, ``kafpy.web.status_page``).
The broker's HTTP authorization (``kafpy.broker.http_auth``) leaves ``request["may"]``, a
``May``; without it (no authorizer, or HTTP authentication off) every right is granted, as
Kafka grants everything without an authorizer. Names are Kafka's, as strings, because this
floor sits below the broker's ACL types: resource types ``TOPIC``, ``GROUP``, ``CLUSTER``,
operations ``READ``, ``WRITE``, ``DESCRIBE``, ``DESCRIBE_CONFIGS``...
"""
from __future__ import annotations

from typing import Callable, Iterable, Protocol, TypeVar

May = Callable[[str, str, str], bool]
"""(resource type, resource name, operation) -> whether the caller holds the right."""
MAY_KEY = "may"
PRINCIPAL_KEY = "principal"
T = TypeVar("T")


class RequestState(Protocol):
    """What is read of a request: the values the HTTP stack left on it (an aiohttp
    ``web.Request`` is one)."""

    def get(self, key: str, /) -> object: ...


def may(request: RequestState, resource_type: str, name: str, operation: str) -> bool:
    check = request.get(MAY_KEY)
    return bool(check(resource_type, name, operation)) if callable(check) else True


def allowed(request: RequestState, resource_type: str, operation: str, items: Iterable[T],
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


def principal_of(request: RequestState) -> str | None:
    """The caller's ``User:<name>``; None when HTTP authentication is off or the path is open."""
    principal = request.get(PRINCIPAL_KEY)
    return principal if isinstance(principal, str) else None
