"""The partitions this broker hosts (Kafka's ReplicaManager): which replicas exist and in what
role, and the one way records go in and out of their logs — ``append_records`` (produce,
transaction markers, the coordinators' writes; with acks=-1 it waits until the high watermark
covers the appends) and ``fetch_messages`` (consumer and follower fetches, the follower's
fetch state, the wait for ``min_bytes``).

Who may call it: the controller (``apply_partition_states``, the only way a partition is
hosted or dropped), request handlers and the coordinators; event loop only. Nothing on
disk of its own: logs belong to the LogManager.

In ZooKeeper mode (``start_replication``) followers fetch from their leader through the
ReplicaFetcherManager — (re)added on every new leader epoch (KAFKA-7164), removed when the
partition becomes leader or stops — and leaders send ISR changes through the
AlterPartitionManager, shrinking the ISR from a check every replica.lag.time.max.ms / 2.

A log dir whose disk fails (``kafpy.storage.log_dir_failure``) takes its partitions offline
(``handle_log_dir_failure``, Kafka's): they are no longer hosted, requests for them answer
KAFKA_STORAGE_ERROR (``partition_error``), ZooKeeper mode tells the controller
(``log_dir_event_notifier``), and with no log dir left the broker halts.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Awaitable, Callable, Iterable, Mapping, Protocol, Sequence

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.topics import INTERNAL_TOPICS
from kafpy.protocol.message_base import ZERO_UUID
from kafpy.storage import LogConfig, LogManager
from kafpy.storage.errors import StorageError
from kafpy.storage.log import LogAppendInfo

from kafpy.replication.config import BrokerConfigView, EffectiveTopicConfig
from kafpy.replication.metadata_cache import MetadataCache, TopicInfo
from kafpy.replication.fetch_state import BrokerEndPoint, InitialFetchState, TopicPartition
from kafpy.replication.follower_log import StorageFollowerLog
from kafpy.replication.log_append import AppendResult, append_to_local_log
from kafpy.replication.topic_stats import BrokerTopicStats
from kafpy.replication.log_read import FetchParams, FetchPartition, LogReadResult, read_partitions
from kafpy.replication.partition import (LEADER_DURING_DELETE, NO_LEADER, Partition, PartitionState,
                                         PendingIsrChange, Role)
from kafpy.replication.purgatory import DelayedFetch, DelayedOperationPurgatory, DelayedProduce
from kafpy.replication.tasks import cancel_and_wait

if TYPE_CHECKING:
    from kafpy.replication.alter_partition_manager import AlterPartitionManager
    from kafpy.replication.fetcher_manager import ReplicaFetcherManager

log = logging.getLogger("kafka.server.ReplicaManager")

INITIAL_CONTROLLER_EPOCH = 0  # KafkaController.InitialControllerEpoch
# StopReplica leader epochs that stop a replica whatever its current epoch (LeaderAndIsr.EpochDuringDelete, NoEpoch)
EPOCH_DURING_DELETE = -2
NO_EPOCH = -1


HOSTING_SLICE = 25  # partitions hosted between two turns of the event loop


def halt() -> None:
    """Kafka's Exit.halt(1): no clean shutdown, nothing more written to the failed disks."""
    logging.shutdown()
    sys.stderr.flush()
    os._exit(1)


def _log_failure(fut: concurrent.futures.Future[None]) -> None:
    if fut.exception() is not None:
        log.error("Deleting logs failed", exc_info=fut.exception())


class ReplicaStateListener(Protocol):
    """Told of leadership changes (the group coordinator's hooks hang off this)."""

    def on_become_leader(self, partition: Partition) -> None: ...
    def on_become_follower(self, partition: Partition) -> None:
        """Also called when a partition this broker led stops being hosted."""
    def on_topics_deleted(self, topics: list[str]) -> None: ...


class ReplicaManager:
    def __init__(self, config: BrokerConfigView, clock: Callable[[], float], log_manager: LogManager,
                 metadata_cache: MetadataCache, produce_purgatory: DelayedOperationPurgatory,
                 fetch_purgatory: DelayedOperationPurgatory, listener: ReplicaStateListener,
                 loop: asyncio.AbstractEventLoop, topic_config: EffectiveTopicConfig) -> None:
        """``topic_config`` completes a topic's config overrides with the broker's defaults
        (the broker's ``effective_topic_config`` over its config)."""
        self.config = config
        self.topic_config = topic_config
        self.broker_id = config.broker_id
        self.clock = clock
        self.log_manager = log_manager
        self.metadata_cache = metadata_cache
        self.produce_purgatory = produce_purgatory
        self.fetch_purgatory = fetch_purgatory
        self.listener = listener
        self.loop = loop
        self.partitions: dict[tuple[str, int], Partition] = {}
        # BrokerTopicMetrics counted on appends, set while something reads metrics (None: not counted)
        self.topic_stats: BrokerTopicStats | None = None
        # ZooKeeper mode: the highest controller epoch a control request carried, and the
        # lock that applies control requests one at a time (Kafka's replicaStateChangeLock)
        self.controller_epoch = INITIAL_CONTROLLER_EPOCH
        self.state_change_lock = asyncio.Lock()
        # ZooKeeper mode only (start_replication)
        self.fetcher_manager: "ReplicaFetcherManager | None" = None
        self.alter_partition_manager: "AlterPartitionManager | None" = None
        self._fetcher_tail: asyncio.Task | None = None  # fetcher additions run one after another
        self._leaderless: set[tuple[str, int]] = set()  # followers whose leader is not a live broker yet
        self._isr_expiration: asyncio.Task | None = None
        # file work of hosting and deleting logs, one job at a time and in order (a topic
        # deleted and created again must see its old directory renamed away first)
        self._log_io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="log-io")
        self._detached: list = []  # logs of deleted partitions whose files go in the next job
        # partitions of failed log dirs (Kafka's HostedPartition.Offline), until restart
        self.offline_partitions: set[tuple[str, int]] = set()
        # ZooKeeper mode: writes the log dir event notification for the controller
        self.log_dir_event_notifier: Callable[[], Awaitable[object]] | None = None
        self.halt: Callable[[], None] = halt
        channel = log_manager.failure_channel
        channel.listener = lambda d: loop.call_soon_threadsafe(self.handle_log_dir_failure, d)

    # -- configs -------------------------------------------------------------------------------
    def log_config(self, overrides: dict[str, str]) -> LogConfig:
        return LogConfig.from_properties(self.topic_config(overrides))

    def _min_isr(self, overrides: dict[str, str]) -> int:
        return int(self.topic_config(overrides).get("min.insync.replicas", "1"))

    def update_topic_config(self, info: TopicInfo) -> None:
        cfg = self.log_config(info.configs)
        min_isr = self._min_isr(info.configs)
        for p in info.partitions:
            part = self.partitions.get((info.name, p))
            if part is not None:
                part.log.update_config(cfg)
                part.min_insync_replicas = min_isr

    # -- hosting (LeaderAndIsr / StopReplica) -------------------------------------------------------
    def get_partition(self, topic: str, index: int) -> Partition | None:
        return self.partitions.get((topic, index))

    def partition_error(self, topic: str, index: int) -> ErrorCode:
        """What a request for a partition ``get_partition`` does not know answers, as
        Kafka's getPartitionOrError: KAFKA_STORAGE_ERROR for one in a failed log dir;
        NOT_LEADER_OR_FOLLOWER for one the metadata names but this broker does not host
        (yet: the LeaderAndIsr or metadata delta making it a replica is still on its way, or
        no longer: it was moved away), which clients retry after refreshing metadata; else
        UNKNOWN_TOPIC_OR_PARTITION."""
        if (topic, index) in self.offline_partitions:
            return ErrorCode.KAFKA_STORAGE_ERROR
        if self.metadata_cache.partition(topic, index) is not None:
            return ErrorCode.NOT_LEADER_OR_FOLLOWER
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION

    def handle_log_dir_failure(self, log_dir: str) -> None:
        """Kafka's ReplicaManager.handleLogDirFailure (event loop): the partitions of
        ``log_dir`` go offline (fetchers removed, leaderships given up locally, logs closed
        without writing); with every log dir failed the broker halts; in ZooKeeper mode
        the controller is told, and moves their leaderships."""
        lm = self.log_manager
        gone = lm.handle_log_dir_failure(log_dir)
        self.offline_partitions.update(gone)
        for key in gone:
            self._stop(key, delete=False)
        self._update_fetchers(gone, [])
        if not lm.live_log_dirs:
            log.error("Shutdown broker because all log dirs in %s have failed", ", ".join(lm.log_dirs))
            self.halt()
            return
        log.error("[ReplicaManager broker=%d] Stopped serving replicas in dir %s (%d partitions offline)",
                  self.broker_id, log_dir, len(gone))
        if self.log_dir_event_notifier is not None:
            self.loop.create_task(self._notify_log_dir_event(log_dir))

    async def _notify_log_dir_event(self, log_dir: str) -> None:
        assert self.log_dir_event_notifier is not None  # checked when the task was made
        try:
            await self.log_dir_event_notifier()
        except Exception:  # noqa: BLE001 - the partitions stay offline; a restart reports them
            log.exception("Telling the controller of the failed log dir %s failed", log_dir)

    async def prepare_logs(self, states: list[PartitionState],
                           topic_configs: dict[str, dict[str, str]] | None = None) -> None:
        """Create the logs ``states`` will host in a worker thread, so that hosting many new
        partitions (``apply_partition_states`` right after) leaves the event loop free.
        All or nothing: raises ``KafkaStorageError`` (out of descriptors, a failing disk)
        with none of them created."""
        specs: list[tuple[str, int, LogConfig | None, bytes | None]] = []
        configs: dict[str, LogConfig] = {}
        for s in states:
            key = (s.topic, s.index)
            if s.delete_partition or self.broker_id not in s.replicas or key in self.partitions \
                    or key in self.offline_partitions:  # answered KAFKA_STORAGE_ERROR when applied
                continue
            if s.topic not in configs:
                overrides = (topic_configs or {}).get(s.topic)
                configs[s.topic] = self.log_config(
                    overrides if overrides is not None else self.metadata_cache.topic_config(s.topic))
            specs.append((s.topic, s.index, configs[s.topic], s.topic_id if s.topic_id != ZERO_UUID else None))
        if specs:
            await self.loop.run_in_executor(self._log_io, self.log_manager.create_logs, specs)

    async def apply_partition_states_async(self, states: list[PartitionState],
                                           topic_configs: dict[str, dict[str, str]] | None = None,
                                           prepared: bool = False) -> dict[tuple[str, int], ErrorCode]:
        """``apply_partition_states`` without stalling the event loop: the new logs are made
        in a worker thread first (unless ``prepared``), then the partitions are hosted
        ``HOSTING_SLICE`` at a time with the loop free in between (becoming leader costs
        ~0.3 ms a partition). When the logs cannot be made, each new partition answers
        KAFKA_STORAGE_ERROR and the others are applied."""
        errors: dict[tuple[str, int], ErrorCode] = {}
        if not prepared:
            try:
                await self.prepare_logs(states, topic_configs)
            except StorageError as e:
                log.error("Creating logs for %d partitions failed: %s", len(states), e)
                failed = [s for s in states if not s.delete_partition and self.broker_id in s.replicas
                          and (s.topic, s.index) not in self.partitions
                          and self.log_manager.get_log(s.topic, s.index) is None]
                errors.update(((s.topic, s.index), ErrorCode.KAFKA_STORAGE_ERROR) for s in failed)
                states = [s for s in states if (s.topic, s.index) not in errors]
        for i in range(0, len(states), HOSTING_SLICE):
            if i:
                await asyncio.sleep(0)
            errors.update(self.apply_partition_states(states[i:i + HOSTING_SLICE], topic_configs))
        return errors

    def apply_partition_states(self, states: Iterable[PartitionState],
                               topic_configs: dict[str, dict[str, str]] | None = None
                               ) -> dict[tuple[str, int], ErrorCode]:
        """Become leader or follower of, or stop (and maybe delete), each partition. A state
        whose leader epoch is not newer than ours is ignored (STALE_CONTROLLER_EPOCH, as
        Kafka answers). A log created here takes its topic's config overrides from
        ``topic_configs`` if given there, else from the metadata cache. Returns the error
        per partition."""
        errors: dict[tuple[str, int], ErrorCode] = {}
        deleted_topics: list[str] = []
        configs: dict[str, tuple[LogConfig, int]] = {}
        new_leaders: list[tuple[str, int]] = []
        stopped: list[tuple[str, int]] = []
        new_followers: list[Partition] = []
        for s in states:
            key = (s.topic, s.index)
            if s.delete_partition or self.broker_id not in s.replicas:
                stopped.append(key)
                self._stop(key, s.delete_partition)
                if s.leader == LEADER_DURING_DELETE and s.topic not in deleted_topics:
                    deleted_topics.append(s.topic)
                errors[key] = ErrorCode.NONE
                continue
            part = self.partitions.get(key)
            if part is None:
                if s.topic not in configs:
                    overrides = (topic_configs or {}).get(s.topic)
                    if overrides is None:
                        overrides = self.metadata_cache.topic_config(s.topic)
                    configs[s.topic] = (self.log_config(overrides), self._min_isr(overrides))
                cfg, min_isr = configs[s.topic]
                try:
                    lg = self.log_manager.get_or_create_log(s.topic, s.index, cfg,
                                                            s.topic_id if s.topic_id != ZERO_UUID else None)
                except (OSError, StorageError) as e:  # as Kafka: this partition fails, the others go on
                    log.error("[ReplicaManager broker=%d] Creating the log of %s-%d failed: %s",
                              self.broker_id, s.topic, s.index, e)
                    errors[key] = ErrorCode.KAFKA_STORAGE_ERROR
                    continue
                lg.update_config(cfg)  # a log loaded at startup had only the defaults (ZooKeeper mode)
                part = Partition(s.topic, s.index, lg.topic_id or s.topic_id, lg, s.topic in INTERNAL_TOPICS,
                                 self.broker_id, self.clock, min_isr, self.config["replica.lag.time.max.ms"], self,
                                 alter_isr=self._alter_isr if self.alter_partition_manager is not None else None,
                                 is_broker_alive=self._is_broker_alive)
                self.partitions[key] = part
            if s.leader == self.broker_id:
                changed = part.make_leader(s)
                if changed:
                    new_leaders.append(key)
                    self._leadership_changed(part)
                    self.listener.on_become_leader(part)
            else:
                changed = part.make_follower(s)
                if changed:
                    new_followers.append(part)
                    self._leadership_changed(part)
                    self.listener.on_become_follower(part)
            errors[key] = ErrorCode.NONE if changed else ErrorCode.STALE_CONTROLLER_EPOCH
        self._update_fetchers(new_leaders + stopped, new_followers)
        if new_leaders:
            log.info("[ReplicaManager broker=%d] Hosting %d partition(s) as leader, %d as follower",
                     self.broker_id, len(new_leaders), len(new_followers))
        self._remove_detached()
        if deleted_topics:
            self.listener.on_topics_deleted(deleted_topics)
        return errors

    # -- control requests from the ZooKeeper controller --------------------------------------------
    def _accept_controller_epoch(self, controller_id: int, controller_epoch: int, what: str) -> bool:
        """False for a request from an older controller; otherwise remember its epoch."""
        if controller_epoch < self.controller_epoch:
            log.warning("Ignoring %s request from controller %d with epoch %d since its controller epoch %d is "
                        "old. Latest known controller epoch is %d", what, controller_id, controller_epoch,
                        controller_epoch, self.controller_epoch)
            return False
        self.controller_epoch = controller_epoch
        return True

    def _topic_id_of(self, topic: str, index: int) -> bytes | None:
        part = self.partitions.get((topic, index))
        if part is not None:
            return part.topic_id
        lg = self.log_manager.get_log(topic, index)
        return lg.topic_id if lg is not None else None

    async def become_leader_or_follower_async(
            self, controller_id: int, controller_epoch: int, states: list[PartitionState],
            topic_configs: dict[str, dict[str, str]] | None = None) -> tuple[ErrorCode, dict[tuple[str, int], ErrorCode]]:
        """LeaderAndIsr (ReplicaManager.becomeLeaderOrFollower): the request's error (a stale
        controller epoch refuses it whole) and the error per partition: a partition whose log
        carries another topic id is INCONSISTENT_TOPIC_ID, one that does not list this broker
        UNKNOWN_TOPIC_OR_PARTITION, one whose leader epoch is not newer STALE_CONTROLLER_EPOCH.
        New logs are made in a worker thread, partitions hosted in slices
        (``apply_partition_states_async``), a log that cannot be made answered KAFKA_STORAGE_ERROR."""
        error, errors, accepted = self._check_leader_and_isr(controller_id, controller_epoch, states)
        errors.update(await self.apply_partition_states_async(accepted, topic_configs))
        return error, errors

    def _check_leader_and_isr(self, controller_id: int, controller_epoch: int, states: list[PartitionState]
                              ) -> tuple[ErrorCode, dict[tuple[str, int], ErrorCode], list[PartitionState]]:
        """The request's error, the per-partition errors found before hosting, the states to apply."""
        if not self._accept_controller_epoch(controller_id, controller_epoch, "LeaderAndIsr"):
            return ErrorCode.STALE_CONTROLLER_EPOCH, {}, []
        errors: dict[tuple[str, int], ErrorCode] = {}
        accepted = []
        for s in states:
            key = (s.topic, s.index)
            current = self._topic_id_of(s.topic, s.index)
            if s.topic_id != ZERO_UUID and current not in (None, ZERO_UUID, s.topic_id):
                log.error("Topic Id in memory: %s does not match the topic Id for partition %s-%d provided in the "
                          "request: %s.", current.hex(), s.topic, s.index, s.topic_id.hex())
                errors[key] = ErrorCode.INCONSISTENT_TOPIC_ID
            elif self.broker_id not in s.replicas:
                log.warning("Ignoring LeaderAndIsr request from controller %d with epoch %d for partition %s-%d as "
                            "itself is not in assigned replica list %s", controller_id, controller_epoch, s.topic,
                            s.index, list(s.replicas))
                errors[key] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            else:
                accepted.append(s)
        return ErrorCode.NONE, errors, accepted

    def stop_replicas(self, controller_id: int, controller_epoch: int,
                      stops: list[tuple[str, int, int, bool]]) -> tuple[ErrorCode, dict[tuple[str, int], ErrorCode]]:
        """StopReplica (ReplicaManager.stopReplicas) for (topic, partition, leader epoch,
        delete) entries: the request's error and the error per partition. A replica stops
        when the request's leader epoch is -2 (deleting), -1 (not given) or not older than
        ours; an older one is FENCED_LEADER_EPOCH. Not hosted is fine (a leftover log is
        still deleted)."""
        if not self._accept_controller_epoch(controller_id, controller_epoch, "StopReplica"):
            return ErrorCode.STALE_CONTROLLER_EPOCH, {}
        errors: dict[tuple[str, int], ErrorCode] = {}
        states = []
        for topic, index, leader_epoch, delete in stops:
            part = self.partitions.get((topic, index))
            if (part is not None and leader_epoch not in (EPOCH_DURING_DELETE, NO_EPOCH)
                    and leader_epoch < part.leader_epoch):
                log.warning("Ignoring StopReplica request (delete=%s) from controller %d with epoch %d for "
                            "partition %s-%d since its associated leader epoch %d is smaller than the current "
                            "leader epoch %d", delete, controller_id, controller_epoch, topic, index, leader_epoch,
                            part.leader_epoch)
                errors[(topic, index)] = ErrorCode.FENCED_LEADER_EPOCH
                continue
            # NO_LEADER rather than LEADER_DURING_DELETE: deleted topics are announced by UpdateMetadata
            states.append(PartitionState(topic, index, ZERO_UUID, NO_LEADER, leader_epoch, -1, (), (),
                                         delete_partition=delete))
        errors.update(self.apply_partition_states(states))
        return ErrorCode.NONE, errors

    def maybe_update_metadata_cache(self, controller_id: int, controller_epoch: int,
                                    update: Callable[[], list[str]]) -> ErrorCode:
        """UpdateMetadata: run ``update`` (it writes the metadata cache and returns the topics
        it deleted) unless the request comes from an older controller, then tell the listener
        (the group coordinator drops their offsets)."""
        if not self._accept_controller_epoch(controller_id, controller_epoch, "UpdateMetadata"):
            return ErrorCode.STALE_CONTROLLER_EPOCH
        deleted = update()
        if deleted:
            self.listener.on_topics_deleted(deleted)
        if self._leaderless:
            waiting = [p for k in self._leaderless if (p := self.partitions.get(k)) is not None]
            self._leaderless.clear()
            self._schedule_fetcher_add(waiting)
        return ErrorCode.NONE

    def _stop(self, key: tuple[str, int], delete: bool) -> None:
        part = self.partitions.pop(key, None)
        if part is not None:
            was_leader = part.is_leader
            part.stop()
            self._leadership_changed(part)
            if was_leader:
                self.listener.on_become_follower(part)
        if delete:
            lg = self.log_manager.detach_log(*key)
            if lg is not None:
                self._detached.append(lg)

    def _remove_detached(self) -> None:
        """Delete the files of the logs detached by this change in the log-io thread (a
        topic of many partitions is many renames and removals)."""
        if not self._detached:
            return
        logs, self._detached = self._detached, []
        fut = self._log_io.submit(self.log_manager.remove_detached, logs)
        fut.add_done_callback(_log_failure)

    def _leadership_changed(self, part: Partition) -> None:
        """Waits on ``part`` re-check: produces see leadership lost, fetches read again."""
        self.produce_purgatory.check_and_complete(part)
        self.fetch_purgatory.check_and_complete(part)

    # -- PartitionListener ----------------------------------------------------------------------------
    def on_records_appended(self, partition: Partition) -> None:
        self.fetch_purgatory.check_and_complete(partition)

    def on_high_watermark_moved(self, partition: Partition) -> None:
        self.produce_purgatory.check_and_complete(partition)
        self.fetch_purgatory.check_and_complete(partition)

    # -- the way in: appends ---------------------------------------------------------------
    def append_records(self, timeout_ms: int, required_acks: int, origin: str,
                       entries: Sequence[tuple[str, int, bytes | memoryview]], internal_topics_allowed: bool = False,
                       on_appended: Callable[[str, int, LogAppendInfo], None] | None = None
                       ) -> "asyncio.Future[list[AppendResult]]":
        """Kafka's appendRecords: append each (topic, partition, records) as leader now, in
        order, and return a future of one ``AppendResult`` (error, error message, LogAppendInfo
        or None, log start offset) per entry, done at once unless
        ``required_acks`` is -1 and a high watermark has yet to pass an append: then once
        each has (NONE), leadership is lost (NOT_LEADER_OR_FOLLOWER), the ISR shrank below
        min.insync.replicas (NOT_ENOUGH_REPLICAS_AFTER_APPEND) or ``timeout_ms`` passed
        (REQUEST_TIMED_OUT). ``origin`` is "client" or "coordinator" (markers, offsets);
        internal topics take only the latter's appends with ``internal_topics_allowed``.
        ``on_appended`` hears of each append that succeeded, before any wait."""
        results, waits, waiting = append_to_local_log(self.partitions, self.partition_error, entries, origin,
                                                      required_acks, internal_topics_allowed, on_appended,
                                                      self.topic_stats)
        fut: asyncio.Future = self.loop.create_future()
        if not waits:
            fut.set_result(results)
            return fut

        assert waiting is not None  # set with ``waits``

        def done(errors: list[ErrorCode]) -> None:
            for i, error in zip(waiting, errors):
                results[i] = (error, *results[i][1:])
            if not fut.done():
                fut.set_result(results)

        self.produce_purgatory.try_complete_else_watch(DelayedProduce(waits, done),
                                                       dict.fromkeys(p for p, _ in waits), timeout_ms)
        return fut

    # -- the way out: reads ---------------------------------------------------------------------
    async def fetch_messages(self, params: FetchParams, partitions: Sequence[FetchPartition]
                             ) -> list[LogReadResult]:
        """Kafka's fetchMessages: read every partition (a follower's position recorded after
        its read succeeded, ``kafpy.replication.log_read``), and unless that already answers
        (``min_bytes`` read, an error, a diverging epoch) wait up to ``max_wait_ms`` for
        appends or high-watermark moves and read again. One result per partition, in order."""
        deadline = params.fetch_time_ms + max(params.max_wait_ms, 0)
        update = params.replica_id >= 0
        while True:
            results, total, waiting, now_answer = read_partitions(self.get_partition, self.partition_error, params,
                                                                  partitions, update)
            update = False
            if now_answer or total >= params.min_bytes or any(r.error for r in results):
                return results
            remaining = deadline - int(self.clock() * 1000)
            if remaining <= 0 or not waiting:
                return results
            await self._wait_for_fetch(waiting, remaining)

    def read_from_log(self, params: FetchParams, partitions: Sequence[FetchPartition]) -> list[LogReadResult]:
        """Kafka's readFromLog: what ``partitions`` hold now, without waiting and without
        recording a follower's position (the coordinators load their partitions with it,
        reading to the log end)."""
        return read_partitions(self.get_partition, self.partition_error, params, partitions, False)[0]

    async def _wait_for_fetch(self, parts: list[Partition], timeout_ms: int) -> None:
        """Sleep until one of ``parts`` gets records or a new high watermark, or the timeout passes."""
        fut = self.loop.create_future()
        def wake() -> None:
            if not fut.done():
                fut.set_result(None)
        op = DelayedFetch(wake)
        self.fetch_purgatory.try_complete_else_watch(op, dict.fromkeys(parts), timeout_ms)
        await fut

    def shutdown(self) -> None:
        """Answer every parked request now (the broker is stopping); finish the log file
        work under way."""
        self.produce_purgatory.shutdown()
        self.fetch_purgatory.shutdown()
        self._log_io.shutdown(wait=True)

    # -- replication (ZooKeeper mode) -----------------------------------------------------------
    def start_replication(self, fetcher_manager: "ReplicaFetcherManager",
                          alter_partition_manager: "AlterPartitionManager") -> None:
        """Before any LeaderAndIsr: followers will fetch, leaders change their ISR."""
        self.fetcher_manager = fetcher_manager
        self.alter_partition_manager = alter_partition_manager
        alter_partition_manager.start()
        self._isr_expiration = self.loop.create_task(self._run_isr_expiration(), name="isr-expiration")

    async def shutdown_replication(self) -> None:
        for task in (self._isr_expiration, self._fetcher_tail):
            await cancel_and_wait(task)
        if self.fetcher_manager is not None:
            await self.fetcher_manager.shutdown()
        if self.alter_partition_manager is not None:
            await self.alter_partition_manager.shutdown()

    def replica_log(self, tp: TopicPartition) -> StorageFollowerLog | None:
        """The fetcher's view of a follower's log (None unless this broker follows ``tp``)."""
        part = self.partitions.get(tp)
        return StorageFollowerLog(part.log) if part is not None and part.role is Role.FOLLOWER else None

    def maybe_shrink_isr(self) -> None:
        """Every partition this broker leads drops its out-of-sync followers from the ISR."""
        now = int(self.clock() * 1000)
        led = shrinking = 0
        for part in list(self.partitions.values()):
            if part.is_leader:
                led += 1
                shrinking += part.maybe_shrink_isr(now)
        log.debug("ISR expiration check of %d partitions led: %d shrinking", led, shrinking)

    async def _run_isr_expiration(self) -> None:
        interval = self.config["replica.lag.time.max.ms"] / 2 / 1000
        while True:
            await asyncio.sleep(interval)
            try:
                self.maybe_shrink_isr()
            except Exception:  # noqa: BLE001 - the next check tries again
                log.exception("ISR expiration check failed")

    def _alter_isr(self, partition: Partition, pending: PendingIsrChange) -> None:
        if self.alter_partition_manager is not None:
            self.alter_partition_manager.submit(partition, pending)

    def _is_broker_alive(self, broker_id: int) -> bool:
        return self.metadata_cache.broker(broker_id) is not None

    def _update_fetchers(self, not_following: list[tuple[str, int]], followers: list[Partition]) -> None:
        fm = self.fetcher_manager
        if fm is None:
            return
        if not_following:
            self._leaderless.difference_update(not_following)
            fm.remove_fetcher_for_partitions([TopicPartition(*k) for k in not_following])
        if followers:
            self._schedule_fetcher_add(followers)

    def _schedule_fetcher_add(self, parts: list[Partition]) -> None:
        """Add ``parts`` to the fetchers after the additions already scheduled (adding may
        have to replace a fetcher, which waits)."""
        if not parts or self.fetcher_manager is None:
            return
        prev = self._fetcher_tail

        async def run() -> None:
            if prev is not None and not prev.done():
                await asyncio.gather(prev, return_exceptions=True)
            await self._add_fetchers(parts)
        self._fetcher_tail = self.loop.create_task(run())

    async def _add_fetchers(self, parts: list[Partition]) -> None:
        """Fetch each partition that is still a follower from its leader, from the log end
        offset if the log has leader epochs, else from the high watermark
        (ReplicaManager.initialFetchOffset). A leader not known as a live broker yet waits
        for the next UpdateMetadata."""
        fm = self.fetcher_manager
        initial: dict[TopicPartition, InitialFetchState] = {}
        for part in parts:
            key = (part.topic, part.index)
            if self.partitions.get(key) is not part or part.role is not Role.FOLLOWER:
                continue
            node = self.metadata_cache.broker(part.leader_id)
            if node is None:
                log.info("[ReplicaManager broker=%d] Leader %d of %s-%d is not a live broker yet: fetching "
                         "starts with the next metadata update", self.broker_id, part.leader_id, *key)
                self._leaderless.add(key)
                continue
            lg = part.log
            offset = lg.log_end_offset if lg.leader_epoch_cache.latest_epoch >= 0 else lg.high_watermark
            initial[TopicPartition(*key)] = InitialFetchState(BrokerEndPoint(node.node_id, node.host, node.port),
                                                              part.topic_id, offset, part.leader_epoch)
        if initial and fm is not None:
            await fm.add_fetcher_for_partitions(initial)

    def on_fetch_leader_error(self, errors: Mapping[TopicPartition, ErrorCode | int]) -> None:
        """The fetcher's leader-error callback: a follower whose leader now lives at another
        endpoint (per the metadata cache) is moved there; otherwise it keeps backing off until
        LeaderAndIsr says more (as Kafka does in ZooKeeper mode)."""
        fm = self.fetcher_manager
        if fm is None:
            return
        moved = []
        for tp, code in errors.items():
            part = self.partitions.get(tp)
            if code == ErrorCode.FENCED_LEADER_EPOCH or part is None or part.role is not Role.FOLLOWER:
                continue
            node = self.metadata_cache.broker(part.leader_id)
            source = next((t.source for t in fm.fetcher_threads.values() if tp in t.core.states), None)
            if node is not None and source != BrokerEndPoint(node.node_id, node.host, node.port):
                moved.append(part)
        self._schedule_fetcher_add(moved)

