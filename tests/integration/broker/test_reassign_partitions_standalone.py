"""kafka-reassign-partitions.sh against a standalone kafpy broker, side by side with Apache
Kafka 4.4's single node (both with node id 3): nothing is ever being reassigned, a plan that
keeps every partition where it is is accepted, one naming a broker that is not there is
refused with the controller's message, and the raw AlterPartitionReassignments (v0, v1) and
ListPartitionReassignments requests are answered alike."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from tests.integration.broker.raw import RawConnection
from tests.support.kafka_dist import run_tool
from tests.support.side_by_side import apache_and_kafpy

TOPIC = "reassigned"
NODE = 3


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    yield from apache_and_kafpy(tmp_path_factory.mktemp("reassign"), node_id=NODE)


def _create(bootstrap: str) -> None:
    run_tool("4", "kafka-topics", ["--bootstrap-server", bootstrap, "--create", "--topic", TOPIC,
                                   "--partitions", "2"])
    deadline = time.monotonic() + 60   # a broker's metadata can lag its controller's commit
    while TOPIC not in run_tool("4", "kafka-topics", ["--bootstrap-server", bootstrap, "--list"]).stdout.split():
        assert time.monotonic() < deadline, f"{TOPIC} not listed by {bootstrap}"
        time.sleep(0.2)


def _plan(path: Path, replicas: list[int]) -> str:
    path.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": TOPIC, "partition": p, "replicas": replicas} for p in (0, 1)]}))
    return str(path)


def _tool(bootstrap: str, *args: str) -> tuple[int, str]:
    """The tool's exit code and output, each broker's own log dir (in the current assignment
    it prints) written as <dir>."""
    r = run_tool("4", "kafka-reassign-partitions", ["--bootstrap-server", bootstrap, *args], check=False)
    return r.returncode, re.sub(r'"log_dirs":\["/[^"]+"\]', '"log_dirs":["<dir>"]', (r.stdout + r.stderr).strip())


def _answers(bootstrap: str, work: Path) -> dict[str, Any]:
    keep, away = _plan(work / "keep.json", [NODE]), _plan(work / "away.json", [7])
    seen: dict[str, Any] = {
        "list": _tool(bootstrap, "--list"),
        "execute in place": _tool(bootstrap, "--execute", "--reassignment-json-file", keep),
        "verify": _tool(bootstrap, "--verify", "--reassignment-json-file", keep),
        "execute to a missing broker": _tool(bootstrap, "--execute", "--reassignment-json-file", away),
        "cancel": _tool(bootstrap, "--cancel", "--reassignment-json-file", keep),
        "list after": _tool(bootstrap, "--list"),
    }
    A, L = M.AlterPartitionReassignmentsRequest, M.ListPartitionReassignmentsRequest
    targets = [A.ReassignableTopic(name=TOPIC, partitions=[
                   A.ReassignablePartition(partition_index=0, replicas=[NODE]),
                   A.ReassignablePartition(partition_index=1, replicas=None),
                   A.ReassignablePartition(partition_index=0, replicas=[NODE, NODE]),
                   A.ReassignablePartition(partition_index=1, replicas=[]),
                   A.ReassignablePartition(partition_index=0, replicas=[NODE, 7]),
                   A.ReassignablePartition(partition_index=9, replicas=[NODE])]),
               A.ReassignableTopic(name="no-such-topic", partitions=[
                   A.ReassignablePartition(partition_index=0, replicas=[NODE])])]
    host, port = bootstrap.split(":")
    with RawConnection(host, int(port), timeout=30) as c:
        for version, allow in ((0, True), (1, True), (1, False)):
            r = c.request(ApiKey.ALTER_PARTITION_REASSIGNMENTS, version,
                          A(timeout_ms=30000, allow_replication_factor_change=allow, topics=targets))
            seen[f"alter v{version} allow={allow}"] = (
                r.error_code, r.error_message, r.allow_replication_factor_change if version else None,
                [(t.name, [(p.partition_index, p.error_code, p.error_message) for p in t.partitions])
                 for t in r.responses])
        for shape, topics in (("every topic", None), ("named", [
                L.ListPartitionReassignmentsTopics(name=TOPIC, partition_indexes=[0, 1]),
                L.ListPartitionReassignmentsTopics(name="no-such-topic", partition_indexes=[0])])):
            r = c.request(ApiKey.LIST_PARTITION_REASSIGNMENTS, 0, L(timeout_ms=30000, topics=topics))
            seen[f"list {shape}"] = (r.error_code, r.error_message, [t.name for t in r.topics])
    return seen


def test_reassign_partitions_answers_as_kafka_44s_single_node(brokers: dict[str, Any], tmp_path: Path) -> None:
    seen = {}
    for side, b in brokers.items():
        _create(b.bootstrap)
        (tmp_path / side).mkdir()
        seen[side] = _answers(b.bootstrap, tmp_path / side)
    for key in seen["apache"]:
        assert seen["kafpy"][key] == seen["apache"][key], (key, seen["apache"][key])
    # what a user sees
    assert seen["kafpy"]["list"] == (0, "No partition reassignments found.")
    code, out = seen["kafpy"]["execute in place"]
    assert code == 0 and "Successfully started partition reassignments for reassigned-0,reassigned-1" in out, out
    code, out = seen["kafpy"]["execute to a missing broker"]
    assert code != 0 and "Unknown broker id 7" in out, out   # the tool checks the brokers it is told of
    _, _, _, per_topic = seen["kafpy"]["alter v0 allow=True"]
    assert per_topic[0][1][:2] == [(0, ErrorCode.NONE, None), (1, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, None)]
    assert per_topic[0][1][4] == (0, ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  "The manual partition assignment includes broker 7, but no such broker is registered.")
    assert per_topic[1] == ("no-such-topic", [(0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                               "Unable to find a topic named no-such-topic.")])
