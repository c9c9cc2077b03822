"""The broker-side owner of the share coordinator (Kafka's ShareCoordinatorService).

Wires the pure ShareCoordinator to the running broker: the clock, persistence in the
`__share_group_state` partitions this broker leads (through the replica manager's Partition
with acks=-1, as the group coordinator writes `__consumer_offsets`: a request succeeds only
once its record is committed, and only then is the record replayed into the shard),
loading a partition in the background when elected, and FindCoordinator for key type 2.

Writes of one share partition are serialized (a per-key lock): a request's record is built
from the state the previous one left, so a snapshot never misses an update still in flight.
Different share partitions write concurrently.

Who calls it: the broker builds, starts and stops it; the replica manager's listener reports
leadership of `__share_group_state` partitions (`on_elected`/`on_resigned`); the persister
RPC handlers (broker/handlers/share_state.py) and the broker's SharePersister call the
request methods. Event loop thread only.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import TYPE_CHECKING, Awaitable, Callable

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.topics import SHARE_GROUP_STATE_TOPIC_NAME

from kafpy.coordinator.result import CoordinatorWriter
from kafpy.coordinator.runtime import CoordinatorRuntime
from kafpy.coordinator.group.service import BrokerOffsetsLog
from kafpy.coordinator.share_state.config import ShareCoordinatorConfig
from kafpy.coordinator.share_state.coordinator import ShareCoordinator
from kafpy.coordinator.share_state.persister import ReadStateResult, SharePartitionKey, StateBatch, StateSummary
from kafpy.coordinator.share_state.shard import ShardResult, ShareCoordinatorShard

if TYPE_CHECKING:
    from kafpy.replication.metadata_cache import MetadataCache
    from kafpy.replication.replica_manager import ReplicaManager

log = logging.getLogger("kafka.coordinator.share.ShareCoordinatorService")

# What a failed append of the state topic answers (Kafka's coordinator runtime mapping).
_APPEND_ERRORS = {
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION: ErrorCode.COORDINATOR_NOT_AVAILABLE,
    ErrorCode.NOT_ENOUGH_REPLICAS: ErrorCode.COORDINATOR_NOT_AVAILABLE,
    ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND: ErrorCode.COORDINATOR_NOT_AVAILABLE,
    ErrorCode.REQUEST_TIMED_OUT: ErrorCode.COORDINATOR_NOT_AVAILABLE,
    ErrorCode.NOT_LEADER_OR_FOLLOWER: ErrorCode.NOT_COORDINATOR,
    ErrorCode.KAFKA_STORAGE_ERROR: ErrorCode.NOT_COORDINATOR,
    ErrorCode.MESSAGE_TOO_LARGE: ErrorCode.UNKNOWN_SERVER_ERROR,
    ErrorCode.RECORD_LIST_TOO_LARGE: ErrorCode.UNKNOWN_SERVER_ERROR,
}


class ShareCoordinatorService(CoordinatorRuntime[ShareCoordinator]):
    """`ensure_topic()` asks for `__share_group_state` to be created (the first
    FindCoordinator of key type 2 does). Results carry Kafka's error codes; nothing raises."""

    def __init__(self, config: ShareCoordinatorConfig, replica_manager: ReplicaManager, metadata_cache: MetadataCache,
                 ensure_topic: Callable[[], Awaitable[None]], loop: asyncio.AbstractEventLoop,
                 clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self._init_runtime("share-coordinator", SHARE_GROUP_STATE_TOPIC_NAME, loop, clock, log,
                           metadata_cache, ensure_topic)
        self._replica_manager = replica_manager
        # the one write path of the coordinators (coordinator/result.py), over the topic's log
        self.writer: CoordinatorWriter[BrokerOffsetsLog] = CoordinatorWriter(
            BrokerOffsetsLog(replica_manager, loop, config.write_timeout_ms, topic=SHARE_GROUP_STATE_TOPIC_NAME,
                             compression=config.state_topic_compression_codec),
            loop.create_future, "share coordinator")
        self._periodic: list[asyncio.Task] = []
        self._pruned: dict[int, int] = {}
        self.coordinator = ShareCoordinator(config, self._partition_count)
        # key -> (lock, requests holding or waiting for it)
        self._key_locks: dict[SharePartitionKey, list] = {}

    @property
    def state_log(self) -> BrokerOffsetsLog:
        """The `__share_group_state` log the writer appends to and loads read."""
        return self.writer.log

    @state_log.setter
    def state_log(self, state_log: BrokerOffsetsLog) -> None:
        self.writer.log = state_log

    async def _write(self, partition: int, records: list[tuple[bytes, bytes | None]]) -> ErrorCode:
        """The error of writing `records` to `partition` (NONE once committed)."""
        written: asyncio.Future[ErrorCode] = self._loop.create_future()

        def then(error: ErrorCode) -> None:
            if not written.done():
                written.set_result(error)
        self.writer.write(partition, records, self.now_ms(), then)
        return await written

    def _partition_count(self, topic_id: uuid.UUID) -> int | None:
        info = self._metadata.topic_by_id(topic_id.bytes)
        return None if info is None else len(info.partitions)

    async def start(self) -> None:
        await super().start()
        cfg = self.config
        self._periodic = [
            self._loop.create_task(self._every(cfg.state_topic_prune_interval_ms, self._prune),
                                   name="share-coordinator-prune"),
            self._loop.create_task(self._every(cfg.cold_partition_snapshot_interval_ms, self.snapshot_cold_partitions),
                                   name="share-coordinator-cold-snapshots")]

    async def stop(self) -> None:
        for task in self._periodic:
            task.cancel()
        await asyncio.gather(*self._periodic, return_exceptions=True)
        self._periodic = []
        await self._stop_tasks()
        self.coordinator.shutdown()

    async def _every(self, interval_ms: int, job: Callable[[], Awaitable[object]]) -> None:
        while True:
            await asyncio.sleep(interval_ms / 1000)
            try:
                await job()
            except Exception:
                log.exception("%s failed", job.__name__)

    # ------------------------------------------------------------------ housekeeping
    async def _prune(self) -> None:
        self.prune()

    async def snapshot_cold_partitions(self) -> int:
        """A snapshot for each share partition whose last record is an update (Kafka's
        cold-partition snapshots), so pruning can pass the records before it. Returns how
        many were written."""
        keys = [k for shard in list(self.coordinator.shards.values())
                for k, n in shard.updates_since_snapshot.items() if n > 0]
        results = await asyncio.gather(*(self._run(k, lambda s, k=k: s.cold_snapshot(k, self.now_ms()))  # type: ignore[misc]  # k bound per key
                                         for k in keys))
        return sum(1 for r in results if r.error == ErrorCode.NONE and r.records)

    def on_topics_deleted(self, topics: list[str]) -> None:
        """Topics were deleted: the state of their share partitions is deleted too (Kafka's
        onTopicsDeleted), in the background."""
        keys = [k for shard in list(self.coordinator.shards.values()) for k in shard.keys_of_deleted_topics()]
        if keys:
            task = self._loop.create_task(self._delete_all(keys), name="share-coordinator-topics-deleted")
            self._periodic.append(task)

            def forget(t: asyncio.Task[None]) -> None:
                if t in self._periodic:
                    self._periodic.remove(t)
            task.add_done_callback(forget)

    async def _delete_all(self, keys: list[SharePartitionKey]) -> None:
        for key, (error, _) in zip(keys, await asyncio.gather(*(self.delete_state(k) for k in keys))):
            if error != ErrorCode.NONE:
                log.warning("could not delete the share state of %s: %s", key, error.name)

    def prune(self) -> dict[int, int]:
        """Kafka's share-group state topic prune job: move the log start of each partition
        this broker leads to its shard's redundant offset (every record below it replaced by
        a later snapshot), so the topic (cleanup.policy=delete, retention.ms=-1) does not
        grow forever. Returns the new log start offsets moved."""
        moved: dict[int, int] = {}
        for partition, shard in list(self.coordinator.shards.items()):
            offset = shard.redundant_offset()
            if offset is None or offset <= self._pruned.get(partition, 0):
                continue
            part = self._replica_manager.get_partition(SHARE_GROUP_STATE_TOPIC_NAME, partition)
            if part is None or not part.is_leader:
                continue
            offset = min(offset, part.log.high_watermark)
            moved[partition] = self._pruned[partition] = part.log.delete_records_before(offset)
            log.info("Pruned %s-%d till offset %d", SHARE_GROUP_STATE_TOPIC_NAME, partition, offset)
        return moved

    # ------------------------------------------------------------------ partitions
    def on_elected(self, partition: int, leader_epoch: int) -> None:
        """This broker leads `__share_group_state-<partition>`: replay it in the background;
        its keys answer COORDINATOR_LOAD_IN_PROGRESS meanwhile."""
        if not self._is_newer_epoch(partition, leader_epoch):
            return
        info = self._metadata.topic(SHARE_GROUP_STATE_TOPIC_NAME)
        if info is not None and info.partitions:
            self.config.state_topic_num_partitions = len(info.partitions)
        c = self.coordinator
        c.begin_load(partition)
        started_ms = self.now_ms()

        def complete(entries: list) -> None:
            loaded = c.complete_load(partition, [e for e in entries if isinstance(e, tuple)])
            self._pruned.pop(partition, None)
            log.info("Finished loading %s-%d in %d milliseconds for epoch %d: %d share partitions",
                     SHARE_GROUP_STATE_TOPIC_NAME, partition, self.now_ms() - started_ms,
                     leader_epoch, loaded)
        self._schedule_load(partition, lambda: self.state_log.read(partition, with_offsets=True), complete)

    def on_resigned(self, partition: int, leader_epoch: int) -> None:
        if self._is_newer_epoch(partition, leader_epoch):
            self._cancel_load(partition)
            self.coordinator.unload_partition(partition)

    # ------------------------------------------------------------------ FindCoordinator
    def find_coordinator(self, key: str) -> tuple[ErrorCode, int, str, int]:
        """(error, node, host, port) of the leader of the key's `__share_group_state`
        partition (key "group:topicId:partition"); the first call creates the topic
        (COORDINATOR_NOT_AVAILABLE meanwhile)."""
        return self._find_coordinator(key)

    # ------------------------------------------------------------------ requests
    async def initialize_state(self, key: SharePartitionKey, state_epoch: int,
                               start_offset: int) -> tuple[ErrorCode, str | None]:
        r = await self._run(key, lambda s: s.initialize_state(key, state_epoch, start_offset, self.now_ms()))
        return r.error, r.message

    async def write_state(self, key: SharePartitionKey, state_epoch: int, leader_epoch: int,
                          start_offset: int, batches: list[StateBatch],
                          delivery_complete_count: int = -1) -> tuple[ErrorCode, str | None]:
        r = await self._run(key, lambda s: s.write_state(key, state_epoch, leader_epoch, start_offset,
                                                         batches, self.now_ms(), delivery_complete_count))
        return r.error, r.message

    async def read_state(self, key: SharePartitionKey, leader_epoch: int) -> ReadStateResult:
        r = await self._run(key, lambda s: s.read_state(key, leader_epoch, self.now_ms()))
        if r.error != ErrorCode.NONE or r.read is None:
            return ReadStateResult(error_code=r.error, error_message=r.message)
        return r.read

    async def delete_state(self, key: SharePartitionKey) -> tuple[ErrorCode, str | None]:
        r = await self._run(key, lambda s: s.delete_state(key))
        return r.error, r.message

    async def read_summary(self, key: SharePartitionKey) -> StateSummary:
        error, shard = self.coordinator.shard_for(key)
        if shard is None:
            return StateSummary(error_code=error, error_message=error.name)
        return shard.read_summary(key)

    def _log_end_offset(self, partition: int) -> int | None:
        """Where the next append to `partition` lands: the append runs synchronously right
        after this read (nothing else appends in between on this loop), so the records'
        offsets are known without the append reporting them."""
        part = self._replica_manager.get_partition(SHARE_GROUP_STATE_TOPIC_NAME, partition)
        return None if part is None else part.log.log_end_offset

    async def _run(self, key: SharePartitionKey,
                   build: Callable[[ShareCoordinatorShard], ShardResult]) -> ShardResult:
        """`build`'s answer on the key's shard; its records appended and, once committed,
        replayed into that shard (unless it was unloaded meanwhile) before answering."""
        entry = self._key_locks.setdefault(key, [asyncio.Lock(), 0])
        entry[1] += 1
        lock = entry[0]
        try:
            async with lock:
                error, shard = self.coordinator.shard_for(key)
                if shard is None:
                    return ShardResult(error, error.name)
                result = build(shard)
                if result.error != ErrorCode.NONE or not result.records:
                    return result
                partition = self.coordinator.partition_for(key)
                base_offset = self._log_end_offset(partition)
                appended = await self._write(partition, result.records)
                if appended != ErrorCode.NONE:
                    error = _APPEND_ERRORS.get(appended, appended)
                    return ShardResult(error, error.name)
                if self.coordinator.shards.get(partition) is not shard:
                    return ShardResult(ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR.name)
                shard.replay_all(result.records, base_offset)
                return result
        finally:
            entry[1] -= 1
            if entry[1] == 0:
                del self._key_locks[key]
