"""kafka-streams-groups --reset-offsets and --delete-offsets against a stand-in client:
the scope (input topics of the topology, partitions with committed offsets), the
scenarios with the log's range, --dry-run against --execute, a group with members
refused, OffsetDelete's status table, and the usage errors of Apache 4.4's tool."""
from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from kafpy.protocol.errors import ErrorCode as E
from kafpy.scripts import kafka_streams_groups
from kafpy.scripts._cli import UsageExit
from kafpy.scripts.streams_group_offsets import StreamsOffsetsResetter, delete_offsets, print_reset


class FakeClient:
    """One Streams group reading topic "in" (2 partitions, offsets 10..100) and its
    repartition topic; committed: in-0 at 50, in-1 at 60."""

    def __init__(self, state: str = "Empty") -> None:
        self.state = state
        self.committed_offsets = {("in", 0): 50, ("in", 1): 60, ("app-rep", 0): 5}
        self.altered: dict = {}
        self.deleted: list = []
        sub = SimpleNamespace(source_topics=["in"], repartition_source_topics=[],
                              state_changelog_topics=[])
        self.description = SimpleNamespace(error_code=E.NONE, error_message=None,
                                           group_state=state,
                                           topology=SimpleNamespace(subtopologies=[sub]))

    def describe(self, group):
        return self.description, "host:9092 (0)"

    def list_groups(self):
        return [("app", self.state)]

    def committed(self, group):
        return dict(self.committed_offsets)

    def log_offsets(self, tps, ts):
        return {tp: {-2: 10, -1: 100}.get(ts, 70) for tp in tps}

    def partitions(self, topics):
        known = {"in": [("in", 0), ("in", 1)]}
        return ([tp for t in topics for tp in known.get(t, [])],
                {t: E.UNKNOWN_TOPIC_OR_PARTITION for t in topics if t not in known})

    def alter_offsets(self, group, offsets):
        self.altered.update(offsets)
        self.committed_offsets.update(offsets)
        return {tp: E.NONE for tp in offsets}

    def delete_offsets(self, group, tps):
        self.deleted += tps
        return E.NONE, {tp: E.NONE for tp in tps}


def _reset(client, *args):
    parser = kafka_streams_groups.build_parser()
    o = parser.parse_or_usage(["--bootstrap-server", "x", "--group", "app", "--reset-offsets",
                               *args])
    out, err = io.StringIO(), io.StringIO()
    print_reset(o, StreamsOffsetsResetter(client, parser, o, out, err).run(), out)
    return out.getvalue(), err.getvalue()


def test_dry_run_plans_the_input_topics_without_committing():
    client = FakeClient()
    out, _ = _reset(client, "--all-input-topics", "--to-earliest", "--dry-run")
    lines = out.splitlines()
    assert lines[0] == "" and lines[1].split() == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"]
    assert lines[1].startswith("GROUP" + " " * 26 + "TOPIC")      # Kafka's %-30s columns
    assert sorted(ln.split() for ln in lines[2:]) == [["app", "in", "0", "10"], ["app", "in", "1", "10"]]
    assert client.altered == {}                                   # the repartition topic is not an input


def test_execute_commits_and_keeps_within_the_log():
    client = FakeClient()
    out, err = _reset(client, "--input-topic", "in:1", "--shift-by", "100", "--execute")
    assert client.altered == {("in", 1): 100}
    assert "WARN New offset (160) is higher than latest offset for topic partition in-1. " \
           "Value will be set to 100" in err
    assert out.splitlines()[2].split() == ["app", "in", "1", "100"]


def test_a_group_with_members_is_not_reset():
    client = FakeClient("Stable")
    out, _ = _reset(client, "--all-input-topics", "--to-latest", "--execute")
    assert "Error: Assignments can only be reset if the group 'app' is inactive, but the " \
           "current state is Stable." in out
    assert client.altered == {}


def test_partitions_without_committed_offsets_are_not_part_of_the_group():
    client = FakeClient()
    client.committed_offsets.pop(("in", 1))
    out, _ = _reset(client, "--input-topic", "in", "--to-offset", "20", "--execute")
    assert "Error: One or more topics are not part of the group 'app'." in out
    assert client.altered == {}


def test_delete_offsets_reports_every_partition():
    client = FakeClient()
    parser = kafka_streams_groups.build_parser()
    o = parser.parse_or_usage(["--bootstrap-server", "x", "--group", "app", "--delete-offsets",
                               "--input-topic", "in", "--input-topic", "gone"])
    out = io.StringIO()
    assert delete_offsets(client, parser, o, out) == 0
    text = out.getvalue()
    assert "Error: Encountered some partition-level error, see the follow-up details." in text
    rows = [ln.rstrip().split(None, 2) for ln in text.splitlines()[3:]]
    assert rows[0] == ["TOPIC", "PARTITION", "STATUS"]
    assert rows[1][:2] == ["gone", "-"] and rows[1][2].startswith("Error: ")
    assert rows[2:] == [["in", "0", "Successful"], ["in", "1", "Successful"]]
    assert client.deleted == [("in", 0), ("in", 1)]


@pytest.mark.parametrize("args, message", [
    (["--reset-offsets", "--group", "g", "--to-earliest", "--all-input-topics"],
     "Option [reset-offsets] takes the option: [execute] or [dry-run]"),
    (["--reset-offsets", "--group", "g", "--to-earliest", "--dry-run", "--execute"],
     "Option [reset-offsets] only accepts one of [execute] and [dry-run]"),
    (["--reset-offsets", "--to-earliest", "--dry-run"],
     "Option [reset-offsets] takes one of these options: [all-groups], [group]"),
    (["--list", "--delete-offsets", "--group", "g"],
     "Command must include exactly one action: --list, --describe, --delete, --reset-offsets, "
     "or --delete-offsets."),
])
def test_usage_errors(args, message, capsys):
    with pytest.raises(UsageExit):
        kafka_streams_groups.run(["--bootstrap-server", "x", *args], io.StringIO())
    assert capsys.readouterr().err.startswith(message)
