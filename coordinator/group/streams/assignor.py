"""The broker-side task assignor of Streams groups: Kafka's sticky task assignor.

Active tasks first: each stays with the member that had it in the previous target
while that member is under its share; the rest go, in task order, to the least loaded
process and, within it, to its least loaded member, so tasks spread over processes
(application instances) before threads. Then `num_standby_replicas` standby copies of
each stateful task, each on a process that holds no copy of that task yet, preferring
the task's previous active owner, then the members that had it as standby or report
its state (TaskOffsets), then the least loaded. No warm-up tasks: Kafka 4.4's
coordinator refines the target with the members' task offsets, but its refinement
(AssignmentRefiner) keeps the target as the assignor made it.

Pure: no clock, no I/O. Who calls it: streams_coordinator.py.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from kafpy.coordinator.group.streams.group import Tasks

NAME = "sticky"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AssignmentMember:
    member_id: str
    process_id: str


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def assign(members: Iterable[AssignmentMember], task_counts: Mapping[str, int],
           previous: Mapping[str, Tasks], stateful: Iterable[str] = (),
           num_standby_replicas: int = 0,
           task_offsets: Mapping[str, Mapping[tuple[str, int], int]] | None = None
           ) -> dict[str, Tasks]:
    """The target of every member. `task_counts`: subtopology id -> tasks; `previous`:
    the last target by member id; `stateful`: the subtopologies with state stores
    (only they get standby tasks); `task_offsets`: what each member reported of its
    tasks' state (offset sums by (subtopology, partition))."""
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
    if num_standby_replicas > 0:
        _assign_standby(out, members, task_counts, previous, stateful, num_standby_replicas,
                        task_offsets or {}, give, load, process_load)
    return out


def _assign_standby(out: dict[str, Tasks], members: list[AssignmentMember],
                    task_counts: Mapping[str, int], previous: Mapping[str, Tasks],
                    stateful: Iterable[str], replicas: int,
                    task_offsets: Mapping[str, Mapping[tuple[str, int], int]],
                    give: Callable[..., None], load: dict[str, int], process_load: dict[str, int]) -> None:
    """Kafka 4.4's sticky standby placement: tasks in descending order; each copy to the
    task's previous active owner, else to the least loaded of its ranked candidates
    (previous standbys first, then members reporting the task's state, by offset sum
    descending), each while under its share of all tasks; the copies left go, after the
    rest, to the least loaded process (tasks per member) without the task."""
    process_of = {m.member_id: m.process_id for m in members}
    capacity: dict[str, int] = {}
    for m in members:
        capacity[m.process_id] = capacity.get(m.process_id, 0) + 1
    tasks = [(s, p) for s in sorted(set(stateful) & set(task_counts))
             for p in range(task_counts[s])]
    total = sum(task_counts.values()) + len(tasks) * replicas
    quota = _ceil_div(total, len(members))

    def holders(s: str, p: int) -> set[str]:
        return {process_of[mid] for mid, t in out.items()
                if p in t.active.get(s, ()) or p in t.standby.get(s, ())}

    def ranked(s: str, p: int) -> list[str]:
        candidates = []
        for mid in out:
            offsets = task_offsets.get(mid, {})
            was_standby = p in previous.get(mid, Tasks()).standby.get(s, ())
            if was_standby or (s, p) in offsets:
                candidates.append((0 if was_standby else 1, -offsets.get((s, p), 0), mid))
        return [mid for *_, mid in sorted(candidates)]

    def least_loaded_of(candidates: list[str], held: set[str]) -> str | None:
        best, best_load = None, (float("inf"), float("inf"))
        for mid in candidates:
            if process_of[mid] in held:
                continue
            here = (process_load[process_of[mid]] / capacity[process_of[mid]], load[mid])
            if here[0] < best_load[0] and here[1] < best_load[1]:
                best, best_load = mid, here
        return best

    left: list[tuple[str, int, int]] = []
    for s, p in sorted(tasks, reverse=True):
        for i in range(replicas):
            held = holders(s, p)
            prev_active = next((mid for mid in out
                                if p in previous.get(mid, Tasks()).active.get(s, ())), None)
            if prev_active is not None and process_of[prev_active] not in held \
                    and load[prev_active] < quota:
                give(prev_active, s, p, standby=True)
                continue
            mid = least_loaded_of(ranked(s, p), held)
            if mid is not None and load[mid] < quota:
                give(mid, s, p, standby=True)
                continue
            left.append((s, p, replicas - i))
            break
    for s, p, remaining in sorted(left, reverse=True):
        for _ in range(remaining):
            held = holders(s, p)
            free = [mid for mid in out if process_of[mid] not in held]
            if not free:
                log.warning("There is not enough available capacity. You should increase the "
                            "number of threads and/or application instances to maintain the "
                            "requested number of standby replicas (%d) for task %s_%d.",
                            replicas, s, p)
                break
            give(min(free, key=lambda m: (process_load[process_of[m]] / capacity[process_of[m]],
                                          load[m], m)), s, p, standby=True)
