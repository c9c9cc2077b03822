"""TxnOffsetCommit in the group coordinator: offsets pending per producer until its marker,
UNSTABLE_OFFSET_COMMIT for require_stable fetches meanwhile, member checks, and replay of
transactional offsets and markers when a partition is loaded."""
from __future__ import annotations

from kafpy.protocol.errors import ErrorCode as E

from kafpy.coordinator.group import InMemoryOffsetsLog, OffsetAndMetadata
from tests.unit.coordinator.helpers import make_coordinator, stable_group

TP = ("t", 0)


def txn_commit(c, group: str, pid: int, offset: int, member: str = "", gen: int = -1, instance=None,
               tp=TP, epoch: int = 0) -> dict:
    fut = c.txn_commit_offsets(group, pid, epoch, member, instance, gen, {tp: OffsetAndMetadata(offset)}, 1)
    assert fut.done()
    return fut.result()


def fetch(c, group: str, stable: bool = True):
    err, got = c.fetch_offsets(group, [TP], stable)
    assert err == E.NONE
    return got[TP]


def test_offsets_become_visible_on_commit_and_vanish_on_abort():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log)
    assert txn_commit(c, "g", 7, 10) == {TP: E.NONE}
    assert fetch(c, "g").error == E.UNSTABLE_OFFSET_COMMIT
    assert fetch(c, "g", stable=False).offset == -1
    c.complete_transaction(7, [c.partition_for("g")], committed=True)
    assert (fetch(c, "g").offset, fetch(c, "g").error) == (10, E.NONE)
    assert txn_commit(c, "g", 7, 20) == {TP: E.NONE}
    c.complete_transaction(7, [c.partition_for("g")], committed=False)
    assert (fetch(c, "g").offset, fetch(c, "g").error) == (10, E.NONE)


def test_markers_of_other_partitions_or_producers_leave_offsets_pending():
    c = make_coordinator()
    txn_commit(c, "g", 7, 10)
    c.complete_transaction(8, [c.partition_for("g")], committed=True)
    c.complete_transaction(7, [c.partition_for("g") + 1], committed=True)
    assert fetch(c, "g").error == E.UNSTABLE_OFFSET_COMMIT


def test_member_checks_from_v3():
    c = make_coordinator()
    ids, gen, _ = stable_group(c, 1)
    assert txn_commit(c, "g", 7, 1, member=ids[0], gen=gen) == {TP: E.NONE}
    assert txn_commit(c, "g", 7, 1, member=ids[0], gen=gen + 1) == {TP: E.ILLEGAL_GENERATION}
    assert txn_commit(c, "g", 7, 1, member="nobody", gen=gen) == {TP: E.UNKNOWN_MEMBER_ID}
    assert txn_commit(c, "g", 7, 1, member=ids[0], gen=gen, instance="i") == {TP: E.UNKNOWN_MEMBER_ID}
    # v0-v2 carry no member: accepted even while the group has members
    assert txn_commit(c, "g", 7, 1) == {TP: E.NONE}


def test_a_failed_write_drops_the_pending_offsets():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log)
    log.fail_with = E.NOT_ENOUGH_REPLICAS
    assert txn_commit(c, "g", 7, 10) == {TP: E.COORDINATOR_NOT_AVAILABLE}
    assert fetch(c, "g").error == E.NONE


def test_load_replays_transactional_offsets_and_their_markers():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log)
    p = c.partition_for("g")
    txn_commit(c, "g", 7, 10)
    log.append_marker(p, 7, committed=True)
    txn_commit(c, "g", 8, 20)
    log.append_marker(p, 8, committed=False)
    txn_commit(c, "g", 9, 30)  # still open
    fresh = make_coordinator(log, offsets_topic_num_partitions=c.config.offsets_topic_num_partitions)
    fresh.unload_partition(p)
    fresh.load_partition(p, 2)
    assert fetch(fresh, "g").error == E.UNSTABLE_OFFSET_COMMIT
    assert fetch(fresh, "g", stable=False).offset == 10
    fresh.complete_transaction(9, [p], committed=True)
    assert fetch(fresh, "g").offset == 30
