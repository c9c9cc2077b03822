"""Idempotent produce over the wire: a Produce request captured once and replayed raw is
acknowledged with its original offsets and not written twice; a sequence gap is refused.
The batches are built with kafka-python's record builder, the producer id comes from an
InitProducerId we send."""
from __future__ import annotations

import time

import pytest
from kafka.record.memory_records import MemoryRecordsBuilder

from kafpy.protocol.messages import InitProducerIdRequest
from tests.integration.broker.conftest import topic_name
from tests.integration.broker.raw import PRODUCE, RawConnection, create_topic, produce_request, read_all

INIT_PRODUCER_ID = 22
OUT_OF_ORDER_SEQUENCE_NUMBER = 45
INVALID_PRODUCER_EPOCH = 47


def idempotent_batch(pid: int, epoch: int, seq: int, values: list[bytes]) -> bytes:
    b = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=1 << 20, offset=0, transactional=False,
                             producer_id=pid, producer_epoch=epoch, base_sequence=seq)
    # current timestamps: producer state expires by the batch timestamp (producer.id.expiration.ms,
    # as in Kafka), so an old one would be dropped when the log is reloaded
    now = int(time.time() * 1000)
    for i, v in enumerate(values):
        b.append(timestamp=now + i, key=b"k%d" % i, value=v, headers=[])
    b.close()
    return bytes(b.buffer())


def init_producer_id(conn: RawConnection) -> tuple[int, int]:
    resp = conn.request(INIT_PRODUCER_ID, 4, InitProducerIdRequest(
        transactional_id=None, transaction_timeout_ms=60000, producer_id=-1, producer_epoch=-1))
    assert resp.error_code == 0 and resp.producer_id >= 0 and resp.producer_epoch >= 0
    return resp.producer_id, resp.producer_epoch


def first_partition(resp):
    return resp.responses[0].partition_responses[0]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("version", [3, 9, 11])
def test_replayed_produce_is_acknowledged_once(shared_broker, version):
    from kafpy.protocol import codec
    topic = topic_name("idem")
    create_topic(shared_broker.port, topic)
    with RawConnection("127.0.0.1", shared_broker.port) as c:
        # something from another producer first, so offsets do not start at 0
        assert first_partition(c.request(PRODUCE, version, produce_request(
            topic, idempotent_batch(-1, -1, -1, [b"plain"])))).base_offset == 0
        pid, epoch = init_producer_id(c)
        first = c.frame(PRODUCE, version, produce_request(
            topic, idempotent_batch(pid, epoch, 0, [b"a0", b"a1", b"a2"]), acks=-1))
        c.send_raw(first)
        _, resp = codec.decode_response(PRODUCE, version, c.read_frame())
        pr = first_partition(resp)
        assert (pr.error_code, pr.base_offset) == (0, 1)

    # the captured frame, byte for byte, on a fresh connection
    with RawConnection("127.0.0.1", shared_broker.port) as c:
        c.send_raw(first)
        _, resp = codec.decode_response(PRODUCE, version, c.read_frame())
        pr = first_partition(resp)
        assert (pr.error_code, pr.base_offset) == (0, 1)
        # the next batch in sequence goes on; replaying the first again still maps to offset 1
        pr = first_partition(c.request(PRODUCE, version, produce_request(
            topic, idempotent_batch(pid, epoch, 3, [b"b3", b"b4"]))))
        assert (pr.error_code, pr.base_offset) == (0, 4)
        c.send_raw(first)
        _, resp = codec.decode_response(PRODUCE, version, c.read_frame())
        assert first_partition(resp).base_offset == 1
        # a gap in the sequence is refused and not written
        pr = first_partition(c.request(PRODUCE, version, produce_request(
            topic, idempotent_batch(pid, epoch, 9, [b"gap"]))))
        assert pr.error_code == OUT_OF_ORDER_SEQUENCE_NUMBER
        # a second producer gets its own id and sequence space
        pid2, epoch2 = init_producer_id(c)
        assert pid2 != pid
        pr = first_partition(c.request(PRODUCE, version, produce_request(
            topic, idempotent_batch(pid2, epoch2, 0, [b"c0"]))))
        assert (pr.error_code, pr.base_offset) == (0, 6)

    assert [(o, v) for o, _, v in read_all(shared_broker.bootstrap, topic)] == \
           [(0, b"plain"), (1, b"a0"), (2, b"a1"), (3, b"a2"), (4, b"b3"), (5, b"b4"), (6, b"c0")]


@pytest.mark.timeout(60)
def test_duplicate_survives_restart(broker):
    """Producer state is recovered with the log: a replay after a clean restart is still
    acknowledged with the original offset."""
    from kafpy.protocol import codec
    topic = topic_name("idem-restart")
    create_topic(broker.port, topic)
    with RawConnection("127.0.0.1", broker.port) as c:
        pid, epoch = init_producer_id(c)
        frame = c.frame(PRODUCE, 9, produce_request(topic, idempotent_batch(pid, epoch, 0, [b"x", b"y"])))
        c.send_raw(frame)
        _, resp = codec.decode_response(PRODUCE, 9, c.read_frame())
        assert first_partition(resp).base_offset == 0
    broker.restart()
    with RawConnection("127.0.0.1", broker.port) as c:
        c.send_raw(frame)
        _, resp = codec.decode_response(PRODUCE, 9, c.read_frame())
        pr = first_partition(resp)
        assert (pr.error_code, pr.base_offset) == (0, 0)
    assert [v for _, _, v in read_all(broker.bootstrap, topic)] == [b"x", b"y"]
