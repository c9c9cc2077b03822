"""kafka-consumer-groups: checks, column layout, Java's row order, offset resets."""
import io

import pytest

from kafpy.scripts import kafka_consumer_groups as kcg
from kafpy.scripts.consumer_group import reset_offsets
from kafpy.scripts._cli import UsageExit
from kafpy.scripts._clients import java_hashmap_order, java_string_hash, topic_partition_hash
from tests.unit.scripts.fakes import FakeAdmin

MEMBER = {"member_id": "consumer-1-abc", "client_id": "consumer-1", "client_host": "/127.0.0.1",
          "group_instance_id": None,
          "member_assignment": {"assigned_partitions": [{"topic": "t", "partitions": [0, 1]}]}}


def admin():
    return FakeAdmin(
        {"t": 3},
        groups={"g": {"group_id": "g", "group_state": "Stable", "members": [MEMBER],
                      "protocol_data": "range"},
                "idle": {"group_id": "idle", "group_state": "Empty", "members": [],
                         "protocol_data": ""}},
        committed={"g": {("t", 0): 3, ("t", 1): 5}, "idle": {("t", 0): 1, ("t", 2): 2}},
        end_offsets={("t", 0): 10, ("t", 1): 5, ("t", 2): 7},
        start_offsets={("t", 0): 2})


def run(args, a=None):
    out = io.StringIO()
    a = a or admin()
    code = kcg.run(["--bootstrap-server", "h:1"] + args, admin_factory=lambda b, c: a, out=out)
    return code, out.getvalue(), a


def test_java_hashmap_order_of_topic_partitions():
    """The order Kafka 3.9 printed for my-topic's 14 partitions."""
    tps = [("my-topic", p) for p in range(14)]
    assert [p for _, p in java_hashmap_order(tps, lambda k: topic_partition_hash(*k))] == \
        [12, 13, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]
    assert java_string_hash("hello") == 99162322


def test_list():
    assert run(["--list"])[1] == "g\nidle\n"


def test_list_with_state():
    code, out, _ = run(["--list", "--state", "empty"])
    assert out == "GROUP" + " " * 20 + " STATE               \nidle" + " " * 21 + " Empty               \n"


def test_describe_offsets_layout():
    """Rows sorted by topic and partition, as Kafka 4.x prints them."""
    code, out, _ = run(["--describe", "--group", "g"])
    head = "GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID"
    assert out == ("\n" + head +
                   "\ng               t               0          3               10              7               consumer-1-abc  /127.0.0.1      consumer-1"
                   "\ng               t               1          5               5               0               consumer-1-abc  /127.0.0.1      consumer-1\n")


def test_describe_empty_group_rows_without_consumer(capsys):
    code, out, _ = run(["--describe", "--group", "idle"])
    lines = out.splitlines()
    assert lines[2].split() == ["idle", "t", "0", "1", "10", "9", "-", "-", "-"]
    assert lines[3].split() == ["idle", "t", "2", "2", "7", "5", "-", "-", "-"]
    assert capsys.readouterr().err == "\nConsumer group 'idle' has no active members.\n"


def test_describe_missing_group():
    assert run(["--describe", "--group", "nope"])[1] == "\nError: Consumer group 'nope' does not exist.\n"


def test_describe_members_verbose():
    code, out, _ = run(["--describe", "--group", "g", "--members", "--verbose"])
    assert out.splitlines()[1:] == [
        "GROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     ASSIGNMENT",
        "g               consumer-1-abc  /127.0.0.1      consumer-1      2               (0,1)"]


def test_reset_needs_an_inactive_group():
    code, out, a = run(["--reset-offsets", "--group", "g", "--all-topics", "--to-earliest", "--execute"])
    assert "Error: Assignments can only be reset if the group 'g' is inactive, but the current " \
           "state is Stable." in out
    assert not [c for c in a.calls if c[0] == "alter_group_offsets"]


def test_reset_to_offset_dry_run_clamps_to_the_log():
    """Rows in Java HashMap order, as Kafka prints them: t-2 (bucket 3) before t-0 (bucket 5)."""
    code, out, a = run(["--reset-offsets", "--group", "idle", "--topic", "t:0,2", "--to-offset", "8",
                        "--dry-run"])
    assert out.splitlines()[1:] == [
        "GROUP                          TOPIC                          PARTITION  NEW-OFFSET     ",
        "idle                           t                              2          7              ",
        "idle                           t                              0          8              "]
    assert not [c for c in a.calls if c[0] == "alter_group_offsets"]


def test_reset_execute_commits_and_shift_by():
    code, out, a = run(["--reset-offsets", "--group", "idle", "--all-topics", "--shift-by", "-5",
                        "--execute"])
    assert ("alter_group_offsets", "idle", {("t", 0): 2, ("t", 2): 0}) in a.calls


def test_reset_export_csv():
    code, out, _ = run(["--reset-offsets", "--group", "idle", "--topic", "t", "--to-latest",
                        "--export", "--dry-run"])
    assert sorted(out.split()) == ["t,0,10", "t,1,5", "t,2,7"]


def test_delete_groups():
    assert run(["--delete", "--group", "idle"])[1] == \
        "Deletion of requested consumer groups ('idle') was successful.\n"
    out = run(["--delete", "--group", "g"])[1]
    assert out.startswith("\nError: Deletion of some consumer groups failed:\n* Group 'g' could not "
                          "be deleted due to: java.util.concurrent.ExecutionException: "
                          "org.apache.kafka.common.errors.GroupNotEmptyException:")


@pytest.mark.parametrize("args, message", [
    (["--describe"], "Option [describe] takes one of these options: [all-groups], [group]"),
    (["--list", "--describe"], "Command must include exactly one action: --list, --describe, "
                               "--delete, --reset-offsets, --delete-offsets"),
    (["--reset-offsets", "--group", "g", "--execute", "--dry-run"],
     "Option [reset-offsets] only accepts one of [execute] and [dry-run]"),
    (["--reset-offsets", "--group", "g", "--to-earliest", "--to-latest", "--dry-run"],
     'Option "[to-earliest]" can\'t be used with option "[to-latest]"'),
    (["--delete-offsets", "--group", "g"], "Option [delete-offsets] takes the following options: "
                                           "[topic], [group]"),
])
def test_argument_errors(args, message, capsys):
    with pytest.raises(UsageExit):
        run(args)
    assert capsys.readouterr().err.startswith(message + "\n")


def test_duration_and_datetime_parsing():
    assert reset_offsets.parse_duration_ms("PT1H") == 3_600_000
    assert reset_offsets.parse_duration_ms("P1DT2M3.5S") == 86_400_000 + 123_500
    assert reset_offsets.parse_datetime("2024-01-02T03:04:05.006Z") == 1704164645006
    assert reset_offsets.parse_datetime("2024-01-02T03:04:05+01:00") == 1704164645000 - 3_600_000
    with pytest.raises(ValueError):
        reset_offsets.parse_datetime("yesterday")
