"""The broker-side task assignor of Streams groups: Kafka's sticky task assignor.

Active tasks first: each stays with the member that had it in the previous target
while that member is under its share; the rest go, in task order, to the least loaded
process and, within it, to its least loaded member, so tasks spread over processes
(application instances) before threads. Then `num_standby_replicas` standby copies of
each stateful task, each on a process that holds no copy of that task yet, preferring
the members that had it as standby before, then the least loaded. No warm-up tasks
(Kafka's sticky assignor gives none either).

Pure: no clock, no I/O. Who calls it: streams_coordinator.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from kafpy.coordinator.streams_group import Tasks

NAME = "sticky"


@dataclass(frozen=True)
class AssignmentMember:
    member_id: str
    process_id: str


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def assign(members: Iterable[AssignmentMember], task_counts: Mapping[str, int],
           previous: Mapping[str, Tasks], stateful: Iterable[str] = (),
           num_standby_replicas: int = 0) -> dict[str, Tasks]:
    """The target of every member. `task_counts`: subtopology id -> tasks; `previous`:
    the last target by member id; `stateful`: the subtopologies with state stores
    (only they get standby tasks)."""
    members = sorted(members, key=lambda m: m.member_id)
    out = {m.member_id: Tasks() for m in members}
    if not members:
        return out
    process_of = {m.member_id: m.process_id for m in members}
    tasks = [(s, p) for s in sorted(task_counts) for p in range(task_counts[s])]
    load = dict.fromkeys(out, 0)
    process_load: dict[str, int] = dict.fromkeys(process_of.values(), 0)
    quota = _ceil_div(len(tasks), len(members))

    def give(mid: str, s: str, p: int, standby: bool = False) -> None:
        target = out[mid].standby if standby else out[mid].active
        target.setdefault(s, set()).add(p)
        load[mid] += 1
        process_load[process_of[mid]] += 1

    def least_loaded(candidates: list[str]) -> str:
        return min(candidates, key=lambda mid: (process_load[process_of[mid]], load[mid], mid))

    # active: sticky first, then the least loaded
    unassigned = []
    for s, p in tasks:
        prev = next((mid for mid in out if p in previous.get(mid, Tasks()).active.get(s, ())), None)
        if prev is not None and load[prev] < quota:
            give(prev, s, p)
        else:
            unassigned.append((s, p))
    for s, p in unassigned:
        give(least_loaded(list(out)), s, p)
    # standby: one copy per process at most
    if num_standby_replicas > 0:
        for s in sorted(set(stateful) & set(task_counts)):
            for p in range(task_counts[s]):
                holders = {process_of[mid] for mid, t in out.items()
                           if p in t.active.get(s, ()) or p in t.standby.get(s, ())}
                for _ in range(num_standby_replicas):
                    free = [mid for mid in out if process_of[mid] not in holders]
                    if not free:
                        break
                    sticky = [mid for mid in free if p in previous.get(mid, Tasks()).standby.get(s, ())]
                    mid = least_loaded(sticky or free)
                    give(mid, s, p, standby=True)
                    holders.add(process_of[mid])
    return out
