"""Cooperative-sticky (incremental) rebalancing with librdkafka, and static membership
(group.instance.id) with aiokafka: a restarted static member gets its partitions back
without a new generation."""

from __future__ import annotations

import asyncio
import threading
from typing import cast

from tests.integration.coordinator.helpers import create_topic, describe_group, produce, wait_until


def test_cooperative_sticky_consumers_join_one_by_one(broker_factory):
    from confluent_kafka import Consumer
    b = broker_factory({"group.initial.rebalance.delay.ms": 0})
    create_topic(b.bootstrap, "coop", 6)
    stop = threading.Event()
    got: list[bytes] = []
    lock = threading.Lock()

    def run(i: int) -> None:
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "coop-group",
                      "client.id": f"coop-{i}", "auto.offset.reset": "earliest",
                      "partition.assignment.strategy": "cooperative-sticky"})
        c.subscribe(["coop"])
        try:
            while not stop.is_set():
                m = c.poll(0.2)
                if m is not None and not m.error():
                    with lock:
                        got.append(cast(bytes, m.value()))   # the test's records all have values
        finally:
            c.close()

    threads = []
    try:
        for i in range(3):
            threads.append(threading.Thread(target=run, args=(i,)))
            threads[-1].start()

            def settled(n=i + 1):
                d = describe_group(b.bootstrap, "coop-group")
                return d is not None and d["group_state"] == "Stable" and len(d["members"]) == n
            wait_until(settled, 90, f"{i + 1} cooperative members Stable")
        d = describe_group(b.bootstrap, "coop-group")
        assert d["protocol_data"] == "cooperative-sticky"
        values = [b"c%d" % i for i in range(60)]
        produce(b.bootstrap, "coop", values, 6)
        wait_until(lambda: len(got) >= 60, 60, "60 messages consumed")
        assert sorted(got) == sorted(values)
    finally:
        stop.set()
        for t in threads:
            t.join(60)


def test_static_member_restart_keeps_generation_and_partitions(broker_factory):
    from aiokafka import AIOKafkaConsumer
    b = broker_factory({"group.initial.rebalance.delay.ms": 0})
    create_topic(b.bootstrap, "static", 4)

    async def scenario():
        def consumer(instance: str) -> AIOKafkaConsumer:
            return AIOKafkaConsumer("static", bootstrap_servers=b.bootstrap,
                                    group_id="static-group", group_instance_id=instance,
                                    session_timeout_ms=30_000, heartbeat_interval_ms=1000)

        a, c = consumer("instance-a"), consumer("instance-b")
        await a.start()
        await c.start()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 90
        while True:
            await a.getmany(timeout_ms=100)
            await c.getmany(timeout_ms=100)
            if (a.assignment() and c.assignment()
                    and a._coordinator.generation == c._coordinator.generation):
                d = await loop.run_in_executor(None, describe_group, b.bootstrap, "static-group")
                if d is not None and d["group_state"] == "Stable" and len(d["members"]) == 2:
                    break
            assert loop.time() < deadline, "group never became Stable with both members"
        generation = a._coordinator.generation
        b_parts = set(c.assignment())
        old_member = c._coordinator.member_id
        # A static member does not leave on close: its slot waits for it (session 30 s).
        await c.stop()
        c2 = consumer("instance-b")
        await c2.start()
        deadline = loop.time() + 60
        while not c2.assignment():
            await c2.getmany(timeout_ms=100)
            await a.getmany(timeout_ms=100)
            assert loop.time() < deadline, "restarted static member got no assignment"
        d = await loop.run_in_executor(None, describe_group, b.bootstrap, "static-group")
        result = (generation, c2._coordinator.generation, b_parts, set(c2.assignment()),
                  old_member, c2._coordinator.member_id, d["group_state"],
                  sorted(m.get("group_instance_id") for m in d["members"]))
        await c2.stop()
        await a.stop()
        return result

    gen_before, gen_after, parts_before, parts_after, old_id, new_id, state, instances = \
        asyncio.run(scenario())
    assert gen_after == gen_before                 # no rebalance
    assert parts_after == parts_before
    assert new_id != old_id                        # a new member id for the same instance
    assert state == "Stable" and instances == ["instance-a", "instance-b"]
