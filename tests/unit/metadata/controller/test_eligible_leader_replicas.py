"""Eligible leader replicas (KIP-966), on when eligible.leader.replicas.version is finalized."""
from __future__ import annotations

from kafpy.metadata.image.partition import PartitionRegistration
from kafpy.protocol.messages import CreateTopicsRequest, FeatureLevelRecord
from tests.unit.metadata.controller.helpers import Controller, controller

A = CreateTopicsRequest.CreatableReplicaAssignment


def _elr_cluster(brokers: int, replicas: list[int], min_isr: str | None = None) -> Controller:
    c = controller()
    c.metadata.replay(FeatureLevelRecord(name="eligible.leader.replicas.version", feature_level=1))
    for b in range(1, brokers + 1):
        c.add_broker(b)
    configs = [] if min_isr is None else [CreateTopicsRequest.CreatableTopicConfig(
        name="min.insync.replicas", value=min_isr)]
    c.commit(c.replication.create_topics(CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(
        name="t", num_partitions=-1, replication_factor=-1, configs=configs,
        assignments=[A(partition_index=0, broker_ids=replicas)])])))
    return c


def _part(c: Controller) -> PartitionRegistration:
    t = c.metadata.image.topic("t")
    assert t is not None
    return t.partitions[0]


def _state(p: PartitionRegistration) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    return p.leader, p.isr, p.elr, p.last_known_elr


def test_a_lone_broker_shutting_down_moves_the_isr_to_the_elr():
    """What Apache Kafka 4.4 writes for its own single node (see test_image_interop)."""
    c = _elr_cluster(1, [1])
    assert c.replication.elr_enabled()
    before = _part(c)
    c.heartbeat(1, want_shut_down=True)
    after = _part(c)
    assert _state(after) == (-1, (), (1,), (1,))
    assert (after.leader_epoch, after.partition_epoch) == (before.leader_epoch + 1, before.partition_epoch + 1)


def test_below_min_isr_leavers_join_the_elr_and_an_elr_member_can_lead():
    c = _elr_cluster(3, [1, 2, 3], min_isr="2")
    c.heartbeat(3, want_fence=True)
    assert _state(_part(c)) == (1, (1, 2), (), ())  # at min ISR: no ELR
    c.heartbeat(2, want_fence=True)
    assert _state(_part(c)) == (1, (1,), (2,), ())
    c.heartbeat(1, want_fence=True)
    assert _state(_part(c)) == (-1, (), (1, 2), (1,))
    c.heartbeat(2)  # back: elected from the ELR, alone in the ISR
    assert _state(_part(c)) == (2, (2,), (1,), ())


def test_without_the_feature_the_last_isr_member_stays():
    c = controller()
    c.add_broker(1)
    c.create_topic("t")
    assert not c.replication.elr_enabled()
    c.heartbeat(1, want_shut_down=True)
    assert _state(_part(c)) == (-1, (1,), (), ())
