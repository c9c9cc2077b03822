"""BrokerLifecycleManager: registration retried until the controller accepts it, heartbeats
that ask to stay fenced until the broker is ready, the caught-up and unfenced milestones, and
a controlled shutdown that ends when the controller says so (a fake controller channel)."""
from __future__ import annotations

import asyncio
import logging

import pytest

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import (BrokerHeartbeatRequest, BrokerHeartbeatResponse, BrokerRegistrationRequest,
                                     BrokerRegistrationResponse)

from kafpy.broker.kraft_controller_channel import ControllerUnavailable, NoActiveController
from kafpy.broker.kraft_lifecycle import BrokerLifecycleManager, LifecycleState, on_heartbeat


def hb(**fields: object) -> BrokerHeartbeatResponse:
    return BrokerHeartbeatResponse(**fields)  # type: ignore[arg-type]  # keyword fields of the response


def test_heartbeat_answers_move_the_state_as_kafka() -> None:
    s = LifecycleState
    assert on_heartbeat(s.STARTING, hb(is_caught_up=False)).state is s.STARTING
    out = on_heartbeat(s.STARTING, hb(is_caught_up=True))
    assert out.state is s.RECOVERY and out.caught_up
    assert on_heartbeat(s.RECOVERY, hb(is_caught_up=True, is_fenced=True)).state is s.RECOVERY
    out = on_heartbeat(s.RECOVERY, hb(is_caught_up=True, is_fenced=False))
    assert out.state is s.RUNNING and out.unfenced
    out = on_heartbeat(s.PENDING_CONTROLLED_SHUTDOWN, hb(should_shut_down=True))
    assert out.state is s.SHUTTING_DOWN and out.shutdown_granted
    assert on_heartbeat(s.PENDING_CONTROLLED_SHUTDOWN, hb(should_shut_down=False)).state is s.PENDING_CONTROLLED_SHUTDOWN
    out = on_heartbeat(s.RECOVERY, hb(error_code=ErrorCode.NOT_CONTROLLER, is_fenced=False))
    assert out.state is s.RECOVERY and out.retry and not out.unfenced


class FakeController:
    """Refuses the first registration, then fences the broker until a heartbeat no longer
    asks for it, and grants a shutdown on the second want_shut_down."""

    def __init__(self) -> None:
        self.requests: list[Message] = []
        self.registrations = 0
        self.shutdown_asks = 0
        self.closed = False

    async def send(self, api_key: ApiKey, body: Message, version: int | None = None,
                   timeout_ms: int | None = None) -> object:
        self.requests.append(body)
        if api_key == ApiKey.BROKER_REGISTRATION:
            self.registrations += 1
            if self.registrations == 1:
                raise ControllerUnavailable("no leader yet")
            if self.registrations == 2:
                return BrokerRegistrationResponse(error_code=ErrorCode.DUPLICATE_BROKER_REGISTRATION)
            return BrokerRegistrationResponse(broker_epoch=42)
        assert isinstance(body, BrokerHeartbeatRequest)
        if body.want_shut_down:
            self.shutdown_asks += 1
            return hb(is_caught_up=True, is_fenced=False, should_shut_down=self.shutdown_asks >= 2)
        return hb(is_caught_up=body.current_metadata_offset >= 10, is_fenced=body.want_fence)

    async def close(self) -> None:
        self.closed = True


async def no_sleep(_: float) -> None:
    await asyncio.sleep(0)


def test_register_catch_up_unfence_and_controlled_shutdown() -> None:
    async def run() -> tuple[FakeController, BrokerLifecycleManager]:
        controller = FakeController()
        offset = [5]
        manager = BrokerLifecycleManager(7, lambda: BrokerRegistrationRequest(broker_id=7), controller,
                                         lambda: offset[0], heartbeat_interval_ms=1, sleep=no_sleep)
        manager.start()
        await asyncio.sleep(0.05)
        assert manager.broker_epoch == 42 and manager.state is LifecycleState.STARTING
        assert not manager.initial_catch_up.done()
        offset[0] = 10
        await asyncio.wait_for(manager.initial_catch_up, 2)
        await asyncio.sleep(0.02)
        assert not manager.initial_unfenced.done()  # still asking to stay fenced
        manager.set_ready_to_unfence()
        await asyncio.wait_for(manager.initial_unfenced, 2)
        assert manager.state is LifecycleState.RUNNING
        manager.begin_controlled_shutdown()
        assert await manager.await_controlled_shutdown(2)
        assert manager.state is LifecycleState.SHUTTING_DOWN
        await manager.close()
        return controller, manager

    controller, manager = asyncio.run(run())
    assert controller.registrations == 3 and controller.closed
    heartbeats = [r for r in controller.requests if isinstance(r, BrokerHeartbeatRequest)]
    assert all(h.broker_id == 7 and h.broker_epoch == 42 for h in heartbeats)
    first_unfenced = next(i for i, h in enumerate(heartbeats) if not h.want_fence)
    assert all(h.want_fence for h in heartbeats[:first_unfenced])
    assert [h.want_shut_down for h in heartbeats[-2:]] == [True, True]


def test_a_broker_that_never_registered_has_nothing_to_hand_over() -> None:
    async def run() -> bool:
        manager = BrokerLifecycleManager(7, lambda: BrokerRegistrationRequest(broker_id=7), FakeController(),
                                         lambda: 0, heartbeat_interval_ms=1, sleep=no_sleep)
        manager.begin_controlled_shutdown()
        return manager.controlled_shutdown.done()
    assert asyncio.run(run())


class LateLeader:
    """No controller known for the first ``unknown`` registrations, then two lost connections,
    then an epoch."""

    def __init__(self, unknown: int) -> None:
        self.unknown = unknown
        self.registrations = 0

    async def send(self, api_key: ApiKey, body: Message, version: int | None = None,
                   timeout_ms: int | None = None) -> object:
        if api_key == ApiKey.BROKER_REGISTRATION:
            self.registrations += 1
            if self.registrations <= self.unknown:
                raise NoActiveController("no active controller is known yet")
            if self.registrations <= self.unknown + 2:
                raise ControllerUnavailable("the connection was closed")
            return BrokerRegistrationResponse(broker_epoch=3)
        return hb(is_caught_up=True, is_fenced=True)

    async def close(self) -> None:
        pass


def test_registration_follows_the_first_election_without_a_growing_backoff(caplog: pytest.LogCaptureFixture) -> None:
    """While no controller is known nothing was sent: the broker looks again every 100 ms (as
    Kafka's request thread does) instead of backing off to a second, and says so once; a
    request that failed on the wire still backs off."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        await asyncio.sleep(0)

    async def run() -> int:
        manager = BrokerLifecycleManager(7, lambda: BrokerRegistrationRequest(broker_id=7), LateLeader(8),
                                         lambda: 0, heartbeat_interval_ms=1000, sleep=sleep)
        manager.start()
        for _ in range(200):
            await asyncio.sleep(0)
            if manager.broker_epoch >= 0:
                break
        await manager.close()
        return manager.broker_epoch
    with caplog.at_level(logging.INFO, logger="kafka.server.BrokerLifecycleManager"):
        assert asyncio.run(run()) == 3
    assert slept == [0.1] * 8 + [0.1, 0.2]
    told = [r for r in caplog.records if "no active controller" in r.getMessage()]
    assert len(told) == 1



class ShutdownController:
    """Answers every heartbeat (the broker unfenced, never let go). With ``quorum_lost`` no
    controller is known from the first heartbeat asking to shut down on, as for the last
    node of a cluster whose other controllers have stopped."""

    def __init__(self, quorum_lost: bool) -> None:
        self.quorum_lost = quorum_lost
        self.answered = 0
        self.unanswered = 0

    async def send(self, api_key: ApiKey, body: Message, version: int | None = None,
                   timeout_ms: int | None = None) -> object:
        if api_key == ApiKey.BROKER_REGISTRATION:
            return BrokerRegistrationResponse(broker_epoch=5)
        assert isinstance(body, BrokerHeartbeatRequest)
        if self.quorum_lost and body.want_shut_down:
            self.unanswered += 1
            raise NoActiveController("no active controller is known")
        self.answered += 1
        return hb(is_caught_up=True, is_fenced=False, should_shut_down=False)

    async def close(self) -> None:
        pass


def run_shutdown(controller: ShutdownController, caplog: pytest.LogCaptureFixture, *,
                 session_timeout_ms: int | None, limit_s: float) -> tuple[bool, LifecycleState, list[str]]:
    """Register, unfence, ask for a controlled shutdown and wait for it: whether it was
    granted, the state then, and the WARNING lines the manager logged."""
    async def run() -> tuple[bool, LifecycleState]:
        manager = BrokerLifecycleManager(7, lambda: BrokerRegistrationRequest(broker_id=7), controller,
                                         lambda: 0, heartbeat_interval_ms=5, session_timeout_ms=session_timeout_ms,
                                         sleep=no_sleep)
        manager.start()
        manager.set_ready_to_unfence()
        await asyncio.wait_for(manager.initial_unfenced, 2)
        manager.begin_controlled_shutdown()
        granted = await manager.await_controlled_shutdown(limit_s)
        await manager.close()
        return granted, manager.state
    with caplog.at_level(logging.INFO, logger="kafka.server.BrokerLifecycleManager"):
        granted, state = asyncio.run(run())
    return granted, state, [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_the_controlled_shutdown_ends_once_no_controller_answered_for_a_session(
        caplog: pytest.LogCaptureFixture) -> None:
    """No controller has answered for broker.session.timeout.ms: any controller there is has
    fenced the broker, so it stops waiting long before the retries' limit (60 s here; Kafka
    waits up to five minutes for a quorum that is gone)."""
    controller = ShutdownController(quorum_lost=True)
    granted, state, said = run_shutdown(controller, caplog, session_timeout_ms=100, limit_s=60)
    assert not granted and state is LifecycleState.PENDING_CONTROLLED_SHUTDOWN
    assert len(said) == 1 and "No controller has answered a heartbeat" in said[0], said
    assert "(broker.session.timeout.ms)" in said[0]
    assert controller.unanswered >= 1  # it kept asking while it waited


def test_a_controller_that_answers_keeps_the_broker_waiting_up_to_the_limit(
        caplog: pytest.LogCaptureFixture) -> None:
    """A live controller that has not moved the leaderships yet keeps the session fresh: the
    broker waits for it up to the retries' limit, as before."""
    controller = ShutdownController(quorum_lost=False)
    granted, state, said = run_shutdown(controller, caplog, session_timeout_ms=100, limit_s=0.5)
    assert not granted and state is LifecycleState.PENDING_CONTROLLED_SHUTDOWN
    assert len(said) == 1 and "did not end the controlled shutdown in 0 s" in said[0], said
    assert controller.answered > 5  # heartbeats went on past the session timeout, answered


def test_without_a_session_timeout_only_the_limit_ends_the_wait(caplog: pytest.LogCaptureFixture) -> None:
    """A ZooKeeper broker in migration registers without one: the limit alone, as before."""
    controller = ShutdownController(quorum_lost=True)
    granted, _, said = run_shutdown(controller, caplog, session_timeout_ms=None, limit_s=0.3)
    assert not granted
    assert len(said) == 1 and "did not end the controlled shutdown" in said[0], said


class Gone:
    """A controller that answered the registration and then went away."""

    async def send(self, api_key: ApiKey, body: Message, version: int | None = None,
                   timeout_ms: int | None = None) -> Message:
        if api_key == ApiKey.BROKER_REGISTRATION:
            return BrokerRegistrationResponse(error_code=0, broker_epoch=5)
        await asyncio.sleep(0)
        raise ControllerUnavailable("connection refused")

    async def close(self) -> None:
        pass


def test_close_ends_the_heartbeats_when_the_shutdown_gives_up_at_once() -> None:
    """The last node of a cluster: no controller answered for a session, so the controlled
    shutdown ends as soon as it begins; begin (which wakes the heartbeat loop) and close in
    the same turn must still stop the loop (a lost cancellation kept a node heartbeating
    until it was killed)."""
    async def run() -> int:
        stuck = 0
        for _ in range(50):
            manager = BrokerLifecycleManager(1, lambda: BrokerRegistrationRequest(broker_id=1), Gone(),
                                             lambda: 0, heartbeat_interval_ms=5, session_timeout_ms=1)
            manager.start()
            await asyncio.sleep(0.02)
            manager.begin_controlled_shutdown()
            assert not await manager.await_controlled_shutdown(5.0)
            try:
                await asyncio.wait_for(manager.close(), 2.0)
            except asyncio.TimeoutError:
                stuck += 1
        return stuck
    assert asyncio.run(run()) == 0
