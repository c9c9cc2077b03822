"""kafka-leader-election: option rules, the JSON file, and Kafka's report lines, against a
stand-in admin client answering ElectLeaders."""
from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from kafpy.scripts import kafka_leader_election as le


class FakeAdmin:
    def __init__(self, results: dict[tuple[str, int], tuple[int, str | None]]) -> None:
        self.results = results
        self.calls: list[tuple[int, dict | None]] = []

    def elect_leaders(self, election_type, topic_partitions=None, raise_errors=True):
        self.calls.append((election_type, topic_partitions))
        by_topic: dict[str, list] = {}
        for (t, p), (code, msg) in self.results.items():
            by_topic.setdefault(t, []).append(SimpleNamespace(partition_id=p, error_code=code, error_message=msg))
        return SimpleNamespace(error_code=0, replica_election_results=[
            SimpleNamespace(topic=t, partition_result=ps) for t, ps in by_topic.items()])

    def close(self):
        pass


def run(args, admin, capsys):
    out = io.StringIO()
    rc = le.run(args, admin_factory=lambda _b, _c: admin, out=out)
    return rc, out.getvalue(), capsys.readouterr().err


def test_preferred_election_of_one_partition(capsys):
    admin = FakeAdmin({("t", 0): (0, None)})
    rc, out, _ = run(["--bootstrap-server", "b:9092", "--election-type", "preferred", "--topic", "t",
                      "--partition", "0"], admin, capsys)
    assert (rc, out) == (0, "Successfully completed leader election (PREFERRED) for partitions t-0\n")
    assert admin.calls == [(0, {"t": [0]})]


def test_noop_and_failures_are_reported_and_exit_1(capsys, tmp_path):
    path = tmp_path / "e.json"
    path.write_text('{"partitions": [{"topic": "a", "partition": 1}, {"topic": "b", "partition": 0}]}')
    admin = FakeAdmin({("a", 1): (84, None), ("b", 0): (83, "Failed to elect leader for partition b-0 "
                                                         "under strategy UncleanReplicaPartitionLeaderElectionStrategy")})
    rc, out, err = run(["--bootstrap-server", "b:9092", "--election-type", "UNCLEAN",
                        "--path-to-json-file", str(path)], admin, capsys)
    assert rc == 1
    assert out.splitlines() == [
        "Valid replica already elected for partitions a-1",
        "Error completing leader election (UNCLEAN) for partition: b-0: "
        "org.apache.kafka.common.errors.EligibleLeadersNotAvailableException: Failed to elect leader "
        "for partition b-0 under strategy UncleanReplicaPartitionLeaderElectionStrategy"]
    assert err == "1 replica(s) could not be elected\n"
    assert admin.calls == [(1, {"a": [1], "b": [0]})]


def test_all_topic_partitions_sends_no_list(capsys):
    admin = FakeAdmin({})
    rc, out, _ = run(["--bootstrap-server", "b:9092", "--election-type", "preferred",
                      "--all-topic-partitions"], admin, capsys)
    assert (rc, out, admin.calls) == (0, "", [(0, None)])


def test_all_topic_partitions_reports_only_the_partitions_that_needed_an_election(capsys):
    # kafka-python names every partition in the request, so the broker answers ELECTION_NOT_NEEDED
    # for those already led by their preferred replica; Kafka's command never prints them
    admin = FakeAdmin({("t", 0): (0, None), ("t", 1): (84, None), ("u", 0): (84, None)})
    rc, out, _ = run(["--bootstrap-server", "b:9092", "--election-type", "preferred",
                      "--all-topic-partitions"], admin, capsys)
    assert (rc, out) == (0, "Successfully completed leader election (PREFERRED) for partitions t-0\n")


@pytest.mark.parametrize("args,message", [
    (["--bootstrap-server", "b", "--topic", "t", "--partition", "0"], "Missing required option(s): election-type"),
    (["--election-type", "preferred", "--all-topic-partitions"], "Missing required option(s): bootstrap-server"),
    (["--bootstrap-server", "b", "--election-type", "preferred", "--topic", "t", "--all-topic-partitions"],
     "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file"),
    (["--bootstrap-server", "b", "--election-type", "preferred", "--topic", "t"],
     "Missing required option(s): partition"),
    (["--bootstrap-server", "b", "--election-type", "preferred", "--all-topic-partitions", "--partition", "1"],
     "Option partition is only allowed if topic is used"),
    (["--bootstrap-server", "b", "--election-type", "best", "--all-topic-partitions"],
     "No enum constant org.apache.kafka.common.ElectionType.BEST"),
])
def test_option_rules(args, message, capsys):
    rc, out, err = run(args, FakeAdmin({}), capsys)
    assert (rc, out, err) == (1, "", message + "\n")


def test_duplicate_partitions_in_the_json_file():
    with pytest.raises(le.AdminCommandFailedException, match="duplicate partitions: t-0"):
        le.parse_election_json('{"partitions": [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 0}]}')
