"""kafka-reassign-partitions: JSON in and out, and each action's text, against a stand-in
admin client (describe_topics, describe_cluster, Alter/ListPartitionReassignments)."""
from __future__ import annotations

import io
import json

import kafka.errors as Errors
from kafka import TopicPartition

from kafpy.scripts import kafka_reassign_partitions as rp


class FakeAdmin:
    def __init__(self, assignment: dict[tuple[str, int], list[int]], ongoing=None) -> None:
        self.assignment = assignment
        self.ongoing = ongoing or {}
        self.altered: list[dict] = []

    def describe_topics(self, topics):
        out = []
        for t in topics:
            parts = [{"partition_index": p, "replica_nodes": r} for (tt, p), r in self.assignment.items() if tt == t]
            out.append({"name": t, "error_code": 0 if parts else 3, "partitions": parts})
        return out

    def describe_cluster(self):
        return {"brokers": [{"node_id": b, "rack": None} for b in (1, 2, 3)]}

    def list_partition_reassignments(self):
        return {TopicPartition(*tp): r for tp, r in self.ongoing.items()}

    def alter_partition_reassignments(self, reassignments):
        self.altered.append({(tp.topic, tp.partition): r for tp, r in reassignments.items()})
        return {tp: (Errors.for_code(39) if r == [9] else None) for tp, r in reassignments.items()}

    def close(self):
        pass


def run(args, admin, tmp_path, files=None):
    for name, content in (files or {}).items():
        (tmp_path / name).write_text(content)
    out = io.StringIO()
    rc = rp.run(["--bootstrap-server", "b:9092", *args], admin_factory=lambda _b, _c: admin, out=out)
    return rc, out.getvalue()


def reassignment(**parts) -> str:
    return json.dumps({"version": 1, "partitions": [
        {"topic": k.split("_")[0], "partition": int(k.split("_")[1]), "replicas": v} for k, v in parts.items()]})


def test_execute_prints_the_rollback_json_and_starts(tmp_path):
    admin = FakeAdmin({("t", 0): [1, 2], ("t", 1): [2, 3]})
    rc, out = run(["--execute", "--reassignment-json-file", str(tmp_path / "r.json")], admin, tmp_path,
                  {"r.json": reassignment(t_0=[2, 3], t_1=[3, 1])})
    assert rc == 0
    assert out == ("Current partition replica assignment\n\n"
                   '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any","any"]},'
                   '{"topic":"t","partition":1,"replicas":[2,3],"log_dirs":["any","any"]}]}\n\n'
                   "Save this to use as the --reassignment-json-file option during rollback\n"
                   "Successfully started partition reassignments for t-0,t-1\n")
    assert admin.altered == [{("t", 0): [2, 3], ("t", 1): [3, 1]}]


def test_execute_refuses_while_another_runs_and_reports_errors(tmp_path):
    busy = FakeAdmin({("t", 0): [1]}, ongoing={("t", 0): {"replicas": [1, 2], "adding_replicas": [2],
                                                          "removing_replicas": []}})
    rc, out = run(["--execute", "--reassignment-json-file", str(tmp_path / "r.json")], busy, tmp_path,
                  {"r.json": reassignment(t_0=[2])})
    assert rc == 1 and out.startswith("Cannot execute because there is an existing partition assignment.")
    rc, out = run(["--execute", "--reassignment-json-file", str(tmp_path / "r.json")], FakeAdmin({("t", 0): [1]}),
                  tmp_path, {"r.json": reassignment(t_0=[9])})
    assert rc == 1 and out.endswith("Error reassigning partition(s):\nt-0: "
                                    + Errors.for_code(39).description + "\n")


def test_verify_list_and_cancel(tmp_path):
    ongoing = {("t", 1): {"replicas": [3, 1, 2], "adding_replicas": [3], "removing_replicas": [2]}}
    admin = FakeAdmin({("t", 0): [2, 3], ("t", 1): [3, 1, 2], ("t", 2): [1]}, ongoing)
    files = {"r.json": reassignment(t_0=[2, 3], t_1=[3, 1], t_2=[2])}
    rc, out = run(["--verify", "--reassignment-json-file", str(tmp_path / "r.json")], admin, tmp_path, files)
    assert (rc, out.splitlines()) == (0, [
        "Status of partition reassignment:",
        "Reassignment of partition t-0 is completed.",
        "Reassignment of partition t-1 is still in progress.",
        "There is no active reassignment of partition t-2, but replica set is 1 rather than 2."])
    assert run(["--list"], admin, tmp_path) == (0, "Current partition reassignments:\n"
                                                    "t-1: replicas: 3,1,2. adding: 3. removing: 2.\n")
    rc, out = run(["--cancel", "--reassignment-json-file", str(tmp_path / "r.json")], admin, tmp_path)
    assert (rc, out) == (0, "Successfully cancelled partition reassignment for: t-1\n")
    assert admin.altered == [{("t", 1): None}]
    idle = FakeAdmin({("t", 0): [1]})
    assert run(["--list"], idle, tmp_path) == (0, "No partition reassignments found.\n")
    assert run(["--cancel", "--reassignment-json-file", str(tmp_path / "r.json")], idle, tmp_path) == (
        0, "None of the specified partition reassignments are active.\n")


def test_generate_spreads_over_the_given_brokers(tmp_path):
    admin = FakeAdmin({("t", 0): [1], ("t", 1): [1], ("t", 2): [1]})
    rc, out = run(["--generate", "--topics-to-move-json-file", str(tmp_path / "m.json"), "--broker-list", "2,3"],
                  admin, tmp_path, {"m.json": '{"topics": [{"topic": "t"}], "version": 1}'})
    lines = out.splitlines()
    assert rc == 0 and lines[0] == "Current partition replica assignment" and lines[3] == \
        "Proposed partition reassignment configuration"
    proposed = rp.parse_reassignment_json(lines[4])
    assert sorted(proposed) == [("t", 0), ("t", 1), ("t", 2)]
    assert all(len(r) == 1 and r[0] in (2, 3) for r in proposed.values())
    rc, out = run(["--generate", "--topics-to-move-json-file", str(tmp_path / "m.json"), "--broker-list", "2,7"],
                  admin, tmp_path)
    assert (rc, out) == (1, "The given broker list contains nonexistent brokers: 7\n")


def test_json_refusals():
    for text, message in [
        ('{"version":1,"partitions":[]}', "Partition reassignment list cannot be empty"),
        (reassignment(t_0=[1, 1]), "Found duplicate replicas in reassignment list for partition t-0: 1,1"),
        ('{"partitions":[{"topic":"t","partition":0,"replicas":[1]},{"topic":"t","partition":0,"replicas":[2]}]}',
         "Found duplicate partition in reassignment list: t-0"),
    ]:
        try:
            rp.parse_reassignment_json(text)
        except rp.TerseException as e:
            assert str(e) == message
        else:
            raise AssertionError(text)
