"""The KRaft controller's requests to ZooKeeper brokers during a migration (Kafka 3.9's
MigrationPropagator), built from metadata images."""
from __future__ import annotations

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import (
    FeatureLevelRecord, LeaderAndIsrRequest, PartitionChangeRecord, PartitionRecord, RegisterBrokerRecord, RemoveTopicRecord,
    StopReplicaRequest, TopicRecord, UpdateMetadataRequest,
)
from kafpy.replication.zk_migration_propagator import ControllerIdentity, delta_requests, full_requests

WHO = ControllerIdentity(3000, 7)
T1, T2 = b"\x01" * 16, b"\x02" * 16


def _image(base: MetadataImage, records: list[Message], offset: int) -> MetadataImage:
    delta = MetadataDelta(base)
    delta.replay_all(records)
    return delta.apply(MetadataProvenance(offset, 1, 0))


def _broker(i: int, zk: bool = True) -> RegisterBrokerRecord:
    R = RegisterBrokerRecord
    return R(broker_id=i, broker_epoch=10 + i, is_migrating_zk_broker=zk, fenced=False, end_points=[
        R.BrokerEndpoint(name="PLAINTEXT", host="h", port=9000 + i, security_protocol=0)])


def _topic(name: str, tid: bytes, replicas: list[int]) -> list[Message]:
    return [TopicRecord(name=name, topic_id=tid),
            PartitionRecord(topic_id=tid, partition_id=0, replicas=replicas, isr=replicas, leader=replicas[0],
                            leader_epoch=3, partition_epoch=5)]


def _base() -> MetadataImage:
    return _image(EMPTY_IMAGE, [FeatureLevelRecord(name="metadata.version", feature_level=21),
                                _broker(0), _broker(1), _broker(2, zk=False), *_topic("a", T1, [0, 2])], 10)


def test_full_requests_send_metadata_before_leader_and_isr_to_zookeeper_brokers_only() -> None:
    """Kafka's order: an UpdateMetadata of everything first (Apache's broker refuses to follow
    a leader its metadata cache lacks), then a FULL LeaderAndIsr to the brokers that replicate
    something, then the FULL UpdateMetadata of those partitions."""
    sends = full_requests(_base(), WHO)
    assert [(b, k) for b, k, _ in sends] == [(0, ApiKey.UPDATE_METADATA), (1, ApiKey.UPDATE_METADATA),
                                              (0, ApiKey.LEADER_AND_ISR),
                                              (0, ApiKey.UPDATE_METADATA), (1, ApiKey.UPDATE_METADATA)]
    (first,) = sends[0][2](8)
    assert isinstance(first, UpdateMetadataRequest) and first.is_k_raft_controller and first.type == 0
    assert sorted(b.id for b in first.live_brokers) == [0, 1, 2]  # KRaft brokers are live brokers too
    assert [(t.topic_name, len(t.partition_states)) for t in first.topic_states] == [("a", 1)]
    (lisr,) = sends[2][2](7)
    assert isinstance(lisr, LeaderAndIsrRequest)
    assert (lisr.controller_id, lisr.is_k_raft_controller, lisr.controller_epoch, lisr.broker_epoch, lisr.type) == (
        3000, True, 7, 10, 2)
    (state,) = lisr.topic_states[0].partition_states
    # the partition's controller epoch is the image's KRaft epoch (1), the request's the ZooKeeper one (7)
    assert (state.leader, state.leader_epoch, state.partition_epoch, state.isr, state.controller_epoch,
            state.is_new) == (0, 3, 5, [0, 2], 1, True)
    (um,) = sends[4][2](8)
    assert isinstance(um, UpdateMetadataRequest) and um.type == 2


def test_a_zookeeper_broker_that_registers_in_dual_write_learns_everything() -> None:
    """Kafka's changedZkBrokers: a ZooKeeper broker that (re)registered and is unfenced gets an
    UpdateMetadata of every partition and a LeaderAndIsr of its replicas; the others learn of
    the brokers."""
    before = _image(EMPTY_IMAGE, [FeatureLevelRecord(name="metadata.version", feature_level=21),
                                  _broker(0), _broker(2, zk=False), *_topic("a", T1, [0, 1, 2])], 10)
    after = _image(before, [_broker(1)], 11)
    sends = delta_requests(before, after, WHO)
    assert [(b, k) for b, k, _ in sends] == [(0, ApiKey.UPDATE_METADATA), (1, ApiKey.UPDATE_METADATA),
                                              (1, ApiKey.LEADER_AND_ISR),
                                              (0, ApiKey.UPDATE_METADATA), (1, ApiKey.UPDATE_METADATA)]
    (others,) = sends[0][2](8)
    (newcomer,) = sends[1][2](8)
    assert isinstance(others, UpdateMetadataRequest) and isinstance(newcomer, UpdateMetadataRequest)
    assert others.topic_states == [] and sorted(b.id for b in others.live_brokers) == [0, 1, 2]
    assert [t.topic_name for t in newcomer.topic_states] == ["a"]
    (lisr,) = sends[2][2](7)
    assert isinstance(lisr, LeaderAndIsrRequest) and lisr.broker_epoch == 11 and lisr.type == 1
    assert [(t.topic_name, [p.partition_index for p in t.partition_states]) for t in lisr.topic_states] == [
        ("a", [0])]


def test_a_replica_taken_off_a_partition_is_stopped_and_deleted() -> None:
    before = _image(_base(), [], 11)
    after = _image(before, [PartitionChangeRecord(topic_id=T1, partition_id=0, replicas=[2], isr=[2], leader=2)], 12)
    sends = delta_requests(before, after, WHO)
    stops = [(b, build(4)[0]) for b, k, build in sends if k == ApiKey.STOP_REPLICA]
    assert [b for b, _ in stops] == [0]
    stop = stops[0][1]
    assert isinstance(stop, StopReplicaRequest)
    assert [(t.topic_name, [p.delete_partition for p in t.partition_states]) for t in stop.topic_states] == [
        ("a", [True])]


def test_delta_requests_follow_what_changed() -> None:
    base = _base()
    assert delta_requests(base, _image(base, [], 11), WHO) == []
    created = _image(base, _topic("b", T2, [1, 0]), 12)
    sends = delta_requests(base, created, WHO)
    assert [(b, k) for b, k, _ in sends] == [(0, ApiKey.LEADER_AND_ISR), (1, ApiKey.LEADER_AND_ISR),
                                              (0, ApiKey.UPDATE_METADATA), (1, ApiKey.UPDATE_METADATA)]
    (lisr,) = sends[0][2](7)
    assert isinstance(lisr, LeaderAndIsrRequest) and lisr.type == 1
    assert [t.topic_name for t in lisr.topic_states] == ["b"]
    deleted = _image(created, [RemoveTopicRecord(topic_id=T1)], 13)
    sends = delta_requests(created, deleted, WHO)
    stops = [(b, build(4)[0]) for b, k, build in sends if k == ApiKey.STOP_REPLICA]
    assert [b for b, _ in stops] == [0]
    stop = stops[0][1]
    assert isinstance(stop, StopReplicaRequest) and stop.is_k_raft_controller
    assert [(t.topic_name, [p.delete_partition for p in t.partition_states]) for t in stop.topic_states] == [
        ("a", [True])]
    (um,) = [build(8)[0] for b, k, build in sends if k == ApiKey.UPDATE_METADATA and b == 1]
    assert isinstance(um, UpdateMetadataRequest)
    assert [(t.topic_name, t.partition_states[0].leader) for t in um.topic_states] == [("a", -2)]
