"""Each client library: consume in a group, commit, stop, restart, resume from the commit."""

from __future__ import annotations

import asyncio

import pytest

from tests.integration.coordinator.helpers import committed, create_topic, produce

OVERRIDES = {"group.initial.rebalance.delay.ms": 0}
N = 30


def _values(prefix: str, n: int = N) -> list[bytes]:
    return [f"{prefix}-{i}".encode() for i in range(n)]


def _kafka_python_take(bootstrap, topic, group, n, timeout_ms=10_000):
    from kafka import KafkaConsumer
    c = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                      auto_offset_reset="earliest", enable_auto_commit=False,
                      consumer_timeout_ms=timeout_ms)
    got = []
    try:
        for m in c:
            got.append(m.value)
            if len(got) == n:
                break
        c.commit()
    finally:
        c.close()
    return got


def test_kafka_python_resumes_from_committed_offset(broker_factory):
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, "kp", 3)
    values = _values("kp")
    produce(b.bootstrap, "kp", values, 3)
    first = _kafka_python_take(b.bootstrap, "kp", "kp-group", 12)
    assert len(first) == 12
    assert sum(committed(b.bootstrap, "kp-group").values()) == 12
    rest = _kafka_python_take(b.bootstrap, "kp", "kp-group", N - 12)
    assert sorted(first + rest) == sorted(values)


def test_aiokafka_resumes_from_committed_offset(broker_factory):
    from aiokafka import AIOKafkaConsumer
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, "aio", 3)
    values = _values("aio")
    produce(b.bootstrap, "aio", values, 3)

    async def take(n):
        c = AIOKafkaConsumer("aio", bootstrap_servers=b.bootstrap, group_id="aio-group",
                             auto_offset_reset="earliest", enable_auto_commit=False)
        await c.start()
        got = []
        try:
            while len(got) < n:
                batch = await asyncio.wait_for(c.getmany(timeout_ms=1000, max_records=n - len(got)), 20)
                for msgs in batch.values():
                    got.extend(m.value for m in msgs)
            await c.commit()
        finally:
            await c.stop()
        return got

    first = asyncio.run(take(10))
    assert sum(committed(b.bootstrap, "aio-group").values()) == 10
    rest = asyncio.run(take(N - 10))
    assert sorted(first + rest) == sorted(values)


def test_confluent_kafka_resumes_from_committed_offset(broker_factory):
    from confluent_kafka import Consumer
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, "ck", 3)
    values = _values("ck")
    produce(b.bootstrap, "ck", values, 3)

    def take(n):
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "ck-group",
                      "auto.offset.reset": "earliest", "enable.auto.commit": False})
        c.subscribe(["ck"])
        got = []
        try:
            for _ in range(200):
                if len(got) >= n:
                    break
                m = c.poll(0.5)
                if m is None or m.error():
                    continue
                got.append(m.value())
                c.commit(message=m, asynchronous=False)
        finally:
            c.close()
        return got

    first = take(10)
    assert len(first) == 10
    assert sum(committed(b.bootstrap, "ck-group").values()) == 10
    rest = take(N - 10)
    assert sorted(first + rest) == sorted(values)


@pytest.mark.parametrize("version", ["3.9", "4"])
def test_java_console_consumer_resumes_from_committed_offset(broker_factory, version):
    from tests.support.kafka_dist import run_tool
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, "jc", 2)
    values = _values("jc", 20)
    produce(b.bootstrap, "jc", values[:10], 2)
    args = ["--bootstrap-server", b.bootstrap, "--topic", "jc", "--group", "jc-group",
            "--from-beginning", "--timeout-ms", "8000"]
    out1 = run_tool(version, "kafka-console-consumer", [*args, "--max-messages", "10"],
                    timeout=120).stdout.split()
    assert sorted(out1) == sorted(v.decode() for v in values[:10])
    assert sum(committed(b.bootstrap, "jc-group").values()) == 10
    produce(b.bootstrap, "jc", values[10:], 2)
    out2 = run_tool(version, "kafka-console-consumer", [*args, "--max-messages", "10"],
                    timeout=120).stdout.split()
    assert sorted(out2) == sorted(v.decode() for v in values[10:])
