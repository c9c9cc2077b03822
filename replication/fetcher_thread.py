"""One replica fetcher: an asyncio task that keeps the partitions it follows from one
leader broker up to date (Kafka's ``ReplicaFetcherThread`` loop, ``doWork``).

Who may call it: ``kafpy.replication.fetcher_manager.ReplicaFetcherManager``, which makes one per
(source broker, fetcher id) and adds and removes its partitions; tests drive it with an
in-memory leader.

Each round: partitions that are Truncating ask the leader where their epoch ends
(OffsetsForLeaderEpoch) and truncate; then one Fetch for every partition ready to fetch.
When nothing is ready it waits replica.fetch.backoff.ms, or less when a backed-off
partition becomes ready sooner, or until partitions are added. A request that fails
(connection lost, timeout, a top-level error) backs off every partition it held; errors
that mean the leader may have moved or is unreachable (``fetch_state.LEADER_ERRORS``)
are handed to ``on_leader_error`` so the broker can look the leader up again (with
ZooKeeper, Kafka waits for LeaderAndIsr instead).

Time comes from ``timer`` (the event loop by default), so tests can drive backoffs.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Callable, Iterable, Mapping

from kafpy.protocol.errors import ErrorCode, error_code_for

from kafpy.replication.broker_connection import Timer
from kafpy.replication.fetch_state import (LEADER_ERRORS, BrokerEndPoint, InitialFetchState, PartitionFetchState,
                                     TopicPartition)
from kafpy.replication.fetcher import FetchOutcome, FetcherCore
from kafpy.replication.leader_endpoint import LeaderEndPoint, LeaderEndPointError
from kafpy.replication.tasks import cancel_and_wait

__all__ = ["ReplicaFetcherThread", "LeaderErrorCallback"]

log = logging.getLogger("kafka.server.ReplicaFetcherThread")

LeaderErrorCallback = Callable[[Mapping[TopicPartition, "ErrorCode | int"]], None]


class ReplicaFetcherThread:
    """Fetches ``core``'s partitions from ``source`` through ``leader``. ``start()`` makes
    the task; ``shutdown()`` stops it and closes the leader end point."""

    def __init__(self, fetcher_id: int, source: BrokerEndPoint, leader: LeaderEndPoint, core: FetcherCore, *,
                 timer: Timer | None = None, on_leader_error: LeaderErrorCallback | None = None) -> None:
        self.fetcher_id = fetcher_id
        self.source = source
        self.leader = leader
        self.core = core
        self.name = f"ReplicaFetcherThread-{fetcher_id}-{source.id}"
        core.name = core.name or self.name
        self.loop = asyncio.get_running_loop()
        self.timer: Timer = timer or self.loop
        self.on_leader_error = on_leader_error
        self.task: asyncio.Task | None = None
        self._wakeup: asyncio.Future | None = None
        self.running = False

    def __repr__(self) -> str:
        return f"{self.name}({len(self.core.states)} partitions)"

    # -- partitions ----------------------------------------------------------------------
    def add_partitions(self, initial: Mapping[TopicPartition, InitialFetchState]) -> set[TopicPartition]:
        added = self.core.add_partitions(initial)
        if added:
            self._wake()
        return added

    def remove_partitions(self, tps: Iterable[TopicPartition]) -> dict[TopicPartition, PartitionFetchState]:
        return self.core.remove_partitions(tps)

    @property
    def partition_count(self) -> int:
        return len(self.core.states)

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        if self.task is None:
            self.running = True
            self.task = self.loop.create_task(self.run(), name=self.name)

    async def shutdown(self) -> None:
        self.running = False
        task, self.task = self.task, None
        await cancel_and_wait(task)
        await self.leader.close()
        log.info("[%s] Stopped", self.name)

    async def run(self) -> None:
        log.info("[%s] Starting", self.name)
        while self.running:
            try:
                await self.do_work()
                await asyncio.sleep(0)   # a leader that answers at once must not starve the loop
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - keep fetching; the round's partitions backed off
                log.exception("[%s] Error in a fetch round", self.name)
                await self._idle(self._now_ms())

    async def do_work(self) -> None:
        """One round: truncate what waits for it, then fetch."""
        await self.maybe_truncate()
        await self.maybe_fetch()

    # -- one round -----------------------------------------------------------------------
    async def maybe_truncate(self) -> None:
        core = self.core
        now = self._now_ms()
        with_epochs, without = core.truncating_partitions(now)
        if with_epochs:
            try:
                answers = await self.leader.fetch_epoch_end_offsets(with_epochs)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - network or leader error: back off, retry
                log.info("[%s] OffsetsForLeaderEpoch for %d partitions failed: %s", self.name, len(with_epochs), e)
                core.delay_partitions(with_epochs, self._now_ms())
                self._leader_error({tp: error_code_for(e) for tp in with_epochs})
            else:
                self._report(core.process_epoch_end_offsets(with_epochs, answers, self._now_ms()))
        if without:
            self._report(core.truncate_to_high_watermark(without))

    async def maybe_fetch(self) -> None:
        core = self.core
        now = self._now_ms()
        plan, errors = core.build_fetch(now)
        if errors:
            self._leader_error(errors)
        if plan is None:
            await self._idle(now)
            return
        try:
            data = await self.leader.fetch(plan)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - network or top-level error: back off, retry
            core.fetch_failed(plan, self._now_ms(), e)
            self._leader_error({tp: error_code_for(e) for tp in plan.partitions})
            return
        out = core.process_fetch_response(plan, data, self._now_ms())
        for tp in out.out_of_range:
            await self._handle_out_of_range(tp, plan.partitions[tp].current_leader_epoch, out)
        self._report(out)

    async def _handle_out_of_range(self, tp: TopicPartition, epoch: int, out: FetchOutcome) -> None:
        """Kafka's ``fetchOffsetAndTruncate``: ask the leader for its log end (and start)."""
        core = self.core
        try:
            _, end = await self.leader.fetch_latest_offset(tp, epoch)
            start = None
            if core.needs_leader_start_offset(tp, end):
                _, start = await self.leader.fetch_earliest_offset(tp, epoch)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - retried after the backoff
            if isinstance(e, LeaderEndPointError) and e.error_code == ErrorCode.FENCED_LEADER_EPOCH:
                core.on_partition_fenced(tp, epoch, out)
                return
            log.info("[%s] Resetting the fetch offset of %s after OFFSET_OUT_OF_RANGE failed: %s", self.name, tp, e)
            core.delay_partitions([tp], self._now_ms())
            out.errors[tp] = error_code_for(e)
            return
        reset = core.handle_out_of_range(tp, epoch, end, start)
        out.truncated.update(reset.truncated)
        out.failed += reset.failed

    # -- helpers -------------------------------------------------------------------------
    def _report(self, out: FetchOutcome) -> None:
        if out.errors:
            self._leader_error(out.errors)

    def _leader_error(self, errors: Mapping[TopicPartition, ErrorCode | int]) -> None:
        """Hands the partitions whose error means "look the leader up again" to the callback."""
        moved = {tp: code for tp, code in errors.items() if code in LEADER_ERRORS}
        if self.on_leader_error is None or not moved:
            return
        try:
            self.on_leader_error(moved)
        except Exception:  # noqa: BLE001 - the callback must not stop fetching
            log.exception("[%s] on_leader_error failed", self.name)

    def _now_ms(self) -> float:
        return self.timer.time() * 1000

    def _wake(self) -> None:
        fut = self._wakeup
        if fut is not None and not fut.done():
            fut.set_result(None)

    async def _idle(self, now_ms: float) -> None:
        """Waits replica.fetch.backoff.ms, less if a partition's backoff ends sooner; wakes
        early when partitions are added."""
        wait_ms: float = self.core.config.backoff_ms
        ready = self.core.next_ready_ms(now_ms)
        if ready is not None:
            wait_ms = min(wait_ms, max(ready - now_ms, 0.0))
        fut = self._wakeup = self.loop.create_future()
        handle = self.timer.call_later(wait_ms / 1000, self._wake)
        try:
            await fut
        finally:
            handle.cancel()
            self._wakeup = None
