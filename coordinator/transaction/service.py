"""The broker-side owner of the transaction coordinator.

Wires the pure state machine to the running broker: the clock, asyncio futures, a timer
task calling `poll`, persistence in the `__transaction_state` partitions this broker
leads (through the replica manager's Partition with acks=-1, as the group coordinator
writes `__consumer_offsets`), producer ids from the controller's allocator, and the
marker sender.

Who calls it: the broker builds, starts and stops it; the replica manager's listener
reports leadership of `__transaction_state` partitions (`on_elected`/`on_resigned`);
broker/handlers/txn.py calls the request methods. Event loop thread only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Awaitable, Callable

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.topics import TRANSACTION_STATE_TOPIC_NAME

from kafpy.coordinator.runtime import CoordinatorRuntime
from kafpy.coordinator.group.service import BrokerOffsetsLog
from kafpy.coordinator.transaction.config import TransactionCoordinatorConfig
from kafpy.coordinator.transaction.coordinator import (EndTxnResult, InitProducerIdResult,
                                                       TransactionCoordinator)
from kafpy.coordinator.transaction.markers import MarkerChannel

if TYPE_CHECKING:
    from kafpy.replication.metadata_cache import MetadataCache
    from kafpy.replication.replica_manager import ReplicaManager

log = logging.getLogger("kafka.coordinator.transaction.TransactionCoordinator")

class TransactionCoordinatorService(CoordinatorRuntime[TransactionCoordinator]):
    """`allocate_producer_id()` is the controller's producer id allocator (awaitable);
    `ensure_topic()` asks for `__transaction_state` to be created. `markers` is built by
    the broker (it needs the broker's own WriteTxnMarkers handler); `close_markers` stops
    it. `transaction_version()` is the finalized transaction.version feature level."""

    def __init__(self, config: TransactionCoordinatorConfig, replica_manager: ReplicaManager,
                 metadata_cache: MetadataCache, ensure_topic: Callable[[], Awaitable[None]],
                 allocate_producer_id: Callable[[], Awaitable[int]], markers: MarkerChannel,
                 loop: asyncio.AbstractEventLoop, clock: Callable[[], float] = time.time,
                 close_markers: Callable[[], Awaitable[None]] | None = None,
                 transaction_version: Callable[[], int] = lambda: 0) -> None:
        self.config = config
        self._allocate = allocate_producer_id
        self._close_markers = close_markers
        self._init_runtime("txn-coordinator", TRANSACTION_STATE_TOPIC_NAME, loop, clock, log,
                           metadata_cache, ensure_topic)
        self.txn_log = BrokerOffsetsLog(replica_manager, loop, config.request_timeout_ms,
                                        topic=TRANSACTION_STATE_TOPIC_NAME)
        # one producer id allocated ahead, so the state machine never waits for one
        self._spare_ids: list[int] = []
        self.coordinator = TransactionCoordinator(config, self.txn_log, markers,
                                                  self._take_producer_id, loop.create_future,
                                                  transaction_version)

    async def stop(self) -> None:
        """Stop the timer and the marker sender, and forget every transactional id."""
        await self._stop_tasks()
        if self._close_markers is not None:
            await self._close_markers()
        self.coordinator.shutdown()

    # ------------------------------------------------------------------ producer ids
    def _take_producer_id(self) -> int:
        """The spare id; none left (a coordinator abort whose epoch ran out) raises, and
        the next one is fetched meanwhile."""
        if not self._spare_ids:
            self._loop.create_task(self._refill_producer_id())
            raise RuntimeError("no producer id allocated yet")
        return self._spare_ids.pop()

    async def _refill_producer_id(self) -> None:
        try:
            pid = await self._allocate()
        except Exception as e:  # noqa: BLE001 - the next call asks again
            log.warning("could not allocate a producer id: %s", e)
            return
        self._spare_ids.append(pid)

    async def init_producer_id(self, transactional_id: str, timeout_ms: int, producer_id: int,
                               producer_epoch: int) -> InitProducerIdResult:
        # A call needs at most one new id (a new transactional id, or a rotation); it is
        # taken without waiting, so no other request runs between the check and the use.
        if not self._spare_ids:
            self._spare_ids.append(await self._allocate())
        done = self.coordinator.init_producer_id(transactional_id, timeout_ms, producer_id,
                                                 producer_epoch, self.now_ms())
        assert isinstance(done, asyncio.Future)  # made by loop.create_future
        return await done

    async def end_txn(self, transactional_id: str, producer_id: int, producer_epoch: int,
                      committed: bool, client_transaction_version: int) -> EndTxnResult:
        # a version 2 end may move an exhausted epoch to a new producer id
        if client_transaction_version >= 2 and not self._spare_ids:
            self._spare_ids.append(await self._allocate())
        done = self.coordinator.end_txn(transactional_id, producer_id, producer_epoch,
                                        committed, self.now_ms(), client_transaction_version)
        assert isinstance(done, asyncio.Future)  # made by loop.create_future
        return await done

    # ------------------------------------------------------------------ partitions
    def on_elected(self, partition: int, leader_epoch: int) -> None:
        """This broker leads `__transaction_state-<partition>`: load its transactional ids
        (the leader epoch is the coordinator epoch written into markers). The log is read
        in slices by a task, so a large partition does not stall the event loop; its ids
        answer COORDINATOR_LOAD_IN_PROGRESS meanwhile, as in Kafka."""
        if not self._is_newer_epoch(partition, leader_epoch):
            return
        info = self._metadata.topic(TRANSACTION_STATE_TOPIC_NAME)
        if info is not None and info.partitions:
            self.config.transaction_state_log_num_partitions = len(info.partitions)
        self.coordinator.begin_load(partition)

        def complete(entries: list) -> None:
            loaded = self.coordinator.complete_load(partition, leader_epoch, entries, self.now_ms())
            log.info("Loaded %d transactional ids from %s-%d (coordinator epoch %d)", loaded,
                     TRANSACTION_STATE_TOPIC_NAME, partition, leader_epoch)
        self._schedule_load(partition, lambda: self.txn_log.read(partition), complete)

    def on_resigned(self, partition: int, leader_epoch: int) -> None:
        if self._is_newer_epoch(partition, leader_epoch):
            self._cancel_load(partition)
            self.coordinator.unload_partition(partition)

    # ------------------------------------------------------------------ FindCoordinator
    def find_coordinator(self, transactional_id: str) -> tuple[ErrorCode, int, str, int]:
        """(error, node, host, port) of the leader of the id's `__transaction_state`
        partition; the first call creates the topic (COORDINATOR_NOT_AVAILABLE meanwhile,
        and while fewer brokers are alive than its replication factor)."""
        return self._find_coordinator(transactional_id)
