"""The partitions this broker hosts (Kafka's ReplicaManager): which replicas exist and in what
role, appends to leaders, and the waits that hang off them — acks=-1 produces until the high
watermark covers them, fetches until data arrives.

Who may call it: the controller (``apply_partition_states``, the only way a partition is
hosted or dropped), request handlers and the group coordinator; event loop only. Nothing on
disk of its own: logs belong to the LogManager.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Callable, Iterable, Protocol

from protocol.errors import ErrorCode
from storage import LogConfig, LogManager

from broker.config import KafkaConfig
from broker.metadata import MetadataCache, TopicInfo
from broker.topic_config import effective_topic_config
from replication.partition import LEADER_DURING_DELETE, Partition, PartitionState
from replication.purgatory import DelayedFetch, DelayedOperationPurgatory, DelayedProduce

log = logging.getLogger("kafka.server.ReplicaManager")


class ReplicaStateListener(Protocol):
    """Told of leadership changes (the group coordinator's hooks hang off this)."""

    def on_become_leader(self, partition: Partition) -> None: ...
    def on_become_follower(self, partition: Partition) -> None:
        """Also called when a partition this broker led stops being hosted."""
    def on_topics_deleted(self, topics: list[str]) -> None: ...


class ReplicaManager:
    def __init__(self, config: KafkaConfig, clock: Callable[[], float], log_manager: LogManager,
                 metadata_cache: MetadataCache, produce_purgatory: DelayedOperationPurgatory,
                 fetch_purgatory: DelayedOperationPurgatory, listener: ReplicaStateListener,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.config = config
        self.broker_id = config.broker_id
        self.clock = clock
        self.log_manager = log_manager
        self.metadata_cache = metadata_cache
        self.produce_purgatory = produce_purgatory
        self.fetch_purgatory = fetch_purgatory
        self.listener = listener
        self.loop = loop
        self.partitions: dict[tuple[str, int], Partition] = {}

    # -- configs -------------------------------------------------------------------------------
    def log_config(self, overrides: dict[str, str]) -> LogConfig:
        return LogConfig.from_properties(effective_topic_config(self.config, overrides))

    def _min_isr(self, overrides: dict[str, str]) -> int:
        return int(effective_topic_config(self.config, overrides).get("min.insync.replicas", "1"))

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

    def apply_partition_states(self, states: Iterable[PartitionState]) -> dict[tuple[str, int], ErrorCode]:
        """Become leader or follower of, or stop (and maybe delete), each partition. A state
        whose leader epoch is not newer than ours is ignored (STALE_CONTROLLER_EPOCH, as
        Kafka answers). Returns the error per partition."""
        errors: dict[tuple[str, int], ErrorCode] = {}
        deleted_topics: list[str] = []
        configs: dict[str, tuple[LogConfig, int]] = {}
        for s in states:
            key = (s.topic, s.index)
            if s.delete_partition or self.broker_id not in s.replicas:
                self._stop(key, s.delete_partition)
                if s.leader == LEADER_DURING_DELETE and s.topic not in deleted_topics:
                    deleted_topics.append(s.topic)
                errors[key] = ErrorCode.NONE
                continue
            part = self.partitions.get(key)
            if part is None:
                if s.topic not in configs:
                    overrides = self.metadata_cache.topic_config(s.topic)
                    configs[s.topic] = (self.log_config(overrides), self._min_isr(overrides))
                cfg, min_isr = configs[s.topic]
                lg = self.log_manager.get_or_create_log(s.topic, s.index, cfg, s.topic_id)
                info = self.metadata_cache.topic(s.topic)
                part = Partition(s.topic, s.index, s.topic_id, lg, info.is_internal if info else False,
                                 self.broker_id, self.clock, min_isr, self.config["replica.lag.time.max.ms"], self)
                self.partitions[key] = part
            if s.leader == self.broker_id:
                changed = part.make_leader(s)
                if changed:
                    self._leadership_changed(part)
                    self.listener.on_become_leader(part)
            else:
                changed = part.make_follower(s)
                if changed:
                    self._leadership_changed(part)
                    self.listener.on_become_follower(part)
            errors[key] = ErrorCode.NONE if changed else ErrorCode.STALE_CONTROLLER_EPOCH
        if deleted_topics:
            self.listener.on_topics_deleted(deleted_topics)
        return errors

    def _stop(self, key: tuple[str, int], delete: bool) -> None:
        part = self.partitions.pop(key, None)
        if part is not None:
            was_leader = part.is_leader
            part.stop()
            self._leadership_changed(part)
            if was_leader:
                self.listener.on_become_follower(part)
        if delete:
            self.log_manager.delete_log(*key)

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

    # -- acks=-1 ------------------------------------------------------------------------------------
    def wait_for_commits(self, entries: list[tuple[Partition, int]], timeout_ms: int) -> "asyncio.Future[list[ErrorCode]]":
        """One future for a whole produce request: per entry, NONE once the partition's high
        watermark reaches the offset, NOT_LEADER_OR_FOLLOWER if leadership is lost,
        NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR shrank below min.insync.replicas,
        REQUEST_TIMED_OUT after ``timeout_ms``."""
        fut: asyncio.Future = self.loop.create_future()

        def done(results: list[ErrorCode]) -> None:
            if not fut.done():
                fut.set_result(results)

        op = DelayedProduce(entries, done)
        self.produce_purgatory.try_complete_else_watch(op, dict.fromkeys(p for p, _ in entries), timeout_ms)
        return fut

    def wait_for_commit(self, partition: Partition, required_offset: int, timeout_ms: int) -> "asyncio.Future[ErrorCode]":
        """As wait_for_commits, for one partition (the group coordinator's offset commits)."""
        fut: asyncio.Future = self.loop.create_future()

        def done(results: list[ErrorCode]) -> None:
            if not fut.done():
                fut.set_result(results[0])

        op = DelayedProduce([(partition, required_offset)], done)
        self.produce_purgatory.try_complete_else_watch(op, (partition,), timeout_ms)
        return fut

    # -- fetch waiting -----------------------------------------------------------------------------
    async def wait_for_fetch(self, parts: list[Partition], timeout_ms: int) -> None:
        """Sleep until one of ``parts`` gets records or a new high watermark, or the timeout passes."""
        if timeout_ms <= 0 or not parts:
            return
        fut = self.loop.create_future()
        op = DelayedFetch(lambda: fut.done() or fut.set_result(None))
        self.fetch_purgatory.try_complete_else_watch(op, dict.fromkeys(parts), timeout_ms)
        await fut

    def shutdown(self) -> None:
        """Answer every parked request now (the broker is stopping)."""
        self.produce_purgatory.shutdown()
        self.fetch_purgatory.shutdown()

