"""Bad input against a live broker: oversized or garbage frames and unknown APIs close the
connection; an ApiVersions version from the future gets UNSUPPORTED_VERSION with the ranges;
corrupt and oversized batches are refused with Kafka's error codes. After each, normal clients
still work and the log holds only the good data. Then a bounded, seeded fuzz."""
from __future__ import annotations

import os
import random
import socket
import struct
import time

import pytest

from kafpy.protocol.messages import (ApiVersionsRequest, DescribeConfigsRequest, FetchRequest,
                               FindCoordinatorRequest, InitProducerIdRequest, ListOffsetsRequest, MetadataRequest,
                               OffsetForLeaderEpochRequest)
from kafpy.protocol.records import build_batch
from tests.integration.broker.conftest import topic_name
from tests.integration.broker.raw import (RawConnection, create_topic, produce_request, produce_with_client,
                                           read_all)

PRODUCE, FETCH, LIST_OFFSETS, METADATA, API_VERSIONS = 0, 1, 2, 3, 18
FIND_COORDINATOR, INIT_PRODUCER_ID, OFFSET_FOR_LEADER_EPOCH, DESCRIBE_CONFIGS = 10, 22, 23, 32
CORRUPT_MESSAGE = 2
MESSAGE_TOO_LARGE = 10
UNSUPPORTED_VERSION = 35


def produce_one(conn: RawConnection, topic: str, records: bytes, version: int = 9):
    resp = conn.request(PRODUCE, version, produce_request(topic, records))
    return resp.responses[0].partition_responses[0]


@pytest.fixture(scope="module")
def data_topic(shared_broker):
    """A topic with known good records, checked intact after every bad input."""
    name = topic_name("intact")
    create_topic(shared_broker.port, name)
    values = [b"good-%d" % i for i in range(30)]
    assert produce_with_client(shared_broker.bootstrap, name, values) == list(range(30))
    return name, values


def assert_healthy(broker, data_topic) -> None:
    """The broker process is up, a new client produces and consumes, old data is unchanged."""
    assert broker.running, broker.log_text()[-3000:]
    name, values = data_topic
    assert [v for _, _, v in read_all(broker.bootstrap, name)] == values
    probe = topic_name("probe")
    create_topic(broker.port, probe)
    assert produce_with_client(broker.bootstrap, probe, [b"alive"]) == [0]
    assert read_all(broker.bootstrap, probe) == [(0, None, b"alive")]


# --------------------------------------------------------------------------- framing
@pytest.mark.timeout(60)
@pytest.mark.parametrize("prefix", [104857600 + 1, 0x7FFFFFFF, -1], ids=["max+1", "int-max", "negative"])
def test_size_prefix_out_of_range_closes(shared_broker, data_topic, prefix):
    with RawConnection("127.0.0.1", shared_broker.port) as c:
        c.send_raw(struct.pack(">i", prefix) + b"\x00\x12\x00\x00")
        assert c.closed_by_peer()
    assert_healthy(shared_broker, data_topic)


@pytest.mark.timeout(60)
def test_unknown_api_key_closes(shared_broker, data_topic):
    with RawConnection("127.0.0.1", shared_broker.port) as c:
        c.send_frame(struct.pack(">hhih", 9999, 0, 1, 4) + b"test")
        assert c.closed_by_peer()
    assert_healthy(shared_broker, data_topic)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("garbage", [b"\xff" * 64, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
                                     struct.pack(">i", 2) + b"\x00\x03"],
                         ids=["ff", "http", "short-header"])
def test_garbage_closes(shared_broker, data_topic, garbage):
    with RawConnection("127.0.0.1", shared_broker.port) as c:
        c.send_raw(garbage)
        assert c.closed_by_peer()
    assert_healthy(shared_broker, data_topic)


@pytest.mark.timeout(60)
def test_api_versions_from_the_future(shared_broker, data_topic):
    """Kafka answers an unknown ApiVersions version with UNSUPPORTED_VERSION in a v0 body
    that lists its ranges, and keeps the connection open."""
    with RawConnection("127.0.0.1", shared_broker.port) as c:
        # header v2 (flexible, as a client at a new version would send) with an empty tagged body
        c.send_frame(struct.pack(">hhih", API_VERSIONS, 99, 77, 4) + b"test" + b"\x00" + b"\x00\x00\x00")
        resp = c.read_frame()
        corr, error_code, count = struct.unpack_from(">ihi", resp, 0)
        assert (corr, error_code) == (77, UNSUPPORTED_VERSION)
        ranges = {}
        for i in range(count):
            key, lo, hi = struct.unpack_from(">hhh", resp, 10 + 6 * i)
            ranges[key] = (lo, hi)
        assert ranges[API_VERSIONS][0] == 0 and ranges[API_VERSIONS][1] >= 3
        assert ranges[PRODUCE][0] == 0 and ranges[FETCH][0] == 0 and METADATA in ranges
        # the connection is still usable at a version the broker listed
        resp = c.request(API_VERSIONS, 3, ApiVersionsRequest(client_software_name="kafpy-test",
                                                             client_software_version="1.0"))
        assert resp.error_code == 0 and len(resp.api_keys) == count
    assert_healthy(shared_broker, data_topic)


# --------------------------------------------------------------------------- bad batches
@pytest.mark.timeout(60)
@pytest.mark.parametrize("version", [3, 7, 9, 11])
def test_corrupt_batch_is_refused(shared_broker, data_topic, version):
    topic = topic_name("crc")
    create_topic(shared_broker.port, topic)
    good = build_batch([(b"k", b"first good record")])
    bad = bytearray(build_batch([(b"k", b"this batch gets a flipped byte")]))
    bad[-3] ^= 0x55  # inside the records, covered by the CRC
    with RawConnection("127.0.0.1", shared_broker.port) as c:
        assert produce_one(c, topic, good, version).error_code == 0
        pr = produce_one(c, topic, bytes(bad), version)
        assert pr.error_code == CORRUPT_MESSAGE
        # a batch cut short inside a record set is corrupt too
        pr = produce_one(c, topic, good + bytes(bad)[:40], version)
        assert pr.error_code == CORRUPT_MESSAGE
        # the connection stays usable
        assert produce_one(c, topic, build_batch([(b"k", b"second good record")]), version).base_offset == 1
    assert read_all(shared_broker.bootstrap, topic) == [(0, b"k", b"first good record"),
                                                        (1, b"k", b"second good record")]
    assert_healthy(shared_broker, data_topic)


@pytest.mark.timeout(60)
def test_batch_over_max_message_bytes_is_refused(shared_broker, data_topic):
    topic = topic_name("big")
    create_topic(shared_broker.port, topic, configs={"max.message.bytes": "2000"})
    small = build_batch([(None, b"s" * 500)])
    big = build_batch([(None, os.urandom(3000))])  # incompressible and over the limit
    with RawConnection("127.0.0.1", shared_broker.port) as c:
        assert produce_one(c, topic, small).error_code == 0
        assert produce_one(c, topic, big).error_code == MESSAGE_TOO_LARGE
        assert produce_one(c, topic, small).base_offset == 1
    # a real client gets the same answer
    from kafka import KafkaProducer
    from kafka.errors import MessageSizeTooLargeError
    p = KafkaProducer(bootstrap_servers=shared_broker.bootstrap, max_request_size=10_000, retries=0)
    try:
        with pytest.raises(MessageSizeTooLargeError):
            p.send(topic, os.urandom(3000), partition=0).get(30)
    finally:
        p.close(10)
    assert [(o, len(v)) for o, _, v in read_all(shared_broker.bootstrap, topic)] == [(0, 500), (1, 500)]
    assert_healthy(shared_broker, data_topic)


@pytest.mark.timeout(60)
def test_failed_produce_with_acks_zero_closes(shared_broker, data_topic):
    """No response is expected with acks=0, so Kafka closes the connection on an error."""
    topic = topic_name("acks0")
    create_topic(shared_broker.port, topic)
    with RawConnection("127.0.0.1", shared_broker.port) as c:
        c.send_raw(c.frame(PRODUCE, 9, produce_request(topic, build_batch([(None, b"fine")]), acks=0)))
        c.send_raw(c.frame(PRODUCE, 9, produce_request("no-such-topic-here", build_batch([(None, b"x")]), acks=0)))
        assert c.closed_by_peer()
    assert read_all(shared_broker.bootstrap, topic) == [(0, None, b"fine")]
    assert_healthy(shared_broker, data_topic)


# --------------------------------------------------------------------------- fuzz
def _valid_frames(conn: RawConnection, topic: str) -> list[bytes]:
    """Valid request frames of read-only or harmless APIs (no deletes, no config changes)."""
    F = FetchRequest
    L = ListOffsetsRequest
    batch = build_batch([(b"fz", b"fuzz value %d" % i, [("h", b"v")]) for i in range(5)])
    frames = [
        conn.frame(API_VERSIONS, 0, ApiVersionsRequest()),
        conn.frame(API_VERSIONS, 3, ApiVersionsRequest(client_software_name="fuzz", client_software_version="1")),
        conn.frame(METADATA, 1, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)])),
        conn.frame(METADATA, 12, MetadataRequest(topics=None, allow_auto_topic_creation=False)),
        conn.frame(PRODUCE, 3, produce_request(topic, batch, acks=1)),
        conn.frame(PRODUCE, 9, produce_request(topic, batch, acks=-1)),
        conn.frame(LIST_OFFSETS, 5, L(replica_id=-1, isolation_level=0, topics=[L.ListOffsetsTopic(
            name=topic, partitions=[L.ListOffsetsPartition(partition_index=0, current_leader_epoch=-1,
                                                           timestamp=-2)])])),
    ]
    D = DescribeConfigsRequest
    O = OffsetForLeaderEpochRequest
    frames += [
        conn.frame(LIST_OFFSETS, 8, L(replica_id=-1, isolation_level=1, topics=[L.ListOffsetsTopic(
            name=topic, partitions=[L.ListOffsetsPartition(partition_index=0, current_leader_epoch=0,
                                                           timestamp=int(time.time() * 1000) - 5000)])])),
        conn.frame(FIND_COORDINATOR, 3, FindCoordinatorRequest(key="fuzz-group", key_type=0)),
        conn.frame(INIT_PRODUCER_ID, 4, InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60000,
                                                              producer_id=-1, producer_epoch=-1)),
        conn.frame(DESCRIBE_CONFIGS, 4, D(resources=[D.DescribeConfigsResource(
            resource_type=2, resource_name=topic, configuration_keys=None), D.DescribeConfigsResource(
            resource_type=4, resource_name="0", configuration_keys=["num.partitions"])],
            include_synonyms=True, include_documentation=False)),
        conn.frame(OFFSET_FOR_LEADER_EPOCH, 4, O(replica_id=-1, topics=[O.OffsetForLeaderTopic(
            topic=topic, partitions=[O.OffsetForLeaderPartition(partition=0, current_leader_epoch=0,
                                                                leader_epoch=0)])])),
    ]
    for v in (4, 11, 12):
        frames.append(conn.frame(FETCH, v, F(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20,
                                             isolation_level=0, session_id=0, session_epoch=-1,
                                             topics=[F.FetchTopic(topic=topic, partitions=[F.FetchPartition(
                                                 partition=0, current_leader_epoch=-1, fetch_offset=0,
                                                 log_start_offset=-1, partition_max_bytes=1 << 20)])],
                                             forgotten_topics_data=[], rack_id="")))
    return frames


def _mutate(rng: random.Random, frame: bytes) -> bytes:
    body = bytearray(frame[4:])
    kind = rng.random()
    if kind < 0.6:  # flip a few bytes, keep the size prefix honest
        for _ in range(rng.randint(1, 4)):
            body[rng.randrange(len(body))] = rng.randrange(256)
    elif kind < 0.75:  # truncate
        del body[rng.randrange(4, len(body)):]
    elif kind < 0.85:  # append junk
        body += os.urandom(rng.randint(1, 64))
    elif kind < 0.95:  # lie about the size
        return struct.pack(">i", len(body) + rng.choice([-3, -1, 1, 7, 1000])) + bytes(body)
    else:  # random bytes
        return os.urandom(rng.randint(1, 200))
    return struct.pack(">i", len(body)) + bytes(body)


@pytest.mark.timeout(180)
def test_fuzz_then_clients_still_work(shared_broker, data_topic):
    topic = topic_name("fuzz")
    create_topic(shared_broker.port, topic)
    rng = random.Random(20261125)
    with RawConnection("127.0.0.1", shared_broker.port) as c:
        frames = _valid_frames(c, topic)
    sent = 0
    connections = 0
    deadline = time.monotonic() + 60
    while sent < 4000 and time.monotonic() < deadline:
        connections += 1
        s = socket.create_connection(("127.0.0.1", shared_broker.port), timeout=5)
        try:
            for _ in range(rng.randint(5, 60)):
                frame = rng.choice(frames)
                data = _mutate(rng, frame) if rng.random() < 0.9 else frame
                try:
                    s.sendall(data)
                except OSError:
                    break  # the broker closed this one: fine, take another
                sent += 1
            s.settimeout(0.2)
            try:
                while s.recv(65536):
                    pass
            except OSError:
                pass
        finally:
            s.close()
    assert sent >= 4000, f"only {sent} frames in 60 s"
    assert connections > 20
    assert_healthy(shared_broker, data_topic)
    # whatever the fuzz appended is whole, readable batches
    recs = read_all(shared_broker.bootstrap, topic)
    assert [o for o, _, _ in recs] == list(range(len(recs)))
    # no handler raised on any of it (the server logs "Error processing ..." when one does)
    assert "Error processing" not in shared_broker.log_text()
