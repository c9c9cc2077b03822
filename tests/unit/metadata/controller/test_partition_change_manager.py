from __future__ import annotations

import pytest

from kafpy.metadata.controller.controller_result import ControllerError
from kafpy.metadata.controller.partition_change_manager import PartitionChangeManager
from kafpy.metadata.image.partition import PartitionRegistration
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AlterPartitionReassignmentsRequest,
    AlterPartitionRequest,
    AssignReplicasToDirsRequest,
    CreateTopicsRequest,
    ElectLeadersRequest,
    ListPartitionReassignmentsRequest,
    PartitionChangeRecord,
)
from tests.unit.metadata.controller.helpers import Controller, controller

A = CreateTopicsRequest.CreatableReplicaAssignment
AP = AlterPartitionRequest


def _setup(n: int = 3, replicas: list[int] | None = None) -> tuple[Controller, PartitionChangeManager]:
    c = controller()
    for b in range(1, n + 1):
        c.add_broker(b)
    c.commit(c.replication.create_topics(CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(
        name="t", num_partitions=-1, replication_factor=-1,
        assignments=[A(partition_index=0, broker_ids=replicas or [1, 2, 3])])])))
    return c, PartitionChangeManager(c.replication)


def _part(c: Controller) -> PartitionRegistration:
    t = c.metadata.image.topic("t")
    assert t is not None
    return t.partitions[0]


def _alter(c: Controller, isr: list[int], leader_epoch: int | None = None,
           partition_epoch: int | None = None, broker: int = 1,
           epochs: dict[int, int] | None = None, version: int = 3) -> AlterPartitionRequest:
    p = _part(c)
    reg = c.cluster.registration(broker)
    assert reg is not None
    t = c.metadata.image.topic("t")
    assert t is not None
    return AP(broker_id=broker, broker_epoch=reg.epoch, topics=[AP.TopicData(
        topic_id=t.id, topic_name="t", partitions=[AP.PartitionData(
            partition_index=0,
            leader_epoch=p.leader_epoch if leader_epoch is None else leader_epoch,
            partition_epoch=p.partition_epoch if partition_epoch is None else partition_epoch,
            new_isr=isr,
            new_isr_with_epochs=[AP.BrokerState(broker_id=b, broker_epoch=(epochs or {}).get(b, -1))
                                 for b in isr])])])


def _code(result_response: object) -> ErrorCode:
    from kafpy.protocol.messages import AlterPartitionResponse
    assert isinstance(result_response, AlterPartitionResponse)
    return ErrorCode(result_response.topics[0].partitions[0].error_code)


def test_alter_partition_shrinks_and_expands_the_isr():
    c, m = _setup()
    result = m.alter_partition(_alter(c, [1, 2]), version=3)
    (record,) = result.records
    assert isinstance(record, PartitionChangeRecord) and record.isr == [1, 2] and record.leader == -2
    data = result.response.topics[0].partitions[0]
    assert (data.error_code, data.isr, data.leader_epoch, data.partition_epoch) == (0, [1, 2], 0, 1)
    c.commit(result)
    c.commit(m.alter_partition(_alter(c, [1, 2, 3]), version=3))
    p = _part(c)
    assert (p.isr, p.leader_epoch, p.partition_epoch) == ((1, 2, 3), 0, 2)


def test_alter_partition_errors():
    c, m = _setup()
    assert _code(m.alter_partition(_alter(c, [1, 2], leader_epoch=5), 3).response) == ErrorCode.NOT_CONTROLLER
    c.commit(m.alter_partition(_alter(c, [1, 2]), 3))
    assert _code(m.alter_partition(_alter(c, [1], partition_epoch=0), 3).response) == ErrorCode.INVALID_UPDATE_VERSION
    assert _code(m.alter_partition(_alter(c, [2, 3]), 3).response) == ErrorCode.INVALID_REQUEST
    assert _code(m.alter_partition(_alter(c, [1, 4]), 3).response) == ErrorCode.INVALID_REQUEST
    assert _code(m.alter_partition(_alter(c, [1, 2], broker=2), 3).response) == ErrorCode.INVALID_REQUEST
    assert _code(m.alter_partition(_alter(c, [1, 2, 3], epochs={3: 999}), 3).response) \
        == ErrorCode.INELIGIBLE_REPLICA
    c.heartbeat(3, want_fence=True)
    assert _code(m.alter_partition(_alter(c, [1, 2, 3]), 3).response) == ErrorCode.INELIGIBLE_REPLICA
    assert _code(m.alter_partition(_alter(c, [1, 2, 3]), 1).response) == ErrorCode.OPERATION_NOT_ATTEMPTED
    request = _alter(c, [1, 2])
    request.broker_epoch = 12345
    with pytest.raises(ControllerError) as e:
        m.alter_partition(request, 3)
    assert e.value.error == ErrorCode.STALE_BROKER_EPOCH


def test_an_old_leader_epoch_is_fenced():
    c, m = _setup()
    c.heartbeat(1, want_fence=True)  # leadership moves to 2, leader epoch 1
    assert _part(c).leader == 2
    request = _alter(c, [2, 3], leader_epoch=0, broker=2)
    assert _code(m.alter_partition(request, 3).response) == ErrorCode.FENCED_LEADER_EPOCH


def test_preferred_election_brings_leadership_back():
    c, m = _setup()
    c.heartbeat(1, want_fence=True)
    c.heartbeat(1)
    c.commit(m.alter_partition(_alter(c, [2, 3, 1], broker=2), 3))
    assert _part(c).leader == 2
    E = ElectLeadersRequest
    result = m.elect_leaders(E(election_type=0, topic_partitions=[E.TopicPartitions(topic="t", partitions=[0, 5])]))
    errors = [(r.partition_id, ErrorCode(r.error_code)) for r in result.response.replica_election_results[0].partition_result]
    assert errors == [(0, ErrorCode.NONE), (5, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]
    c.commit(result)
    p = _part(c)
    assert (p.leader, p.leader_epoch) == (1, 2)
    again = m.elect_leaders(E(election_type=0, topic_partitions=[E.TopicPartitions(topic="t", partitions=[0])]))
    (answer,) = again.response.replica_election_results[0].partition_result
    # Kafka's ApiError(Errors.ELECTION_NOT_NEEDED) carries the error's description
    assert (answer.error_code, answer.error_message) == (int(ErrorCode.ELECTION_NOT_NEEDED),
                                                         "Leader election not needed for topic partition.")
    everything = m.elect_leaders(E(election_type=0, topic_partitions=None))
    assert everything.records == []
    # every topic is listed, without the partitions that needed no election (as Kafka 4.4 answers)
    assert [(r.topic, r.partition_result) for r in everything.response.replica_election_results] == [("t", [])]


def test_unclean_election_on_request():
    c, m = _setup(2, [1, 2])
    c.heartbeat(2, want_fence=True)
    c.heartbeat(1, want_fence=True)
    c.heartbeat(2)  # back, but not in the ISR: the partition stays leaderless
    assert _part(c).leader == -1
    E = ElectLeadersRequest
    preferred = m.elect_leaders(E(election_type=0, topic_partitions=[E.TopicPartitions(topic="t", partitions=[0])]))
    (answer,) = preferred.response.replica_election_results[0].partition_result
    assert (answer.error_code, answer.error_message) == (int(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE),
                                                         "The preferred leader was not available.")
    unclean = m.elect_leaders(E(election_type=1, topic_partitions=[E.TopicPartitions(topic="t", partitions=[0])]))
    c.commit(unclean)
    p = _part(c)
    assert (p.leader, p.isr, int(p.leader_recovery_state)) == (2, (2,), 1)


def test_reassignment_adds_then_completes_when_the_new_replica_joins_the_isr():
    c, m = _setup(4, [1, 2, 3])
    R = AlterPartitionReassignmentsRequest
    result = m.alter_partition_reassignments(R(topics=[R.ReassignableTopic(name="t", partitions=[
        R.ReassignablePartition(partition_index=0, replicas=[4, 2, 3])])]))
    c.commit(result)
    p = _part(c)
    assert (p.replicas, p.adding_replicas, p.removing_replicas) == ((4, 2, 3, 1), (4,), (1,))
    listed = m.list_partition_reassignments(ListPartitionReassignmentsRequest(topics=None))
    assert [(t.name, [q.adding_replicas for q in t.partitions]) for t in listed.topics] == [("t", [[4]])]
    done = m.alter_partition(_alter(c, [1, 2, 3, 4]), 3)
    c.commit(done)
    p = _part(c)
    assert (p.replicas, p.isr, p.adding_replicas, p.removing_replicas) == ((4, 2, 3), (2, 3, 4), (), ())
    assert p.leader == 4  # the old leader left: the first new replica in the ISR leads
    assert done.response.topics[0].partitions[0].error_code == int(ErrorCode.NEW_LEADER_ELECTED)


def test_reassignment_cancel_and_errors():
    c, m = _setup(4, [1, 2, 3])
    R = AlterPartitionReassignmentsRequest
    cancel = m.alter_partition_reassignments(R(topics=[R.ReassignableTopic(name="t", partitions=[
        R.ReassignablePartition(partition_index=0, replicas=None),
        R.ReassignablePartition(partition_index=7, replicas=[1])]), R.ReassignableTopic(
        name="nope", partitions=[R.ReassignablePartition(partition_index=0, replicas=[1])])]))
    got = [(ErrorCode(p.error_code), p.error_message) for t in cancel.response.responses for p in t.partitions]
    assert got == [(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, None),   # Kafka 4.4 leaves the message out
                   (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find partition t:7."),
                   (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "Unable to find a topic named nope.")]
    c.commit(m.alter_partition_reassignments(R(topics=[R.ReassignableTopic(name="t", partitions=[
        R.ReassignablePartition(partition_index=0, replicas=[4, 2, 3])])])))
    c.commit(m.alter_partition_reassignments(R(topics=[R.ReassignableTopic(name="t", partitions=[
        R.ReassignablePartition(partition_index=0, replicas=None)])])))
    p = _part(c)
    # as Kafka reverts: the adding replicas leave, the order of the others stays
    assert (p.replicas, p.adding_replicas, p.removing_replicas) == ((2, 3, 1), (), ())


def test_reassignment_v1_may_forbid_changing_the_replication_factor():
    """AlterPartitionReassignments v1 (KIP-1101) with AllowReplicationFactorChange false: a
    target of another size is INVALID_REPLICATION_FACTOR in Kafka 4.4's words, counted
    against the size a reassignment in progress leads to; the answer echoes the flag."""
    c, m = _setup(5, [1, 2, 3])
    R = AlterPartitionReassignmentsRequest

    def reassign(replicas: list[int], allow: bool) -> tuple[ErrorCode, str | None, bool]:
        result = m.alter_partition_reassignments(R(allow_replication_factor_change=allow, topics=[
            R.ReassignableTopic(name="t", partitions=[R.ReassignablePartition(partition_index=0, replicas=replicas)])]))
        c.commit(result)
        p = result.response.responses[0].partitions[0]
        return ErrorCode(p.error_code), p.error_message, result.response.allow_replication_factor_change
    assert reassign([1, 2], False) == (ErrorCode.INVALID_REPLICATION_FACTOR,
                                       "The replication factor is changed from 3 to 2", False)
    assert _part(c).replicas == (1, 2, 3)
    assert reassign([4, 2, 3], False) == (ErrorCode.NONE, None, False)   # same size: moves
    # in progress (replicas 4,2,3,1 with 1 leaving): still a factor of 3
    assert reassign([4, 5, 2, 3], False) == (ErrorCode.INVALID_REPLICATION_FACTOR,
                                             "The replication factor is changed from 3 to 4", False)
    assert reassign([4, 5, 2, 3], True) == (ErrorCode.NONE, None, True)


AR = AssignReplicasToDirsRequest


def _assign(c: Controller, broker: int, directory: bytes, topic_id: bytes, *partitions: int,
            epoch: int | None = None) -> AssignReplicasToDirsRequest:
    reg = c.cluster.registration(broker)
    assert reg is not None
    return AR(broker_id=broker, broker_epoch=reg.epoch if epoch is None else epoch, directories=[AR.DirectoryData(
        id=directory, topics=[AR.TopicData(topic_id=topic_id, partitions=[
            AR.PartitionData(partition_index=p) for p in partitions])])])


def test_assign_replicas_to_dirs_records_the_directory_of_the_brokers_replica():
    """What an Apache Kafka broker rolled into KRaft after a ZooKeeper migration sends for its
    replicas (their directories MIGRATING): one PartitionChangeRecord naming the directory."""
    c, m = _setup(n=4)
    t = c.metadata.image.topic("t")
    assert t is not None
    new_dir = b"\x07" * 16
    result = m.assign_replicas_to_dirs(_assign(c, 2, new_dir, t.id, 0))
    (record,) = result.records
    assert isinstance(record, PartitionChangeRecord) and record.directories is not None
    assert record.directories[list(_part(c).replicas).index(2)] == new_dir
    assert [p.error_code for d in result.response.directories for tt in d.topics for p in tt.partitions] == [0]
    c.commit(result)
    assert dict(zip(_part(c).replicas, _part(c).directories))[2] == new_dir
    assert m.assign_replicas_to_dirs(_assign(c, 2, new_dir, t.id, 0)).records == []  # already there


def test_assign_replicas_to_dirs_errors():
    c, m = _setup(n=4)
    t = c.metadata.image.topic("t")
    assert t is not None
    d = b"\x07" * 16

    def codes(request: AssignReplicasToDirsRequest) -> list[ErrorCode]:
        result = m.assign_replicas_to_dirs(request)
        assert result.records == []
        return [ErrorCode(p.error_code) for dd in result.response.directories for tt in dd.topics
                for p in tt.partitions]
    assert codes(_assign(c, 4, d, t.id, 0)) == [ErrorCode.NOT_LEADER_OR_FOLLOWER]  # broker 4 hosts no replica
    assert codes(_assign(c, 1, d, t.id, 9)) == [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]
    assert codes(_assign(c, 1, d, b"\x09" * 16, 0, 1)) == [ErrorCode.UNKNOWN_TOPIC_ID] * 2
    with pytest.raises(ControllerError) as e:
        m.assign_replicas_to_dirs(_assign(c, 1, d, t.id, 0, epoch=12345))
    assert e.value.error == ErrorCode.STALE_BROKER_EPOCH
    old = controller(mv=14)  # 3.6-IV2: no directories in partition records
    with pytest.raises(ControllerError) as e:
        PartitionChangeManager(old.replication).assign_replicas_to_dirs(AR(broker_id=1))
    assert e.value.error == ErrorCode.UNSUPPORTED_VERSION
