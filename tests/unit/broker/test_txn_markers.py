"""WriteTxnMarkers against a socket-free broker: markers close transactions, move the last
stable offset, fill the aborted-transaction index, and are refused per Kafka's rules."""
from __future__ import annotations

import pytest

from kafpy.protocol.errors import ErrorCode as E
from kafpy.protocol.messages import (DescribeProducersRequest, FetchRequest, ListOffsetsRequest, ProduceRequest,
                               WriteTxnMarkersRequest)
from kafpy.protocol.records import build_batch

from kafpy.broker.handlers.fetch import handle_fetch
from kafpy.broker.handlers.offsets import handle_list_offsets
from kafpy.broker.handlers.produce import handle_produce
from kafpy.broker.handlers.producers import handle_describe_producers
from kafpy.broker.handlers.txn_markers import handle_write_txn_markers, write_txn_markers
from tests.unit.broker.helpers import call
from tests.unit.broker.test_handlers import broker  # noqa: F401 - the socket-free broker fixture

W = WriteTxnMarkersRequest
P = ProduceRequest


def txn_append(broker, topic: str, pid: int, epoch: int, seq: int, values: list[bytes], partition: int = 0) -> int:
    part = broker.replica_manager.get_partition(topic, partition)
    batch = build_batch([(None, v) for v in values], producer_id=pid, producer_epoch=epoch, base_sequence=seq,
                        is_transactional=True)
    return part.append_records_to_leader(batch).first_offset


def marker(pid: int, epoch: int, commit: bool, topics: dict[str, list[int]], coordinator_epoch: int = 0):
    return W.WritableTxnMarker(producer_id=pid, producer_epoch=epoch, transaction_result=commit,
                               coordinator_epoch=coordinator_epoch,
                               topics=[W.WritableTxnMarkerTopic(name=t, partition_indexes=p) for t, p in topics.items()])


def errors(resp) -> list[list[tuple[str, int, int]]]:
    return [[(t.name, p.partition_index, p.error_code) for t in m.topics for p in t.partitions]
            for m in resp.markers]


def test_commit_and_abort_move_the_lso_and_index_the_abort(broker):
    broker.create_topic("t", partitions=2)
    log0 = broker.replica_manager.get_partition("t", 0).log
    first = txn_append(broker, "t", 7, 0, 0, [b"a", b"b"])
    txn_append(broker, "t", 8, 0, 0, [b"x"], partition=1)
    assert log0.last_stable_offset == first
    resp = call(broker, handle_write_txn_markers, 27, 1, W(markers=[
        marker(7, 0, False, {"t": [0]}), marker(8, 0, True, {"t": [1]})]))
    assert errors(resp) == [[("t", 0, E.NONE)], [("t", 1, E.NONE)]]
    assert [m.producer_id for m in resp.markers] == [7, 8]
    assert log0.last_stable_offset == log0.log_end_offset == 3
    assert log0.collect_aborted_transactions(0, 3) == [(7, first)]
    log1 = broker.replica_manager.get_partition("t", 1).log
    assert log1.last_stable_offset == 2 and log1.collect_aborted_transactions(0, 2) == []


def test_refusals(broker):
    broker.create_topic("t")
    txn_append(broker, "t", 7, 3, 0, [b"a"])
    resp = broker.loop.run_until_complete(write_txn_markers(broker.services, W(markers=[
        marker(7, 2, True, {"t": [0], "nope": [0]}),
        marker(7, 3, True, {"t": [5]}, coordinator_epoch=4),
    ])))
    assert errors(resp) == [[("t", 0, E.INVALID_PRODUCER_EPOCH), ("nope", 0, E.UNKNOWN_TOPIC_OR_PARTITION)],
                            [("t", 5, E.UNKNOWN_TOPIC_OR_PARTITION)]]
    ok = broker.loop.run_until_complete(write_txn_markers(broker.services, W(markers=[
        marker(7, 3, True, {"t": [0]}, coordinator_epoch=4)])))
    assert errors(ok) == [[("t", 0, E.NONE)]]
    fenced = broker.loop.run_until_complete(write_txn_markers(broker.services, W(markers=[
        marker(7, 3, False, {"t": [0]}, coordinator_epoch=3)])))
    assert errors(fenced) == [[("t", 0, E.TRANSACTION_COORDINATOR_FENCED)]]


def test_a_marker_bumps_the_producer_epoch(broker):
    broker.create_topic("t")
    txn_append(broker, "t", 7, 0, 0, [b"a"])
    call(broker, handle_write_txn_markers, 27, 0, W(markers=[marker(7, 1, False, {"t": [0]})]))
    part = broker.replica_manager.get_partition("t", 0)
    assert part.log.producer_state.producers[7].epoch == 1
    with pytest.raises(Exception) as info:
        txn_append(broker, "t", 7, 0, 1, [b"late"])
    assert info.value.error_code == E.INVALID_PRODUCER_EPOCH


# --------------------------------------------------------------------------- readers
def fetch(broker, topic: str, offset: int, isolation: int, version: int = 12):
    F = FetchRequest
    req = F(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=isolation,
            session_id=0, session_epoch=-1, topics=[F.FetchTopic(topic=topic, partitions=[F.FetchPartition(
                partition=0, current_leader_epoch=-1, fetch_offset=offset, log_start_offset=-1,
                partition_max_bytes=1 << 20)])], forgotten_topics_data=[], rack_id="")
    return call(broker, handle_fetch, 1, version, req).responses[0].partitions[0]


def latest(broker, topic: str, isolation: int) -> int:
    L = ListOffsetsRequest
    req = L(replica_id=-1, isolation_level=isolation, topics=[L.ListOffsetsTopic(name=topic, partitions=[
        L.ListOffsetsPartition(partition_index=0, current_leader_epoch=-1, timestamp=-1)])])
    return call(broker, handle_list_offsets, 2, 7, req).topics[0].partitions[0].offset


def test_read_committed_stops_at_the_lso_and_lists_aborted_transactions(broker):
    broker.create_topic("t")
    broker.append("t", 0, [b"plain"])
    first = txn_append(broker, "t", 7, 0, 0, [b"a", b"b"])
    committed = fetch(broker, "t", 0, 1)
    assert (committed.high_watermark, committed.last_stable_offset) == (3, first)
    assert len(committed.records) > 0 and committed.aborted_transactions == []
    assert fetch(broker, "t", first, 1).records == b""
    assert len(fetch(broker, "t", first, 0).records) > 0
    assert (latest(broker, "t", 1), latest(broker, "t", 0)) == (first, 3)
    call(broker, handle_write_txn_markers, 27, 1, W(markers=[marker(7, 0, False, {"t": [0]})]))
    after = fetch(broker, "t", first, 1)
    assert after.last_stable_offset == 4 and len(after.records) > 0
    assert [(a.producer_id, a.first_offset) for a in after.aborted_transactions] == [(7, first)]
    assert fetch(broker, "t", first, 0).aborted_transactions is None
    assert latest(broker, "t", 1) == 4


def test_describe_producers_lists_the_leaders_producer_state(broker):
    D = DescribeProducersRequest
    broker.create_topic("t")
    first = txn_append(broker, "t", 7, 2, 0, [b"a", b"b"])
    req = D(topics=[D.TopicRequest(name="t", partition_indexes=[0, 3])])
    resp = call(broker, handle_describe_producers, 61, 0, req).topics[0]
    ok, missing = resp.partitions
    assert missing.error_code == E.UNKNOWN_TOPIC_OR_PARTITION
    [p] = ok.active_producers
    assert (p.producer_id, p.producer_epoch, p.last_sequence, p.current_txn_start_offset) == (7, 2, 1, first)


def test_produce_of_transactional_records_needs_a_transactional_id(broker):
    broker.create_topic("t")
    batch = build_batch([(None, b"a")], producer_id=7, producer_epoch=1, base_sequence=0, is_transactional=True)

    def produce(txn_id):
        req = P(transactional_id=txn_id, acks=-1, timeout_ms=1000, topic_data=[P.TopicProduceData(
            name="t", partition_data=[P.PartitionProduceData(index=0, records=batch)])])
        return call(broker, handle_produce, 0, 9, req).responses[0].partition_responses[0].error_code

    assert produce(None) == E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    assert produce("tx") == E.NONE
    call(broker, handle_write_txn_markers, 27, 1, W(markers=[marker(7, 2, True, {"t": [0]})]))
    assert produce("tx") == E.INVALID_PRODUCER_EPOCH
