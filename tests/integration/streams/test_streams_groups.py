"""Kafka Streams 4.4 with `group.protocol=streams` (KIP-1071) against kafpy, side by side
with Apache Kafka 4.4 in the same test: Kafka's WordCountDemo (4.0.0's examples jar on
the 4.4.0 streams jar, whose StreamsConfig reads the group protocol from the properties
file), with exactly_once_v2, counts the words of an input fed while it runs, is killed
with SIGKILL mid-stream and restarted. On both brokers the counts it writes are exactly
1, 2, ..., n for every word (no update lost or repeated across the crash);
`kafka-streams-groups.sh` (Apache's and ours) describes the group alike on both, and
resets and deletes its offsets alike on both (`--reset-offsets`, `--delete-offsets`), and
deletes it; Apache's `kafka-dump-log` decodes the Streams* records kafpy wrote."""
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
from typing import Iterator

import pytest
from kafka import KafkaProducer

from kafpy.coordinator.group.partitioner import partition_for
from kafpy.scripts import kafka_streams_groups
from kafpy.scripts.streams_groups_client import StreamsGroupsClient
from tests.integration.coordinator.helpers import create_topic, produce
from tests.integration.transactions.helpers import read_records
from tests.support import process
from tests.support.kafka_dist import (ReferenceKafka, java_command, java_executable, kafka_home,
                                      kafka_streams_4_libs, kafka_streams_libs, run_tool)

SOURCE, SINK = "streams-plaintext-input", "streams-wordcount-output"  # fixed in WordCountDemo
APP = "wordcount-kip1071"
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
        assert key is not None
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
            "bootstrap.servers": bootstrap, "application.id": APP,
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
        # java.io.tmpdir: RocksDB unpacks its 15 MB native library there and deletes it only
        # at a clean exit; the test kills this JVM, so it goes to the test's folder, not /tmp
        self.cmd = [java_executable(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    f"-Djava.io.tmpdir={work}",
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
        assert self.proc is not None, "not started"
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


def _describe(bootstrap: str) -> list[str]:
    """How Apache's kafka-streams-groups.sh, then ours, describe the group (--members,
    --state, --offsets), with ids and addresses normalized."""
    opts = ("--members", "--state", "--offsets")
    args = ["--bootstrap-server", bootstrap, "--describe", "--group", APP]
    out = [run_tool("4", "kafka-streams-groups", [*args, o], timeout=120).stdout for o in opts]
    out += [_ours([*args, o]) for o in opts]
    return [_normalized(o, bootstrap) for o in out]


def _word_count_with_a_kill(bootstrap: str, work: Path, lines: list[str]) -> tuple[dict, list[str]]:
    """WordCountDemo with exactly_once_v2 over `lines`: a fifth produced up front, the rest
    fed while it runs; killed (SIGKILL) once it has written 1500 count updates and
    restarted. Returns every word's count updates, and how the tools describe the group
    once the counts are complete."""
    create_topic(bootstrap, SOURCE, 2)
    create_topic(bootstrap, SINK, 2)
    head = len(lines) // 6
    produce(bootstrap, SOURCE, [line.encode() for line in lines[:head]], partitions=2)
    want = Counter(w for line in lines for w in line.split())
    app = WordCount(bootstrap, work, "exactly_once_v2").start()
    feeder = threading.Thread(target=_feed, args=(bootstrap, lines[head:]), daemon=True)

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
        described = _describe(bootstrap)
    finally:
        app.stop()
    return got, described


def _offsets_tools_alike(bootstrap: str) -> dict[str, str]:
    """--reset-offsets (dry runs, then executed) and --delete-offsets of the empty group by
    Apache's kafka-streams-groups.sh and ours against `bootstrap`: both print the same, and
    what they execute is what the group's committed offsets then show. Returns the outputs
    that do not depend on the broker's data, to be compared across brokers."""
    base = ["--bootstrap-server", bootstrap, "--group", APP]
    seen: dict[str, str] = {}
    for name, args in (
            ("earliest", ["--reset-offsets", "--all-input-topics", "--to-earliest", "--dry-run"]),
            ("latest", ["--reset-offsets", "--input-topic", SOURCE, "--to-latest", "--dry-run"]),
            ("shift", ["--reset-offsets", "--input-topic", f"{SOURCE}:1", "--shift-by", "-3",
                       "--dry-run"]),
            ("other", ["--reset-offsets", "--input-topic", "nope", "--to-earliest",
                       "--dry-run"])):
        apache = run_tool("4", "kafka-streams-groups", [*base, *args], timeout=120, check=False)
        out = io.StringIO()
        code = kafka_streams_groups.run([*base, *args], out)
        assert (code, out.getvalue()) == (apache.returncode, apache.stdout), (args, apache)
        seen[name] = apache.stdout
    assert "0" in seen["earliest"] and SOURCE in seen["earliest"], seen
    assert "does not host this topic-partition" in seen["other"], seen
    # executed: Apache's tool sets partition 0, ours partition 1; the group then shows both
    execute = ["--reset-offsets", "--execute", "--to-offset", "7", "--input-topic"]
    seen["execute"] = run_tool("4", "kafka-streams-groups", [*base, *execute, f"{SOURCE}:0"],
                               timeout=120).stdout
    assert _ours([*base, *execute, f"{SOURCE}:1"]) == seen["execute"].replace(
        f"{SOURCE:<30} 0", f"{SOURCE:<30} 1")
    with StreamsGroupsClient(bootstrap) as client:
        committed = client.committed(APP)
        assert committed[(SOURCE, 0)] == committed[(SOURCE, 1)] == 7, committed
        # --delete-offsets of the input topic: Apache's tool, then ours (nothing left)
        delete = ["--delete-offsets", "--input-topic", SOURCE]
        seen["delete"] = run_tool("4", "kafka-streams-groups", [*base, *delete],
                                  timeout=120).stdout
        assert "Request succeeded for deleting offsets" in seen["delete"], seen["delete"]
        assert not [tp for tp in client.committed(APP) if tp[0] == SOURCE]
    seen["delete-again"] = _ours([*base, *delete])
    return seen


def _standby_override(bootstrap: str) -> list[tuple[int, str]]:
    """Apache's kafka-configs setting the group's `streams.num.standby.replicas` within and
    outside its bounds (0 to group.streams.max.standby.replicas): exit code and message."""
    out = []
    for value in ("1", "3", "-1"):
        done = run_tool("4", "kafka-configs", [
            "--bootstrap-server", bootstrap, "--entity-type", "groups", "--entity-name", APP,
            "--alter", "--add-config", f"streams.num.standby.replicas={value}"],
            timeout=120, check=False)
        said = [ln for ln in (done.stdout + done.stderr).splitlines()
                if "streams.num.standby.replicas" in ln and "args" not in ln
                or ln.startswith("Completed updating")]
        out.append((done.returncode, "\n".join(said).replace(bootstrap, "HOST")))
    return out


@pytest.fixture(scope="module")
def apache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReferenceKafka]:
    """Apache Kafka 4.4 with the same Streams group settings as kafpy gets (a killed
    instance's tasks move after 6 s, not Kafka's default 45)."""
    base = tmp_path_factory.mktemp("apache-streams")
    kafka = ReferenceKafka("4", log_dir=base / "data", work_dir=base, overrides=STREAMS_BROKER)
    try:
        kafka.start()
        yield kafka
    finally:
        kafka.stop()


def test_word_count_exactly_once_survives_a_kill_as_on_apache_kafka(broker_factory, apache,
                                                                    tmp_path):
    lines = _lines(1800, 16)
    want = Counter(w for line in lines for w in line.split())
    ours = broker_factory(STREAMS_BROKER)
    results: dict[str, tuple[dict, list[str]]] = {}
    errors: list[BaseException] = []

    def run(name: str, bootstrap: str) -> None:
        try:
            results[name] = _word_count_with_a_kill(bootstrap, tmp_path / name, lines)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=run, args=(n, b)) for n, b in
               (("kafpy", ours.bootstrap), ("kafka", apache.bootstrap))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(400)
    assert not errors, errors
    exact = {w: list(range(1, n + 1)) for w, n in want.items()}
    for name, (got, _) in results.items():
        assert {w: got[w] for w in want} == exact, name
    # members (one, every task active), state (Stable, sticky), offsets: Apache's tool and
    # ours print the same, against either broker
    described = {name: r[1] for name, r in results.items()}
    assert described["kafpy"] == described["kafka"], described
    assert described["kafpy"][:3] == described["kafpy"][3:], described["kafpy"]
    assert "Stable" in described["kafpy"][1], described["kafpy"]
    # listing with states and describing an unknown group: our tool prints what Apache's does
    for args in (["--list", "--state"], ["--describe", "--group", "nope"]):
        apache_out = subprocess.run(java_command("4", "kafka-streams-groups", [
            "--bootstrap-server", ours.bootstrap, *args]), capture_output=True, text=True,
            timeout=120).stdout
        out = io.StringIO()
        kafka_streams_groups.run(["--bootstrap-server", ours.bootstrap, *args], out)
        assert out.getvalue() == apache_out, (args, apache_out)
    # resetting and deleting the empty group's offsets: Apache's tool and ours alike, on
    # either broker
    offsets = {b: _offsets_tools_alike(b) for b in (ours.bootstrap, apache.bootstrap)}
    for name in ("earliest", "other", "execute", "delete", "delete-again"):
        assert offsets[ours.bootstrap][name] == offsets[apache.bootstrap][name], (name, offsets)
    # the group's standby replicas: set and refused alike
    standby = [_standby_override(b) for b in (ours.bootstrap, apache.bootstrap)]
    assert standby[0] == standby[1], standby
    assert [code for code, _ in standby[0]] == [0, 1, 1], standby
    for bootstrap in (ours.bootstrap, apache.bootstrap):
        # the group left empty by the closed application goes with its internal topics
        listed = run_tool("4", "kafka-streams-groups", ["--bootstrap-server", bootstrap, "--list"],
                          timeout=120).stdout
        assert APP in listed, listed
        # Apache's tool deletes on kafpy, ours on Apache Kafka
        args = ["--bootstrap-server", bootstrap, "--delete", "--group", APP,
                "--delete-all-internal-topics"]
        deleted = (run_tool("4", "kafka-streams-groups", args, timeout=120).stdout
                   if bootstrap == ours.bootstrap else _ours(args))
        assert f"('{APP}') was successful" in deleted, deleted
        assert f"internal topics of the streams groups ('{APP}') was successful" in deleted
        listed = run_tool("4", "kafka-streams-groups", ["--bootstrap-server", bootstrap, "--list"],
                          timeout=120).stdout
        assert APP not in listed, listed
    # Apache's kafka-dump-log reads the Streams* records kafpy wrote
    ours.stop()
    part = Path(ours.log_dir) / f"__consumer_offsets-{partition_for(APP, 50)}"
    out = run_tool("4", "kafka-dump-log", ["--offsets-decoder", "--files", ",".join(
        sorted(str(f) for f in part.glob("*.log")))], timeout=120).stdout
    for kind in (17, 19, 20, 21, 22, 23):
        assert f'"type":"{kind}"' in out, (kind, out[-3000:])
    assert "Error" not in out and "Unknown" not in out, out[-3000:]
