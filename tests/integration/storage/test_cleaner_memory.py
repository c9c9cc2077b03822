"""A producer writing many distinct keys to a compacted topic cannot grow the broker's memory
through the log cleaner: ``log.cleaner.dedupe.buffer.size`` bounds the cleaner's offset map,
so a broker given 1 MiB compacts 20,000 keys in several passes (each logged, each moving the
cleaner checkpoint on), and a consumer then reads exactly the latest value of every key."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic,
                                  ResourceType)

from kafpy.storage.checkpoint import OffsetCheckpointFile
from tests.integration.cluster.harness import wait_until
from tests.support.kafpy_broker import KafpyBroker

pytestmark = pytest.mark.timeout(300)
TOPIC = "many-keys"
KEYS = 20_000


# a 1 MiB dedupe buffer; a cleaner thread that found nothing to clean looks again after 100 ms
BROKER = {"log.cleaner.dedupe.buffer.size": 1024 * 1024, "log.cleaner.backoff.ms": 100}


def test_a_small_dedupe_buffer_compacts_many_keys_in_bounded_passes(broker_factory) -> None:
    broker: KafpyBroker = broker_factory(BROKER)
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    # written under cleanup.policy=delete and only then compacted, so that every pass of the
    # cleaner finds the whole log dirty (cleaning while the producer writes would take the
    # keys in smaller bites, as many as the producer's pace allows)
    # segments rolled by time (Kafka 4.4 refuses a segment.bytes under 1 MiB, which these
    # records would not fill)
    settings = {"segment.ms": "100", "min.cleanable.dirty.ratio": "0.01"}
    admin.create_topics([NewTopic(TOPIC, 1, 1, config={"cleanup.policy": "delete", **settings})])[TOPIC].result(30)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 20, "batch.size": 16384})
    for round_ in range(2):
        for k in range(KEYS):
            producer.produce(TOPIC, key=b"key-%05d" % k, value=b"round-%d-%05d" % (round_, k))
            if k % 5000 == 0:
                producer.poll(0)
        assert producer.flush(60) == 0
    # one more record so that the last of the second round leaves the active segment
    time.sleep(0.2)
    producer.produce(TOPIC, key=b"tail", value=b"tail")
    assert producer.flush(60) == 0

    compact = ConfigResource(ResourceType.TOPIC, TOPIC, incremental_configs=[
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.SET)])
    for future in admin.incremental_alter_configs([compact]).values():
        future.result(30)
    checkpoint = OffsetCheckpointFile(str(Path(broker.log_dir) / "cleaner-offset-checkpoint"))

    def passes() -> list[tuple[str, str]]:
        return re.findall(r"Offset map for .*many-keys-0.* full at (\d+) keys: cleaning up to offset (\d+)",
                          broker.log_text())
    # 1 MiB at the 0.9 load factor holds 7,315 keys of 9 bytes: the 40,000 records take five
    # passes, four of them with a full map; the last reaches the active segment, never cleaned
    wait_until(lambda: len(passes()) >= 4 and checkpoint.read().get((TOPIC, 0), 0) > int(passes()[-1][1]), 120,
               "bounded passes, then one that reaches the active segment")
    full = passes()
    assert [int(n) for n, _ in full] == [7315] * len(full)
    assert [int(e) for _, e in full] == [7315 * (i + 1) for i in range(len(full))]

    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "reader",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    latest: dict[bytes, bytes] = {}
    count = 0
    try:
        consumer.subscribe([TOPIC])
        idle = 0
        while idle < 10:
            msgs = consumer.consume(5000, 1.0)
            idle = 0 if msgs else idle + 1
            for m in msgs:
                assert m.error() is None, m.error()
                key, value = m.key(), m.value()
                assert key is not None and value is not None
                latest[key] = value
                count += 1
            if len(latest) == KEYS + 1 and count < 2 * KEYS:
                break
    finally:
        consumer.close()
    assert latest == {**{b"key-%05d" % k: b"round-1-%05d" % k for k in range(KEYS)}, b"tail": b"tail"}
    assert count < 2 * KEYS   # the first round's records were compacted away


def test_dedupe_buffer_and_io_rate_change_on_a_running_broker(broker_factory) -> None:
    """All three are dynamic broker configs in Kafka: kafka-configs.sh alters them without a restart."""
    from tests.support.kafka_dist import run_tool
    broker: KafpyBroker = broker_factory(BROKER)

    mark = len(broker.log_text())
    run_tool("4", "kafka-configs", ["--bootstrap-server", broker.bootstrap, "--entity-type", "brokers",
                                    "--entity-default", "--alter", "--add-config",
                                    "log.cleaner.dedupe.buffer.size=2097152,log.cleaner.io.max.bytes.per.second=1048576,"
                                    "log.cleaner.io.buffer.size=65536"],
             timeout=120)
    budget = int(2097152 * 0.9)
    wait_until(lambda: f"offset map budget {int(1048576 * 0.9)} -> {budget} bytes" in broker.log_text()[mark:]
               and "I/O rate 1.79769e+308 -> 1.04858e+06 bytes/s" in broker.log_text()[mark:]
               and "I/O buffer size 524288 -> 65536 bytes" in broker.log_text()[mark:], 60,
               "the cleaner took the three new values")
