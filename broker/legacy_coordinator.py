"""TEMPORARY bridge, to delete when coordinator/service.py offers the new constructor
``GroupCoordinatorService(config, replica_manager, metadata_cache, ensure_offsets_topic, loop,
clock)``: it presents that interface over today's service, which expects ``start(broker)``
and reads a Broker-shaped object. broker/broker.py then imports the service from
``coordinator`` instead of from here.

Who may call it: broker/broker.py only. Nothing on disk.
"""
from __future__ import annotations

import asyncio
import time
from typing import Any, Awaitable, Callable

from protocol.errors import ErrorCode
from protocol.topics import GROUP_METADATA_TOPIC_NAME

from broker.metadata import MetadataCache, TopicError


class _PartitionView:
    """What today's offsets log does with a partition: append to ``log`` at
    ``leader_epoch``, set the HW to the LEO (standalone) and ``wake()`` fetchers."""

    def __init__(self, partition: Any, replica_manager: Any) -> None:
        self.log = partition.log
        self.leader_epoch = partition.leader_epoch
        self._partition = partition
        self._rm = replica_manager

    def wake(self) -> None:
        self._rm.on_records_appended(self._partition)


class _ReplicaManagerView:
    def __init__(self, replica_manager: Any) -> None:
        self._rm = replica_manager

    def get(self, topic: str, index: int) -> _PartitionView | None:
        part = self._rm.get_partition(topic, index)
        return _PartitionView(part, self._rm) if part is not None and part.is_leader else None

    def host_topic(self, info: Any) -> None:
        """Hosting goes through the controller now; partitions appear via apply_partition_states."""


class _MetadataView:
    def __init__(self, cache: MetadataCache, ensure_offsets_topic: Callable[[], Awaitable[None]],
                 loop: asyncio.AbstractEventLoop) -> None:
        self._cache = cache
        self._ensure = ensure_offsets_topic
        self._loop = loop

    def topic(self, name: str) -> Any:
        return self._cache.topic(name)

    def brokers(self) -> list:
        return self._cache.brokers()

    def create_topic(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Creation is asynchronous now: start it and answer COORDINATOR_NOT_AVAILABLE, as
        Kafka's FindCoordinator does while __consumer_offsets is being created."""
        if name == GROUP_METADATA_TOPIC_NAME:
            self._loop.create_task(self._ensure())
        raise TopicError(ErrorCode.COORDINATOR_NOT_AVAILABLE, f"{name} is being created")


class _BrokerView:
    def __init__(self, config: Any, rm: _ReplicaManagerView, md: _MetadataView) -> None:
        self.config = config
        self.replica_manager = rm
        self.metadata = md
        self._stopping = False


class GroupCoordinatorService:
    def __init__(self, config: Any, replica_manager: Any, metadata_cache: MetadataCache,
                 ensure_offsets_topic: Callable[[], Awaitable[None]], loop: asyncio.AbstractEventLoop,
                 clock: Callable[[], float] = time.time) -> None:
        from coordinator.service import GroupCoordinatorService as Service
        self._service = Service(config, clock)
        self._view = _BrokerView(config, _ReplicaManagerView(replica_manager),
                                 _MetadataView(metadata_cache, ensure_offsets_topic, loop))

    @property
    def coordinator(self) -> Any:
        return self._service.coordinator

    def now_ms(self) -> int:
        return self._service.now_ms()

    def find_coordinator(self, key: str, key_type: int) -> tuple[int, int, str, int]:
        return self._service.find_coordinator(key, key_type)

    async def start(self) -> None:
        await self._service.start(self._view)

    async def stop(self) -> None:
        await self._service.stop()

    def on_elected(self, partition: int, leader_epoch: int) -> None:
        coord = self._service.coordinator
        if coord is not None and partition not in coord.owned_partitions:
            self._service.on_elected(partition)

    def on_resigned(self, partition: int, leader_epoch: int) -> None:
        if self._service.coordinator is not None:
            self._service.on_resigned(partition)

    def on_topics_deleted(self, topics: list[str]) -> None:
        self._service.on_topics_deleted(topics)
