"""The quorum controller's asyncio side (Kafka's ``ControllerEventManager`` and the listener
``QuorumController`` registers with its ``RaftClient``).

- As the raft client's listener it replays every committed batch into the
  ``QuorumController`` (on every controller) and hears of leader changes; once this node's
  epoch start is replayed it queues the activation event.
- ``write(name, op)`` queues a write event: the events run one at a time on one task; each
  runs ``op(now_ms)`` (a manager turning the request into a ``ControllerResult``), appends the
  records with ``schedule_append`` in the active epoch, and answers once the high watermark
  passes their last offset (their commit was replayed). On a controller that is not active,
  or that loses leadership before the records commit, the answer is NOT_CONTROLLER.
- It loads the raft client's latest snapshot when it would start below it
  (``handle_load_snapshot``) and hands each committed image to this node's
  ``SnapshotPublisher`` (snapshots on ``metadata.log.max.record.bytes.between.snapshots`` /
  ``metadata.log.max.snapshot.interval.ms``).
- Periodic tasks, as Kafka's: a NoOpRecord every ``metadata.max.idle.interval.ms`` (0
  disables it), the broker session expiry check, and with ``auto.leader.rebalance.enable``
  the preferred leader elections every ``leader.imbalance.check.interval.seconds``.

Who calls it: ``kafpy.broker.controller_server`` builds it; ``ControllerApis`` queues the
requests' writes. Running one event at a time and waiting for each commit keeps the managers
on the committed image (see ``kafpy.metadata.controller.quorum_controller``); a write costs
one linger plus one round of replication.
"""
from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Generic, Sequence, TypeVar

from kafpy.metadata.controller.controller_result import ControllerError, ControllerResult
from kafpy.metadata.controller.quorum_controller import (
    MAX_ELECTIONS_PER_IMBALANCE, QuorumController, encode_records,
)
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import Message
from kafpy.raft.kafka_raft_client import Batch, KafkaRaftClient, LeaderAndEpoch
from kafpy.metadata.publisher.snapshot_publisher import SnapshotPublisher
from kafpy.metadata.record_serde import read_record
from kafpy.raft.raft_core import NotLeaderError
from kafpy.raft.snapshot import SnapshotId, read_snapshot

log = logging.getLogger("org.apache.kafka.controller.QuorumController")

T = TypeVar("T")
WriteOp = Callable[[int], ControllerResult[T]]
FENCE_CHECK_INTERVAL_MS = 1000  # how often the session expiry check runs when nothing else wakes it


def not_controller(node_id: int) -> ControllerError:
    return ControllerError(ErrorCode.NOT_CONTROLLER, f"The active controller appears to be node {node_id}"
                           if node_id >= 0 else "No controller appears to be active.")


@dataclass
class _Event(Generic[T]):
    """One queued write: its name (for logs), the operation and who waits for the answer."""

    name: str
    op: WriteOp[T]
    future: asyncio.Future[T]
    internal: bool = False  # activation and periodic tasks: run only in their epoch
    epoch: int = -1


@dataclass
class _Waiter:
    offset: int
    future: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class ControllerEventManager:
    """Keeps the quorum controller, the raft client, the queue of write events and its task,
    the writes waiting for their commit, and the periodic tasks' deadlines."""

    def __init__(self, controller: QuorumController, raft: KafkaRaftClient, *,
                 time_ms: Callable[[], int], max_idle_interval_ms: int = 500,
                 leader_imbalance_check_interval_ms: int | None = None,
                 on_fault: Callable[[BaseException], None] | None = None,
                 snapshots: SnapshotPublisher | None = None) -> None:
        self.controller = controller
        # this node's snapshots of the controller's committed image (None: written elsewhere)
        self.snapshots = snapshots
        self._bytes_since_publish = 0
        self.raft = raft
        self.time_ms = time_ms
        self.max_idle_interval_ms = max_idle_interval_ms
        self.leader_imbalance_check_interval_ms = leader_imbalance_check_interval_ms
        self.on_fault = on_fault
        self.fault: BaseException | None = None  # a committed batch that did not replay
        self._queue: asyncio.Queue[_Event[object]] = asyncio.Queue()
        self._waiters: list[_Waiter] = []
        self._committed = -1  # the last offset replayed
        self._tasks: list[asyncio.Task[None]] = []
        self._next_no_op_ms: int | None = None
        self._next_balance_ms: int | None = None
        self._activation_epoch: int | None = None  # the epoch whose activation is queued
        self._pending_internal: set[str] = set()  # periodic events queued or running: one of each

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._run(), name="quorum-controller-events"),
                       loop.create_task(self._periodic(), name="quorum-controller-periodic")]
        self.raft.register(self)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._fail_waiters()
        if self.snapshots is not None:
            await self.snapshots.close()

    # -- the raft listener -----------------------------------------------------------------

    def handle_commit(self, batches: Sequence[Batch]) -> None:
        if self.fault is not None:
            return
        for batch in batches:
            try:
                self.controller.replay_batch(batch)
            except Exception as e:  # noqa: BLE001 - Kafka's fatal fault handler: the node stops
                log.error("Unable to replay the committed batch at offsets %d-%d; the controller stops "
                          "(its image would no longer be the log's)", batch.base_offset, batch.last_offset,
                          exc_info=True)
                self.fault = e
                self.controller.renounce()
                self._fail_waiters()
                if self.on_fault is not None:
                    self.on_fault(e)
                return
        self._committed = batches[-1].last_offset
        self._maybe_snapshot(batches)
        done = [w for w in self._waiters if w.offset <= self._committed]
        self._waiters = [w for w in self._waiters if w.offset > self._committed]
        for w in done:
            if not w.future.done():
                w.future.set_result(None)
        epoch = self.controller.ready_to_activate()
        if epoch is not None and self._activation_epoch != epoch:
            self._activation_epoch = epoch
            activated = self._put("activate", self._activate_op(epoch), internal=True, epoch=epoch)
            activated.add_done_callback(functools.partial(self._activation_done, epoch=epoch))

    def _activation_done(self, future: asyncio.Future[None], *, epoch: int) -> None:
        """The activation's records committed (and replayed): the controller's image holds them."""
        if not future.cancelled() and future.exception() is None:
            self.controller.activation_committed = epoch

    def _maybe_snapshot(self, batches: Sequence[Batch]) -> None:
        """Hand the committed image and the bytes it took in to the snapshot publisher
        (nothing while a metadata transaction is open: the bytes wait for its end)."""
        if self.snapshots is None:
            return
        self._bytes_since_publish += sum(b.size_in_bytes for b in batches)
        image = self.controller.snapshot_image()
        if image is None:
            return
        num_bytes, self._bytes_since_publish = self._bytes_since_publish, 0
        self.snapshots.on_log_delta(image, num_bytes)

    def handle_load_snapshot(self, snapshot_id: SnapshotId, data: bytes) -> None:
        """The raft client's latest snapshot, when the log no longer holds what precedes it
        (a restart on a cleaned log, or a follower that fetched it from the leader): the
        controller's image becomes the snapshot's, replayed record by record."""
        if self.fault is not None:
            return
        try:
            snapshot = read_snapshot(data, lambda value: read_record(value).message)
            self.controller.load_snapshot(snapshot_id, snapshot.records,
                                          snapshot.header.last_contained_log_timestamp)
        except Exception as e:  # noqa: BLE001 - Kafka's fatal fault handler: the node stops
            log.error("Unable to load snapshot %s; the controller stops", snapshot_id, exc_info=True)
            self.fault = e
            self.controller.renounce()
            self._fail_waiters()
            if self.on_fault is not None:
                self.on_fault(e)
            return
        self._committed = snapshot_id.end_offset - 1
        self._bytes_since_publish = 0
        if self.snapshots is not None:
            image = self.controller.snapshot_image()
            if image is not None:
                self.snapshots.on_snapshot_loaded(image)

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        lost = self.controller.leader_changed(leader.leader_id, leader.epoch)
        if lost or leader.leader_id != self.controller.settings.node_id:
            self._fail_waiters()
            self._next_no_op_ms = None

    def _leader(self) -> int:
        leader = self.controller.leader_id
        return -1 if leader is None else leader

    def _fail_waiters(self) -> None:
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.future.done():
                w.future.set_exception(not_controller(self._leader()))

    # -- the event queue -------------------------------------------------------------------

    def write(self, name: str, op: WriteOp[T]) -> Awaitable[T]:
        """Queue a write event; the future answers its response once its records commit, or
        raises ``ControllerError`` (NOT_CONTROLLER, or the manager's refusal)."""
        return self._put(name, op)

    def _put(self, name: str, op: WriteOp[T], internal: bool = False, epoch: int = -1) -> asyncio.Future[T]:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        event = _Event(name, op, future, internal, epoch)
        self._queue.put_nowait(event)  # type: ignore[arg-type]  # the queue holds events of any T
        return future

    def _activate_op(self, epoch: int) -> WriteOp[None]:
        def activate(now_ms: int) -> ControllerResult[None]:
            records = self.controller.activate(epoch, now_ms)
            if self.max_idle_interval_ms > 0:
                self._next_no_op_ms = now_ms + self.max_idle_interval_ms
            if self.leader_imbalance_check_interval_ms is not None:
                self._next_balance_ms = now_ms + self.leader_imbalance_check_interval_ms
            return ControllerResult.atomic_of(records, None)
        return activate

    async def _run(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                await self._run_event(event)
            except asyncio.CancelledError:
                if not event.future.done():
                    event.future.cancel()
                raise
            except Exception as e:  # noqa: BLE001 - the event's caller gets it
                if event.internal:  # nobody waits for these: say what happened
                    log.log(logging.INFO if isinstance(e, ControllerError) else logging.ERROR,
                            "Event %s failed: %s", event.name, e, exc_info=not isinstance(e, ControllerError))
                    event.future.cancel()
                    continue
                if not isinstance(e, ControllerError):
                    log.error("Unexpected error in event %s", event.name, exc_info=True)
                if not event.future.done():
                    event.future.set_exception(e)

    async def _run_event(self, event: _Event[object]) -> None:
        try:
            await self._run_event_once(event)
        finally:
            self._pending_internal.discard(event.name)

    async def _run_event_once(self, event: _Event[object]) -> None:
        controller = self.controller
        if event.internal and controller.epoch != event.epoch:
            event.future.cancel()
            return
        if self.fault is not None or (not event.internal and not controller.is_active()):
            raise not_controller(self._leader())
        epoch = controller.active_epoch if not event.internal else event.epoch
        result = event.op(self.time_ms())
        if result.records:
            try:
                last = self.raft.schedule_append(encode_records(result.records), epoch)
            except NotLeaderError:
                raise not_controller(self._leader()) from None
            if last > self._committed:
                waiter = _Waiter(last)
                self._waiters.append(waiter)
                await waiter.future
        if not event.future.done():
            event.future.set_result(result.response)

    # -- periodic tasks --------------------------------------------------------------------

    async def _periodic(self) -> None:
        """The NoOpRecord and session expiry tasks, queued as events while this node is active."""
        tick_ms = min(FENCE_CHECK_INTERVAL_MS, self.max_idle_interval_ms or FENCE_CHECK_INTERVAL_MS,
                      self.controller.settings.session_timeout_ms // 4 or 1)
        while True:
            # wake at the next NoOpRecord's due time when that comes before the next tick, so
            # they come every metadata.max.idle.interval.ms as Kafka's, not up to a tick later
            delay_ms = tick_ms
            if self._next_no_op_ms is not None and self.controller.is_active():
                delay_ms = max(0, min(delay_ms, self._next_no_op_ms - self.time_ms()))
            await asyncio.sleep(delay_ms / 1000)
            controller = self.controller
            if not controller.is_active():
                continue
            epoch = controller.active_epoch
            assert epoch is not None
            now = self.time_ms()
            if self._next_no_op_ms is not None and now >= self._next_no_op_ms:
                self._next_no_op_ms = now + self.max_idle_interval_ms
                self._put_periodic("writeNoOpRecord",
                                   lambda _now: ControllerResult.of(controller.no_op_records(), None), epoch)
            self._put_periodic("maybeFenceReplicas", self._fence_op(), epoch)
            interval = self.leader_imbalance_check_interval_ms
            if interval is not None and self._next_balance_ms is not None and now >= self._next_balance_ms:
                self._next_balance_ms = now + interval
                self._put_periodic("maybeBalancePartitionLeaders", self._balance_op(), epoch)

    def _put_periodic(self, name: str, op: WriteOp[None], epoch: int) -> None:
        """Queue a periodic event unless one of that name is already queued or running (a
        quorum that does not commit must not pile them up)."""
        if name not in self._pending_internal:
            self._pending_internal.add(name)
            self._put(name, op, internal=True, epoch=epoch)

    def _balance_op(self) -> WriteOp[None]:
        def balance(now_ms: int) -> ControllerResult[None]:
            records = self.controller.maybe_balance_partition_leaders()
            if len(records) >= MAX_ELECTIONS_PER_IMBALANCE:  # more to do: again right after these commit
                self._next_balance_ms = now_ms
            return ControllerResult.of(records, None)
        return balance

    def _fence_op(self) -> WriteOp[None]:
        def fence(now_ms: int) -> ControllerResult[None]:
            records: list[Message] = self.controller.maybe_fence_stale_broker(now_ms)
            if records:  # maybe another one: check again right after this one commits
                self._pending_internal.discard("maybeFenceReplicas")
                self._put_periodic("maybeFenceReplicas", self._fence_op(), self.controller.active_epoch or -1)
            return ControllerResult.of(records, None)
        return fence
