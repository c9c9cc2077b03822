"""Kafka Streams with processing.guarantee=exactly_once_v2: Kafka's WordCountDemo counts
the words of a generated input, is killed with SIGKILL mid-stream and restarted. Its output
read with read_committed gives, for each word, exactly the counts 1, 2, ..., n in order: no
update lost or repeated across the crash, and the last one is the exact count."""
from __future__ import annotations

import random
import struct
import subprocess
import threading
import time
from collections import Counter, defaultdict

from kafka import KafkaProducer

from tests.integration.coordinator.helpers import create_topic, produce
from tests.support import process
from tests.support.kafka_dist import java_executable, kafka_streams_libs

from .helpers import read_records

SOURCE, SINK = "streams-plaintext-input", "streams-wordcount-output"  # fixed in WordCountDemo
WORDS = [f"w{i:02d}" for i in range(16)]
LINES = 3000


def _counts(bootstrap: str) -> dict[str, list[int]]:
    """Each word's committed count updates, in output order."""
    seen: dict[str, list[int]] = defaultdict(list)
    for _p, key, value in read_records(bootstrap, SINK):
        assert key is not None
        seen[key.decode()].append(struct.unpack(">q", value)[0])
    return seen


def _feed(bootstrap: str, lines: list[str]) -> None:
    """Produce `lines` in chunks of 50 a fifth of a second apart."""
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    try:
        for i in range(0, len(lines), 50):
            for line in lines[i:i + 50]:
                producer.send(SOURCE, line.encode())
            producer.flush()
            time.sleep(0.2)
    finally:
        producer.close()


def test_word_count_exactly_once_across_a_crash(txn_broker, tmp_path):
    bootstrap = txn_broker.bootstrap
    create_topic(bootstrap, SOURCE, 2)
    create_topic(bootstrap, SINK, 2)
    rng = random.Random(16)
    lines = [" ".join(rng.choice(WORDS) for _ in range(5)) for _ in range(LINES)]
    want = Counter(w for line in lines for w in line.split())
    produce(bootstrap, SOURCE, [line.encode() for line in lines[:500]], partitions=2)

    props = tmp_path / "wordcount.properties"
    props.write_text("".join(f"{k}={v}\n" for k, v in {
        "bootstrap.servers": bootstrap, "application.id": "wordcount-eos",
        "processing.guarantee": "exactly_once_v2", "state.dir": tmp_path / "state",
        "replication.factor": 1, "commit.interval.ms": 200, "session.timeout.ms": 6000,
        "num.stream.threads": 1}.items()))
    # C1 alone, as the suite's other JVMs; java.io.tmpdir: RocksDB unpacks its 15 MB native
    # library there and deletes it only at a clean exit, and the test kills this JVM
    cmd = [java_executable(), "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
           f"-Djava.io.tmpdir={tmp_path}", "-cp",
           f"{kafka_streams_libs()}/*",
           "org.apache.kafka.streams.examples.wordcount.WordCountDemo", str(props)]
    log = open(tmp_path / "streams.out", "w")

    def start() -> subprocess.Popen:
        return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    def updates() -> int:
        return sum(len(v) for v in _counts(bootstrap).values())

    def wait_for_updates(n: int) -> None:
        deadline = time.monotonic() + 120
        while updates() < n:
            assert app.poll() is None and time.monotonic() < deadline, \
                process.tail(tmp_path / "streams.out")
            time.sleep(0.3)

    app = start()
    feeder = threading.Thread(target=_feed, args=(bootstrap, lines[500:]), daemon=True)
    try:
        wait_for_updates(1)
        feeder.start()  # the rest arrives while the application runs: it dies mid-stream
        wait_for_updates(3500)
        assert feeder.is_alive(), "the input was complete before the crash"
        process.kill(app)
        app = start()
        feeder.join(120)
        deadline = time.monotonic() + 180
        while True:
            got = _counts(bootstrap)
            if {w: v[-1] for w, v in got.items()} == dict(want):
                break
            assert app.poll() is None and time.monotonic() < deadline, \
                f"{process.tail(tmp_path / 'streams.out')}\nlast counts {got}"
            time.sleep(0.5)
    finally:
        process.terminate(app, timeout=20)
        log.close()
    assert {w: got[w] for w in want} == {w: list(range(1, n + 1)) for w, n in want.items()}
