"""Per-record produce errors (KIP-467), the same raw Produce requests to Apache Kafka 4.4 and
kafpy in the same test: a batch refused for some of its records fails whole, with
`error_message` and each offending record's (batch_index, message) in `record_errors`,
as Kafka's LogValidator names them (keys of compacted topics, timestamps out of range);
batches broken as a whole (offset range, control batches, sequence, a base offset other
than 0) answer what Kafka answers. Then confluent-kafka's view of the same refusal: of 100 records, exactly the 10
without a key fail INVALID_RECORD, the other 90 _INVALID_DIFFERENT_RECORD.
"""
from __future__ import annotations

import re
import struct
import time
from typing import Iterator

import pytest
from confluent_kafka import KafkaError, Producer
from crc32c import crc32c

from kafpy.broker.produce_checks import HEAVY_RECORDS
from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.messages import ProduceRequest
from tests.integration.broker.raw import PRODUCE, RawConnection, create_topic
from tests.support.kafka_dist import ReferenceKafka
from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK

KEYLESS = (3, 9, 17, 28, 36, 44, 51, 66, 80, 99)
HOUR_MS = 3_600_000


@pytest.fixture(scope="module")
def brokers(reference_kafka: ReferenceKafka, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[dict[str, ReferenceKafka | KafpyBroker]]:
    """Apache Kafka 4: the session's reference broker (default settings, which is all this
    module needs; its topic names are its own); kafpy: the module's own broker."""
    base = tmp_path_factory.mktemp("record-errors")
    kafpy = KafpyBroker(work_dir=base / "kafpy", start_timeout=150)
    try:
        kafpy.start()
        yield {"apache": reference_kafka, "kafpy": kafpy}
    finally:
        kafpy.stop()


# a topic just created may not have its leader yet (Apache answers these for a moment)
NOT_YET = (3, 5, 6)   # UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER


def _produce(port: int, topic: str, batch: bytes, version: int = 11) -> tuple:
    """(error code, error message, [(batch index, message)]) of partition 0, once the
    partition has a leader."""
    P = ProduceRequest
    deadline = time.monotonic() + 30
    while True:
        with RawConnection(LOOPBACK, port, timeout=30) as c:
            r = c.request(PRODUCE, version, P(transactional_id=None, acks=-1, timeout_ms=30000, topic_data=[
                P.TopicProduceData(name=topic, partition_data=[P.PartitionProduceData(index=0, records=batch)])]))
        p = r.responses[0].partition_responses[0]
        if p.error_code not in NOT_YET or time.monotonic() > deadline:
            return (int(p.error_code), p.error_message,
                    [(e.batch_index, e.batch_index_error_message) for e in p.record_errors])
        time.sleep(0.1)


def _each(brokers, topic: str, configs: dict[str, str], batch: bytes, version: int = 11) -> dict[str, tuple]:
    out = {}
    for name, b in brokers.items():
        create_topic(b.port, topic, configs=configs)
        out[name] = _produce(b.port, topic, batch, version)
    return out


def _patch(batch: bytes, offset: int, fmt: str, value: int) -> bytes:
    """`batch` with one header field changed and its CRC made right again."""
    b = bytearray(batch)
    struct.pack_into(fmt, b, offset, value)
    struct.pack_into(">I", b, 17, crc32c(bytes(b[21:])))
    return bytes(b)


def test_compacted_topic_lists_the_records_without_a_key(brokers):
    batch = build_batch([(None if i in KEYLESS else b"k%d" % i, b"v%d" % i) for i in range(100)])
    got = _each(brokers, "compacted-keys", {"cleanup.policy": "compact"}, batch)
    assert got["kafpy"] == got["apache"]
    code, message, errors = got["kafpy"]
    assert code == 87 and [i for i, _ in errors] == list(KEYLESS), got
    assert message.startswith("One or more records have been rejected due to 10 record errors")


def test_a_batch_checked_in_the_worker_lists_the_records_without_a_key(brokers):
    """More records than kafpy decodes on its event loop (HEAVY_RECORDS): the key check runs
    in the worker process (broker/produce_checks.py), and the answer is still Kafka's, each
    keyless record by its batch index."""
    keyless = list(range(250, 5000, 500))
    batch = build_batch([(None if i in keyless else b"k%d" % i, b"v") for i in range(5000)])
    assert 5000 > HEAVY_RECORDS and len(keyless) == 10
    got = _each(brokers, "compacted-keys-worker", {"cleanup.policy": "compact"}, batch)
    assert got["kafpy"] == got["apache"]
    code, message, errors = got["kafpy"]
    assert code == 87 and [i for i, _ in errors] == keyless, got
    assert message.startswith("One or more records have been rejected due to 10 record errors")


def test_a_batch_checked_in_the_worker_lists_keys_and_timestamps(brokers):
    """Checked in the worker too, keys and timestamps record by record as Kafka's validator
    goes (one error a record, the key's first): a timestamp out of range makes the batch's
    error INVALID_TIMESTAMP, every record at fault listed."""
    now = int(time.time() * 1000)
    keyless = list(range(250, 5000, 500))
    batch = build_batch([(None if i in keyless else b"k%d" % i, b"v", [], now - 3 * HOUR_MS if i in (0, 250) else now)
                         for i in range(5000)])
    got = _each(brokers, "compacted-ts-worker", {"cleanup.policy": "compact",
                                                 "message.timestamp.before.max.ms": str(HOUR_MS)}, batch)

    def shape(answer: tuple) -> tuple:
        # the allowed window is each broker's own clock's: compare all but its bounds
        code, message, errors = answer
        return code, message, [(i, re.sub(r"\[\d+, \d+\]", "[a, b]", m)) for i, m in errors]
    assert shape(got["kafpy"]) == shape(got["apache"])
    assert got["kafpy"][0] == 32 and [i for i, _ in got["kafpy"][2]] == [0] + keyless, got


def test_timestamps_out_of_range_are_listed(brokers):
    now = int(time.time() * 1000)
    stamps = [now, now - 3 * HOUR_MS, now, now + 3 * HOUR_MS, now]
    batch = build_batch([(b"k", b"v", [], t) for t in stamps])
    got = _each(brokers, "ts-bounds", {"message.timestamp.before.max.ms": str(HOUR_MS),
                                       "message.timestamp.after.max.ms": str(HOUR_MS)}, batch)

    def shape(answer: tuple) -> tuple:
        # the allowed window is each broker's own clock's: compare all but its bounds
        code, message, errors = answer
        return code, message, [(i, re.sub(r"\[\d+, \d+\]", "[a, b]", m)) for i, m in errors]
    assert shape(got["kafpy"]) == shape(got["apache"])
    assert [i for i, _ in got["kafpy"][2]] == [1, 3] and got["kafpy"][0] == 32, got


def test_keys_before_timestamps_one_error_a_record(brokers):
    now = int(time.time() * 1000)
    batch = build_batch([(None, b"v", [], now - 3 * HOUR_MS), (b"k", b"v", [], now - 3 * HOUR_MS),
                         (None, b"v", [], now)])
    got = _each(brokers, "keys-and-ts", {"cleanup.policy": "compact",
                                         "message.timestamp.before.max.ms": str(HOUR_MS)}, batch)
    assert [(i, m[:20]) for i, m in got["kafpy"][2]] == [(i, m[:20]) for i, m in got["apache"][2]]
    assert got["kafpy"][:2] == got["apache"][:2]


@pytest.mark.parametrize("case", ["offset-range", "control", "sequence", "base-offset", "base-offset-and-crc"])
def test_batches_broken_as_a_whole(brokers, case):
    if case == "offset-range":    # last offset delta 5 for 3 records
        batch = _patch(build_batch([(b"k", b"v")] * 3), 23, ">i", 5)
    elif case == "base-offset":   # a fetched batch sent back as it was: its base offset is not 0
        batch = _patch(build_batch([(b"k", b"v")] * 3), 0, ">q", 1234)
    elif case == "base-offset-and-crc":   # the base offset is judged before the CRC
        batch = bytearray(_patch(build_batch([(b"k", b"v")] * 3), 0, ">q", 1234))
        batch[-1] ^= 1
        batch = bytes(batch)
    elif case == "control":
        batch = build_batch([(b"\x00\x00\x00\x00", b"\x00\x00\x00\x00\x00\x00")], is_control=True)
    else:                         # a producer id without a sequence
        batch = build_batch([(b"k", b"v")], producer_id=7, producer_epoch=0)
    got = _each(brokers, f"broken-{case}", {}, batch)
    assert got["kafpy"] == got["apache"]
    assert got["kafpy"][0] != 0


def test_confluent_kafka_fails_exactly_the_records_without_a_key(brokers):
    for name, b in brokers.items():
        topic = "compacted-confluent"
        create_topic(b.port, topic, configs={"cleanup.policy": "compact"})
        # one batch for all 100: librdkafka gives every record of a batch with a single record
        # error that error, so a batch split by a loaded machine (the loop outlasting the
        # linger) counted 16 INVALID_RECORD; flush() sends at once, whatever the linger
        p = Producer({"bootstrap.servers": b.bootstrap, "linger.ms": 60_000, "batch.num.messages": 1000,
                      "enable.idempotence": False, "retries": 0})
        reports: list[int] = []
        for i in range(100):
            p.produce(topic, key=None if i in KEYLESS else b"k%d" % i, value=b"v%d" % i, partition=0,
                      on_delivery=lambda err, _msg: reports.append(err.code() if err else 0))
        assert p.flush(60) == 0
        codes = sorted(reports)
        assert codes.count(KafkaError.INVALID_RECORD) == 10, (name, codes)
        assert codes.count(KafkaError._INVALID_DIFFERENT_RECORD) == 90, (name, codes)
