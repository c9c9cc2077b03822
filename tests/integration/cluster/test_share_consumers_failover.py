"""Share groups on the three-broker ZooKeeper cluster with the share coordinator's broker
killed mid-run: Java 4.4 KafkaShareConsumers read a topic whose partition is led by the
broker that is also the share coordinator of its state (`__share_group_state` has one
partition here). It is killed (SIGKILL) while they read; the partition's next leader reads
the state back from the new share coordinator. Every record is acknowledged in the end (none
lost), and no record whose acknowledgement the broker confirmed is delivered again."""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode as E
from tests.integration.broker.raw import RawConnection
from tests.integration.cluster.harness import start_cluster, wait_until
from tests.support.kafka_dist import classpath, compile_java, java_executable

HERE = Path(__file__).parent
TOPIC = "share-failover-consumers"
GROUP = "sg-failover"
RECORDS = 60
LOCK_MS = 3000
PAUSE_S = 0.15
SETTINGS = {"group.share.record.lock.duration.ms": LOCK_MS, "group.share.min.record.lock.duration.ms": 1000,
            "share.coordinator.state.topic.num.partitions": 1, "offsets.topic.num.partitions": 3}


def _state_coordinator(broker) -> int:
    """The leader of `__share_group_state-0` (created by this first FindCoordinator)."""
    any_key = "probe:AAAAAAAAAAAAAAAAAAAAAA:0"
    with RawConnection(broker.host, broker.port) as c:
        def found():
            co = c.request(10, 6, M.FindCoordinatorRequest(key_type=2, coordinator_keys=[any_key])).coordinators[0]
            return co.error_code == E.NONE and co
        return wait_until(found, 60, "__share_group_state has a leader").node_id


def _produce_slowly(bootstrap: list[str], values: list[str], stop: threading.Event) -> None:
    """One record every PAUSE_S, each acknowledged by the in-sync replicas before the next,
    so records arrive before, during and after the kill."""
    p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=20, request_timeout_ms=20000,
                      metadata_max_age_ms=1000)
    try:
        for v in values:
            if stop.is_set():
                return
            p.send(TOPIC, v.encode(), partition=0).get(timeout=60)
            time.sleep(PAUSE_S)
    finally:
        p.close(timeout=10)


@pytest.mark.timeout(240)
def test_no_acknowledged_record_redelivered_when_the_share_coordinator_dies(zookeeper, broker_factory):
    brokers = start_cluster(zookeeper, broker_factory, **SETTINGS)
    victim = _state_coordinator(brokers[0])
    others = [b for i, b in enumerate(brokers) if i != victim]
    admin = KafkaAdminClient(bootstrap_servers=[b.bootstrap for b in others], request_timeout_ms=30000)
    try:   # the topic's partition led by the share coordinator's broker
        admin.create_topics([NewTopic(TOPIC, -1, -1, replica_assignments={
            0: [victim] + [i for i in range(3) if i != victim]})])
    finally:
        admin.close()
    values = [f"r{i}" for i in range(RECORDS)]
    stop = threading.Event()
    produced: list[BaseException] = []

    def produce() -> None:
        try:
            _produce_slowly([b.bootstrap for b in brokers], values, stop)
        except BaseException as e:  # noqa: BLE001 - reported by the test below
            produced.append(e)
    producer = threading.Thread(target=produce, daemon=True)
    producer.start()

    classes = compile_java(HERE / "ShareFailoverConsumers.java", "4")
    err = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(
        [java_executable(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
         "-cp", f"{classes}:{classpath('4')}", "ShareFailoverConsumers", ",".join(b.bootstrap for b in brokers),
         GROUP, TOPIC, "2", str(RECORDS), str(LOCK_MS + 2000)],
        stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(line.strip() for line in proc.stdout), daemon=True)
    reader.start()
    try:
        wait_until(lambda: sum(1 for line in list(lines) if line.startswith("A ")) >= 10, 90,
                   "the share consumers acknowledged records before the kill")
        brokers[victim].kill()
        producer.join(timeout=120)
        assert not producer.is_alive() and not produced, produced
        proc.wait(timeout=180)
        reader.join(timeout=10)
    finally:
        stop.set()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    err.seek(0)
    assert proc.returncode == 0 and lines and lines[-1].startswith("DONE"), \
        f"exit {proc.returncode}:\n" + "\n".join(lines[-40:]) + "\n" + err.read()[-4000:]

    acked_at: dict[str, int] = {}
    redelivered_after_ack = []
    for n, line in enumerate(lines):
        kind, *fields = line.split()
        if kind == "A":
            acked_at.setdefault(fields[2], n)
        elif kind == "D" and fields[2] in acked_at:
            redelivered_after_ack.append(line)
    assert set(acked_at) == set(values), sorted(set(values) - set(acked_at))   # none lost
    assert redelivered_after_ack == [], redelivered_after_ack                  # none delivered again
