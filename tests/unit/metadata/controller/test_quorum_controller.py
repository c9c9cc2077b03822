"""QuorumController's pure event logic: when a leader activates, what activation writes on an
empty log (Kafka 4.4's ``ActivationRecordsGenerator.recordsForEmptyLog``) and on one already
bootstrapped, replay of committed batches on every controller, renouncing, and the periodic
tasks' records."""
from __future__ import annotations

from kafpy.metadata.bootstrap import BootstrapMetadata
from kafpy.metadata.controller.quorum_controller import (
    ControllerSettings, QuorumController, default_supported_features, encode_records,
)
from kafpy.metadata.image.cluster import VersionRange
from kafpy.protocol.messages import (
    BeginTransactionRecord, BrokerHeartbeatRequest, ConfigRecord, EndTransactionRecord, FeatureLevelRecord,
    Message, NoOpRecord, PartitionChangeRecord,
)
from kafpy.protocol.messages import AlterPartitionReassignmentsRequest as AR
from kafpy.protocol.messages import CreateTopicsRequest as CT
from kafpy.raft.kafka_raft_client import Batch
from kafpy.raft.snapshot import SnapshotId

from tests.unit.metadata.controller.helpers import CLUSTER_ID, registration

NODE = 1


def _controller(mv: int = 33, features: dict[str, int] | None = None) -> QuorumController:
    bootstrap = BootstrapMetadata.from_versions(mv, features if features is not None else {
        "eligible.leader.replicas.version": 1, "group.version": 1}, "test bootstrap")
    return QuorumController(ControllerSettings(NODE, CLUSTER_ID, (1, 2, 3), session_timeout_ms=9000,
                                               default_min_isr=2), bootstrap)


def _control(offset: int, epoch: int) -> Batch:
    return Batch(offset, offset, epoch, (), control=True)


def _data(offset: int, epoch: int, records: list[Message]) -> Batch:
    encoded = tuple(encode_records(records))
    return Batch(offset, offset + len(encoded) - 1, epoch, encoded)


def test_a_leader_activates_once_its_epoch_start_is_replayed() -> None:
    c = _controller()
    c.leader_changed(NODE, 1)
    assert c.ready_to_activate() is None and not c.is_active()
    c.replay_batch(_control(0, 1))  # the LeaderChangeMessage that opened epoch 1
    assert c.ready_to_activate() == 1
    records = c.activate(1, now_ms=0)
    assert c.is_active() and c.active_epoch == 1
    # in a metadata transaction: the bootstrap records, then the ELR min.insync.replicas default
    assert records == [
        BeginTransactionRecord(name="Bootstrap records"),
        FeatureLevelRecord(name="metadata.version", feature_level=33),
        FeatureLevelRecord(name="eligible.leader.replicas.version", feature_level=1),
        FeatureLevelRecord(name="group.version", feature_level=1),
        ConfigRecord(resource_type=4, resource_name="", name="min.insync.replicas", value="2"),
        EndTransactionRecord(),
    ]


def test_activation_before_metadata_transactions_and_without_elr() -> None:
    c = _controller(mv=12, features={})  # 3.6-IV0: no metadata transactions yet
    c.leader_changed(NODE, 3)
    c.replay_batch(_control(0, 3))
    assert c.activate(3, 0) == [FeatureLevelRecord(name="metadata.version", feature_level=12)]


def test_a_log_that_has_its_bootstrap_records_gets_none_again() -> None:
    c = _controller()
    c.replay_batch(_control(0, 1))
    c.replay_batch(_data(1, 1, [FeatureLevelRecord(name="metadata.version", feature_level=30)]))
    assert c.features.metadata_version() == 30 and c.metadata.last_offset == 1
    c.leader_changed(NODE, 2)
    assert c.ready_to_activate() is None
    c.replay_batch(_control(2, 2))
    assert c.metadata.next_write_offset() == 3  # a control batch moves the offset too
    assert c.activate(2, 0) == []


def test_a_follower_replays_but_never_activates_and_a_deposed_leader_renounces() -> None:
    c = _controller()
    c.leader_changed(2, 1)
    c.replay_batch(_control(0, 1))
    c.replay_batch(_data(1, 1, [FeatureLevelRecord(name="metadata.version", feature_level=33)]))
    assert c.ready_to_activate() is None and not c.is_active()
    assert c.metadata.image.features.metadata_version == 33
    # it becomes leader in epoch 2, activates, then loses to node 3 in epoch 3
    c.leader_changed(NODE, 2)
    c.replay_batch(_control(2, 2))
    c.activate(2, 0)
    c.replay_batch(_data(3, 2, c.cluster.register_broker(registration(7), 3, 0).records))
    assert c.cluster.heartbeat_manager.brokers  # a session while active
    assert c.leader_changed(3, 3) is True  # it lost the leadership it had
    assert not c.is_active() and not c.cluster.heartbeat_manager.brokers
    assert 7 in c.metadata.image.cluster.brokers  # the committed image stays


def test_activation_gives_every_registered_broker_a_fresh_session() -> None:
    c = _controller()
    c.replay_batch(_control(0, 1))
    c.replay_batch(_data(1, 1, [FeatureLevelRecord(name="metadata.version", feature_level=33)]))
    c.replay_batch(_data(2, 1, c.cluster.register_broker(registration(5), 2, 0).records))
    c.leader_changed(NODE, 2)
    c.replay_batch(_control(3, 2))
    c.activate(2, now_ms=50_000)
    assert c.cluster.heartbeat_manager.brokers[5].last_contact_ms == 50_000
    # a fenced broker's session does not expire it again
    assert c.maybe_fence_stale_broker(now_ms=10**9) == []


def test_periodic_records() -> None:
    c = _controller()
    assert c.no_op_records() == [NoOpRecord()]


def test_the_supported_features_are_kafka_44s_production_ranges() -> None:
    supported = default_supported_features()
    assert supported["metadata.version"] == VersionRange(7, 33)
    assert supported["kraft.version"] == VersionRange(0, 1)
    assert supported["share.version"] == VersionRange(0, 2)


def test_leader_balancing_elects_the_preferred_replica() -> None:
    c = _controller()
    c.replay_batch(_control(0, 1))
    c.replay_batch(_data(1, 1, [FeatureLevelRecord(name="metadata.version", feature_level=33)]))
    for broker_id in (1, 2):
        c.metadata.replay_all(c.cluster.register_broker(registration(broker_id), c.metadata.next_write_offset(),
                                                        0).records)
        reg = c.metadata.image.cluster.brokers[broker_id]
        c.metadata.replay_all(c.replication.process_broker_heartbeat(BrokerHeartbeatRequest(
            broker_id=broker_id, broker_epoch=reg.epoch, current_metadata_offset=c.metadata.last_offset), 0).records)
    c.metadata.replay_all(c.replication.create_topics(CT(topics=[CT.CreatableTopic(
        name="t", num_partitions=-1, replication_factor=-1,
        assignments=[CT.CreatableReplicaAssignment(partition_index=0, broker_ids=[1, 2])])])).records)
    assert c.maybe_balance_partition_leaders() == []  # led by its preferred replica
    # the same replicas in another order: broker 2 is now preferred, broker 1 still leads
    c.metadata.replay_all(c.partitions.alter_partition_reassignments(AR(topics=[AR.ReassignableTopic(
        name="t", partitions=[AR.ReassignablePartition(partition_index=0, replicas=[2, 1])])])).records)
    topic = c.metadata.image.topic("t")
    assert topic is not None and topic.partitions[0].leader == 1 and topic.partitions[0].replicas[0] == 2
    (record,) = c.maybe_balance_partition_leaders()
    assert isinstance(record, PartitionChangeRecord) and record.leader == 2


def _bootstrapped_with_broker_and_topic() -> QuorumController:
    c = _controller()
    c.replay_batch(_control(0, 1))
    c.replay_batch(_data(1, 1, [FeatureLevelRecord(name="metadata.version", feature_level=33)]))
    c.replay_batch(_data(2, 1, c.cluster.register_broker(registration(4), 2, 0).records))
    reg = c.metadata.image.cluster.brokers[4]
    c.replay_batch(_data(3, 2, c.replication.process_broker_heartbeat(BrokerHeartbeatRequest(
        broker_id=4, broker_epoch=reg.epoch, current_metadata_offset=3), 0).records))
    records = c.replication.create_topics(CT(topics=[CT.CreatableTopic(
        name="t", num_partitions=2, replication_factor=1, assignments=[])])).records
    c.replay_batch(_data(4, 2, records))
    return c


def test_snapshot_image_is_named_after_the_last_batch_and_none_inside_a_transaction() -> None:
    c = _bootstrapped_with_broker_and_topic()
    image = c.snapshot_image()
    assert image is not None
    last = c.metadata.last_offset
    assert image.provenance.snapshot_id() == (last + 1, 2)  # end offset, epoch of the last batch
    c.replay_batch(_data(last + 1, 2, [BeginTransactionRecord(name="x"), NoOpRecord()]))
    assert c.snapshot_image() is None  # the transaction is open at the batch's end
    c.replay_batch(_data(last + 3, 2, [EndTransactionRecord()]))
    assert c.snapshot_image() is not None


def test_a_controller_loads_a_snapshot_of_another_ones_image() -> None:
    """Kafka's handleLoadSnapshot: the image becomes the snapshot's, the next write offset
    follows its end, and the brokers' epochs (RegisterBrokerRecord offsets) are known again."""
    source = _bootstrapped_with_broker_and_topic()
    image = source.snapshot_image()
    assert image is not None
    snapshot_id = image.provenance.snapshot_id()
    c = _controller()
    c.load_snapshot(snapshot_id, [r.message for r in image.records()], 1234)
    assert c.metadata.image.records() == image.records()
    assert c.metadata.next_write_offset() == snapshot_id.end_offset
    assert c.cluster.register_broker_record_offset(4) == image.cluster.brokers[4].epoch == 2
    assert c.features.metadata_version() == 33 and c.metadata.image.topic("t") is not None
    loaded = c.snapshot_image()
    assert loaded is not None and loaded.provenance.snapshot_id() == snapshot_id
    assert loaded.provenance.last_contained_log_time_ms == 1234
    # batches follow from the snapshot's end; a leader of a later epoch activates on them
    c.leader_changed(NODE, 3)
    c.replay_batch(_control(snapshot_id.end_offset, 3))
    assert c.activate(3, 0) == []  # metadata.version came with the snapshot: no bootstrap records


def test_the_active_controller_refuses_to_load_a_snapshot() -> None:
    import pytest
    c = _controller()
    c.leader_changed(NODE, 1)
    c.replay_batch(_control(0, 1))
    c.activate(1, 0)
    with pytest.raises(RuntimeError, match="active controller"):
        c.load_snapshot(SnapshotId(10, 1), [], 0)
