"""JoinGroup / SyncGroup / Heartbeat / LeaveGroup transitions and error paths."""

from kafpy.coordinator.group import GroupState
from kafpy.protocol.errors import ErrorCode as E

from tests.unit.coordinator.helpers import (
    drive, join, make_coordinator, stable_group, subscription, sync)


def test_kip394_member_id_required_then_join_completes_after_initial_delay():
    c = make_coordinator(group_initial_rebalance_delay_ms=3000)
    first = join(c, v4=True, client_id="consumer-1").result()
    assert first.error == E.MEMBER_ID_REQUIRED
    assert first.member_id.startswith("consumer-1-")
    assert c.groups["g"].is_(GroupState.EMPTY)
    fut = join(c, member_id=first.member_id, v4=True, now=10)
    assert not fut.done()
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)
    c.poll(3009)
    assert not fut.done()                       # initial delay not over yet
    c.poll(3010)
    r = fut.result()
    assert r.error == E.NONE and r.generation_id == 1
    assert r.leader == first.member_id and r.protocol_name == "range"
    assert r.protocol_type == "consumer"
    assert r.members == [(first.member_id, None, subscription("t"))]
    assert c.groups["g"].is_(GroupState.COMPLETING_REBALANCE)


def test_unknown_member_id_on_existing_member_path_when_group_missing():
    c = make_coordinator()
    r = join(c, member_id="ghost").result()
    assert r.error == E.UNKNOWN_MEMBER_ID and r.member_id == "ghost"
    assert "g" not in c.groups


def test_rejoining_with_unregistered_member_id_is_unknown():
    c = make_coordinator()
    stable_group(c, 1)
    assert join(c, member_id="nobody").result().error == E.UNKNOWN_MEMBER_ID


def test_initial_delay_extends_while_members_keep_arriving():
    c = make_coordinator(group_initial_rebalance_delay_ms=3000)
    f1 = join(c, now=0, rebalance=10_000)
    f2 = join(c, now=2000, rebalance=10_000)       # new member during the delay
    c.poll(3000)                                   # delay expired, but a member was added
    assert not f1.done() and not f2.done()
    c.poll(5999)
    assert not f1.done()
    c.poll(6000)
    assert f1.result().error == E.NONE and f2.result().error == E.NONE
    assert f1.result().generation_id == f2.result().generation_id == 1


def test_second_member_after_generation_one_forces_everyone_to_rejoin():
    c = make_coordinator(group_initial_rebalance_delay_ms=0)
    f1 = join(c, client_id="a")
    assert not f1.done()
    assert c.has_due(0)        # no delay: a timer due at once, fired by the next poll
    c.poll(0)
    r1 = f1.result()
    assert r1.generation_id == 1 and r1.leader == r1.member_id
    f2 = join(c, client_id="b", now=5)
    assert not f2.done()
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)
    assert c.heartbeat("g", r1.member_id, None, 1, 6) == E.REBALANCE_IN_PROGRESS
    f1b = join(c, member_id=r1.member_id, now=7)
    assert f1b.result().generation_id == f2.result().generation_id == 2


def test_full_round_three_members():
    c = make_coordinator()
    futs = [join(c, client_id=f"c{i}", protocols=[("range", f"meta{i}".encode())])
            for i in range(3)]
    drive(c, futs)
    rs = [f.result() for f in futs]
    leader = [r for r in rs if r.member_id == r.leader]
    assert len(leader) == 1
    assert sorted(m[2] for m in leader[0].members) == [b"meta0", b"meta1", b"meta2"]
    assert all(r.members == [] for r in rs if r.member_id != r.leader)
    gen = rs[0].generation_id
    followers = [sync(c, "g", r.member_id, gen) for r in rs if r.member_id != r.leader]
    assert not any(f.done() for f in followers)        # wait for the leader
    assignments = {r.member_id: r.member_id.encode() for r in rs}
    lf = sync(c, "g", leader[0].member_id, gen, assignments=assignments,
              protocol_type="consumer", protocol_name="range")
    assert lf.result().assignment == leader[0].member_id.encode()
    for r, f in zip([r for r in rs if r.member_id != r.leader], followers):
        res = f.result()
        assert res.error == E.NONE and res.assignment == r.member_id.encode()
        assert res.protocol_type == "consumer" and res.protocol_name == "range"
    assert c.groups["g"].is_(GroupState.STABLE)


def test_missing_assignments_are_empty_and_bytes_pass_through():
    c = make_coordinator()
    futs = [join(c, client_id=f"c{i}") for i in range(2)]
    drive(c, futs)
    rs = [f.result() for f in futs]
    leader = rs[0].leader
    other = [r.member_id for r in rs if r.member_id != leader][0]
    blob = bytes(range(256))
    fo = sync(c, "g", other, 1)
    sync(c, "g", leader, 1, assignments={leader: blob, "not-a-member": b"x"})
    assert fo.result().error == E.NONE and fo.result().assignment == b""
    assert c.groups["g"].members[leader].assignment == blob


def test_protocol_selection_by_votes_among_common_protocols():
    c = make_coordinator()
    fs = [
        join(c, client_id="a", protocols=[("roundrobin", b"a"), ("range", b"a"), ("x", b"")]),
        join(c, client_id="b", protocols=[("range", b"b"), ("roundrobin", b"b")]),
        join(c, client_id="c", protocols=[("range", b"c"), ("roundrobin", b"c")]),
    ]
    drive(c, fs)
    assert {f.result().protocol_name for f in fs} == {"range"}   # 2 votes against 1
    leader = [f.result() for f in fs if f.result().member_id == f.result().leader][0]
    assert sorted(m[2] for m in leader.members) == [b"a", b"b", b"c"]  # range metadata


def test_protocol_supported_by_everyone_wins_over_a_popular_one():
    c = make_coordinator()
    fs = [
        join(c, client_id="a", protocols=[("cooperative-sticky", b"a"), ("range", b"a")]),
        join(c, client_id="b", protocols=[("cooperative-sticky", b"b"), ("range", b"b")]),
        join(c, client_id="c", protocols=[("range", b"c")]),
    ]
    drive(c, fs)
    assert {f.result().protocol_name for f in fs} == {"range"}


def test_inconsistent_group_protocol():
    c = make_coordinator()
    join(c, protocols=[("range", b"")])
    assert join(c, protocols=[("sticky", b"")]).result().error == E.INCONSISTENT_GROUP_PROTOCOL
    assert join(c, protocol_type="connect").result().error == E.INCONSISTENT_GROUP_PROTOCOL
    c2 = make_coordinator()
    assert join(c2, protocols=[]).result().error == E.INCONSISTENT_GROUP_PROTOCOL
    assert join(c2, protocol_type="").result().error == E.INCONSISTENT_GROUP_PROTOCOL


def test_invalid_session_timeout_and_invalid_group_id():
    c = make_coordinator()
    assert join(c, session=5999).result().error == E.INVALID_SESSION_TIMEOUT
    assert join(c, session=1_800_001).result().error == E.INVALID_SESSION_TIMEOUT
    assert join(c, group="").result().error == E.INVALID_GROUP_ID
    assert c.heartbeat("", "m", None, 1, 0) == E.INVALID_GROUP_ID
    assert sync(c, "", "m", 1).result().error == E.INVALID_GROUP_ID


def test_not_coordinator_and_load_in_progress():
    c = make_coordinator()
    p = c.partition_for("g")
    c.owned_partitions.discard(p)
    assert join(c).result().error == E.NOT_COORDINATOR
    assert c.fetch_offsets("g", None)[0] == E.NOT_COORDINATOR
    c.owned_partitions.add(p)
    c.loading_partitions.add(p)
    assert join(c).result().error == E.COORDINATOR_LOAD_IN_PROGRESS
    assert c.heartbeat("g", "m", None, 1, 0) == E.NONE            # answered blindly
    assert sync(c, "g", "m", 1).result().error == E.REBALANCE_IN_PROGRESS
    assert c.list_groups()[0] == E.COORDINATOR_LOAD_IN_PROGRESS


def test_group_max_size_reached():
    c = make_coordinator(group_max_size=2)
    f1, f2 = join(c), join(c)
    r3 = join(c).result()
    assert r3.error == E.GROUP_MAX_SIZE_REACHED and r3.member_id == ""
    drive(c, [f1, f2])
    assert f1.result().error == f2.result().error == E.NONE
    ids = [f1.result().member_id, f2.result().member_id]
    # Stable group at max size: new members refused, existing ones accepted.
    sync(c, "g", f1.result().leader, 1)
    assert join(c).result().error == E.GROUP_MAX_SIZE_REACHED
    assert join(c, member_id=[m for m in ids if m != f1.result().leader][0]).result().error \
        == E.NONE


def test_heartbeat_error_paths():
    c = make_coordinator()
    ids, gen, t0 = stable_group(c, 2)
    assert c.heartbeat("g", ids[0], None, gen, 1) == E.NONE
    assert c.heartbeat("g", ids[0], None, gen + 1, 1) == E.ILLEGAL_GENERATION
    assert c.heartbeat("g", "nobody", None, gen, 1) == E.UNKNOWN_MEMBER_ID
    assert c.heartbeat("nogroup", ids[0], None, gen, 1) == E.UNKNOWN_MEMBER_ID
    # A member rejoins (metadata change): the group rebalances; others are told.
    join(c, member_id=ids[1], protocols=[("range", subscription("t", "u"))], now=2)
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)
    assert c.heartbeat("g", ids[0], None, gen, 3) == E.REBALANCE_IN_PROGRESS


def test_heartbeat_in_completing_rebalance_is_ok_and_sync_in_preparing_is_rebalancing():
    c = make_coordinator()
    futs = [join(c, client_id="a"), join(c, client_id="b")]
    drive(c, futs)
    r = futs[0].result()
    assert c.groups["g"].is_(GroupState.COMPLETING_REBALANCE)
    assert c.heartbeat("g", r.member_id, None, r.generation_id, 101) == E.NONE
    c2 = make_coordinator()
    ids, gen, t0 = stable_group(c2, 2)
    join(c2, member_id=ids[0], now=1)                  # leader rejoins -> rebalance
    assert sync(c2, "g", ids[1], gen).result().error == E.REBALANCE_IN_PROGRESS


def test_sync_error_paths():
    c = make_coordinator()
    ids, gen, t0 = stable_group(c, 1)
    assert sync(c, "g", ids[0], gen + 1).result().error == E.ILLEGAL_GENERATION
    assert sync(c, "g", "nobody", gen).result().error == E.UNKNOWN_MEMBER_ID
    assert sync(c, "nogroup", ids[0], gen).result().error == E.UNKNOWN_MEMBER_ID
    assert sync(c, "g", ids[0], gen, protocol_type="connect").result().error == \
        E.INCONSISTENT_GROUP_PROTOCOL
    assert sync(c, "g", ids[0], gen, protocol_name="roundrobin").result().error == \
        E.INCONSISTENT_GROUP_PROTOCOL
    ok = sync(c, "g", ids[0], gen, protocol_type="consumer", protocol_name="range").result()
    assert ok.error == E.NONE and ok.assignment == f"assign-{ids[0]}".encode()


def test_follower_rejoin_in_stable_with_same_metadata_does_not_rebalance():
    c = make_coordinator()
    ids, gen, t0 = stable_group(c, 2)
    leader = c.groups["g"].leader_id
    follower = [m for m in ids if m != leader][0]
    r = join(c, member_id=follower).result()
    assert r.error == E.NONE and r.generation_id == gen and r.members == []
    assert c.groups["g"].is_(GroupState.STABLE)


def test_rejoin_in_completing_rebalance_with_same_metadata_returns_current_generation():
    c = make_coordinator()
    futs = [join(c, client_id="a"), join(c, client_id="b")]
    drive(c, futs)
    r = futs[0].result()
    again = join(c, member_id=r.member_id).result()
    assert again.generation_id == r.generation_id
    assert again.members == r.members
    assert c.groups["g"].is_(GroupState.COMPLETING_REBALANCE)


def test_rejoin_with_new_metadata_in_completing_rebalance_restarts_and_fails_parked_syncs():
    c = make_coordinator()
    futs = [join(c, client_id="a"), join(c, client_id="b")]
    drive(c, futs)
    rs = [f.result() for f in futs]
    leader = rs[0].leader
    follower = [r.member_id for r in rs if r.member_id != leader][0]
    parked = sync(c, "g", follower, 1)
    assert not parked.done()
    fj = join(c, member_id=leader, protocols=[("range", subscription("t", "u"))], now=1)
    assert parked.result().error == E.REBALANCE_IN_PROGRESS
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)
    fj2 = join(c, member_id=follower, now=2)
    r1, r2 = fj.result(), fj2.result()
    assert r1.generation_id == r2.generation_id == 2


def test_session_expiry_removes_member_and_rebalances_survivor():
    c = make_coordinator()
    ids, gen, t0 = stable_group(c, 2)
    assert c.heartbeat("g", ids[0], None, gen, t0 + 9_000) == E.NONE
    c.poll(t0 + 9_999)
    assert len(c.groups["g"].members) == 2
    c.poll(t0 + 10_000)                  # ids[1]'s session (10 s) ran out
    g = c.groups["g"]
    assert list(g.members) == [ids[0]]
    assert g.is_(GroupState.PREPARING_REBALANCE)
    assert c.heartbeat("g", ids[0], None, gen, t0 + 10_001) == E.REBALANCE_IN_PROGRESS
    r = join(c, member_id=ids[0], now=t0 + 10_002).result()
    assert r.error == E.NONE and r.generation_id == gen + 1 and r.leader == ids[0]


def test_rebalance_timeout_drops_members_that_do_not_rejoin():
    c = make_coordinator()
    ids, gen, t0 = stable_group(c, 3)
    f = join(c, member_id=ids[0], now=t0, rebalance=5000)   # leader triggers rebalance
    f1 = join(c, member_id=ids[1], now=t0, rebalance=5000)
    # ids[2] keeps heartbeating (told REBALANCE_IN_PROGRESS) but never rejoins.
    now = t0
    while now + 5000 < t0 + 30_000:
        now += 5000
        assert c.heartbeat("g", ids[2], None, gen, now) == E.REBALANCE_IN_PROGRESS
        c.poll(now)
    c.poll(t0 + 29_999)
    assert not f.done()
    c.poll(t0 + 30_000)   # group rebalance timeout = max over members (30 s for ids[2])
    assert f.result().error == E.NONE and f1.result().error == E.NONE
    assert f.result().generation_id == gen + 1
    assert set(c.groups["g"].members) == {ids[0], ids[1]}
    assert c.heartbeat("g", ids[2], None, gen, t0 + 30_001) == E.UNKNOWN_MEMBER_ID


def test_silent_member_during_rebalance_is_removed_by_session_expiry():
    c = make_coordinator()
    ids, gen, t0 = stable_group(c, 2)
    f = join(c, member_id=ids[0], now=t0 + 1)
    assert not f.done()
    c.poll(t0 + 10_000)                  # ids[1] neither rejoined nor heartbeated
    assert f.result().error == E.NONE and f.result().generation_id == gen + 1
    assert list(c.groups["g"].members) == [ids[0]]


def test_pending_sync_expiry_removes_members_that_never_sync():
    c = make_coordinator()
    futs = [join(c, client_id="a", rebalance=1000), join(c, client_id="b", rebalance=1000)]
    t = drive(c, futs)
    rs = [f.result() for f in futs]
    leader = rs[0].leader
    lf = sync(c, "g", leader, 1, now=t)
    assert lf.result().error == E.NONE
    assert c.groups["g"].is_(GroupState.STABLE)
    c.poll(t + 999)
    assert len(c.groups["g"].members) == 2
    c.poll(t + 1000)                     # the follower never sent SyncGroup
    g = c.groups["g"]
    assert list(g.members) == [leader]
    assert g.is_(GroupState.PREPARING_REBALANCE)


def test_kip394_pending_member_expires_and_blocks_completion_until_then():
    c = make_coordinator()
    ids, gen, t0 = stable_group(c, 1)
    pending = join(c, v4=True, now=0, session=7000).result().member_id
    fl = join(c, member_id=ids[0], now=1)              # leader rejoins
    assert not fl.done()                               # waits for the pending member
    c.poll(7000)
    assert fl.result().error == E.NONE
    assert pending not in c.groups["g"].pending_members


def test_leave_group_batched_and_by_instance_id():
    c = make_coordinator()
    ids, gen, t0 = stable_group(c, 3)
    err, res = c.leave_group("g", [(ids[0], None), ("nobody", None), ("", "no-such-instance")], 5)
    assert err == E.NONE
    assert res == [(ids[0], None, E.NONE), ("nobody", None, E.UNKNOWN_MEMBER_ID),
                   ("", "no-such-instance", E.UNKNOWN_MEMBER_ID)]
    assert ids[0] not in c.groups["g"].members
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)
    assert c.leave_group("nogroup", [("m", None)], 5) == (E.NONE, [("m", None, E.UNKNOWN_MEMBER_ID)])
    assert c.leave_group("", [("m", None)], 5)[0] == E.INVALID_GROUP_ID


def test_everyone_leaving_makes_group_empty_with_next_generation():
    c = make_coordinator()
    ids, gen, t0 = stable_group(c, 2)
    c.leave_group("g", [(ids[0], None), (ids[1], None)], 5)
    g = c.groups["g"]
    assert g.is_(GroupState.EMPTY) and g.generation_id == gen + 1
    assert g.protocol_name is None


def test_leave_of_member_parked_in_join_answers_it():
    c = make_coordinator()
    f = join(c)
    mid = c.groups["g"].leader_id
    c.leave_group("g", [(mid, None)], 1)
    assert f.result().error == E.UNKNOWN_MEMBER_ID


def test_members_joining_together_with_no_delay_share_the_first_generation():
    """group.initial.rebalance.delay.ms=0: the join completes on the first poll after the
    joins already received (Kafka's 0 ms timer runs after the events already queued), so
    members joining together land in generation 1; one joining after that starts
    generation 2, as on Kafka."""
    c = make_coordinator(group_initial_rebalance_delay_ms=0)
    futs = [join(c, client_id="a", now=0), join(c, client_id="b", now=1)]
    assert not any(f.done() for f in futs)
    c.poll(1)
    assert [f.result().generation_id for f in futs] == [1, 1]
    assert len(c.groups["g"].members) == 2
    late = join(c, client_id="c", now=60)
    assert not late.done() and c.groups["g"].is_(GroupState.PREPARING_REBALANCE)


def test_a_lone_member_with_no_delay_completes_at_the_first_poll():
    """Kafka answers a lone member's join at once with no initial delay; the quiet tick
    kafpy used to wait cost every new group 50-100 ms."""
    c = make_coordinator(group_initial_rebalance_delay_ms=0)
    f = join(c, client_id="a", now=0)
    assert not f.done()
    c.poll(0)
    assert f.result().generation_id == 1


def test_rebalance_steps_are_logged_as_kafka_logs_them(caplog):
    caplog.set_level("INFO", logger="kafka.coordinator.group.GroupCoordinator")
    c = make_coordinator()
    ids, gen, now = stable_group(c, 2)
    partition = c.partition_for("g")
    lines = [r.getMessage() for r in caplog.records]
    assert f"Preparing to rebalance group g in state Empty with old generation 0 (__consumer_offsets-{partition})" in lines
    assert f"Stabilized group g generation {gen} (__consumer_offsets-{partition}) with 2 members" in lines
    c.leave_group("g", [(ids[0], None)], now)
    c.poll(now + 10**7)   # the other member's session ends
    lines = [r.getMessage() for r in caplog.records]
    assert f"Member {ids[0]} has left group g through explicit `LeaveGroup`" in lines
    assert f"Member {ids[1]} in group g has failed, removing it from the group" in lines
    assert f"Group g with generation {gen + 1} is now empty (__consumer_offsets-{partition})" in lines
