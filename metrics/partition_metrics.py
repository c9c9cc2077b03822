"""Per-partition metrics read when Prometheus scrapes: Kafka's ``kafka.cluster:type=Partition``
gauges under the JMX exporter's names, and the topic and broker names of kafka-exporter
(danielqsj/kafka_exporter), which Strimzi's kafka-exporter dashboard queries.

Who may call it: ``metrics.collectors.KafkaCollector``, on the event loop thread.

Why each broker reports only what it leads: kafka-exporter is one process asking the whole
cluster, so each partition appears once; here every broker is scraped, so a partition's
offsets and replica counts come from its leader alone (the union over the brokers has each
partition once and the dashboards' ``sum(...)`` stay right), ``kafka_topic_partitions``
comes from the active controller alone, and ``kafka_broker_info`` from each broker for
itself. Kafka's Partition gauges are registered for every hosted replica and are 0 on
followers (``Partition.scala``), as here.
"""
from __future__ import annotations

from typing import Iterable, Iterator, Protocol, Sequence

from prometheus_client.core import Metric


class HostedPartition(Protocol):
    """What is read of a ``replication.partition.Partition`` (read-only: some are its properties)."""

    @property
    def is_leader(self) -> bool: ...

    @property
    def isr(self) -> Sequence[int]: ...

    @property
    def assigned_replicas(self) -> Sequence[int]: ...

    @property
    def effective_min_isr(self) -> int: ...

    @property
    def high_watermark(self) -> int: ...


# Kafka's Partition MBeans in the order ``Partition.scala`` registers them
PARTITION_GAUGES = ("UnderReplicated", "InSyncReplicasCount", "UnderMinIsr", "AtMinIsr", "ReplicasCount")


def _gauge(name: str, doc: str) -> Metric:
    return Metric(name, doc, "gauge")


def partition_gauges(partitions: Iterable[tuple[tuple[str, int], HostedPartition]]) -> Iterator[Metric]:
    """``kafka_cluster_partition_<name>{topic,partition}`` for every hosted replica: the
    leader's values, 0 on a follower (Kafka's Partition gauges)."""
    out = {n: _gauge(f"kafka_cluster_partition_{n.lower()}", f"kafka.cluster:type=Partition,name={n},topic=*,partition=*")
           for n in PARTITION_GAUGES}
    for (topic, index), p in partitions:
        labels = {"topic": topic, "partition": str(index)}
        if p.is_leader:
            isr, replicas, min_isr = len(p.isr), len(p.assigned_replicas), p.effective_min_isr
            values = (1 if isr < replicas else 0, isr, 1 if isr < min_isr else 0, 1 if isr == min_isr else 0,
                      replicas)
        else:
            values = (0, 0, 0, 0, 0)
        for n, v in zip(PARTITION_GAUGES, values):
            m = out[n]
            m.add_sample(m.name, labels, v)
    yield from out.values()


def exporter_partition_metrics(partitions: Iterable[tuple[tuple[str, int], HostedPartition]],
                               log_start: dict[tuple[str, int], int], broker_id: int) -> Iterator[Metric]:
    """kafka-exporter's per-partition names for the partitions this broker leads:
    current offset (the high watermark, what its ListOffsets(latest) gives), oldest offset
    (the log start), leader, replicas, in-sync replicas, under-replicated, leader is
    preferred. ``log_start`` holds each led partition's log start offset."""
    names = (("kafka_topic_partition_current_offset", "Current Offset of a Broker at Topic/Partition"),
             ("kafka_topic_partition_oldest_offset", "Oldest Offset of a Broker at Topic/Partition"),
             ("kafka_topic_partition_leader", "Leader Broker ID of this Topic/Partition"),
             ("kafka_topic_partition_replicas", "Number of Replicas for this Topic/Partition"),
             ("kafka_topic_partition_in_sync_replica", "Number of In-Sync Replicas for this Topic/Partition"),
             ("kafka_topic_partition_under_replicated_partition", "1 if Topic/Partition is under Replicated"),
             ("kafka_topic_partition_leader_is_preferred", "1 if Topic/Partition is using the Preferred Broker"))
    out = [_gauge(n, doc) for n, doc in names]
    for key, p in partitions:
        if not p.is_leader or key not in log_start:
            continue
        labels = {"topic": key[0], "partition": str(key[1])}
        isr, replicas = len(p.isr), p.assigned_replicas
        preferred = 1 if replicas and replicas[0] == broker_id else 0
        values = (p.high_watermark, log_start[key], broker_id, len(replicas), isr,
                  1 if isr < len(replicas) else 0, preferred)
        for m, v in zip(out, values):
            m.add_sample(m.name, labels, v)
    yield from out


def exporter_topic_partitions(topics: dict[str, int]) -> Metric:
    """``kafka_topic_partitions{topic}``: each topic's partition count (from the active
    controller only; see the module's docstring)."""
    m = _gauge("kafka_topic_partitions", "Number of partitions for this Topic")
    for topic, n in sorted(topics.items()):
        m.add_sample(m.name, {"topic": topic}, n)
    return m


def exporter_broker_info(broker_id: int, host: str, port: int) -> Metric:
    """``kafka_broker_info{address,id}`` = 1 for this broker (kafka-exporter lists every
    broker of the cluster this way; each kafpy broker lists itself)."""
    m = _gauge("kafka_broker_info", "Information about the Kafka Broker.")
    m.add_sample(m.name, {"address": f"{host}:{port}", "id": str(broker_id)}, 1)
    return m
