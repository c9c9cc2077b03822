"""Share groups (KIP-932) side by side with Apache Kafka 4.4: four Java 4.4
KafkaShareConsumers share one partition and a three-partition topic, with explicit and
implicit acknowledgement; the records of a share consumer that stops acknowledging go
to the others once their acquisition lock runs out, and those of one killed with kill -9
as soon as its connection closes (as Kafka 4.4 releases a closed connection's share
session), at the latest when the lock runs out.

Both brokers run with a 3 s lock duration and a delivery limit of 3; each scenario runs
against both at once (one JVM per broker, `ShareConsumers.java`) and the same
assertions hold for both.
"""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Iterator

import pytest
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from tests.support.kafka_dist import ReferenceKafka, classpath, compile_java, java_executable
from tests.support.kafpy_broker import KafpyBroker
from tests.support.side_by_side import started_together

HERE = Path(__file__).parent
LOCK_MS = 3000
LIMIT = 3
SHARE_SETTINGS = {"group.share.record.lock.duration.ms": LOCK_MS,
                  "group.share.min.record.lock.duration.ms": 1000,
                  "group.share.delivery.count.limit": LIMIT}


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """{"kafka": bootstrap, "kafpy": bootstrap}, both started in parallel."""
    base = tmp_path_factory.mktemp("share")
    kafka = ReferenceKafka("4", work_dir=base / "kafka", overrides=SHARE_SETTINGS)
    ours = KafpyBroker(log_dir=base / "kafpy", overrides=SHARE_SETTINGS)
    with started_together(kafka, ours):
        yield {"kafka": kafka.bootstrap, "kafpy": ours.bootstrap}


def _create_and_produce(bootstrap: str, topic: str, partitions: int, values: list[str]) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(topic, partitions, 1)])
    finally:
        admin.close()
    p = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=0)
    try:
        for i, v in enumerate(values):
            p.send(topic, v.encode(), partition=i % partitions)
        p.flush(timeout=60)
    finally:
        p.close(timeout=10)


def _java(bootstrap: str, group: str, topic: str, mode: str, consumers: int, expected: int,
          quiet_ms: int = LOCK_MS + 1000) -> subprocess.Popen:
    classes = compile_java(HERE / "ShareConsumers.java", "4")
    err = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(
        [java_executable(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
         "-cp", f"{classes}:{classpath('4')}", "ShareConsumers", bootstrap, group, topic, mode,
         str(consumers), str(expected), str(quiet_ms)],
        stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
    proc.err_file = err          # type: ignore[attr-defined]
    return proc


def _finish(proc: subprocess.Popen, timeout: float = 120) -> list[str]:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    err_file = proc.err_file  # type: ignore[attr-defined]  # set by _java
    err_file.seek(0)
    err = err_file.read()
    assert proc.returncode == 0 and out.rstrip().splitlines()[-1:] and \
        out.rstrip().splitlines()[-1].startswith("DONE"), f"exit {proc.returncode}:\n{out[-3000:]}\n{err[-4000:]}"
    return out.splitlines()


def _deliveries(lines: list[str]) -> dict[str, list[int]]:
    """value -> the delivery counts it was delivered with, in order."""
    out: dict[str, list[int]] = defaultdict(list)
    for line in lines:
        if line.startswith("D "):
            _, _, _, value, count, _ = line.split()
            out[value].append(int(count))
    return out


def _both(brokers: dict[str, str], run) -> dict[str, list[str]]:
    """`run(name, bootstrap)` -> Popen for each broker at once; their output lines."""
    procs = {name: run(name, bs) for name, bs in brokers.items()}
    return {name: _finish(p) for name, p in procs.items()}


def test_explicit_acknowledgement_on_one_partition(brokers):
    normal = [f"v{i}" for i in range(20)]
    values = normal[:10] + ["reject-1", "release-1"] + normal[10:] + ["poison-1"]
    for bs in brokers.values():
        _create_and_produce(bs, "share-one", 1, values)
    out = _both(brokers, lambda name, bs: _java(bs, "sg-explicit", "share-one", "explicit", 4, len(values)))
    for name, lines in out.items():
        d = _deliveries(lines)
        assert {v: d[v] for v in normal} == {v: [1] for v in normal}, name      # every record, once
        assert d["reject-1"] == [1], name                    # rejected: never redelivered
        assert d["release-1"] == [1, 2], name                # released: redelivered
        assert d["poison-1"] == list(range(1, LIMIT + 1)), name   # archived at the delivery limit
        assert set(d) == set(values), name


def test_implicit_acknowledgement_on_three_partitions(brokers):
    values = [f"m{i}" for i in range(30)]
    for bs in brokers.values():
        _create_and_produce(bs, "share-three", 3, values)
    out = _both(brokers, lambda name, bs: _java(bs, "sg-implicit", "share-three", "implicit", 4, len(values)))
    for name, lines in out.items():
        d = _deliveries(lines)
        assert dict(d) == {v: [1] for v in values}, name
        partitions = {line.split()[1] for line in lines if line.startswith("D ")}
        assert partitions == {"0", "1", "2"}, name


def _hold(brokers: dict[str, str], group: str, topic: str
          ) -> tuple[dict[str, subprocess.Popen], dict[str, list[str]]]:
    """One share consumer per broker that acquires records and then neither acknowledges
    nor polls again: (the processes, the values each holds)."""
    holders = {name: _java(bs, group, topic, "hold", 1, 0) for name, bs in brokers.items()}
    held: dict[str, list[str]] = {}
    try:
        for name, proc in holders.items():
            lines = []
            deadline = time.monotonic() + 60
            assert proc.stdout is not None, "started with stdout=PIPE"
            while time.monotonic() < deadline:
                line = proc.stdout.readline()
                if not line:
                    break
                lines.append(line.strip())
                if line.startswith("HELD"):
                    break
            assert lines and lines[-1].startswith("HELD"), f"{name}: {lines}"
            held[name] = [line.split()[3] for line in lines if line.startswith("D ")]
    except BaseException:
        _kill(holders)
        raise
    return holders, held


def _kill(procs: dict[str, subprocess.Popen]) -> None:
    for proc in procs.values():
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)        # kill -9: nothing acknowledged or released
        proc.wait()


def _assert_redelivered(out: dict[str, list[str]], held: dict[str, list[str]], values: list[str]) -> None:
    for name, lines in out.items():
        assert held[name], name
        d = _deliveries(lines)
        assert set(d) == set(values), name                   # every record delivered in the end
        for v in values:
            # the held ones again, counted (the holder's client may have fetched them once
            # more in the background before they reached the others)
            assert len(d[v]) == 1 and (d[v][0] >= 2 if v in held[name] else True), (name, v, d[v])


def test_records_whose_lock_runs_out_are_redelivered(brokers):
    values = [f"l{i}" for i in range(10)]
    for bs in brokers.values():
        _create_and_produce(bs, "share-lock", 1, values)
    holders, held = _hold(brokers, "sg-lock", "share-lock")
    try:      # the holder stays connected: only its locks running out free its records
        started = time.monotonic()
        out = _both(brokers, lambda name, bs: _java(bs, "sg-lock", "share-lock", "implicit", 3, len(values)))
        assert time.monotonic() - started >= LOCK_MS / 1000
    finally:
        _kill(holders)
    _assert_redelivered(out, held, values)


def test_killed_consumer_records_are_redelivered(brokers):
    values = [f"k{i}" for i in range(10)]
    for bs in brokers.values():
        _create_and_produce(bs, "share-kill", 1, values)
    holders, held = _hold(brokers, "sg-kill", "share-kill")
    _kill(holders)
    out = _both(brokers, lambda name, bs: _java(bs, "sg-kill", "share-kill", "implicit", 3, len(values)))
    _assert_redelivered(out, held, values)
