"""ReplicaManager over real logs: apply_partition_states, acks=-1 waits through the produce
purgatory on the event loop, and Produce answering NOT_LEADER_OR_FOLLOWER on a follower."""
from __future__ import annotations

import asyncio
import dataclasses

import pytest

from protocol.errors import ErrorCode
from protocol.messages import ProduceRequest
from protocol.records import build_batch

from broker.handlers.produce import handle_produce
from tests.unit.broker.helpers import LocalBroker, call

F1 = 1


@pytest.fixture
def broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop)
    yield b
    b.close()
    loop.close()


def _follow(broker, topic: str, epoch: int = 1) -> None:
    """Make this broker a follower of F1 for topic-0 (what a LeaderAndIsr would say)."""
    part = broker.replica_manager.get_partition(topic, 0)
    from replication.partition import PartitionState
    broker.replica_manager.apply_partition_states([PartitionState(
        topic, 0, part.topic_id, F1, epoch, 1, (0, F1), (0, F1))])


def _isr_of_two(broker, topic: str, epoch: int = 1):
    """Lead topic-0 with a follower F1 in the ISR, so the HW waits for F1."""
    from replication.partition import PartitionState
    part = broker.replica_manager.get_partition(topic, 0)
    broker.replica_manager.apply_partition_states([PartitionState(
        topic, 0, part.topic_id, 0, epoch, 1, (0, F1), (0, F1))])
    return part


def test_apply_partition_states_hosts_and_drops(broker):
    info = broker.create_topic("a", 2)
    rm = broker.replica_manager
    assert rm.get_partition("a", 1).is_leader
    from replication.partition import PartitionState
    stale = rm.apply_partition_states([PartitionState("a", 0, info.topic_id, 0, 0, 0, (0,), (0,))])
    assert stale == {("a", 0): ErrorCode.STALE_CONTROLLER_EPOCH}
    broker.loop.run_until_complete(broker.controller.delete_topic("a"))
    assert rm.get_partition("a", 0) is None and broker.metadata.topic("a") is None


def _parked_commit(broker, timeout_ms: int):
    """An acks=-1 append on t-0 whose follower F1 has not fetched: (partition, wait future, offset)."""
    broker.create_topic("t")
    part = _isr_of_two(broker, "t")
    info = part.append_records_to_leader(build_batch([(None, b"x")]), "coordinator", -1)
    return part, broker.replica_manager.wait_for_commit(part, info.last_offset + 1, timeout_ms), info.last_offset + 1


def test_wait_for_commit_completes_when_hw_passes(broker):
    part, fut, required = _parked_commit(broker, 10_000)
    broker.loop.run_until_complete(asyncio.sleep(0))
    assert not fut.done()
    part.update_follower_fetch_state(F1, required, 0)
    assert broker.loop.run_until_complete(fut) == ErrorCode.NONE


def test_wait_for_commit_times_out(broker):
    _, fut, _ = _parked_commit(broker, 20)
    assert broker.loop.run_until_complete(fut) == ErrorCode.REQUEST_TIMED_OUT


def test_leadership_loss_completes_waits(broker):
    _, fut, _ = _parked_commit(broker, 10_000)
    _follow(broker, "t", epoch=2)
    assert broker.loop.run_until_complete(fut) == ErrorCode.NOT_LEADER_OR_FOLLOWER


def _produce(broker, topic, acks, timeout_ms=30000):
    req = ProduceRequest(transactional_id=None, acks=acks, timeout_ms=timeout_ms, topic_data=[
        ProduceRequest.TopicProduceData(name=topic, partition_data=[
            ProduceRequest.PartitionProduceData(index=0, records=build_batch([(None, b"v")]))])])
    return call(broker, handle_produce, 0, 9, req).responses[0].partition_responses[0]


def test_produce_on_follower_is_refused(broker):
    broker.create_topic("t")
    _follow(broker, "t")
    for acks in (1, -1):
        assert _produce(broker, "t", acks).error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER


def test_produce_acks_all_parks_until_timeout_when_followers_lag(broker):
    broker.create_topic("t")
    _isr_of_two(broker, "t")
    r = _produce(broker, "t", -1, timeout_ms=20)
    assert r.error_code == ErrorCode.REQUEST_TIMED_OUT and r.base_offset == 0
    assert _produce(broker, "t", 1).error_code == ErrorCode.NONE


def test_produce_acks_all_min_isr_up_front(broker):
    broker.create_topic("t", configs={"min.insync.replicas": "2"})
    part = broker.replica_manager.get_partition("t", 0)
    assert part.min_insync_replicas == 2
    from replication.partition import PartitionState
    broker.replica_manager.apply_partition_states([PartitionState(
        "t", 0, part.topic_id, 0, 1, 1, (0, F1), (0,))])
    r = _produce(broker, "t", -1)
    assert r.error_code == ErrorCode.NOT_ENOUGH_REPLICAS and part.log.log_end_offset == 0


def test_partition_state_is_frozen():
    from replication.partition import PartitionState
    s = PartitionState("t", 0, b"", 0, 0, 0, (0,), (0,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.leader = 1  # type: ignore[misc]
