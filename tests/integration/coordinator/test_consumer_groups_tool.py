"""Apache's kafka-consumer-groups against our coordinator: list, describe, reset offsets,
delete offsets, delete the group (FindCoordinator batched, DescribeGroups, OffsetFetch,
ListGroups, OffsetCommit, OffsetDelete, DeleteGroups)."""

from __future__ import annotations

import pytest

from tests.integration.coordinator.helpers import (
    committed, consume_and_commit, create_topic, produce)


@pytest.mark.parametrize("version", ["3.9", "4"])
def test_kafka_consumer_groups_tool(broker_factory, version):
    from tests.support.kafka_dist import run_tool
    b = broker_factory({"group.initial.rebalance.delay.ms": 0})
    create_topic(b.bootstrap, "cg", 2)
    produce(b.bootstrap, "cg", [b"v%d" % i for i in range(10)], 2)
    consume_and_commit(b.bootstrap, "cg", "tool-group", 6)

    def tool(*args):
        return run_tool(version, "kafka-consumer-groups",
                        ["--bootstrap-server", b.bootstrap, *args], timeout=120).stdout

    assert "tool-group" in tool("--list").split()
    described = tool("--describe", "--group", "tool-group")
    rows = [line.split() for line in described.splitlines() if line.startswith("tool-group")]
    # GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG ...
    offsets = committed(b.bootstrap, "tool-group")
    assert sum(offsets.values()) == 6
    assert sorted((r[1], r[2], r[3], r[4]) for r in rows) == sorted(
        ("cg", str(p), str(offsets[("cg", p)]), "5") for p in (0, 1))
    state = tool("--describe", "--group", "tool-group", "--state")
    assert "Empty" in state

    tool("--reset-offsets", "--group", "tool-group", "--topic", "cg", "--to-earliest", "--execute")
    assert committed(b.bootstrap, "tool-group") == {("cg", 0): 0, ("cg", 1): 0}

    tool("--delete-offsets", "--group", "tool-group", "--topic", "cg:1")
    assert committed(b.bootstrap, "tool-group") == {("cg", 0): 0}

    out = tool("--delete", "--group", "tool-group")
    assert "successful" in out.lower()
    assert "tool-group" not in tool("--list").split()


def test_kafka_consumer_groups_describes_an_active_group(broker_factory):
    import threading

    from kafka import KafkaConsumer

    from tests.integration.coordinator.helpers import wait_until
    from tests.support.kafka_dist import run_tool
    b = broker_factory({"group.initial.rebalance.delay.ms": 0})
    create_topic(b.bootstrap, "act", 3)
    stop = threading.Event()
    ready = threading.Event()

    def run():
        c = KafkaConsumer("act", bootstrap_servers=b.bootstrap, group_id="active-group",
                          client_id="the-client")
        try:
            while not stop.is_set():
                c.poll(timeout_ms=200)
                if c.assignment():
                    ready.set()
        finally:
            c.close()

    t = threading.Thread(target=run)
    t.start()
    try:
        wait_until(ready.is_set, 60, "consumer assigned")
        out = run_tool("4", "kafka-consumer-groups",
                       ["--bootstrap-server", b.bootstrap, "--describe", "--group", "active-group",
                        "--members", "--verbose"], timeout=120).stdout
        rows = [line.split() for line in out.splitlines() if line.startswith("active-group")]
        assert len(rows) == 1
        row = rows[0]
        assert "the-client" in row and "/127.0.0.1" in row
        assert "act:0,1,2" in row                              # assignment decoded by the tool
        state = run_tool("4", "kafka-consumer-groups",
                         ["--bootstrap-server", b.bootstrap, "--describe", "--group",
                          "active-group", "--state"], timeout=120).stdout
        assert "Stable" in state and "range" in state
    finally:
        stop.set()
        t.join(60)
