"""The controller's single serial event queue (kafka.controller.ControllerEventManager) and the
events it carries (ControllerState, KafkaController's event classes).

Every piece of controller work is an event processed one at a time by one asyncio task, so
the controller's state needs no locks: ZooKeeper watch callbacks (kazoo's thread) only call
``put_threadsafe``; request handlers and timers call ``put`` on the loop. Events that are
dropped before they run are *preempted*: the processor's ``preempt`` answers anyone waiting
(e.g. an ElectLeaders request gets NOT_CONTROLLER). ``clear_and_put`` drops everything queued,
which Kafka does for Expire (the ZooKeeper session is gone, queued work is stale) and for the
shutdown sentinel.

Metrics kept as Kafka names them: the queue time of each event (``EventQueueTimeMs``) and the
processing time per ``ControllerState`` (its rate-and-time metric), plus the queue size.

Who may call it: the controller (owner and processor) and anything that hands it work.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar, Protocol

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterPartitionRequest

log = logging.getLogger("kafka.controller.ControllerEventManager")


class ControllerState(Enum):
    """What the controller is busy with (kafka.controller.ControllerState), with Kafka's ids."""

    IDLE = 0
    CONTROLLER_CHANGE = 1
    BROKER_CHANGE = 2
    TOPIC_CHANGE = 3
    TOPIC_DELETION = 4
    ALTER_PARTITION_REASSIGNMENT = 5
    AUTO_LEADER_BALANCE = 6
    MANUAL_LEADER_BALANCE = 7
    CONTROLLED_SHUTDOWN = 8
    ISR_CHANGE = 9
    LEADER_AND_ISR_RESPONSE_RECEIVED = 10
    LOG_DIR_CHANGE = 11
    CONTROLLER_SHUTDOWN = 12
    UNCLEAN_LEADER_ELECTION_ENABLE = 13
    TOPIC_UNCLEAN_LEADER_ELECTION_ENABLE = 14
    LIST_PARTITION_REASSIGNMENT = 15
    UPDATE_METADATA_RESPONSE_RECEIVED = 16
    UPDATE_FEATURES = 17

    @property
    def rate_and_time_metric_name(self) -> str | None:
        """Kafka's ``<Name>RateAndTimeMs`` timer (none for IDLE and controller shutdown)."""
        if self in (ControllerState.IDLE, ControllerState.CONTROLLER_SHUTDOWN):
            return None
        if self in _LEGACY_TIMER_NAMES:   # names Kafka kept from before ControllerState existed
            return _LEGACY_TIMER_NAMES[self]
        camel = "".join(w.capitalize() for w in self.name.split("_"))
        return f"{camel}RateAndTimeMs"


_LEGACY_TIMER_NAMES = {ControllerState.BROKER_CHANGE: "LeaderElectionRateAndTimeMs",
                       ControllerState.ALTER_PARTITION_REASSIGNMENT: "PartitionReassignmentRateAndTimeMs"}


# --------------------------------------------------------------------------- events
@dataclass(frozen=True)
class ControllerEvent:
    """Base of every event; ``state`` says what processing it puts the controller in.
    Events without data are plain subclasses; equal when of the same class."""

    state: ClassVar[ControllerState] = ControllerState.IDLE

    def preempt(self) -> None:
        """Dropped before processing: answer whoever waits (default: nobody waits)."""


class Startup(ControllerEvent):
    state = ControllerState.CONTROLLER_CHANGE


class Expire(ControllerEvent):
    """The ZooKeeper session expired: resign; queued events are stale (``clear_and_put``)."""

    state = ControllerState.CONTROLLER_CHANGE


class RegisterBrokerAndReelect(ControllerEvent):
    """A new ZooKeeper session: register the broker again (new czxid = new broker epoch), elect."""

    state = ControllerState.CONTROLLER_CHANGE


class Reelect(ControllerEvent):
    """``/controller`` was deleted."""

    state = ControllerState.CONTROLLER_CHANGE


class ControllerChange(ControllerEvent):
    """``/controller`` changed (someone else won)."""

    state = ControllerState.CONTROLLER_CHANGE


class BrokerChange(ControllerEvent):
    """Children of ``/brokers/ids`` changed."""

    state = ControllerState.BROKER_CHANGE


class TopicChange(ControllerEvent):
    """Children of ``/brokers/topics`` changed."""

    state = ControllerState.TOPIC_CHANGE


class TopicDeletion(ControllerEvent):
    """Children of ``/admin/delete_topics`` changed."""

    state = ControllerState.TOPIC_DELETION


class IsrChangeNotification(ControllerEvent):
    state = ControllerState.ISR_CHANGE


class LogDirEventNotification(ControllerEvent):
    state = ControllerState.LOG_DIR_CHANGE


class ZkPartitionReassignment(ControllerEvent):
    """``/admin/reassign_partitions`` was created."""

    state = ControllerState.ALTER_PARTITION_REASSIGNMENT


class AutoPreferredReplicaLeaderElection(ControllerEvent):
    """The ``leader.imbalance.check.interval.seconds`` timer fired."""

    state = ControllerState.AUTO_LEADER_BALANCE


class ShutdownEventThread(ControllerEvent):
    """Sentinel that ends the processing task; never handed to the processor."""

    state = ControllerState.CONTROLLER_SHUTDOWN


@dataclass(frozen=True)
class BrokerModifications(ControllerEvent):
    """``/brokers/ids/<id>`` data changed (new endpoints or features)."""

    state: ClassVar[ControllerState] = ControllerState.BROKER_CHANGE
    broker_id: int


@dataclass(frozen=True)
class PartitionModifications(ControllerEvent):
    """``/brokers/topics/<t>`` changed (partitions added)."""

    state: ClassVar[ControllerState] = ControllerState.TOPIC_CHANGE
    topic: str


@dataclass(frozen=True)
class TopicUncleanLeaderElectionEnable(ControllerEvent):
    """A topic's unclean.leader.election.enable was set to true: elect leaders for its
    offline partitions now."""

    state: ClassVar[ControllerState] = ControllerState.TOPIC_UNCLEAN_LEADER_ELECTION_ENABLE
    topic: str


class UncleanLeaderElectionEnable(ControllerEvent):
    """The broker's unclean.leader.election.enable was turned on dynamically: elect leaders
    for every offline partition now."""

    state = ControllerState.UNCLEAN_LEADER_ELECTION_ENABLE


@dataclass(frozen=True, kw_only=True)
class RequestEvent(ControllerEvent):
    """An event a request waits on: ``callback`` gets the answer; preempted, it gets
    ``not_controller_answer()`` (the request's NOT_CONTROLLER response)."""

    callback: Callable[..., None] | None = field(default=None, compare=False)

    def not_controller_answer(self) -> tuple[object, ...]:
        return (ErrorCode.NOT_CONTROLLER,)

    def preempt(self) -> None:
        if self.callback is not None:
            self.callback(*self.not_controller_answer())


@dataclass(frozen=True, kw_only=True)
class ReplicaLeaderElection(RequestEvent):
    """ElectLeaders (or ``/admin/preferred_replica_election``). ``callback`` gets a mapping
    partition -> new leader or ErrorCode."""

    state: ClassVar[ControllerState] = ControllerState.MANUAL_LEADER_BALANCE
    partitions: frozenset[tuple[str, int]] | None  # None: every partition
    election_type: int = 0  # ElectLeaders' election_type: 0 preferred, 1 unclean

    def not_controller_answer(self) -> tuple[object, ...]:
        return ({tp: ErrorCode.NOT_CONTROLLER for tp in self.partitions or ()},)


@dataclass(frozen=True, kw_only=True)
class BrokerRequestEvent(RequestEvent):
    """A request from a broker, checked against its epoch (czxid of its registration)."""

    broker_id: int
    broker_epoch: int


@dataclass(frozen=True, kw_only=True)
class ControlledShutdown(BrokerRequestEvent):
    """ControlledShutdown(7); ``callback`` gets (ErrorCode, partitions the broker still leads)."""

    state: ClassVar[ControllerState] = ControllerState.CONTROLLED_SHUTDOWN

    def not_controller_answer(self) -> tuple[object, ...]:
        return ErrorCode.NOT_CONTROLLER, frozenset()


@dataclass(frozen=True, kw_only=True)
class AlterPartitionReceived(BrokerRequestEvent):
    """AlterPartition(56) from a leader; ``callback`` gets the response data or an ErrorCode."""

    state: ClassVar[ControllerState] = ControllerState.ISR_CHANGE
    request: tuple[AlterPartitionRequest, int] | None = field(default=None, compare=False)  # (body, version)


@dataclass(frozen=True, kw_only=True)
class AllocateProducerIds(BrokerRequestEvent):
    """AllocateProducerIds(67); ``callback`` gets a ProducerIdBlock or an ErrorCode."""


# --------------------------------------------------------------------------- the queue
class ControllerEventProcessor(Protocol):
    async def process(self, event: ControllerEvent) -> None: ...

    def preempt(self, event: ControllerEvent) -> None: ...


class QueuedEvent:
    """An event with its enqueue time; runs or is preempted exactly once."""

    def __init__(self, event: ControllerEvent, enqueue_time_ms: float,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.event = event
        self.enqueue_time_ms = enqueue_time_ms
        self._spent = False
        self.processing_started = loop.create_future()
        """Done when processing begins (Kafka's awaitProcessing) or the event is preempted."""
        self.done = loop.create_future()
        """Done when processing ends (even with an error) or the event is preempted."""

    async def process(self, processor: ControllerEventProcessor) -> None:
        if self._spent:
            return
        self._spent = True
        _finish(self.processing_started)
        try:
            await processor.process(self.event)
        finally:
            _finish(self.done)

    def preempt(self, processor: ControllerEventProcessor) -> None:
        if self._spent:
            return
        self._spent = True
        try:
            processor.preempt(self.event)
        finally:
            _finish(self.processing_started)
            _finish(self.done)

    def discard(self) -> None:
        """Mark done without the processor (the shutdown sentinel)."""
        self._spent = True
        _finish(self.processing_started)
        _finish(self.done)

    async def await_processing(self) -> None:
        await asyncio.shield(self.processing_started)


def _finish(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_result(None)


RECENT_TIMES = 1024   # observations a TimeStats keeps for percentiles (Kafka's reservoir size)


@dataclass
class TimeStats:
    """Count, total, max and last of a timed quantity in milliseconds, and its most recent
    observations (for the percentiles of Kafka's timers, computed when metrics are read:
    controller events are rare, so a bounded deque costs nothing that matters)."""

    count: int = 0
    total_ms: float = 0.0
    max_ms: float = 0.0
    last_ms: float = 0.0
    recent: deque = field(default_factory=lambda: deque(maxlen=RECENT_TIMES))

    def record(self, ms: float) -> None:
        self.count += 1
        self.total_ms += ms
        self.max_ms = max(self.max_ms, ms)
        self.last_ms = ms
        self.recent.append(ms)

    @property
    def mean_ms(self) -> float:
        return self.total_ms / self.count if self.count else 0.0


@dataclass
class ControllerStats:
    """Kafka's ``kafka.controller:type=ControllerStats`` counters the controller keeps beside
    its event manager's timers (``ControllerEventManager.rate_and_time``); read by metrics."""

    unclean_leader_elections: int = 0


class ControllerEventManager:
    """One asyncio task that takes events from a FIFO queue and awaits the processor on each.

    An exception from the processor is logged and the next event runs, as in Kafka: the
    processor itself turns ControllerMovedError into a resignation.
    """

    def __init__(self, controller_id: int, processor: ControllerEventProcessor,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.controller_id = controller_id
        self._processor = processor
        self._clock = clock
        self._queue: deque[QueuedEvent] = deque()
        self._wakeup: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self.state = ControllerState.IDLE
        self.event_queue_time = TimeStats()
        self.rate_and_time: dict[ControllerState, TimeStats] = {}

    # ------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Start processing; call on the event loop."""
        self._loop = asyncio.get_running_loop()
        self._wakeup = asyncio.Event()
        self._task = self._loop.create_task(self._run(), name=f"controller-event-thread-{self.controller_id}")
        if self._queue:
            self._wakeup.set()

    async def close(self) -> None:
        """Preempt what is queued, let the running event finish, stop the task."""
        if self._task is None:
            return
        self.clear_and_put(ShutdownEventThread())
        task, self._task = self._task, None
        await task

    @property
    def is_running(self) -> bool:
        return self._task is not None and not self._task.done()

    # ------------------------------------------------------------ producers
    def put(self, event: ControllerEvent) -> QueuedEvent:
        """Queue ``event`` behind the others (on the loop)."""
        loop = self._loop or asyncio.get_running_loop()
        queued = QueuedEvent(event, self._now_ms(), loop)
        self._queue.append(queued)
        if self._wakeup is not None:
            self._wakeup.set()
        return queued

    def clear_and_put(self, event: ControllerEvent) -> QueuedEvent:
        """Preempt every queued event, then queue ``event`` (Expire, shutdown)."""
        preempted, self._queue = list(self._queue), deque()
        for queued in preempted:
            try:
                queued.preempt(self._processor)
            except Exception:
                log.exception("[ControllerEventManager id=%d] Error preempting %s",
                              self.controller_id, queued.event)
        return self.put(event)

    def put_threadsafe(self, event: ControllerEvent) -> None:
        """From another thread (a kazoo watch): hand ``event`` to the loop."""
        if self._loop is None:
            raise RuntimeError("the event manager is not started")
        self._loop.call_soon_threadsafe(self.put, event)

    @property
    def queue_size(self) -> int:
        return len(self._queue)

    # ------------------------------------------------------------ the loop
    def _now_ms(self) -> float:
        return self._clock() * 1000.0

    async def _run(self) -> None:
        assert self._wakeup is not None
        while True:
            while not self._queue:
                self._wakeup.clear()
                await self._wakeup.wait()
            queued = self._queue.popleft()
            event = queued.event
            if isinstance(event, ShutdownEventThread):
                queued.discard()
                return
            self.state = event.state
            start = self._now_ms()
            self.event_queue_time.record(start - queued.enqueue_time_ms)
            try:
                await queued.process(self._processor)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("[ControllerEventManager id=%d] Uncaught error processing event %s",
                              self.controller_id, event)
            finally:
                if event.state.rate_and_time_metric_name is not None:
                    self.rate_and_time.setdefault(event.state, TimeStats()).record(
                        self._now_ms() - start)
                self.state = ControllerState.IDLE
