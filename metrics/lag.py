"""Consumer lag per group and partition, computed on the broker as kafka-lag-exporter and
Burrow report it: the partition's end (its high watermark: what a read_uncommitted consumer
can reach) minus the group's committed offset.

Who may call it: the Prometheus collector and the status page, at scrape or page time. The
group coordinator of this broker knows the committed offsets of the groups it coordinates;
the high watermark is read from this broker's replica of the partition (the leader's, or a
follower's, which trails the leader's by at most one fetch). A partition this broker has no
replica of is left out rather than guessed; every group is reported by its coordinator, so
on a cluster where each broker hosts a replica of every partition (replication factor =
brokers) the union of the brokers' reports is complete.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Protocol


@dataclass(frozen=True)
class PartitionLag:
    group: str
    topic: str
    partition: int
    committed: int
    end_offset: int

    @property
    def lag(self) -> int:
        return max(self.end_offset - self.committed, 0)


class CommittedOffset(Protocol):
    @property
    def offset(self) -> int: ...


class GroupOffsets(Protocol):
    """A group as the lag reads it: its committed offsets by (topic, partition)."""

    @property
    def offsets(self) -> Mapping[tuple[str, int], CommittedOffset]: ...


class HostedPartition(Protocol):
    @property
    def log(self) -> object | None: ...
    @property
    def high_watermark(self) -> int: ...


class LocalReplicas(Protocol):
    """The replica manager as the lag reads it (``kafpy.replication.ReplicaManager``)."""

    def get_partition(self, topic: str, partition: int) -> HostedPartition | None: ...


def consumer_lag(groups: Mapping[str, GroupOffsets], end_offset: Callable[[str, int], int | None]) -> Iterator[PartitionLag]:
    """Lag of every committed offset of ``groups`` (group id -> a group with ``offsets``,
    (topic, partition) -> committed offset) whose partition ``end_offset`` knows."""
    for group_id, group in list(groups.items()):
        for (topic, partition), om in list(group.offsets.items()):
            end = end_offset(topic, partition)
            if end is not None and om.offset >= 0:
                yield PartitionLag(group_id, topic, partition, om.offset, end)


def local_end_offset(replica_manager: LocalReplicas) -> Callable[[str, int], int | None]:
    """The high watermark of this broker's replica of a partition, or None."""
    def end(topic: str, partition: int) -> int | None:
        p = replica_manager.get_partition(topic, partition)
        if p is None or p.log is None:
            return None
        return p.high_watermark
    return end


@dataclass(frozen=True)
class AssignedPartition:
    """A partition of a group, committed or only assigned: ``committed`` and ``lag`` are
    None where the group never committed an offset (Kafka's tools show "-" there)."""
    topic: str
    partition: int
    committed: int | None
    end_offset: int | None

    @property
    def lag(self) -> int | None:
        if self.committed is None or self.end_offset is None:
            return None
        return max(self.end_offset - self.committed, 0)


def group_partitions(group: GroupOffsets, end_offset: Callable[[str, int], int | None]) -> list[AssignedPartition]:
    """Every partition of ``group``: those it committed an offset for, and those its
    consumer members are assigned without one (decoded from their ConsumerProtocol
    assignment), sorted by topic and partition."""
    from kafpy.coordinator.group.consumer.migration import decode_assignment
    committed = {tp: om.offset for tp, om in list(group.offsets.items()) if om.offset >= 0}
    keys = set(committed)
    for m in list(getattr(group, "members", {}).values()):
        if getattr(m, "protocol_type", "") == "consumer" and getattr(m, "assignment", b""):
            keys.update(decode_assignment(m.assignment))
    return [AssignedPartition(t, p, committed.get((t, p)), end_offset(t, p)) for t, p in sorted(keys)]
