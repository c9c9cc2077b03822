"""The topics a consumer-protocol group may be assigned, as the group coordinator sees
them: `TopicsView` (the broker's metadata cache through `MetadataCacheTopics`, a dict
through `StaticTopics` in tests and tools), and the hash of a group's subscribed topics
that moves its epoch when one of them is created, deleted or grows.

Who calls it: consumer_coordinator.py and consumer_migration.py. Nothing on disk.
"""
from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Protocol

if TYPE_CHECKING:
    from kafpy.replication.metadata_cache import MetadataCache, TopicInfo


@dataclass(frozen=True)
class TopicMeta:
    name: str
    topic_id: bytes
    num_partitions: int
    internal: bool = False


class TopicsView(Protocol):
    """The topics the coordinator may assign (the broker's metadata cache)."""

    def topic(self, name: str) -> TopicMeta | None: ...
    def topic_by_id(self, topic_id: bytes) -> TopicMeta | None: ...
    def all_topics(self) -> Iterable[TopicMeta]: ...
    def partition_racks(self, topic_id: bytes) -> list[frozenset[str]]:
        """The racks of each partition's replicas (asked only when members name racks)."""
        ...


class StaticTopics:
    """A TopicsView over a dict (tests, tools): name -> TopicMeta."""

    def __init__(self, topics: Iterable[TopicMeta] = ()) -> None:
        self.by_name = {t.name: t for t in topics}
        self.racks: dict[bytes, list[frozenset[str]]] = {}

    def add(self, name: str, partitions: int, topic_id: bytes | None = None) -> TopicMeta:
        meta = TopicMeta(name, topic_id or uuid.uuid4().bytes, partitions)
        self.by_name[name] = meta
        return meta

    def remove(self, name: str) -> None:
        self.by_name.pop(name, None)

    def topic(self, name: str) -> TopicMeta | None:
        return self.by_name.get(name)

    def topic_by_id(self, topic_id: bytes) -> TopicMeta | None:
        return next((t for t in self.by_name.values() if t.topic_id == topic_id), None)

    def all_topics(self) -> Iterable[TopicMeta]:
        return self.by_name.values()

    def partition_racks(self, topic_id: bytes) -> list[frozenset[str]]:
        return self.racks.get(topic_id, [])


class MetadataCacheTopics:
    """A TopicsView over the broker's metadata cache (anything with `topic(name)`,
    `topic_by_id(id)` and `topics()` giving objects with `name`, `topic_id`,
    `partitions` and `is_internal`)."""

    def __init__(self, cache: MetadataCache) -> None:
        self._cache = cache

    @staticmethod
    def _meta(info: TopicInfo | None) -> TopicMeta | None:
        if info is None:
            return None
        return MetadataCacheTopics._meta_of(info)

    @staticmethod
    def _meta_of(info: TopicInfo) -> TopicMeta:
        return TopicMeta(info.name, info.topic_id, len(info.partitions),
                         bool(getattr(info, "is_internal", False)))

    def topic(self, name: str) -> TopicMeta | None:
        return self._meta(self._cache.topic(name))

    def topic_by_id(self, topic_id: bytes) -> TopicMeta | None:
        return self._meta(self._cache.topic_by_id(topic_id))

    def all_topics(self) -> Iterable[TopicMeta]:
        return [self._meta_of(t) for t in self._cache.topics().values()]

    def partition_racks(self, topic_id: bytes) -> list[frozenset[str]]:
        rack = {b.node_id: b.rack for b in self._cache.brokers() if b.rack}
        info = self._cache.topic_by_id(topic_id) if rack else None
        if info is None:
            return []
        return [frozenset(rack[r] for r in info.partitions[p].replicas if r in rack)
                if p in info.partitions else frozenset() for p in range(len(info.partitions))]


def metadata_hash(topics: Mapping[str, TopicMeta],
                  partition_racks: Callable[[bytes], list[frozenset[str]]] | None = None) -> int:
    """A stable 64-bit hash of the subscribed topics' names, ids and partition counts,
    and of their replicas' racks when brokers have racks (Kafka 4.4's topic hash covers
    each partition's racks, KIP-1101, so moving a replica to another rack reassigns)."""
    h = hashlib.blake2b(digest_size=8)
    for name in sorted(topics):
        t = topics[name]
        h.update(name.encode() + b"\0" + t.topic_id + t.num_partitions.to_bytes(4, "big"))
        racks = partition_racks(t.topic_id) if partition_racks is not None else []
        if any(racks):
            for p, rs in enumerate(racks):
                h.update(p.to_bytes(4, "big") + ",".join(sorted(rs)).encode() + b"\0")
    return int.from_bytes(h.digest(), "big", signed=True) if topics else 0
