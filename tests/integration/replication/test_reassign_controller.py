"""Partition reassignment in the in-process KafkaController against a real ZooKeeper (the
recording channel of test_controller stands in for the brokers): phase 1 writes RS = TRS +
ORS with adding/removing replicas and bumps the leader epoch; the targets joining the ISR
(AlterPartition from the leader) completes it; cancellation, refusals, NOT_CONTROLLER."""
from __future__ import annotations

import pytest

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterPartitionRequest
from kafpy.replication import zk_data as zd
from kafpy.replication.zk_client import KafkaZkClient
from tests.integration.replication.test_controller import (LAIR, STOP, Recorder, run, started,
                                                           wait_until, znode)

pytestmark = pytest.mark.timeout(120)


def isr_request(broker_id: int, epochs: list[int], topic_id: bytes, state: dict, isr: list[int],
                partition_epoch: int) -> AlterPartitionRequest:
    return AlterPartitionRequest(broker_id=broker_id, broker_epoch=epochs[broker_id - 1], topics=[
        AlterPartitionRequest.TopicData(topic_id=topic_id, partitions=[AlterPartitionRequest.PartitionData(
            partition_index=0, leader_epoch=state["leader_epoch"], partition_epoch=partition_epoch,
            new_isr_with_epochs=[AlterPartitionRequest.BrokerState(broker_id=b, broker_epoch=epochs[b - 1])
                                 for b in isr])])])


def test_reassignment_steps_cancel_and_refusals(zookeeper):
    async def body(zks: list[KafkaZkClient], epochs: list[int]) -> None:
        a, b, _ = zks
        rec = Recorder()
        c1 = started(a, 1, rec)
        await c1.startup(epochs[0])
        await wait_until(lambda: c1.is_active)
        await a.create_topic_assignment("t", zd.TopicAssignment.of(zd.topic_id_to_str(bytes(range(16))),
                                                                   {0: [1, 2]}))
        await wait_until(lambda: znode(a, zd.partition_state_path("t", 0)))
        topic_id = bytes(range(16))
        tp = ("t", 0)

        # phase 1: RS = TRS + ORS, leader epoch bumped, LeaderAndIsr to all of RS
        mark = len(rec.sent)
        assert await c1.alter_partition_reassignments({tp: [2, 3]}) == {tp: (ErrorCode.NONE, None)}
        topic = await znode(a, zd.topic_path("t"))
        assert (topic["partitions"], topic["adding_replicas"], topic["removing_replicas"]) == (
            {"0": [2, 3, 1]}, {"0": [3]}, {"0": [1]})
        state = await znode(a, zd.partition_state_path("t", 0))
        assert (state["leader"], state["leader_epoch"], state["isr"]) == (1, 1, [1, 2])
        lairs = await wait_until(lambda: {to for _, to, k, _, _ in rec.sent[mark:] if k == LAIR} >= {1, 2, 3}
                                 and rec.of(LAIR, to=3, since=mark))
        (ps,) = lairs[-1].topic_states[0].partition_states
        assert (ps.replicas, ps.adding_replicas, ps.removing_replicas, ps.leader_epoch) == ([2, 3, 1], [3], [1], 1)
        err, listed = await c1.list_partition_reassignments(None)
        assert err == ErrorCode.NONE and listed == {
            tp: zd.ReplicaAssignment((2, 3, 1), adding_replicas=(3,), removing_replicas=(1,))}
        assert (await c1.list_partition_reassignments([("t", 1)]))[1] == {}

        # phase 2: broker 3 joins the ISR; leader 1 is not a target, 2 takes over, 1 is removed
        mark = len(rec.sent)
        _, stat = await a.get_data(zd.partition_state_path("t", 0))
        assert stat is not None
        resp = await c1.alter_partition(isr_request(1, epochs, topic_id, state, [1, 2, 3], stat.version), 3)
        assert resp.topics[0].partitions[0].error_code == 0
        topic = await znode(a, zd.topic_path("t"))
        assert (topic["partitions"], topic["adding_replicas"], topic["removing_replicas"]) == (
            {"0": [2, 3]}, {}, {})
        state = await znode(a, zd.partition_state_path("t", 0))
        assert (state["leader"], state["isr"]) == (2, [2, 3]) and state["leader_epoch"] >= 2
        stops = await wait_until(lambda: rec.of(STOP, to=1, since=mark))
        assert [(p.partition_index, p.delete_partition) for p in stops[-1].topic_states[0].partition_states] \
            == [(0, True)]
        assert (await c1.list_partition_reassignments(None)) == (ErrorCode.NONE, {})

        # cancel: start moving to [1, 3], then cancel back to [2, 3]; the added replica stops
        assert (await c1.alter_partition_reassignments({tp: [1, 3]}))[tp][0] == ErrorCode.NONE
        assert (await znode(a, zd.topic_path("t")))["adding_replicas"] == {"0": [1]}
        mark = len(rec.sent)
        assert await c1.alter_partition_reassignments({tp: None}) == {tp: (ErrorCode.NONE, None)}
        topic = await znode(a, zd.topic_path("t"))
        # as Kafka's ZK controller: the origin is RS minus the adding replicas, in RS's order
        assert (topic["partitions"], topic["adding_replicas"], topic["removing_replicas"]) == (
            {"0": [3, 2]}, {}, {})
        await wait_until(lambda: rec.of(STOP, to=1, since=mark))

        # refusals
        result = await c1.alter_partition_reassignments({
            tp: None, ("t", 7): [1], ("nope", 0): [1], ("t", 0): [2, 9]})
        assert result[("t", 7)][0] == result[("nope", 0)][0] == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        assert result[tp][0] == ErrorCode.INVALID_REPLICA_ASSIGNMENT
        assert (await c1.alter_partition_reassignments({tp: None}))[tp] == (
            ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, None)

        # only the active controller answers
        c2 = started(b, 2, rec)
        assert await c2.alter_partition_reassignments({tp: [1]}) == {tp: (ErrorCode.NOT_CONTROLLER, None)}
        assert await c2.list_partition_reassignments(None) == (ErrorCode.NOT_CONTROLLER, {})
        await c1.shutdown()
    run(zookeeper, 3, body)


def test_a_new_controller_resumes_a_reassignment_in_progress(zookeeper):
    async def body(zks: list[KafkaZkClient], epochs: list[int]) -> None:
        a, b, _ = zks
        rec = Recorder()
        # ZooKeeper shows a reassignment whose targets are all in the ISR already
        await a.create_topic_assignment("r", zd.TopicAssignment("AAECAwQFBgcICQoLDA0ODw", {
            0: zd.ReplicaAssignment((2, 3, 1), adding_replicas=(3,), removing_replicas=(1,))}))
        c1 = started(a, 1, rec)
        await c1.startup(epochs[0])
        await wait_until(lambda: c1.is_active)
        state = await wait_until(lambda: znode(a, zd.partition_state_path("r", 0)))
        assert state["isr"] == [2, 3, 1] or state["isr"] == [2, 3]
        topic = await wait_until(lambda: _done(a))
        assert topic["partitions"] == {"0": [2, 3]}
        state = await znode(a, zd.partition_state_path("r", 0))
        assert (state["leader"], state["isr"]) == (2, [2, 3])
        await c1.shutdown()
    run(zookeeper, 3, body)


async def _done(zk: KafkaZkClient) -> dict | None:
    topic = await znode(zk, zd.topic_path("r"))
    return topic if topic and not topic["adding_replicas"] and not topic["removing_replicas"] else None
