"""Transactions on the partition side against a real broker: transactional batches produced
raw, WriteTxnMarkers (api 27) ending them, and what readers see: kafka-python with
read_committed and read_uncommitted, confluent-kafka (read_committed by default),
DescribeProducers, and TxnOffsetCommit settled by a marker on __consumer_offsets."""
from __future__ import annotations

import time

from kafpy.protocol.messages import (DescribeProducersRequest, FindCoordinatorRequest, MetadataRequest,
                               OffsetFetchRequest, ProduceRequest, TxnOffsetCommitRequest, WriteTxnMarkersRequest)
from kafpy.protocol.records import build_batch
from kafpy.protocol.topics import GROUP_METADATA_TOPIC_NAME

from kafpy.coordinator.group.partitioner import partition_for
from tests.integration.broker.conftest import topic_name
from tests.integration.broker.raw import PRODUCE, RawConnection, create_topic

W = WriteTxnMarkersRequest
# Transactional batches here belong to ids no coordinator knows: no produce-time verification.
BROKER_OVERRIDES = {"transaction.partition.verification.enable": "false"}
WRITE_TXN_MARKERS, TXN_OFFSET_COMMIT, OFFSET_FETCH, FIND_COORDINATOR, METADATA, DESCRIBE_PRODUCERS = 27, 28, 9, 10, 3, 61


def produce(c: RawConnection, topic: str, records: bytes, txn_id: str | None = None) -> int:
    P = ProduceRequest
    resp = c.request(PRODUCE, 9, P(transactional_id=txn_id, acks=-1, timeout_ms=30000, topic_data=[
        P.TopicProduceData(name=topic, partition_data=[P.PartitionProduceData(index=0, records=records)])]))
    pr = resp.responses[0].partition_responses[0]
    assert pr.error_code == 0, pr
    return pr.base_offset


def txn_batch(pid: int, values: list[bytes]) -> bytes:
    return build_batch([(None, v) for v in values], producer_id=pid, producer_epoch=0, base_sequence=0,
                       is_transactional=True)


def write_marker(c: RawConnection, pid: int, commit: bool, topic: str, partition: int = 0) -> int:
    resp = c.request(WRITE_TXN_MARKERS, 1, W(markers=[W.WritableTxnMarker(
        producer_id=pid, producer_epoch=0, transaction_result=commit, coordinator_epoch=0,
        topics=[W.WritableTxnMarkerTopic(name=topic, partition_indexes=[partition])])]))
    return resp.markers[0].topics[0].partitions[0].error_code


def kafka_python_values(bootstrap: str, topic: str, isolation: str, count: int) -> list[bytes]:
    from kafka import KafkaConsumer, TopicPartition
    tp = TopicPartition(topic, 0)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, isolation_level=isolation, consumer_timeout_ms=3000)
    try:
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        out: list[bytes] = []
        deadline = time.monotonic() + 60
        while len(out) < count and time.monotonic() < deadline:
            for recs in consumer.poll(timeout_ms=500).values():
                out += [m.value for m in recs]
        # one more poll: nothing else may show up
        for recs in consumer.poll(timeout_ms=500).values():
            out += [m.value for m in recs]
        return out
    finally:
        consumer.close()


def confluent_values(bootstrap: str, topic: str, count: int) -> list[bytes | None]:
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": topic_name("g"), "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        out: list[bytes | None] = []
        deadline = time.monotonic() + 60
        while len(out) < count and time.monotonic() < deadline:
            m = consumer.poll(0.5)
            if m is not None and m.error() is None:
                out.append(m.value())
        return out
    finally:
        consumer.close()


def test_markers_decide_what_read_committed_consumers_see(shared_broker):
    b = shared_broker
    topic = topic_name("txn")
    create_topic(b.port, topic)
    with RawConnection("127.0.0.1", b.port) as c:
        produce(c, topic, build_batch([(None, b"plain")]))
        aborted_first = produce(c, topic, txn_batch(5000, [b"aborted-1", b"aborted-2"]), "tx-a")
        produce(c, topic, txn_batch(5001, [b"committed"]), "tx-b")
        D = DescribeProducersRequest
        desc = c.request(DESCRIBE_PRODUCERS, 0, D(topics=[D.TopicRequest(name=topic, partition_indexes=[0])]))
        active = {p.producer_id: p.current_txn_start_offset for p in desc.topics[0].partitions[0].active_producers}
        assert active == {5000: aborted_first, 5001: aborted_first + 2}
        assert write_marker(c, 5000, False, topic) == 0
        assert write_marker(c, 5001, True, topic) == 0
        assert write_marker(c, 5000, False, topic, partition=9) == 3  # UNKNOWN_TOPIC_OR_PARTITION
    bootstrap = f"127.0.0.1:{b.port}"
    assert kafka_python_values(bootstrap, topic, "read_committed", 2) == [b"plain", b"committed"]
    assert kafka_python_values(bootstrap, topic, "read_uncommitted", 4) == [
        b"plain", b"aborted-1", b"aborted-2", b"committed"]
    assert confluent_values(bootstrap, topic, 2) == [b"plain", b"committed"]


def test_txn_offset_commit_is_settled_by_its_marker(shared_broker):
    b = shared_broker
    topic, group = topic_name("txo"), topic_name("g")
    create_topic(b.port, topic)
    with RawConnection("127.0.0.1", b.port) as c:
        F = FindCoordinatorRequest
        deadline = time.monotonic() + 60
        while c.request(FIND_COORDINATOR, 1, F(key=group, key_type=0)).error_code != 0:
            assert time.monotonic() < deadline, "no group coordinator"
            time.sleep(0.2)
        T = TxnOffsetCommitRequest
        commit = T(transactional_id="tx-o", group_id=group, producer_id=6000, producer_epoch=0, topics=[
            T.TxnOffsetCommitRequestTopic(name=topic, partitions=[T.TxnOffsetCommitRequestPartition(
                partition_index=0, committed_offset=42, committed_metadata="m")])])
        resp = c.request(TXN_OFFSET_COMMIT, 3, commit)
        assert resp.topics[0].partitions[0].error_code == 0

        O = OffsetFetchRequest

        def fetched():
            r = c.request(OFFSET_FETCH, 7, O(group_id=group, require_stable=True, topics=[
                O.OffsetFetchRequestTopic(name=topic, partition_indexes=[0])]))
            p = r.topics[0].partitions[0]
            return p.error_code, p.committed_offset

        assert fetched() == (88, -1)  # UNSTABLE_OFFSET_COMMIT
        M = MetadataRequest
        md = c.request(METADATA, 9, M(topics=[M.MetadataRequestTopic(name=GROUP_METADATA_TOPIC_NAME)]))
        partitions = len(md.topics[0].partitions)
        assert write_marker(c, 6000, True, GROUP_METADATA_TOPIC_NAME, partition_for(group, partitions)) == 0
        assert fetched() == (0, 42)
