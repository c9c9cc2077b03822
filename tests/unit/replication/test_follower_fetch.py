"""The leader's side of a follower's Fetch, without sockets: an unassigned replica, epoch
fencing, a diverging last fetched epoch, and a fetch that records the follower's position,
expands the ISR and moves the high watermark (completing an acks=all wait); also ListOffsets
LATEST on a new leader whose HW is behind its epoch start."""
from __future__ import annotations

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchRequest, ListOffsetsRequest
from kafpy.protocol.records import build_batch

from kafpy.broker.handlers.fetch import handle_fetch
from kafpy.broker.handlers.offsets import handle_list_offsets
from kafpy.replication.partition import PartitionState
from tests.unit.broker.helpers import call
from tests.unit.replication.test_replica_manager import broker  # noqa: F401 - the fixture: a broker without sockets

F1, F2 = 1, 2


def lead(broker, topic: str, epoch: int, isr=(0, F1), proposals=None):
    """Lead topic-0 with replicas 0, 1, 2 in ``epoch``; ISR changes go to ``proposals``."""
    rm = broker.replica_manager
    part = rm.get_partition(topic, 0)
    if proposals is not None:
        part.alter_isr = lambda p, pending: proposals.append(pending)
        part.is_broker_alive = lambda b: True  # the standalone metadata cache knows broker 0 only
    rm.apply_partition_states([PartitionState(topic, 0, part.topic_id, 0, epoch, epoch, (0, F1, F2), tuple(isr))])
    return part


def fetch(broker, replica_id: int, offset: int, epoch: int = -1, last_fetched_epoch: int = -1, version: int = 12):
    req = FetchRequest(replica_id=replica_id, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
                       session_id=0, session_epoch=-1, topics=[FetchRequest.FetchTopic(topic="t", partitions=[
                           FetchRequest.FetchPartition(partition=0, current_leader_epoch=epoch, fetch_offset=offset,
                                                       last_fetched_epoch=last_fetched_epoch, log_start_offset=0,
                                                       partition_max_bytes=1 << 20)])],
                       forgotten_topics_data=[], rack_id="")
    resp = call(broker, handle_fetch, 1, version, req)
    return resp.responses[0].partitions[0]


def test_unassigned_replica_and_epoch_fencing(broker):
    broker.create_topic("t")
    lead(broker, "t", 3)
    assert fetch(broker, 7, 0, epoch=3).error_code == ErrorCode.UNKNOWN_LEADER_EPOCH
    assert fetch(broker, 7, 0).error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert fetch(broker, F1, 0, epoch=2).error_code == ErrorCode.FENCED_LEADER_EPOCH
    assert fetch(broker, F1, 0, epoch=4).error_code == ErrorCode.UNKNOWN_LEADER_EPOCH
    assert fetch(broker, F1, 0, epoch=3).error_code == ErrorCode.NONE


def test_follower_fetch_reads_to_log_end_and_moves_hw(broker):
    broker.create_topic("t")
    proposals: list = []
    part = lead(broker, "t", 1, proposals=proposals)
    waiting = broker.replica_manager.append_records(30000, -1, "client",
                                                    [("t", 0, build_batch([(None, b"a"), (None, b"b")]))])
    pd = fetch(broker, F1, 0, epoch=1)
    assert pd.high_watermark == 0 and len(pd.records) > 0  # a follower reads past the HW
    assert not waiting.done()
    pd = fetch(broker, F1, 2, epoch=1, last_fetched_epoch=1)
    assert part.high_watermark == 2 and pd.high_watermark == 2
    assert broker.loop.run_until_complete(waiting)[0][0] == ErrorCode.NONE
    # F2 reaches the HW and the epoch start: proposed for the ISR, counted at once
    fetch(broker, F2, 2, epoch=1, last_fetched_epoch=1)
    assert [p.new_isr for p in proposals] == [(0, F1, F2)]


def test_diverging_epoch(broker):
    broker.create_topic("t")
    part = lead(broker, "t", 1)
    part.append_records_to_leader(build_batch([(None, b"a")]))
    lead(broker, "t", 3)  # epoch 1 ends at offset 1 in the leader's log
    pd = fetch(broker, F1, 5, epoch=3, last_fetched_epoch=2)
    assert pd.error_code == ErrorCode.NONE and len(pd.records) == 0
    assert (pd.diverging_epoch.epoch, pd.diverging_epoch.end_offset) == (1, 1)
    assert part.remote_replicas[F1].log_end_offset == -1  # a diverging fetch records nothing
    pd = fetch(broker, F1, 1, epoch=3, last_fetched_epoch=1)
    assert pd.diverging_epoch.epoch == -1 and part.remote_replicas[F1].log_end_offset == 1


def test_list_offsets_latest_waits_for_hw_to_reach_epoch_start(broker):
    broker.create_topic("t")
    part = lead(broker, "t", 1, isr=(0, F1))
    part.append_records_to_leader(build_batch([(None, b"a")]))
    lead(broker, "t", 2, isr=(0, F1))  # epoch 2 starts at 1, the HW is still 0

    def latest(replica_id=-1):
        req = ListOffsetsRequest(replica_id=replica_id, isolation_level=0, topics=[
            ListOffsetsRequest.ListOffsetsTopic(name="t", partitions=[ListOffsetsRequest.ListOffsetsPartition(
                partition_index=0, current_leader_epoch=-1, timestamp=-1)])])
        return call(broker, handle_list_offsets, 2, 7, req).topics[0].partitions[0]
    assert latest().error_code == ErrorCode.OFFSET_NOT_AVAILABLE
    assert latest(F1).offset == 1  # a replica asks for the log end
    fetch(broker, F1, 1, epoch=2)
    got = latest()
    assert got.error_code == ErrorCode.NONE and got.offset == 1


def test_a_fetch_past_the_leaders_end_records_no_position(broker):
    """Issue 22, defect 2: the leader reads first and records a follower's position only for
    a read that succeeded (Kafka's readFromLog, then updateFollowerFetchState): a follower
    asking past the leader's end gets OFFSET_OUT_OF_RANGE and is not counted as holding
    records the leader does not have (no HW move, no ISR expansion)."""
    broker.create_topic("t")
    proposals: list = []
    part = lead(broker, "t", 1, isr=(0,), proposals=proposals)
    part.append_records_to_leader(build_batch([(None, b"a"), (None, b"b")]))
    pd = fetch(broker, F1, 5, epoch=1)
    assert pd.error_code == ErrorCode.OFFSET_OUT_OF_RANGE
    assert part.remote_replicas[F1].log_end_offset == -1
    assert proposals == []
    pd = fetch(broker, F1, 2, epoch=1)  # at the log end: a read that succeeds, recorded
    assert pd.error_code == ErrorCode.NONE and part.remote_replicas[F1].log_end_offset == 2
