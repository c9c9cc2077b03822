"""Remaining transitions and error paths of the classic group state machine."""

from kafpy.coordinator.group import GroupState
from kafpy.protocol.errors import ErrorCode as E

from tests.unit.coordinator.helpers import commit, drive, join, make_coordinator, stable_group, subscription, sync


def test_coordinator_not_available_after_shutdown():
    c = make_coordinator()
    c.shutdown()
    assert join(c).result().error == E.COORDINATOR_NOT_AVAILABLE
    assert c.heartbeat("g", "m", None, 1, 0) == E.COORDINATOR_NOT_AVAILABLE
    assert commit(c, "g", "", None, -1, {("t", 0): None}, 0) == \
        {("t", 0): E.COORDINATOR_NOT_AVAILABLE}


def test_known_member_joining_with_other_protocol_type_is_inconsistent():
    c = make_coordinator()
    ids, gen, t = stable_group(c, 2)
    r = join(c, member_id=ids[0], protocol_type="connect").result()
    assert r.error == E.INCONSISTENT_GROUP_PROTOCOL and r.member_id == ids[0]


def test_stale_member_of_an_empty_group_is_unknown():
    c = make_coordinator()
    ids, gen, t = stable_group(c, 1)
    c.leave_group("g", [(ids[0], None)], t)
    assert c.groups["g"].is_(GroupState.EMPTY)
    assert join(c, member_id=ids[0]).result().error == E.UNKNOWN_MEMBER_ID
    assert sync(c, "g", ids[0], gen + 1).result().error == E.UNKNOWN_MEMBER_ID
    assert c.heartbeat("g", ids[0], None, gen + 1, t) == E.UNKNOWN_MEMBER_ID


def test_leader_sync_store_failure_fails_everyone_and_rebalances():
    c = make_coordinator()
    futs = [join(c, client_id="a"), join(c, client_id="b")]
    t = drive(c, futs)
    rs = [f.result() for f in futs]
    leader = rs[0].leader
    follower = [r.member_id for r in rs if r.member_id != leader][0]
    parked = sync(c, "g", follower, 1, now=t)
    c.log.fail_with = E.NOT_LEADER_OR_FOLLOWER
    lf = sync(c, "g", leader, 1, now=t)
    assert lf.result().error == E.NOT_COORDINATOR
    assert parked.result().error == E.NOT_COORDINATOR
    assert lf.result().protocol_name is None
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)


def test_static_rejoin_store_failure_reverts_to_the_old_member_id():
    c = make_coordinator()
    futs = [join(c, instance="i1"), join(c, instance="i2")]
    t = drive(c, futs)
    rs = [f.result() for f in futs]
    for r, i in zip(rs, ("i1", "i2")):
        sync(c, "g", r.member_id, 1, instance=i, now=t)
    old = c.groups["g"].static_members["i2"]
    c.log.fail_with = E.REQUEST_TIMED_OUT
    r = join(c, instance="i2", now=t + 1).result()
    # A timed-out group write answers COORDINATOR_NOT_AVAILABLE, as Kafka maps it.
    assert r.error == E.COORDINATOR_NOT_AVAILABLE and r.member_id == ""
    assert c.groups["g"].static_members["i2"] == old
    c.log.fail_with = None
    assert c.heartbeat("g", old, "i2", 1, t + 2) == E.NONE


def test_pending_member_can_leave_and_pending_rejoin_is_added():
    c = make_coordinator()
    pending = join(c, v4=True).result().member_id
    err, res = c.leave_group("g", [(pending, None)], 1)
    assert res == [(pending, None, E.NONE)]
    assert pending not in c.groups["g"].pending_members
    p2 = join(c, v4=True).result().member_id
    f = join(c, member_id=p2, v4=True)
    drive(c, [f])
    assert f.result().error == E.NONE and f.result().member_id == p2


def test_follower_with_new_metadata_in_stable_triggers_rebalance():
    c = make_coordinator()
    ids, gen, t = stable_group(c, 2)
    follower = [m for m in ids if not c.groups["g"].is_leader(m)][0]
    f = join(c, member_id=follower, protocols=[("range", subscription("t", "new"))], now=t)
    assert not f.done() and c.groups["g"].is_(GroupState.PREPARING_REBALANCE)
    leader = c.groups["g"].leader_id
    fl = join(c, member_id=leader, now=t + 1)
    assert f.result().generation_id == fl.result().generation_id == gen + 1
    assert c.groups["g"].subscribed_topics == {"t", "new"}


def test_group_max_size_counts_awaiting_members_while_preparing():
    c = make_coordinator(group_max_size=2)
    ids, gen, t = stable_group(c, 2)
    join(c, member_id=ids[0], now=t)                   # rebalance, 1 awaiting
    newcomer = join(c, now=t)                          # 2nd awaiting slot: accepted
    assert not newcomer.done()
    third = join(c, now=t).result()                    # no slot left
    assert third.error == E.GROUP_MAX_SIZE_REACHED
    # ids[1] has not rejoined yet; the awaiting count is full, so it is turned away
    late = join(c, member_id=ids[1], now=t).result()
    assert late.error == E.GROUP_MAX_SIZE_REACHED
    assert ids[1] not in c.groups["g"].members


def test_retried_join_answers_the_parked_one():
    c = make_coordinator()
    ids, gen, t = stable_group(c, 2)
    first = join(c, member_id=ids[0], now=t)
    again = join(c, member_id=ids[0], now=t + 1)
    assert first.result().error == E.REBALANCE_IN_PROGRESS
    join(c, member_id=ids[1], now=t + 2)
    assert again.result().error == E.NONE


def test_no_member_rejoined_reschedules_until_sessions_expire():
    c = make_coordinator()
    futs = [join(c, instance="i1", rebalance=1000, session=6000),
            join(c, instance="i2", rebalance=1000, session=6000)]
    t = drive(c, futs)
    rs = [f.result() for f in futs]
    for r, i in zip(rs, ("i1", "i2")):
        sync(c, "g", r.member_id, 1, instance=i, now=t)
    dyn = join(c, now=t, rebalance=1000, session=6000)   # a dynamic member triggers a rebalance
    c.leave_group("g", [(c.groups["g"].members[list(c.groups["g"].members)[-1]].member_id, None)], t)
    assert dyn.result().error == E.UNKNOWN_MEMBER_ID
    # the static members never rejoin: the join is rescheduled, then their sessions expire
    c.poll(t + 1000)
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)
    c.poll(t + 6000)
    c.poll(t + 7000)
    assert c.groups["g"].is_(GroupState.EMPTY) and not c.groups["g"].members
