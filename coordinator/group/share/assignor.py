"""Kafka 4.4's SimpleAssignor for share groups (`group.share.assignors=simple`).

Every partition is shared by `desired_sharing = ceil(members / partitions)` members and
each member gets its fair part of `desired_sharing * partitions` assignments (Kafka's
desiredAssignmentCount: ceil(x * (i + 1)) - ceil(x * i)). So with more members than
partitions each partition goes to several members, with fewer each member gets
several partitions. Sticky as Kafka's SimpleHomogeneousAssignmentBuilder: what a member
had stays with it unless the member is overfilled or the partition overshared; the rest
is dealt out to the members with room, fewest first. Members with different
subscriptions are assigned topic by topic (Kafka's heterogeneous builder).

Who calls it: ShareGroupCoordinator when the group epoch moved. Pure.
"""
from __future__ import annotations

import math
from typing import Mapping

from kafpy.coordinator.group.share.group import Assignment, TopicId

NAME = "simple"

Partition = tuple[TopicId, int]


def _desired_counts(members: int, partitions: int) -> tuple[int, list[int]]:
    sharing = (members + partitions - 1) // partitions
    x = sharing * partitions / members
    return sharing, [math.ceil(x * (i + 1)) - math.ceil(x * i) for i in range(members)]


def _build(member_ids: list[str], targets: list[Partition],
           current: Mapping[str, Assignment]) -> dict[str, set[Partition]]:
    out: dict[str, set[Partition]] = {m: set() for m in member_ids}
    if not member_ids or not targets:
        return out
    sharing, counts = _desired_counts(len(member_ids), len(targets))
    wanted = dict(zip(member_ids, counts))
    valid = set(targets)
    holders: dict[Partition, list[str]] = {p: [] for p in targets}
    for m in member_ids:
        kept = sorted((t, p) for t, ps in current.get(m, {}).items() for p in ps if (t, p) in valid)
        for tp in kept[:wanted[m]]:                       # revoke from overfilled members
            if len(holders[tp]) < sharing:                # revoke overshared partitions
                holders[tp].append(m)
                out[m].add(tp)
    for tp in targets:
        while len(holders[tp]) < sharing:
            room = [m for m in member_ids if len(out[m]) < wanted[m] and m not in holders[tp]]
            if not room:
                break
            m = min(room, key=lambda mid: (len(out[mid]), member_ids.index(mid)))
            holders[tp].append(m)
            out[m].add(tp)
    return out


def assign(subscriptions: Mapping[str, frozenset[TopicId]], partitions: Mapping[TopicId, list[int]],
           current: Mapping[str, Assignment]) -> dict[str, Assignment]:
    """The target assignment of every member. `subscriptions`: member id -> topic ids it
    subscribes to; `partitions`: the assignable (initialized) partitions of each topic;
    `current`: the previous target, for stickiness."""
    members = sorted(subscriptions)
    result: dict[str, Assignment] = {m: {} for m in members}
    groups: dict[frozenset[TopicId], list[str]] = {}
    for m in members:
        groups.setdefault(subscriptions[m], []).append(m)
    if len(groups) == 1:
        subscribed = next(iter(groups))
        units = [(sorted(subscribed), members)]
    else:
        every = sorted({t for s in subscriptions.values() for t in s})
        units = [([t], [m for m in members if t in subscriptions[m]]) for t in every]
    for topics, mids in units:
        targets = [(t, p) for t in topics for p in sorted(partitions.get(t, ()))]
        for m, tps in _build(mids, targets, current).items():
            for t, p in tps:
                result[m].setdefault(t, set()).add(p)
    return result
