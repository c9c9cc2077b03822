"""kafka-topics: checks, messages and the describe layout, against a stand-in admin."""
import io

import pytest

from kafpy.scripts import kafka_topics as kt
from kafpy.scripts._cli import UsageExit
from tests.unit.scripts.fakes import FakeAdmin

CONFIGS = {"my-topic": {
    "segment.bytes": {"value": "1073741824", "config_source": "STATIC_BROKER_CONFIG"},
    "retention.ms": {"value": "604800000", "config_source": "DEFAULT_CONFIG"},
    "cleanup.policy": {"value": "compact", "config_source": "DYNAMIC_TOPIC_CONFIG"},
}}


def run(args, admin):
    out = io.StringIO()
    code = kt.run(args + ["--bootstrap-server", "h:9092"], admin_factory=lambda b, c: admin, out=out)
    return code, out.getvalue()


def test_create_prints_kafka_message_and_sends_settings():
    admin = FakeAdmin()
    code, out = run(["--create", "--topic", "my-topic", "--partitions", "13",
                     "--replication-factor", "1", "--config", "retention.ms=1000"], admin)
    assert (code, out) == (0, "Created topic my-topic.\n")
    assert admin.calls[0] == ("create_topics", {"my-topic": {
        "configs": {"retention.ms": "1000"}, "num_partitions": 13, "replication_factor": 1}})
    assert admin.closed


def test_create_existing_topic_and_if_not_exists():
    admin = FakeAdmin({"my-topic": 1})
    code, out = run(["--create", "--topic", "my-topic"], admin)
    assert (code, out) == (1, "Error while executing topic command : Topic 'my-topic' already exists.\n")
    assert run(["--create", "--topic", "my-topic", "--if-not-exists"], admin) == (0, "")


def test_create_defaults_to_cluster_settings_and_warns_on_collision_chars():
    admin = FakeAdmin()
    code, out = run(["--create", "--topic", "a.b"], admin)
    assert out.splitlines() == [
        "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore "
        "('_') could collide. To avoid issues it is best to use either, but not both.",
        "Created topic a.b."]
    assert admin.calls[0][1]["a.b"]["num_partitions"] == -1
    assert admin.calls[0][1]["a.b"]["replication_factor"] == -1


def test_list_sorted_with_regex_and_internal_filter():
    admin = FakeAdmin({"b": 1, "a": 1, "__consumer_offsets": 50, "my-topic": 2})
    assert run(["--list"], admin)[1] == "__consumer_offsets\na\nb\nmy-topic\n"
    assert run(["--list", "--exclude-internal"], admin)[1] == "a\nb\nmy-topic\n"
    assert run(["--list", "--topic", "my.*,a"], admin)[1] == "a\nmy-topic\n"


def test_describe_layout_of_kafka_3_9():
    admin = FakeAdmin({"my-topic": 2}, configs=CONFIGS, api_keys=(3,))
    code, out = run(["--describe", "--topic", "my-topic"], admin)
    assert code == 0
    assert out == (
        "Topic: my-topic\tTopicId: AAAAAAAAAAAAAAAAAAAAAQ\tPartitionCount: 2\tReplicationFactor: 1\t"
        "Configs: segment.bytes=1073741824,cleanup.policy=compact\n"
        "\tTopic: my-topic\tPartition: 0\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: N/A\tLastKnownElr: N/A\n"
        "\tTopic: my-topic\tPartition: 1\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: N/A\tLastKnownElr: N/A\n")


def test_describe_missing_topic():
    admin = FakeAdmin({"x": 1})
    assert run(["--describe", "--topic", "nope"], admin) == (
        1, "Error while executing topic command : Topic 'nope' does not exist as expected\n")
    assert run(["--describe", "--topic", "nope", "--if-exists"], admin) == (0, "")


def test_partition_line_without_leader_and_with_elr():
    assert kt.partition_line("t", 3, -1, [1, 2], [], [2], []) == (
        "\tTopic: t\tPartition: 3\tLeader: none\tReplicas: 1,2\tIsr: \tElr: 2\tLastKnownElr: ")


def test_under_replicated_filter_prints_only_those_partitions():
    admin = FakeAdmin({"t": 2}, api_keys=(3,))
    orig = admin.describe_topics

    def describe(topics=None):
        res = orig(topics)
        for p in res[0]["partitions"]:
            if p["partition_index"] == 1:
                p["replica_nodes"], p["isr_nodes"] = [0, 1], [0]
        return res
    admin.describe_topics = describe
    code, out = run(["--describe", "--under-replicated-partitions"], admin)
    assert out == ("\tTopic: t\tPartition: 1\tLeader: 0\tReplicas: 0,1\tIsr: 0\tElr: N/A"
                   "\tLastKnownElr: N/A\n")


def test_alter_partitions_and_error_from_broker():
    admin = FakeAdmin({"t": 2})
    assert run(["--alter", "--topic", "t", "--partitions", "5"], admin) == (0, "")
    assert admin.topics["t"] == 5
    assert run(["--alter", "--topic", "t", "--partitions", "5"], admin) == (
        1, "Error while executing topic command : Topic already has 5 partition(s).\n")


def test_delete_by_regex():
    admin = FakeAdmin({"t1": 1, "t2": 1, "x": 1})
    assert run(["--delete", "--topic", "t.*"], admin) == (0, "")
    assert admin.calls == [("delete_topics", ["t1", "t2"])]


@pytest.mark.parametrize("args, message", [
    (["--list", "--describe"], "Command must include exactly one action: --list, --describe, "
                               "--create, --alter or --delete"),
    (["--create"], 'Missing required argument "[topic]"'),
    (["--alter", "--topic", "t"], 'Missing required argument "[partitions]"'),
    (["--list", "--partitions", "3"], 'Option "[partitions]" can\'t be used with option "[list]"'),
    (["--create", "--topic", "t", "--if-exists"], 'Option "[if-exists]" can\'t be used with option "[create]"'),
])
def test_argument_errors_print_usage(args, message, capsys):
    with pytest.raises(UsageExit) as e:
        run(args, FakeAdmin())
    assert e.value.code == 1
    assert capsys.readouterr().err.startswith(message + "\n")


def test_no_bootstrap_server(capsys):
    assert kt.run(["--list"], admin_factory=lambda b, c: FakeAdmin()) == 1
    assert "--bootstrap-server" in capsys.readouterr().err


def test_replica_assignment_parsing():
    assert kt.parse_replica_assignment("0:1,1:2") == {0: [0, 1], 1: [1, 2]}
    with pytest.raises(kt.CommandError, match="duplicate entries: 1"):
        kt.parse_replica_assignment("1:1")
    with pytest.raises(kt.CommandError, match="Partition 1 has different replication factor"):
        kt.parse_replica_assignment("0:1,2")
