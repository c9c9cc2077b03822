"""Topics and their partitions, as Kafka's ``TopicsImage`` / ``TopicImage`` /
``TopicsDelta`` / ``TopicDelta``, and the per-broker view of a delta (``LocalReplicaChanges``).

Replayed from ``TopicRecord``, ``PartitionRecord``, ``PartitionChangeRecord``,
``RemoveTopicRecord`` and ``ClearElrRecord``. A record naming a topic or partition the image
does not hold raises ``MetadataReplayError``, as Kafka's loader fails on it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.maps import frozen, merged
from kafpy.metadata.image.partition import PartitionRegistration
from kafpy.metadata.image.uuids import uuid_str
from kafpy.metadata.image.writer import ApiMessageAndVersion, with_version
from kafpy.protocol.messages import (
    ClearElrRecord,
    PartitionChangeRecord,
    PartitionRecord,
    RemoveTopicRecord,
    TopicRecord,
)


@dataclass(frozen=True)
class TopicImage:
    """A topic's name, id and partitions by index."""

    name: str
    id: bytes
    partitions: Mapping[int, PartitionRegistration]

    def records(self) -> list[ApiMessageAndVersion]:
        out = [with_version(TopicRecord(name=self.name, topic_id=self.id))]
        out += [self.partitions[p].to_record(self.id, p) for p in sorted(self.partitions)]
        return out


@dataclass(frozen=True)
class TopicsImage:
    """Every topic, by id and by name (the two maps always hold the same topics)."""

    topics_by_id: Mapping[bytes, TopicImage]
    topics_by_name: Mapping[str, TopicImage]

    def is_empty(self) -> bool:
        return not self.topics_by_id

    def get_topic(self, topic_id: bytes) -> TopicImage | None:
        return self.topics_by_id.get(topic_id)

    def get_topic_by_name(self, name: str) -> TopicImage | None:
        return self.topics_by_name.get(name)

    def get_partition(self, topic_id: bytes, partition: int) -> PartitionRegistration | None:
        topic = self.topics_by_id.get(topic_id)
        return None if topic is None else topic.partitions.get(partition)

    def records(self) -> list[ApiMessageAndVersion]:
        out: list[ApiMessageAndVersion] = []
        for name in sorted(self.topics_by_name):
            out += self.topics_by_name[name].records()
        return out


EMPTY_TOPICS = TopicsImage(frozen({}), frozen({}))


class TopicDelta:
    """Partition changes of one topic on top of ``image`` (Kafka's ``TopicDelta``)."""

    def __init__(self, image: TopicImage) -> None:
        self.image = image
        self.partition_changes: dict[int, PartitionRegistration] = {}

    @property
    def name(self) -> str:
        return self.image.name

    @property
    def id(self) -> bytes:
        return self.image.id

    def partition(self, partition_id: int) -> PartitionRegistration | None:
        """The partition as this delta leaves it."""
        changed = self.partition_changes.get(partition_id)
        return changed if changed is not None else self.image.partitions.get(partition_id)

    def replay_partition(self, record: PartitionRecord) -> None:
        self.partition_changes[record.partition_id] = PartitionRegistration.from_record(record)

    def replay_partition_change(self, record: PartitionChangeRecord) -> None:
        partition = self.partition(record.partition_id)
        if partition is None:
            raise MetadataReplayError(
                f"Unable to find partition {uuid_str(record.topic_id)}:{record.partition_id}")
        self.partition_changes[record.partition_id] = partition.merge(record)

    def clear_elr(self) -> None:
        """Empty the ELR and last known ELR of every partition that has one (ClearElrRecord),
        through ``merge`` so the partition epoch moves as Kafka moves it."""
        ids = set(self.image.partitions) | set(self.partition_changes)
        for partition_id in sorted(ids):
            partition = self.partition(partition_id)
            if partition is not None and (partition.elr or partition.last_known_elr):
                self.partition_changes[partition_id] = partition.merge(PartitionChangeRecord(
                    partition_id=partition_id, topic_id=self.id,
                    eligible_leader_replicas=[], last_known_elr=[]))

    def apply(self) -> TopicImage:
        if not self.partition_changes:
            return self.image
        return TopicImage(self.image.name, self.image.id,
                          merged(self.image.partitions, self.partition_changes))


@dataclass(frozen=True)
class PartitionInfo:
    """A partition a broker now leads or follows: its topic id and registration."""

    topic_id: bytes
    partition: PartitionRegistration


@dataclass
class LocalReplicaChanges:
    """What a delta means for one broker (Kafka's ``LocalReplicaChanges``), keyed by
    (topic name, partition): replicas to delete, partitions it now leads (``elected_leaders``:
    those whose leader epoch moved, so the log must be truncated/fenced), partitions it now
    follows, the topic ids of the topics touched, and new directory assignments."""

    deletes: set[tuple[str, int]] = field(default_factory=set)
    elected_leaders: dict[tuple[str, int], PartitionInfo] = field(default_factory=dict)
    leaders: dict[tuple[str, int], PartitionInfo] = field(default_factory=dict)
    followers: dict[tuple[str, int], PartitionInfo] = field(default_factory=dict)
    topic_ids: dict[str, bytes] = field(default_factory=dict)
    directory_ids: dict[tuple[bytes, int], bytes] = field(default_factory=dict)


class TopicsDelta:
    """Topic changes on top of ``image``: created/changed topics, deleted topic ids."""

    def __init__(self, image: TopicsImage) -> None:
        self.image = image
        self.changed_topics: dict[bytes, TopicDelta] = {}
        self.deleted_topic_ids: set[bytes] = set()
        self.created_topics: dict[str, bytes] = {}

    def _topic_delta(self, topic_id: bytes, what: str) -> TopicDelta:
        delta = self.changed_topics.get(topic_id)
        if delta is None:
            topic = self.image.get_topic(topic_id)
            if topic is None or topic_id in self.deleted_topic_ids:
                raise MetadataReplayError(
                    f"Unable to replay {what} for topic id {uuid_str(topic_id)}: no such topic")
            delta = self.changed_topics[topic_id] = TopicDelta(topic)
        return delta

    def replay_topic(self, record: TopicRecord) -> None:
        self.changed_topics[record.topic_id] = TopicDelta(
            TopicImage(record.name, record.topic_id, frozen({})))
        self.created_topics[record.name] = record.topic_id

    def replay_partition(self, record: PartitionRecord) -> None:
        self._topic_delta(record.topic_id, "PartitionRecord").replay_partition(record)

    def replay_partition_change(self, record: PartitionChangeRecord) -> None:
        self._topic_delta(record.topic_id, "PartitionChangeRecord").replay_partition_change(record)

    def replay_remove_topic(self, record: RemoveTopicRecord) -> str:
        """Delete the topic; returns its name (its configs go with it)."""
        delta = self.changed_topics.pop(record.topic_id, None)
        if delta is not None:
            name = delta.name
            if self.created_topics.get(name) == record.topic_id:
                del self.created_topics[name]
            if record.topic_id in self.image.topics_by_id:
                self.deleted_topic_ids.add(record.topic_id)
            return name
        topic = self.image.get_topic(record.topic_id)
        if topic is None or record.topic_id in self.deleted_topic_ids:
            raise MetadataReplayError(
                f"Unable to delete topic with id {uuid_str(record.topic_id)}: no such topic found.")
        self.deleted_topic_ids.add(record.topic_id)
        return topic.name

    def replay_clear_elr(self, record: ClearElrRecord) -> None:
        if record.topic_name:
            topic_id = self.created_topics.get(record.topic_name)
            if topic_id is None:
                topic = self.image.get_topic_by_name(record.topic_name)
                if topic is not None and topic.id not in self.deleted_topic_ids:
                    topic_id = topic.id
            if topic_id is None:
                raise MetadataReplayError(
                    f"Unable to clear elr for topic with name {record.topic_name}: "
                    "no such topic found.")
            self._topic_delta(topic_id, "ClearElrRecord").clear_elr()
            return
        for topic_id in list(self.image.topics_by_id):
            if topic_id not in self.deleted_topic_ids:
                self._topic_delta(topic_id, "ClearElrRecord").clear_elr()
        for topic_id in self.created_topics.values():
            self._topic_delta(topic_id, "ClearElrRecord").clear_elr()

    def topic_was_deleted(self, name: str) -> bool:
        topic = self.image.get_topic_by_name(name)
        return topic is not None and topic.id in self.deleted_topic_ids

    def changed_partitions(self) -> Iterator[tuple[TopicDelta, int, PartitionRegistration]]:
        """(topic, partition id, new registration) for every partition this delta changes."""
        for delta in self.changed_topics.values():
            for partition_id, partition in delta.partition_changes.items():
                yield delta, partition_id, partition

    def local_changes(self, broker_id: int) -> LocalReplicaChanges:
        """What this delta asks of ``broker_id`` (Kafka's ``TopicsDelta.localChanges``): a
        partition it leads or follows is listed when it is new or its partition epoch moved;
        a replica it no longer holds, or of a deleted topic, is to be deleted."""
        changes = LocalReplicaChanges()
        for delta, partition_id, partition in self.changed_partitions():
            tp = (delta.name, partition_id)
            previous = delta.image.partitions.get(partition_id)
            if broker_id not in partition.replicas:
                if previous is not None and broker_id in previous.replicas:
                    changes.deletes.add(tp)
                continue
            changes.topic_ids[delta.name] = delta.id
            moved = previous is None or previous.partition_epoch != partition.partition_epoch
            info = PartitionInfo(delta.id, partition)
            if partition.leader == broker_id:
                if moved:
                    changes.leaders[tp] = info
                    if previous is None or previous.leader_epoch != partition.leader_epoch:
                        changes.elected_leaders[tp] = info
            elif moved:
                changes.followers[tp] = info
            directory = partition.directory(broker_id)
            if directory is not None and (previous is None
                                          or previous.directory(broker_id) != directory):
                changes.directory_ids[(delta.id, partition_id)] = directory
        for topic_id in self.deleted_topic_ids:
            topic = self.image.topics_by_id[topic_id]
            for partition_id, partition in topic.partitions.items():
                if broker_id in partition.replicas:
                    changes.deletes.add((topic.name, partition_id))
        return changes

    def apply(self) -> TopicsImage:
        if not self.changed_topics and not self.deleted_topic_ids:
            return self.image
        by_id: dict[bytes, TopicImage] = dict(self.image.topics_by_id)
        by_name: dict[str, TopicImage] = dict(self.image.topics_by_name)
        for topic_id in self.deleted_topic_ids:
            topic = by_id.pop(topic_id)
            if by_name.get(topic.name) is topic:
                del by_name[topic.name]
        for topic_id, delta in self.changed_topics.items():
            topic = delta.apply()
            old = by_id.get(topic_id)
            if old is not None and old.name != topic.name and by_name.get(old.name) is old:
                del by_name[old.name]
            by_id[topic_id] = topic
            by_name[topic.name] = topic
        return TopicsImage(frozen(by_id), frozen(by_name))
