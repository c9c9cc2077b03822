"""The acceptor's decisions with stand-in connections (no sockets, no listeners): refused
addresses are closed, connections over max.connections wait unread and are admitted in
order as others close, the inter-broker listener pushes out the least recently used."""
from __future__ import annotations

import asyncio

import pytest

from kafpy.broker.acceptor import Acceptor
from kafpy.broker.connection_quotas import ConnectionQuotas

INT_MAX = 2**31 - 1


class Transport:
    def __init__(self) -> None:
        self.reading = True

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True


class Conn:
    def __init__(self, listener: str, ip: str, last_active: float = 0.0) -> None:
        self.listener = listener
        self.peer = (ip, 1234)
        self.transport = Transport()
        self.closed = False
        self.admitted = False
        self.last_active = last_active

    def abort(self) -> None:
        self.closed = True


@pytest.fixture
def loop():
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


def make(loop, listeners=("PLAINTEXT",), **kw) -> Acceptor:
    args = {"max_connections": INT_MAX, "max_per_ip": INT_MAX}
    args.update(kw)
    return Acceptor(ConnectionQuotas(list(listeners), **args), set(), None, loop, lambda: 42.0)  # type: ignore[arg-type]


def test_an_address_over_its_limit_is_closed_and_the_rest_admitted(loop) -> None:
    a = make(loop, max_per_ip=1)
    c1, c2, c3 = Conn("PLAINTEXT", "a"), Conn("PLAINTEXT", "a"), Conn("PLAINTEXT", "b")
    for c in (c1, c2, c3):
        a.opened(c)
    assert c1.admitted and c3.admitted and a.connections == {c1, c3}
    assert c2.closed and not c2.admitted
    a.closed(c2)                       # its connection_lost changes no count
    assert a.quotas.total == 2


def test_connections_over_max_connections_wait_unread_and_are_admitted_in_order(loop) -> None:
    a = make(loop, max_connections=1)
    first, second, third = (Conn("PLAINTEXT", ip) for ip in "abc")
    for c in (first, second, third):
        a.opened(c)
    assert first.admitted and not second.admitted and not third.admitted
    assert not second.transport.reading and not third.transport.reading
    assert "PLAINTEXT" in a.paused     # the listener stopped accepting
    first.closed = True
    a.closed(first)
    assert second.admitted and second.transport.reading and second.last_active == 42.0
    assert not third.admitted and "PLAINTEXT" in a.paused
    third.closed = True                # the peer gave up while waiting
    a.closed(third)
    second.closed = True
    a.closed(second)
    assert a.quotas.total == 0 and not a.waiting["PLAINTEXT"] and "PLAINTEXT" not in a.paused


def test_the_inter_broker_listener_closes_the_least_recently_used_client_connection(loop) -> None:
    a = make(loop, listeners=("CLIENT", "INTERNAL"), max_connections=2, inter_broker_listener="INTERNAL")
    old, recent = Conn("CLIENT", "a", last_active=1.0), Conn("CLIENT", "b", last_active=5.0)
    a.opened(old)
    a.opened(recent)
    broker = Conn("INTERNAL", "c")
    a.opened(broker)
    assert broker.admitted and old.closed and not recent.closed
    assert a.quotas.total == 2 and a.connections == {recent, broker}
    a.closed(old)                      # its connection_lost arrives later: counted once
    assert a.quotas.total == 2
