"""Our tools print what Apache Kafka's tools print, byte for byte, against the same broker:
a real Apache Kafka broker (the `reference_kafka` fixture) and our own. Where Kafka 3.9 and
4.x differ (3.9.1 lost some newlines in its Java port of kafka-consumer-groups), matching
either release is accepted."""
from __future__ import annotations

from tests.integration.scripts.tools import run_script
from tests.support.kafka_dist import run_tool


def assert_same(tool: str, args: list[str], stderr: bool = False, first: str = "3.9"):
    """Our tool's output is one of Kafka 3.9's and 4's; ``first`` is the release tried first
    (a JVM start saved where the other one's output is the one we print)."""
    ours = run_script(tool, *args)
    report = [f"{tool} {args}\n--- ours\n{ours.stdout}{ours.stderr}"]
    for version in (first, "4" if first == "3.9" else "3.9"):
        theirs = run_tool(version, tool, args, check=False)
        if ours.stdout == theirs.stdout and (not stderr or ours.stderr == theirs.stderr):
            assert (ours.returncode == 0) == (theirs.returncode == 0)
            return
        report.append(f"--- Kafka {version}\n{theirs.stdout}{theirs.stderr}")
    raise AssertionError("\n".join(report))


def scenario(bootstrap: str, prefix: str) -> None:
    t = f"{prefix}-topic"
    b = ["--bootstrap-server", bootstrap]
    created = run_script("kafka-topics", *b, "--create", "--topic", t, "--partitions", "5",
                         "--config", "retention.ms=3600000")
    assert created.stdout == f"Created topic {t}.\n", created.stdout + created.stderr
    assert_same("kafka-topics", b + ["--create", "--topic", t, "--partitions", "5"])  # exists
    assert_same("kafka-topics", b + ["--describe", "--topic", t])
    assert_same("kafka-topics", b + ["--describe", "--topic", f"{prefix}-.*", "--exclude-internal"])
    assert_same("kafka-topics", b + ["--list", "--topic", f"{prefix}.*"])
    assert_same("kafka-topics", b + ["--describe", "--topics-with-overrides", "--topic", t])
    assert_same("kafka-configs", b + ["--describe", "--entity-type", "topics", "--entity-name", t])
    assert_same("kafka-configs", b + ["--describe", "--entity-type", "brokers", "--entity-name",
                                      "0" if "kafpy" in prefix else "1"])
    assert_same("kafka-configs", b + ["--alter", "--topic", t, "--delete-config", "nope"], stderr=True)

    producer = run_script("kafka-console-producer", *b, "--topic", t, "--property", "parse.key=true",
                          input="".join(f"k{i}\tv{i}\n" for i in range(20)))
    assert producer.returncode == 0, producer.stderr
    group = f"{prefix}-group"
    consumed = run_script("kafka-console-consumer", *b, "--topic", t, "--group", group,
                          "--from-beginning", "--max-messages", "20")
    assert len(consumed.stdout.splitlines()) == 20, consumed.stderr
    theirs_consumed = run_tool("3.9", "kafka-console-consumer",
                               b + ["--topic", t, "--from-beginning", "--max-messages", "20",
                                    "--property", "print.key=true", "--property", "print.partition=true",
                                    "--property", "print.offset=true"])
    ours_consumed = run_script("kafka-console-consumer", *b, "--topic", t, "--from-beginning",
                               "--max-messages", "20", "--property", "print.key=true",
                               "--property", "print.partition=true", "--property", "print.offset=true")
    assert sorted(ours_consumed.stdout.splitlines()) == sorted(theirs_consumed.stdout.splitlines())
    assert ours_consumed.stderr.splitlines()[-1] == "Processed a total of 20 messages"

    # Kafka 4's output, where 3.9.1's Java port of the tool lost a newline
    assert_same("kafka-consumer-groups", b + ["--describe", "--group", group], stderr=True, first="4")
    assert_same("kafka-consumer-groups", b + ["--describe", "--group", group, "--members"])
    assert_same("kafka-consumer-groups", b + ["--describe", "--group", f"{prefix}-nope"])
    assert_same("kafka-consumer-groups", b + ["--reset-offsets", "--group", group, "--topic", t,
                                              "--to-offset", "1", "--export", "--dry-run"])
    assert_same("kafka-consumer-groups", b + ["--delete-offsets", "--group", group, "--topic", f"{t}:0"],
                first="4")
    short = f"{prefix[:2]}"
    assert run_script("kafka-topics", *b, "--create", "--topic", short).returncode == 0
    run_script("kafka-console-consumer", *b, "--topic", short, "--group", group,
               "--timeout-ms", "3000")
    assert_same("kafka-consumer-groups", b + ["--delete-offsets", "--group", group, "--topic", short],
                first="4")


def test_same_output_on_apache_kafka(reference_kafka):
    scenario(reference_kafka.bootstrap, "apache-ref")


def test_same_output_on_our_broker(broker):
    scenario(broker.bootstrap, "kafpy")
