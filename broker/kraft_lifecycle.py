"""A KRaft broker's registration and heartbeats (Kafka's ``BrokerLifecycleManager``).

The broker registers with the active controller (BrokerRegistration: its incarnation id, its
listeners, the features it supports, its log directories), then sends BrokerHeartbeat every
``broker.heartbeat.interval.ms`` with the offset of the metadata it has published. The
controller fences a new registration until a heartbeat reports an offset at or past the
registration record (``is_caught_up``); the broker then finishes starting and, once it says it
is ready (``set_ready_to_unfence``: heartbeats stop asking ``want_fence``), the controller
unfences it. On shutdown heartbeats ask ``want_shut_down`` until the controller, having moved
the broker's leaderships away, answers ``should_shut_down``; ``await_controlled_shutdown``
stops waiting sooner once no controller has answered for ``broker.session.timeout.ms`` (see
there why that loses nothing).

The state machine (``LifecycleState`` and ``on_heartbeat``) is pure; ``BrokerLifecycleManager``
drives it on the event loop with the clock and sleep passed in. Who calls it: ``KRaftBroker``
(start, ``initial_catch_up``, ``initial_unfenced``, ``begin_controlled_shutdown``, close).
Nothing on disk.
"""
from __future__ import annotations

import asyncio
import enum
import logging
import time
from dataclasses import dataclass
from typing import Awaitable, Callable, Protocol

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import (BrokerHeartbeatRequest, BrokerHeartbeatResponse, BrokerRegistrationRequest,
                                     BrokerRegistrationResponse)

from kafpy.broker.kraft_controller_channel import ControllerUnavailable, NoActiveController
from kafpy.raft.event_wait import wait_event

log = logging.getLogger("kafka.server.BrokerLifecycleManager")

RETRY_BACKOFF_MS = 100  # after a failed registration or heartbeat, as Kafka's first backoff
MAX_RETRY_BACKOFF_MS = 1000
# while no controller is known the request was never sent: look again this often, without
# growing the backoff, so registration follows the first election within a poll (Kafka's
# NodeToControllerRequestThread polls for the controller every 100 ms)
NO_CONTROLLER_POLL_MS = 100


def monotonic_ms() -> int:
    return int(time.monotonic() * 1000)


class LifecycleState(enum.Enum):
    """Kafka's ``BrokerState`` as the lifecycle manager moves it."""

    STARTING = "STARTING"  # registered or registering, metadata not caught up
    RECOVERY = "RECOVERY"  # caught up, still fenced
    RUNNING = "RUNNING"  # unfenced
    PENDING_CONTROLLED_SHUTDOWN = "PENDING_CONTROLLED_SHUTDOWN"
    SHUTTING_DOWN = "SHUTTING_DOWN"


@dataclass
class HeartbeatOutcome:
    """What one heartbeat answer changed: the new state and which milestones it reached."""

    state: LifecycleState
    caught_up: bool = False
    unfenced: bool = False
    shutdown_granted: bool = False
    retry: bool = False


def on_heartbeat(state: LifecycleState, response: BrokerHeartbeatResponse) -> HeartbeatOutcome:
    """The next state after ``response`` (Kafka's ``BrokerHeartbeatResponseEvent``)."""
    if response.error_code != ErrorCode.NONE:
        return HeartbeatOutcome(state, retry=True)
    if state is LifecycleState.STARTING:
        if response.is_caught_up:
            return HeartbeatOutcome(LifecycleState.RECOVERY, caught_up=True)
        return HeartbeatOutcome(state)
    if state is LifecycleState.RECOVERY:
        if not response.is_fenced:
            return HeartbeatOutcome(LifecycleState.RUNNING, unfenced=True)
        return HeartbeatOutcome(state)
    if state is LifecycleState.PENDING_CONTROLLED_SHUTDOWN:
        if response.should_shut_down:
            return HeartbeatOutcome(LifecycleState.SHUTTING_DOWN, shutdown_granted=True)
        return HeartbeatOutcome(state)
    return HeartbeatOutcome(state)


class ControllerSender(Protocol):
    """What the manager sends through (a ``ControllerChannel``)."""

    async def send(self, api_key: ApiKey, body: Message, version: int | None = None,
                   timeout_ms: int | None = None) -> object: ...

    async def close(self) -> None: ...


class BrokerLifecycleManager:
    """Keeps the state, the broker epoch the controller gave, the readiness to unfence, and
    the futures the broker waits on."""

    def __init__(self, broker_id: int, registration: Callable[[], BrokerRegistrationRequest],
                 channel: ControllerSender, metadata_offset: Callable[[], int], *,
                 heartbeat_interval_ms: int, session_timeout_ms: int | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 clock_ms: Callable[[], int] = monotonic_ms) -> None:
        """``registration`` builds the request (listeners are bound by then);
        ``metadata_offset`` is the last offset the broker has published;
        ``session_timeout_ms`` (``broker.session.timeout.ms``) bounds the wait for a controlled
        shutdown that no controller answers (None: only the caller's limit does)."""
        self.broker_id = broker_id
        self.registration = registration
        self.channel = channel
        self.metadata_offset = metadata_offset
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.session_timeout_ms = session_timeout_ms
        self.sleep = sleep
        self.clock_ms = clock_ms
        self.last_answer_ms: int | None = None  # when a controller last accepted the registration or a heartbeat
        self.state = LifecycleState.STARTING
        self.broker_epoch = -1
        self.ready_to_unfence = False
        loop = asyncio.get_running_loop()
        self.initial_catch_up: asyncio.Future[None] = loop.create_future()
        self.initial_unfenced: asyncio.Future[None] = loop.create_future()
        self.controlled_shutdown: asyncio.Future[None] = loop.create_future()
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._failures = 0
        self._awaiting_controller = False  # told once that no controller is known yet

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="broker-lifecycle")

    def set_ready_to_unfence(self) -> None:
        """The broker has published the metadata it caught up to and serves requests."""
        self.ready_to_unfence = True
        self._wakeup.set()

    def begin_controlled_shutdown(self) -> None:
        """Ask the controller to move this broker's leaderships away (heartbeats now say
        ``want_shut_down``); ``controlled_shutdown`` completes when it lets the broker go.
        A broker that never registered has nothing to hand over."""
        if self.broker_epoch < 0:
            _complete(self.controlled_shutdown)
            return
        if self.state is not LifecycleState.SHUTTING_DOWN:
            log.info("[BrokerLifecycleManager id=%d] Beginning controlled shutdown.", self.broker_id)
            self.state = LifecycleState.PENDING_CONTROLLED_SHUTDOWN
        self._wakeup.set()

    async def await_controlled_shutdown(self, limit_s: float) -> bool:
        """After `begin_controlled_shutdown`: True once the controller lets the broker go;
        False when the broker stops waiting, after ``limit_s`` or once no controller has
        answered a heartbeat for ``session_timeout_ms``. Kafka waits for the controller up to
        five minutes; past the session timeout that wait buys nothing: a controller that
        could not hear from the broker that long has fenced it (and moved its leaderships),
        and it grants a fenced broker its shutdown at once. The last node of a cluster whose
        other controllers have stopped would otherwise wait out ``limit_s`` for a quorum that
        is gone."""
        deadline = self.clock_ms() + int(limit_s * 1000)
        while not self.controlled_shutdown.done():
            now = self.clock_ms()
            wait_ms = deadline - now
            if self.session_timeout_ms is not None and self.last_answer_ms is not None:
                expiry = self.last_answer_ms + self.session_timeout_ms
                if now >= expiry:
                    log.warning("[BrokerLifecycleManager id=%d] No controller has answered a heartbeat for %d ms "
                                "(broker.session.timeout.ms): any controller there is has fenced this broker "
                                "by now; ending the controlled shutdown without its answer.",
                                self.broker_id, now - self.last_answer_ms)
                    return False
                wait_ms = min(wait_ms, expiry - now)
            if wait_ms <= 0:
                log.warning("[BrokerLifecycleManager id=%d] The controller did not end the controlled shutdown "
                            "in %.0f s; shutting down anyway", self.broker_id, limit_s)
                return False
            try:
                await asyncio.wait_for(asyncio.shield(self.controlled_shutdown), wait_ms / 1000)
            except asyncio.TimeoutError:
                pass
        return True

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self.channel.close()

    # -- the driver ---------------------------------------------------------------------
    def _backoff_s(self) -> float:
        self._failures += 1
        return min(MAX_RETRY_BACKOFF_MS, RETRY_BACKOFF_MS * 2 ** (self._failures - 1)) / 1000

    async def _run(self) -> None:
        while self.broker_epoch < 0:
            await self._register()
        while self.state is not LifecycleState.SHUTTING_DOWN:
            retry = await self._heartbeat()
            if self.state is LifecycleState.SHUTTING_DOWN:
                return
            delay = self._backoff_s() if retry else self.heartbeat_interval_ms / 1000
            if not retry:
                self._failures = 0
            self._wakeup.clear()
            await wait_event(self._wakeup, delay)

    async def _register(self) -> None:
        request = self.registration()
        try:
            response = await self.channel.send(ApiKey.BROKER_REGISTRATION, request)
        except NoActiveController as e:
            if not self._awaiting_controller:
                log.info("[BrokerLifecycleManager id=%d] Unable to register the broker: %s", self.broker_id, e)
            self._awaiting_controller = True
            await self.sleep(NO_CONTROLLER_POLL_MS / 1000)
            return
        except ControllerUnavailable as e:
            log.info("[BrokerLifecycleManager id=%d] Unable to register the broker: %s", self.broker_id, e)
            await self.sleep(self._backoff_s())
            return
        assert isinstance(response, BrokerRegistrationResponse)
        if response.error_code != ErrorCode.NONE:
            log.info("[BrokerLifecycleManager id=%d] Unable to register broker %d because the controller "
                     "returned error %s", self.broker_id, self.broker_id, ErrorCode.of_known(response.error_code).name)
            await self.sleep(self._backoff_s())
            return
        self._failures = 0
        self.last_answer_ms = self.clock_ms()
        self.broker_epoch = response.broker_epoch
        log.info("[BrokerLifecycleManager id=%d] Successfully registered broker %d with broker epoch %d",
                 self.broker_id, self.broker_id, self.broker_epoch)

    def heartbeat_request(self) -> BrokerHeartbeatRequest:
        return BrokerHeartbeatRequest(
            broker_id=self.broker_id, broker_epoch=self.broker_epoch,
            current_metadata_offset=self.metadata_offset(),
            want_fence=not self.ready_to_unfence and self.state is not LifecycleState.PENDING_CONTROLLED_SHUTDOWN,
            want_shut_down=self.state is LifecycleState.PENDING_CONTROLLED_SHUTDOWN)

    async def _heartbeat(self) -> bool:
        """One heartbeat; True when it should be retried soon."""
        try:
            response = await self.channel.send(ApiKey.BROKER_HEARTBEAT, self.heartbeat_request())
        except ControllerUnavailable as e:
            log.debug("[BrokerLifecycleManager id=%d] Heartbeat failed: %s", self.broker_id, e)
            return True
        assert isinstance(response, BrokerHeartbeatResponse)
        if response.error_code != ErrorCode.NONE:
            log.info("[BrokerLifecycleManager id=%d] Broker %d sent a heartbeat request but received error %s.",
                     self.broker_id, self.broker_id, ErrorCode.of_known(response.error_code).name)
        else:
            self.last_answer_ms = self.clock_ms()
        outcome = on_heartbeat(self.state, response)
        if outcome.state is not self.state:
            log.info("[BrokerLifecycleManager id=%d] The broker is now %s (metadata offset %d).",
                     self.broker_id, outcome.state.value, self.metadata_offset())
        self.state = outcome.state
        if outcome.caught_up:
            log.info("[BrokerLifecycleManager id=%d] The broker has caught up. Transitioning from STARTING to "
                     "RECOVERY.", self.broker_id)
            _complete(self.initial_catch_up)
        if outcome.unfenced:
            log.info("[BrokerLifecycleManager id=%d] The broker has been unfenced. Transitioning from RECOVERY "
                     "to RUNNING.", self.broker_id)
            _complete(self.initial_unfenced)
        if outcome.shutdown_granted:
            log.info("[BrokerLifecycleManager id=%d] The controller has asked us to exit controlled shutdown.",
                     self.broker_id)
            _complete(self.controlled_shutdown)
        return outcome.retry


def _complete(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)
