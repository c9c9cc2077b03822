"""No acknowledged record is lost (issue 14), modelled on Kafka's ducktape
``replication_test.py::test_replication_with_broker_failure`` (hard bounce): three kafpy brokers,
a topic of 3 partitions with replication factor 3 and min.insync.replicas=2, idempotent acks=all
load from three clients at once (Apache's VerifiableProducer, librdkafka, kafka-python) while the
leader of partition 0, one of its followers and the controller are killed with SIGKILL (or, in
the clean variant, stopped with a controlled shutdown) one at a time, round after round, each
restarted once ZooKeeper has dropped it and the ISR waited full again. Afterwards every partition is read back: each offset once, in order, every acknowledged
record at the offset its producer was told, and no value twice (the idempotent producers'
retries across failovers wrote no duplicates)."""
from __future__ import annotations

import json
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from confluent_kafka import Producer as ConfluentProducer
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic

from tests.integration.cluster.harness import metadata, start_cluster, wait_until
from tests.support import process
from tests.support.kafka_dist import popen_tool

pytestmark = pytest.mark.timeout(420)

TOPIC = "durable"
PARTITIONS = 3
ROUNDS = 3
RATE = 25  # records per second per producer: a few thousand records in all
MIN_ACKED = 500  # per producer
# Each hard bounce waits for ZooKeeper to expire the killed broker's session: half the cluster
# tests' 6 s (what is tested is that nothing is lost, not how long the cluster takes to notice).
SESSION_TIMEOUT_MS = 3000
FAILOVER_S = SESSION_TIMEOUT_MS / 1000 + 15

Acked = dict  # (partition, offset) -> value


def partitions(md) -> list:
    return [p for t in md.topics if t.name == TOPIC for p in t.partitions]


def isr_full(broker) -> bool:
    ps = partitions(metadata(broker))
    return len(ps) == PARTITIONS and all(sorted(p.isr_nodes) == [0, 1, 2] and p.leader_id >= 0 for p in ps)


def create_topic(cluster) -> None:
    admin = KafkaAdminClient(bootstrap_servers=[b.bootstrap for b in cluster], request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3, topic_configs={"min.insync.replicas": "2"})])
    finally:
        admin.close()
    for b in cluster:
        wait_until(lambda b=b: isr_full(b), 30, f"broker {b.bootstrap} sees {TOPIC} with full ISRs")


class JavaProducer:
    """Apache's VerifiableProducer (idempotent, acks=all); its stdout says which sends were
    acknowledged, and at which partition and offset."""

    def __init__(self, bootstrap: str, work_dir: Path):
        config = work_dir / "verifiable-producer.properties"
        config.write_text("enable.idempotence=true\nacks=all\nretries=2147483647\nlinger.ms=5\n"
                          "request.timeout.ms=10000\ndelivery.timeout.ms=120000\n"
                          "max.in.flight.requests.per.connection=5\n")
        self.acked: Acked = {}
        self.failed = 0
        self.proc = popen_tool("4", "kafka-verifiable-producer", [
            "--topic", TOPIC, "--bootstrap-server", bootstrap, "--throughput", str(RATE),
            "--value-prefix", "7", "--command-config", str(config)], stdin=subprocess.DEVNULL,
            stderr=open(work_dir / "verifiable-producer.err", "w"))
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None, "started with stdout=PIPE"
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("name") == "producer_send_success":
                self.acked[(event["partition"], event["offset"])] = event["value"].encode()
            elif event.get("name") == "producer_send_error":
                self.failed += 1

    def stop(self) -> None:
        """SIGTERM: the tool closes its producer, which waits for what is in flight."""
        process.terminate(self.proc, timeout=60)
        self._reader.join(10)


class ThreadProducer:
    """A Python client producing ``<prefix>.<n>`` values at RATE on a thread until stopped."""

    def __init__(self, prefix: str, send):
        self.prefix = prefix
        self.acked: Acked = {}
        self.failed: list = []
        self._send = send
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        n = 0
        while not self._stop.is_set():
            self._send(f"{self.prefix}.{n}".encode())
            n += 1
            time.sleep(1 / RATE)
        self.close()

    def close(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(150)
        assert not self.thread.is_alive(), f"{self.prefix} producer did not finish"


class ConfluentLoad(ThreadProducer):
    def __init__(self, bootstrap: str):
        self.producer = ConfluentProducer({
            "bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
            "linger.ms": 5, "message.timeout.ms": 120000, "request.timeout.ms": 10000})
        super().__init__("c", self._produce)

    def _on_delivery(self, err, msg) -> None:
        if err is None:
            self.acked[(msg.partition(), msg.offset())] = msg.value()
        else:
            self.failed.append(err)

    def _produce(self, value: bytes) -> None:
        self.producer.produce(TOPIC, value=value, on_delivery=self._on_delivery)
        self.producer.poll(0)

    def close(self) -> None:
        self.unflushed = self.producer.flush(130)


class KafkaPythonLoad(ThreadProducer):
    def __init__(self, bootstrap: str):
        self.producer = KafkaProducer(
            bootstrap_servers=bootstrap.split(","), enable_idempotence=True, acks="all", linger_ms=5,
            request_timeout_ms=10000, delivery_timeout_ms=120000, max_in_flight_requests_per_connection=5)
        super().__init__("p", self._produce)

    def _produce(self, value: bytes) -> None:
        fut = self.producer.send(TOPIC, value=value)
        fut.add_callback(lambda md, value=value: self.acked.__setitem__((md.partition, md.offset), value))
        fut.add_errback(self.failed.append)

    def close(self) -> None:
        self.producer.flush(130)
        self.producer.close(30)


def read_back(bootstrap: list[str], ends: dict[int, int]) -> dict[int, list[tuple[int, bytes]]]:
    """Every record up to ``ends`` (the high watermarks), as a consumer reads them."""
    c = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False,
                      request_timeout_ms=20000)
    try:
        c.assign([TopicPartition(TOPIC, p) for p in range(PARTITIONS)])
        out: dict[int, list[tuple[int, bytes]]] = {p: [] for p in range(PARTITIONS)}
        deadline = time.monotonic() + 60
        while any((out[p][-1][0] + 1 if out[p] else 0) < ends[p] for p in out) and time.monotonic() < deadline:
            for tp, recs in c.poll(timeout_ms=1000).items():
                out[tp.partition].extend((r.offset, r.value) for r in recs)
        return out
    finally:
        c.close()


def end_offsets(bootstrap: list[str]) -> dict[int, int]:
    c = KafkaConsumer(bootstrap_servers=bootstrap, request_timeout_ms=20000)
    try:
        return {tp.partition: off for tp, off in
                c.end_offsets([TopicPartition(TOPIC, p) for p in range(PARTITIONS)]).items()}
    finally:
        c.close()


def victim_id(cluster, role: str) -> int:
    md = metadata(next(b for b in cluster if b.running))
    (p0,) = [p for p in partitions(md) if p.partition_index == 0]
    if role == "leader":
        return p0.leader_id
    if role == "controller":
        return md.controller_id
    followers = [r for r in p0.replica_nodes if r != p0.leader_id]
    # Prefer a follower that is not also the controller, so each role is its own failure.
    return sorted(followers, key=lambda r: r == md.controller_id)[0]


def wait_for_acks(loads: list, minimums: list[int], what: str) -> None:
    try:
        wait_until(lambda: all(len(x.acked) >= n for x, n in zip(loads, minimums)), 60, what)
    except AssertionError as e:
        raise AssertionError(f"{e}: acknowledged {[len(x.acked) for x in loads]}, "
                             f"failed {[x.failed if isinstance(x.failed, int) else len(x.failed) for x in loads]}")


def bounce(cluster, broker_id: int, role: str, hard: bool) -> None:
    """SIGKILL (hard) or SIGTERM (a controlled shutdown), wait until the others have dropped it
    and elected new leaders for what it led, restart it and wait until every ISR is full again."""
    victim = cluster[broker_id]
    others = [b for b in cluster if b is not victim]
    if hard:
        victim.kill()
    else:
        victim.stop()
    for b in others:
        wait_until(lambda b=b: (lambda md: broker_id not in {x.node_id for x in md.brokers}
                                and md.controller_id not in (-1, broker_id)
                                and all(p.leader_id not in (-1, broker_id) for p in partitions(md)))(metadata(b)),
                   FAILOVER_S, f"broker {b.bootstrap} sees {role} {broker_id} gone and new leaders")
    victim.start()
    for b in cluster:
        wait_until(lambda b=b: isr_full(b), 60, f"broker {b.bootstrap} sees every ISR full after restarting {broker_id}")


@pytest.mark.parametrize("hard", [True, False], ids=["hard-bounce", "clean-bounce"])
def test_no_acknowledged_record_lost_across_bounces(zookeeper, broker_factory, tmp_path, hard):
    cluster = start_cluster(zookeeper, broker_factory, **{"zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS})
    create_topic(cluster)
    bootstrap = [b.bootstrap for b in cluster]
    started = time.monotonic()
    java = JavaProducer(",".join(bootstrap), tmp_path)
    loads = [java]
    try:
        loads += [ConfluentLoad(",".join(bootstrap)), KafkaPythonLoad(",".join(bootstrap))]
        wait_for_acks(loads, [50] * len(loads), "every producer acknowledged")
        bounced = []
        for _ in range(ROUNDS):
            for role in ("leader", "follower", "controller"):
                before = [len(x.acked) for x in loads]
                broker_id = victim_id(cluster, role)
                bounce(cluster, broker_id, role, hard)
                bounced.append((role, broker_id))
                wait_for_acks(loads, [n + 1 for n in before],
                              f"every producer acknowledged again after bouncing {role} {broker_id}")
        # Clean bounces are quick: keep the load going to a few thousand records in all.
        wait_for_acks(loads, [MIN_ACKED] * len(loads), f"{MIN_ACKED} records acknowledged to every producer")
    finally:
        for load in loads:
            load.stop()
    elapsed = time.monotonic() - started

    ends = end_offsets(bootstrap)
    got = read_back(bootstrap, ends)
    seen: Counter = Counter()
    for part in range(PARTITIONS):
        offsets = [o for o, _ in got[part]]
        assert offsets == list(range(ends[part])), f"partition {part}: offsets not read once each, in order"
        seen.update(v for _, v in got[part])
    duplicates = [v for v, n in seen.items() if n > 1]
    assert not duplicates, f"idempotent producers wrote {len(duplicates)} values twice: {duplicates[:10]}"
    by_offset = {(part, o): v for part in got for o, v in got[part]}
    for load in loads:
        lost = {k: v for k, v in load.acked.items() if by_offset.get(k) != v}
        assert not lost, f"{len(lost)} acknowledged records lost or moved: {sorted(lost.items())[:10]}"
    print(f"bounced {bounced}; acked {[len(x.acked) for x in loads]}; ends {ends}; {elapsed:.0f}s")
