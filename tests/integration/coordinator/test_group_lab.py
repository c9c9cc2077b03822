"""The seeds' consumer-group lab: one topic with 13 partitions, three console consumers
in group "mygroup"; every message is printed by exactly one of them; killing one moves
its partitions to the others within the session timeout and nothing is lost."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.integration.coordinator.helpers import (committed, create_topic, describe_group, produce,
                                                   wait_until)
from tests.support import process

REPO = Path(__file__).resolve().parents[3]
# The lab's timings, shortened: what it shows (a killed member's partitions move once its
# session runs out; every record printed once) does not depend on their length. The broker's
# group.min.session.timeout.ms (6 s) is lowered to allow them.
SESSION_MS = 4_000
HEARTBEAT_MS = 500
AUTO_COMMIT_MS = 500      # the test waits for every partition's position to be committed


class _Reader:
    """Collects a console consumer's stdout lines on a thread."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        # Only message lines: Kafka 4's tool also prints a deprecation notice on stdout.
        assert self.proc.stdout is not None, "started with stdout=PIPE"
        for line in self.proc.stdout:
            if line.startswith(("first-", "second-")):
                self.lines.append(line.rstrip("\n"))


def _stable_with(bootstrap: str, n: int) -> bool:
    d = describe_group(bootstrap, "mygroup")
    return d is not None and d["group_state"] == "Stable" and len(d["members"]) == n


def _start_consumers(kind: str, bootstrap: str) -> list[_Reader]:
    args = ["--bootstrap-server", bootstrap, "--topic", "my-topic",
            "--consumer-property", "group.id=mygroup",
            "--consumer-property", f"session.timeout.ms={SESSION_MS}",
            "--consumer-property", f"heartbeat.interval.ms={HEARTBEAT_MS}",
            "--consumer-property", f"auto.commit.interval.ms={AUTO_COMMIT_MS}"]
    if kind == "apache-cooperative":
        args += ["--consumer-property", "partition.assignment.strategy="
                 "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"]
    readers = []
    for _ in range(3):
        if kind.startswith("apache"):
            from tests.support.kafka_dist import popen_tool
            proc = popen_tool("4", "kafka-console-consumer", args, stdin=subprocess.DEVNULL)
        else:
            proc = subprocess.Popen(
                ["bash", str(REPO / "scripts" / "kafka-console-consumer.sh"), *args],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, start_new_session=True, env={**os.environ, "PYTHON": sys.executable})
        readers.append(_Reader(proc))
    return readers


@pytest.mark.parametrize("kind", ["apache", "apache-cooperative", "kafpy"])
def test_three_console_consumers_share_partitions_and_survive_a_kill(broker_factory, kind):
    b = broker_factory({"group.initial.rebalance.delay.ms": 0, "group.min.session.timeout.ms": 1000})
    create_topic(b.bootstrap, "my-topic", 13)
    readers = _start_consumers(kind, b.bootstrap)
    try:
        wait_until(lambda: _stable_with(b.bootstrap, 3), 120, "three members, Stable")
        # The console consumers start at the log end ("latest"): a record produced before a
        # member has looked its partitions' end up would be skipped, as on Apache Kafka. Each
        # member's auto-commit writes the positions it has, so wait for all 13 of them.
        wait_until(lambda: len(committed(b.bootstrap, "mygroup")) == 13, 60,
                   "every partition's position committed")
        first = [f"first-{i}" for i in range(7)]
        produce(b.bootstrap, "my-topic", [v.encode() for v in first])
        wait_until(lambda: sum(len(r.lines) for r in readers) >= 7, 60, "7 messages printed")
        printed = [line for r in readers for line in r.lines]
        assert sorted(printed) == sorted(first)           # each exactly once

        victim = readers.pop(0)
        process.kill(victim.proc)
        # Its partitions move once its session expires and the others rejoin.
        wait_until(lambda: _stable_with(b.bootstrap, 2), SESSION_MS / 1000 + 60,
                   "two members after the kill")
        d = describe_group(b.bootstrap, "mygroup")
        assert len(d["members"]) == 2
        if kind == "apache-cooperative":
            assert d["protocol_data"] == "cooperative-sticky"
        second = [f"second-{i}" for i in range(7)]
        before = [len(r.lines) for r in readers]
        produce(b.bootstrap, "my-topic", [v.encode() for v in second])
        def new_lines():
            return [line for r, n in zip(readers, before) for line in r.lines[n:]]

        wait_until(lambda: len([x for x in new_lines() if x.startswith("second-")]) >= 7, 60,
                   "7 more messages printed")
        printed = new_lines()
        assert sorted(x for x in printed if x.startswith("second-")) == sorted(second)
        # At-least-once: what the killed consumer had read but not committed yet may be
        # read again by the member that took its partitions; nothing else repeats.
        assert set(x for x in printed if x.startswith("first-")) <= set(victim.lines)
    finally:
        for r in readers:
            process.terminate(r.proc, timeout=20)
