"""How many HTTP requests each client may have in progress: the bounds the HTTP server keeps
so that no one client (logged in or not) takes every slot.

Who may call it: ``kafpy.web.server.HttpServer``'s middlewares, once per request, ``admit``
before the handler and ``release`` after it. Pure bookkeeping, no clock, no I/O.

Three budgets, each with a total and a share per client:

- ``AUTHENTICATING``: requests whose credentials are being checked (a SCRAM check costs
  milliseconds of PBKDF2), per client address, since no principal is known yet;
- ``SHORT``: every other request, per principal (``User:<name>``), or per address for open
  paths and when HTTP authentication is off;
- ``LONG_POLL``: requests that wait for data by design (the REST Proxy's ``/records``, up to
  its ``timeout``) have a budget of their own, so a loop of long polls never takes the slots
  a short request (``/metrics``, a produce) needs.

Why a share per client rather than a rate: a slow-body or long-poll flood is a handful of
requests held open, not many; counting what is in progress bounds it whatever the rate.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Budget(Enum):
    AUTHENTICATING = "authenticating"
    SHORT = "short"
    LONG_POLL = "long-poll"


@dataclass(frozen=True)
class Bound:
    """At most ``total`` requests in progress, at most ``per_client`` of them one client's."""
    total: int
    per_client: int


@dataclass
class _Pool:
    bound: Bound
    in_flight: int = 0
    by_client: dict[str, int] = field(default_factory=dict)


class Refusal(Enum):
    """Why ``admit`` said no: the whole budget is taken, or this client's share of it."""
    TOTAL = "total"
    CLIENT = "client"


class Admission:
    """Keeps the requests in progress per budget and per client (a principal or an
    ``address:<ip>`` key)."""

    def __init__(self, bounds: dict[Budget, Bound]) -> None:
        self.pools = {budget: _Pool(bound) for budget, bound in bounds.items()}

    def admit(self, budget: Budget, client: str) -> Refusal | None:
        """Counts the request in and answers None, or counts nothing and answers why not."""
        pool = self.pools[budget]
        held = pool.by_client.get(client, 0)
        if pool.in_flight >= pool.bound.total:
            return Refusal.TOTAL
        if held >= pool.bound.per_client:
            return Refusal.CLIENT
        pool.in_flight += 1
        pool.by_client[client] = held + 1
        return None

    def release(self, budget: Budget, client: str) -> None:
        pool = self.pools[budget]
        held = pool.by_client.get(client, 0)
        if held <= 0:
            return
        pool.in_flight -= 1
        if held == 1:
            del pool.by_client[client]   # no key left behind per client ever seen
        else:
            pool.by_client[client] = held - 1

    def in_flight(self, budget: Budget, client: str | None = None) -> int:
        pool = self.pools[budget]
        return pool.in_flight if client is None else pool.by_client.get(client, 0)
