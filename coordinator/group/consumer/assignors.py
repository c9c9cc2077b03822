"""Server-side partition assignors of the consumer group protocol (KIP-848): `uniform`
and `range`, the names `group.consumer.assignors` lists and a member picks with
`group.remote.assignor` (ServerAssignor in ConsumerGroupHeartbeat).

Pure functions of the group's members, their subscriptions and the topics' partition
counts; no clock, no I/O. Who calls them: the consumer group coordinator
(consumer_coordinator.py) when the group epoch moved past the assignment epoch.

Partitions are keyed by topic id (16 bytes) as the protocol carries them.

- `uniform` (Kafka's UniformAssignor): balanced and sticky. A member keeps the partitions
  of its previous target while it is still subscribed and under its share; the rest go,
  one at a time, to the subscribed member holding the fewest. With every member
  subscribed to the same topics, counts differ by at most one.
- `range` (Kafka's RangeAssignor): per topic, the subscribed members take contiguous
  ranges in Kafka's order (static members first, by instance id, then the others by
  member id), the first ones one partition more when it does not divide, so that
  co-partitioned topics line up member by member. Not sticky and not rack-aware: Kafka
  4.4's server-side RangeAssignor reads neither the previous assignment nor
  racksForPartition, and a placement that differed from it would move partitions
  between the same members differently on kafpy and on Kafka.

Racks: members name theirs (`client.rack`, RackId) and `racks` gives each partition's
replica racks (Kafka's SubscribedTopicDescriber.racksForPartition); a change of the
replicas' racks moves the group's metadata hash, hence a new assignment, as in Kafka 4.4
(KIP-1101). `uniform` uses them: a partition handed out goes, among the members that may
take it without unbalancing the group, to one on a rack holding a replica of it
(consumers then fetch from a same-rack follower, KIP-392); balance and stickiness come
first. (Kafka 4.4's UniformAssignor ignores racks; this preference changes which member
gets a partition, never how many each gets.)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

TopicId = bytes
Assignment = dict[TopicId, set[int]]


@dataclass(frozen=True)
class MemberSubscription:
    """What an assignor needs of one member."""

    member_id: str
    topic_ids: frozenset[TopicId]
    rack_id: str | None = None
    instance_id: str | None = None


class PartitionAssignor:
    name = ""

    def assign(self, members: list[MemberSubscription], partitions: Mapping[TopicId, int],
               current: Mapping[str, Assignment],
               racks: Mapping[TopicId, list[frozenset[str]]] | None = None) -> dict[str, Assignment]:
        """The target assignment of every member (members without partitions map to
        an empty dict). `partitions`: partition count per topic id; `current`: the
        previous target assignment per member id (for stickiness); `racks`: the racks
        of each partition's replicas, when members name racks."""
        raise NotImplementedError


def _on_rack(racks: Mapping[TopicId, list[frozenset[str]]] | None, t: TopicId, p: int,
             rack: str | None) -> bool:
    if not racks or rack is None:
        return False
    per = racks.get(t) or []
    return p < len(per) and rack in per[p]


class UniformAssignor(PartitionAssignor):
    name = "uniform"

    def assign(self, members: list[MemberSubscription], partitions: Mapping[TopicId, int],
               current: Mapping[str, Assignment],
               racks: Mapping[TopicId, list[frozenset[str]]] | None = None) -> dict[str, Assignment]:
        out: dict[str, Assignment] = {m.member_id: {} for m in members}
        if not members:
            return out
        subscribers: dict[TopicId, list[str]] = {}
        for m in members:
            for t in m.topic_ids:
                if t in partitions:
                    subscribers.setdefault(t, []).append(m.member_id)
        # each member's fair share: the partitions it can have over the members that
        # can have them, rounded down (equal subscriptions give floor(P / M)); the
        # partitions left over let that many members keep one more
        share: dict[str, float] = dict.fromkeys(out, 0.0)
        for t, subs in subscribers.items():
            for mid in subs:
                share[mid] += partitions[t] / len(subs)
        quota = {mid: int(s + 1e-9) for mid, s in share.items()}
        extras = sum(partitions[t] for t in subscribers) - sum(quota.values())
        counts = dict.fromkeys(out, 0)
        taken: set[tuple[TopicId, int]] = set()
        by_id = {m.member_id: m for m in members}

        def still_valid(mid: str) -> list[tuple[TopicId, int]]:
            return [(t, p) for t, parts in sorted((current.get(mid) or {}).items())
                    if t in by_id[mid].topic_ids and t in partitions
                    for p in sorted(parts) if p < partitions[t] and (t, p) not in taken]

        def give(mid: str, t: TopicId, p: int) -> None:
            out[mid].setdefault(t, set()).add(p)
            taken.add((t, p))
            counts[mid] += 1

        for mid in sorted(out):   # sticky: keep what is still valid, up to the share
            for t, p in still_valid(mid):
                if counts[mid] < quota[mid]:
                    give(mid, t, p)
        for mid in sorted(out):   # ... and one more while the leftovers allow
            for t, p in still_valid(mid)[:1]:
                if extras > 0 and counts[mid] == quota[mid]:
                    give(mid, t, p)
                    extras -= 1
        if racks:   # partitions to a member on a replica's rack, within the shares
            for t in sorted(subscribers):
                for p in range(partitions[t]):
                    if (t, p) in taken:
                        continue
                    local = [m for m in sorted(subscribers[t])
                             if _on_rack(racks, t, p, by_id[m].rack_id)
                             and (counts[m] < quota[m] or (counts[m] == quota[m] and extras > 0))]
                    if local:
                        mid = min(local, key=lambda m: (counts[m], m))
                        if counts[mid] == quota[mid]:
                            extras -= 1
                        give(mid, t, p)
        for t in sorted(subscribers):
            subs = sorted(subscribers[t])
            for p in range(partitions[t]):
                if (t, p) in taken:
                    continue
                mid = min(subs, key=lambda m: (counts[m], m))
                give(mid, t, p)
        return out


class RangeAssignor(PartitionAssignor):
    name = "range"

    @staticmethod
    def order(members: list[MemberSubscription]) -> list[MemberSubscription]:
        """Kafka's sortMemberIds: static members by instance id, then the others by
        member id."""
        return sorted(members, key=lambda m: (m.instance_id is None, m.instance_id or "",
                                              m.member_id))

    def assign(self, members: list[MemberSubscription], partitions: Mapping[TopicId, int],
               current: Mapping[str, Assignment],
               racks: Mapping[TopicId, list[frozenset[str]]] | None = None) -> dict[str, Assignment]:
        out: dict[str, Assignment] = {m.member_id: {} for m in members}
        ordered = self.order(members)
        for t in sorted(partitions):
            subs = [m.member_id for m in ordered if t in m.topic_ids]
            if not subs:
                continue
            n = partitions[t]
            per, extra = divmod(n, len(subs))
            start = 0
            for i, mid in enumerate(subs):
                size = per + (1 if i < extra else 0)
                if size:
                    out[mid][t] = set(range(start, start + size))
                start += size
        return out


ASSIGNORS: dict[str, type[PartitionAssignor]] = {
    UniformAssignor.name: UniformAssignor, RangeAssignor.name: RangeAssignor}

# Kafka's class names for the same assignors are accepted in group.consumer.assignors.
_CLASS_NAMES = {
    "org.apache.kafka.coordinator.group.assignor.UniformAssignor": "uniform",
    "org.apache.kafka.coordinator.group.api.assignor.UniformAssignor": "uniform",
    "org.apache.kafka.coordinator.group.assignor.RangeAssignor": "range",
    "org.apache.kafka.coordinator.group.api.assignor.RangeAssignor": "range",
}


def assignors_from_config(value: str) -> list[PartitionAssignor]:
    """`group.consumer.assignors` ("uniform,range"): the first is the default one."""
    out = []
    for name in (n.strip() for n in value.split(",")):
        if not name:
            continue
        name = _CLASS_NAMES.get(name, name)
        if name not in ASSIGNORS:
            raise ValueError(f"unknown group.consumer.assignors entry {name!r}")
        out.append(ASSIGNORS[name]())
    if not out:
        raise ValueError("group.consumer.assignors is empty")
    return out
