"""A group mixing client kinds, and bounded churn: consumers joining and leaving at
random; at the end every partition has exactly one owner and no consumer ever saw its
generation go backwards."""

from __future__ import annotations

import asyncio
import random
import struct
import threading

from tests.integration.coordinator.helpers import create_topic, describe_group, produce, wait_until


def test_kafka_python_and_confluent_kafka_share_one_group(broker_factory):
    from confluent_kafka import Consumer
    from kafka import KafkaConsumer
    b = broker_factory({"group.initial.rebalance.delay.ms": 0})
    create_topic(b.bootstrap, "mixed", 6)
    stop = threading.Event()
    got: dict[str, list[bytes]] = {"kafka-python": [], "librdkafka": []}

    def run_kafka_python():
        c = KafkaConsumer("mixed", bootstrap_servers=b.bootstrap, group_id="mixed-group",
                          client_id="kp-member", auto_offset_reset="earliest",
                          partition_assignment_strategy=[
                              __import__("kafka.coordinator.assignors.range",
                                         fromlist=["RangePartitionAssignor"]).RangePartitionAssignor])
        try:
            while not stop.is_set():
                for msgs in c.poll(timeout_ms=200).values():
                    got["kafka-python"].extend(m.value for m in msgs)
        finally:
            c.close()

    def run_librdkafka():
        c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "mixed-group",
                      "client.id": "rdkafka-member", "auto.offset.reset": "earliest",
                      "partition.assignment.strategy": "range"})
        c.subscribe(["mixed"])
        try:
            while not stop.is_set():
                m = c.poll(0.2)
                if m is not None and not m.error():
                    got["librdkafka"].append(m.value())
        finally:
            c.close()

    threads = [threading.Thread(target=run_kafka_python, name="kafka-python"),
               threading.Thread(target=run_librdkafka, name="librdkafka")]
    for t in threads:
        t.start()
    try:
        seen: list[object] = []   # the group as last described, for the failure message

        def two_members_stable():
            d = describe_group(b.bootstrap, "mixed-group")
            seen[:] = [None if d is None else (d["group_state"], sorted(m["client_id"] for m in d["members"]))]
            return (d is not None and d["group_state"] == "Stable" and
                    sorted(m["client_id"] for m in d["members"]) == ["kp-member", "rdkafka-member"])
        try:
            wait_until(two_members_stable, 90, "both clients in one Stable group")
        except AssertionError as e:
            alive = {t.name: t.is_alive() for t in threads}
            raise AssertionError(f"{e}; last described {seen}; consumer threads alive {alive}; "
                                 f"records so far {({k: len(v) for k, v in got.items()})}") from None
        d = describe_group(b.bootstrap, "mixed-group")
        assert d["protocol_type"] == "consumer" and d["protocol_data"] == "range"
        values = [b"m%d" % i for i in range(60)]
        produce(b.bootstrap, "mixed", values, 6)
        wait_until(lambda: len(got["kafka-python"]) + len(got["librdkafka"]) >= 60, 60,
                   "60 messages consumed")
        assert sorted(got["kafka-python"] + got["librdkafka"]) == sorted(values)
        assert got["kafka-python"] and got["librdkafka"]          # 3 partitions each
    finally:
        stop.set()
        for t in threads:
            t.join(60)


def _owned(described: dict) -> list[tuple[str, int]]:
    """The topic partitions assigned to the members of a DescribeGroups result."""
    owned: list[tuple[str, int]] = []
    for m in described["members"]:
        a = m["member_assignment"]
        if isinstance(a, (bytes, bytearray)):
            owned.extend(_parse_assignment(bytes(a)))
            continue
        parts = a["assigned_partitions"] if isinstance(a, dict) else a.assigned_partitions
        for tp in parts:
            topic, ps = ((tp["topic"], tp["partitions"]) if isinstance(tp, dict)
                         else (tp.topic, tp.partitions))
            owned.extend((topic, p) for p in ps)
    return owned


def _parse_assignment(data: bytes) -> list[tuple[str, int]]:
    """ConsumerProtocolAssignment (any version): the assigned topic partitions."""
    pos = 2
    (n,) = struct.unpack_from(">i", data, pos)
    pos += 4
    out = []
    for _ in range(n):
        (tl,) = struct.unpack_from(">h", data, pos)
        topic = data[pos + 2:pos + 2 + tl].decode()
        pos += 2 + tl
        (pn,) = struct.unpack_from(">i", data, pos)
        pos += 4
        for _ in range(pn):
            out.append((topic, struct.unpack_from(">i", data, pos)[0]))
            pos += 4
    return out


def test_twenty_consumers_joining_and_leaving_at_random(broker_factory):
    from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
    b = broker_factory({"group.initial.rebalance.delay.ms": 0})
    partitions = 12
    create_topic(b.bootstrap, "churn", partitions)
    rng = random.Random(20261125)
    generations: dict[int, list[int]] = {}

    class Recorder(ConsumerRebalanceListener):
        def __init__(self, ident: int, consumer) -> None:
            self.ident, self.consumer = ident, consumer

        async def on_partitions_revoked(self, revoked):
            pass

        async def on_partitions_assigned(self, assigned):
            generations.setdefault(self.ident, []).append(self.consumer._coordinator.generation)

    async def member(ident: int, stop: asyncio.Event) -> None:
        c = AIOKafkaConsumer(bootstrap_servers=b.bootstrap, group_id="churn-group",
                             client_id=f"churn-{ident}", session_timeout_ms=10_000,
                             heartbeat_interval_ms=1000, auto_offset_reset="earliest")
        c.subscribe(["churn"], listener=Recorder(ident, c))
        await c.start()
        try:
            while not stop.is_set():
                await c.getmany(timeout_ms=200)
        finally:
            await c.stop()

    async def scenario():
        running: dict[int, tuple[asyncio.Task, asyncio.Event]] = {}
        started = 0
        loop = asyncio.get_running_loop()
        # 30 s of churn, and on a slow machine on until at least 24 members have come (bounded
        # at 120 s): the count, not the clock, is what the test is about
        end, hard_end = loop.time() + 30, loop.time() + 120
        while (loop.time() < end or started < 24) and loop.time() < hard_end:
            if len(running) < 20 and (not running or rng.random() < 0.6):
                stop = asyncio.Event()
                running[started] = (asyncio.create_task(member(started, stop)), stop)
                started += 1
            elif running:
                task, stop = running.pop(rng.choice(sorted(running)))
                stop.set()
                await asyncio.wait_for(task, 60)
            await asyncio.sleep(rng.uniform(0.2, 1.5))
        # Settle: the survivors end up Stable, owning every partition exactly once.
        deadline = loop.time() + 120
        while True:
            d = await loop.run_in_executor(None, describe_group, b.bootstrap, "churn-group")
            if d is not None and d["group_state"] == "Stable" and len(d["members"]) == len(running):
                break
            assert loop.time() < deadline, f"group never settled: {d and d['group_state']}"
            await asyncio.sleep(0.5)
        try:
            return started, d
        finally:
            for task, stop in running.values():
                stop.set()
            await asyncio.wait_for(asyncio.gather(*(t for t, _ in running.values())), 120)

    started, final = asyncio.run(scenario())
    assert started >= 20
    assert sorted(_owned(final)) == sorted(("churn", p) for p in range(partitions))
    assert generations
    for ident, gens in generations.items():
        assert gens == sorted(gens), f"consumer {ident} saw generations {gens}"
