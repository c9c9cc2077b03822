"""Apache Kafka's own CLI tools (3.9 and 4.x jars) against our broker: kafka-topics,
kafka-configs, console producer and consumer (the seeds' Lab 1), the perf tests and
kafka-get-offsets. JVM starts dominate the cost, so each test batches several steps."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from kafpy.protocol.records import iter_batches
from tests.integration.broker.conftest import topic_name
from tests.integration.broker.raw import create_topic
from tests.support.kafka_dist import run_tool

LAB1_LINES = [f"Lab 1 line {i}: the quick brown fox {i * 7}" for i in range(1, 8)]


def tool(version: str, name: str, *args: str, input: str | None = None, timeout: float = 120):
    # light_jvm: the perf tests too (kafka_dist gives them G1 and C2 for benchmarks); 20,000
    # records of 100 B are over before C2 would pay for itself
    return run_tool(version, name, list(args), input=input, timeout=timeout, light_jvm=True)


def topics(version: str, bootstrap: str, *args: str) -> str:
    return tool(version, "kafka-topics", "--bootstrap-server", bootstrap, *args).stdout


def partition_count(describe_out: str) -> int:
    m = re.search(r"PartitionCount:\s*(\d+)", describe_out)
    assert m, describe_out
    return int(m.group(1))


def log_batches(log_dir: Path, topic: str) -> list:
    """Every batch header in the partition logs of `topic`, read straight from the files."""
    out = []
    for seg in sorted(log_dir.glob(f"{topic}-*/*.log")):
        out += [h for _, h in iter_batches(seg.read_bytes())]
    return out


@pytest.mark.timeout(300)
def test_topics_create_list_describe_alter_delete(shared_broker, kafka_version):
    bs = shared_broker.bootstrap
    t = topic_name(f"cli{kafka_version}")
    out = topics(kafka_version, bs, "--create", "--topic", t, "--partitions", "3", "--replication-factor", "1")
    assert f"Created topic {t}." in out
    assert t in topics(kafka_version, bs, "--list").split()
    desc = topics(kafka_version, bs, "--describe", "--topic", t)
    assert partition_count(desc) == 3
    assert re.search(r"ReplicationFactor:\s*1", desc)
    # as Kafka with its own server.properties: only settings that are not defaults show
    # (log.segment.bytes is set there; log.retention.hours=168 leaves retention.ms a default)
    assert re.search(r"Configs: segment\.bytes=1073741824\s*$", desc.splitlines()[0]), desc
    for p in range(3):
        assert re.search(rf"Partition: {p}\s+Leader: 0\s+Replicas: 0\s+Isr: 0", desc), desc
    topics(kafka_version, bs, "--alter", "--topic", t, "--partitions", "5")
    assert partition_count(topics(kafka_version, bs, "--describe", "--topic", t)) == 5
    # creating it again fails as in Kafka
    again = run_tool(kafka_version, "kafka-topics", ["--bootstrap-server", bs, "--create", "--topic", t],
                     check=False)
    assert again.returncode != 0 and "already exists" in again.stdout + again.stderr
    topics(kafka_version, bs, "--delete", "--topic", t)
    assert t not in topics(kafka_version, bs, "--list").split()
    # the partition directories are gone (or renamed for asynchronous deletion, as Kafka does)
    assert not [d for d in shared_broker.log_dir.iterdir() if re.fullmatch(rf"{re.escape(t)}-\d+", d.name)]


@pytest.mark.timeout(300)
def test_configs_topic_and_broker(shared_broker, kafka_version):
    bs = shared_broker.bootstrap
    t = topic_name(f"cfg{kafka_version}")
    create_topic(shared_broker.port, t)  # no JVM start for the setup

    def configs(*args: str) -> str:
        return tool(kafka_version, "kafka-configs", "--bootstrap-server", bs, *args).stdout

    out = configs("--alter", "--entity-type", "topics", "--entity-name", t,
                  "--add-config", "retention.ms=86400000,max.message.bytes=200000,cleanup.policy=[compact,delete]")
    assert f"Completed updating config for topic {t}." in out
    desc = configs("--describe", "--entity-type", "topics", "--entity-name", t)
    assert f"Dynamic configs for topic {t} are:" in desc
    assert "retention.ms=86400000" in desc and "max.message.bytes=200000" in desc
    assert "cleanup.policy=compact,delete" in desc
    configs("--alter", "--entity-type", "topics", "--entity-name", t, "--delete-config", "retention.ms")
    desc = configs("--describe", "--entity-type", "topics", "--entity-name", t)
    assert "retention.ms=" not in desc and "max.message.bytes=200000" in desc
    # an unknown config is refused
    bad = run_tool(kafka_version, "kafka-configs", ["--bootstrap-server", bs, "--alter", "--entity-type", "topics",
                                                    "--entity-name", t, "--add-config", "no.such.config=1"],
                   check=False)
    assert bad.returncode != 0
    # brokers: the dynamic view is empty, --all lists the static settings
    desc = configs("--describe", "--entity-type", "brokers", "--entity-name", "0")
    assert "Dynamic configs for broker 0 are:" in desc
    desc = configs("--describe", "--all", "--entity-type", "brokers", "--entity-name", "0")
    assert "All configs for broker 0 are:" in desc
    assert re.search(r"num\.partitions=1 .*STATIC_BROKER_CONFIG", desc), desc[:3000]
    assert re.search(r"log\.segment\.bytes=1073741824", desc)


@pytest.mark.timeout(300)
def test_lab1_console_producer_and_consumer(broker, kafka_version):
    """The seeds' Lab 1 as written: my-topic with 13 partitions, 7 lines typed into the
    console producer (idempotent, acks=all by default), the same 7 lines read back by the
    console consumer --from-beginning (which joins a group)."""
    bs = broker.bootstrap
    assert "Created topic my-topic." in topics(kafka_version, bs, "--create", "--topic", "my-topic",
                                               "--partitions", "13", "--replication-factor", "1")
    assert "my-topic" in topics(kafka_version, bs, "--list").split()
    listed = "--broker-list" if kafka_version.startswith("3") else "--bootstrap-server"
    tool(kafka_version, "kafka-console-producer", listed, bs, "--topic", "my-topic",
         input="".join(line + "\n" for line in LAB1_LINES))
    out = tool(kafka_version, "kafka-console-consumer", "--bootstrap-server", bs, "--topic", "my-topic",
               "--from-beginning", "--max-messages", "7", "--timeout-ms", "60000")
    assert sorted(out.stdout.splitlines()) == sorted(LAB1_LINES)
    assert "Processed a total of 7 messages" in out.stderr
    batches = log_batches(broker.log_dir, "my-topic")
    assert sum(h.records_count for h in batches) == 7
    # the Java producer's defaults: idempotent, so every batch carries a producer id and sequence
    assert all(h.producer_id >= 0 and h.base_sequence >= 0 for h in batches)


@pytest.mark.timeout(300)
def test_perf_tests_and_get_offsets(shared_broker, kafka_version):
    bs = shared_broker.bootstrap
    t = topic_name(f"perf{kafka_version}")
    n = 20000
    create_topic(shared_broker.port, t, partitions=2)
    out = tool(kafka_version, "kafka-producer-perf-test", "--topic", t, "--num-records", str(n),
               "--record-size", "100", "--throughput", "-1", "--producer-props", f"bootstrap.servers={bs}",
               "acks=all", "compression.type=lz4", timeout=240).stdout
    assert re.search(rf"^{n} records sent", out, re.M), out
    offsets = tool(kafka_version, "kafka-get-offsets", "--bootstrap-server", bs, "--topic", t).stdout
    ends = dict(line.rsplit(":", 2)[1:] for line in offsets.split())
    assert sorted(ends) == ["0", "1"] and sum(int(x) for x in ends.values()) == n
    earliest = tool(kafka_version, "kafka-get-offsets", "--bootstrap-server", bs, "--topic", t,
                    "--time", "-2").stdout
    assert sorted(earliest.split()) == [f"{t}:0:0", f"{t}:1:0"]
    count_flag = "--messages" if kafka_version.startswith("3") else "--num-records"
    out = tool(kafka_version, "kafka-consumer-perf-test", "--bootstrap-server", bs, "--topic", t,
               count_flag, str(n), "--timeout", "60000", timeout=240).stdout
    header, *rows = [line for line in out.splitlines() if line.strip()]
    cols = [c.strip() for c in header.split(",")]
    values = [c.strip() for c in rows[-1].split(",")]
    assert int(values[cols.index("data.consumed.in.nMsg")]) == n, out


@pytest.mark.timeout(300)
@pytest.mark.parametrize("codec", ["gzip", "snappy", "zstd"])
def test_java_producer_codecs_read_by_python(shared_broker, codec):
    """The Java producer's own framing of each codec (xerial snappy, for one) is stored as sent
    and decodes in another client. The topic is auto-created by the producer's Metadata."""
    bs = shared_broker.bootstrap
    t = topic_name(f"jcodec-{codec}")
    lines = [f"{codec} line {i} " + "x" * (i % 50) for i in range(200)]
    tool("4", "kafka-console-producer", "--bootstrap-server", bs, "--topic", t, "--compression-codec", codec,
         "--producer-property", "linger.ms=50", input="".join(line + "\n" for line in lines))
    batches = log_batches(shared_broker.log_dir, t)
    codec_ids = {"gzip": 1, "snappy": 2, "zstd": 4}
    assert batches and all(h.compression == codec_ids[codec] for h in batches)
    from tests.integration.broker.raw import read_all
    assert [v.decode() for _, _, v in read_all(bs, t)] == lines
    if codec == "zstd":
        # the console consumer without a group: assign one partition, start at an offset inside a batch
        out = tool("4", "kafka-console-consumer", "--bootstrap-server", bs, "--topic", t, "--partition", "0",
                   "--offset", "150", "--max-messages", "50", "--timeout-ms", "60000")
        assert out.stdout.splitlines() == lines[150:]
