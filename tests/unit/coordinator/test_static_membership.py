"""Static membership (group.instance.id, KIP-345): replacement and fencing."""

from kafpy.coordinator.group import GroupState
from kafpy.protocol.errors import ErrorCode as E

from tests.unit.coordinator.helpers import drive, join, make_coordinator, subscription, sync


def _stable_static(c, instances=("i1", "i2")):
    futs = [join(c, instance=i, client_id=i) for i in instances]
    t = drive(c, futs)
    rs = [f.result() for f in futs]
    leader = rs[0].leader
    gen = rs[0].generation_id
    assignments = {r.member_id: r.member_id.encode() for r in rs}
    for r in rs:
        sync(c, "g", r.member_id, gen, now=t, instance=instances[rs.index(r)],
             assignments=assignments if r.member_id == leader else None)
    assert c.groups["g"].is_(GroupState.STABLE)
    return rs, gen, t


def test_static_member_never_gets_member_id_required():
    c = make_coordinator()
    f = join(c, instance="i1", v4=True)
    assert not f.done()                                   # joined directly
    assert c.groups["g"].static_members == {"i1": c.groups["g"].leader_id}


def test_static_follower_restart_in_stable_keeps_generation_and_fences_old_id():
    c = make_coordinator()
    rs, gen, t = _stable_static(c)
    follower = [r for r in rs if r.member_id != r.leader][0]
    instance = c.groups["g"].members[follower.member_id].group_instance_id
    r = join(c, instance=instance, client_id=instance, now=t + 1).result()
    assert r.error == E.NONE and r.generation_id == gen
    assert r.member_id != follower.member_id
    assert r.members == [] and r.leader == follower.leader
    g = c.groups["g"]
    assert g.is_(GroupState.STABLE)
    assert g.members[r.member_id].assignment == follower.member_id.encode()  # kept
    # The old incarnation is fenced everywhere.
    assert c.heartbeat("g", follower.member_id, instance, gen, t + 2) == E.FENCED_INSTANCE_ID
    assert sync(c, "g", follower.member_id, gen, instance=instance).result().error == \
        E.FENCED_INSTANCE_ID
    assert join(c, member_id=follower.member_id, instance=instance).result().error == \
        E.FENCED_INSTANCE_ID
    assert c.leave_group("g", [(follower.member_id, instance)], t + 3)[1][0][2] == \
        E.FENCED_INSTANCE_ID
    # The new one works.
    assert c.heartbeat("g", r.member_id, instance, gen, t + 4) == E.NONE


def test_static_leader_restart_v9_skips_assignment_but_is_told_it_leads():
    c = make_coordinator()
    rs, gen, t = _stable_static(c)
    leader = [r for r in rs if r.member_id == r.leader][0]
    instance = c.groups["g"].members[leader.member_id].group_instance_id
    r = join(c, instance=instance, client_id=instance, skip=True, now=t + 1).result()
    assert r.error == E.NONE and r.skip_assignment is True
    assert r.leader == r.member_id and len(r.members) == 2
    assert c.groups["g"].is_(GroupState.STABLE)


def test_static_leader_restart_before_v9_is_given_the_old_leader_id():
    c = make_coordinator()
    rs, gen, t = _stable_static(c)
    leader = [r for r in rs if r.member_id == r.leader][0]
    instance = c.groups["g"].members[leader.member_id].group_instance_id
    r = join(c, instance=instance, client_id=instance, now=t + 1).result()
    assert r.error == E.NONE and r.leader == leader.member_id != r.member_id
    assert r.members == [] and not r.skip_assignment


def test_static_rejoin_keeps_selected_protocol_without_rebalance():
    c = make_coordinator()
    rs, gen, t = _stable_static(c)
    r = join(c, instance="i2", client_id="i2", protocols=[("roundrobin", b""), ("range", b"")],
             now=t + 1).result()
    assert r.error == E.NONE and r.generation_id == gen     # "range" still selected
    assert c.groups["g"].is_(GroupState.STABLE)


def test_static_rejoin_changing_selected_protocol_triggers_rebalance():
    c = make_coordinator()
    both = [("range", b""), ("roundrobin", b"")]
    futs = [join(c, instance=i, client_id=i, protocols=both) for i in ("i1", "i2")]
    t = drive(c, futs)
    rs = [f.result() for f in futs]
    assert rs[0].protocol_name == "range"
    for r, i in zip(rs, ("i1", "i2")):
        sync(c, "g", r.member_id, 1, instance=i, now=t)
    assert c.groups["g"].is_(GroupState.STABLE)
    f = join(c, instance="i2", client_id="i2", protocols=[("roundrobin", b"")], now=t + 1)
    assert not f.done()
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)
    old_i1 = rs[0].member_id if c.groups["g"].members.get(rs[0].member_id) else rs[1].member_id
    f1 = join(c, member_id=old_i1, instance="i1", protocols=both, now=t + 2)
    assert f.result().protocol_name == f1.result().protocol_name == "roundrobin"
    assert f.result().generation_id == 2


def test_static_member_replaced_while_parked_in_join_gets_fenced():
    c = make_coordinator()
    first = join(c, instance="i1")                  # parked in the initial delay
    second = join(c, instance="i1")                 # same instance, unknown member id
    assert first.result().error == E.FENCED_INSTANCE_ID
    drive(c, [second])
    assert second.result().error == E.NONE
    assert len(c.groups["g"].members) == 1


def test_static_member_replaced_while_parked_in_sync_gets_fenced():
    c = make_coordinator()
    futs = [join(c, instance="i1"), join(c, instance="i2")]
    t = drive(c, futs)
    rs = [f.result() for f in futs]
    follower = [r for r in rs if r.member_id != r.leader][0]
    inst = c.groups["g"].members[follower.member_id].group_instance_id
    parked = sync(c, "g", follower.member_id, 1, instance=inst, now=t)
    assert not parked.done()
    j = join(c, instance=inst, now=t + 1)           # CompletingRebalance -> rebalance
    assert parked.result().error == E.FENCED_INSTANCE_ID
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)
    assert not j.done()


def test_static_members_survive_rebalance_timeout_and_leave_by_instance_id():
    c = make_coordinator()
    rs, gen, t = _stable_static(c)
    leader = [r for r in rs if r.member_id == r.leader][0]
    f = join(c, member_id=leader.member_id,
             instance=c.groups["g"].members[leader.member_id].group_instance_id,
             protocols=[("range", subscription("t", "x"))], now=t + 1)
    other = [r for r in rs if r.member_id != r.leader][0]
    # the other static member heartbeats but does not rejoin: it is kept (static)
    now = t + 1
    for _ in range(6):
        now += 5000
        c.heartbeat("g", other.member_id, "i2", gen, now)
        c.poll(now)
    assert f.result().error == E.NONE
    assert other.member_id in c.groups["g"].members
    err, res = c.leave_group("g", [("", "i2")], now + 1)
    assert res == [("", "i2", E.NONE)]
    assert other.member_id not in c.groups["g"].members


def test_unknown_instance_id_with_member_id_is_unknown_member():
    c = make_coordinator()
    rs, gen, t = _stable_static(c)
    assert c.heartbeat("g", rs[0].member_id, "other", gen, t) == E.UNKNOWN_MEMBER_ID
