"""The broker-to-broker client: requests to one other broker over one connection at a time.

Who may call it: the replica fetcher (one client per leader it fetches from) and the
controller's channel to each broker. It plays the part of Kafka's ``NetworkClient`` with
one destination node, as ``ReplicaFetcherBlockingSend`` and the controller's
``RequestSendThread`` use it:

- ``send(api_key, body)`` connects when needed and returns the decoded response body.
  Requests are pipelined on the connection; callers may await their responses
  concurrently.
- On every new connection it sends ApiVersions first and keeps, per API, the highest
  version both sides support, capped by what ``kafpy.protocol.codec`` knows
  (``api_version(api_key)``, Kafka's ``NodeApiVersions.latestUsableVersion``).
- A connection attempt waits out the reconnect backoff of Kafka's
  ``ClusterConnectionStates``: reconnect.backoff.ms after a disconnect, doubling with
  each failed attempt up to reconnect.backoff.max.ms, with +-20 % jitter; a successful
  connection resets it. ``ready()`` makes one attempt; the caller decides whether to
  retry (as the fetcher backs off and retries).
- request.timeout.ms bounds each request; a timed-out request fails with
  ``RequestTimedOut`` and the connection is closed.
- ``close()`` fails every pending request with ``Disconnected``.

- Security: ``security`` (a broker passes its inter-broker listener's to every client it
  makes for another broker; None is PLAINTEXT) gives the TLS context the connection is opened
  with, and the SASL exchange run right after ApiVersions, before any other request (Kafka's
  client channel).

Time comes from ``timer`` (the event loop by default: ``time()`` and ``call_later()``), so
tests drive timeouts and backoff with a manual clock; ``connector`` opens connections
(``loop.create_connection`` by default), so tests use an in-memory transport.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import math
import random
import ssl
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Iterable, Mapping, Protocol, TypeVar

from kafpy.protocol import codec
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode, UnsupportedVersion
from kafpy.protocol.messages import Message, RequestHeader

from kafpy.replication.broker_connection import (MAX_RESPONSE_BYTES, BrokerConnection, Disconnected, NetworkError,
                                                 RequestTimedOut, Timer)

log = logging.getLogger("kafka.clients.NetworkClient")

CLIENT_SOFTWARE_NAME = "kafpy"
CLIENT_SOFTWARE_VERSION = "0.1.0"
RECONNECT_BACKOFF_MULTIPLIER = 2      # Kafka's CommonClientConfigs.RECONNECT_BACKOFF_MULTIPLIER
RECONNECT_BACKOFF_JITTER = 0.2        # ... and RECONNECT_BACKOFF_JITTER
RESPONSE_BUFFER_SIZE = 64 * 1024

_T = TypeVar("_T")
Connector = Callable[[Callable[[], BrokerConnection]], Awaitable[tuple[asyncio.BaseTransport, BrokerConnection]]]


class ConnectionSecurity(Protocol):
    """What a connection needs of its listener's security (``kafpy.broker.security.client.ClientSecurity``)."""

    @property
    def ssl_context(self) -> ssl.SSLContext | None: ...

    async def authenticate(self, exchange: Callable[[int, Any], Awaitable[Any]]) -> None: ...


@dataclass(frozen=True)
class NetworkClientConfig:
    """The client's settings, in Kafka's client config names (``from_properties``)."""

    request_timeout_ms: int = 30000
    reconnect_backoff_ms: int = 50
    reconnect_backoff_max_ms: int = 1000
    connection_setup_timeout_ms: int = 10000
    max_response_bytes: int = MAX_RESPONSE_BYTES

    @classmethod
    def from_properties(cls, props: Mapping[str, str | int | float]) -> "NetworkClientConfig":
        """From request.timeout.ms, reconnect.backoff.ms, reconnect.backoff.max.ms and
        socket.connection.setup.timeout.ms; defaults for those not given."""
        d = cls()
        return cls(
            request_timeout_ms=int(props.get("request.timeout.ms", d.request_timeout_ms)),
            reconnect_backoff_ms=int(props.get("reconnect.backoff.ms", d.reconnect_backoff_ms)),
            reconnect_backoff_max_ms=int(props.get("reconnect.backoff.max.ms", d.reconnect_backoff_max_ms)),
            connection_setup_timeout_ms=int(props.get("socket.connection.setup.timeout.ms",
                                                      d.connection_setup_timeout_ms)),
        )


class ExponentialBackoff:
    """Kafka's ``ExponentialBackoff``: ``initial * multiplier**attempts`` capped at ``maximum``,
    times a random factor in [1 - jitter, 1 + jitter), never above ``maximum``."""

    def __init__(self, initial_ms: float, multiplier: float, maximum_ms: float, jitter: float,
                 rand: Callable[[], float] = random.random) -> None:
        self.initial_ms = min(initial_ms, maximum_ms)
        self.multiplier = multiplier
        self.maximum_ms = maximum_ms
        self.jitter = jitter
        self.rand = rand
        self.exp_max = (math.log(maximum_ms / max(initial_ms, 1)) / math.log(multiplier)
                        if maximum_ms > initial_ms else 0.0)

    def backoff(self, attempts: int) -> float:
        """Milliseconds to wait after ``attempts`` earlier failures."""
        if self.exp_max == 0:
            return self.initial_ms
        term = self.initial_ms * self.multiplier ** min(attempts, self.exp_max)
        factor = 1.0 if self.jitter <= 0 else 1 - self.jitter + 2 * self.jitter * self.rand()
        return min(float(int(term * factor)), self.maximum_ms)


def usable_versions(ours: Mapping[int, tuple[int, int]], theirs: Iterable[tuple[int, int, int]]) -> dict[int, int]:
    """Per API key both sides know: the highest version in both ranges (APIs whose ranges do
    not meet are left out). ``ours`` maps key -> (min, max); ``theirs`` is (key, min, max)."""
    out: dict[int, int] = {}
    for key, lo, hi in theirs:
        mine = ours.get(key)
        if mine is not None and max(lo, mine[0]) <= min(hi, mine[1]):
            out[key] = min(hi, mine[1])
    return out


def codec_versions() -> dict[int, tuple[int, int]]:
    """The version range of every API our codec can encode requests and decode responses of."""
    return {key: (spec.min_version, spec.max_version) for key, spec in codec.SPECS.items()}


class NetworkClient:
    """A client of one broker (``host``:``port``, ``node_id`` if known). ``client_id`` goes in
    every request header; ``listener_name`` names the listener it was reached through (for
    logs). Use from the event loop's thread only."""

    def __init__(self, host: str, port: int, *, client_id: str, node_id: int = -1,
                 listener_name: str | None = None, config: NetworkClientConfig | None = None,
                 loop: asyncio.AbstractEventLoop | None = None, timer: Timer | None = None,
                 connector: Connector | None = None, rand: Callable[[], float] = random.random,
                 security: ConnectionSecurity | None = None) -> None:
        self.host = host
        self.port = port
        self.client_id = client_id
        self.node_id = node_id
        self.listener_name = listener_name
        self.config = config or NetworkClientConfig()
        self.loop = loop or asyncio.get_running_loop()
        self.timer: Timer = timer or self.loop
        self.security = security
        self._connector = connector or self._connect_tcp
        self.backoff = ExponentialBackoff(self.config.reconnect_backoff_ms, RECONNECT_BACKOFF_MULTIPLIER,
                                          self.config.reconnect_backoff_max_ms, RECONNECT_BACKOFF_JITTER, rand)
        self.destination = (f"node {node_id} ({host}:{port}" + (f", listener {listener_name}" if listener_name else "")
                            + ")")
        self.connection: BrokerConnection | None = None
        self.versions: dict[int, int] | None = None   # negotiated on the last connection
        self.failed_attempts = 0
        self.next_attempt_at = float("-inf")   # timer time before which no connection is tried
        self.closed = False
        self._ours = codec_versions()
        self._correlation = itertools.count()
        self._connecting: asyncio.Future | None = None

    # -- public API ----------------------------------------------------------------------
    @property
    def is_ready(self) -> bool:
        """Connected, and the API versions negotiated."""
        c = self.connection
        return c is not None and not c.closed

    def api_version(self, api_key: ApiKey) -> int:
        """The version requests of ``api_key`` are sent at: the highest both sides support."""
        if self.versions is None:
            raise NetworkError(f"no API versions from {self.destination} yet: not connected")
        v = self.versions.get(api_key)
        if v is None:
            name = codec.SPECS[api_key].name if api_key in codec.SPECS else str(api_key)
            raise UnsupportedVersion(api_key, -1) from NetworkError(
                f"{self.destination} and this client have no common version of {name}")
        return v

    def connection_delay(self) -> float:
        """Seconds until a connection may be tried (0 if now)."""
        return max(0.0, self.next_attempt_at - self.timer.time())

    async def ready(self) -> None:
        """Connects and negotiates API versions unless already done; waits out the reconnect
        backoff first. One attempt: raises ``Disconnected`` (or ``RequestTimedOut``) when it
        fails. Concurrent callers share the attempt."""
        if self.is_ready:
            return
        if self.closed:
            raise Disconnected(f"the client of {self.destination} is closed")
        task = self._connecting
        if task is None:
            task = self._connecting = self.loop.create_task(self._connect())
            task.add_done_callback(self._connect_done)
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if self.closed and task.cancelled():   # close() stopped the attempt, not our caller
                raise Disconnected(f"the client of {self.destination} is closed") from None
            raise

    async def send(self, api_key: ApiKey, body: Message, *, version: int | None = None,
                   timeout_ms: int | None = None) -> Any:
        """Sends a request (at ``version``, else the negotiated one) and returns the decoded
        response body; None for Produce with acks=0, which has no response.
        Raises ``Disconnected``, ``RequestTimedOut`` (after request.timeout.ms or
        ``timeout_ms``), or ``ProtocolError`` for a response that cannot be decoded."""
        await self.ready()
        conn = self.connection
        assert conn is not None
        if version is None:
            version = self.api_version(api_key)
        expect_response = not (api_key == ApiKey.PRODUCE and getattr(body, "acks", 1) == 0)
        timeout = (self.config.request_timeout_ms if timeout_ms is None else timeout_ms) / 1000
        fut = conn.send(self._header(api_key, version), body, expect_response=expect_response, timeout=timeout)
        return await fut

    async def close(self) -> None:
        """Closes the connection; pending and later requests fail with ``Disconnected``."""
        self.closed = True
        if self._connecting is not None:
            self._connecting.cancel()
        conn = self.connection
        if conn is not None:
            conn.close(Disconnected(f"the client of {self.destination} was closed"))
        self.connection = None

    # -- connecting ----------------------------------------------------------------------
    def _header(self, api_key: int, version: int) -> RequestHeader:
        corr = next(self._correlation)
        if corr > 0x7FFFFFFF:
            self._correlation = itertools.count(1)
            corr = 0
        return RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=corr,
                             client_id=self.client_id)

    def _connect_done(self, task: asyncio.Future) -> None:
        self._connecting = None
        if not task.cancelled():
            task.exception()   # retrieved here; every waiter gets it through the shield

    async def _connect_tcp(self, factory: Callable[[], BrokerConnection]
                           ) -> tuple[asyncio.BaseTransport, BrokerConnection]:
        ctx = self.security.ssl_context if self.security is not None else None
        return await self.loop.create_connection(factory, self.host, self.port, ssl=ctx,
                                                 server_hostname=self.host if ctx is not None else None)

    def _new_connection(self) -> BrokerConnection:
        return BrokerConnection(self.loop, self.timer, self.destination,
                                max_response_bytes=self.config.max_response_bytes,
                                buffer_size=RESPONSE_BUFFER_SIZE, on_close=self._connection_closed)

    async def _connect(self) -> None:
        delay = self.connection_delay()
        if delay > 0:
            await self._sleep(delay)
        if self.closed:
            raise Disconnected(f"the client of {self.destination} is closed")
        setup_s = self.config.connection_setup_timeout_ms / 1000
        log.debug("Initiating connection to %s", self.destination)
        try:
            conn, versions = await self._within(self._open(), setup_s, "connection setup")
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self._failed()
            log.info("Connection to %s failed (next attempt in %.0f ms): %s", self.destination,
                     self.connection_delay() * 1000, e)
            if isinstance(e, NetworkError):
                raise
            raise Disconnected(f"connection to {self.destination} failed: {e}") from e
        if self.closed:
            conn.close()
            raise Disconnected(f"the client of {self.destination} is closed")
        self.connection = conn
        self.versions = versions
        self.failed_attempts = 0
        log.debug("Connection to %s is ready", self.destination)

    async def _open(self) -> tuple[BrokerConnection, dict[int, int]]:
        _transport, conn = await self._connector(self._new_connection)
        try:
            versions = await self._negotiate(conn)
            if self.security is not None:
                timeout = self.config.request_timeout_ms / 1000
                await self.security.authenticate(lambda key, body: conn.send(
                    self._header(key, versions[key]), body, timeout=timeout))
            return conn, versions
        except BaseException as e:
            conn.close(e if isinstance(e, Exception) else None)
            raise

    async def _negotiate(self, conn: BrokerConnection) -> dict[int, int]:
        """ApiVersions at the highest version we know; when the broker answers
        UNSUPPORTED_VERSION, again at the highest it named (as Kafka's client does)."""
        lo, version = self._ours[ApiKey.API_VERSIONS]
        timeout = self.config.request_timeout_ms / 1000
        for _ in range(2):
            body = codec.request_class(ApiKey.API_VERSIONS, version)(
                client_software_name=CLIENT_SOFTWARE_NAME, client_software_version=CLIENT_SOFTWARE_VERSION)
            resp = await conn.send(self._header(ApiKey.API_VERSIONS, version), body, timeout=timeout)
            ranges = [(k.api_key, k.min_version, k.max_version) for k in resp.api_keys]
            if resp.error_code == ErrorCode.UNSUPPORTED_VERSION:
                theirs = usable_versions({ApiKey.API_VERSIONS: (lo, version)}, ranges).get(ApiKey.API_VERSIONS)
                if theirs is None or theirs == version:
                    break
                version = theirs
                continue
            if resp.error_code != ErrorCode.NONE:
                raise NetworkError(f"ApiVersions v{version} to {self.destination} failed: "
                                   f"{ErrorCode.of(resp.error_code)!r}")
            return usable_versions(self._ours, ranges)
        raise UnsupportedVersion(ApiKey.API_VERSIONS, version)

    def _failed(self) -> None:
        """A connection attempt failed or a connection closed: Kafka's
        ``ClusterConnectionStates.disconnected``."""
        self.next_attempt_at = self.timer.time() + self.backoff.backoff(self.failed_attempts) / 1000
        self.failed_attempts += 1

    def _connection_closed(self, conn: BrokerConnection) -> None:
        if conn is self.connection:
            self.connection = None
            self._failed()
            log.info("Disconnected from %s: %s", self.destination, conn.close_reason)

    async def _sleep(self, seconds: float) -> None:
        fut = self.loop.create_future()
        handle = self.timer.call_later(seconds, _set_done, fut)
        try:
            await fut
        finally:
            handle.cancel()

    async def _within(self, coro: Awaitable[_T], seconds: float, what: str) -> _T:
        """``coro``'s result, or ``RequestTimedOut`` when it takes longer than ``seconds``."""
        task = asyncio.ensure_future(coro)
        expired: list[bool] = []

        def expire() -> None:
            expired.append(True)
            task.cancel()

        handle = self.timer.call_later(seconds, expire)
        try:
            return await task
        except asyncio.CancelledError:
            if expired:
                raise RequestTimedOut(f"{what} with {self.destination} took longer than "
                                      f"{round(seconds * 1000)} ms") from None
            raise
        finally:
            handle.cancel()


def _set_done(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_result(None)
