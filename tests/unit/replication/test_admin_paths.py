"""The pure parts of the legacy admin znodes: which partitions a preferred election from
``/admin/preferred_replica_election`` moves (and why the others are skipped), the znodes'
Kafka JSON, and the checks a ``/admin/reassign_partitions`` target gets."""
from __future__ import annotations

import json

from kafpy.protocol.errors import ErrorCode
from kafpy.replication import controller_events as ce
from kafpy.replication import zk_data as zd
from kafpy.replication.controller_context import ControllerContext
from kafpy.replication.leader_and_isr import LeaderAndIsr
from kafpy.replication.leader_elections import ZkPreferredReplicaElection, preferred_election_targets
from kafpy.replication.reassignment import validate_zk_target


def context() -> ControllerContext:
    ctx = ControllerContext()
    ctx.set_topic("t", zd.TopicAssignment.of(None, {0: [2, 1], 1: [1, 2], 2: [3, 1]}), b"t" * 16)
    ctx.set_topic("gone", zd.TopicAssignment.of(None, {0: [2, 1]}), b"g" * 16)
    ctx.topics_to_be_deleted.add("gone")
    for tp, leader in {("t", 0): 1, ("t", 1): 1, ("t", 2): 1, ("gone", 0): 1}.items():
        ctx.leadership[tp] = zd.LeaderIsrAndControllerEpoch(LeaderAndIsr(leader, 0, (1, 2)), 1)
    return ctx


def test_preferred_election_targets_sorts_partitions_as_kafka_does():
    electable, skipped = preferred_election_targets(
        context(), [("t", 0), ("t", 1), ("t", 2), ("t", 9), ("nope", 0), ("gone", 0), ("t", 0)])
    assert electable == [("t", 0), ("t", 2)]
    assert skipped == {("gone", 0): "its topic is being deleted",
                       ("nope", 0): "it doesn't exist",
                       ("t", 1): "its preferred replica already leads",
                       ("t", 9): "it doesn't exist"}


def test_a_partition_without_a_state_yet_is_skipped():
    ctx = context()
    del ctx.leadership[("t", 0)]
    assert preferred_election_targets(ctx, [("t", 0)]) == ([], {("t", 0): "it doesn't exist"})


def test_the_znode_event_is_a_manual_leader_balance():
    assert ZkPreferredReplicaElection.state is ce.ControllerState.MANUAL_LEADER_BALANCE
    assert ce.ZkPartitionReassignment.state is ce.ControllerState.ALTER_PARTITION_REASSIGNMENT


def test_admin_znodes_in_kafka_json():
    assert json.loads(zd.encode_partition_list([("t", 1), ("a", 0)])) == {
        "version": 1, "partitions": [{"topic": "a", "partition": 0}, {"topic": "t", "partition": 1}]}
    assert zd.decode_partition_list(b'{"version":1,"partitions":[{"topic":"t","partition":3}]}') == {("t", 3)}
    data = b'{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[3,1]}]}'
    assert zd.decode_partition_reassignment(data) == {("t", 0): (3, 1)}
    assert zd.decode_partition_reassignment(zd.encode_partition_reassignment({("t", 0): [3, 1]})) == {
        ("t", 0): (3, 1)}


def test_znode_targets_are_checked_for_shape_but_may_name_brokers_not_up_yet():
    cur = zd.ReplicaAssignment((1, 2))
    assert validate_zk_target(cur, (2, 9)) is None  # broker 9 is waited for
    assert validate_zk_target(cur, ())[0] == ErrorCode.INVALID_REPLICA_ASSIGNMENT
    assert validate_zk_target(cur, (1, 1))[0] == ErrorCode.INVALID_REPLICA_ASSIGNMENT
    assert validate_zk_target(cur, (-1,))[0] == ErrorCode.INVALID_REPLICA_ASSIGNMENT
