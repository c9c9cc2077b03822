"""Reading a topic back the way each client does it (read_committed or read_uncommitted),
and running the Java and Python transactional clients these tests drive."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import IO, cast

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

from tests.support import process
from tests.support.go_build import build_go
from tests.support.kafka_dist import (classpath, compile_java, java_executable, popen_tool,
                                      run_tool)

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
READ_TIMEOUT = 60.0


def read_confluent(bootstrap: str, topic: str, isolation: str = "read_committed"
                   ) -> list[tuple[int, str]]:
    """(partition, value) of every record confluent-kafka returns, reading every partition
    from its start up to its end (the last stable offset under read_committed)."""
    return [(p, v.decode()) for p, _k, v in read_records(bootstrap, topic, isolation)]


# errors of a partition whose leader the reader's metadata names before that broker hosts
# it (just created, or just moved): librdkafka hands them to the application and resets the
# position to auto.offset.reset, so the read starts again rather than miss records
TRANSIENT = (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError.NOT_LEADER_FOR_PARTITION,
             KafkaError.LEADER_NOT_AVAILABLE)


def read_records(bootstrap: str, topic: str, isolation: str = "read_committed"
                 ) -> list[tuple[int, bytes | None, bytes]]:
    """(partition, key, value) of every record as read_confluent reads them, in offset
    order within each partition; read again from the start after a TRANSIENT error.

    librdkafka reports a partition's end only when a fetch at the end offset comes back
    with the end unchanged; with its default 500 ms fetch wait, a topic a transactional
    writer commits to more often than that never ends (the reader chases the writer), so
    fetches here wait briefly."""
    deadline = time.monotonic() + READ_TIMEOUT
    while True:
        got = _read_once(bootstrap, topic, isolation, deadline)
        if got is not None:
            return got


def _read_once(bootstrap: str, topic: str, isolation: str, deadline: float
               ) -> list[tuple[int, bytes | None, bytes]] | None:
    """One read of every partition to its end; None after a TRANSIENT error."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{topic}",
                  "enable.auto.commit": False, "enable.partition.eof": True,
                  "isolation.level": isolation, "fetch.wait.max.ms": 10})
    try:
        parts = sorted(c.list_topics(topic, timeout=30).topics[topic].partitions)
        c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in parts])
        at_end: set[int] = set()
        got: list[tuple[int, bytes | None, bytes]] = []
        while len(at_end) < len(parts):
            assert time.monotonic() < deadline, f"{topic}: no end of partitions {set(parts) - at_end}"
            m = c.poll(0.5)
            if m is None:
                continue
            if err := m.error():
                if err.code() in TRANSIENT:
                    time.sleep(0.2)
                    return None
                assert err.code() == KafkaError._PARTITION_EOF, err
                at_end.add(cast(int, m.partition()))   # an end-of-partition event names its partition
                continue
            got.append((cast(int, m.partition()), m.key(), cast(bytes, m.value())))   # the tests write no null values
        return got
    finally:
        c.close()


def read_kafka_python(bootstrap: str, topic: str, isolation: str = "read_committed"
                      ) -> list[tuple[int, str]]:
    """The same with kafka-python: every partition read until its position reaches the end
    offset the consumer reports for its isolation level."""
    from kafka import KafkaConsumer
    from kafka import TopicPartition as KTopicPartition
    c = KafkaConsumer(bootstrap_servers=bootstrap, isolation_level=isolation,
                      enable_auto_commit=False, auto_offset_reset="earliest")
    try:
        tps = [KTopicPartition(topic, p) for p in sorted(c.partitions_for_topic(topic))]
        c.assign(tps)
        c.seek_to_beginning(*tps)
        ends = c.end_offsets(tps)
        got: list[tuple[int, str]] = []
        deadline = time.monotonic() + READ_TIMEOUT
        while any(c.position(tp) < ends[tp] for tp in tps):
            assert time.monotonic() < deadline, f"{topic}: positions short of {ends}"
            for tp, records in c.poll(timeout_ms=500).items():
                got += [(tp.partition, r.value.decode()) for r in records]
        return got
    finally:
        c.close()


def read_java(version: str, bootstrap: str, topic: str, count: int, prefix: str,
              isolation: str = "read_committed") -> list[str]:
    """The values Kafka `version`'s console consumer prints, reading `count` records."""
    out = run_tool(version, "kafka-console-consumer",
                   ["--bootstrap-server", bootstrap, "--topic", topic, "--from-beginning",
                    "--isolation-level", isolation, "--max-messages", str(count),
                    "--timeout-ms", "30000"], timeout=120)
    return [line for line in out.stdout.splitlines() if line.startswith(prefix)]


def run_java_program(version: str, name: str, args: list[str], timeout: float = 180
                     ) -> list[str]:
    """Compile (once) and run `<name>.java` of this directory against Kafka `version`'s
    client jars; returns its stdout lines. Fails on a non-zero exit."""
    classes = compile_java(HERE / f"{name}.java", version)
    cmd = [java_executable(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
           "-cp", f"{classes}:{classpath(version)}", name, *args]
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:  # say how far it got, and what the client logged
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout or ""
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else e.stderr or ""
        raise AssertionError(f"{name} {args} still running after {timeout} s:\n{out}\n{err[-6000:]}") from None
    assert result.returncode == 0, f"{name} {args} exited {result.returncode}:\n" \
                                   f"{result.stdout}\n{result.stderr[-4000:]}"
    return result.stdout.splitlines()


def start_python_client(stderr: IO, *args: str) -> subprocess.Popen:
    """`txn_client.py` of this directory as its own process (so it can be killed -9)."""
    return subprocess.Popen([sys.executable, "-m", "tests.integration.transactions.txn_client",
                             *args], cwd=REPO, stdout=subprocess.PIPE, stderr=stderr,
                            stdin=subprocess.DEVNULL, text=True, start_new_session=True)


def start_stress_worker(client: str, out: Path, *args: str) -> subprocess.Popen:
    """One consume-transform-produce stress worker as its own process, its output appended
    to `out`: `java4` (TxnStress.java on the Kafka 4 client jars), `franz` (franz/main.go,
    built once into the cache) or `confluent` (txn_client.py's `stress` mode). `args`:
    BOOTSTRAP SOURCE PARTITION SINK GROUP TXN_ID SEED ABANDON_AT."""
    if client == "java4":
        classes = compile_java(HERE / "TxnStress.java", "4")
        cmd = [java_executable(), "-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
               "-cp", f"{classes}:{classpath('4')}", "TxnStress", *args]
    elif client == "franz":
        cmd = [str(build_go(HERE / "franz")), *args]
    elif client == "confluent":
        cmd = [sys.executable, "-m", "tests.integration.transactions.txn_client", "stress", *args]
    else:
        raise ValueError(f"no stress worker for client {client!r}")
    with open(out, "a") as log:
        return subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, text=True, start_new_session=True)


def start_java_copier(stderr: IO, version: str, bootstrap: str, source: str, sink: str,
                      txn_id: str) -> subprocess.Popen:
    """Kafka's TransactionalMessageCopier on partition 0 of `source`: consume, produce to
    `sink` and sendOffsetsToTransaction (group metadata API), 50 records a transaction,
    randomly aborting some and redoing them."""
    return popen_tool(version, "org.apache.kafka.tools.TransactionalMessageCopier", [
        "--broker-list", bootstrap, "--input-topic", source, "--input-partition", "0",
        "--output-topic", sink, "--consumer-group", f"{txn_id}-group",
        "--transactional-id", txn_id, "--transaction-size", "50",
        "--transaction-timeout", "10000", "--enable-random-aborts", "--use-group-metadata"],
        stdin=subprocess.DEVNULL, stderr=stderr)


def finish(proc: subprocess.Popen, log: Path, timeout: float = 120) -> str:
    """Wait for a client to exit by itself; returns its stdout. Its stderr (in `log`) is
    in the assertion when it fails or hangs."""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill(proc)
        raise AssertionError(f"client still running after {timeout} s:\n{process.tail(log)}")
    assert proc.returncode == 0, f"client exited {proc.returncode}:\n{out[-2000:]}\n" \
                                 f"{process.tail(log)}"
    return out
