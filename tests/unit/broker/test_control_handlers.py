"""LeaderAndIsr, StopReplica, UpdateMetadata and the requests answered by the cluster
controller, against a socket-free broker. Requests and responses go through the wire codec at
the version under test, so fields a version lacks are really absent."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kafpy.protocol import codec
from kafpy.protocol.errors import ErrorCode as E
from kafpy.protocol.messages import (AlterPartitionRequest, ControlledShutdownRequest, ElectLeadersRequest,
                               LeaderAndIsrRequest, MetadataRequest, RequestHeader, StopReplicaRequest,
                               UpdateMetadataRequest)

from kafpy.broker.apis import ApiRegistry
from kafpy.broker.handler import RequestContext
from kafpy.broker.handlers import control
from kafpy.broker.handlers.metadata import handle_metadata
from kafpy.replication.partition import Role
from tests.unit.broker.helpers import LocalBroker

LI = LeaderAndIsrRequest
SR = StopReplicaRequest
UM = UpdateMetadataRequest
TOPIC = "replicated"
TID = bytes(range(1, 17))
OUR_EPOCH = 100


@pytest.fixture
def broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop)
    b.services.broker_epoch = OUR_EPOCH
    try:
        yield b
    finally:
        b.close()
        loop.close()


def wire_call(broker: LocalBroker, func: Any, api_key: int, version: int, request: Any) -> Any:
    """Encode the request at ``version``, decode it as the server would, run the handler, and
    decode its encoded response."""
    header = RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=7,
                           client_id="controller")
    _, decoded = codec.decode_request(codec.encode_request(header, request)[4:])
    ctx = RequestContext(broker.services, header, "127.0.0.1", 1, "conn-test", "PLAINTEXT")
    resp = broker.loop.run_until_complete(func(ctx, decoded))
    frame = codec.encode_response(api_key, version, 7, resp)
    return codec.decode_response(api_key, version, frame[4:])[1]


def li_request(version: int, leader: int, leader_epoch: int, replicas=(0, 1), isr=(0, 1), partition: int = 0,
               controller_epoch: int = 1, broker_epoch: int = OUR_EPOCH, topic: str = TOPIC) -> LI:
    ps = LI.LeaderAndIsrPartitionState(topic_name=topic, partition_index=partition,
                                       controller_epoch=controller_epoch, leader=leader, leader_epoch=leader_epoch,
                                       isr=list(isr), partition_epoch=leader_epoch, replicas=list(replicas),
                                       is_new=leader_epoch == 0)
    req = LI(controller_id=1, controller_epoch=controller_epoch, broker_epoch=broker_epoch,
             live_leaders=[LI.LeaderAndIsrLiveLeader(broker_id=leader, host_name="127.0.0.1", port=9092)])
    if version < 2:
        req.ungrouped_partition_states = [ps]
    else:
        req.topic_states = [LI.LeaderAndIsrTopicState(topic_name=topic, topic_id=TID, partition_states=[ps])]
    return req


def li_errors(resp: Any, version: int) -> list[int]:
    if version < 5:
        return [p.error_code for p in resp.partition_errors]
    return [p.error_code for t in resp.topics for p in t.partition_errors]


def leader_and_isr(broker, version: int = 7, **kw) -> tuple[int, list[int]]:
    resp = wire_call(broker, control.handle_leader_and_isr, 4, version, li_request(version, **kw))
    return resp.error_code, li_errors(resp, version)


@pytest.mark.parametrize("version", [0, 1, 4, 5, 7])
def test_leader_and_isr_hosts_a_leader_then_follows_at_a_newer_epoch(broker, version):
    assert leader_and_isr(broker, version, leader=0, leader_epoch=0) == (E.NONE, [E.NONE])
    part = broker.replica_manager.get_partition(TOPIC, 0)
    assert (part.role, part.leader_epoch, part.isr) == (Role.LEADER, 0, (0, 1))
    assert leader_and_isr(broker, version, leader=1, leader_epoch=1) == (E.NONE, [E.NONE])
    assert (part.role, part.leader_id, part.leader_epoch) == (Role.FOLLOWER, 1, 1)
    if version >= 5:
        assert part.log.topic_id == TID


def test_leader_and_isr_ignores_an_equal_or_older_leader_epoch(broker):
    leader_and_isr(broker, leader=0, leader_epoch=3)
    assert leader_and_isr(broker, leader=1, leader_epoch=3) == (E.NONE, [E.STALE_CONTROLLER_EPOCH])
    assert leader_and_isr(broker, leader=1, leader_epoch=2) == (E.NONE, [E.STALE_CONTROLLER_EPOCH])
    assert broker.replica_manager.get_partition(TOPIC, 0).role is Role.LEADER


def test_leader_and_isr_from_an_older_controller_is_refused_whole(broker):
    leader_and_isr(broker, leader=0, leader_epoch=0, controller_epoch=5)
    assert leader_and_isr(broker, leader=1, leader_epoch=1, controller_epoch=4) == (
        E.STALE_CONTROLLER_EPOCH, [E.STALE_CONTROLLER_EPOCH])
    assert broker.replica_manager.get_partition(TOPIC, 0).leader_epoch == 0
    assert broker.replica_manager.controller_epoch == 5


def test_broker_epoch_older_than_ours_is_stale_newer_or_unknown_is_not(broker):
    assert leader_and_isr(broker, leader=0, leader_epoch=0, broker_epoch=OUR_EPOCH - 1) == (
        E.STALE_BROKER_EPOCH, [E.STALE_BROKER_EPOCH])
    assert broker.replica_manager.get_partition(TOPIC, 0) is None
    assert leader_and_isr(broker, leader=0, leader_epoch=0, broker_epoch=-1) == (E.NONE, [E.NONE])
    assert leader_and_isr(broker, leader=0, leader_epoch=1, broker_epoch=OUR_EPOCH + 1) == (E.NONE, [E.NONE])


def test_leader_and_isr_for_a_partition_not_assigned_here(broker):
    assert leader_and_isr(broker, leader=1, leader_epoch=0, replicas=(1, 2), isr=(1, 2)) == (
        E.NONE, [E.UNKNOWN_TOPIC_OR_PARTITION])
    assert broker.replica_manager.get_partition(TOPIC, 0) is None


def test_leader_and_isr_with_another_topic_id_is_inconsistent(broker):
    leader_and_isr(broker, leader=0, leader_epoch=0)
    req = li_request(7, leader=0, leader_epoch=1)
    req.topic_states[0].topic_id = bytes(range(2, 18))
    resp = wire_call(broker, control.handle_leader_and_isr, 4, 7, req)
    assert li_errors(resp, 7) == [E.INCONSISTENT_TOPIC_ID]


def stop_replica(broker, version: int, leader_epoch: int, delete: bool, controller_epoch: int = 1):
    req = SR(controller_id=1, controller_epoch=controller_epoch, broker_epoch=OUR_EPOCH, delete_partitions=delete)
    if version == 0:
        req.ungrouped_partitions = [SR.StopReplicaPartitionV0(topic_name=TOPIC, partition_index=0)]
    elif version < 3:
        req.topics = [SR.StopReplicaTopicV1(name=TOPIC, partition_indexes=[0])]
    else:
        req.topic_states = [SR.StopReplicaTopicState(topic_name=TOPIC, partition_states=[
            SR.StopReplicaPartitionState(partition_index=0, leader_epoch=leader_epoch, delete_partition=delete)])]
    resp = wire_call(broker, control.handle_stop_replica, 5, version, req)
    return resp.error_code, [p.error_code for p in resp.partition_errors]


@pytest.mark.parametrize("version", [0, 1, 3, 4])
def test_stop_replica_stops_and_deletes(broker, version):
    leader_and_isr(broker, leader=0, leader_epoch=2)
    assert stop_replica(broker, version, 2, delete=False) == (E.NONE, [E.NONE])
    assert broker.replica_manager.get_partition(TOPIC, 0) is None
    assert broker.log_manager.get_log(TOPIC, 0) is not None
    leader_and_isr(broker, leader=0, leader_epoch=3)
    assert stop_replica(broker, version, -2, delete=True) == (E.NONE, [E.NONE])
    assert broker.replica_manager.get_partition(TOPIC, 0) is None
    assert broker.log_manager.get_log(TOPIC, 0) is None


def test_stop_replica_with_an_older_leader_epoch_is_fenced(broker):
    leader_and_isr(broker, leader=0, leader_epoch=5)
    assert stop_replica(broker, 3, 4, delete=False) == (E.NONE, [E.FENCED_LEADER_EPOCH])
    assert broker.replica_manager.get_partition(TOPIC, 0) is not None
    assert stop_replica(broker, 3, 5, delete=False, controller_epoch=0) == (
        E.STALE_CONTROLLER_EPOCH, [E.STALE_CONTROLLER_EPOCH])
    assert broker.replica_manager.get_partition(TOPIC, 0) is not None


def umr(version: int, states: list[tuple[int, int, list[int], list[int], list[int]]], brokers=(0, 1, 2),
        controller_id: int = 2, controller_epoch: int = 1, broker_epoch: int = OUR_EPOCH, topic: str = TOPIC) -> UM:
    parts = [UM.UpdateMetadataPartitionState(topic_name=topic, partition_index=i, controller_epoch=controller_epoch,
                                             leader=leader, leader_epoch=1, isr=isr, zk_version=3, replicas=replicas,
                                             offline_replicas=offline)
             for i, (leader, _, replicas, isr, offline) in enumerate(states)]
    live = [UM.UpdateMetadataBroker(id=b, v0_host="h%d" % b, v0_port=9000 + b, rack="r%d" % b, endpoints=[
        UM.UpdateMetadataEndpoint(port=9100 + b, host="other%d" % b, listener="INTERNAL", security_protocol=0),
        UM.UpdateMetadataEndpoint(port=9000 + b, host="h%d" % b, listener="PLAINTEXT", security_protocol=0)])
        for b in brokers]
    if version < 3:  # endpoints carry no listener name: one per security protocol
        for b in live:
            del b.endpoints[0]
    req = UM(controller_id=controller_id, controller_epoch=controller_epoch, broker_epoch=broker_epoch,
             live_brokers=live)
    if version < 5:
        req.ungrouped_partition_states = parts
    else:
        req.topic_states = [UM.UpdateMetadataTopicState(topic_name=topic, topic_id=TID, partition_states=parts)]
    return req


def metadata(broker, version: int = 12) -> Any:
    return wire_call(broker, handle_metadata, 3, version, MetadataRequest(topics=None))


@pytest.mark.parametrize("version", [0, 1, 3, 5, 7, 8])
def test_update_metadata_feeds_the_cache(broker, version):
    req = umr(version, [(1, 0, [1, 0], [1, 0], []), (-1, 0, [2, 1], [2], [2])], brokers=(0, 1))
    assert wire_call(broker, control.handle_update_metadata, 6, version, req).error_code == E.NONE
    md = broker.metadata
    assert md.controller_id == 2
    assert sorted((b.node_id, b.host, b.port) for b in md.brokers()) == [(0, "h0", 9000), (1, "h1", 9001)]
    if version >= 2:
        assert md.broker(1).rack == "r1"
    info = md.topic(TOPIC)
    assert (info.partitions[0].leader, info.partitions[0].isr, info.partitions[0].partition_epoch) == (1, [1, 0], 3)
    if version >= 4:
        assert info.partitions[1].offline_replicas == [2]
    if version >= 7:
        assert info.topic_id == TID
    resp = metadata(broker, 12 if version >= 7 else 1)
    (topic,) = [t for t in resp.topics if t.name == TOPIC]
    p0, p1 = topic.partitions
    assert (p0.error_code, p0.leader_id) == (E.NONE, 1)
    assert (p1.error_code, p1.leader_id) == (E.LEADER_NOT_AVAILABLE, -1)
    assert resp.controller_id == 2


def test_update_metadata_keeps_configs_and_deletes_a_topic_whose_partitions_go(broker):
    wire_call(broker, control.handle_update_metadata, 6, 8, umr(8, [(0, 0, [0], [0], []), (0, 0, [0], [0], [])]))
    deleting = umr(8, [(-2, 0, [0], [0], [])])
    wire_call(broker, control.handle_update_metadata, 6, 8, deleting)
    assert sorted(broker.metadata.topic(TOPIC).partitions) == [1]
    deleting.topic_states[0].partition_states[0].partition_index = 1
    wire_call(broker, control.handle_update_metadata, 6, 8, deleting)
    assert broker.metadata.topic(TOPIC) is None


def test_update_metadata_fencing(broker):
    wire_call(broker, control.handle_update_metadata, 6, 8, umr(8, [(0, 0, [0], [0], [])], controller_epoch=3))
    stale = umr(8, [(1, 0, [1], [1], [])], controller_id=1, controller_epoch=2)
    assert wire_call(broker, control.handle_update_metadata, 6, 8, stale).error_code == E.STALE_CONTROLLER_EPOCH
    old_broker = umr(8, [(1, 0, [1], [1], [])], controller_epoch=3, broker_epoch=OUR_EPOCH - 1)
    assert wire_call(broker, control.handle_update_metadata, 6, 8, old_broker).error_code == E.STALE_BROKER_EPOCH
    assert broker.metadata.partition(TOPIC, 0).leader == 0
    assert broker.metadata.controller_id == 2


class ControllerStandIn:
    """Answers as a KafkaController would; records what it was asked."""

    def __init__(self, active: bool) -> None:
        self.is_active = active
        self.asked: list[Any] = []

    async def controlled_shutdown(self, broker_id: int, broker_epoch: int):
        self.asked.append((broker_id, broker_epoch))
        return E.NONE, [(TOPIC, 3)]

    async def alter_partition(self, request: Any, api_version: int):
        from kafpy.protocol.messages import AlterPartitionResponse
        self.asked.append(request.broker_id)
        return AlterPartitionResponse(error_code=E.NONE, topics=[])

    async def alter_partition_reassignments(self, reassignments):
        self.asked.append(dict(reassignments))
        return {tp: ((E.NONE, None) if r is not None else (E.NO_REASSIGNMENT_IN_PROGRESS, "none"))
                for tp, r in reassignments.items()}

    async def list_partition_reassignments(self, partitions):
        from kafpy.replication.zk_data import ReplicaAssignment
        self.asked.append(partitions)
        return E.NONE, {(TOPIC, 1): ReplicaAssignment((0, 1, 2), adding_replicas=(2,), removing_replicas=(0,))}

    async def allocate_producer_ids(self, broker_id: int, broker_epoch: int):
        from kafpy.replication.zk_data import ProducerIdBlock
        self.asked.append(("pids", broker_id, broker_epoch))
        return ProducerIdBlock(broker_id, 3000) if broker_epoch == 55 else E.STALE_BROKER_EPOCH

    async def elect_leaders(self, election_type: int, partitions):
        self.asked.append((election_type, sorted(partitions)))
        return {tp: ((E.NONE, None) if tp[1] == 0 else (E.ELECTION_NOT_NEEDED, "Leader election not needed"))
                for tp in partitions}


def test_controller_requests_without_a_cluster_controller_are_not_controller(broker):
    resp = wire_call(broker, control.handle_controlled_shutdown, 7, 3,
                     ControlledShutdownRequest(broker_id=0, broker_epoch=OUR_EPOCH))
    assert resp.error_code == E.NOT_CONTROLLER
    resp = wire_call(broker, control.handle_alter_partition, 56, 3, AlterPartitionRequest(broker_id=0))
    assert resp.error_code == E.NOT_CONTROLLER
    broker.services.cluster_controller = ControllerStandIn(active=False)
    resp = wire_call(broker, control.handle_alter_partition, 56, 3, AlterPartitionRequest(broker_id=0))
    assert resp.error_code == E.NOT_CONTROLLER


def test_controller_requests_reach_the_cluster_controller(broker):
    cc = broker.services.cluster_controller = ControllerStandIn(active=True)
    resp = wire_call(broker, control.handle_controlled_shutdown, 7, 3,
                     ControlledShutdownRequest(broker_id=2, broker_epoch=55))
    assert (resp.error_code, [(r.topic_name, r.partition_index) for r in resp.remaining_partitions]) == (
        E.NONE, [(TOPIC, 3)])
    resp = wire_call(broker, control.handle_controlled_shutdown, 7, 1, ControlledShutdownRequest(broker_id=2))
    assert cc.asked == [(2, 55), (2, -1)]
    assert wire_call(broker, control.handle_alter_partition, 56, 2, AlterPartitionRequest(broker_id=1)).error_code == 0


def test_allocate_producer_ids_is_answered_by_the_active_controller(broker):
    from kafpy.protocol.messages import AllocateProducerIdsRequest
    broker.services.cluster_controller = ControllerStandIn(active=False)
    resp = wire_call(broker, control.handle_allocate_producer_ids, 67, 0,
                     AllocateProducerIdsRequest(broker_id=2, broker_epoch=55))
    assert (resp.error_code, resp.producer_id_start, resp.producer_id_len) == (E.NOT_CONTROLLER, 0, 0)
    cc = broker.services.cluster_controller = ControllerStandIn(active=True)
    resp = wire_call(broker, control.handle_allocate_producer_ids, 67, 0,
                     AllocateProducerIdsRequest(broker_id=2, broker_epoch=55))
    assert (resp.error_code, resp.producer_id_start, resp.producer_id_len) == (E.NONE, 3000, 1000)
    resp = wire_call(broker, control.handle_allocate_producer_ids, 67, 0,
                     AllocateProducerIdsRequest(broker_id=2, broker_epoch=54))
    assert (resp.error_code, resp.producer_id_len) == (E.STALE_BROKER_EPOCH, 0)
    assert cc.asked == [("pids", 2, 55), ("pids", 2, 54)]


def test_elect_leaders_for_all_partitions_answers_those_that_needed_one(broker):
    cc = broker.services.cluster_controller = ControllerStandIn(active=True)
    wire_call(broker, control.handle_update_metadata, 6, 8, umr(8, [(0, 0, [0], [0], []), (0, 0, [0], [0], [])]))
    resp = wire_call(broker, control.handle_elect_leaders, 43, 2, ElectLeadersRequest(
        election_type=0, topic_partitions=None, timeout_ms=1000))
    assert [(r.topic, [p.partition_id for p in r.partition_result]) for r in resp.replica_election_results] == [
        (TOPIC, [0])]
    assert cc.asked == [(0, [(TOPIC, 0), (TOPIC, 1)])]
    named = ElectLeadersRequest(election_type=0, timeout_ms=1000, topic_partitions=[
        ElectLeadersRequest.TopicPartitions(topic=TOPIC, partitions=[1])])
    resp = wire_call(broker, control.handle_elect_leaders, 43, 2, named)
    assert [p.error_code for p in resp.replica_election_results[0].partition_result] == [E.ELECTION_NOT_NEEDED]


def test_reassignment_requests_go_to_the_active_controller(broker):
    from kafpy.protocol.messages import AlterPartitionReassignmentsRequest as AR, ListPartitionReassignmentsRequest as LR
    alter = AR(timeout_ms=1000, topics=[AR.ReassignableTopic(name=TOPIC, partitions=[
        AR.ReassignablePartition(partition_index=0, replicas=[1, 2]),
        AR.ReassignablePartition(partition_index=1, replicas=None)])])
    listing = LR(timeout_ms=1000, topics=None)
    broker.services.cluster_controller = ControllerStandIn(active=False)
    assert wire_call(broker, control.handle_alter_partition_reassignments, 45, 0, alter).error_code == E.NOT_CONTROLLER
    assert wire_call(broker, control.handle_list_partition_reassignments, 46, 0, listing).error_code == E.NOT_CONTROLLER
    cc = broker.services.cluster_controller = ControllerStandIn(active=True)
    resp = wire_call(broker, control.handle_alter_partition_reassignments, 45, 0, alter)
    assert resp.error_code == E.NONE
    assert [(t.name, [(p.partition_index, p.error_code) for p in t.partitions]) for t in resp.responses] == [
        (TOPIC, [(0, E.NONE), (1, E.NO_REASSIGNMENT_IN_PROGRESS)])]
    resp = wire_call(broker, control.handle_list_partition_reassignments, 46, 0, listing)
    assert [(t.name, [(p.partition_index, p.replicas, p.adding_replicas, p.removing_replicas) for p in t.partitions])
            for t in resp.topics] == [(TOPIC, [(1, [0, 1, 2], [2], [0])])]
    assert cc.asked == [{(TOPIC, 0): [1, 2], (TOPIC, 1): None}, None]


def test_control_apis_are_advertised_in_zookeeper_mode_and_elections_and_reassignments_standalone():
    standalone = {k: (lo, hi) for k, lo, hi in ApiRegistry.load().version_ranges()}
    zk = {k: (lo, hi) for k, lo, hi in ApiRegistry.load(zk_mode=True).version_ranges()}
    assert not set(standalone) & {4, 5, 6, 7, 56, 67}
    # ElectLeaders and the reassignments: a standalone broker answers them as its own
    # controller, at Kafka 4.4's versions (handlers/standalone.py)
    assert {k: standalone[k] for k in (43, 45, 46)} == {43: (0, 2), 45: (0, 1), 46: (0, 0)}
    assert {k: zk[k] for k in (4, 5, 6, 7, 43, 45, 46, 56, 67)} == {
        4: (0, 7), 5: (0, 4), 6: (0, 8), 7: (0, 3), 43: (0, 2), 45: (0, 0), 46: (0, 0), 56: (0, 3), 67: (0, 0)}


def test_topic_changes_on_a_broker_that_is_not_the_controller(broker):
    from kafpy.protocol.messages import CreatePartitionsRequest, CreateTopicsRequest, DeleteTopicsRequest
    from kafpy.broker.handlers.admin import handle_create_partitions, handle_create_topics, handle_delete_topics
    broker.create_topic("existing")
    broker.services.cluster_controller = ControllerStandIn(active=False)
    create = CreateTopicsRequest(timeout_ms=1000, topics=[CreateTopicsRequest.CreatableTopic(
        name="new", num_partitions=1, replication_factor=1)])
    assert [t.error_code for t in wire_call(broker, handle_create_topics, 19, 7, create).topics] == [E.NOT_CONTROLLER]
    delete = DeleteTopicsRequest(timeout_ms=1000, topic_names=["existing", "missing"])
    assert [t.error_code for t in wire_call(broker, handle_delete_topics, 20, 5, delete).responses] == [
        E.NOT_CONTROLLER, E.NOT_CONTROLLER]
    grow = CreatePartitionsRequest(timeout_ms=1000, topics=[CreatePartitionsRequest.CreatePartitionsTopic(
        name="existing", count=3)])
    assert [t.error_code for t in wire_call(broker, handle_create_partitions, 37, 3, grow).results] == [
        E.NOT_CONTROLLER]
    assert broker.metadata.topic("new") is None and len(broker.metadata.topic("existing").partitions) == 1
