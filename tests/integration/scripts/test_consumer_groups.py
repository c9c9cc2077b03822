"""kafka-consumer-groups against our broker: a group that consumed, then describe, reset
(dry run and execute), delete offsets, delete the group."""
from __future__ import annotations

from tests.integration.scripts.tools import run_script


def test_group_lifecycle(broker):
    b = broker.bootstrap
    assert run_script("kafka-topics", "--create", "--bootstrap-server", b, "--topic", "gt",
                      "--partitions", "2").returncode == 0
    assert run_script("kafka-console-producer", "--bootstrap-server", b, "--topic", "gt",
                      "--property", "parse.key=true", input="a\t1\nb\t2\nc\t3\nd\t4\n").returncode == 0
    consumed = run_script("kafka-console-consumer", "--bootstrap-server", b, "--topic", "gt",
                          "--group", "lab-group", "--from-beginning", "--max-messages", "4")
    assert sorted(consumed.stdout.split()) == ["1", "2", "3", "4"], consumed.stderr

    listed = run_script("kafka-consumer-groups", "--bootstrap-server", b, "--list")
    assert "lab-group" in listed.stdout.splitlines(), listed.stdout + listed.stderr

    described = run_script("kafka-consumer-groups", "--bootstrap-server", b, "--describe",
                           "--group", "lab-group")
    assert described.returncode == 0, described.stdout + described.stderr
    assert "Consumer group 'lab-group' has no active members." in described.stderr
    lines = described.stdout.splitlines()
    assert lines[0] == "" and lines[1].split() == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET",
                                                   "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST",
                                                   "CLIENT-ID"]
    rows = {int(r.split()[2]): r.split() for r in lines[2:]}
    assert sorted(rows) == [0, 1]
    assert sum(int(r[3]) for r in rows.values()) == 4           # all consumed and committed
    assert all(r[3] == r[4] and r[5] == "0" and r[6:] == ["-", "-", "-"] for r in rows.values())

    dry = run_script("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group",
                     "lab-group", "--topic", "gt", "--to-earliest", "--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert [l.split() for l in dry.stdout.splitlines()[2:]] == \
        [["lab-group", "gt", p, "0"] for p in ("1", "0")]     # Java HashMap order
    again = run_script("kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--group",
                       "lab-group")
    assert sum(int(r.split()[3]) for r in again.stdout.splitlines()[2:]) == 4  # dry run changed nothing

    run = run_script("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group",
                     "lab-group", "--all-topics", "--to-earliest", "--execute")
    assert run.returncode == 0, run.stdout + run.stderr
    after = run_script("kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--group",
                       "lab-group")
    assert [r.split()[3] for r in after.stdout.splitlines()[2:]] == ["0", "0"]
    replay = run_script("kafka-console-consumer", "--bootstrap-server", b, "--topic", "gt",
                        "--group", "lab-group", "--max-messages", "4")
    assert sorted(replay.stdout.split()) == ["1", "2", "3", "4"]

    state = run_script("kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--group",
                       "lab-group", "--state")
    assert state.stdout.splitlines()[1].split() == ["GROUP", "COORDINATOR", "(ID)",
                                                    "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"]
    assert state.stdout.splitlines()[2].split()[-2:] == ["Empty", "0"]

    deleted_offsets = run_script("kafka-consumer-groups", "--bootstrap-server", b,
                                 "--delete-offsets", "--group", "lab-group", "--topic", "gt:0")
    assert deleted_offsets.stdout.splitlines()[0] == \
        "Request succeeded for deleting offsets from group lab-group.", deleted_offsets.stdout
    assert deleted_offsets.stdout.splitlines()[-1].split() == ["gt", "0", "Successful"]

    deleted = run_script("kafka-consumer-groups", "--bootstrap-server", b, "--delete", "--group",
                         "lab-group")
    assert deleted.stdout == "Deletion of requested consumer groups ('lab-group') was successful.\n", \
        deleted.stdout + deleted.stderr
    gone = run_script("kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--group",
                      "lab-group")
    assert gone.stdout == "\nError: Consumer group 'lab-group' does not exist.\n"
