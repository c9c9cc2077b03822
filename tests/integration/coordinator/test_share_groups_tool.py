"""Share groups (KIP-932) through Apache Kafka 4.4's own tools, side by side with Apache
Kafka 4.4 in one test: `kafka-configs` sets the group's `share.auto.offset.reset`,
`kafka-console-share-consumer` reads every record of a 3-partition topic, and
`kafka-share-groups.sh` (--list, --describe --members/--state/--offsets, --reset-offsets,
after which every record is read again, --delete-offsets, --delete) prints the same on both brokers once member ids, hosts,
ports and broker ids are masked; our own scripts/kafka-share-groups prints what Apache's
prints against kafpy, and our kafka-console-share-consumer reads every record."""
from __future__ import annotations

import re
import subprocess
import sys

from tests.integration.coordinator.helpers import create_topic, produce, wait_until
from tests.support.kafka_dist import popen_tool, run_tool

PARTITIONS = 3
RECORDS = 30


def _mask(text: str) -> list[list[str]]:
    text = re.sub(r"[A-Za-z0-9_\-+/=]{20,}", "<id>", text)               # member ids
    text = re.sub(r"/?127\.0\.0\.1(:\d+)?", "<host>", text)
    text = re.sub(r"localhost(:\d+)?", "<host>", text)
    text = re.sub(r"\(\d+\)", "(<node>)", text)
    return [line.split() for line in text.splitlines() if line.strip()]


def _tool(bootstrap: str, *args: str, tool: str = "kafka-share-groups") -> str:
    return run_tool("4", tool, ["--bootstrap-server", bootstrap, *args], timeout=90).stdout


def _describe(bootstrap: str, group: str, *flags: str) -> list[list[str]]:
    return _mask(_tool(bootstrap, "--describe", "--group", group, *flags))


def _ours_prints_the_same(bootstrap: str, *args: str) -> None:
    """Our scripts/kafka-share-groups prints what Apache's prints, on the same broker."""
    ours = subprocess.run([sys.executable, "-m", "kafpy.scripts.kafka_share_groups",
                           "--bootstrap-server", bootstrap, *args],
                          capture_output=True, text=True, timeout=60)
    theirs = run_tool("4", "kafka-share-groups", ["--bootstrap-server", bootstrap, *args],
                      timeout=90, check=False)
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout), args


def _session(bootstrap: str, topic: str, group: str, ours: bool = False) -> dict:
    """Everything the tools print about one share group's life on one broker (and, when
    `ours`, what our own kafka-share-groups prints beside Apache's)."""
    create_topic(bootstrap, topic, PARTITIONS)
    produce(bootstrap, topic, [b"v%02d" % i for i in range(RECORDS)], PARTITIONS)
    seen: dict = {}
    seen["config"] = _tool(bootstrap, "--entity-type", "groups", "--entity-name", group, "--alter",
                           "--add-config", "share.auto.offset.reset=earliest", tool="kafka-configs")
    read = _tool(bootstrap, "--topic", topic, "--group", group, "--max-messages", str(RECORDS),
                 "--timeout-ms", "60000", tool="kafka-console-share-consumer")
    seen["read"] = sorted(read.split())
    seen["list"] = _tool(bootstrap, "--list").split()
    last: list = []

    def offsets_moved():
        last[:] = _describe(bootstrap, group, "--offsets")
        return len(last) == PARTITIONS + 1 and all(r[4] == "0" for r in last[1:]) and sorted(last)
    try:
        rows = wait_until(offsets_moved, 60, "no lag once every record is acknowledged")
    except AssertionError:
        raise AssertionError(f"{bootstrap}: {last}") from None
    # Every record acknowledged: Kafka 4.4 keeps the persisted start offset where the
    # acknowledged run begins (it moves it with the next write), kafpy's share partition
    # may have moved it past the run already; both are a complete delivery (lag 0).
    assert all(r[3] in ("0", str(RECORDS // PARTITIONS)) for r in rows[1:]), rows
    seen["offsets"] = [r[:3] + r[4:] for r in rows]
    seen["state"] = _describe(bootstrap, group, "--state")
    # a live member: its assignment once the group gave it the partitions
    proc = popen_tool("4", "kafka-console-share-consumer", ["--bootstrap-server", bootstrap,
                                                            "--topic", topic, "--group", group],
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        seen["members"] = wait_until(
            lambda: (rows := _describe(bootstrap, group, "--members"))[1:] and
            rows[1][-2] == str(PARTITIONS) and rows, 60, "the member's assignment")
        if ours:
            for args in (["--list", "--state"], ["--describe", "--group", group, "--members", "--verbose"],
                         ["--describe", "--group", group, "--state", "--verbose"],
                         ["--describe", "--group", group, "--offsets", "--verbose"]):
                _ours_prints_the_same(bootstrap, *args)
        busy = run_tool("4", "kafka-share-groups", [
            "--bootstrap-server", bootstrap, "--reset-offsets", "--group", group, "--topic", topic,
            "--to-earliest", "--execute"], timeout=90, check=False)
        seen["busy_reset"] = (busy.returncode, busy.stdout.strip(), busy.stderr.strip())
    finally:
        proc.terminate()        # its shutdown hook closes the consumer: it leaves the group
        proc.wait(30)
    wait_until(lambda: "no active members" in run_tool("4", "kafka-share-groups", [
        "--bootstrap-server", bootstrap, "--describe", "--group", group, "--members"],
        timeout=90).stderr, 60, "the member to leave")
    if ours:
        _ours_prints_the_same(bootstrap, "--reset-offsets", "--group", group, "--topic", topic,
                              "--to-latest", "--dry-run")
    seen["reset"] = sorted(_mask(_tool(bootstrap, "--reset-offsets", "--group", group, "--topic", topic,
                                       "--to-earliest", "--execute")))
    seen["after_reset"] = sorted(_describe(bootstrap, group, "--offsets"))
    # the share partitions' leader read the reset state again: every record once more
    read = _tool(bootstrap, "--topic", topic, "--group", group, "--max-messages", str(RECORDS),
                 "--timeout-ms", "30000", tool="kafka-console-share-consumer")
    seen["read_after_reset"] = sorted(read.split())
    wait_until(lambda: "no active members" in run_tool("4", "kafka-share-groups", [
        "--bootstrap-server", bootstrap, "--describe", "--group", group, "--members"],
        timeout=90).stderr, 60, "the member to leave")
    seen["delete_offsets"] = _mask(_tool(bootstrap, "--delete-offsets", "--group", group, "--topic", topic))
    seen["delete"] = _mask(_tool(bootstrap, "--delete", "--group", group))
    seen["list_after"] = _tool(bootstrap, "--list").split()
    seen["missing"] = _mask(run_tool("4", "kafka-share-groups", [
        "--bootstrap-server", bootstrap, "--describe", "--group", group + "-none"],
        timeout=90, check=False).stdout)[:1]
    if ours:
        # our console share consumer, in a group of its own
        _tool(bootstrap, "--entity-type", "groups", "--entity-name", group + "-ours", "--alter",
              "--add-config", "share.auto.offset.reset=earliest", tool="kafka-configs")
        ours_read = subprocess.run([sys.executable, "-m", "kafpy.scripts.kafka_console_share_consumer",
                               "--bootstrap-server", bootstrap, "--topic", topic, "--group", group + "-ours",
                               "--max-messages", str(RECORDS), "--timeout-ms", "30000"],
                              capture_output=True, text=True, timeout=90)
        assert sorted(ours_read.stdout.split()) == seen["read"], ours_read.stderr
        assert f"Processed a total of {RECORDS} messages" in ours_read.stderr
    return seen


def test_kafka_share_groups_tools_print_as_against_kafka(broker_factory, reference_kafka):
    ours = broker_factory()
    views = {name: _session(bootstrap, "share-tools", "share-tools-group", ours=name == "kafpy")
             for name, bootstrap in (("kafpy", ours.bootstrap), ("kafka", reference_kafka.bootstrap))}
    assert views["kafpy"]["read"] == sorted("v%02d" % i for i in range(RECORDS))
    assert views["kafpy"]["read_after_reset"] == views["kafpy"]["read"]
    for key in views["kafka"]:
        assert views["kafpy"][key] == views["kafka"][key], key
