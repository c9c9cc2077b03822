"""ControllerContext's queries and the AlterPartition decision rules (pure, no ZooKeeper)."""
from __future__ import annotations

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterPartitionRequest
from kafpy.replication import zk_data as zd
from kafpy.replication.controller_context import ControllerContext, alter_partition_decision
from kafpy.replication.leader_and_isr import LeaderAndIsr

P = AlterPartitionRequest.PartitionData
B = AlterPartitionRequest.BrokerState


def reg(b: int) -> zd.BrokerRegistration:
    return zd.BrokerRegistration(b, (zd.EndPoint("PLAINTEXT", "h", 9000 + b),))


def context() -> ControllerContext:
    ctx = ControllerContext(epoch=3, epoch_zk_version=3)
    ctx.add_live_brokers({1: (reg(1), 101), 2: (reg(2), 102), 3: (reg(3), 103)})
    ctx.set_topic("t", zd.TopicAssignment.of("x", {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1]}), b"\1" * 16)
    ctx.leadership[("t", 0)] = zd.LeaderIsrAndControllerEpoch(LeaderAndIsr(1, 4, (1, 2, 3), partition_epoch=7), 3)
    ctx.leadership[("t", 1)] = zd.LeaderIsrAndControllerEpoch(LeaderAndIsr(3, 1, (3, 1)), 2)
    return ctx


def test_brokers_partitions_and_elections_needed():
    ctx = context()
    assert ctx.live_broker_ids == {1, 2, 3}
    ctx.shutting_down_broker_ids.add(3)
    assert ctx.live_broker_ids == {1, 2} and ctx.live_or_shutting_down_broker_ids == {1, 2, 3}
    assert not ctx.is_live(3)
    assert ctx.partitions_on_broker(1) == [("t", 0), ("t", 1), ("t", 2)]
    assert ctx.partitions_led_by(3) == [("t", 1)]
    # partition 2 has no state yet: new
    assert ctx.partitions_needing_election() == [("t", 2)]
    ctx.remove_live_brokers([3])
    assert ctx.shutting_down_broker_ids == set()
    assert ctx.offline_replicas(("t", 1)) == [3]
    assert ctx.partitions_needing_election() == [("t", 1), ("t", 2)]
    ctx.topics_to_be_deleted.add("t")
    assert ctx.partitions_needing_election() == []


def test_preferred_imbalance_and_topic_removal():
    ctx = context()
    assert ctx.preferred_imbalance() == {1: [], 2: [("t", 1)]}
    ctx.remove_topic("t")
    assert ctx.all_topics == set() and ctx.leadership == {} and ctx.topic_ids == {}


def test_alter_partition_rules():
    ctx = context()
    tp = ("t", 0)

    def decide(version=3, broker=1, **kw):
        fields = {"partition_index": 0, "leader_epoch": 4, "partition_epoch": 7}
        fields.update(kw)
        if version >= 3 and "new_isr_with_epochs" not in fields:
            fields["new_isr_with_epochs"] = [B(broker_id=b, broker_epoch=100 + b) for b in fields.pop("isr", (1, 2))]
        elif version < 3:
            fields["new_isr"] = list(fields.pop("isr", (1, 2)))
        return alter_partition_decision(ctx, tp, broker, P(**fields), version)

    ok = decide()
    assert ok == (True, LeaderAndIsr(1, 4, (1, 2), partition_epoch=7))
    assert decide(isr=(1, 2, 3)) == (False, ctx.leader_and_isr(tp))  # already the state
    assert decide(leader_epoch=5) == ErrorCode.NOT_CONTROLLER
    assert decide(partition_epoch=8) == ErrorCode.NOT_CONTROLLER
    assert decide(leader_epoch=3) == ErrorCode.FENCED_LEADER_EPOCH
    assert decide(partition_epoch=6) == ErrorCode.INVALID_UPDATE_VERSION
    assert decide(broker=2) == ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert decide(new_isr_with_epochs=[B(broker_id=1, broker_epoch=101), B(broker_id=2, broker_epoch=99)]) \
        == ErrorCode.INELIGIBLE_REPLICA
    ctx.remove_live_brokers([2])
    assert decide() == ErrorCode.INELIGIBLE_REPLICA
    assert decide(version=1) == ErrorCode.OPERATION_NOT_ATTEMPTED
    assert decide(version=2, leader_recovery_state=1, isr=(1,)) == ErrorCode.INVALID_REQUEST
    assert alter_partition_decision(ctx, ("t", 9), 1, P(), 2) == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


def test_replicas_in_failed_log_dirs_are_offline_until_the_broker_restarts():
    from kafpy.protocol.messages import LeaderAndIsrResponse as R
    from kafpy.replication.log_dir_events import partition_errors, update_offline_dirs

    ctx = context()
    v4 = R(error_code=0, partition_errors=[R.LeaderAndIsrPartitionError(topic_name="t", partition_index=0,
                                                                        error_code=ErrorCode.KAFKA_STORAGE_ERROR)])
    v5 = R(error_code=0, topics=[R.LeaderAndIsrTopicError(topic_id=b"\1" * 16, partition_errors=[
        R.LeaderAndIsrPartitionError(partition_index=0, error_code=0),
        R.LeaderAndIsrPartitionError(partition_index=1, error_code=ErrorCode.KAFKA_STORAGE_ERROR)])])
    assert partition_errors(ctx, v4) == {("t", 0): ErrorCode.KAFKA_STORAGE_ERROR}
    assert partition_errors(ctx, v5) == {("t", 0): 0, ("t", 1): ErrorCode.KAFKA_STORAGE_ERROR}
    # broker 1 leads t-0 from a failed dir: t-0 needs a leader that is not 1
    assert update_offline_dirs(ctx, 1, partition_errors(ctx, v4)) == {("t", 0)}
    assert update_offline_dirs(ctx, 1, partition_errors(ctx, v4)) == set()  # not new
    assert not ctx.is_online(("t", 0)) and ctx.offline_replicas(("t", 0)) == [1]
    assert ctx.live_broker_ids_for(("t", 0)) == {2, 3} and ctx.live_broker_ids_for(("t", 1)) == {1, 2, 3}
    assert ("t", 0) in ctx.partitions_needing_election()
    # a later answer saying the replica works takes it back; a restart forgets the dirs
    assert update_offline_dirs(ctx, 1, {("t", 0): 0, ("t", 1): ErrorCode.KAFKA_STORAGE_ERROR}) == {("t", 1)}
    assert ctx.replicas_on_offline_dirs == {1: {("t", 1)}}
    ctx.remove_live_brokers([1])
    assert ctx.replicas_on_offline_dirs == {}
