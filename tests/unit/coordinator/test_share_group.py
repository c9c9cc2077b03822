"""Share groups (KIP-932) in the group coordinator, with the clock passed in: joining,
epochs, the simple assignor sharing partitions between members, share-partition state
initialized through the persister before a partition is assigned, fencing, leaving,
session expiry, ListGroups / DeleteGroups, and the state rebuilt from the records in
`__consumer_offsets`."""
from __future__ import annotations

import asyncio

import pytest

from kafpy.coordinator.group import InMemoryOffsetsLog
from kafpy.coordinator.group.consumer.topics import StaticTopics
from kafpy.coordinator.share_state.persister import InMemoryPersister, SharePartitionKey
from kafpy.coordinator.group.share.assignor import assign
from kafpy.coordinator.group.share.config import ShareGroupConfig
from kafpy.coordinator.group.share.coordinator import ShareGroupCoordinator, topic_uuid
from kafpy.coordinator.group.share.records import SHARE_KEY_VERSIONS
from kafpy.protocol.errors import ErrorCode as E

from tests.unit.coordinator.helpers import join, make_coordinator

SESSION = 10_000
_HARNESSES: list = []


@pytest.fixture(autouse=True)
def _close_unrun_persister_calls():
    """Persister calls a test left unrun are closed, not leaked."""
    yield
    while _HARNESSES:
        for coro in _HARNESSES.pop().pending:
            coro.close()


def tid(name):
    return name.encode().ljust(16, b"\0")


class Harness:
    """A share coordinator over an in-memory log, with persister calls run on demand."""

    def __init__(self, topics=(("t", 3),), log=None, persister=None, **cfg):
        self.log = log if log is not None else InMemoryOffsetsLog()
        self.classic = make_coordinator(self.log)
        self.view = StaticTopics()
        for name, n in topics:
            self.view.add(name, n, topic_id=tid(name))
        self.persister = persister if persister is not None else InMemoryPersister()
        self.pending = []
        _HARNESSES.append(self)
        self.now = 0
        config = ShareGroupConfig(**{"session_timeout_ms": SESSION, "heartbeat_interval_ms": 1000,
                                     **cfg})
        self.share = ShareGroupCoordinator(self.classic, config, self.view,
                                           persister=lambda: self.persister,
                                           run_async=self.pending.append,
                                           clock_ms=lambda: self.now)
        self.classic.attach(share=self.share)

    def run_persister(self):
        while self.pending:
            asyncio.run(self.pending.pop(0))

    def hb(self, member, epoch, now=0, *, group="g", topics=None):
        self.now = now
        joining = epoch == 0
        fut = self.share.heartbeat(group, member, epoch,
                                   subscribed_topic_names=topics if topics is not None
                                   else (["t"] if joining else None),
                                   client_id="c", client_host="/127.0.0.1", now_ms=now)
        assert fut.done()
        return fut.result()

    def join_ready(self, member, now=0, **kw):
        """Join, let the persister initialize the partitions, heartbeat again."""
        r = self.hb(member, 0, now, **kw)
        self.run_persister()
        return self.hb(member, r.member_epoch, now + 1)


def parts(assignment, topic="t"):
    return sorted((assignment or {}).get(tid(topic), set()))


def test_partitions_are_assigned_once_their_share_state_is_initialized():
    h = Harness()
    r = h.hb("m1", 0)
    # the join and the partitions starting to initialize each move the epoch, as on Kafka 4.4
    assert r.error == E.NONE and r.member_id == "m1" and r.member_epoch == 2
    assert parts(r.assignment) == [] and r.heartbeat_interval_ms == 1000
    g = h.share.groups["g"]
    assert set(g.initializing[tid("t")].partitions) == {0, 1, 2}
    h.run_persister()
    assert not g.initializing and g.initialized[tid("t")].partitions == {0, 1, 2}
    key = SharePartitionKey("g", topic_uuid(tid("t")), 1)
    assert h.persister.states[key].start_offset == -1
    r = h.hb("m1", 2, 10)
    assert r.member_epoch == 3 and parts(r.assignment) == [0, 1, 2]
    # nothing changed: no assignment resent
    r = h.hb("m1", 3, 20)
    assert r.member_epoch == 3 and r.assignment is None
    assert g.state.value == "Stable"


def test_a_partition_is_shared_by_several_members():
    h = Harness(topics=(("t", 1),))
    h.join_ready("m1")
    for i, m in enumerate(["m2", "m3", "m4"]):
        h.hb(m, 0, 10 + i)
    epochs = {}
    for m in ["m1", "m2", "m3", "m4"]:
        member = h.share.groups["g"].members[m]
        r = h.hb(m, member.member_epoch, 100)
        epochs[m] = r.member_epoch
        assert h.share.groups["g"].members[m].assigned == {tid("t"): {0}}
    assert len(set(epochs.values())) == 1


def test_simple_assignor_shares_fairly():
    t = tid("t")
    one = assign({m: frozenset({t}) for m in "abcd"}, {t: [0]}, {})
    assert all(a == {t: {0}} for a in one.values())
    three = assign({m: frozenset({t}) for m in "abcd"}, {t: [0, 1, 2]}, {})
    counts = [len(a.get(t, ())) for a in three.values()]
    assert sum(counts) == 6 and max(counts) - min(counts) <= 1
    holders = {p: sum(p in a.get(t, ()) for a in three.values()) for p in range(3)}
    assert set(holders.values()) == {2}
    few = assign({"a": frozenset({t}), "b": frozenset({t})}, {t: [0, 1, 2, 3]}, {})
    assert sorted(len(a[t]) for a in few.values()) == [2, 2]
    assert few["a"][t] | few["b"][t] == {0, 1, 2, 3}
    # sticky: a third member takes partitions without the others losing everything
    more = assign({m: frozenset({t}) for m in "abc"}, {t: [0, 1, 2, 3]}, few)
    assert all(more[m][t] <= few[m][t] for m in "ab")


def test_fencing_unknown_member_and_errors():
    h = Harness()
    h.join_ready("m1")
    assert h.hb("m1", 7, 5).error == E.FENCED_MEMBER_EPOCH
    assert h.hb("m1", 2, 5).error == E.NONE          # the previous epoch is fine
    assert h.hb("m1", 1, 5).error == E.FENCED_MEMBER_EPOCH
    assert h.hb("zz", 2, 5).error == E.UNKNOWN_MEMBER_ID
    assert h.hb("m1", 1, 5, group="nope").error == E.GROUP_ID_NOT_FOUND
    assert h.hb("", 0, 5).error == E.INVALID_REQUEST
    assert h.hb("m9", 0, 5, topics=[]).error == E.INVALID_REQUEST
    r = h.hb("m9", -2, 5)
    assert (r.error, r.message) == (E.INVALID_REQUEST, "MemberEpoch is invalid.")
    assert h.hb("x" * 40, 0, 5).error == E.INVALID_REQUEST
    r = h.hb("m1", -1, 5, group="nope")
    assert (r.error, r.message) == (E.GROUP_ID_NOT_FOUND, "Group nope not found.")


def test_group_max_size():
    h = Harness(max_size=1)
    h.hb("m1", 0)
    r = h.hb("m2", 0)
    assert r.error == E.GROUP_MAX_SIZE_REACHED


def test_a_classic_group_id_is_not_a_share_group():
    h = Harness()
    fut = join(h.classic, "cg")
    assert fut is not None
    r = h.hb("m1", 0, group="cg")
    assert r.error == E.GROUP_ID_NOT_FOUND and "not a share group" in r.message


def test_leave_and_session_expiry_bump_the_epoch():
    h = Harness()
    h.join_ready("m1")
    h.join_ready("m2", 2)
    g = h.share.groups["g"]
    epoch = g.group_epoch
    r = h.hb("m2", -1, 10)
    assert r.error == E.NONE and r.member_epoch == -1 and "m2" not in g.members
    assert g.group_epoch == epoch + 1
    h.classic.poll(10 + SESSION + 5)
    assert not g.members and g.state.value == "Empty"


def test_list_and_delete_groups_delete_the_share_state():
    h = Harness()
    h.join_ready("m1")
    err, groups = h.classic.list_groups(types=["share"])
    assert [(o.group_id, o.protocol_type, o.state) for o in groups] == [("g", "share", "Stable")]
    assert h.classic.list_groups(types=["consumer"])[1] == []
    assert h.classic.delete_groups(["g"], 5) == {"g": E.NON_EMPTY_GROUP}
    h.hb("m1", h.share.groups["g"].members["m1"].member_epoch, 6)
    h.hb("m1", -1, 7)
    assert len(h.persister.states) == 3
    assert h.classic.delete_groups(["g"], 8) == {"g": E.NONE}
    h.run_persister()
    assert h.persister.states == {}
    assert "g" not in h.share.groups


def test_delete_groups_answers_after_the_share_state_is_deleted():
    """Kafka's deleteShareGroups: DeleteGroups deletes an empty share group's state first
    and answers the persister's error (the group stays) when it could not."""
    h = Harness()
    h.join_ready("m1")
    h.join_ready("m2", group="g2")
    h.hb("m1", -1, 7)
    h.hb("m2", -1, 7, group="g2")
    real = h.persister.delete_state

    async def failing(key):
        return E.COORDINATOR_NOT_AVAILABLE if key.group_id == "g2" else await real(key)
    h.persister.delete_state = failing
    failed = run(h.share.delete_groups_state(["g", "g2", "nope"], 8))
    assert failed == {"g2": E.COORDINATOR_NOT_AVAILABLE}
    assert {k.group_id for k in h.persister.states} == {"g2"}       # g's state is gone already
    assert h.classic.delete_groups(["g", "nope"], 8) == {"g": E.NONE, "nope": E.GROUP_ID_NOT_FOUND}
    assert not h.pending and "g" not in h.share.groups and "g2" in h.share.groups


def test_state_is_rebuilt_from_the_log():
    log = InMemoryOffsetsLog()
    h = Harness(log=log)
    h.join_ready("m1")
    h.join_ready("m2", 5)
    kinds = {int.from_bytes(k[:2], "big") for e, _ in log.partitions[h.classic.partition_for("g")]
             for k in [e[0]]}
    assert kinds <= SHARE_KEY_VERSIONS | {0, 1, 2} and {10, 11, 12, 13, 14, 15} <= kinds
    before = h.share.groups["g"]
    h2 = Harness(log=log)
    h2.classic.unload_partition(h2.classic.partition_for("g"))
    h2.classic.load_partition(h2.classic.partition_for("g"), 100)
    g = h2.share.groups["g"]
    assert (g.group_epoch, g.assignment_epoch) == (before.group_epoch, before.assignment_epoch)
    assert set(g.members) == {"m1", "m2"}
    assert g.initialized[tid("t")].partitions == {0, 1, 2}
    for m in ("m1", "m2"):
        assert g.members[m].assigned == before.members[m].assigned
        assert g.members[m].member_epoch == before.members[m].member_epoch
    # a loaded member keeps heartbeating at its epoch
    r = h2.hb("m1", g.members["m1"].member_epoch, 200)
    assert r.error == E.NONE
    assert not h2.pending and not h.pending


def test_classic_and_consumer_members_cannot_join_a_share_group():
    from kafpy.coordinator.group.consumer.config import ConsumerGroupConfig
    from kafpy.coordinator.group.consumer.coordinator import ConsumerGroupCoordinator
    h = Harness()
    h.hb("m1", 0)
    consumer = ConsumerGroupCoordinator(h.classic, ConsumerGroupConfig(), h.view)
    h.classic.attach(consumer=consumer)
    fut = consumer.heartbeat("g", "c1", 0, rebalance_timeout_ms=5000, subscribed_topic_names=["t"],
                             owned={}, now_ms=1)
    assert fut.result().error == E.GROUP_ID_NOT_FOUND
    assert join(h.classic, "g").result().error == E.INCONSISTENT_GROUP_PROTOCOL


def run(coro):
    return asyncio.run(coro)


def test_alter_describe_and_delete_share_group_offsets():
    h = Harness()
    # altering creates the (empty) group, as Kafka does, and initializes the state
    err, _, results = run(h.share.alter_offsets("g", {"t": {0: 5, 1: 7}, "nope": {0: 1}}, 1))
    assert err == E.NONE
    assert sorted((n, p, e) for n, _, p, e in results) == [
        ("nope", 0, E.UNKNOWN_TOPIC_OR_PARTITION), ("t", 0, E.NONE), ("t", 1, E.NONE)]
    g = h.share.groups["g"]
    assert g.initialized[tid("t")].partitions == {0, 1} and g.state.value == "Empty"
    described = run(h.share.describe_offsets("g", None))
    assert [(m.name, p, s.start_offset) for m, p, s in described] == [("t", 0, 5), ("t", 1, 7)]
    named = run(h.share.describe_offsets("g", [("t", [2]), ("zz", [0])]))
    assert named[0][2].start_offset == -1 and named[1][2] == E.UNKNOWN_TOPIC_OR_PARTITION
    # not while a member is in the group
    h.hb("m1", 0, 2)
    assert run(h.share.alter_offsets("g", {"t": {0: 1}}, 3))[0] == E.NON_EMPTY_GROUP
    assert run(h.share.delete_offsets("g", ["t"], 3))[0] == E.NON_EMPTY_GROUP
    h.hb("m1", -1, 4)
    h.run_persister()
    err, _, results = run(h.share.delete_offsets("g", ["t", "zz"], 5))
    assert err == E.NONE and sorted((n, e) for n, _, e in results) == [
        ("t", E.NONE), ("zz", E.UNKNOWN_TOPIC_OR_PARTITION)]
    assert tid("t") not in g.initialized and h.persister.states == {}
    assert run(h.share.delete_offsets("other", ["t"], 6))[0] == E.GROUP_ID_NOT_FOUND


def test_group_configs_validate_share_configs():
    from kafpy.broker import group_configs as gc
    broker = {"group.share.min.record.lock.duration.ms": 15000,
              "group.share.max.record.lock.duration.ms": 60000,
              "group.share.record.lock.duration.ms": 30000}
    gc.validate(broker, {"share.auto.offset.reset": "by_duration:PT1H",
                         "share.isolation.level": "read_committed",
                         "share.record.lock.duration.ms": "20000"})
    for bad in ({"share.auto.offset.reset": "first"}, {"share.isolation.level": "x"},
                {"share.record.lock.duration.ms": "1000"}, {"share.renew.acknowledge.enable": "yes"}):
        with pytest.raises(gc.InvalidGroupConfig):
            gc.validate(broker, bad)
    assert gc.share_config({}, broker, "share.record.lock.duration.ms") == "30000"
    assert gc.share_config({"share.auto.offset.reset": "earliest"}, broker,
                           "share.auto.offset.reset") == "earliest"
    assert gc.share_config({}, broker, "share.auto.offset.reset") == "latest"


def test_a_deleted_topic_leaves_the_share_groups_and_its_state_is_deleted():
    h = Harness(topics=(("t", 2), ("u", 1)))
    r = h.hb("m1", 0, topics=["t", "u"])
    h.run_persister()
    r = h.hb("m1", r.member_epoch, 1)
    assert parts(r.assignment) == [0, 1] and parts(r.assignment, "u") == [0]
    h.view.remove("u")
    h.classic.on_topics_deleted(["u"], 2)
    h.run_persister()
    g = h.share.groups["g"]
    assert tid("u") not in g.initialized
    assert {k.partition for k in h.persister.states} == {0, 1} and len(h.persister.states) == 2
    r = h.hb("m1", r.member_epoch, 3)
    assert r.assignment == {tid("t"): {0, 1}}


def test_describe_groups_sees_a_share_group_as_no_classic_group():
    h = Harness()
    h.hb("m1", 0)
    s = h.classic.describe_group("g")
    assert (s.state, s.protocol_type, s.members) == ("Dead", "", [])
    assert s.message == "Group g is not a classic group."


def test_per_group_session_timeout_and_heartbeat_interval():
    h = Harness()
    h.share._group_configs = lambda gid: ({"share.heartbeat.interval.ms": "2500",
                                           "share.session.timeout.ms": "50000"} if gid == "g" else {})
    r = h.hb("m1", 0)
    assert r.heartbeat_interval_ms == 2500
    assert h.hb("o1", 0, group="other").heartbeat_interval_ms == 1000
    h.classic.poll(SESSION + 1)                  # the broker's session would have expired
    assert "m1" in h.share.groups["g"].members and "o1" not in h.share.groups["other"].members
    h.classic.poll(50_001)
    assert not h.share.groups["g"].members
