"""What the group and transaction coordinator services share on a running broker: the
clock, the timer task calling the state machine's `poll`, the tasks stopped with the
service, the leader epochs of the internal topic's partitions (Kafka's
maybeUpdateCoordinatorEpoch: leadership events older than one already seen are stale),
FindCoordinator over the internal topic, asking for the topic to be created the first
time it is missing (`_find_coordinator`; Kafka's KafkaApis.getOrCreateInternalTopic),
and the background loads of the partitions this broker becomes leader of (Kafka's
scheduleLoadGroupAndOffsets / loadTransactionsForTxnTopicPartition): the log is read in
slices by a task, so a large partition does not stall the event loop inside LeaderAndIsr
handling, and its keys answer COORDINATOR_LOAD_IN_PROGRESS meanwhile.

Who calls it: subclasses only (coordinator/group/service.py, coordinator/transaction/service.py,
coordinator/share_state/service.py), on the event loop thread. Nothing on disk: the
coordinators' records are written by their CoordinatorWriter (coordinator/result.py).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Awaitable, Callable, Generic, Iterable, Protocol, TypeVar

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.partitioner import partition_for

if TYPE_CHECKING:
    from kafpy.replication.metadata_cache import MetadataCache

# Longest the timer sleeps, so deadlines added meanwhile are seen within this bound.
TICK_S = 0.05
# Records read from the log between two yields to the event loop while loading.
LOAD_SLICE = 1000
_Entry = TypeVar("_Entry")  # a log entry of the coordinator's topic, as its reader gives it


class PolledCoordinator(Protocol):
    """What the runtime's timer calls on the coordinator it drives."""

    def poll(self, now_ms: int) -> None: ...


CoordinatorT = TypeVar("CoordinatorT", bound=PolledCoordinator)


class CoordinatorRuntime(Generic[CoordinatorT]):
    """Subclasses set `coordinator` (with `poll(now_ms)` and `shutdown()`) and call
    `_init_runtime` from their constructor."""

    coordinator: CoordinatorT

    def _init_runtime(self, name: str, topic: str, loop: asyncio.AbstractEventLoop,
                      clock: Callable[[], float], logger: logging.Logger, metadata: MetadataCache,
                      ensure_topic: Callable[[], Awaitable[None]]) -> None:
        """`metadata`: the broker's MetadataCache (the internal topic's leaders);
        `ensure_topic()`: creates the internal topic when it is missing."""
        self._name, self._topic, self._loop, self._clock, self._log = name, topic, loop, clock, logger
        self._metadata = metadata
        self._ensure_topic = ensure_topic
        self._epochs: dict[int, int] = {}
        self._timer: asyncio.Task | None = None
        self._creating_topic: asyncio.Task | None = None
        self._loads: dict[int, asyncio.Task] = {}

    def now_ms(self) -> int:
        return int(self._clock() * 1000)

    async def start(self) -> None:
        self._timer = self._loop.create_task(self._run_timer(), name=f"{self._name}-timer")

    async def _stop_tasks(self) -> None:
        for task in (self._timer, self._creating_topic):
            if task is not None and not task.done():
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
        self._timer = self._creating_topic = None
        loads = list(self._loads.values())
        for partition in list(self._loads):
            self._cancel_load(partition)
        await asyncio.gather(*loads, return_exceptions=True)

    def expire_due(self) -> None:
        """Fire the timers already due before a request that depends on them is answered
        (a member whose session ended a few ms ago is gone, as on Kafka, whose timers fire
        on time; this timer only looks every TICK_S). Called by the request handlers."""
        try:
            self.coordinator.poll(self.now_ms())
        except Exception:  # noqa: BLE001 - logged with its trace; the request goes on
            self._log.exception("%s timer failed", self._name)

    async def _run_timer(self) -> None:
        while True:
            try:
                self.coordinator.poll(self.now_ms())
            except Exception:  # noqa: BLE001 - logged with its trace; the timer keeps running
                self._log.exception("%s timer failed", self._name)
            await asyncio.sleep(TICK_S)

    def _is_newer_epoch(self, partition: int, leader_epoch: int) -> bool:
        """Record `leader_epoch` unless an event of a later epoch was seen already."""
        current = self._epochs.get(partition)
        if current is not None and leader_epoch < current:
            self._log.info("ignoring %s-%d epoch %d: epoch %d seen already",
                           self._topic, partition, leader_epoch, current)
            return False
        self._epochs[partition] = leader_epoch
        return True

    def _schedule_load(self, partition: int, read: Callable[[], Iterable[_Entry]],
                       complete: Callable[[list[_Entry]], None]) -> None:
        """Read `partition` (`read()`'s entries) in a task that yields to the loop every
        LOAD_SLICE entries, then hand them to `complete`, unless the load was cancelled
        meanwhile (a resignation, a newer election, stop). Replaces a load in progress."""
        self._cancel_load(partition)
        task = self._loop.create_task(self._load(read, complete), name=f"{self._name}-load-{partition}")
        self._loads[partition] = task

        def forget(t: asyncio.Task) -> None:
            if self._loads.get(partition) is t:
                del self._loads[partition]
            if not t.cancelled() and t.exception() is not None:
                self._log.error("loading %s-%d failed", self._topic, partition, exc_info=t.exception())
        task.add_done_callback(forget)

    async def _load(self, read: Callable[[], Iterable[_Entry]], complete: Callable[[list[_Entry]], None]) -> None:
        entries: list[_Entry] = []
        for entry in read():
            entries.append(entry)
            if len(entries) % LOAD_SLICE == 0:
                await asyncio.sleep(0)
        complete(entries)

    def _cancel_load(self, partition: int) -> None:
        task = self._loads.pop(partition, None)
        if task is not None and not task.done():
            task.cancel()

    # ------------------------------------------------------------------ FindCoordinator
    def _find_coordinator(self, key: str) -> tuple[ErrorCode, int, str, int]:
        """(error, node id, host, port) of the leader of `key`'s partition of the internal
        topic. While the topic does not exist it is asked for (once at a time, as Kafka
        does on the first FindCoordinator) and COORDINATOR_NOT_AVAILABLE answered (the
        client retries); its partitions arrive later through `on_elected`."""
        found = coordinator_node(self._metadata, self._topic, key)
        if found is None:
            if self._creating_topic is None or self._creating_topic.done():
                self._creating_topic = self._loop.create_task(self._create_topic())
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, "", -1
        return found

    async def _create_topic(self) -> None:
        try:
            await self._ensure_topic()
        except Exception as e:  # noqa: BLE001 - the next FindCoordinator asks again
            self._log.warning("could not create %s: %s", self._topic, e)


def coordinator_node(metadata: MetadataCache, topic: str, key: str
                     ) -> tuple[ErrorCode, int, str, int] | None:
    """FindCoordinator's answer for `key` owned by a partition of the internal `topic`
    (Kafka's abs(hashCode) % partitions): (error, node id, host, port); None when the
    topic does not exist yet."""
    info = metadata.topic(topic)
    if info is None or not info.partitions:
        return None
    pinfo = info.partitions.get(partition_for(key, len(info.partitions)))
    leader = -1 if pinfo is None else pinfo.leader
    node = next((b for b in metadata.brokers() if b.node_id == leader), None)
    if node is None:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE, -1, "", -1
    return ErrorCode.NONE, node.node_id, node.host, node.port
