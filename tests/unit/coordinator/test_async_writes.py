"""Writes that are not committed yet (InMemoryOffsetsLog with `hold`): what a group shows
and answers meanwhile, and what a commit or a failure changes (Kafka's
pendingOffsetCommits and the completion callbacks of storeGroup/storeOffsets)."""

from kafpy.protocol.errors import ErrorCode as E

from kafpy.coordinator.group import GroupState, InMemoryOffsetsLog, OffsetAndMetadata

from tests.unit.coordinator.helpers import drive, join, make_coordinator, stable_group, sync


def om(offset, ts=1000):
    return OffsetAndMetadata(offset, -1, "", ts)


def held():
    log = InMemoryOffsetsLog(hold=True)
    return log, make_coordinator(log)


def test_pending_commit_is_invisible_until_committed():
    log, c = held()
    first = c.commit_offsets("s", "", None, -1, {("t", 0): om(5)}, 1)
    log.complete_next()
    assert first.result() == {("t", 0): E.NONE}
    fut = c.commit_offsets("s", "", None, -1, {("t", 0): om(9), ("t", 1): om(3)}, 2)
    assert not fut.done()
    _, got = c.fetch_offsets("s", [("t", 0), ("t", 1)], require_stable=True)
    assert (got[("t", 0)].offset, got[("t", 0)].error) == (5, E.NONE)   # last committed
    assert got[("t", 1)].offset == -1
    assert log.read(c.partition_for("s")) and len(log.read(c.partition_for("s"))) == 1
    log.complete_next()
    assert fut.result() == {("t", 0): E.NONE, ("t", 1): E.NONE}
    assert {tp: f.offset for tp, f in c.fetch_offsets("s", None)[1].items()} == \
        {("t", 0): 9, ("t", 1): 3}
    assert not c.groups["s"].pending_offset_commits


def test_failed_commit_leaves_offsets_and_maps_the_error():
    log, c = held()
    c.commit_offsets("s", "", None, -1, {("t", 0): om(5)}, 1)
    log.complete_next()
    for append_error, answer in ((E.NOT_ENOUGH_REPLICAS, E.COORDINATOR_NOT_AVAILABLE),
                                 (E.NOT_LEADER_OR_FOLLOWER, E.NOT_COORDINATOR),
                                 (E.REQUEST_TIMED_OUT, E.COORDINATOR_NOT_AVAILABLE),
                                 (E.RECORD_LIST_TOO_LARGE, E.INVALID_COMMIT_OFFSET_SIZE)):
        fut = c.commit_offsets("s", "", None, -1, {("t", 0): om(8)}, 2)
        log.complete_next(append_error)
        assert fut.result() == {("t", 0): answer}
        assert c.fetch_offsets("s", [("t", 0)])[1][("t", 0)].offset == 5
        assert not c.groups["s"].pending_offset_commits


def test_commits_complete_in_log_order_and_the_last_one_wins():
    log, c = held()
    a = c.commit_offsets("s", "", None, -1, {("t", 0): om(1)}, 1)
    b = c.commit_offsets("s", "", None, -1, {("t", 0): om(2)}, 2)
    log.complete_next()
    assert a.done() and not b.done()
    assert c.fetch_offsets("s", [("t", 0)])[1][("t", 0)].offset == 1
    assert ("t", 0) in c.groups["s"].pending_offset_commits      # b is still in flight
    log.complete_next()
    assert c.fetch_offsets("s", [("t", 0)])[1][("t", 0)].offset == 2


def test_offsets_deleted_while_their_commit_is_in_flight_stay_deleted():
    log, c = held()
    c.commit_offsets("s", "", None, -1, {("t", 0): om(1)}, 1)
    log.complete_next()
    fut = c.commit_offsets("s", "", None, -1, {("t", 0): om(2)}, 2)
    # OffsetDelete removes the committed offset and the pending one alike.
    assert c.delete_offsets("s", [("t", 0)], 3) == (E.NONE, {("t", 0): E.NONE})
    assert "s" not in c.groups                     # nothing committed nor pending left
    log.complete_all()
    assert fut.result() == {("t", 0): E.NONE}
    assert c.fetch_offsets("s", None) == (E.NONE, {})
    fresh = make_coordinator(log)
    fresh.load_partition(c.partition_for("s"), 4)  # the tombstone follows the commit
    assert "s" not in fresh.groups


def test_a_group_with_only_a_pending_commit_is_not_cleaned_up():
    log, c = held()
    fut = c.commit_offsets("s", "", None, -1, {("t", 0): om(1, ts=0)}, 0)
    assert c.expire_offsets(10**12) == 0
    assert "s" in c.groups and c.groups["s"].is_(GroupState.EMPTY)
    log.complete_next()
    assert fut.result() == {("t", 0): E.NONE}
    # committed and then past the retention: it goes, and the group with it
    assert c.expire_offsets(10**12) == 1
    assert "s" not in c.groups


def test_unloading_answers_waiters_through_their_writes_and_touches_no_group():
    log, c = held()
    fut = c.commit_offsets("s", "", None, -1, {("t", 0): om(1)}, 1)
    p = c.partition_for("s")
    c.unload_partition(p)
    log.complete_next(E.NOT_LEADER_OR_FOLLOWER)     # what the replica manager reports
    assert fut.result() == {("t", 0): E.NOT_COORDINATOR}
    c.load_partition(p, 2)
    assert c.fetch_offsets("s", None) == (E.NONE, {})


def test_leader_sync_waits_for_the_assignment_write():
    log, c = held()
    futs = [join(c, client_id="a"), join(c, client_id="b")]
    t = drive(c, futs)
    log.complete_all()                               # nothing was written yet
    rs = [f.result() for f in futs]
    leader = rs[0].leader
    follower = next(r.member_id for r in rs if r.member_id != leader)
    parked = sync(c, "g", follower, 1, now=t)
    lf = sync(c, "g", leader, 1, now=t, assignments={leader: b"L", follower: b"F"})
    assert not lf.done() and not parked.done()
    assert c.groups["g"].is_(GroupState.COMPLETING_REBALANCE)
    log.complete_next()
    assert (lf.result().assignment, parked.result().assignment) == (b"L", b"F")
    assert c.groups["g"].is_(GroupState.STABLE)


def test_assignment_write_completing_after_a_new_rebalance_is_ignored():
    log, c = held()
    futs = [join(c, client_id="a"), join(c, client_id="b")]
    t = drive(c, futs)
    rs = [f.result() for f in futs]
    leader = rs[0].leader
    lf = sync(c, "g", leader, 1, now=t, assignments={leader: b"L"})
    other = next(r.member_id for r in rs if r.member_id != leader)
    join(c, member_id=other, now=t + 1, protocols=[("range", b"changed")])
    assert lf.result().error == E.REBALANCE_IN_PROGRESS
    log.complete_all(E.NOT_LEADER_OR_FOLLOWER)
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)


def test_failed_assignment_write_fails_the_generation():
    log, c = held()
    futs = [join(c, client_id="a")]
    t = drive(c, futs)
    r = futs[0].result()
    lf = sync(c, "g", r.member_id, 1, now=t, assignments={r.member_id: b"x"})
    log.complete_next(E.REQUEST_TIMED_OUT)
    assert lf.result().error == E.COORDINATOR_NOT_AVAILABLE
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)


def test_static_rejoin_is_answered_when_the_new_member_id_is_stored():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log)
    futs = [join(c, instance="i1")]
    t = drive(c, futs)
    r = futs[0].result()
    sync(c, "g", r.member_id, 1, instance="i1", now=t)
    log.hold = True
    again = join(c, instance="i1", now=t + 1)
    assert not again.done()
    new_id = c.groups["g"].static_members["i1"]
    assert new_id != r.member_id
    log.complete_next()
    assert (again.result().error, again.result().member_id) == (E.NONE, new_id)


def test_static_rejoin_fenced_while_its_write_is_in_flight():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log)
    futs = [join(c, instance="i1")]
    t = drive(c, futs)
    sync(c, "g", futs[0].result().member_id, 1, instance="i1", now=t)
    log.hold = True
    first = join(c, instance="i1", now=t + 1)
    second = join(c, instance="i1", now=t + 2)       # fences the first
    assert first.result().error == E.FENCED_INSTANCE_ID
    log.complete_next(E.NOT_LEADER_OR_FOLLOWER)       # the first write fails: no revert
    latest = c.groups["g"].static_members["i1"]
    log.complete_next()
    assert (second.result().error, second.result().member_id) == (E.NONE, latest)


def test_stable_group_commit_from_a_member_waits_too():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log)
    ids, gen, t = stable_group(c, 1)
    log.hold = True
    fut = c.commit_offsets("g", ids[0], None, gen, {("t", 0): om(4)}, t)
    assert not fut.done()
    log.complete_next()
    assert fut.result() == {("t", 0): E.NONE}
