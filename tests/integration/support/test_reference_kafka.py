"""Apache Kafka's jars as installed by install-deps.sh: the reference broker and CLI tools."""
from __future__ import annotations

import uuid

import pytest
from kafka import KafkaAdminClient

from tests.support import kafka_dist, wire
from tests.support.kafka_dist import VERSIONS, ToolFailed, run_tool


@pytest.fixture
def kafka(kafka_version, request):
    """The shared session broker for Kafka 4, a fresh one for the other lines."""
    if kafka_version == "4":
        return request.getfixturevalue("reference_kafka")
    return request.getfixturevalue("reference_kafka_factory")(kafka_version)


def test_tools_against_reference_broker(kafka, kafka_version):
    assert kafka.version == VERSIONS[kafka_version]
    bs = ["--bootstrap-server", kafka.bootstrap]
    topic = f"support-{uuid.uuid4().hex[:8]}"

    versions = wire.api_versions("127.0.0.1", kafka.port)
    assert versions[0][1] >= 9 and versions[18][1] >= 3  # Produce, ApiVersions

    run_tool(kafka_version, "kafka-topics", [*bs, "--create", "--topic", topic,
                                             "--partitions", "2"])
    listed = run_tool(kafka_version, "kafka-topics", [*bs, "--list"]).stdout.split()
    assert topic in listed

    admin = KafkaAdminClient(bootstrap_servers=kafka.bootstrap, request_timeout_ms=30000)
    try:
        assert topic in admin.list_topics()
    finally:
        admin.close()

    lines = [f"line-{i}" for i in range(5)]
    run_tool(kafka_version, "kafka-console-producer", [*bs, "--topic", topic],
             input="\n".join(lines) + "\n")
    out = run_tool(kafka_version, "kafka-console-consumer",
                   [*bs, "--topic", topic, "--from-beginning", "--max-messages", "5",
                    "--timeout-ms", "60000"]).stdout
    assert sorted(out.split()) == lines

    segments = sorted(kafka.log_dir.glob(f"{topic}-*/*.log"))
    assert len(segments) == 2
    dumped = "".join(run_tool(kafka_version, "kafka-dump-log",
                              ["--files", seg, "--print-data-log"]).stdout for seg in segments)
    assert dumped.count("baseOffset") >= 1
    assert sum(f"payload: {line}" in dumped for line in lines) == 5


def test_run_tool_reports_failures(kafka_version):
    with pytest.raises(ToolFailed) as err:
        run_tool(kafka_version, "kafka-topics", ["--no-such-flag"])
    assert err.value.result.returncode != 0
    assert "no-such-flag" in str(err.value)


def test_popen_tool_streams_a_console_consumer(reference_kafka):
    from tests.support.kafka_dist import popen_tool
    from tests.support.process import LineReader, terminate

    topic = f"support-popen-{uuid.uuid4().hex[:8]}"
    bs = ["--bootstrap-server", reference_kafka.bootstrap]
    run_tool("4", "kafka-topics", [*bs, "--create", "--topic", topic, "--partitions", "1"])
    consumer = popen_tool("4", "kafka-console-consumer",
                          [*bs, "--topic", topic, "--from-beginning"], stdin=None)
    reader = LineReader(consumer.stdout)
    try:
        run_tool("4", "kafka-console-producer", [*bs, "--topic", topic],
                 input="alpha\nbeta\ngamma\n")
        assert reader.lines(3, timeout=120) == ["alpha", "beta", "gamma"]
    finally:
        terminate(consumer, timeout=20)
    assert consumer.returncode is not None



def test_reference_broker_runs_the_light_jvm_and_dumps_its_cds_archive(
        reference_kafka_factory, tmp_path, monkeypatch):
    """The suite's Apache brokers: serial GC and C1 alone; the first one to shut down
    cleanly dumps the broker's CDS archive, later ones map it. A cache of its own (the jars
    linked) so that the dump happens here whatever the machine's cache already holds."""
    version = VERSIONS["4"]
    home = tmp_path / f"kafka-{version}"
    home.mkdir()
    (home / "libs").symlink_to(kafka_dist.kafka_home(version) / "libs")
    (home / ".complete").write_text(version)
    monkeypatch.setenv("KAFPY_CACHE", str(tmp_path))
    archive = kafka_dist.cds_archive(version, "kafka-server-start")
    assert archive.parent == home / "cds" and not archive.exists()

    first = reference_kafka_factory("4")
    assert first.proc is not None
    cmdline = open(f"/proc/{first.proc.pid}/cmdline", "rb").read().split(b"\0")
    assert b"-XX:+UseSerialGC" in cmdline and b"-XX:TieredStopAtLevel=1" in cmdline
    assert b"-XX:+UseG1GC" not in cmdline
    assert not any(a.startswith(b"-XX:SharedArchiveFile") for a in cmdline)
    assert first.stop() in (0, 143)
    assert archive.is_file() and archive.stat().st_size > 0
    assert not list(archive.parent.glob(f"{archive.name}.*.tmp"))

    second = reference_kafka_factory("4")
    assert second.proc is not None
    cmdline = open(f"/proc/{second.proc.pid}/cmdline", "rb").read().split(b"\0")
    assert f"-XX:SharedArchiveFile={archive}".encode() in cmdline
    assert b"-XX:TieredStopAtLevel=1" in cmdline
    assert any(node == second.node_id for node, _h, _p in
               wire.metadata_brokers("127.0.0.1", second.port, timeout=5.0))
    second.kill()   # a broker killed mid-way leaves the archive as it was
    assert archive.is_file()
