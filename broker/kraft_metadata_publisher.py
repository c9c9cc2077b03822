"""What a KRaft broker does with each new metadata image (Kafka's ``BrokerMetadataPublisher``
with ``KRaftMetadataCache`` and ``ReplicaManager.applyDelta``).

For every published (delta, image), in order:

* the metadata cache takes the image's unfenced brokers (each at its inter-broker listener,
  every listener's endpoint kept for clients), its topics with their partitions and dynamic
  configs, and drops deleted topics; Metadata requests are answered from it. The controller
  id a client sees is this broker (Kafka answers a random live broker: admin requests sent
  to any broker are forwarded to the active controller);
* ``delta.local_changes(broker_id)`` drives the replica manager as LeaderAndIsr and
  StopReplica do in ZooKeeper mode: partitions it now leads (leader epoch and ISR from the
  image), follows (fetchers toward the leader), or no longer holds (logs deleted); the
  coordinators' partitions load and unload through the replica manager's listener; a leader
  whose ISR the controller changed without a new leader epoch takes the new ISR;
* topic config changes reach the hosted logs.

Who calls it: ``KRaftBroker``'s metadata loader (``publish``), on the raft driver's task;
the work runs on one task of its own, one image after another, under the replica manager's
state change lock. ``published_offset`` is what heartbeats report. Nothing on disk of its own.
"""
from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import TYPE_CHECKING, Callable, Container, Iterable, Mapping, Protocol

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.image.partition import PartitionRegistration
from kafpy.protocol.topics import INTERNAL_TOPICS
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache, PartitionInfo, TopicInfo
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import ZERO_UUID
from kafpy.replication.partition import NO_LEADER, PartitionState, Role

if TYPE_CHECKING:
    from kafpy.replication.replica_manager import ReplicaManager

log = logging.getLogger("kafka.server.metadata.BrokerMetadataPublisher")


def live_brokers(image: MetadataImage, listener: str, fenced: bool = False) -> list[BrokerInfo]:
    """The unfenced brokers (with ``fenced``: the fenced ones), each at ``listener`` (else its
    first listener), every listener's endpoint kept (clients are answered with the one they
    came in on)."""
    out = []
    for b in (image.live_brokers() if not fenced
              else [r for _, r in sorted(image.cluster.brokers.items()) if r.fenced]):
        if not b.listeners:
            continue
        endpoints = {e.name: (e.host, e.port) for e in b.listeners}
        host, port = endpoints.get(listener, (b.listeners[0].host, b.listeners[0].port))
        out.append(BrokerInfo(b.id, host, port, b.rack, endpoints))
    return out


def partition_info(reg: PartitionRegistration) -> PartitionInfo:
    return PartitionInfo(reg.leader, reg.leader_epoch, list(reg.replicas), list(reg.isr), [], reg.partition_epoch)


def topic_info(image: MetadataImage, name: str) -> TopicInfo | None:
    """The cache's view of topic ``name`` in ``image`` (None when the image has no such topic)."""
    topic = image.topic(name)
    if topic is None:
        return None
    return TopicInfo(name, topic.id, {i: partition_info(p) for i, p in sorted(topic.partitions.items())},
                     dict(image.topic_config(name)), name in INTERNAL_TOPICS)


def changed_topic_names(delta: MetadataDelta, image: MetadataImage) -> tuple[set[str], set[str]]:
    """(topics created or changed, topics deleted) by ``delta``, configs included."""
    changed: set[str] = set()
    deleted = set(delta.deleted_topics().values())
    if delta.topics_delta is not None:
        changed.update(t.name for t in delta.topics_delta.changed_topics.values())
    if delta.configs_delta is not None:
        changed.update(r.name for r in delta.configs_delta.changes if r.type == 2)  # TOPIC
    changed = {n for n in changed if image.topic(n) is not None}
    return changed, deleted - changed


def local_partition_states(delta: MetadataDelta, broker_id: int) -> list[PartitionState]:
    """The replica manager's orders for ``broker_id``: lead, follow, or stop and delete."""
    changes = delta.local_changes(broker_id)
    states = []
    for (topic, index) in sorted(changes.deletes):
        # NO_LEADER: a deleted topic is announced by the cache update (on_topics_deleted), and a
        # replica moved away is no deletion of its topic
        states.append(PartitionState(topic, index, ZERO_UUID, NO_LEADER, -2, -1, (), (),
                                     delete_partition=True))
    previous = delta.image.topics
    for table in (changes.leaders, changes.followers):
        for (topic, index), info in sorted(table.items()):
            reg = info.partition
            old_topic = previous.get_topic(info.topic_id)
            is_new = old_topic is None or index not in old_topic.partitions
            states.append(PartitionState(topic, index, info.topic_id, reg.leader, reg.leader_epoch,
                                         reg.partition_epoch, tuple(reg.replicas), tuple(reg.isr), is_new=is_new))
    return states


class _LogWithTopicId(Protocol):
    topic_id: bytes | None


def stray_logs(broker_id: int, image: MetadataImage, logs: Mapping[tuple[str, int], _LogWithTopicId],
               hosted: Container[tuple[str, int]]) -> list[PartitionState]:
    """The logs on disk the image does not give this broker (Kafka's ``isStrayKraftReplica``):
    no topic id, a topic id the image lacks (deleted, or deleted and made again, while the
    broker was down), or a partition whose replicas no longer include it. Found at the first
    image; Kafka moves them aside as ``-stray``, which the next start of a kafpy broker removes,
    so they are removed at once here (each with a log line)."""
    out = []
    for (topic, index), lg in sorted(logs.items()):
        if (topic, index) in hosted:
            continue
        reg = image.topics.get_partition(lg.topic_id, index) if lg.topic_id else None
        if reg is not None and broker_id in reg.replicas:
            continue
        log.warning("[BrokerMetadataPublisher id=%d] Removing stray log %s-%d: %s", broker_id, topic, index,
                    "no topic id" if not lg.topic_id else "not assigned to this broker in the metadata")
        out.append(PartitionState(topic, index, ZERO_UUID, NO_LEADER, -2, -1, (), (), delete_partition=True))
    return out


class BrokerMetadataPublisher:
    """Keeps the images waiting to be applied, the task applying them, and the offset of the
    last one applied."""

    def __init__(self, broker_id: int, cache: MetadataCache, replica_manager: "ReplicaManager",
                 inter_broker_listener: str, *, on_published: Callable[[MetadataImage], None] | None = None,
                 caught_up: Callable[[], bool] = lambda: True) -> None:
        """``caught_up`` is the metadata listener's: the logs on disk are checked for strays
        against the first image published once it caught up, not against a part of the log
        published on the way (what came before a metadata transaction, such as a migration's)."""
        self.broker_id = broker_id
        self.cache = cache
        self.replica_manager = replica_manager
        self.listener = inter_broker_listener
        self.on_published = on_published
        self.image: MetadataImage | None = None
        self.published_offset = -1
        self._queue: deque[tuple[MetadataDelta, MetadataImage, bool]] = deque()
        self.listener_caught_up = caught_up
        self._strays_checked = False
        self._task: asyncio.Task[None] | None = None
        self.caught_up = asyncio.Event()

    def publish(self, delta: MetadataDelta, image: MetadataImage) -> None:
        """The loader's callback: apply ``image`` after those before it."""
        self._queue.append((delta, image, self.listener_caught_up()))
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._drain(), name="metadata-publisher")

    async def _drain(self) -> None:
        while self._queue:
            delta, image, caught_up = self._queue.popleft()
            try:
                await self.apply(delta, image, check_strays=caught_up)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Kafka logs a publisher fault and goes on with the next image
                log.exception("[BrokerMetadataPublisher id=%d] Error publishing metadata at offset %d",
                              self.broker_id, image.provenance.last_contained_offset)
            self.image = image
            self.published_offset = image.provenance.last_contained_offset
            if self.on_published is not None:
                self.on_published(image)

    async def apply(self, delta: MetadataDelta, image: MetadataImage, check_strays: bool = True) -> None:
        rm = self.replica_manager
        async with rm.state_change_lock:
            if not self._strays_checked and check_strays:
                self._strays_checked = True
                strays = stray_logs(self.broker_id, image, rm.log_manager.logs(), rm.partitions)
                if strays:  # removed before any log of the same name is made again
                    await rm.apply_partition_states_async(strays)
            self._update_cache(delta, image)
            states = local_partition_states(delta, self.broker_id)
            if delta.image.is_empty():
                states += self._strays(image)
            if states:
                errors = await rm.apply_partition_states_async(states)
                self._update_isr(states)
                failed = {k: e.name for k, e in errors.items()
                          if e not in (ErrorCode.NONE, ErrorCode.STALE_CONTROLLER_EPOCH)}
                if failed:
                    log.error("[BrokerMetadataPublisher id=%d] Applying partition changes failed: %s",
                              self.broker_id, failed)
            self._update_topic_configs(delta, image)

    def _update_cache(self, delta: MetadataDelta, image: MetadataImage) -> None:
        changed, deleted = changed_topic_names(delta, image)
        full = self.image is None or delta.image.is_empty()  # the first image, or a snapshot: all of it
        brokers = fenced = None
        if delta.cluster_delta is not None or full:
            brokers = live_brokers(image, self.listener)
            fenced = live_brokers(image, self.listener, fenced=True)
        topics = [t for name in sorted(changed) if (t := topic_info(image, name)) is not None]
        if full:
            topics = [t for name in image.topics.topics_by_name if (t := topic_info(image, name)) is not None]
            deleted = {name for name in self.cache.topics() if image.topic(name) is None}

        def update() -> list[str]:
            self.cache.update(controller_id=self.broker_id, brokers=brokers, topics=topics,
                              deleted_topics=sorted(deleted), fenced_brokers=fenced)
            return sorted(deleted)
        # an image's epoch never goes back; the empty image at start has epoch -1, below the
        # replica manager's initial 0, which its ZooKeeper-mode gate would log as a stale controller
        self.replica_manager.maybe_update_metadata_cache(self.broker_id, max(image.provenance.last_contained_epoch, 0),
                                                         update)

    def _strays(self, image: MetadataImage) -> list[PartitionState]:
        """After a snapshot: hosted partitions the image no longer gives this broker (their
        deletion happened in the part of the log the snapshot replaced)."""
        out = []
        for topic, index in sorted(self.replica_manager.partitions):
            reg = image.partition(topic, index)
            if reg is None or self.broker_id not in reg.replicas:
                out.append(PartitionState(topic, index, ZERO_UUID, NO_LEADER, -2, -1, (), (), delete_partition=True))
        return out

    def _update_isr(self, states: Iterable[PartitionState]) -> None:
        """A leader whose leader epoch did not move but whose partition epoch did (the
        controller changed the ISR or the replicas) takes the image's ISR, as Kafka's
        ``Partition.makeLeader`` does for an unchanged leader epoch."""
        for s in states:
            if s.delete_partition:
                continue
            part = self.replica_manager.get_partition(s.topic, s.index)
            if part is None or part.leader_epoch != s.leader_epoch or s.partition_epoch <= part.partition_epoch:
                continue
            if part.role is Role.LEADER and s.leader == self.broker_id:
                part.update_assignment_and_isr(s)
            else:
                part.partition_epoch = s.partition_epoch

    def _update_topic_configs(self, delta: MetadataDelta, image: MetadataImage) -> None:
        if delta.configs_delta is None:
            return
        for resource in delta.configs_delta.changes:
            if resource.type == 2:  # TOPIC
                info = self.cache.topic(resource.name)
                if info is not None:
                    self.replica_manager.update_topic_config(info)

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
