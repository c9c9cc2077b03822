"""The consumer group protocol (KIP-848) state machine with the clock passed in:
joining, epochs, the uniform and range assignors, incremental reconciliation (revoke
first, assign once released), static membership, regex subscriptions following topics,
session expiry, offsets validated by member epoch, and the state rebuilt from the
records in `__consumer_offsets`."""
from __future__ import annotations

import pytest

from kafpy.coordinator.group import InMemoryOffsetsLog, OffsetAndMetadata
from kafpy.coordinator.group.consumer.assignors import MemberSubscription, RangeAssignor, UniformAssignor
from kafpy.coordinator.group.consumer.config import ConsumerGroupConfig
from kafpy.coordinator.group.consumer.coordinator import ConsumerGroupCoordinator
from kafpy.coordinator.group.consumer.topics import StaticTopics
from kafpy.coordinator.group.consumer.group import MemberState
from kafpy.coordinator.group.consumer.records import CONSUMER_KEY_VERSIONS
from kafpy.protocol.errors import ErrorCode as E

from kafpy.coordinator.group import GroupState
from tests.unit.coordinator.helpers import commit, drive, join, make_coordinator, sync

SESSION = 10_000


def setup(topics=(("t", 3),), log=None, **cfg):
    classic = make_coordinator(log)
    view = StaticTopics()
    for name, n in topics:
        view.add(name, n, topic_id=name.encode().ljust(16, b"\0"))
    config = ConsumerGroupConfig(**{"session_timeout_ms": SESSION, "heartbeat_interval_ms": 1000,
                                    **cfg})
    coordinator = ConsumerGroupCoordinator(classic, config, view)
    classic.attach(consumer=coordinator)
    return coordinator, view


def tid(name):
    return name.encode().ljust(16, b"\0")


def hb(c, member, epoch, now=0, *, group="g", owned=None, topics=None, regex=None,
       instance=None, assignor=None, rebalance_timeout=5000):
    joining = epoch == 0
    fut = c.heartbeat(group, member, epoch, instance_id=instance,
                      rebalance_timeout_ms=rebalance_timeout if joining else -1,
                      subscribed_topic_names=(topics if topics is not None else (["t"] if joining and regex is None else None)),
                      subscribed_topic_regex=regex, server_assignor=assignor,
                      owned={} if joining and owned is None else owned, client_id="c",
                      client_host="/127.0.0.1", now_ms=now)
    assert fut.done()
    return fut.result()


def parts(assignment, topic="t"):
    return sorted((assignment or {}).get(tid(topic), set()))


def test_first_member_gets_every_partition_at_epoch_one():
    c, _ = setup()
    r = hb(c, "m1", 0)
    assert r.error == E.NONE and r.member_id == "m1" and r.member_epoch == 1
    assert parts(r.assignment) == [0, 1, 2] and r.heartbeat_interval_ms == 1000
    group = c.groups["g"]
    assert group.group_epoch == group.assignment_epoch == 1
    assert group.state.value == "Stable"


def test_second_member_waits_for_the_first_to_revoke():
    c, _ = setup()
    hb(c, "m1", 0)
    r2 = hb(c, "m2", 0, 1)
    # m2 moves to epoch 2 but gets nothing the first member still holds
    assert r2.member_epoch == 2 and parts(r2.assignment) == []
    assert c.groups["g"].members["m2"].state == MemberState.UNRELEASED_PARTITIONS
    # m1 is told to keep only its share; it stays at epoch 1 until it revoked
    r1 = hb(c, "m1", 1, 2)
    kept = parts(r1.assignment)
    assert r1.member_epoch == 1 and len(kept) == 2
    assert c.groups["g"].members["m1"].state == MemberState.UNREVOKED_PARTITIONS
    # still reporting the revoked partition: nothing moves
    r1 = hb(c, "m1", 1, 3, owned={tid("t"): {0, 1, 2}})
    assert r1.member_epoch == 1
    r1 = hb(c, "m1", 1, 4, owned={tid("t"): set(kept)})
    assert r1.member_epoch == 2 and c.groups["g"].members["m1"].state == MemberState.STABLE
    r2 = hb(c, "m2", 2, 5)
    assert parts(r2.assignment) == sorted({0, 1, 2} - set(kept))
    assert c.groups["g"].state.value == "Stable"


def test_no_partition_is_ever_held_by_two_members():
    c, _ = setup(topics=(("t", 12),))
    members = [f"m{i}" for i in range(5)]
    epochs = {}
    owned = {}
    now = 0
    for m in members:
        now += 1
        r = hb(c, m, 0, now)
        epochs[m], owned[m] = r.member_epoch, set(parts(r.assignment))
    for _ in range(6):
        for m in members:
            now += 1
            r = hb(c, m, epochs[m], now, owned={tid("t"): owned[m]})
            assert r.error == E.NONE
            epochs[m] = r.member_epoch
            if r.assignment is not None:
                owned[m] = set(parts(r.assignment))
            held = [p for ps in owned.values() for p in ps]
            assert len(held) == len(set(held))
    assert sorted(p for ps in owned.values() for p in ps) == list(range(12))
    assert sorted(len(ps) for ps in owned.values()) == [2, 2, 2, 3, 3]


def test_unknown_member_and_fenced_epochs():
    c, _ = setup()
    r = hb(c, "ghost", 3)                # no such group: Kafka's GroupIdNotFoundException
    assert (r.error, r.message) == (E.GROUP_ID_NOT_FOUND, "Consumer group g not found.")
    hb(c, "m1", 0)
    assert hb(c, "ghost", 3).error == E.UNKNOWN_MEMBER_ID
    assert hb(c, "m1", 5).error == E.FENCED_MEMBER_EPOCH
    hb(c, "m2", 0, 1)                    # group epoch 2; m1 still at 1
    r = hb(c, "m1", 1, 2, owned={tid("t"): {0, 1, 2}})
    assert r.error == E.NONE
    assert hb(c, "m1", 0, 3).member_epoch >= 0   # rejoin at epoch 0 is allowed
    assert hb(c, "", 0).error == E.INVALID_REQUEST     # v1: the client names itself


def test_invalid_requests_answer_as_kafka():
    c, _ = setup()
    fut = c.heartbeat("g", "m1", 0, rebalance_timeout_ms=-1, subscribed_topic_names=["t"],
                      owned={}, now_ms=0)
    assert fut.result().error == E.INVALID_REQUEST
    assert hb(c, "m1", 0, assignor="nope").error == E.UNSUPPORTED_ASSIGNOR
    assert hb(c, "m1", 0, regex="(unclosed", topics=None).error == E.INVALID_REGULAR_EXPRESSION
    assert hb(c, "m1", 0, group="").error == E.INVALID_REQUEST


def test_heartbeat_validation_in_kafkas_words():
    c, _ = setup()

    def refused(member="m1", epoch=0, **kw):
        args = {"rebalance_timeout_ms": 5000, "subscribed_topic_names": ["t"], "owned": {},
                "now_ms": 0, **kw}
        r = c.heartbeat("g", member, epoch, **args).result()
        assert r.error == E.INVALID_REQUEST, r
        return r.message

    assert refused(owned={tid("t"): {0}}) == "TopicPartitions must be empty when (re-)joining."
    assert refused(owned={tid("t"): set()}) == "TopicPartitions must be empty when (re-)joining."
    assert refused(owned=None) == "TopicPartitions must be empty when (re-)joining."
    assert refused(instance_id="") == "InstanceId can't be empty."
    assert refused(rack_id=" ") == "RackId can't be empty."
    assert refused(subscribed_topic_names=None) == (
        "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")
    assert refused(epoch=-3) == "MemberEpoch is invalid."
    assert refused(member="", epoch=4) == "MemberId can't be empty."
    assert "g" not in c.groups          # nothing joined
    r = hb(c, "m1", -1)
    assert (r.error, r.message) == (E.GROUP_ID_NOT_FOUND, "Group g not found.")


def test_a_leave_writes_the_hash_of_what_the_others_subscribe_to():
    c, _ = setup(topics=(("t", 3), ("u", 2)))
    hb(c, "m1", 0)
    r2 = hb(c, "m2", 0, 1, topics=["t", "u"])
    hb(c, "m2", -1, 2)                  # only m1 (topic t) is left
    group = c.groups["g"]
    epoch = group.group_epoch
    r1 = hb(c, "m1", 1, 3, owned={})
    assert r1.error == E.NONE and group.group_epoch == epoch, "the next heartbeat bumped the epoch"
    assert r2.error == E.NONE


def test_commit_at_the_previous_epoch_is_taken_for_a_partition_the_member_kept():
    c, _ = setup()
    hb(c, "m1", 0)                                    # epoch 1: t-0, t-1, t-2
    hb(c, "m2", 0, 1)
    r1 = hb(c, "m1", 1, 2)                            # told to give one up
    kept = parts(r1.assignment)
    r1 = hb(c, "m1", 1, 3, owned={tid("t"): set(kept)})
    assert r1.member_epoch == 2 and parts(r1.assignment) == kept
    gone = ({0, 1, 2} - set(kept)).pop()
    om = OffsetAndMetadata(5, -1, "", 0)
    got = commit(c.classic, "g", "m1", None, 1, {("t", kept[0]): om, ("t", gone): om}, 4)
    assert got == {("t", kept[0]): E.NONE, ("t", gone): E.STALE_MEMBER_EPOCH}
    assert c.classic.fetch_offsets("g", [("t", kept[0])])[1][("t", kept[0])].offset == 5
    # older than the partition's assignment epoch, or newer than the member's: refused
    assert commit(c.classic, "g", "m1", None, 0, {("t", kept[0]): om}, 5) == {("t", kept[0]): E.STALE_MEMBER_EPOCH}
    assert commit(c.classic, "g", "m1", None, 3, {("t", kept[0]): om}, 5) == {("t", kept[0]): E.STALE_MEMBER_EPOCH}
    # a partition newly assigned at epoch 2 takes no commit at epoch 1
    r2 = hb(c, "m2", 2, 6, owned={})
    assert r2.member_epoch == 2 and parts(r2.assignment) == [gone]
    hb(c, "m2", 2, 7, owned={tid("t"): {gone}})
    assert commit(c.classic, "g", "m2", None, 1, {("t", gone): om}, 8) == {("t", gone): E.STALE_MEMBER_EPOCH}


def test_static_members_leave_rejoin_and_fencing_as_kafka():
    c, _ = setup()
    hb(c, "s1", 0, instance="i1")                     # epoch 1: all three partitions
    r = hb(c, "s1", 0, 1, instance="i1")              # live, rejoining under its own id
    assert (r.error, r.message) == (E.UNRELEASED_INSTANCE_ID, "Static member s1 with instance id i1 "
                                    "cannot join the group because the instance id is owned by s1 member.")
    r2 = hb(c, "m2", 0, 2)
    assert parts(r2.assignment) == []                 # waiting for s1 to release
    r1 = hb(c, "s1", 1, 3)
    kept = parts(r1.assignment)
    assert len(kept) < 3 and c.groups["g"].members["s1"].pending_revocation
    # a leave naming another member id with the live instance id: the owner stays
    r = hb(c, "ghost", -1, 4, instance="i1")
    assert (r.error, r.message) == (E.FENCED_INSTANCE_ID,
                                    "Static member ghost with instance id i1 was fenced by member s1.")
    assert "s1" in c.groups["g"].members
    assert hb(c, "x", -2, 4, instance="nope").error == E.UNKNOWN_MEMBER_ID
    # the static leave releases what s1 was giving up: m2 gets it at once
    assert hb(c, "s1", -2, 5, instance="i1").error == E.NONE
    r2 = hb(c, "m2", r2.member_epoch, 6, owned={})
    assert parts(r2.assignment) == sorted({0, 1, 2} - set(kept))
    # gone for a while, it is not removed for not revoking in time (its epoch moved on)
    c.poll(3 + 5000 + 1)
    assert "s1" in c.groups["g"].members
    # s1 comes back and finds what it kept
    r1 = hb(c, "s1b", 0, 5 + 5000 + 2, instance="i1")
    assert r1.error == E.NONE and parts(r1.assignment) == kept


def test_offset_commit_below_v9_from_a_consumer_protocol_member_is_unsupported():
    c, _ = setup()
    hb(c, "m1", 0)
    om = OffsetAndMetadata(7, -1, "", 0)
    fut = c.classic.commit_offsets("g", "m1", None, 1, {("t", 0): om}, 1, api_version=8)
    assert fut.result() == {("t", 0): E.UNSUPPORTED_VERSION}
    fut = c.classic.commit_offsets("g", "m1", None, 1, {("t", 0): om}, 1, api_version=9)
    assert fut.result() == {("t", 0): E.NONE}


def test_leave_gives_partitions_to_the_others():
    c, _ = setup()
    hb(c, "m1", 0)
    r2 = hb(c, "m2", 0, 1)
    r1 = hb(c, "m1", 1, 2)
    hb(c, "m1", 1, 3, owned={tid("t"): set(parts(r1.assignment))})
    r2 = hb(c, "m2", 2, 4)
    assert hb(c, "m1", -1, 5).member_epoch == -1
    assert "m1" not in c.groups["g"].members
    r2 = hb(c, "m2", r2.member_epoch, 6, owned={tid("t"): set(parts(r2.assignment))})
    assert parts(r2.assignment) == [0, 1, 2] and r2.member_epoch == 3


def test_session_expiry_removes_the_member():
    c, _ = setup()
    hb(c, "m1", 0, 0)
    hb(c, "m2", 0, 0)
    c.classic.poll(SESSION - 1)
    assert set(c.groups["g"].members) == {"m1", "m2"}
    hb(c, "m2", 2, SESSION - 1)
    c.classic.poll(SESSION)
    assert set(c.groups["g"].members) == {"m2"}


def test_member_that_does_not_revoke_in_time_is_removed():
    c, _ = setup()
    hb(c, "m1", 0, 0)
    hb(c, "m2", 0, 1)
    hb(c, "m1", 1, 2, rebalance_timeout=5000)   # told to revoke
    hb(c, "m2", 2, 3000)
    c.classic.poll(2 + 5000)
    assert "m1" not in c.groups["g"].members


def test_static_member_keeps_its_assignment_across_a_restart():
    c, _ = setup()
    r = hb(c, "a1", 0, instance="i1")
    assert parts(r.assignment) == [0, 1, 2]
    epoch = c.groups["g"].group_epoch
    assert hb(c, "a1", -2, 1, instance="i1").error == E.NONE
    # another process claiming the instance while it is held: refused
    assert hb(c, "x", 0, 2, instance="i1").error == E.NONE   # released (-2), so allowed
    assert c.groups["g"].static_members["i1"] == "x"
    assert parts(c.groups["g"].members["x"].assigned) == [0, 1, 2]
    assert c.groups["g"].group_epoch == epoch
    assert hb(c, "y", 0, 3, instance="i1").error == E.UNRELEASED_INSTANCE_ID


def test_regex_subscription_follows_topics_coming_and_going():
    c, view = setup(topics=(("orders-1", 2), ("other", 1)))
    r = hb(c, "m1", 0, regex="orders-.*", topics=None)
    assert r.member_epoch == 1 and parts(r.assignment, "orders-1") == [0, 1]
    assert parts(r.assignment, "other") == []
    view.add("orders-2", 1, topic_id=tid("orders-2"))
    r = hb(c, "m1", 1, 1)
    assert r.member_epoch == 2 and parts(r.assignment, "orders-2") == [0]
    view.remove("orders-1")
    r = hb(c, "m1", 2, 2)
    assert parts(r.assignment, "orders-1") == []   # revoked ...
    r = hb(c, "m1", 2, 3, owned={tid("orders-2"): {0}})
    assert r.member_epoch == 3                     # ... then the new epoch


def test_offset_commit_and_fetch_are_validated_by_member_epoch():
    c, _ = setup()
    hb(c, "m1", 0)
    classic = c.classic
    om = OffsetAndMetadata(7, -1, "", 0)
    assert commit(classic, "g", "m1", None, 1, {("t", 0): om}, 1) == {("t", 0): E.NONE}
    assert commit(classic, "g", "m1", None, 0, {("t", 0): om}, 1) == {("t", 0): E.STALE_MEMBER_EPOCH}
    assert commit(classic, "g", "zz", None, 1, {("t", 0): om}, 1) == {("t", 0): E.UNKNOWN_MEMBER_ID}
    assert commit(classic, "g", "", None, -1, {("t", 0): om}, 1) == {("t", 0): E.UNKNOWN_MEMBER_ID}
    assert classic.fetch_offsets("g", [("t", 0)], member_id="m1", member_epoch=2)[0] == E.STALE_MEMBER_EPOCH
    assert classic.fetch_offsets("g", [("t", 0)], member_id="zz", member_epoch=1)[0] == E.UNKNOWN_MEMBER_ID
    err, got = classic.fetch_offsets("g", [("t", 0)], member_id="m1", member_epoch=1)
    assert err == E.NONE and got[("t", 0)].offset == 7
    assert classic.fetch_offsets("g", None)[1][("t", 0)].offset == 7       # admin fetch
    hb(c, "m1", -1, 2)
    # an empty consumer group takes commits without an epoch, and can be deleted
    assert commit(classic, "g", "", None, -1, {("t", 1): om}, 3) == {("t", 1): E.NONE}
    assert classic.list_groups()[1][0].group_type == "consumer"
    assert classic.delete_groups(["g"], 4) == {"g": E.NONE}
    assert "g" not in c.groups and classic.fetch_offsets("g", None) == (E.NONE, {})


def _classic_assignment(c, member_id, generation, now):
    """SyncGroup of a classic member: the partitions of topic t it was given."""
    from kafpy.coordinator.group.consumer.migration import decode_assignment
    r = sync(c.classic, "g", member_id, generation, now=now).result()
    assert r.error == E.NONE, r
    return sorted(p for t, p in decode_assignment(r.assignment) if t == "t")


def test_a_classic_member_joins_a_consumer_group_and_it_downgrades_when_the_last_leaves():
    c, _ = setup(topics=(("t", 4),))
    m1 = hb(c, "m1", 0)
    assert parts(m1.assignment) == [0, 1, 2, 3]
    r = join(c.classic, now=1).result()           # eager classic member: owns nothing
    assert r.error == E.NONE and r.leader == "" and r.members == []
    classic_id, gen = r.member_id, r.generation_id
    assert c.groups["g"].members[classic_id].uses_classic_protocol
    # it waits for m1 to release: nothing yet, and Heartbeat lets it wait (Kafka 4.4)
    assert _classic_assignment(c, classic_id, gen, 2) == []
    assert c.classic.heartbeat("g", classic_id, None, gen, 3) == E.NONE
    kept = parts(hb(c, "m1", 1, 4).assignment)
    assert len(kept) == 2
    # m1 still owns what it must give up: the classic member goes on waiting
    assert c.classic.heartbeat("g", classic_id, None, gen, 4) == E.NONE
    hb(c, "m1", 1, 5, owned={tid("t"): set(kept)})
    # released: now Heartbeat asks it to rejoin and take them
    assert c.classic.heartbeat("g", classic_id, None, gen, 5) == E.REBALANCE_IN_PROGRESS
    r = join(c.classic, member_id=classic_id, now=6).result()
    got = _classic_assignment(c, classic_id, r.generation_id, 7)
    assert sorted(got + kept) == [0, 1, 2, 3] and not set(got) & set(kept)
    assert c.classic.heartbeat("g", classic_id, None, r.generation_id, 8) == E.NONE
    # commits of the classic member are checked against its epoch as a generation
    om = OffsetAndMetadata(1, -1, "", 0)
    assert commit(c.classic, "g", classic_id, None, r.generation_id + 1, {("t", 0): om}, 9) == \
        {("t", 0): E.ILLEGAL_GENERATION}
    assert commit(c.classic, "g", classic_id, None, r.generation_id, {("t", 0): om}, 9) == \
        {("t", 0): E.NONE}
    # the last consumer-protocol member leaves: the group is classic again and rebalances
    hb(c, "m1", -1, 10)
    assert "g" not in c.groups
    group = c.classic.groups["g"]
    assert group.is_(GroupState.PREPARING_REBALANCE) and classic_id in group.members
    assert c.classic.fetch_offsets("g", [("t", 0)])[1][("t", 0)].offset == 1


def test_a_classic_member_must_rejoin_and_sync_within_its_rebalance_timeout():
    c, _ = setup(topics=(("t", 4),))
    hb(c, "m1", 0)
    r = join(c.classic, now=1, rebalance=5000).result()
    classic_id, gen = r.member_id, r.generation_id
    _classic_assignment(c, classic_id, gen, 2)
    kept = parts(hb(c, "m1", 1, 3).assignment)
    hb(c, "m1", 1, 4, owned={tid("t"): set(kept)})
    # told to rejoin; it goes on heartbeating (its session stays alive) but never rejoins
    assert c.classic.heartbeat("g", classic_id, None, gen, 5) == E.REBALANCE_IN_PROGRESS
    assert c.classic.heartbeat("g", classic_id, None, gen, 4000) == E.REBALANCE_IN_PROGRESS
    c.poll(5 + 5000 - 1)
    assert classic_id in c.groups["g"].members       # the first answer started the wait
    c.poll(5 + 5000)
    assert classic_id not in c.groups["g"].members
    # another classic member joins and never sends its SyncGroup
    r = join(c.classic, now=6000, rebalance=5000).result()
    assert r.error == E.NONE and r.member_id in c.groups["g"].members
    hb(c, "m1", c.groups["g"].members["m1"].member_epoch, 10_000)        # m1 stays
    c.poll(6000 + 5000)
    assert r.member_id not in c.groups["g"].members


def test_a_stable_classic_group_upgrades_when_a_consumer_protocol_member_joins():
    c, _ = setup(topics=(("t", 4),))
    futs = [join(c.classic, client_id=f"c{i}") for i in range(2)]
    now = drive(c.classic, futs)
    rs = [f.result() for f in futs]
    leader = next(r for r in rs if r.member_id == r.leader)
    from kafpy.coordinator.group.consumer.migration import ClassicMembers
    assignments = {rs[0].member_id: ClassicMembers._assignment_bytes(c, {tid("t"): {0, 1}}),
                   rs[1].member_id: ClassicMembers._assignment_bytes(c, {tid("t"): {2, 3}})}
    for r in rs:
        sync(c.classic, "g", r.member_id, r.generation_id, now=now,
             assignments=assignments if r is leader else None)
    assert c.classic.groups["g"].is_(GroupState.STABLE)
    new = hb(c, "m-new", 0, now + 1)
    assert new.error == E.NONE and "g" not in c.classic.groups
    group = c.groups["g"]
    assert {m for m, x in group.members.items() if x.uses_classic_protocol} == {r.member_id for r in rs}
    # the classic members keep their partitions until they rejoin and give some up
    assert parts(new.assignment) == []
    assert c.classic.heartbeat("g", rs[0].member_id, None, rs[0].generation_id, now + 2) == \
        E.REBALANCE_IN_PROGRESS
    for r in rs:   # eager members: they revoke everything, then rejoin
        j = join(c.classic, member_id=r.member_id, now=now + 3).result()
        assert j.error == E.NONE
    new = hb(c, "m-new", new.member_epoch, now + 4, owned={})
    owners = [p for x in group.members.values() for ps in x.assigned.values() for p in ps]
    assert len(owners) == len(set(owners))
    assert parts(new.assignment)


def test_migration_policy_disabled_keeps_protocols_apart():
    c, _ = setup(migration_policy="disabled")
    futs = [join(c.classic)]
    now = drive(c.classic, futs)
    r = futs[0].result()
    sync(c.classic, "g", r.member_id, r.generation_id, now=now, assignments={r.member_id: b""})
    assert hb(c, "m1", 0, now + 1).error == E.GROUP_ID_NOT_FOUND


def test_state_is_rebuilt_from_the_log_after_failover():
    log = InMemoryOffsetsLog()
    c, _ = setup(log=log)
    hb(c, "m1", 0, instance="i1")
    hb(c, "m2", 0, 1)
    r1 = hb(c, "m1", 1, 2)
    hb(c, "m1", 1, 3, owned={tid("t"): set(parts(r1.assignment))})
    commit(c.classic, "g", "m1", None, 2, {("t", 0): OffsetAndMetadata(9, -1, "", 0)}, 4)
    before = c.groups["g"]
    kinds = {int.from_bytes(k[:2], "big") for (k, _), _ in log.partitions[c.classic.partition_for("g")]
             if isinstance(k, bytes)}
    assert {3, 5, 6, 7, 8} <= kinds and kinds <= CONSUMER_KEY_VERSIONS | {1}
    c2, _ = setup(log=log)
    c2.classic.unload_partition(c2.classic.partition_for("g"))
    c2.classic.load_partition(c2.classic.partition_for("g"), 100)
    after = c2.groups["g"]
    assert (after.group_epoch, after.assignment_epoch) == (before.group_epoch, before.assignment_epoch)
    assert {m: (x.member_epoch, x.assigned, x.state, x.assignment_epochs) for m, x in after.members.items()} == \
        {m: (x.member_epoch, x.assigned, x.state, x.assignment_epochs) for m, x in before.members.items()}
    assert set(after.members["m1"].assignment_epochs.values()) == {1}     # kept since epoch 1
    assert after.target == before.target and after.static_members == {"i1": "m1"}
    assert c2.classic.fetch_offsets("g", [("t", 0)])[1][("t", 0)].offset == 9
    assert "g" not in c2.classic.groups
    # the members carry on where they were
    assert hb(c2, "m1", 2, 101).error == E.NONE


def test_uniform_assignor_is_balanced_and_sticky():
    a = UniformAssignor()
    members = [MemberSubscription(m, frozenset({b"A"})) for m in ("a", "b", "c")]
    first = a.assign(members, {b"A": 7}, {})
    assert sorted(len(x.get(b"A", ())) for x in first.values()) == [2, 2, 3]
    more = members + [MemberSubscription("d", frozenset({b"A"}))]
    second = a.assign(more, {b"A": 7}, first)
    moved = sum(len(first[m][b"A"] - second[m].get(b"A", set())) for m in first)
    assert moved <= 2 and sorted(len(x.get(b"A", ())) for x in second.values()) == [1, 2, 2, 2]


def test_range_assignor_lines_up_co_partitioned_topics():
    r = RangeAssignor()
    members = [MemberSubscription(m, frozenset({b"A", b"B"})) for m in ("m2", "m1")]
    out = r.assign(members, {b"A": 3, b"B": 3}, {})
    assert out["m1"] == {b"A": {0, 1}, b"B": {0, 1}} and out["m2"] == {b"A": {2}, b"B": {2}}


def test_member_picks_the_range_assignor():
    c, _ = setup(topics=(("t", 3),))
    hb(c, "m1", 0, assignor="range")
    assert c.groups["g"].preferred_assignor(c.default_assignor) == "range"


@pytest.mark.parametrize("value", ["uniform", "range,uniform",
                                   "org.apache.kafka.coordinator.group.assignor.UniformAssignor"])
def test_assignors_from_config(value):
    c, _ = setup(assignors=value)
    assert c.default_assignor in ("uniform", "range")


def test_an_empty_consumer_group_gives_way_to_a_classic_member():
    c, _ = setup()
    hb(c, "m1", 0)
    commit(c.classic, "g", "m1", None, 1, {("t", 0): OffsetAndMetadata(4, -1, "", 0)}, 1)
    hb(c, "m1", -1, 2)
    join(c.classic, now=3)
    assert "g" not in c.groups and "g" in c.classic.groups
    assert c.classic.fetch_offsets("g", [("t", 0)])[1][("t", 0)].offset == 4


def test_a_classic_member_needing_a_member_id_first_joins_with_it():
    c, _ = setup()
    hb(c, "m1", 0)
    r = join(c.classic, v4=True, now=1).result()
    assert r.error == E.MEMBER_ID_REQUIRED and r.member_id
    r2 = join(c.classic, member_id=r.member_id, v4=True, now=2).result()
    assert r2.error == E.NONE and r2.member_id in c.groups["g"].members


def test_per_group_overrides_of_session_timeout_and_heartbeat_interval():
    overrides = {"g": {"consumer.session.timeout.ms": "20000", "consumer.heartbeat.interval.ms": "2500"}}
    classic = make_coordinator()
    view = StaticTopics()
    view.add("t", 3, topic_id=tid("t"))
    c = ConsumerGroupCoordinator(classic, ConsumerGroupConfig(session_timeout_ms=SESSION),
                                 view, group_configs=lambda gid: overrides.get(gid, {}))
    classic.attach(consumer=c)
    assert hb(c, "m1", 0, 0).heartbeat_interval_ms == 2500
    assert hb(c, "x1", 0, 0, group="other").heartbeat_interval_ms == 5000
    classic.poll(SESSION + 1)
    assert "m1" in c.groups["g"].members and "x1" not in c.groups["other"].members
    classic.poll(20_000)
    assert "m1" not in c.groups["g"].members


def test_offsets_of_deleted_topics_leave_consumer_groups_too():
    c, _ = setup()
    hb(c, "m1", 0)
    commit(c.classic, "g", "m1", None, 1, {("t", 0): OffsetAndMetadata(3, -1, "", 0),
                                          ("u", 0): OffsetAndMetadata(5, -1, "", 0)}, 1)
    assert c.classic.on_topics_deleted(["t"], 2) == 1
    assert set(c.classic.fetch_offsets("g", None)[1]) == {("u", 0)}


def test_offsets_of_an_empty_consumer_group_expire_and_the_group_goes():
    c, _ = setup()
    hb(c, "m1", 0)
    commit(c.classic, "g", "m1", None, 1, {("t", 0): OffsetAndMetadata(3, -1, "", 0)}, 1)
    retention = c.classic.config.offsets_retention_ms
    assert c.classic.expire_offsets(retention + 5) == 0          # a member subscribes to t
    hb(c, "m1", -1, 2)
    assert c.classic.expire_offsets(retention - 1) == 0
    assert c.classic.expire_offsets(retention + 5) == 1
    assert "g" not in c.groups


def test_uniform_assignor_prefers_a_member_on_a_replica_rack():
    a = UniformAssignor()
    members = [MemberSubscription("a", frozenset({b"A"}), "r1"),
               MemberSubscription("b", frozenset({b"A"}), "r2")]
    racks = {b"A": [frozenset({"r2"}), frozenset({"r2"}), frozenset({"r1"}), frozenset({"r1"})]}
    out = a.assign(members, {b"A": 4}, {}, racks)
    assert out == {"a": {b"A": {2, 3}}, "b": {b"A": {0, 1}}}
    assert sorted(len(x[b"A"]) for x in a.assign(members, {b"A": 4}, {}).values()) == [2, 2]


def test_a_steady_heartbeat_writes_nothing_and_sends_no_assignment():
    log = InMemoryOffsetsLog()
    c, _ = setup(log=log)
    r = hb(c, "m1", 0)
    p = c.classic.partition_for("g")
    written = len(log.partitions[p])
    r = hb(c, "m1", r.member_epoch, 1)
    assert r.error == E.NONE and r.assignment is None
    assert len(log.partitions[p]) == written


def _regex_records(log, c, group="g"):
    """The ConsumerGroupRegularExpression records written so far: (regex, topics or None)."""
    from kafpy.coordinator.group.consumer import records as R
    out = []
    for (k, v), _ in log.partitions[c.classic.partition_for(group)]:
        if isinstance(k, bytes) and int.from_bytes(k[:2], "big") == R.REGULAR_EXPRESSION:
            _, _, regex, value = R.decode_record(k, v)
            out.append((regex, None if value is None else sorted(value.topics)))
    return out


def test_resolved_regexes_are_written_refreshed_tombstoned_and_replayed():
    log = InMemoryOffsetsLog()
    c, view = setup(topics=(("orders-1", 2), ("other", 1)), log=log)
    r1 = hb(c, "m1", 0, regex="orders-.*", topics=None)
    assert _regex_records(log, c) == [("orders-.*", ["orders-1"])]
    resolved = c.groups["g"].resolved_regexes["orders-.*"]
    assert resolved.topics == {"orders-1"} and resolved.timestamp_ms == 0
    # a second member on the same regex writes nothing new; an unrelated topic neither
    r2 = hb(c, "m2", 0, 1, regex="orders-.*", topics=None)
    view.add("unrelated", 1, topic_id=tid("unrelated"))
    hb(c, "m1", r1.member_epoch, 2)
    assert len(_regex_records(log, c)) == 1
    # a matching topic created: resolved again, written, the epoch moves
    epoch = c.groups["g"].group_epoch
    view.add("orders-2", 1, topic_id=tid("orders-2"))
    hb(c, "m1", r1.member_epoch, 3)
    assert _regex_records(log, c)[-1] == ("orders-.*", ["orders-1", "orders-2"])
    assert c.groups["g"].group_epoch == epoch + 1
    assert c.groups["g"].resolved_regexes["orders-.*"].timestamp_ms == 3
    # failover: the resolved regex comes back from the log
    c2, _ = setup(topics=(("orders-1", 2), ("other", 1), ("orders-2", 1)), log=log)
    c2.classic.unload_partition(c2.classic.partition_for("g"))
    c2.classic.load_partition(c2.classic.partition_for("g"), 100)
    assert c2.groups["g"].resolved_regexes["orders-.*"].topics == {"orders-1", "orders-2"}
    # one member moves to names: the regex stays (m2 uses it); when m2 leaves it goes
    hb(c, "m1", c.groups["g"].members["m1"].member_epoch, 4, topics=["other"], regex="")
    assert "orders-.*" in c.groups["g"].resolved_regexes
    hb(c, "m2", c.groups["g"].members["m2"].member_epoch, 5, topics=None)
    hb(c, "m2", -1, 6)
    assert _regex_records(log, c)[-1] == ("orders-.*", None)
    assert c.groups["g"].resolved_regexes == {}
    assert r2.error == E.NONE


def test_a_member_expiring_tombstones_its_regex():
    log = InMemoryOffsetsLog()
    c, _ = setup(topics=(("orders-1", 2),), log=log)
    hb(c, "m1", 0, regex="orders-.*", topics=None)
    c.groups["g"].members["m1"].session_deadline = 0
    # the member's session expires: its regex goes with it
    c.poll(SESSION + 1)
    assert _regex_records(log, c)[-1] == ("orders-.*", None)
    assert c.classic.delete_groups(["g"], SESSION + 2) == {"g": E.NONE}


def test_range_assignor_orders_static_members_first_by_instance_id():
    """Kafka 4.4's RangeAssignor.sortMemberIds: static members by instance id, then the
    dynamic ones by member id; co-partitioned topics line up member by member."""
    a = RangeAssignor()
    members = [MemberSubscription("a-dynamic", frozenset({b"A", b"B"})),
               MemberSubscription("z-static", frozenset({b"A", b"B"}), instance_id="i1"),
               MemberSubscription("m-static", frozenset({b"A", b"B"}), instance_id="i2")]
    out = a.assign(members, {b"A": 5, b"B": 5}, {})
    assert out["z-static"] == {b"A": {0, 1}, b"B": {0, 1}}
    assert out["m-static"] == {b"A": {2, 3}, b"B": {2, 3}}
    assert out["a-dynamic"] == {b"A": {4}, b"B": {4}}


def test_range_assignor_ignores_racks_as_kafka_does():
    """Kafka 4.4's server-side RangeAssignor does not read racksForPartition: the same
    ranges with or without racks."""
    a = RangeAssignor()
    members = [MemberSubscription("a", frozenset({b"A"}), "r1"),
               MemberSubscription("b", frozenset({b"A"}), "r2")]
    racks = {b"A": [frozenset({"r2"}), frozenset({"r2"}), frozenset({"r1"}), frozenset({"r1"})]}
    assert a.assign(members, {b"A": 4}, {}, racks) == a.assign(members, {b"A": 4}, {}) == \
        {"a": {b"A": {0, 1}}, "b": {b"A": {2, 3}}}


def test_a_replica_moving_to_another_rack_bumps_the_group_epoch():
    """Kafka 4.4 (KIP-1101) hashes each partition's replica racks into the group's
    metadata hash: a rack change gives the group a new epoch and assignment."""
    c, view = setup()
    r = hb(c, "m1", 0, assignor="range")
    epoch = c.groups["g"].group_epoch
    r = hb(c, "m1", r.member_epoch, 1)
    assert c.groups["g"].group_epoch == epoch          # nothing changed
    view.racks[tid("t")] = [frozenset({"r1"}), frozenset({"r2"}), frozenset({"r1"})]
    r = hb(c, "m1", r.member_epoch, 2)
    assert c.groups["g"].group_epoch == epoch + 1
    r = hb(c, "m1", r.member_epoch, 3)
    assert c.groups["g"].group_epoch == epoch + 1
    view.racks[tid("t")] = [frozenset({"r1"}), frozenset({"r1"}), frozenset({"r1"})]
    hb(c, "m1", r.member_epoch, 4)
    assert c.groups["g"].group_epoch == epoch + 2
