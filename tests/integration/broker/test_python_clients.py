"""kafka-python, aiokafka, confluent-kafka (librdkafka from PyPI) and Debian's kcat (an older
librdkafka) against one broker with their default settings: produce and consume with every
codec, keys, headers and timestamps, seek to an offset and to a timestamp. Consumers use
assign() without a group, so these tests do not depend on the group coordinator."""
from __future__ import annotations

import asyncio
import shutil
import subprocess

import pytest

from tests.integration.broker.conftest import topic_name

CODECS = [None, "gzip", "snappy", "lz4", "zstd"]
N = 60
BASE_TS = 1_700_000_000_000


def expected(i: int) -> tuple[bytes, bytes, list[tuple[str, bytes]], int]:
    return b"key-%d" % i, b"value-%d" % i * (i % 5 + 1), [("h1", b"x%d" % i), ("h2", b"")], BASE_TS + i * 10


def codec_id(c: str | None) -> str:
    return c or "none"


# --------------------------------------------------------------------------- kafka-python
@pytest.mark.timeout(120)
@pytest.mark.parametrize("codec", CODECS, ids=codec_id)
def test_kafka_python(shared_broker, codec):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import KafkaAdminClient, NewTopic

    topic = topic_name(f"kp-{codec_id(codec)}")
    admin = KafkaAdminClient(bootstrap_servers=shared_broker.bootstrap)
    try:
        admin.create_topics([NewTopic(topic, 2, 1)])
    finally:
        admin.close()
    producer = KafkaProducer(bootstrap_servers=shared_broker.bootstrap, compression_type=codec)
    try:
        futures = []
        for i in range(N):
            k, v, h, ts = expected(i)
            futures.append(producer.send(topic, key=k, value=v, headers=h, timestamp_ms=ts, partition=1))
        producer.flush(30)
        offsets = [f.get(30).offset for f in futures]
    finally:
        producer.close(10)
    assert offsets == list(range(N))

    tp = TopicPartition(topic, 1)
    consumer = KafkaConsumer(bootstrap_servers=shared_broker.bootstrap, consumer_timeout_ms=10000)
    try:
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        got = []
        for m in consumer:
            got.append(m)
            if len(got) == N:
                break
        assert [(m.offset, m.key, m.value, list(m.headers), m.timestamp) for m in got] == \
               [(i, *expected(i)) for i in range(N)]
        found = consumer.offsets_for_times({tp: BASE_TS + 255})
        assert found[tp].offset == 26 and found[tp].timestamp == BASE_TS + 260
        assert consumer.offsets_for_times({tp: BASE_TS + 10 * N + 1})[tp] is None
        assert consumer.end_offsets([tp])[tp] == N
        assert consumer.beginning_offsets([tp])[tp] == 0
        consumer.seek(tp, 37)  # inside a batch: the client drops the records before it
        m = next(consumer)
        assert (m.offset, m.value) == (37, expected(37)[1])
    finally:
        consumer.close()


# --------------------------------------------------------------------------- aiokafka
@pytest.mark.timeout(120)
@pytest.mark.parametrize("codec", CODECS, ids=codec_id)
def test_aiokafka(shared_broker, codec):
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

    topic = topic_name(f"aio-{codec_id(codec)}")

    async def run() -> None:
        producer = AIOKafkaProducer(bootstrap_servers=shared_broker.bootstrap, compression_type=codec)
        await producer.start()
        try:
            futs = []
            for i in range(N):
                k, v, h, ts = expected(i)
                futs.append(await producer.send(topic, key=k, value=v, headers=h, timestamp_ms=ts, partition=0))
            offsets = [(await f).offset for f in futs]
        finally:
            await producer.stop()
        assert offsets == list(range(N))

        consumer = AIOKafkaConsumer(bootstrap_servers=shared_broker.bootstrap)
        await consumer.start()
        try:
            tp = TopicPartition(topic, 0)
            consumer.assign([tp])
            await consumer.seek_to_beginning(tp)
            got = []
            for _ in range(50):
                batch = await consumer.getmany(tp, timeout_ms=500)
                got += batch.get(tp, [])
                if len(got) >= N:
                    break
            assert [(m.offset, m.key, m.value, list(m.headers), m.timestamp) for m in got] == \
                   [(i, *expected(i)) for i in range(N)]
            found = await consumer.offsets_for_times({tp: BASE_TS + 100})
            assert found[tp].offset == 10 and found[tp].timestamp == BASE_TS + 100
            assert (await consumer.end_offsets([tp]))[tp] == N
            consumer.seek(tp, 41)
            m = await asyncio.wait_for(consumer.getone(tp), 30)
            assert (m.offset, m.key) == (41, expected(41)[0])
        finally:
            await consumer.stop()

    asyncio.run(run())


# --------------------------------------------------------------------------- confluent-kafka
@pytest.mark.timeout(120)
@pytest.mark.parametrize("codec", CODECS, ids=codec_id)
def test_confluent_kafka(shared_broker, codec):
    from confluent_kafka import Consumer, Producer, TopicPartition

    topic = topic_name(f"ck-{codec_id(codec)}")
    producer = Producer({"bootstrap.servers": shared_broker.bootstrap, "compression.type": codec or "none"})
    delivered: list = []
    for i in range(N):
        k, v, h, ts = expected(i)
        producer.produce(topic, key=k, value=v, headers=h, timestamp=ts, partition=0,
                         on_delivery=lambda err, msg: delivered.append((err, msg.offset())))
    assert producer.flush(60) == 0
    assert [e for e, _ in delivered if e is not None] == []
    assert sorted(o for _, o in delivered) == list(range(N))

    consumer = Consumer({"bootstrap.servers": shared_broker.bootstrap, "group.id": topic,
                         "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        got = []
        for _ in range(60):
            for m in consumer.consume(N, 0.5):
                assert m.error() is None, m.error()
                got.append(m)
            if len(got) >= N:
                break
        assert [(m.offset(), m.key(), m.value(), m.headers(), m.timestamp()[1]) for m in got] == \
               [(i, *expected(i)) for i in range(N)]
        [found] = consumer.offsets_for_times([TopicPartition(topic, 0, BASE_TS + 333)], 30)
        assert found.error is None and found.offset == 34
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), 30)
        assert (low, high) == (0, N)
        consumer.seek(TopicPartition(topic, 0, 23))
        m = None
        for _ in range(60):
            ms = consumer.consume(1, 0.5)
            if ms:
                m = ms[0]
                break
        assert m is not None and (m.offset(), m.value()) == (23, expected(23)[1])
    finally:
        consumer.close()


# --------------------------------------------------------------------------- kcat
def kcat(args: list[str], input: bytes | None = None) -> subprocess.CompletedProcess:
    exe = shutil.which("kcat") or shutil.which("kafkacat")
    assert exe, "kcat is not installed (scripts/install-deps.sh installs Debian's kcat)"
    return subprocess.run([exe, *args], input=input, capture_output=True, timeout=60, check=True)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("codec", CODECS, ids=codec_id)
def test_kcat(shared_broker, codec):
    topic = topic_name(f"kc-{codec_id(codec)}")
    bs = shared_broker.bootstrap
    # two producer runs, so the second half has later timestamps than the first
    for lo, hi in ((0, N // 2), (N // 2, N)):
        lines = b"".join(b"key%d:value %d\n" % (i, i) for i in range(lo, hi))
        kcat(["-b", bs, "-P", "-t", topic, "-p", "0", "-z", codec or "none", "-K:", "-H", "h1=v1",
              "-H", "h2=v2"], lines)
    out = kcat(["-b", bs, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q",
                "-f", "%o|%k|%s|%h|%T\\n"]).stdout.decode().splitlines()
    assert len(out) == N
    rows = [line.split("|") for line in out]
    assert [(int(o), k, s, h) for o, k, s, h, _ in rows] == \
           [(i, f"key{i}", f"value {i}", "h1=v1,h2=v2") for i in range(N)]
    timestamps = [int(r[4]) for r in rows]
    assert all(t > 0 for t in timestamps)
    # seek to an offset (inside a batch) and to a timestamp
    out = kcat(["-b", bs, "-C", "-t", topic, "-p", "0", "-o", "45", "-e", "-q", "-f", "%o\\n"]).stdout.split()
    assert [int(x) for x in out] == list(range(45, N))
    ts = timestamps[N // 2]
    first_at = next(i for i, t in enumerate(timestamps) if t >= ts)
    assert 0 < first_at <= N // 2 or timestamps[0] == ts
    out = kcat(["-b", bs, "-C", "-t", topic, "-p", "0", "-o", f"s@{ts}", "-e", "-q", "-f", "%o\\n"]).stdout.split()
    assert [int(x) for x in out] == list(range(first_at, N))


@pytest.mark.timeout(60)
def test_kcat_metadata_lists_broker_and_topics(shared_broker):
    topic = topic_name("kc-meta")
    kcat(["-b", shared_broker.bootstrap, "-P", "-t", topic], b"one\n")
    out = kcat(["-b", shared_broker.bootstrap, "-L", "-t", topic]).stdout.decode()
    assert f"broker 0 at {shared_broker.bootstrap}" in out
    assert f'topic "{topic}" with 1 partitions' in out
    assert "leader 0, replicas: 0, isrs: 0" in out


# --------------------------------------------------------------------------- idempotence
@pytest.mark.timeout(120)
@pytest.mark.parametrize("client", ["kafka-python", "aiokafka", "confluent-kafka"])
def test_idempotent_producers(shared_broker, client):
    """Each client with idempotence switched on (InitProducerId, sequences per partition)."""
    topic = topic_name(f"idem-{client}")
    bs = shared_broker.bootstrap
    values = [b"i%d" % i for i in range(500)]
    if client == "kafka-python":
        from kafka import KafkaProducer
        p = KafkaProducer(bootstrap_servers=bs, enable_idempotence=True, acks="all", compression_type="lz4")
        try:
            futs = [p.send(topic, v, partition=0) for v in values]
            p.flush(30)
            offsets = [f.get(30).offset for f in futs]
        finally:
            p.close(10)
    elif client == "aiokafka":
        from aiokafka import AIOKafkaProducer

        async def run() -> list[int]:
            p = AIOKafkaProducer(bootstrap_servers=bs, enable_idempotence=True, compression_type="gzip")
            await p.start()
            try:
                futs = [await p.send(topic, v, partition=0) for v in values]
                return [(await f).offset for f in futs]
            finally:
                await p.stop()

        offsets = asyncio.run(run())
    else:
        from confluent_kafka import Producer
        p = Producer({"bootstrap.servers": bs, "enable.idempotence": True, "compression.type": "zstd"})
        got: list = []
        for v in values:
            p.produce(topic, v, partition=0, on_delivery=lambda err, msg: got.append((err, msg.offset(), msg.value())))
        assert p.flush(60) == 0
        assert [e for e, _, _ in got if e is not None] == []
        offsets = [o for _, o, _ in sorted(got, key=lambda x: int(x[2][1:]))]
    assert offsets == list(range(len(values)))
    from tests.integration.broker.raw import read_all
    assert [v for _, _, v in read_all(bs, topic)] == values
