"""The broker-side owner of the group coordinator (`broker.group_coordinator`).

Wires the pure state machine to the running broker: the clock, asyncio futures for
parked JoinGroup/SyncGroup requests, a timer task calling `poll`, and persistence in
the `__consumer_offsets` partitions this broker leads (through the replica manager,
so appends move the high watermark and wake fetchers of that topic like any produce).
Runs on the event loop thread only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable, Iterable, Sequence

from coordinator import errors as E
from coordinator.config import GroupCoordinatorConfig
from coordinator.coordinator import GroupCoordinator
from coordinator.offsets_log import OffsetsLogError, Record
from coordinator.partitioner import (
    GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME, partition_for)

log = logging.getLogger("kafka.coordinator.group.GroupCoordinator")

# Longest the timer sleeps, so deadlines added meanwhile are seen within this bound.
_TICK_S = 0.05


class BrokerOffsetsLog:
    """OffsetsLog over the broker's hosted `__consumer_offsets` partitions."""

    def __init__(self, service: "GroupCoordinatorService") -> None:
        self._service = service

    def _partition(self, partition: int):
        broker = self._service.broker
        part = broker.replica_manager.get(GROUP_METADATA_TOPIC_NAME, partition)
        if part is None:
            self._service.ensure_offsets_topic()
            part = broker.replica_manager.get(GROUP_METADATA_TOPIC_NAME, partition)
        return part

    def append(self, partition: int, records: Sequence[Record], timestamp_ms: int) -> None:
        from protocol.records import build_batch
        part = self._partition(partition)
        if part is None:
            raise OffsetsLogError(E.NOT_LEADER_OR_FOLLOWER)
        batch = build_batch([(k, v) for k, v in records], base_timestamp=timestamp_ms)
        try:
            lg = part.log
            lg.append_as_leader(batch, part.leader_epoch, origin="coordinator")
            # This broker is the whole ISR of the partition it leads (standalone), so the
            # high watermark follows the log end, as the replica manager does for Produce.
            lg.update_high_watermark(lg.log_end_offset)
            part.wake()
        except Exception as e:
            code = getattr(e, "error_code", None)
            log.warning("append to %s-%d failed: %s", GROUP_METADATA_TOPIC_NAME, partition, e)
            raise OffsetsLogError(int(code) if code is not None else E.UNKNOWN_SERVER_ERROR,
                                  str(e)) from e

    def read(self, partition: int) -> Iterable[Record]:
        from protocol.records import decode_batch, iter_batches
        part = self._service.broker.replica_manager.get(GROUP_METADATA_TOPIC_NAME, partition)
        if part is None:
            return
        lg = part.log
        offset, end = lg.log_start_offset, lg.log_end_offset
        while offset < end:
            data = lg.read(offset, 1 << 20, None, True)
            records = getattr(data, "records", None)
            if records is None or records.size == 0:
                break
            buf = records.read_bytes()
            last = None
            for pos, header in iter_batches(buf):
                last = header.last_offset
                if header.is_control:
                    continue
                _, recs = decode_batch(buf, pos)
                for r in recs:
                    if header.base_offset + r.offset_delta >= offset and r.key is not None:
                        yield (bytes(r.key), None if r.value is None else bytes(r.value))
            if last is None or last + 1 <= offset:
                break
            offset = last + 1


class GroupCoordinatorService:
    """Constructed by the broker at startup; see docs/INTERFACES.md ("coordinator/")."""

    def __init__(self, config: GroupCoordinatorConfig | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self._config = config
        self._clock = clock
        self.broker: Any = None
        self.coordinator: GroupCoordinator | None = None
        self._task: asyncio.Task | None = None

    # ------------------------------------------------------------------ lifecycle
    def now_ms(self) -> int:
        return int(self._clock() * 1000)

    async def start(self, broker: Any) -> None:
        self.broker = broker
        cfg = self._config or GroupCoordinatorConfig.from_broker_config(broker.config)
        broker_id = getattr(broker.config, "broker_id", None)
        if broker_id is not None:
            cfg.broker_id = broker_id
        loop = asyncio.get_running_loop()
        self.coordinator = GroupCoordinator(cfg, BrokerOffsetsLog(self),
                                            future_factory=loop.create_future,
                                            owned_partitions=())
        info = broker.metadata.topic(GROUP_METADATA_TOPIC_NAME)
        if info is not None:
            self._host_and_load(info)
        self._task = loop.create_task(self._timer(), name="group-coordinator-timer")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
            self._task = None
        if self.coordinator is not None:
            self.coordinator.shutdown()
            rm = getattr(self.broker, "replica_manager", None)
            for p in list(self.coordinator.owned_partitions):
                part = rm.get(GROUP_METADATA_TOPIC_NAME, p) if rm is not None else None
                if part is not None:
                    try:
                        part.log.flush()
                    except Exception:
                        log.exception("flush of %s-%d failed", GROUP_METADATA_TOPIC_NAME, p)

    async def _timer(self) -> None:
        while True:
            try:
                if getattr(self.broker, "_stopping", False) and self.coordinator.active:
                    # The broker is shutting down and drains connections before calling
                    # stop(): answer parked JoinGroup/SyncGroup now, or draining waits for
                    # them (up to a rebalance timeout).
                    self.coordinator.shutdown()
                self.coordinator.poll(self.now_ms())
            except Exception:
                log.exception("group coordinator timer failed")
            await asyncio.sleep(_TICK_S)

    # ------------------------------------------------------------------ partitions
    def _host_and_load(self, info: Any) -> None:
        """Load every `__consumer_offsets` partition this broker leads."""
        me = self.coordinator.config.broker_id
        # Groups map onto the partitions the topic really has (it may predate a change of
        # offsets.topic.num.partitions), as Kafka does.
        if info.partitions:
            self.coordinator.config.offsets_topic_num_partitions = len(info.partitions)
        rm = self.broker.replica_manager
        if rm.get(GROUP_METADATA_TOPIC_NAME, 0) is None:
            rm.host_topic(info)
        now = self.now_ms()
        loaded = 0
        for p, pinfo in sorted(info.partitions.items()):
            if pinfo.leader == me and p not in self.coordinator.owned_partitions:
                loaded += self.coordinator.load_partition(p, now)
        if loaded:
            log.info("Loaded %d groups from %s", loaded, GROUP_METADATA_TOPIC_NAME)

    def on_elected(self, partition: int) -> None:
        """This broker became leader of `__consumer_offsets-<partition>`."""
        self.coordinator.load_partition(partition, self.now_ms())

    def on_resigned(self, partition: int) -> None:
        """This broker stopped leading `__consumer_offsets-<partition>`."""
        self.coordinator.unload_partition(partition)

    def on_topics_deleted(self, topics: Iterable[str]) -> None:
        """The broker deleted these topics: drop their committed offsets."""
        if self.coordinator is not None:
            self.coordinator.on_topics_deleted(topics, self.now_ms())

    def ensure_offsets_topic(self) -> Any:
        """The `__consumer_offsets` TopicInfo, created (compacted) if missing, as Kafka
        does on the first FindCoordinator; None if it cannot be created."""
        md = self.broker.metadata
        info = md.topic(GROUP_METADATA_TOPIC_NAME)
        if info is None:
            cfg = self.coordinator.config
            rf = max(1, min(cfg.offsets_topic_replication_factor, len(md.brokers())))
            configs = {"cleanup.policy": "compact",
                       "segment.bytes": str(cfg.offsets_topic_segment_bytes),
                       "compression.type": "producer"}
            try:
                info = md.create_topic(GROUP_METADATA_TOPIC_NAME,
                                       cfg.offsets_topic_num_partitions, rf, configs)
            except Exception as e:
                if md.topic(GROUP_METADATA_TOPIC_NAME) is None:
                    log.warning("could not create %s: %s", GROUP_METADATA_TOPIC_NAME, e)
                    return None
                info = md.topic(GROUP_METADATA_TOPIC_NAME)
        self._host_and_load(info)
        return info

    # ------------------------------------------------------------------ FindCoordinator
    def find_coordinator(self, key: str, key_type: int) -> tuple[int, int, str, int]:
        """(error, node id, host, port) of the coordinator for a group (key type 0) or a
        transactional id (1)."""
        md = self.broker.metadata
        brokers = {b.node_id: b for b in md.brokers()}
        if key_type == 0:
            info = self.ensure_offsets_topic()
            if info is None:
                return E.COORDINATOR_NOT_AVAILABLE, -1, "", -1
            pinfo = info.partitions.get(partition_for(key, len(info.partitions)))
            node = brokers.get(pinfo.leader) if pinfo is not None else None
        elif key_type == 1:
            # Transactions are coordinated by the leader of __transaction_state; until that
            # topic is managed, a single broker coordinates every transactional id itself.
            info = md.topic(TRANSACTION_STATE_TOPIC_NAME)
            node = None
            if info is not None and info.partitions:
                pinfo = info.partitions.get(partition_for(key, len(info.partitions)))
                node = brokers.get(pinfo.leader) if pinfo is not None else None
            if node is None:
                node = brokers.get(self.coordinator.config.broker_id)
        else:
            return E.INVALID_REQUEST, -1, "", -1
        if node is None:
            return E.COORDINATOR_NOT_AVAILABLE, -1, "", -1
        return E.NONE, node.node_id, node.host, node.port
