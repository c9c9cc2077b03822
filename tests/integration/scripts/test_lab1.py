"""Lab 1 of the course ("Using Kafka Single Node") with this project's scripts against our
broker: create my-topic with 13 partitions, list, produce seven lines, consume them from the
beginning, describe, alter partitions, configs, delete."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.integration.scripts.tools import run_script
from tests.support.kafpy_broker import KafpyBroker

LINES = ["This is message 1", "This is message 2", "This is message 3", "Message 4",
         "Message 5", "Message 6", "Message 7"]
PARTITION_LINE = re.compile(r"^\tTopic: my-topic\tPartition: (\d+)\tLeader: 0\tReplicas: 0\tIsr: 0"
                            r"\tElr: (N/A)?\tLastKnownElr: (N/A)?$")



@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafpyBroker]:
    """One of our brokers for the module: each test has topic names of its own (my-topic,
    twice, cfg, keyed) and looks at nothing else of the broker's."""
    work = tmp_path_factory.mktemp("kafpy-lab1")
    b = KafpyBroker(work_dir=work, log_dir=work / "logs", start_timeout=150)
    b.start()
    try:
        yield b
    finally:
        b.stop()


def test_lab1_single_node(broker):
    b = broker.bootstrap
    created = run_script("kafka-topics", "--create", "--bootstrap-server", b,
                         "--replication-factor", "1", "--partitions", "13", "--topic", "my-topic")
    assert (created.returncode, created.stdout) == (0, "Created topic my-topic.\n"), created.stderr

    listed = run_script("kafka-topics", "--list", "--bootstrap-server", b)
    assert listed.returncode == 0 and "my-topic" in listed.stdout.splitlines()

    produced = run_script("kafka-console-producer", "--broker-list", b, "--topic", "my-topic",
                          input="".join(line + "\n" for line in LINES))
    assert produced.returncode == 0, produced.stderr
    assert produced.stdout == ""  # no prompt: stdin is not a terminal

    consumed = run_script("kafka-console-consumer", "--bootstrap-server", b, "--topic", "my-topic",
                          "--from-beginning", "--max-messages", "7")
    assert consumed.returncode == 0, consumed.stderr
    assert sorted(consumed.stdout.splitlines()) == sorted(LINES)
    assert consumed.stderr.splitlines()[-1] == "Processed a total of 7 messages"

    described = run_script("kafka-topics", "--describe", "--bootstrap-server", b, "--topic", "my-topic")
    assert described.returncode == 0, described.stdout + described.stderr
    lines = described.stdout.splitlines()
    assert re.fullmatch(r"Topic: my-topic\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 13\t"
                        r"ReplicationFactor: 1\tConfigs: .*", lines[0]), lines[0]
    assert [int(PARTITION_LINE.match(l).group(1)) for l in lines[1:]] == list(range(13)), lines[1:]

    altered = run_script("kafka-topics", "--alter", "--bootstrap-server", b, "--topic", "my-topic",
                         "--partitions", "20")
    assert (altered.returncode, altered.stdout) == (0, ""), altered.stdout + altered.stderr
    described = run_script("kafka-topics", "--describe", "--bootstrap-server", b, "--topic", "my-topic")
    assert "\tPartitionCount: 20\t" in described.stdout.splitlines()[0]
    assert len(described.stdout.splitlines()) == 21

    deleted = run_script("kafka-topics", "--delete", "--bootstrap-server", b, "--topic", "my-topic")
    assert (deleted.returncode, deleted.stdout) == (0, ""), deleted.stdout + deleted.stderr
    listed = run_script("kafka-topics", "--list", "--bootstrap-server", b)
    assert "my-topic" not in listed.stdout.splitlines()


def test_create_twice_reports_kafkas_error(broker):
    args = ["--create", "--bootstrap-server", broker.bootstrap, "--topic", "twice", "--partitions", "2"]
    assert run_script("kafka-topics", *args).returncode == 0
    again = run_script("kafka-topics", *args)
    assert again.returncode == 1
    assert again.stdout == "Error while executing topic command : Topic 'twice' already exists.\n"
    assert run_script("kafka-topics", *args, "--if-not-exists").returncode == 0


def test_kafka_configs_alter_and_describe(broker):
    b = broker.bootstrap
    assert run_script("kafka-topics", "--create", "--bootstrap-server", b, "--topic", "cfg",
                      "--partitions", "1").returncode == 0
    altered = run_script("kafka-configs", "--bootstrap-server", b, "--alter", "--entity-type",
                         "topics", "--entity-name", "cfg", "--add-config",
                         "retention.ms=86400000,cleanup.policy=[compact,delete]")
    assert (altered.returncode, altered.stdout) == (0, "Completed updating config for topic cfg.\n"), \
        altered.stderr
    described = run_script("kafka-configs", "--bootstrap-server", b, "--describe", "--entity-type",
                           "topics", "--entity-name", "cfg")
    lines = described.stdout.splitlines()
    assert lines[0] == "Dynamic configs for topic cfg are:"
    assert lines[1].startswith("  cleanup.policy=compact,delete sensitive=false synonyms="
                               "{DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete")
    assert lines[2].startswith("  retention.ms=86400000 sensitive=false synonyms="
                               "{DYNAMIC_TOPIC_CONFIG:retention.ms=86400000")
    topic_line = run_script("kafka-topics", "--describe", "--bootstrap-server", b, "--topic",
                            "cfg").stdout.splitlines()[0]
    assert "cleanup.policy=compact,delete" in topic_line and "retention.ms=86400000" in topic_line

    removed = run_script("kafka-configs", "--bootstrap-server", b, "--alter", "--entity-type",
                         "topics", "--entity-name", "cfg", "--delete-config", "retention.ms")
    assert removed.returncode == 0, removed.stderr
    described = run_script("kafka-configs", "--bootstrap-server", b, "--describe", "--topic", "cfg")
    assert [l.split("=")[0].strip() for l in described.stdout.splitlines()[1:]] == ["cleanup.policy"]


def test_console_tools_keys_properties_and_partition(broker):
    b = broker.bootstrap
    assert run_script("kafka-topics", "--create", "--bootstrap-server", b, "--topic", "keyed",
                      "--partitions", "3").returncode == 0
    produced = run_script("kafka-console-producer", "--bootstrap-server", b, "--topic", "keyed",
                          "--property", "parse.key=true", "--property", "key.separator=:",
                          "--compression-codec", "--sync", input="k1:v1\nk2:v2\nk1:v3\n")
    assert produced.returncode == 0, produced.stderr
    consumed = run_script("kafka-console-consumer", "--bootstrap-server", b, "--topic", "keyed",
                          "--from-beginning", "--max-messages", "3", "--property", "print.key=true",
                          "--property", "print.partition=true", "--property", "key.separator=|")
    rows = [l.split("|") for l in consumed.stdout.splitlines()]
    assert sorted((k, v) for _, k, v in rows) == [("k1", "v1"), ("k1", "v3"), ("k2", "v2")]
    partition_of_k1 = {p for p, k, _ in rows if k == "k1"}
    assert len(partition_of_k1) == 1  # one key, one partition
    p = partition_of_k1.pop().split(":")[1]
    one = run_script("kafka-console-consumer", "--bootstrap-server", b, "--topic", "keyed",
                     "--partition", p, "--offset", "earliest", "--timeout-ms", "3000")
    assert one.stdout.splitlines() == ["v1", "v3"]
    assert one.stderr.splitlines()[-1] == "Processed a total of 2 messages"
