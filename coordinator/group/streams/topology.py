"""The topology of a Streams group (KIP-1071) and what it means on the cluster.

A Streams member sends its application's topology in its first heartbeat: subtopologies,
each with its source topics, the repartition topics it reads and writes, its state
changelog topics and its copartition groups. The group keeps it with its epoch.
`configure` checks it against the topics that exist (Kafka's InternalTopicManager):

- every source topic must exist (else MISSING_SOURCE_TOPICS);
- a repartition topic with no partition count given takes the largest count of the
  subtopologies that write into it, repeated until nothing changes; a changelog topic
  has as many partitions as its subtopology has tasks;
- the external source topics of a copartition group must have equal partition counts
  (else INCORRECTLY_PARTITIONED_TOPICS); its repartition topics take that count;
- internal topics that do not exist yet are listed for the broker to create (the
  group answers MISSING_INTERNAL_TOPICS until they exist).

A subtopology has as many tasks as the largest partition count of the topics it reads.

Pure functions over a TopicsView; no clock, no I/O. Who calls it: the Streams group
coordinator (streams_coordinator.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from kafpy.protocol import messages

from kafpy.coordinator.group.consumer.topics import TopicMeta, TopicsView


@dataclass(frozen=True)
class TopicInfo:
    """An internal topic as the topology describes it (0 partitions: derived; a
    replication factor of 0: the broker's default)."""
    name: str
    partitions: int = 0
    replication_factor: int = 0
    configs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CopartitionGroup:
    """Indexes into the subtopology's source topics, regexes and repartition sources."""
    source_topics: tuple[int, ...] = ()
    source_topic_regex: tuple[int, ...] = ()
    repartition_source_topics: tuple[int, ...] = ()


@dataclass(frozen=True)
class Subtopology:
    subtopology_id: str
    source_topics: tuple[str, ...] = ()
    source_topic_regex: tuple[str, ...] = ()
    state_changelog_topics: tuple[TopicInfo, ...] = ()
    repartition_sink_topics: tuple[str, ...] = ()
    repartition_source_topics: tuple[TopicInfo, ...] = ()
    copartition_groups: tuple[CopartitionGroup, ...] = ()


@dataclass(frozen=True)
class StreamsTopology:
    epoch: int
    subtopologies: tuple[Subtopology, ...] = ()

    def source_topic_names(self) -> set[str]:
        """Every topic a task reads (external sources and repartition topics)."""
        out: set[str] = set()
        for s in self.subtopologies:
            out.update(s.source_topics)
            out.update(t.name for t in s.repartition_source_topics)
        return out

    def topic_names(self) -> set[str]:
        """Every topic the topology names (what its configured form depends on)."""
        out = self.source_topic_names()
        for s in self.subtopologies:
            out.update(t.name for t in s.state_changelog_topics)
            out.update(s.repartition_sink_topics)
        return out


# Status codes of the StreamsGroupHeartbeat response (Kafka's StreamsGroupHeartbeatResponse.Status).
STALE_TOPOLOGY = 0
MISSING_SOURCE_TOPICS = 1
INCORRECTLY_PARTITIONED_TOPICS = 2
MISSING_INTERNAL_TOPICS = 3
SHUTDOWN_APPLICATION = 4
ASSIGNMENT_DELAYED = 5


@dataclass
class ConfiguredTopology:
    """The topology checked against the cluster. `task_counts` (subtopology id ->
    number of tasks) is empty unless the topology is ready; `status` is the problem
    members are told about (None: ready); `internal_topics_to_create` what the broker
    should create now."""
    topology_epoch: int
    task_counts: dict[str, int] = field(default_factory=dict)
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    status: tuple[int, str] | None = None
    internal_topics_to_create: list[TopicInfo] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return self.status is None


def _partitions(name: str, topics: TopicsView, derived: dict[str, int]) -> int | None:
    meta: TopicMeta | None = topics.topic(name)
    if meta is not None:
        return meta.num_partitions
    return derived.get(name)


def configure(topology: StreamsTopology, topics: TopicsView) -> ConfiguredTopology:
    """Check `topology` against the cluster's topics (see the module's doc)."""
    out = ConfiguredTopology(topology.epoch)
    missing = sorted({t for s in topology.subtopologies for t in s.source_topics
                      if topics.topic(t) is None})
    if missing:
        out.status = (MISSING_SOURCE_TOPICS, f"Source topics {', '.join(missing)} are missing.")
        return out
    # partition counts of repartition topics: given, else derived from their writers
    repartition: dict[str, int] = {}
    for s in topology.subtopologies:
        for t in s.repartition_source_topics:
            if t.partitions > 0:
                repartition[t.name] = t.partitions
    # copartitioned repartition topics follow the group's external topics
    for s in topology.subtopologies:
        for g in s.copartition_groups:
            external = [s.source_topics[i] for i in g.source_topics if i < len(s.source_topics)]
            counts = {meta.num_partitions for t in external if (meta := topics.topic(t))}
            if len(counts) > 1:
                out.status = (INCORRECTLY_PARTITIONED_TOPICS,
                              f"Following topics are not copartitioned: {sorted(external)}")
                return out
            if counts:
                n = counts.pop()
                for i in g.repartition_source_topics:
                    if i < len(s.repartition_source_topics):
                        repartition.setdefault(s.repartition_source_topics[i].name, n)
    changed = True
    while changed:
        changed = False
        for s in topology.subtopologies:
            reads = [*s.source_topics, *(t.name for t in s.repartition_source_topics)]
            read_counts = [_partitions(t, topics, repartition) for t in reads]
            known = [c for c in read_counts if c]
            if not known:
                continue
            for sink in s.repartition_sink_topics:
                if sink not in repartition and topics.topic(sink) is None:
                    repartition[sink] = max(known)
                    changed = True
    for s in topology.subtopologies:
        for t in s.repartition_source_topics:
            if t.name not in repartition and topics.topic(t.name) is None:
                out.status = (MISSING_SOURCE_TOPICS,
                              f"Cannot compute the number of partitions of repartition topic {t.name}.")
                return out
    # tasks per subtopology, changelogs sized by them
    to_create: list[TopicInfo] = []
    for s in topology.subtopologies:
        sources = (*s.source_topics, *(t.name for t in s.repartition_source_topics))
        tasks = max((_partitions(t, topics, repartition) or 0 for t in sources), default=0)
        out.task_counts[s.subtopology_id] = tasks
        out.sources[s.subtopology_id] = sources
        for t in s.repartition_source_topics:
            if topics.topic(t.name) is None:
                to_create.append(TopicInfo(t.name, repartition[t.name], t.replication_factor,
                                           t.configs))
        for t in s.state_changelog_topics:
            if topics.topic(t.name) is None:
                to_create.append(TopicInfo(t.name, t.partitions or tasks, t.replication_factor,
                                           t.configs))
    if to_create:
        names = sorted({t.name for t in to_create})
        out.status = (MISSING_INTERNAL_TOPICS, f"Internal topics are missing: {', '.join(names)}")   # as Kafka 4.4 words it
        seen: set[str] = set()
        out.internal_topics_to_create = [t for t in to_create
                                         if not (t.name in seen or seen.add(t.name))]  # type: ignore[func-returns-value]
        out.task_counts = {}
    return out


def from_request(t: messages.StreamsGroupHeartbeatRequest.Topology | messages.StreamsGroupTopologyValue
                 ) -> StreamsTopology:
    """The topology of a StreamsGroupHeartbeat request (or a StreamsGroupTopologyValue
    record: the same shape)."""
    def info(x: messages.StreamsGroupHeartbeatRequest.TopicInfo | messages.StreamsGroupTopologyValue.TopicInfo
             ) -> TopicInfo:
        return TopicInfo(x.name, x.partitions, x.replication_factor,
                         tuple((c.key, c.value) for c in x.topic_configs))

    subs = []
    for s in t.subtopologies:
        subs.append(Subtopology(
            s.subtopology_id, tuple(s.source_topics), tuple(s.source_topic_regex or ()),
            tuple(info(x) for x in s.state_changelog_topics), tuple(s.repartition_sink_topics),
            tuple(info(x) for x in s.repartition_source_topics),
            tuple(CopartitionGroup(tuple(g.source_topics), tuple(g.source_topic_regex),
                                   tuple(g.repartition_source_topics))
                  for g in s.copartition_groups)))
    return StreamsTopology(t.epoch, tuple(subs))


def topics_hash_input(topology: StreamsTopology, topics: TopicsView) -> dict[str, TopicMeta]:
    """The existing topics the topology names (their ids and counts move the group epoch)."""
    out: dict[str, TopicMeta] = {}
    for name in topology.topic_names():
        meta = topics.topic(name)
        if meta is not None:
            out[name] = meta
    return out


def task_partitions(configured: ConfiguredTopology, subtopology_id: str,
                    partitions: Iterable[int]) -> list[tuple[str, int]]:
    """The topic partitions the tasks `partitions` of a subtopology read."""
    return [(t, p) for t in configured.sources.get(subtopology_id, ()) for p in partitions]
