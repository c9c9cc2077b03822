"""Shared pieces of the coordinator integration tests (real broker process, real clients)."""

from __future__ import annotations

import time

from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic


def create_topic(bootstrap: str, name: str, partitions: int) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(name, partitions, 1)])
    finally:
        admin.close()


def produce(bootstrap: str, topic: str, values: list[bytes], partitions: int | None = None) -> None:
    p = KafkaProducer(bootstrap_servers=bootstrap)
    try:
        for i, v in enumerate(values):
            p.send(topic, v, partition=None if partitions is None else i % partitions)
        p.flush(timeout=60)  # a broker that never acknowledges fails the test, not hangs it
    finally:
        p.close(timeout=10)


def consume_and_commit(bootstrap: str, topic: str, group: str, n: int) -> None:
    """Read `n` records of `topic` as a member of `group` (kafka-python) and commit."""
    from kafka import KafkaConsumer
    c = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                      auto_offset_reset="earliest", enable_auto_commit=False,
                      consumer_timeout_ms=10_000)
    got = 0
    try:
        for _ in c:
            got += 1
            if got == n:
                break
        c.commit()
    finally:
        c.close()
    assert got == n


def committed(bootstrap: str, group: str) -> dict[tuple[str, int], int]:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        got = admin.list_group_offsets(group)
    finally:
        admin.close()
    offsets = got.get(group, got) if isinstance(got, dict) else got
    return {(tp.topic, tp.partition): om.offset for tp, om in offsets.items()}


def describe_group(bootstrap: str, group: str) -> dict | None:
    """The group as DescribeGroups reports it; None while its coordinator is not
    available yet (the first FindCoordinator only asks for __consumer_offsets)."""
    from kafka.errors import CoordinatorNotAvailableError
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        return admin.describe_groups([group])[group]
    except CoordinatorNotAvailableError:
        return None
    finally:
        admin.close()


def wait_until(pred, timeout: float, what: str, step: float = 0.2):
    """Poll `pred` until it returns a truthy value (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(step)
