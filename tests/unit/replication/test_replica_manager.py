"""ReplicaManager over real logs: apply_partition_states, acks=-1 waits through the produce
purgatory on the event loop, and Produce answering NOT_LEADER_OR_FOLLOWER on a follower."""
from __future__ import annotations

import asyncio
import dataclasses

import pytest

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import ProduceRequest
from kafpy.protocol.records import build_batch

from kafpy.broker.handlers.produce import handle_produce
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
    from kafpy.replication.partition import PartitionState
    broker.replica_manager.apply_partition_states([PartitionState(
        topic, 0, part.topic_id, F1, epoch, 1, (0, F1), (0, F1))])


def _isr_of_two(broker, topic: str, epoch: int = 1):
    """Lead topic-0 with a follower F1 in the ISR, so the HW waits for F1."""
    from kafpy.replication.partition import PartitionState
    part = broker.replica_manager.get_partition(topic, 0)
    broker.replica_manager.apply_partition_states([PartitionState(
        topic, 0, part.topic_id, 0, epoch, 1, (0, F1), (0, F1))])
    return part


def test_apply_partition_states_hosts_and_drops(broker):
    info = broker.create_topic("a", 2)
    rm = broker.replica_manager
    assert rm.get_partition("a", 1).is_leader
    from kafpy.replication.partition import PartitionState
    stale = rm.apply_partition_states([PartitionState("a", 0, info.topic_id, 0, 0, 0, (0,), (0,))])
    assert stale == {("a", 0): ErrorCode.STALE_CONTROLLER_EPOCH}
    broker.loop.run_until_complete(broker.controller.delete_topic("a"))
    assert rm.get_partition("a", 0) is None and broker.metadata.topic("a") is None


def _parked_commit(broker, timeout_ms: int):
    """An acks=-1 append_records on t-0 whose follower F1 has not fetched: (partition, the
    future of its results, the offset the HW must reach)."""
    broker.create_topic("t")
    part = _isr_of_two(broker, "t")
    fut = broker.replica_manager.append_records(timeout_ms, -1, "client", [("t", 0, build_batch([(None, b"x")]))])
    return part, fut, part.log.log_end_offset


def _error(broker, fut) -> ErrorCode:
    [(error, _, _, _)] = broker.loop.run_until_complete(fut)
    return error


def test_append_records_acks_all_completes_when_hw_passes(broker):
    part, fut, required = _parked_commit(broker, 10_000)
    broker.loop.run_until_complete(asyncio.sleep(0))
    assert not fut.done()
    part.update_follower_fetch_state(F1, required, 0)
    assert _error(broker, fut) == ErrorCode.NONE


def test_append_records_acks_all_times_out(broker):
    _, fut, _ = _parked_commit(broker, 20)
    assert _error(broker, fut) == ErrorCode.REQUEST_TIMED_OUT


def test_leadership_loss_completes_waits(broker):
    _, fut, _ = _parked_commit(broker, 10_000)
    _follow(broker, "t", epoch=2)
    assert _error(broker, fut) == ErrorCode.NOT_LEADER_OR_FOLLOWER


def test_append_records_answers_each_partition(broker):
    """Unknown partitions, internal topics (unless allowed) and followers answer their
    errors; the others append, acks=1 answered at once with the append's offsets."""
    broker.create_topic("t")
    broker.create_topic("f")
    _follow(broker, "f")
    batch = build_batch([(None, b"x")])
    fut = broker.replica_manager.append_records(30000, 1, "client", [("t", 0, batch), ("nope", 0, batch),
                                                                     ("f", 0, batch), ("t", 0, batch)])
    assert fut.done()
    ok, unknown, follower, again = fut.result()
    assert (ok[0], ok[2].first_offset, again[2].first_offset) == (ErrorCode.NONE, 0, 1)
    assert unknown == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None, None, -1)
    assert follower[0] == ErrorCode.NOT_LEADER_OR_FOLLOWER and follower[2] is None


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
    from kafpy.replication.partition import PartitionState
    broker.replica_manager.apply_partition_states([PartitionState(
        "t", 0, part.topic_id, 0, 1, 1, (0, F1), (0,))])
    r = _produce(broker, "t", -1)
    assert r.error_code == ErrorCode.NOT_ENOUGH_REPLICAS and part.log.log_end_offset == 0


def test_partition_state_is_frozen():
    from kafpy.replication.partition import PartitionState
    s = PartitionState("t", 0, b"", 0, 0, 0, (0,), (0,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.leader = 1


@pytest.fixture
def two_dir_broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(f"{tmp_path / 'd0'},{tmp_path / 'd1'}", loop)
    b.halted = []
    b.replica_manager.halt = lambda: b.halted.append(True)  # instead of ending the process
    yield b
    b.close()
    loop.close()


def test_a_failed_log_dir_takes_its_partitions_offline(two_dir_broker):
    import errno
    from kafpy.protocol.messages import FetchRequest, ListOffsetsRequest, MetadataRequest
    from kafpy.broker.handlers.fetch import handle_fetch
    from kafpy.broker.handlers.metadata import handle_metadata
    from kafpy.broker.handlers.offsets import handle_list_offsets
    from kafpy.storage.errors import KafkaStorageError

    b = two_dir_broker
    rm, lm = b.replica_manager, b.log_manager
    b.create_topic("t", 4)
    d0 = lm.log_dirs[0]
    offline = sorted(p for p in range(4) if lm.log_dir_of("t", p) == d0)
    online = sorted(set(range(4)) - set(offline))
    assert offline and online
    failure = KafkaStorageError("append failed")
    failure.__cause__ = OSError(errno.ENOSPC, "No space left on device")
    told = []

    async def notify() -> None:  # ZooKeeper mode: the log dir event notification
        told.append(True)
    rm.log_dir_event_notifier = notify
    lm.get_log("t", offline[0]).on_storage_error(failure)  # what a failing append reports
    lm.get_log("t", offline[0]).on_storage_error(failure)
    b.loop.run_until_complete(asyncio.sleep(0.01))
    assert rm.offline_partitions == {("t", p) for p in offline} and not b.halted
    assert told == [True]
    P = ProduceRequest
    produce = call(b, handle_produce, 0, 9, P(acks=1, timeout_ms=1000, topic_data=[P.TopicProduceData(
        name="t", partition_data=[P.PartitionProduceData(index=p, records=build_batch([(None, b"x")]))
                                  for p in range(4)])]))
    errors = {r.index: r.error_code for r in produce.responses[0].partition_responses}
    assert errors == {p: ErrorCode.KAFKA_STORAGE_ERROR if p in offline else ErrorCode.NONE for p in range(4)}
    F = FetchRequest
    fetch = call(b, handle_fetch, 1, 12, F(replica_id=-1, max_wait_ms=0, max_bytes=1 << 20, session_epoch=-1,
                                           topics=[F.FetchTopic(topic="t", partitions=[
                                               F.FetchPartition(partition=p, partition_max_bytes=1 << 16)
                                               for p in range(4)])]))
    assert {p.partition_index: p.error_code for p in fetch.responses[0].partitions} == errors
    L = ListOffsetsRequest
    offsets = call(b, handle_list_offsets, 2, 7, L(replica_id=-1, topics=[L.ListOffsetsTopic(
        name="t", partitions=[L.ListOffsetsPartition(partition_index=p, timestamp=-1) for p in range(4)])]))
    assert {p.partition_index: p.error_code for p in offsets.topics[0].partitions} == errors
    md = call(b, handle_metadata, 3, 12, MetadataRequest(topics=None))
    assert {p.partition_index: p.offline_replicas for p in md.topics[0].partitions} == \
        {p: [0] if p in offline else [] for p in range(4)}
    # the last log dir failing halts the broker, as Kafka does
    lm.get_log("t", online[0]).on_storage_error(failure)
    b.loop.run_until_complete(asyncio.sleep(0))
    assert b.halted == [True]


def test_a_partition_the_metadata_names_but_this_broker_does_not_host_is_not_leader(broker):
    """Kafka's getPartitionOrError: a partition the metadata cache knows and the replica
    manager does not (its LeaderAndIsr still on the way, or the replica moved away) answers
    NOT_LEADER_OR_FOLLOWER, which clients retry after a metadata refresh; librdkafka's
    consumer hands UNKNOWN_TOPIC_OR_PARTITION from an offset lookup to the application."""
    broker.create_topic("t", 2)
    rm = broker.replica_manager
    rm.partitions.pop(("t", 1))
    assert rm.get_partition("t", 1) is None
    assert rm.partition_error("t", 1) == ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert rm.partition_error("t", 2) == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert rm.partition_error("nope", 0) == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
