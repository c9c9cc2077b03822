"""What the group and transaction coordinator services share on a running broker: the
clock, the timer task calling the state machine's `poll`, the tasks stopped with the
service, and the leader epochs of the internal topic's partitions (Kafka's
maybeUpdateCoordinatorEpoch: leadership events older than one already seen are stale).

Who calls it: subclasses only (coordinator/service.py, coordinator/transaction/service.py),
on the event loop thread. Nothing on disk.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

# Longest the timer sleeps, so deadlines added meanwhile are seen within this bound.
TICK_S = 0.05


class CoordinatorRuntime:
    """Subclasses set `coordinator` (with `poll(now_ms)` and `shutdown()`) and call
    `_init_runtime` from their constructor."""

    coordinator: Any

    def _init_runtime(self, name: str, topic: str, loop: asyncio.AbstractEventLoop,
                      clock: Callable[[], float], logger: logging.Logger) -> None:
        self._name, self._topic, self._loop, self._clock, self._log = name, topic, loop, clock, logger
        self._epochs: dict[int, int] = {}
        self._timer: asyncio.Task | None = None
        self._creating_topic: asyncio.Task | None = None

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

    async def _run_timer(self) -> None:
        while True:
            try:
                self.coordinator.poll(self.now_ms())
            except Exception:
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
