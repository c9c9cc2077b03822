"""OffsetCommit / OffsetFetch / OffsetDelete / DeleteGroups / ListGroups / DescribeGroups."""

from kafpy.coordinator.group import GroupState, InMemoryOffsetsLog, OffsetAndMetadata
from kafpy.protocol.errors import ErrorCode as E

from tests.unit.coordinator.helpers import commit, make_coordinator, stable_group, subscription


def om(offset, metadata="", ts=1000, epoch=-1, expire=-1):
    return OffsetAndMetadata(offset, epoch, metadata, ts, expire)


def test_simple_commit_outside_a_group_creates_empty_group_and_fetches():
    c = make_coordinator()
    res = commit(c, "simple", "", None, -1, {("t", 0): om(5, "m"), ("t", 1): om(7)}, 1)
    assert res == {("t", 0): E.NONE, ("t", 1): E.NONE}
    g = c.groups["simple"]
    assert g.is_(GroupState.EMPTY) and g.protocol_type is None
    err, got = c.fetch_offsets("simple", [("t", 0), ("t", 2)])
    assert err == E.NONE
    assert (got[("t", 0)].offset, got[("t", 0)].metadata) == (5, "m")
    assert (got[("t", 2)].offset, got[("t", 2)].metadata, got[("t", 2)].leader_epoch) == (-1, "", -1)
    err, everything = c.fetch_offsets("simple", None, require_stable=True)
    assert sorted((tp, f.offset) for tp, f in everything.items()) == [(("t", 0), 5), (("t", 1), 7)]
    assert c.fetch_offsets("nobody", None) == (E.NONE, {})
    assert c.list_groups()[1][0].state == "Empty"


def test_commit_with_generation_for_unknown_group_is_illegal_generation():
    c = make_coordinator()
    assert commit(c, "g", "m", None, 3, {("t", 0): om(1)}, 1) == {("t", 0): E.ILLEGAL_GENERATION}
    assert "g" not in c.groups


def test_commit_generation_and_member_checks_in_a_live_group():
    c = make_coordinator()
    ids, gen, t = stable_group(c, 2)
    ok = commit(c, "g", ids[0], None, gen, {("t", 0): om(10)}, t)
    assert ok == {("t", 0): E.NONE}
    assert commit(c, "g", ids[0], None, gen + 1, {("t", 0): om(1)}, t) == \
        {("t", 0): E.ILLEGAL_GENERATION}
    assert commit(c, "g", "stranger", None, gen, {("t", 0): om(1)}, t) == \
        {("t", 0): E.UNKNOWN_MEMBER_ID}
    # generation -1 without member id while the group has members
    assert commit(c, "g", "", None, -1, {("t", 0): om(1)}, t) == \
        {("t", 0): E.UNKNOWN_MEMBER_ID}
    assert c.fetch_offsets("g", [("t", 0)])[1][("t", 0)].offset == 10


def test_commit_during_completing_rebalance_is_rebalance_in_progress():
    c = make_coordinator()
    from tests.unit.coordinator.helpers import drive, join
    futs = [join(c, client_id="a"), join(c, client_id="b")]
    drive(c, futs)
    r = futs[0].result()
    assert commit(c, "g", r.member_id, None, r.generation_id, {("t", 0): om(1)}, 1) == \
        {("t", 0): E.REBALANCE_IN_PROGRESS}


def test_commit_during_preparing_rebalance_is_accepted():
    c = make_coordinator()
    ids, gen, t = stable_group(c, 2)
    from tests.unit.coordinator.helpers import join
    join(c, member_id=ids[0], now=t)
    assert c.groups["g"].is_(GroupState.PREPARING_REBALANCE)
    assert commit(c, "g", ids[1], None, gen, {("t", 0): om(3)}, t) == {("t", 0): E.NONE}


def test_metadata_too_large_and_append_failures():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log, offset_metadata_max_bytes=4)
    res = commit(c, "s", "", None, -1, {("t", 0): om(1, "12345"), ("t", 1): om(1, "1234")}, 1)
    assert res == {("t", 0): E.OFFSET_METADATA_TOO_LARGE, ("t", 1): E.NONE}
    log.fail_with = E.NOT_LEADER_OR_FOLLOWER
    assert commit(c, "s", "", None, -1, {("t", 1): om(9)}, 2) == {("t", 1): E.NOT_COORDINATOR}
    log.fail_with = E.MESSAGE_TOO_LARGE
    assert commit(c, "s", "", None, -1, {("t", 1): om(9)}, 2) == \
        {("t", 1): E.INVALID_COMMIT_OFFSET_SIZE}
    log.fail_with = E.UNKNOWN_TOPIC_OR_PARTITION
    assert commit(c, "s", "", None, -1, {("t", 1): om(9)}, 2) == \
        {("t", 1): E.COORDINATOR_NOT_AVAILABLE}
    assert c.fetch_offsets("s", [("t", 1)])[1][("t", 1)].offset == 1     # unchanged


def test_delete_groups():
    c = make_coordinator()
    ids, gen, t = stable_group(c, 1)
    commit(c, "s", "", None, -1, {("t", 0): om(1)}, 1)
    res = c.delete_groups(["g", "s", "missing", ""], t)
    assert res == {"g": E.NON_EMPTY_GROUP, "s": E.NONE, "missing": E.GROUP_ID_NOT_FOUND,
                   "": E.GROUP_ID_NOT_FOUND}
    assert "s" not in c.groups
    assert c.fetch_offsets("s", None) == (E.NONE, {})
    c.leave_group("g", [(ids[0], None)], t)
    assert c.delete_groups(["g"], t) == {"g": E.NONE}
    assert c.list_groups() == (E.NONE, [])


def test_offset_delete():
    c = make_coordinator()
    ids, gen, t = stable_group(c, 1)            # subscribed to topic "t"
    commit(c, "g", ids[0], None, gen, {("t", 0): om(1), ("u", 0): om(2)}, t)
    err, res = c.delete_offsets("g", [("t", 0), ("u", 0)], t)
    assert err == E.NONE
    assert res == {("t", 0): E.GROUP_SUBSCRIBED_TO_TOPIC, ("u", 0): E.NONE}
    assert set(c.groups["g"].offsets) == {("t", 0)}
    assert c.delete_offsets("missing", [("t", 0)], t) == (E.GROUP_ID_NOT_FOUND, {})
    # An Empty simple group whose last offset goes away dies.
    commit(c, "s", "", None, -1, {("t", 0): om(1)}, 1)
    assert c.delete_offsets("s", [("t", 0)], 2) == (E.NONE, {("t", 0): E.NONE})
    assert "s" not in c.groups


def test_offset_delete_in_non_consumer_active_group_is_non_empty():
    c = make_coordinator()
    from tests.unit.coordinator.helpers import drive, join
    f = join(c, protocol_type="connect", protocols=[("v1", b"x")])
    drive(c, [f])
    assert c.delete_offsets("g", [("t", 0)], 1) == (E.NON_EMPTY_GROUP, {})


def test_list_groups_with_states_and_types_filters():
    c = make_coordinator()
    stable_group(c, 1, group="live")
    commit(c, "s", "", None, -1, {("t", 0): om(1)}, 1)
    err, groups = c.list_groups()
    assert err == E.NONE
    assert sorted((g.group_id, g.protocol_type, g.state) for g in groups) == \
        [("live", "consumer", "Stable"), ("s", "", "Empty")]
    assert [g.group_id for g in c.list_groups(["stable"])[1]] == ["live"]
    assert [g.group_id for g in c.list_groups(["Empty", "Dead"])[1]] == ["s"]
    assert [g.group_type for g in c.list_groups(types=["Classic"])[1]] == ["classic", "classic"]
    assert c.list_groups(types=["consumer"])[1] == []


def test_describe_group():
    c = make_coordinator()
    ids, gen, t = stable_group(c, 2)
    d = c.describe_group("g")
    assert (d.error, d.state, d.protocol_type, d.protocol) == (E.NONE, "Stable", "consumer", "range")
    assert sorted(m.member_id for m in d.members) == sorted(ids)
    m = d.members[0]
    assert m.client_host == "/127.0.0.1" and m.client_id in ("c0", "c1")
    assert m.metadata == subscription("t") and m.assignment == f"assign-{m.member_id}".encode()
    missing = c.describe_group("nope")
    assert (missing.error, missing.state, missing.members) == (E.NONE, "Dead", [])
    from tests.unit.coordinator.helpers import join
    join(c, member_id=ids[0], now=t)
    d = c.describe_group("g")
    assert d.state == "PreparingRebalance" and d.protocol == ""
    assert all(m.metadata == b"" and m.assignment == b"" for m in d.members)


def test_offsets_expire_after_retention_once_group_is_empty():
    c = make_coordinator(offsets_retention_minutes=1)
    ids, gen, t = stable_group(c, 1)
    commit(c, "g", ids[0], None, gen, {("t", 0): om(1, ts=t), ("gone", 0): om(1, ts=t)}, t)
    # Stable consumer group: only topics no longer subscribed expire (by commit time).
    assert c.expire_offsets(t + 60_000) == 1
    assert set(c.groups["g"].offsets) == {("t", 0)}
    c.leave_group("g", [(ids[0], None)], t + 70_000)           # Empty from now
    assert c.expire_offsets(t + 129_999) == 0
    assert c.expire_offsets(t + 130_000) == 1
    assert "g" not in c.groups                                  # Empty, no offsets: Dead


def test_simple_group_offsets_expire_by_commit_time_and_explicit_expire_timestamp():
    c = make_coordinator(offsets_retention_minutes=1, offsets_retention_check_interval_ms=1000)
    commit(c, "s", "", None, -1, {("t", 0): om(1, ts=0), ("t", 1): om(1, ts=50_000),
                                         ("t", 2): om(1, ts=0, expire=10_000)}, 0)
    c.poll(0)
    c.poll(9_999)
    assert len(c.groups["s"].offsets) == 3
    c.poll(11_000)                       # next expiry check (one interval later)
    assert set(c.groups["s"].offsets) == {("t", 0), ("t", 1)}
    c.poll(60_000)
    assert set(c.groups["s"].offsets) == {("t", 1)}


def test_offsets_of_deleted_topics_are_removed_with_tombstones():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log)
    ids, gen, t = stable_group(c, 1)
    commit(c, "g", ids[0], None, gen, {("t", 0): om(1), ("old", 0): om(2)}, t)
    commit(c, "s", "", None, -1, {("old", 1): om(3)}, t)
    assert c.on_topics_deleted(["old"], t + 1) == 2
    assert set(c.groups["g"].offsets) == {("t", 0)}
    assert "s" not in c.groups                     # empty simple group without offsets dies
    fresh = make_coordinator(log)
    for p in range(50):
        fresh.load_partition(p, t + 2)
    assert set(fresh.groups["g"].offsets) == {("t", 0)} and "s" not in fresh.groups
