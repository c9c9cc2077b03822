from __future__ import annotations

import random

import pytest

from kafpy.metadata.controller.controller_result import ControllerError
from kafpy.metadata.controller.striped_replica_placer import StripedReplicaPlacer, UsableBroker
from kafpy.metadata.image.partition import NO_LEADER
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    BrokerHeartbeatRequest,
    BrokerRegistrationChangeRecord,
    ConfigRecord,
    CreatePartitionsRequest,
    CreateTopicsRequest,
    PartitionChangeRecord,
    PartitionRecord,
    RemoveTopicRecord,
    TopicRecord,
    UnregisterBrokerRecord,
)
from tests.unit.metadata.controller.helpers import SESSION_TIMEOUT_MS, Controller, controller, log_dir

T = CreateTopicsRequest.CreatableTopic
A = CreateTopicsRequest.CreatableReplicaAssignment


def _cluster(n: int = 3, racks: bool = False) -> Controller:
    c = controller()
    for b in range(1, n + 1):
        c.add_broker(b, rack=f"r{b}" if racks else None)
    return c


def test_heartbeats_unfence_a_broker_once_caught_up():
    c = controller()
    c.add_broker(1, unfence=False)
    reg = c.cluster.registration(1)
    assert reg is not None and reg.fenced
    reply = c.heartbeat(1)
    assert (reply.is_caught_up, reply.is_fenced, reply.should_shut_down) == (True, False, False)
    reg = c.cluster.registration(1)
    assert reg is not None and not reg.fenced and c.cluster.is_active(1)


def test_create_topics_writes_topic_config_then_partition_records():
    c = _cluster(3)
    result = c.replication.create_topics(CreateTopicsRequest(topics=[
        T(name="alpha", num_partitions=3, replication_factor=2,
          configs=[CreateTopicsRequest.CreatableTopicConfig(name="retention.ms", value="12345")])]))
    kinds = [type(r).__name__ for r in result.records]
    assert kinds == ["TopicRecord", "ConfigRecord", "PartitionRecord", "PartitionRecord", "PartitionRecord"]
    assert result.is_atomic
    (topic,) = result.response.topics
    assert (topic.error_code, topic.num_partitions, topic.replication_factor) == (0, 3, 2)
    parts = [r for r in result.records if isinstance(r, PartitionRecord)]
    for p in parts:
        assert len(set(p.replicas)) == 2 and p.isr == p.replicas and p.leader == p.replicas[0]
        assert (p.leader_epoch, p.partition_epoch) == (0, 0)
        assert p.directories == [log_dir(b) for b in p.replicas]
    # leaders spread over the brokers
    assert len({p.leader for p in parts}) == 3
    assert c.metadata.image.topic("alpha") is None
    c.commit(result)
    image_topic = c.metadata.image.topic("alpha")
    assert image_topic is not None and len(image_topic.partitions) == 3
    assert c.configs.topic_config("alpha", "retention.ms") == "12345"


def test_create_topics_errors_as_kafka_gives_them():
    c = _cluster(2)
    c.create_topic("exists")
    config = CreateTopicsRequest.CreatableTopicConfig
    result = c.replication.create_topics(CreateTopicsRequest(topics=[
        T(name="exists", num_partitions=1, replication_factor=1),
        T(name="bad name", num_partitions=1, replication_factor=1),
        T(name="rf", num_partitions=1, replication_factor=3),
        T(name="rf0", num_partitions=1, replication_factor=0),
        T(name="p0", num_partitions=0, replication_factor=1),
        T(name="cfg", num_partitions=1, replication_factor=1, configs=[config(name="nope", value="1")]),
        T(name="cfg2", num_partitions=1, replication_factor=1,
          configs=[config(name="retention.ms", value="abc")]),
        T(name="manual", num_partitions=2, replication_factor=-1, assignments=[A(partition_index=0, broker_ids=[1])]),
        T(name="manual2", num_partitions=-1, replication_factor=-1,
          assignments=[A(partition_index=0, broker_ids=[1, 9])]),
        T(name="manual3", num_partitions=-1, replication_factor=-1,
          assignments=[A(partition_index=1, broker_ids=[1])]),
    ]))
    got = {t.name: (ErrorCode(t.error_code), t.error_message) for t in result.response.topics}
    assert got["exists"] == (ErrorCode.TOPIC_ALREADY_EXISTS, "Topic 'exists' already exists.")
    assert got["bad name"][0] == ErrorCode.INVALID_TOPIC_EXCEPTION
    assert got["rf"] == (ErrorCode.INVALID_REPLICATION_FACTOR,
                         "Unable to replicate the partition 3 time(s): The target replication "
                         "factor of 3 cannot be reached because only 2 broker(s) are registered or some "
                         "brokers have all their log directories cordoned.")
    assert got["rf0"] == (ErrorCode.INVALID_REPLICATION_FACTOR,
                          "Replication factor must be larger than 0, or -1 to use the default value.")
    assert got["p0"] == (ErrorCode.INVALID_PARTITIONS,
                         "Number of partitions was set to an invalid non-positive value.")
    assert got["cfg"] == (ErrorCode.INVALID_CONFIG, "Unknown topic config name: nope")
    assert got["cfg2"] == (ErrorCode.INVALID_CONFIG,
                           "Invalid value abc for configuration retention.ms: Not a number of type LONG")
    assert got["manual"] == (ErrorCode.INVALID_REQUEST, "A manual partition assignment was specified, "
                             "but numPartitions was not set to -1.")
    assert got["manual2"] == (ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment "
                              "includes broker 9, but no such broker is registered.")
    assert got["manual3"] == (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                              "partitions should be a consecutive 0-based integer sequence")
    assert result.records == []


def test_validate_only_and_collisions():
    c = _cluster(1)
    result = c.replication.create_topics(CreateTopicsRequest(
        topics=[T(name="a.b", num_partitions=1, replication_factor=1)], validate_only=True))
    assert result.records == [] and result.response.topics[0].error_code == 0
    c.create_topic("a.b")
    (topic,) = c.replication.create_topics(CreateTopicsRequest(
        topics=[T(name="a_b", num_partitions=1, replication_factor=1)])).response.topics
    assert (topic.error_code, topic.error_message) == (
        int(ErrorCode.INVALID_TOPIC_EXCEPTION), "Topic 'a_b' collides with existing topic: a.b")


def test_all_brokers_fenced():
    c = controller()
    c.add_broker(1, unfence=False)
    (topic,) = c.replication.create_topics(CreateTopicsRequest(
        topics=[T(name="t", num_partitions=1, replication_factor=1)])).response.topics
    assert topic.error_message == ("Unable to replicate the partition 1 time(s): All brokers are "
                                   "currently fenced, or have all their log directories cordoned.")


def test_placer_spreads_replicas_over_racks():
    placer = StripedReplicaPlacer(random.Random(1))
    brokers = [UsableBroker(i, f"r{i % 3}", False) for i in range(6)]
    for replicas in placer.place(12, 3, brokers):
        assert len({f"r{b % 3}" for b in replicas}) == 3
    with pytest.raises(ControllerError, match="must be positive"):
        placer.place(1, 0, brokers)


def test_delete_topics():
    c = _cluster(1)
    created = c.create_topic("gone", configs={"retention.ms": "1"})
    result = c.replication.delete_topics(names=["gone", "missing"], ids=[bytes(15) + b"\x09"])
    assert [type(r) for r in result.records] == [RemoveTopicRecord]
    assert result.records[0] == RemoveTopicRecord(topic_id=created.topic_id)
    codes = [ErrorCode(r.error_code) for r in result.response]
    assert codes == [ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_ID]
    c.commit(result)
    assert c.metadata.image.topic("gone") is None
    assert c.configs.topic_config("gone", "retention.ms") is None


def test_create_partitions():
    c = _cluster(2)
    c.create_topic("t", partitions=2, rf=2)
    P = CreatePartitionsRequest.CreatePartitionsTopic
    result = c.replication.create_partitions(CreatePartitionsRequest(topics=[
        P(name="t", count=4), P(name="t2", count=3)]))
    assert [(r.partition_id, len(r.replicas)) for r in result.records if isinstance(r, PartitionRecord)] \
        == [(2, 2), (3, 2)]
    c.commit(result)
    bad = c.replication.create_partitions(CreatePartitionsRequest(topics=[
        P(name="t", count=3), P(name="t", count=4),
        P(name="t", count=6, assignments=[CreatePartitionsRequest.CreatePartitionsAssignment(broker_ids=[1, 2])])]))
    msgs = [(ErrorCode(r.error_code), r.error_message) for r in bad.response.results]
    assert msgs == [
        (ErrorCode.INVALID_PARTITIONS, "The topic t currently has 4 partition(s); 3 would not be an increase."),
        (ErrorCode.INVALID_PARTITIONS, "Topic already has 4 partition(s)."),
        (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
         "Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.")]


def _partitions(c: Controller, topic: str) -> dict[int, tuple[int, tuple[int, ...], int]]:
    t = c.metadata.image.topic(topic)
    assert t is not None
    return {p: (reg.leader, reg.isr, reg.leader_epoch) for p, reg in t.partitions.items()}


def test_fencing_moves_leadership_and_shrinks_the_isr():
    c = _cluster(3)
    c.commit(c.replication.create_topics(CreateTopicsRequest(topics=[
        T(name="u", num_partitions=-1, replication_factor=-1,
          assignments=[A(partition_index=0, broker_ids=[1, 2, 3]),
                       A(partition_index=1, broker_ids=[2, 3, 1])])])))
    reply = c.heartbeat(1, want_fence=True)
    assert reply.is_fenced
    # partition 0 loses its leader 1: the next ISR member leads, epoch bumped; partition 1
    # keeps its leader, 1 leaves the ISR (a shrink: the leader epoch stays, Kafka 3.6+)
    assert _partitions(c, "u") == {0: (2, (2, 3), 1), 1: (2, (2, 3), 0)}
    reg = c.cluster.registration(1)
    assert reg is not None and reg.fenced


def test_last_isr_member_fenced_leaves_the_partition_leaderless_then_unfencing_elects_it():
    c = _cluster(1)
    c.create_topic("t")
    c.heartbeat(1, want_fence=True)
    assert _partitions(c, "t") == {0: (NO_LEADER, (1,), 1)}
    c.heartbeat(1)
    assert _partitions(c, "t") == {0: (1, (1,), 2)}


def test_unclean_election_when_the_topic_allows_it():
    c = _cluster(2)
    c.commit(c.replication.create_topics(CreateTopicsRequest(topics=[T(
        name="t", num_partitions=-1, replication_factor=-1,
        assignments=[A(partition_index=0, broker_ids=[1, 2])],
        configs=[CreateTopicsRequest.CreatableTopicConfig(name="unclean.leader.election.enable",
                                                          value="true")])])))
    c.heartbeat(2, want_fence=True)
    assert _partitions(c, "t")[0] == (1, (1,), 0)
    c.heartbeat(1, want_fence=True)
    assert _partitions(c, "t")[0] == (NO_LEADER, (1,), 1)
    result = c.heartbeat(2)
    assert not result.is_fenced
    t = c.metadata.image.topic("t")
    assert t is not None
    reg = t.partitions[0]
    assert (reg.leader, reg.isr, int(reg.leader_recovery_state)) == (2, (2,), 1)


def test_controlled_shutdown_moves_leaders_then_lets_the_broker_go():
    c = _cluster(2)
    c.commit(c.replication.create_topics(CreateTopicsRequest(topics=[T(
        name="t", num_partitions=-1, replication_factor=-1,
        assignments=[A(partition_index=0, broker_ids=[1, 2])])])))
    reg = c.cluster.registration(1)
    assert reg is not None
    result = c.replication.process_broker_heartbeat(BrokerHeartbeatRequest(
        broker_id=1, broker_epoch=reg.epoch, current_metadata_offset=c.metadata.last_offset,
        want_shut_down=True), 0)
    first, second = result.records
    assert isinstance(first, BrokerRegistrationChangeRecord) and first.in_controlled_shutdown == 1
    assert isinstance(second, PartitionChangeRecord) and second.leader == 2 and second.isr == [2]
    assert (result.response.is_fenced, result.response.should_shut_down) == (False, False)
    c.commit(result)
    assert not c.replication.has_leaderships(1)
    c.heartbeat(2)  # broker 2 catches up past the shutdown records
    reply = c.heartbeat(1, want_shut_down=True)
    assert reply.should_shut_down and reply.is_fenced


def test_a_broker_whose_session_expires_is_fenced():
    c = _cluster(2)
    c.create_topic("t", partitions=2, rf=2)
    c.now_ms = SESSION_TIMEOUT_MS - 1
    c.heartbeat(2)
    assert c.replication.maybe_fence_one_stale_broker(SESSION_TIMEOUT_MS).records == []
    result = c.replication.maybe_fence_one_stale_broker(SESSION_TIMEOUT_MS + 1)
    assert isinstance(result.records[-1], BrokerRegistrationChangeRecord) and result.records[-1].broker_id == 1
    c.commit(result)
    assert not c.cluster.is_unfenced(1)
    assert all(1 not in reg[1] and reg[0] == 2 for reg in _partitions(c, "t").values())


def test_unregister_broker():
    c = _cluster(2)
    c.create_topic("t", partitions=2, rf=2)
    result = c.replication.unregister_broker(1)
    assert isinstance(result.records[-1], UnregisterBrokerRecord)
    c.commit(result)
    assert c.cluster.registration(1) is None
    with pytest.raises(ControllerError) as e:
        c.replication.unregister_broker(1)
    assert (e.value.error, str(e.value)) == (ErrorCode.BROKER_ID_NOT_REGISTERED,
                                             "Broker ID 1 is not currently registered")


def test_records_are_the_generated_messages():
    c = _cluster(1)
    result = c.replication.create_topics(CreateTopicsRequest(topics=[T(name="x", num_partitions=1,
                                                                       replication_factor=1)]))
    assert isinstance(result.records[0], TopicRecord)
    assert not any(isinstance(r, ConfigRecord) for r in result.records)


def test_a_heartbeat_records_changed_cordoned_log_dirs():
    c = _cluster(1)
    reg = c.cluster.registration(1)
    assert reg is not None
    request = BrokerHeartbeatRequest(broker_id=1, broker_epoch=reg.epoch,
                                     current_metadata_offset=c.metadata.last_offset,
                                     cordoned_log_dirs=[])
    (record,) = c.replication.process_broker_heartbeat(request, 0).records
    assert isinstance(record, BrokerRegistrationChangeRecord) and record.cordoned_log_dirs == []
    c.metadata.replay(record)
    assert c.replication.process_broker_heartbeat(request, 0).records == []  # unchanged: none
    request.cordoned_log_dirs = None  # an older broker says nothing about them
    assert c.replication.process_broker_heartbeat(request, 0).records == []
