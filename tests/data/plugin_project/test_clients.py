"""A user's tests: only kafpy's pytest fixtures, with three Kafka clients for Python."""
from __future__ import annotations

import asyncio
import itertools
import os
from pathlib import Path

from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient


def record_worker(bootstrap: str) -> None:
    """Leave a note of which broker this worker used (checked by the test that runs us)."""
    notes = os.environ.get("KAFPY_PLUGIN_NOTES")
    if notes:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        Path(notes, f"{worker}-{os.getpid()}").write_text(bootstrap)


def test_kafka_python_roundtrip(kafka_bootstrap_servers, kafpy_topic):
    record_worker(kafka_bootstrap_servers)
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap_servers, acks="all")
    producer.send(kafpy_topic, b"from kafka-python", partition=0).get(timeout=30)
    producer.close()
    # the iteration ends at the first record; 30 s, as the producer's wait above, for a
    # machine busy with other tests (10 s ran out once in the suite's wheel test)
    consumer = KafkaConsumer(kafpy_topic, bootstrap_servers=kafka_bootstrap_servers,
                             auto_offset_reset="earliest", consumer_timeout_ms=30000)
    try:
        assert next(iter(consumer)).value == b"from kafka-python"
    finally:
        consumer.close()


def test_confluent_kafka_roundtrip(kafka_bootstrap_servers, kafpy_topic):
    from confluent_kafka import Consumer, Producer

    record_worker(kafka_bootstrap_servers)
    producer = Producer({"bootstrap.servers": kafka_bootstrap_servers})
    producer.produce(kafpy_topic, value=b"from confluent-kafka")
    assert producer.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": kafka_bootstrap_servers, "group.id": kafpy_topic,
                         "auto.offset.reset": "earliest"})
    consumer.subscribe([kafpy_topic])
    try:
        for _ in range(60):
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                assert msg.value() == b"from confluent-kafka"
                return
        raise AssertionError("no record consumed in 60 s")
    finally:
        consumer.close()


def test_aiokafka_roundtrip(kafka_bootstrap_servers, kafpy_topic):
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    record_worker(kafka_bootstrap_servers)

    async def roundtrip() -> bytes:
        producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap_servers)
        await producer.start()
        try:
            await producer.send_and_wait(kafpy_topic, b"from aiokafka")
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(kafpy_topic, bootstrap_servers=kafka_bootstrap_servers,
                                    auto_offset_reset="earliest")
        await consumer.start()
        try:
            msg = await asyncio.wait_for(consumer.getone(), 30)
            return msg.value
        finally:
            await consumer.stop()

    assert asyncio.run(roundtrip()) == b"from aiokafka"


def test_topics_are_unique_and_take_settings(kafpy_topic, kafpy_topic_factory,
                                             kafka_bootstrap_servers):
    record_worker(kafka_bootstrap_servers)
    compacted = kafpy_topic_factory(partitions=3, config={"cleanup.policy": "compact"})
    assert compacted != kafpy_topic
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap_servers)
    try:
        described = {t["name"]: t for t in admin.describe_topics([kafpy_topic, compacted])}
    finally:
        admin.close()
    assert len(described[compacted]["partitions"]) == 3
    assert len(described[kafpy_topic]["partitions"]) == 1


def test_ini_settings_reach_the_broker(kafka_bootstrap_servers, kafpy_topic):
    """num.partitions=2 in pytest.ini: an auto-created topic gets two partitions."""
    record_worker(kafka_bootstrap_servers)
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap_servers)
    auto = kafpy_topic + "-auto"
    producer.send(auto, b"x").get(timeout=30)
    assert len(producer.partitions_for(auto)) == 2
    producer.close()


def test_failure_helpers_application_survives_a_restart(kafpy_broker, kafpy_topic):
    """An application (here a producer with retries) keeps working across a broker restart."""
    record_worker(kafpy_broker.bootstrap_servers)
    producer = KafkaProducer(bootstrap_servers=kafpy_broker.bootstrap_servers, acks="all",
                             retries=50, retry_backoff_ms=100, request_timeout_ms=5000)
    producer.send(kafpy_topic, b"before").get(timeout=30)
    kafpy_broker.restart(kill=True)
    producer.send(kafpy_topic, b"after").get(timeout=60)
    producer.close()
    consumer = KafkaConsumer(kafpy_topic, bootstrap_servers=kafpy_broker.bootstrap_servers,
                             auto_offset_reset="earliest", consumer_timeout_ms=30000)
    try:  # the first two records, as soon as they are read
        assert [m.value for m in itertools.islice(consumer, 2)] == [b"before", b"after"]
    finally:
        consumer.close()
