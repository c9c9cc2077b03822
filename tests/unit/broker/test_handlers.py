"""Produce, ListOffsets, Metadata, OffsetForLeaderEpoch and InitProducerId handlers against a
socket-free broker: Kafka's error codes and the offsets they report."""
from __future__ import annotations

import asyncio

import pytest

from kafpy.protocol.messages import (InitProducerIdRequest, ListOffsetsRequest, MetadataRequest,
                               OffsetForLeaderEpochRequest, ProduceRequest)
from kafpy.protocol.records import build_batch

from kafpy.broker.handlers.metadata import handle_metadata
from kafpy.broker.handlers.offsets import handle_list_offsets, handle_offset_for_leader_epoch
from kafpy.broker.handlers.txn import handle_init_producer_id
from kafpy.broker.handlers.produce import handle_produce
from tests.unit.broker.helpers import LocalBroker, call

P = ProduceRequest
L = ListOffsetsRequest
M = MetadataRequest
NONE, CORRUPT_MESSAGE, UNKNOWN_TOPIC_OR_PARTITION, MESSAGE_TOO_LARGE = 0, 2, 3, 10
INVALID_TOPIC_EXCEPTION, INVALID_REQUIRED_ACKS, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH = 17, 21, 74, 75
UNKNOWN_TOPIC_ID = 100


@pytest.fixture
def broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop)
    try:
        yield b
    finally:
        b.close()
        loop.close()


def produce(broker, topic: str, records: bytes | None, acks: int = -1, partition: int = 0, version: int = 9):
    req = P(transactional_id=None, acks=acks, timeout_ms=1000, topic_data=[P.TopicProduceData(
        name=topic, partition_data=[P.PartitionProduceData(index=partition, records=records)])])
    resp = call(broker, handle_produce, 0, version, req)
    return None if resp is None else resp.responses[0].partition_responses[0]


def list_offsets(broker, topic: str, ts: int, version: int = 7, leader_epoch: int = -1, partition: int = 0):
    req = L(replica_id=-1, isolation_level=0, topics=[L.ListOffsetsTopic(name=topic, partitions=[
        L.ListOffsetsPartition(partition_index=partition, current_leader_epoch=leader_epoch, timestamp=ts,
                               max_num_offsets=1)])])
    return call(broker, handle_list_offsets, 2, version, req).topics[0].partitions[0]


# --------------------------------------------------------------------------- Produce
def test_produce_assigns_offsets_and_reports_log_start(broker):
    broker.create_topic("t")
    r = produce(broker, "t", build_batch([(None, b"a"), (None, b"b")]))
    assert (r.error_code, r.base_offset, r.log_start_offset, r.log_append_time_ms) == (NONE, 0, 0, -1)
    r = produce(broker, "t", build_batch([(None, b"c")]), acks=1)
    assert (r.error_code, r.base_offset) == (NONE, 2)


def test_produce_errors(broker):
    broker.create_topic("t", configs={"max.message.bytes": "200"})
    good = build_batch([(None, b"x")])
    assert produce(broker, "nope", good).error_code == UNKNOWN_TOPIC_OR_PARTITION
    assert produce(broker, "t", good, partition=5).error_code == UNKNOWN_TOPIC_OR_PARTITION
    assert produce(broker, "t", good, acks=2).error_code == INVALID_REQUIRED_ACKS
    bad = bytearray(good)
    bad[-2] ^= 1
    assert produce(broker, "t", bytes(bad)).error_code == CORRUPT_MESSAGE
    assert produce(broker, "t", build_batch([(None, bytes(range(256)) * 2)])).error_code == MESSAGE_TOO_LARGE
    assert broker.replica_manager.get_partition("t", 0).log.log_end_offset == 0


def test_produce_to_internal_topic_is_refused(broker):
    broker.create_topic("__consumer_offsets")
    broker.replica_manager.get_partition("__consumer_offsets", 0).is_internal = True
    assert produce(broker, "__consumer_offsets", build_batch([(None, b"x")])).error_code == INVALID_TOPIC_EXCEPTION


def test_produce_acks_zero_has_no_response(broker):
    broker.create_topic("t")
    assert produce(broker, "t", build_batch([(None, b"x")]), acks=0) is None
    assert broker.replica_manager.get_partition("t", 0).log.log_end_offset == 1


def test_failed_produce_with_acks_zero_closes_the_connection(broker):
    from kafpy.broker.handler import CloseConnection
    with pytest.raises(CloseConnection):
        produce(broker, "nope", build_batch([(None, b"x")]), acks=0)


# --------------------------------------------------------------------------- ListOffsets
def test_list_offsets_specials_and_timestamps(broker):
    broker.create_topic("t")
    for i in range(4):
        produce(broker, "t", build_batch([(None, b"v%d" % i)], base_timestamp=1000 + 100 * i))
    assert (list_offsets(broker, "t", -2).offset, list_offsets(broker, "t", -1).offset) == (0, 4)
    r = list_offsets(broker, "t", 1150)
    assert (r.error_code, r.offset, r.timestamp) == (NONE, 2, 1200)
    r = list_offsets(broker, "t", 1000)
    assert (r.offset, r.timestamp) == (0, 1000)
    r = list_offsets(broker, "t", 99999)  # after every record
    assert (r.error_code, r.offset, r.timestamp) == (NONE, -1, -1)
    r = list_offsets(broker, "t", -3)  # max timestamp
    assert (r.offset, r.timestamp) == (3, 1300)
    assert list_offsets(broker, "t", -1, version=0).old_style_offsets == [4]


def test_list_offsets_errors(broker):
    broker.create_topic("t")
    assert list_offsets(broker, "nope", -1).error_code == UNKNOWN_TOPIC_OR_PARTITION
    epoch = broker.replica_manager.get_partition("t", 0).leader_epoch
    assert list_offsets(broker, "t", -1, leader_epoch=epoch).error_code == NONE
    assert list_offsets(broker, "t", -1, leader_epoch=epoch + 1).error_code == UNKNOWN_LEADER_EPOCH
    if epoch > 0:
        assert list_offsets(broker, "t", -1, leader_epoch=epoch - 1).error_code == FENCED_LEADER_EPOCH


def test_offset_for_leader_epoch_current_epoch_ends_at_log_end(broker):
    broker.create_topic("t")
    produce(broker, "t", build_batch([(None, b"a"), (None, b"b"), (None, b"c")]))
    epoch = broker.replica_manager.get_partition("t", 0).leader_epoch
    O = OffsetForLeaderEpochRequest
    resp = call(broker, handle_offset_for_leader_epoch, 23, 4, O(replica_id=-1, topics=[O.OffsetForLeaderTopic(
        topic="t", partitions=[O.OffsetForLeaderPartition(partition=0, current_leader_epoch=epoch,
                                                          leader_epoch=epoch)])]))
    p = resp.topics[0].partitions[0]
    assert (p.error_code, p.leader_epoch, p.end_offset) == (NONE, epoch, 3)


def test_init_producer_id_hands_out_distinct_ids(broker):
    req = InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60000, producer_id=-1,
                                producer_epoch=-1)
    a = call(broker, handle_init_producer_id, 22, 4, req)
    b = call(broker, handle_init_producer_id, 22, 4, req)
    assert a.error_code == b.error_code == NONE
    assert a.producer_id >= 0 and b.producer_id >= 0 and a.producer_id != b.producer_id
    assert a.producer_epoch == 0


# --------------------------------------------------------------------------- Metadata
def metadata(broker, names, version: int = 12, allow_auto: bool = True):
    topics = None if names is None else [M.MetadataRequestTopic(name=n) for n in names]
    return call(broker, handle_metadata, 3, version, M(topics=topics, allow_auto_topic_creation=allow_auto))


def test_metadata_lists_broker_controller_and_topics(broker):
    broker.create_topic("a", 3)
    r = metadata(broker, None)
    assert [(b.node_id, b.host, b.port) for b in r.brokers] == [(0, "127.0.0.1", 9092)]
    assert r.controller_id == 0 and r.cluster_id == broker.metadata.cluster_id
    [t] = r.topics
    assert (t.error_code, t.name, t.is_internal) == (NONE, "a", False)
    assert [(p.partition_index, p.leader_id, p.replica_nodes, p.isr_nodes) for p in t.partitions] == \
           [(i, 0, [0], [0]) for i in range(3)]
    assert metadata(broker, []).topics == []  # v1+: an empty list means no topics
    assert [t.name for t in metadata(broker, [], version=0).topics] == ["a"]  # v0: all


def test_metadata_auto_creates_unless_told_not_to(broker):
    r = metadata(broker, ["fresh"], allow_auto=False)
    assert r.topics[0].error_code == UNKNOWN_TOPIC_OR_PARTITION and broker.metadata.topic("fresh") is None
    r = metadata(broker, ["fresh"])
    assert r.topics[0].error_code == NONE and len(r.topics[0].partitions) == 1
    assert broker.replica_manager.get_partition("fresh", 0) is not None
    assert metadata(broker, ["bad name!"]).topics[0].error_code == INVALID_TOPIC_EXCEPTION


def test_metadata_by_topic_id(broker):
    info = broker.create_topic("a")
    r = call(broker, handle_metadata, 3, 12, M(topics=[M.MetadataRequestTopic(topic_id=info.topic_id, name=None)],
                                               allow_auto_topic_creation=False))
    assert (r.topics[0].error_code, r.topics[0].name) == (NONE, "a")
    r = call(broker, handle_metadata, 3, 12, M(topics=[M.MetadataRequestTopic(topic_id=b"\x01" * 16, name=None)],
                                               allow_auto_topic_creation=False))
    assert r.topics[0].error_code == UNKNOWN_TOPIC_ID


def test_produce_record_checks_by_version(broker):
    """Kafka's ProduceRequest.validateRecords: from v3 on exactly one magic-2 batch per
    partition, and zstd only from v7."""
    from kafka.record.memory_records import MemoryRecordsBuilder
    INVALID_RECORD, UNSUPPORTED_COMPRESSION_TYPE = 87, 76
    broker.create_topic("t")
    mb = MemoryRecordsBuilder(magic=1, compression_type=0, batch_size=1 << 20)
    mb.append(1000, None, b"old")
    mb.close()
    legacy = bytes(mb.buffer())
    one = build_batch([(None, b"a")])
    zstd = build_batch([(None, b"z" * 100)], compression=4)
    assert produce(broker, "t", legacy, version=9).error_code == INVALID_RECORD
    assert produce(broker, "t", one + one, version=3).error_code == INVALID_RECORD
    assert produce(broker, "t", b"", version=9).error_code == INVALID_RECORD
    assert produce(broker, "t", zstd, version=6).error_code == UNSUPPORTED_COMPRESSION_TYPE
    assert broker.replica_manager.get_partition("t", 0).log.log_end_offset == 0
    assert (produce(broker, "t", zstd, version=7).error_code, produce(broker, "t", one + one, version=2).base_offset) \
        == (NONE, 1)
    assert produce(broker, "t", legacy, version=2).base_offset == 3  # old versions may send old formats
