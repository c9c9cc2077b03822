"""The Streams group protocol (KIP-1071) state machine with the clock passed in: the
topology checked against the topics (missing source topics, internal topics to create,
partition counts derived), epochs, the sticky task assignor with standby tasks over
processes, revoke-first reconciliation of active tasks, static membership, session
expiry, offsets validated by member epoch, and the state rebuilt from the Streams*
records in `__consumer_offsets`."""
from __future__ import annotations

from kafpy.coordinator.group import InMemoryOffsetsLog, OffsetAndMetadata
from kafpy.coordinator.group.consumer.topics import StaticTopics
from kafpy.coordinator.group.records import decode_key
from kafpy.coordinator.group.streams.assignor import AssignmentMember, assign
from kafpy.coordinator.group.streams.config import StreamsGroupConfig
from kafpy.coordinator.group.streams.coordinator import StreamsGroupCoordinator
from kafpy.coordinator.group.streams.group import MemberState, Tasks
from kafpy.coordinator.group.streams.records import STREAMS_KEY_VERSIONS
from kafpy.coordinator.group.streams.topology import (
    INCORRECTLY_PARTITIONED_TOPICS, MISSING_INTERNAL_TOPICS, MISSING_SOURCE_TOPICS,
    STALE_TOPOLOGY, CopartitionGroup, StreamsTopology, Subtopology, TopicInfo, configure)
from kafpy.protocol.errors import ErrorCode as E

from tests.unit.coordinator.helpers import commit, join, make_coordinator

SESSION = 10_000
CHANGELOG = TopicInfo("app-store-changelog", 0, 0, (("cleanup.policy", "compact"),))
REPARTITION = TopicInfo("app-store-repartition")
# word count: subtopology 0 reads "in" and writes the repartition topic, 1 counts into a store
WORD_COUNT = StreamsTopology(1, (
    Subtopology("0", ("in",), repartition_sink_topics=("app-store-repartition",)),
    Subtopology("1", repartition_source_topics=(REPARTITION,), state_changelog_topics=(CHANGELOG,)),
))


def setup(topics=(("in", 2),), log=None, internal=True, **cfg):
    classic = make_coordinator(log)
    view = StaticTopics()
    for name, n in topics:
        view.add(name, n, topic_id=name.encode().ljust(16, b"\0"))
    if internal:
        view.add("app-store-repartition", 2, topic_id=b"r" * 16)
        view.add("app-store-changelog", 2, topic_id=b"c" * 16)
    config = StreamsGroupConfig(**{"session_timeout_ms": SESSION, "heartbeat_interval_ms": 1000,
                                   "initial_rebalance_delay_ms": 0, "assignment_interval_ms": 0,
                                   **cfg})
    coordinator = StreamsGroupCoordinator(classic, config, view)
    classic.attach(streams=coordinator)
    return coordinator, view


def hb(c, member, epoch, now=0, *, group="g", owned=None, topology=WORD_COUNT, process=None,
       instance=None, endpoint_epoch=-1, endpoint=None):
    joining = epoch == 0
    fut = c.heartbeat(group, member, epoch, endpoint_information_epoch=endpoint_epoch,
                      instance_id=instance, rebalance_timeout_ms=5000 if joining else -1,
                      topology=topology if joining else None, owned=owned,
                      process_id=(process or f"p-{member}") if joining else None,
                      user_endpoint=endpoint, client_id="c", client_host="/127.0.0.1",
                      now_ms=now)
    assert fut.done()
    return fut.result()


def active(r_or_tasks):
    t = r_or_tasks.tasks if hasattr(r_or_tasks, "tasks") else r_or_tasks
    return sorted((s, p) for s, ps in (t.active if t else {}).items() for p in ps)


def test_first_member_gets_every_task_at_epoch_one():
    c, _ = setup()
    r = hb(c, "m1", 0)
    assert r.error == E.NONE and r.member_id == "m1" and r.member_epoch == 1
    assert active(r) == [("0", 0), ("0", 1), ("1", 0), ("1", 1)]
    assert r.status == [] and r.heartbeat_interval_ms == 1000 and not r.topics_to_create
    group = c.groups["g"]
    assert group.group_epoch == group.assignment_epoch == 1
    assert group.state.value == "Stable" and group.validated_topology_epoch == 1


def test_missing_source_topic_answers_the_status_and_no_tasks():
    c, view = setup(topics=())
    r = hb(c, "m1", 0)
    assert r.error == E.NONE and r.status[0][0] == MISSING_SOURCE_TOPICS
    assert "in" in r.status[0][1] and active(r) == []
    assert c.groups["g"].state.value == "NotReady"
    view.add("in", 2, topic_id=b"i" * 16)
    r = hb(c, "m1", r.member_epoch, 1)
    assert r.status == [] and len(active(r)) == 4


def test_internal_topics_are_named_for_creation_with_derived_partition_counts():
    c, view = setup(topics=(("in", 3),), internal=False)
    r = hb(c, "m1", 0)
    assert [s for s, _ in r.status] == [MISSING_INTERNAL_TOPICS] and active(r) == []
    created = {t.name: (t.partitions, t.configs) for t in r.topics_to_create}
    # the repartition topic takes its writer's source count; the changelog its tasks'
    assert created == {"app-store-repartition": (3, ()),
                       "app-store-changelog": (3, (("cleanup.policy", "compact"),))}
    view.add("app-store-repartition", 3, topic_id=b"r" * 16)
    view.add("app-store-changelog", 3, topic_id=b"c" * 16)
    r = hb(c, "m1", r.member_epoch, 1)
    assert r.status == [] and len(active(r)) == 6 and not r.topics_to_create


def test_copartitioned_sources_must_have_equal_partition_counts():
    t = StreamsTopology(1, (Subtopology("0", ("a", "b"), copartition_groups=(
        CopartitionGroup(source_topics=(0, 1)),)),))
    view = StaticTopics()
    view.add("a", 2)
    view.add("b", 3)
    assert configure(t, view).status[0] == INCORRECTLY_PARTITIONED_TOPICS
    view.add("b", 2)
    assert configure(t, view).ready and configure(t, view).task_counts == {"0": 2}


def test_second_member_waits_for_the_first_to_revoke_active_tasks():
    c, _ = setup()
    hb(c, "m1", 0)
    r2 = hb(c, "m2", 0, 1)
    assert r2.member_epoch == 2 and active(r2) == []
    assert c.groups["g"].members["m2"].state == MemberState.UNRELEASED_TASKS
    r1 = hb(c, "m1", 1, 2)
    kept = active(r1)
    assert r1.member_epoch == 1 and len(kept) == 2
    assert c.groups["g"].members["m1"].state == MemberState.UNREVOKED_TASKS
    everything = Tasks({"0": {0, 1}, "1": {0, 1}})
    assert hb(c, "m1", 1, 3, owned=everything).member_epoch == 1       # not revoked yet
    mine = Tasks({s: {p for s2, p in kept if s2 == s} for s in ("0", "1")})
    r1 = hb(c, "m1", 1, 4, owned=mine)
    assert r1.member_epoch == 2 and c.groups["g"].members["m1"].state == MemberState.STABLE
    r2 = hb(c, "m2", 2, 5)
    assert sorted(active(r2) + kept) == active(everything)
    assert c.groups["g"].state.value == "Stable"


def test_no_active_task_is_ever_held_by_two_members():
    c, view = setup(topics=(("in", 8),), internal=False)
    view.add("app-store-repartition", 8)
    view.add("app-store-changelog", 8)
    members = [f"m{i}" for i in range(4)]
    epochs = {}
    held = {}
    for now, m in enumerate(members):
        r = hb(c, m, 0, now)
        epochs[m], held[m] = r.member_epoch, r.tasks or Tasks()
    for step in range(40):
        m = members[step % 4]
        r = hb(c, m, epochs[m], 100 + step, owned=held[m])
        epochs[m] = r.member_epoch
        if r.tasks is not None:
            held[m] = r.tasks
        owners = {}
        for mm, t in held.items():
            for task in active(t):
                assert task not in owners, f"{task} held by {owners[task]} and {mm}"
                owners[task] = mm
    assert c.groups["g"].state.value == "Stable"
    assert sorted(len(active(t)) for t in held.values()) == [4, 4, 4, 4]


def test_standby_tasks_go_to_another_process():
    c, _ = setup(num_standby_replicas=1)
    hb(c, "a", 0, process="p1")
    hb(c, "b", 0, 1, process="p2")
    target = c.groups["g"].target
    for m, other in (("a", "b"), ("b", "a")):
        # the stateful subtopology's tasks active on one process are standby on the other
        assert target[m].standby.get("1", set()) == target[other].active.get("1", set())
        assert "0" not in target[m].standby     # stateless: no standby


ONE_STORE = StreamsTopology(1, (Subtopology(
    "0", ("in",), state_changelog_topics=(TopicInfo("app-one-changelog"),)),))


def _one_store_group():
    c, view = setup(topics=(("in", 1),), internal=False, num_standby_replicas=1)
    view.add("app-one-changelog", 1, topic_id=b"o" * 16)
    return c


def test_an_active_task_waits_while_another_thread_of_its_process_keeps_it_as_standby():
    c = _one_store_group()
    assert active(hb(c, "a1", 0, process="p1", topology=ONE_STORE)) == [("0", 0)]
    r = hb(c, "zb1", 0, 1, process="p2", topology=ONE_STORE)
    assert r.tasks.standby == {"0": {0}}
    hb(c, "ab2", 0, 2, process="p2", topology=ONE_STORE)
    hb(c, "a1", -1, 3)                        # the active moves to p2's other thread
    group = c.groups["g"]
    r2 = hb(c, "ab2", group.members["ab2"].member_epoch, 4)
    assert group.target["ab2"].active == {"0": {0}} and not group.target["zb1"].standby
    assert active(r2) == [] and group.members["ab2"].state == MemberState.UNRELEASED_TASKS
    r1 = hb(c, "zb1", group.members["zb1"].member_epoch, 5)
    assert r1.tasks.standby == {}             # told to give its standby up
    hb(c, "zb1", group.members["zb1"].member_epoch, 6, owned=Tasks())
    r2 = hb(c, "ab2", group.members["ab2"].member_epoch, 7)
    assert active(r2) == [("0", 0)] and group.members["ab2"].state == MemberState.STABLE


def test_a_standby_task_waits_while_another_thread_of_its_process_runs_it():
    c = _one_store_group()
    hb(c, "a1", 0, process="p1", topology=ONE_STORE)
    hb(c, "a2", 0, 1, process="p1", topology=ONE_STORE)
    hb(c, "b1", 0, 2, process="p2", topology=ONE_STORE)
    group = c.groups["g"]
    # a target moving the active task to p2 and its standby to a1's fellow thread a2
    group.group_epoch += 1
    group.assignment_epoch = group.group_epoch
    group.target = {"a1": Tasks(), "a2": Tasks(standby={"0": {0}}), "b1": Tasks(active={"0": {0}})}
    r = hb(c, "a2", group.members["a2"].member_epoch, 3)
    assert r.error == E.NONE and not group.members["a2"].tasks.standby
    assert group.members["a2"].state == MemberState.UNRELEASED_TASKS
    hb(c, "a1", group.members["a1"].member_epoch, 4)
    assert group.members["a1"].state == MemberState.UNREVOKED_TASKS
    hb(c, "a1", group.members["a1"].member_epoch, 5, owned=Tasks())
    r = hb(c, "a2", group.members["a2"].member_epoch, 6)
    assert r.tasks.standby == {"0": {0}} and group.members["a2"].state == MemberState.STABLE
    # b1 gives its standby copy up first, then runs the task
    hb(c, "b1", group.members["b1"].member_epoch, 7)
    hb(c, "b1", group.members["b1"].member_epoch, 8, owned=Tasks())
    assert active(group.members["b1"].tasks) == [("0", 0)]


def test_assignor_is_balanced_and_sticky():
    members = [AssignmentMember(m, f"p{m}") for m in "abc"]
    first = assign(members, {"0": 4, "1": 3}, {})
    assert sorted(sum(len(ps) for ps in t.active.values()) for t in first.values()) == [2, 2, 3]
    more = members + [AssignmentMember("d", "pd")]
    second = assign(more, {"0": 4, "1": 3}, first)
    moved = sum(1 for m in "abc" for s, ps in first[m].active.items()
                for p in ps if p not in second[m].active.get(s, ()))
    assert moved == 1 and sum(len(ps) for ps in second["d"].active.values()) == 1


def test_topology_epoch_behind_the_group_is_stale():
    c, _ = setup()
    hb(c, "m1", 0)
    older = StreamsTopology(0, WORD_COUNT.subtopologies)
    r = hb(c, "m2", 0, 1, topology=older)
    assert (STALE_TOPOLOGY, r.status[0][1]) == r.status[0]


def test_a_changed_topology_is_refused_as_kafka_does():
    c, _ = setup()
    hb(c, "m1", 0)
    hb(c, "m1", -1, 1)                                 # the application stops
    # restarted with another topology, at the epoch 4.4 clients always send
    changed = StreamsTopology(1, WORD_COUNT.subtopologies[:1])
    r = hb(c, "m1b", 0, 2, topology=changed)
    assert (r.error, r.message) == (E.INVALID_REQUEST, "Topology updates are not supported yet.")
    assert c.groups["g"].topology == WORD_COUNT and "m1b" not in c.groups["g"].members
    r = hb(c, "m1c", 0, 3, topology=StreamsTopology(2, WORD_COUNT.subtopologies))
    assert r.error == E.INVALID_REQUEST                # a newer epoch is no update either
    assert hb(c, "m1d", 0, 4).error == E.NONE          # the same topology joins


def test_member_leaves_and_its_session_expires():
    c, _ = setup()
    hb(c, "m1", 0)
    hb(c, "m2", 0, 1)
    r = hb(c, "m2", -1, 2)
    assert r.error == E.NONE and r.member_epoch == -1 and "m2" not in c.groups["g"].members
    c.poll(SESSION + 5)
    assert not c.groups["g"].members and c.groups["g"].state.value == "Empty"
    assert hb(c, "m1", 1, SESSION + 6).error == E.UNKNOWN_MEMBER_ID


def test_static_member_keeps_its_tasks_across_a_restart():
    c, _ = setup()
    r = hb(c, "a1", 0, instance="i1", process="p1")
    assert len(active(r)) == 4
    epoch = c.groups["g"].group_epoch
    assert hb(c, "a1", -2, 1, instance="i1").error == E.NONE
    # the same instance restarted (its process id is kept in its state directory)
    assert hb(c, "x", 0, 2, instance="i1", process="p1").error == E.NONE
    assert len(active(c.groups["g"].members["x"].tasks)) == 4
    assert c.groups["g"].group_epoch == epoch
    assert hb(c, "y", 0, 3, instance="i1").error == E.UNRELEASED_INSTANCE_ID


def test_static_members_rejoin_fencing_and_leave_as_kafka():
    c, _ = setup()
    hb(c, "s1", 0, instance="i1", process="p1")
    # live under its own id: its instance is not released
    r = hb(c, "s1", 0, 1, instance="i1", process="p1")
    assert r.error == E.UNRELEASED_INSTANCE_ID and "owned by s1 member" in r.message
    # another member id naming the live instance is fenced; the owner stays
    r = hb(c, "other", 1, 2, instance="i1")
    assert r.error == E.FENCED_INSTANCE_ID and r.message.endswith("was fenced by member s1.")
    assert hb(c, "other", -1, 2, instance="i1").error == E.FENCED_INSTANCE_ID
    assert hb(c, "other", -1, 2, instance="i9").error == E.UNKNOWN_MEMBER_ID
    assert hb(c, "other", -1, 2, group="nowhere").error == E.GROUP_ID_NOT_FOUND
    assert "s1" in c.groups["g"].members
    # m2 joins; s1 must give tasks up, then leaves for a while without revoking them:
    # m2 takes them at once (not when s1's session expires)
    hb(c, "m2", 0, 3)
    r1 = hb(c, "s1", 1, 4, instance="i1")
    assert c.groups["g"].members["s1"].state == MemberState.UNREVOKED_TASKS
    kept = active(r1)
    assert hb(c, "s1", -2, 5, instance="i1").error == E.NONE
    r2 = hb(c, "m2", 2, 6)
    assert active(r2) and not set(active(r2)) & set(kept)
    assert sorted(active(r2) + kept) == [("0", 0), ("0", 1), ("1", 0), ("1", 1)]
    # and the static member is not removed for not revoking in time
    c.poll(5 + 5000 + 1)
    assert "s1" in c.groups["g"].members


def test_invalid_requests_and_fenced_epochs():
    c, _ = setup()
    assert hb(c, "", 0).error == E.INVALID_REQUEST
    assert hb(c, "m1", 0, topology=None).error == E.INVALID_REQUEST
    assert hb(c, "m1", 3).error == E.UNKNOWN_MEMBER_ID
    hb(c, "m1", 0)
    assert hb(c, "m1", 5, 1).error == E.FENCED_MEMBER_EPOCH


def test_the_previous_epoch_is_taken_only_for_tasks_the_member_was_given_in_every_role():
    c, _ = setup(num_standby_replicas=1)
    hb(c, "a", 0, process="p1")
    hb(c, "b", 0, 1, process="p2")
    group = c.groups["g"]
    a = group.members["a"]
    # a moved on to the next epoch (same target) and its answer was lost
    previous = a.member_epoch
    a.previous_member_epoch = previous
    group.group_epoch = group.assignment_epoch = a.member_epoch = previous + 1
    given = a.tasks.copy()
    assert hb(c, "a", previous, 2, owned=given).error == E.NONE
    assert (a.previous_member_epoch, a.member_epoch) == (previous, previous + 1)
    # a standby (or warm-up) task it was not given, at the previous epoch: fenced (Kafka 4.4)
    not_given = Tasks(given.active, {"1": {0, 1}} if not given.standby else {"9": {0}})
    assert hb(c, "a", previous, 3, owned=not_given).error == E.FENCED_MEMBER_EPOCH
    assert hb(c, "a", previous, 4,
              owned=Tasks(given.active, given.standby, {"9": {0}})).error == E.FENCED_MEMBER_EPOCH


def test_endpoints_are_sent_when_the_member_is_behind():
    c, _ = setup()
    r = hb(c, "m1", 0, endpoint=("h1", 8080))
    r = hb(c, "m1", 1, 1, endpoint_epoch=-1)
    assert r.partitions_by_endpoint is not None
    host, port, act, _standby = r.partitions_by_endpoint[0]
    assert (host, port) == ("h1", 8080) and act == {"in": [0, 1], "app-store-repartition": [0, 1]}
    r = hb(c, "m1", 1, 2, endpoint_epoch=r.endpoint_information_epoch)
    assert r.partitions_by_endpoint is None


def test_offset_commits_are_checked_against_the_member_epoch():
    c, _ = setup()
    hb(c, "m1", 0)
    tp = {("in", 0): OffsetAndMetadata(5, -1, "", 0)}
    assert commit(c.classic, "g", "m1", None, 0, tp, 1) == {("in", 0): E.STALE_MEMBER_EPOCH}
    assert commit(c.classic, "g", "zz", None, 1, tp, 1) == {("in", 0): E.UNKNOWN_MEMBER_ID}
    assert commit(c.classic, "g", "m1", None, 1, tp, 1) == {("in", 0): E.NONE}
    assert c.classic.fetch_offsets("g", [("in", 0)])[1][("in", 0)].offset == 5


def test_list_describe_and_delete():
    c, _ = setup()
    hb(c, "m1", 0)
    err, groups = c.classic.list_groups(types=["streams"])
    assert [(g.group_id, g.group_type, g.state) for g in groups] == [("g", "streams", "Stable")]
    assert c.classic.list_groups(types=["consumer"])[1] == []
    assert c.classic.describe_group("g").state == "Dead"      # not a classic group
    joined = join(c.classic, "g", "", now=1).result()
    assert joined.error == E.GROUP_ID_NOT_FOUND and "g" not in c.classic.groups
    d = c.describe("g")
    assert d.error == E.NONE and d.topology == WORD_COUNT and len(d.members) == 1
    assert c.classic.delete_groups(["g"], 1) == {"g": E.NON_EMPTY_GROUP}
    hb(c, "m1", -1, 2)
    assert c.classic.delete_groups(["g"], 3) == {"g": E.NONE} and "g" not in c.groups


def test_state_is_rebuilt_from_the_log_after_failover():
    log = InMemoryOffsetsLog()
    c, _ = setup(log=log)
    hb(c, "m1", 0, instance="i1")
    hb(c, "m2", 0, 1)
    r1 = hb(c, "m1", 1, 2)
    hb(c, "m1", 1, 3, owned=r1.tasks)
    commit(c.classic, "g", "m1", None, 2, {("in", 0): OffsetAndMetadata(9, -1, "", 0)}, 4)
    before = c.groups["g"]
    p = c.classic.partition_for("g")
    kinds = {int.from_bytes(k[:2], "big") for (k, _), _ in log.partitions[p] if isinstance(k, bytes)}
    assert {17, 19, 20, 21, 22, 23} <= kinds and kinds <= STREAMS_KEY_VERSIONS | {1}
    assert all(decode_key(k) is None for (k, _), _ in log.partitions[p]
               if int.from_bytes(k[:2], "big") in STREAMS_KEY_VERSIONS)
    c2, _ = setup(log=log)
    c2.classic.unload_partition(p)
    c2.classic.load_partition(p, 100)
    after = c2.groups["g"]
    assert (after.group_epoch, after.assignment_epoch, after.topology) == \
        (before.group_epoch, before.assignment_epoch, before.topology)
    assert {m: (x.member_epoch, x.tasks, x.state, x.process_id) for m, x in after.members.items()} == \
        {m: (x.member_epoch, x.tasks, x.state, x.process_id) for m, x in before.members.items()}
    assert after.target == before.target and after.static_members == {"i1": "m1"}
    assert c2.classic.fetch_offsets("g", [("in", 0)])[1][("in", 0)].offset == 9
    assert "g" not in c2.classic.groups
    r = hb(c2, "m1", 2, 101)
    assert r.error == E.NONE and r.member_epoch == 2


def test_kafka_internal_topics_and_illegal_names_make_an_invalid_topology():
    from kafpy.broker.handlers.streams_group import _invalid_topology
    from kafpy.protocol.messages import StreamsGroupHeartbeatRequest as Q

    def topology(*sources):
        return Q.Topology(epoch=1, subtopologies=[Q.Subtopology(
            subtopology_id="0", source_topics=list(sources), source_topic_regex=[],
            state_changelog_topics=[], repartition_sink_topics=[], repartition_source_topics=[],
            copartition_groups=[])])
    assert _invalid_topology(topology("in")) is None
    assert _invalid_topology(topology("__consumer_offsets")) == (
        "Use of Kafka internal topics __consumer_offsets in a Kafka Streams topology is prohibited.")
    assert _invalid_topology(topology("in", "bad name")) == (
        "Topic names bad name are not valid topic names.")


def test_a_new_group_waits_the_initial_rebalance_delay_for_more_members():
    c, _ = setup(initial_rebalance_delay_ms=3000)
    r = hb(c, "m1", 0)
    # an epoch without tasks meanwhile (ASSIGNMENT_DELAYED)
    assert r.member_epoch == 1 and active(r) == [] and r.status[0][0] == 5
    r2 = hb(c, "m2", 0, 1000)
    assert r2.member_epoch == 2 and r2.status[0][0] == 5 and active(r2) == []
    c.poll(3000)            # the delay ends: one target for both members
    group = c.groups["g"]
    assert group.assignment_epoch == group.group_epoch == 3
    r = hb(c, "m1", r.member_epoch, 3100)
    r2 = hb(c, "m2", r2.member_epoch, 3200)
    assert r.status == [] and len(active(r)) == 2 and len(active(r2)) == 2


def test_offsets_of_an_empty_group_expire_and_the_group_goes():
    c, _ = setup()
    hb(c, "m1", 0)
    commit(c.classic, "g", "m1", None, 1, {("in", 0): OffsetAndMetadata(5, -1, "", 0)}, 1)
    retention = c.classic.config.offsets_retention_ms
    assert c.classic.expire_offsets(retention + 10) == 0      # a member reads "in"
    hb(c, "m1", -1, 2)
    assert c.classic.expire_offsets(retention + 10) == 1
    assert "g" not in c.groups
