"""A consumer's committed offset survives an aborted transactional offset commit for the same
partition, the log cleaner's pass over ``__consumer_offsets`` and a restart of the broker (the
coordinator loads the offsets back from the cleaned log), on Apache Kafka 4.4 and kafpy alike.

The aborted commit and the committed one share their key in ``__consumer_offsets`` (group,
topic, partition): a cleaner that mapped the aborted record as the key's latest compacts the
committed one away, and the reloaded group has no offset at all: the consumer starts over."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Iterator

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.support.kafka_dist import ReferenceKafka
from tests.support.kafpy_broker import KafpyBroker

from .conftest import BROKER_SETTINGS, Broker

SETTINGS = {**BROKER_SETTINGS, "offsets.topic.num.partitions": 1, "log.roll.ms": 300,
            "log.cleaner.backoff.ms": 300, "log.cleaner.min.cleanable.ratio": 0.01,
            "log.cleaner.delete.retention.ms": 100}
TOPIC, GROUP = "orders", "billing"


@pytest.fixture(params=["apache", "kafpy"])
def broker(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Broker]:
    b: Broker = (ReferenceKafka("4", work_dir=tmp_path, overrides=SETTINGS) if request.param == "apache"
                 else KafpyBroker(work_dir=tmp_path, overrides=SETTINGS))
    try:
        b.start()
        yield b
    finally:
        b.stop()


#: what a coordinator answers while it takes up or loads ``__consumer_offsets`` after a start;
#: the Java consumer retries them, librdkafka's ``committed()`` hands them to its caller
COORDINATOR_NOT_READY = {KafkaError.NOT_COORDINATOR, KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
                         KafkaError.COORDINATOR_NOT_AVAILABLE}


def committed(bootstrap: str, group: str) -> int:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                return c.committed([TopicPartition(TOPIC, 0)], timeout=30)[0].offset
            except KafkaException as e:
                if e.args[0].code() not in COORDINATOR_NOT_READY or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
    finally:
        c.close()


def commit(bootstrap: str, group: str, offset: int) -> None:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        c.commit(offsets=[TopicPartition(TOPIC, 0, offset)], asynchronous=False)
    finally:
        c.close()


def cleaned_to(log_dir: Path) -> int:
    """Where the cleaner checkpointed ``__consumer_offsets-0`` (Kafka's file, in both)."""
    try:
        lines = (log_dir / "cleaner-offset-checkpoint").read_text().splitlines()[2:]
    except FileNotFoundError:
        return -1
    return max((int(off) for name, part, off in (line.split() for line in lines)
                if name == "__consumer_offsets" and part == "0"), default=-1)


def offsets_end(bootstrap: str) -> int:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "watermarks"})
    try:
        return c.get_watermark_offsets(TopicPartition("__consumer_offsets", 0), timeout=30)[1]
    finally:
        c.close()


def test_an_aborted_offset_commit_does_not_take_the_committed_offset_with_it(broker: Broker) -> None:
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(60)
    commit(broker.bootstrap, GROUP, 5)

    p = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": "billing-copier"})
    p.init_transactions(60)
    p.begin_transaction()
    p.produce(TOPIC, value=b"copied")
    group = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": GROUP})
    p.send_offsets_to_transaction([TopicPartition(TOPIC, 0, 9)], group.consumer_group_metadata(), 30)
    group.close()
    p.abort_transaction(30)
    del p
    assert committed(broker.bootstrap, GROUP) == 5
    aborted_end = offsets_end(broker.bootstrap)

    # other groups' commits roll __consumer_offsets' segments until the cleaner has been past
    # the aborted commit and its marker
    deadline, n = time.monotonic() + 120, 0
    while cleaned_to(broker.log_dir) < aborted_end:
        assert time.monotonic() < deadline, f"__consumer_offsets-0 not cleaned past {aborted_end} in 120 s"
        time.sleep(0.35)
        commit(broker.bootstrap, f"other-{n % 3}", n)
        n += 1
    broker.stop()
    broker.start()
    assert committed(broker.bootstrap, GROUP) == 5
