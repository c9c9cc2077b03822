"""Streams group assignment settings with the clock passed in: the assignment interval
(`group.streams.assignment.interval.ms`, per group `streams.assignment.interval.ms`: a new
target at most that often, ASSIGNMENT_DELAYED meanwhile), the per-group standby replicas
and initial rebalance delay overrides, and the task offsets members report steering
standby placement as Kafka 4.4's sticky assignor does (no warm-up tasks, as on Kafka 4.4)."""
from __future__ import annotations

from kafpy.coordinator.group.streams.assignor import AssignmentMember, assign
from kafpy.coordinator.group.streams.group import Tasks
from kafpy.coordinator.group.streams.topology import ASSIGNMENT_DELAYED

from tests.unit.coordinator.test_streams_group import WORD_COUNT, active, setup

INTERVAL_DETAIL = "Assignment delayed due to the configured assignment interval."


def beat(c, member, epoch, now, *, owned=None, offsets=None, process=None):
    joining = epoch == 0
    fut = c.heartbeat("g", member, epoch, rebalance_timeout_ms=5000 if joining else -1,
                      topology=WORD_COUNT if joining else None, owned=owned,
                      process_id=(process or f"p-{member}") if joining else None,
                      client_id="c", client_host="/127.0.0.1", task_offsets=offsets, now_ms=now)
    assert fut.done()
    return fut.result()


def standby(t):
    return sorted((s, p) for s, ps in (t.standby if t else {}).items() for p in ps)


def test_a_new_target_waits_for_the_assignment_interval():
    c, _ = setup(assignment_interval_ms=1000)
    r1 = beat(c, "m1", 0, 1_000)                  # the first target: at once
    assert r1.member_epoch == 1 and len(active(r1)) == 4 and r1.status == []
    group = c.groups["g"]
    assert group.assignment_timestamp == 1_000
    r2 = beat(c, "m2", 0, 1_500)                  # epoch 2, but the target is 500 ms old
    assert group.group_epoch == 2 and group.assignment_epoch == 1
    assert r2.status == [(ASSIGNMENT_DELAYED, INTERVAL_DETAIL)] and active(r2) == []
    r1 = beat(c, "m1", 1, 1_999, owned=r1.tasks)
    assert (ASSIGNMENT_DELAYED, INTERVAL_DETAIL) in r1.status and group.assignment_epoch == 1
    r2 = beat(c, "m2", r2.member_epoch, 2_000, owned=Tasks())  # the interval is over
    assert group.assignment_epoch == 2 and group.assignment_timestamp == 2_000
    assert r2.status == []
    assert {m: len(active(t)) for m, t in group.target.items()} == {"m1": 2, "m2": 2}


def test_the_group_may_override_the_interval_and_zero_means_at_once():
    overrides = {"g": {"streams.assignment.interval.ms": "0"}}
    c, _ = setup(assignment_interval_ms=60_000)
    c._group_configs = lambda gid: overrides.get(gid, {})
    beat(c, "m1", 0, 1)
    beat(c, "m2", 0, 2)
    assert c.groups["g"].assignment_epoch == 2 and c.assignment_interval_ms("g") == 0
    overrides["g"] = {"streams.assignment.interval.ms": "5000"}
    beat(c, "m3", 0, 3)
    assert c.groups["g"].assignment_epoch == 2
    assert c.assignment_interval_ms("other") == 60_000


def test_the_group_overrides_its_standby_replicas_within_the_broker_maximum():
    overrides = {"g": {"streams.num.standby.replicas": "1"}}
    c, _ = setup(num_standby_replicas=0, max_standby_replicas=1)
    c._group_configs = lambda gid: overrides.get(gid, {})
    beat(c, "m1", 0, 1)
    beat(c, "m2", 0, 2)
    target = c.groups["g"].target
    # subtopology 1 is stateful: each of its tasks has one standby copy on the other process
    assert sorted(standby(target["m1"]) + standby(target["m2"])) == [("1", 0), ("1", 1)]
    for m in ("m1", "m2"):                  # never a copy next to the active task
        assert not set(standby(target[m])) & set(active(target[m]))
    overrides["g"] = {"streams.num.standby.replicas": "5"}   # capped by the broker's maximum
    assert c._num_standby_replicas("g") == 1


def _members(*ids):
    return [AssignmentMember(m, f"p-{m}") for m in ids]


def test_standby_goes_to_the_member_reporting_the_most_state():
    counts, stateful = {"0": 1}, ["0"]
    previous = {"a": Tasks(active={"0": {0}})}
    # b and c have no previous copy; c reports more of task 0_0's state than b
    offsets = {"b": {("0", 0): 10}, "c": {("0", 0): 500}}
    out = assign(_members("a", "b", "c"), counts, previous, stateful, 1, offsets)
    assert active(out["a"]) == [("0", 0)]
    assert standby(out["c"]) == [("0", 0)] and standby(out["b"]) == []
    # without reports, the least loaded (member order on ties) gets it
    out = assign(_members("a", "b", "c"), counts, previous, stateful, 1)
    assert standby(out["b"]) == [("0", 0)]


def test_a_previous_standby_is_preferred_to_a_reporting_member():
    counts, stateful = {"0": 1}, ["0"]
    previous = {"a": Tasks(active={"0": {0}}), "c": Tasks(standby={"0": {0}})}
    offsets = {"b": {("0", 0): 10_000}}
    out = assign(_members("a", "b", "c"), counts, previous, stateful, 1, offsets)
    assert standby(out["c"]) == [("0", 0)] and standby(out["b"]) == []


def test_the_previous_active_owner_keeps_a_standby_copy_when_its_task_moves():
    counts, stateful = {"0": 2}, ["0"]
    # a had both tasks; with b joining, one moves to b and a keeps a standby copy of it
    previous = {"a": Tasks(active={"0": {0, 1}})}
    out = assign(_members("a", "b"), counts, previous, stateful, 1)
    moved = active(out["b"])
    assert len(moved) == 1 and set(moved) <= set(standby(out["a"]))
    assert not out["a"].warmup and not out["b"].warmup


def test_the_group_may_override_its_initial_rebalance_delay():
    overrides = {"g": {"streams.initial.rebalance.delay.ms": "500"}}
    c, _ = setup(initial_rebalance_delay_ms=3000)
    c._group_configs = lambda gid: overrides.get(gid, {})
    r = beat(c, "m1", 0, 1_000)
    assert r.status[0][0] == ASSIGNMENT_DELAYED and active(r) == []
    assert c.groups["g"].initial_delay_deadline == 1_500
    c.poll(1_500)                                  # the delay is over: the first target
    r = beat(c, "m1", r.member_epoch, 1_600, owned=Tasks())
    assert len(active(r)) == 4 and r.status == []
