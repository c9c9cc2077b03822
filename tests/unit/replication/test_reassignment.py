"""The pure rules of partition reassignment: RS = TRS + ORS with adding/removing, the
checks Kafka applies to a target, and when phase 2 may run."""
from __future__ import annotations

from kafpy.protocol.errors import ErrorCode
from kafpy.replication.reassignment import is_complete, origin_replicas, reassign_to, validate_target
from kafpy.replication.zk_data import ReplicaAssignment


def test_reassign_to_puts_target_first_and_splits_adding_and_removing():
    r = reassign_to(ReplicaAssignment((1, 2, 3)), [4, 3, 5])
    assert r == ReplicaAssignment((4, 3, 5, 1, 2), adding_replicas=(4, 5), removing_replicas=(1, 2))
    assert r.target_replicas == (4, 3, 5) and r.is_being_reassigned


def test_reassign_to_same_replicas_is_no_reassignment():
    assert reassign_to(ReplicaAssignment((1, 2)), [1, 2]) == ReplicaAssignment((1, 2))
    # a reorder only: nothing added or removed, the new order is kept
    assert reassign_to(ReplicaAssignment((1, 2)), [2, 1]) == ReplicaAssignment((2, 1))


def test_a_new_target_replaces_a_reassignment_in_progress_from_the_origin():
    moving = reassign_to(ReplicaAssignment((1, 2)), [3, 4])
    assert origin_replicas(moving) == (1, 2)
    again = reassign_to(moving, [1, 5])
    assert again == ReplicaAssignment((1, 5, 2), adding_replicas=(5,), removing_replicas=(2,))
    # cancelling is reassigning to the origin
    assert reassign_to(moving, origin_replicas(moving)) == ReplicaAssignment((1, 2))


def test_validate_target():
    cur = ReplicaAssignment((1, 2))
    live = {1, 2, 3}
    assert validate_target(cur, [2, 3], live) is None
    assert validate_target(cur, [], live) == (
        ErrorCode.INVALID_REPLICA_ASSIGNMENT, "Empty replica list specified in partition reassignment.")
    assert validate_target(cur, [3, 3], live) == (
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "Duplicate replica ids in partition reassignment replica list: [3, 3]")
    assert validate_target(cur, [-1], live)[0] == ErrorCode.INVALID_REPLICA_ASSIGNMENT
    assert validate_target(cur, [2, 9], live) == (
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        "Replica assignment has brokers that are not alive. Replica list: [9], live broker list: [1, 2, 3]")
    # a dead broker that already holds a replica may stay
    assert validate_target(ReplicaAssignment((1, 9)), [9, 1], live) is None


def test_complete_once_every_target_replica_is_in_the_isr():
    r = reassign_to(ReplicaAssignment((1, 2)), [2, 3])
    assert not is_complete(r, (1, 2))
    assert is_complete(r, (1, 2, 3))
    assert is_complete(r, (2, 3))
