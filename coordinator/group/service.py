"""The broker-side owner of the group coordinator.

Wires the pure state machine to the running broker: the clock, asyncio futures for
parked requests and for writes, a timer task calling `poll`, and persistence in the
`__consumer_offsets` partitions this broker leads, through the replica manager's
Partition like any produce with acks=-1 (the write completes when the partition's high
watermark passes it; this module never moves the high watermark itself).

Who calls it: the broker constructs it with its collaborators and starts/stops it; the
replica manager reports leadership of `__consumer_offsets` partitions through
`on_elected`/`on_resigned` (a partition is loaded by a background task, see runtime.py)
and topic deletions through `on_topics_deleted`;
the handlers (broker/handlers/group.py, consumer_group.py, share_group.py,
streams_group.py, txn.py) call `find_coordinator`, `now_ms` and the coordinators by name. Event
loop thread only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Awaitable, Callable, Iterable, Mapping, Sequence, overload

from kafpy.protocol import batch_header
from kafpy.protocol.batch_header import RecordBatchHeader
from kafpy.protocol.errors import ErrorCode, ProtocolError
from kafpy.protocol.records import (CONTROL_ABORT, CONTROL_COMMIT, build_batch, decode_batch, iter_batches,
                              parse_control_record)
from kafpy.protocol.topics import GROUP_METADATA_TOPIC_NAME
from kafpy.replication.log_read import FetchIsolation, FetchParams, PartitionFetchInfo

from kafpy.coordinator.group.config import GroupCoordinatorConfig
from kafpy.coordinator.group.classic.coordinator import GroupCoordinator
from kafpy.coordinator.group.consumer.config import ConsumerGroupConfig
from kafpy.coordinator.group.consumer.coordinator import ConsumerGroupCoordinator
from kafpy.coordinator.group.consumer.topics import MetadataCacheTopics
from kafpy.coordinator.group.share.config import ShareGroupConfig
from kafpy.coordinator.group.share.coordinator import ShareGroupCoordinator
from kafpy.coordinator.group.streams.config import StreamsGroupConfig
from kafpy.coordinator.group.streams.coordinator import StreamsGroupCoordinator
from kafpy.coordinator.share_state.persister import SharePersister
from kafpy.coordinator.group.offsets_log import NO_PRODUCER_ID, LogEntry, Record, TxnMarker, TxnRecord
from kafpy.coordinator.runtime import CoordinatorRuntime

if TYPE_CHECKING:
    from kafpy.replication.metadata_cache import MetadataCache
    from kafpy.replication.replica_manager import ReplicaManager

log = logging.getLogger("kafka.coordinator.group.GroupCoordinator")

# a plain record with its offset, as `read(..., with_offsets=True)` yields it
OffsetRecord = tuple[int, bytes, "bytes | None"]

# How much of a partition one read takes while loading (Kafka's offsets.load.buffer.size).
_LOAD_BUFFER_BYTES = 5 * 1024 * 1024
# a load reads what the partition's log holds, up to its end (Kafka's loader: FetchIsolation.LOG_END)
_LOAD_PARAMS = FetchParams(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=_LOAD_BUFFER_BYTES,
                           isolation=FetchIsolation.LOG_END)


class BrokerOffsetsLog:
    """OffsetsLog over the partitions of `topic` (`__consumer_offsets`, or
    `__transaction_state` for the transaction coordinator) of a replica manager.

    `append` writes one batch as leader (origin "coordinator", acks=-1) and returns the
    replica manager's wait for that batch to be committed, bounded by
    offsets.commit.timeout.ms; an append refused at once returns a future that is
    already done with the refusal's error. Batches are compressed with `compression` (a
    codec id: offsets.topic.compression.codec for the group coordinator,
    share.coordinator.state.topic.compression.codec for the share coordinator, none for the
    transaction coordinator, as in Kafka). `read` replays a partition's log."""

    def __init__(self, replica_manager: ReplicaManager, loop: asyncio.AbstractEventLoop,
                 commit_timeout_ms: int, topic: str = GROUP_METADATA_TOPIC_NAME, compression: int = 0) -> None:
        self.topic = topic
        self.compression = compression
        self._replica_manager = replica_manager
        self._loop = loop
        self._commit_timeout_ms = commit_timeout_ms

    def _failed(self, error: ErrorCode) -> asyncio.Future:
        fut = self._loop.create_future()
        fut.set_result(error)
        return fut

    def append(self, partition: int, records: Sequence[Record], timestamp_ms: int,
               producer_id: int = NO_PRODUCER_ID, producer_epoch: int = -1) -> asyncio.Future:
        part = self._replica_manager.get_partition(self.topic, partition)
        if part is None:
            return self._failed(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        if producer_id != NO_PRODUCER_ID:
            # a transactional batch (TxnOffsetCommit): Kafka checks the producer epoch on
            # coordinator appends too
            if part.is_leader:
                refusal = part.log.producer_state.epoch_refusal(producer_id, producer_epoch)
                if refusal is not None:
                    return self._failed(refusal)
            batch = build_batch(list(records), base_timestamp=timestamp_ms, producer_id=producer_id,
                                producer_epoch=producer_epoch, is_transactional=True,
                                compression=self.compression)
        else:
            batch = build_batch(list(records), base_timestamp=timestamp_ms, compression=self.compression)
        appended = self._replica_manager.append_records(self._commit_timeout_ms, -1, "coordinator",
                                                        [(self.topic, partition, batch)], internal_topics_allowed=True)
        if appended.done():  # refused at once, or already committed: answered now
            return self._failed(self._error(partition, appended))
        fut = self._loop.create_future()

        def committed(done: asyncio.Future) -> None:
            if not fut.done():
                fut.set_result(self._error(partition, done))
        appended.add_done_callback(committed)
        return fut

    def _error(self, partition: int, appended: asyncio.Future) -> ErrorCode:
        [(error, message, _, _)] = appended.result()
        if error:
            log.warning("append to %s-%d failed: %s", self.topic, partition, message or error.name)
        return error

    @overload
    def read(self, partition: int) -> Iterable[LogEntry]: ...

    @overload
    def read(self, partition: int, with_offsets: bool) -> Iterable[LogEntry | OffsetRecord]: ...

    def read(self, partition: int, with_offsets: bool = False) -> Iterable[LogEntry | OffsetRecord]:
        """The partition's entries in log order; `with_offsets` yields plain records as
        (offset, key, value) (the share coordinator tracks which records are redundant)."""
        part = self._replica_manager.get_partition(self.topic, partition)
        if part is None:
            return
        lg = part.log
        offset, end = lg.log_start_offset, lg.log_end_offset
        rm = self._replica_manager
        while offset < end:
            [result] = rm.read_from_log(_LOAD_PARAMS, [PartitionFetchInfo(self.topic, partition, offset,
                                                                           _LOAD_BUFFER_BYTES)])
            records = result.records
            if result.error or records is None or records.size == 0:
                break
            buf = records.read_bytes()
            last = None
            for pos, header in iter_batches(buf):
                last = header.last_offset
                if header.last_offset < offset:
                    continue
                _, recs = decode_batch(buf, pos)
                if header.is_control:
                    marker = _marker(header, recs)
                    if marker is not None:
                        yield marker
                    continue
                txn = header.is_transactional
                for r in recs:
                    if header.base_offset + r.offset_delta >= offset and r.key is not None:
                        key, value = bytes(r.key), None if r.value is None else bytes(r.value)
                        if txn:
                            yield TxnRecord(header.producer_id, key, value)
                        elif with_offsets:
                            yield header.base_offset + r.offset_delta, key, value
                        else:
                            yield key, value
            if last is None or last + 1 <= offset:
                break
            offset = last + 1


def _marker(header: RecordBatchHeader, recs: list[batch_header.Record]) -> TxnMarker | None:
    """The COMMIT/ABORT marker of a control batch; None for anything else."""
    try:
        ctrl = parse_control_record(recs[0]) if recs else None
    except ProtocolError:
        return None
    if ctrl is None or ctrl.type not in (CONTROL_ABORT, CONTROL_COMMIT):
        return None
    return TxnMarker(header.producer_id, ctrl.type == CONTROL_COMMIT)


class GroupCoordinatorService(CoordinatorRuntime[GroupCoordinator]):
    """The group coordinator of one broker: builds and owns the coordinator of each
    group kind, `classic` (also `coordinator`, what the runtime's timer polls),
    `consumer`, `share` and `streams` (None when the kind is not configured); handlers
    call them by name. They exist from construction, so leadership reported before
    `start` is not lost."""

    def __init__(self, config: GroupCoordinatorConfig, replica_manager: ReplicaManager,
                 metadata_cache: MetadataCache, ensure_offsets_topic: Callable[[], Awaitable[None]],
                 loop: asyncio.AbstractEventLoop,
                 clock: Callable[[], float] = time.time,
                 consumer_config: ConsumerGroupConfig | None = None,
                 group_configs: Callable[[str], Mapping[str, str]] | None = None,
                 share_config: ShareGroupConfig | None = None,
                 share_persister: Callable[[], SharePersister | None] | None = None,
                 streams_config: StreamsGroupConfig | None = None) -> None:
        self.config = config
        self._init_runtime("group-coordinator", GROUP_METADATA_TOPIC_NAME, loop, clock, log,
                           metadata_cache, ensure_offsets_topic)
        self.offsets_log = BrokerOffsetsLog(replica_manager, loop, config.offsets_commit_timeout_ms,
                                            compression=config.offsets_topic_compression_codec)
        # the classic coordinator owns the partitions; the other kinds live beside it
        # (a kind without config is not built: its APIs answer as Kafka's without it)
        self.classic = GroupCoordinator(config, self.offsets_log, future_factory=loop.create_future,
                                        owned_partitions=())
        self.coordinator = self.classic
        topics = MetadataCacheTopics(metadata_cache)
        self.consumer: ConsumerGroupCoordinator | None = None
        self.share: ShareGroupCoordinator | None = None
        self.streams: StreamsGroupCoordinator | None = None
        if consumer_config is not None:
            self.consumer = ConsumerGroupCoordinator(self.classic, consumer_config, topics,
                                                     group_configs=group_configs)
        if share_config is not None:
            # `share_persister()` is the broker's SharePersister
            self.share = ShareGroupCoordinator(self.classic, share_config, topics,
                                               persister=share_persister, run_async=loop.create_task,
                                               group_configs=group_configs, clock_ms=self.now_ms)
        if streams_config is not None:
            self.streams = StreamsGroupCoordinator(self.classic, streams_config, topics,
                                                   group_configs=group_configs)
        self.classic.attach(consumer=self.consumer, share=self.share, streams=self.streams)

    # ------------------------------------------------------------------ lifecycle
    async def stop(self) -> None:
        """Answer parked JoinGroup/SyncGroup requests (NOT_COORDINATOR) and stop the
        timer. The broker calls this before draining connections."""
        await self._stop_tasks()
        self.coordinator.shutdown()

    # ------------------------------------------------------------------ partitions
    def on_elected(self, partition: int, leader_epoch: int) -> None:
        """This broker became leader of `__consumer_offsets-<partition>`: load its groups
        in the background (Kafka's scheduleLoadGroupAndOffsets); its groups answer
        COORDINATOR_LOAD_IN_PROGRESS meanwhile. Already owned or loading (a leader epoch
        bumped without a leader change): nothing to do. A resignation meanwhile cancels
        the load, so a later election starts from the log again."""
        if not self._is_newer_epoch(partition, leader_epoch):
            return
        c = self.coordinator
        if partition in c.owned_partitions or partition in c.loading_partitions:
            return
        # Groups map onto the partitions the topic really has (it may predate a change
        # of offsets.topic.num.partitions), as Kafka does.
        info = self._metadata.topic(GROUP_METADATA_TOPIC_NAME)
        if info is not None and info.partitions:
            self.config.offsets_topic_num_partitions = len(info.partitions)
        c.begin_load(partition)
        started_ms = self.now_ms()

        def complete(entries: list) -> None:
            loaded = c.complete_load(partition, entries, self.now_ms())
            log.info("Finished loading offsets and group metadata from %s-%d in %d milliseconds "
                     "for epoch %d: %d groups", GROUP_METADATA_TOPIC_NAME, partition,
                     self.now_ms() - started_ms, leader_epoch, loaded)
        self._schedule_load(partition, lambda: self.offsets_log.read(partition), complete)

    def on_resigned(self, partition: int, leader_epoch: int) -> None:
        """This broker stopped leading `__consumer_offsets-<partition>`: a load in
        progress is cancelled, the partition's groups unloaded."""
        if self._is_newer_epoch(partition, leader_epoch):
            self._cancel_load(partition)
            self.coordinator.unload_partition(partition)

    def on_topics_deleted(self, topics: list[str]) -> None:
        """These topics were deleted: drop their committed offsets."""
        self.coordinator.on_topics_deleted(topics, self.now_ms())

    def on_transaction_completed(self, producer_id: int, partitions: list[int], committed: bool) -> None:
        """A COMMIT (``committed``) or ABORT marker of ``producer_id`` is committed on these
        ``__consumer_offsets`` partitions: its pending transactional offsets there become
        visible or are dropped (broker/handlers/txn_markers.py calls this)."""
        self.coordinator.complete_transaction(producer_id, partitions, committed)

    # ------------------------------------------------------------------ FindCoordinator
    def find_coordinator(self, key: str, key_type: int) -> tuple[ErrorCode, int, str, int]:
        """(error, node id, host, port) of the coordinator for a group (key type 0).
        COORDINATOR_NOT_AVAILABLE while the coordinator's partition has no leader yet
        (the client retries; the first such answer asks for `__consumer_offsets` to be
        created). Transactional ids (key type 1) are the transaction coordinator's."""
        if key_type != 0:
            return ErrorCode.INVALID_REQUEST, -1, "", -1
        return self._find_coordinator(key)
