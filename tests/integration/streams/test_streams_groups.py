"""Kafka Streams 4.4 with `group.protocol=streams` (KIP-1071) against kafpy, side by side
with Apache Kafka 4.4 in the same test: Kafka's WordCountDemo (4.0.0's examples jar on
the 4.4.0 streams jar, whose StreamsConfig reads the group protocol from the properties
file) counts the words of a generated input to the exact counts on both brokers. On
kafpy the application, with exactly_once_v2, is then killed with SIGKILL mid-stream and
restarted: the counts it writes are still exactly 1, 2, ..., n for every word (no
update lost or repeated), and `kafka-streams-groups.sh` describes the group."""
from __future__ import annotations

import io
import random
import re
import struct
import subprocess
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

from kafka import KafkaProducer

from kafpy.coordinator.partitioner import partition_for
from kafpy.scripts import kafka_streams_groups
from tests.integration.coordinator.helpers import create_topic, produce
from tests.integration.transactions.helpers import read_records
from tests.support import process
from tests.support.kafka_dist import (java_executable, kafka_home, kafka_streams_4_libs,
                                      kafka_streams_libs, run_tool)

SOURCE, SINK = "streams-plaintext-input", "streams-wordcount-output"  # fixed in WordCountDemo
WORDS = [f"w{i:02d}" for i in range(12)]
STREAMS_BROKER = {
    # a killed instance's tasks move once its session expires
    "group.streams.session.timeout.ms": 6000,
    "group.streams.min.session.timeout.ms": 6000,
    "group.streams.heartbeat.interval.ms": 500,
    "group.streams.min.heartbeat.interval.ms": 500,
    "transaction.state.log.num.partitions": 5,
}


def _lines(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(4)) for _ in range(n)]


def _counts(bootstrap: str) -> dict[str, list[int]]:
    """Each word's committed count updates, in output order."""
    seen: dict[str, list[int]] = defaultdict(list)
    for _p, key, value in read_records(bootstrap, SINK):
        seen[key.decode()].append(struct.unpack(">q", value)[0])
    return seen


def _feed(bootstrap: str, lines: list[str]) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    try:
        for i in range(0, len(lines), 50):
            for line in lines[i:i + 50]:
                producer.send(SOURCE, line.encode())
            producer.flush()
            time.sleep(0.3)
    finally:
        producer.close()


class WordCount:
    """WordCountDemo in a child JVM with group.protocol=streams, restartable."""

    def __init__(self, bootstrap: str, work: Path, guarantee: str, replication_factor: int = 1
                 ) -> None:
        work.mkdir(parents=True, exist_ok=True)
        props = work / "wordcount.properties"
        props.write_text("".join(f"{k}={v}\n" for k, v in {
            "bootstrap.servers": bootstrap, "application.id": "wordcount-kip1071",
            "group.protocol": "streams", "processing.guarantee": guarantee,
            "state.dir": work / "state", "replication.factor": replication_factor,
            "commit.interval.ms": 200, "num.stream.threads": 1}.items()))
        log4j = kafka_home("4") / "libs"
        cp = [f"{kafka_streams_4_libs()}/*",
              str(next(kafka_streams_libs().glob("kafka-streams-examples-*.jar"))),
              *(str(p) for p in log4j.glob("log4j-*.jar"))]
        (work / "log4j2.properties").write_text(
            "rootLogger.level=INFO\nrootLogger.appenderRef.out.ref=OUT\n"
            "appender.out.type=Console\nappender.out.name=OUT\n"
            "appender.out.layout.type=PatternLayout\n"
            "appender.out.layout.pattern=%d %p %c{1} %m%n\n"
            "logger.kafka.name=org.apache.kafka\nlogger.kafka.level=WARN\n"
            "logger.membership.name=org.apache.kafka.clients.consumer.internals\n"
            "logger.membership.level=INFO\n")
        self.cmd = [java_executable(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    f"-Dlog4j2.configurationFile={work / 'log4j2.properties'}", "-cp", ":".join(cp),
                    "org.apache.kafka.streams.examples.wordcount.WordCountDemo", str(props)]
        self.out_path = work / "streams.out"
        self.out = open(self.out_path, "a")
        self.proc: subprocess.Popen | None = None

    def start(self) -> "WordCount":
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=self.out,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        process.kill(self.proc)

    def stop(self) -> None:
        if self.proc is not None:
            process.terminate(self.proc, timeout=20)
        self.out.close()

    def tail(self) -> str:
        return process.tail(self.out_path)


def _wait_for_counts(bootstrap: str, app: WordCount, want: Counter, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        got = _counts(bootstrap)
        if {w: v[-1] for w, v in got.items()} == dict(want):
            return got
        assert app.alive() and time.monotonic() < deadline, \
            f"{app.tail()}\nlast counts { {w: v[-1] for w, v in got.items()} } want {dict(want)}"
        time.sleep(0.5)


def _normalized(text: str, bootstrap: str) -> str:
    """A tool's output with what differs between two runs (ids, addresses) replaced."""
    text = text.replace(bootstrap, "HOST")
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "UUID", text)
    text = re.sub(r"\b[A-Za-z0-9_-]{22}\b", "MEMBER", text)
    text = re.sub(r"HOST \(\d+\)", "HOST (ID)", text)
    return text


def _ours(args: list[str]) -> str:
    """Our kafka-streams-groups (scripts/kafka_streams_groups.py), run in-process."""
    out = io.StringIO()
    assert kafka_streams_groups.run(args, out) == 0, out.getvalue()
    return out.getvalue()


def _word_count(bootstrap: str, work: Path, lines: list[str]) -> tuple[dict[str, int], list[str]]:
    """Run the word count over `lines` (at-least-once, no crash); its final counts and
    how `kafka-streams-groups.sh --describe` shows the group meanwhile (Apache's tool,
    then ours)."""
    create_topic(bootstrap, SOURCE, 2)
    create_topic(bootstrap, SINK, 2)
    produce(bootstrap, SOURCE, [line.encode() for line in lines], partitions=2)
    app = WordCount(bootstrap, work, "at_least_once").start()
    try:
        got = _wait_for_counts(bootstrap, app, Counter(w for ln in lines for w in ln.split()), 120)
        described = [_normalized(run_tool("4", "kafka-streams-groups", [
            "--bootstrap-server", bootstrap, "--describe", "--group", "wordcount-kip1071", opt],
            timeout=120).stdout, bootstrap) for opt in ("--members", "--state", "--offsets")]
        described += [_normalized(_ours(["--bootstrap-server", bootstrap, "--describe", "--group",
                                         "wordcount-kip1071", opt]), bootstrap)
                      for opt in ("--members", "--state", "--offsets")]
    finally:
        app.stop()
    return {w: v[-1] for w, v in got.items()}, described


def test_word_count_with_the_streams_protocol_as_on_apache_kafka(broker_factory, reference_kafka,
                                                                  tmp_path):
    lines = _lines(400, 7)
    want = dict(Counter(w for ln in lines for w in ln.split()))
    ours = broker_factory(STREAMS_BROKER)
    results: dict[str, tuple[dict[str, int], list[str]]] = {}
    errors: list[BaseException] = []

    def run(name: str, bootstrap: str) -> None:
        try:
            results[name] = _word_count(bootstrap, tmp_path / name, lines)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=run, args=(n, b)) for n, b in
               (("kafpy", ours.bootstrap), ("kafka", reference_kafka.bootstrap))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors
    assert {n: r[0] for n, r in results.items()} == {"kafpy": want, "kafka": want}
    # members (one, all four tasks active), state (Stable, sticky assignor), offsets (no lag)
    # Apache's tool and ours, each against both brokers, print the same
    assert results["kafpy"][1] == results["kafka"][1]
    assert results["kafpy"][1][:3] == results["kafpy"][1][3:]
    assert "Stable" in results["kafpy"][1][1], results["kafpy"][1]
    # the group as Apache's tool shows it, on both brokers
    for bootstrap in (ours.bootstrap, reference_kafka.bootstrap):
        listed = run_tool("4", "kafka-streams-groups", ["--bootstrap-server", bootstrap, "--list"],
                          timeout=120).stdout
        assert "wordcount-kip1071" in listed, listed


def test_word_count_exactly_once_survives_a_kill(broker_factory, tmp_path):
    b = broker_factory(STREAMS_BROKER)
    bootstrap = b.bootstrap
    create_topic(bootstrap, SOURCE, 2)
    create_topic(bootstrap, SINK, 2)
    lines = _lines(1800, 16)
    want = Counter(w for line in lines for w in line.split())
    produce(bootstrap, SOURCE, [line.encode() for line in lines[:300]], partitions=2)
    app = WordCount(bootstrap, tmp_path / "eos", "exactly_once_v2").start()
    feeder = threading.Thread(target=_feed, args=(bootstrap, lines[300:]), daemon=True)

    def updates() -> int:
        return sum(len(v) for v in _counts(bootstrap).values())
    try:
        deadline = time.monotonic() + 120
        while updates() == 0:
            assert app.alive() and time.monotonic() < deadline, app.tail()
            time.sleep(0.3)
        feeder.start()  # the rest arrives while the application runs: it dies mid-stream
        while updates() < 1500:
            assert app.alive() and time.monotonic() < deadline, app.tail()
            time.sleep(0.2)
        assert feeder.is_alive(), "the input was complete before the crash"
        app.kill()
        app.start()
        feeder.join(120)
        got = _wait_for_counts(bootstrap, app, want, 150)
        described = run_tool("4", "kafka-streams-groups", [
            "--bootstrap-server", bootstrap, "--describe", "--group", "wordcount-kip1071",
            "--members"], timeout=120).stdout
        assert "wordcount-kip1071" in described, described
    finally:
        app.stop()
    assert {w: got[w] for w in want} == {w: list(range(1, n + 1)) for w, n in want.items()}
    # the group left empty by the closed application is deleted with its internal topics
    deleted = _ours(["--bootstrap-server", bootstrap, "--delete", "--group", "wordcount-kip1071"])
    assert "('wordcount-kip1071') was successful" in deleted, deleted
    assert "internal topics of the streams groups ('wordcount-kip1071') was successful" in deleted
    listed = run_tool("4", "kafka-streams-groups", ["--bootstrap-server", bootstrap, "--list"],
                      timeout=120).stdout
    assert "wordcount-kip1071" not in listed, listed
    # Apache's kafka-dump-log reads the Streams* records kafpy wrote
    b.stop()
    part = Path(b.log_dir) / f"__consumer_offsets-{partition_for('wordcount-kip1071', 50)}"
    out = run_tool("4", "kafka-dump-log", ["--offsets-decoder", "--files", ",".join(
        sorted(str(f) for f in part.glob("*.log")))], timeout=120).stdout
    for kind in (17, 19, 20, 21, 22, 23):
        assert f'"type":"{kind}"' in out, (kind, out[-3000:])
    assert "Error" not in out and "Unknown" not in out, out[-3000:]
