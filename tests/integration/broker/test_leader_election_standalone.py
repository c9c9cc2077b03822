"""kafka-leader-election.sh against a standalone kafpy broker, side by side with Apache Kafka
4.4's single node (a combined broker and controller): every partition has its only replica
as leader, so nothing needs electing, and both answer the tool and the raw ElectLeaders
requests (v0-v2; every partition, named partitions, unknown topics and partitions) alike."""
from __future__ import annotations

import time
from typing import Any, Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from tests.integration.broker.raw import RawConnection
from tests.support.kafka_dist import run_tool
from tests.support.side_by_side import apache_and_kafpy

TOPIC = "elected"
TOOL_RUNS = [
    ["--election-type", "preferred", "--all-topic-partitions"],
    ["--election-type", "unclean", "--all-topic-partitions"],
    ["--election-type", "preferred", "--topic", TOPIC, "--partition", "0"],
    ["--election-type", "unclean", "--topic", TOPIC, "--partition", "1"],
    ["--election-type", "preferred", "--topic", "no-such-topic", "--partition", "0"],
    ["--election-type", "preferred", "--topic", TOPIC, "--partition", "7"],
]


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    yield from apache_and_kafpy(tmp_path_factory.mktemp("leader-election"))


def _create(bootstrap: str) -> None:
    run_tool("4", "kafka-topics", ["--bootstrap-server", bootstrap, "--create", "--topic", TOPIC,
                                   "--partitions", "2"])
    deadline = time.monotonic() + 60   # a broker's metadata can lag its controller's commit
    while TOPIC not in run_tool("4", "kafka-topics", ["--bootstrap-server", bootstrap, "--list"]).stdout.split():
        assert time.monotonic() < deadline, f"{TOPIC} not listed by {bootstrap}"
        time.sleep(0.2)


def _answers(bootstrap: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for args in TOOL_RUNS:
        r = run_tool("4", "kafka-leader-election", ["--bootstrap-server", bootstrap, *args], check=False)
        seen[" ".join(args)] = (r.returncode, r.stdout.strip())
    E = M.ElectLeadersRequest
    shapes = {"every partition": None,
              "named": [E.TopicPartitions(topic=TOPIC, partitions=[0, 1]),
                        E.TopicPartitions(topic="no-such-topic", partitions=[0]),
                        E.TopicPartitions(topic=TOPIC, partitions=[9])]}
    host, port = bootstrap.split(":")
    with RawConnection(host, int(port), timeout=30) as c:
        for shape, tps in shapes.items():
            for election in (0, 1):
                for version in (0, 1, 2):
                    if election and not version:
                        continue   # v0 has no election type: preferred only
                    r = c.request(ApiKey.ELECT_LEADERS, version, E(election_type=election, topic_partitions=tps,
                                                                   timeout_ms=30000))
                    seen[f"{shape}, type {election}, v{version}"] = (r.error_code, [
                        (t.topic, [(p.partition_id, p.error_code, p.error_message) for p in t.partition_result])
                        for t in r.replica_election_results])
    return seen


def test_leader_election_answers_as_kafka_44s_single_node(brokers: dict[str, Any]) -> None:
    seen = {}
    for side, b in brokers.items():
        _create(b.bootstrap)
        seen[side] = _answers(b.bootstrap)
    assert seen["kafpy"] == seen["apache"]
    # what a user sees: nothing to elect for the partitions that exist, a clear error for the others
    assert seen["kafpy"]["--election-type preferred --topic elected --partition 0"] == (
        0, "Valid replica already elected for partitions elected-0")
    assert seen["kafpy"]["--election-type preferred --all-topic-partitions"] == (0, "")
    code, out = seen["kafpy"]["--election-type preferred --topic no-such-topic --partition 0"]
    assert code == 1 and "No such topic as no-such-topic" in out
    assert seen["kafpy"]["every partition, type 0, v2"] == (0, [(TOPIC, [])])
