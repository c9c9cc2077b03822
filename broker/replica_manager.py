"""The partitions this broker hosts: their logs, leader epochs and high watermarks, appends
with the acks semantics, and fetch waiters woken by appends (Kafka's delayed fetch).

Runs on the event loop only. In standalone mode this broker leads every partition and is its
whole ISR, so the high watermark moves to the log end right after each append and acks=-1
completes as soon as the append returns.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from storage import LogConfig

from broker.topic_config import effective_topic_config

if TYPE_CHECKING:
    from broker.broker import Broker
    from broker.metadata import TopicInfo

log = logging.getLogger("kafka.server.ReplicaManager")


class Partition:
    """One hosted partition: its log and the futures of fetches waiting for data."""

    __slots__ = ("topic", "index", "topic_id", "log", "leader_epoch", "waiters", "is_internal")

    def __init__(self, topic: str, index: int, topic_id: bytes, log_: Any, leader_epoch: int,
                 is_internal: bool) -> None:
        self.topic = topic
        self.index = index
        self.topic_id = topic_id
        self.log = log_
        self.leader_epoch = leader_epoch
        self.waiters: list[asyncio.Future] = []
        self.is_internal = is_internal

    def wake(self) -> None:
        if self.waiters:
            ws, self.waiters = self.waiters, []
            for w in ws:
                if not w.done():
                    w.set_result(None)


class ReplicaManager:
    def __init__(self, broker: "Broker") -> None:
        self.broker = broker
        self.partitions: dict[tuple[str, int], Partition] = {}

    # -- topic lifecycle ---------------------------------------------------------------
    def log_config(self, topic: "TopicInfo | str") -> LogConfig:
        md = self.broker.metadata
        overrides = topic.configs if not isinstance(topic, str) else md.topic_config(topic)
        return LogConfig.from_properties(effective_topic_config(self.broker.config, overrides))

    def host_topic(self, info: "TopicInfo") -> None:
        """Open (or create) the logs of every partition of ``info`` led by this broker."""
        cfg = self.log_config(info)
        me = self.broker.config.broker_id
        for p, pinfo in info.partitions.items():
            key = (info.name, p)
            if key in self.partitions or me not in pinfo.replicas:
                continue
            lg = self.broker.log_manager.get_or_create_log(info.name, p, cfg, info.topic_id)
            if pinfo.leader == me:
                lg.leader_epoch_cache.assign(pinfo.leader_epoch, lg.log_end_offset)
                lg.update_high_watermark(lg.log_end_offset)
            self.partitions[key] = Partition(info.name, p, info.topic_id, lg, pinfo.leader_epoch, info.is_internal)

    def drop_topic(self, info: "TopicInfo") -> None:
        for p in list(info.partitions):
            part = self.partitions.pop((info.name, p), None)
            if part is not None:
                part.wake()
            self.broker.log_manager.delete_log(info.name, p)
        gc = self.broker.group_coordinator
        if gc is not None and hasattr(gc, "on_topics_deleted"):
            gc.on_topics_deleted([info.name])

    def update_topic_config(self, info: "TopicInfo") -> None:
        cfg = self.log_config(info)
        for p in info.partitions:
            part = self.partitions.get((info.name, p))
            if part is not None:
                part.log.update_config(cfg)

    def get(self, topic: str, partition: int) -> Partition | None:
        return self.partitions.get((topic, partition))

    # -- produce -----------------------------------------------------------------------
    def append(self, part: Partition, records: Any) -> Any:
        """Append as leader; the caller maps storage exceptions to error codes."""
        info = part.log.append_as_leader(records, part.leader_epoch)
        part.log.update_high_watermark(part.log.log_end_offset)
        part.wake()
        return info

    # -- fetch waiting -------------------------------------------------------------------
    async def wait_for_append(self, parts: list[Partition], timeout_s: float) -> None:
        """Sleep until one of ``parts`` gets an append, or the timeout passes."""
        if timeout_s <= 0 or not parts:
            return
        loop = self.broker.loop
        fut = loop.create_future()
        for p in parts:
            p.waiters.append(fut)
        handle = loop.call_later(timeout_s, lambda: fut.done() or fut.set_result(None))
        try:
            await fut
        finally:
            handle.cancel()
            for p in parts:
                try:
                    p.waiters.remove(fut)
                except ValueError:
                    pass

    def wake_all(self) -> None:
        for p in self.partitions.values():
            p.wake()
