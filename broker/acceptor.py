"""Admission of accepted connections under the broker's connection limits.

Made by the socket server, one per server; it is told of every connection that opens and
closes, asks ``ConnectionQuotas`` and acts as Kafka's acceptors do:

- a connection from an address over ``max.connections.per.ip`` is closed at once;
- when its listener or the broker is full, the accepted connection waits unread and the
  listener stops accepting, so further clients wait in the kernel's listen backlog, until
  a connection closes (Kafka's acceptor thread blocks the same way);
- a connection the exempt inter-broker listener takes over ``max.connections`` makes the
  least recently active connection of another listener close.

Stopping and restarting a listener keeps its socket and backlog: before the asyncio server
is closed its listening sockets are ``dup()``ed, and a new server is started on the
duplicates when accepting resumes (neither uvloop nor asyncio can pause a server).
Holds nothing on disk.
"""
from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections import deque
from typing import Awaitable, Callable, Protocol

from kafpy.broker.connection_quotas import ConnectionQuotas

log = logging.getLogger("kafka.network")


class _Transport(Protocol):
    """What the acceptor does with a connection's transport: stop and restart reading."""

    def pause_reading(self) -> None: ...
    def resume_reading(self) -> None: ...


class Connection(Protocol):
    listener: str
    peer: tuple[str, int]
    closed: bool
    admitted: bool
    last_active: float

    @property
    def transport(self) -> _Transport | None: ...

    def abort(self) -> None: ...


class Acceptor:
    """Keeps the admitted connections (``connections``), those waiting for a slot, and
    each listener's servers. ``serve(listener, sock)`` starts an asyncio server on an
    already listening socket; ``clock`` is the server's, for ``last_active``."""

    def __init__(self, quotas: ConnectionQuotas, connections: set,
                 serve: Callable[[str, socket.socket], Awaitable[asyncio.AbstractServer]],
                 loop: asyncio.AbstractEventLoop, clock: Callable[[], float]) -> None:
        self.quotas = quotas
        self.clock = clock
        self.connections = connections
        self.serve = serve
        self.loop = loop
        self.servers: dict[str, list[asyncio.AbstractServer]] = {}
        self.waiting: dict[str, deque[Connection]] = {}
        self.paused: dict[str, list[int]] = {}   # listener -> dup()s of its listening sockets
        self.stopped = False
        self.created = 0        # connections accepted and closed, ever (the socket-server metrics)
        self.closed_count = 0
        self.created_by_listener: dict[str, int] = {}   # the same per listener
        self.closed_by_listener: dict[str, int] = {}

    def add_server(self, listener: str, srv: asyncio.AbstractServer) -> None:
        self.servers.setdefault(listener, []).append(srv)

    # -- connections ------------------------------------------------------------------
    def opened(self, conn: Connection) -> None:
        self.created += 1
        listener = conn.listener
        self.created_by_listener[listener] = self.created_by_listener.get(listener, 0) + 1
        if self.waiting.get(listener) or not self.quotas.slot_available(listener):
            if conn.transport is not None:
                conn.transport.pause_reading()
            self.waiting.setdefault(listener, deque()).append(conn)
            self._pause(listener)
            return
        self._admit(conn)

    def closed(self, conn: Connection) -> None:
        self.closed_count += 1
        self.closed_by_listener[conn.listener] = self.closed_by_listener.get(conn.listener, 0) + 1
        if not conn.admitted:
            q = self.waiting.get(conn.listener)
            if q and conn in q:
                q.remove(conn)
            return
        conn.admitted = False
        self.connections.discard(conn)
        self.quotas.release(conn.listener, conn.peer[0])
        self._admit_waiting()

    def _admit(self, conn: Connection) -> bool:
        ip = conn.peer[0]
        if not self.quotas.admit(conn.listener, ip):
            log.info("Rejected connection from %s, address already has the configured maximum of %d connections.",
                     ip, self.quotas.max_for(ip))
            conn.abort()
            return False
        conn.admitted = True
        self.connections.add(conn)
        if self.quotas.protected(conn.listener):
            while self.quotas.over_broker_limit() and self._close_least_recently_used():
                pass
        return True

    def limits_changed(self) -> None:
        """The connection limits were altered: admit the connections now within them."""
        self._admit_waiting()

    def _admit_waiting(self) -> None:
        for listener, q in self.waiting.items():
            while q and self.quotas.slot_available(listener):
                conn = q.popleft()
                if conn.closed:
                    continue
                if self._admit(conn):
                    conn.last_active = self.clock()
                    if conn.transport is not None:   # paused when it was queued
                        conn.transport.resume_reading()
            if not q:
                self._resume(listener)

    def _close_least_recently_used(self) -> bool:
        candidates = [c for c in self.connections if not c.closed and not self.quotas.protected(c.listener)]
        if not candidates:
            return False
        victim = min(candidates, key=lambda c: c.last_active)
        log.info("Closing the least recently used connection from %s:%d: max.connections reached and the "
                 "inter-broker listener took one more", *victim.peer)
        victim.abort()
        self.connections.discard(victim)
        if victim.admitted:
            victim.admitted = False
            self.quotas.release(victim.listener, victim.peer[0])
        return True

    # -- listening ----------------------------------------------------------------------
    def _pause(self, listener: str) -> None:
        fds = self.paused.setdefault(listener, [])
        for srv in self.servers.pop(listener, []):
            # asyncio's and uvloop's servers both have the sockets AbstractServer does not declare
            fds.extend(os.dup(s.fileno()) for s in srv.sockets)  # type: ignore[attr-defined]
            srv.close()
        log.info("Listener %s stopped accepting: %d connections open (max.connections %d)", listener,
                 self.quotas.total, self.quotas.max_connections)

    def _resume(self, listener: str) -> None:
        fds = self.paused.pop(listener, None)
        if fds and not self.stopped:
            self.loop.create_task(self._serve_again(listener, fds))
        elif fds:
            for fd in fds:
                os.close(fd)

    async def _serve_again(self, listener: str, fds: list[int]) -> None:
        for fd in fds:
            srv = await self.serve(listener, socket.socket(fileno=fd))
            if self.stopped or listener in self.paused:   # stopped or full again meanwhile
                if listener in self.paused:
                    self.paused[listener].extend(os.dup(s.fileno()) for s in srv.sockets)  # type: ignore[attr-defined]
                srv.close()
            else:
                self.add_server(listener, srv)
        log.info("Listener %s accepting again", listener)

    async def stop(self) -> None:
        """Stops accepting on every listener; waiting connections are closed."""
        self.stopped = True
        servers = [srv for group in self.servers.values() for srv in group]
        self.servers.clear()
        for srv in servers:
            srv.close()
        for fds in self.paused.values():
            for fd in fds:
                os.close(fd)
        self.paused.clear()
        for q in self.waiting.values():
            for conn in q:
                conn.abort()
            q.clear()
        for srv in servers:
            try:
                await asyncio.wait_for(srv.wait_closed(), 1)
            except asyncio.TimeoutError:  # connections still closing: the loop's shutdown ends them
                pass
