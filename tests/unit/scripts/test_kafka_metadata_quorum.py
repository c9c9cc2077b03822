"""kafka-metadata-quorum's command line and output, without a cluster: the texts are
Apache Kafka 4.4's MetadataQuorumCommand's (the integration tests compare them with the
Java tool's against real quorums)."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from kafpy.metadata.meta_properties import MetaProperties, uuid_to_string, write_meta_properties
from kafpy.protocol import messages
from kafpy.scripts import kafka_metadata_quorum as mq

R = messages.DescribeQuorumResponse
D1 = bytes(range(16))
D2 = bytes(range(16, 32))


def _quorum() -> R.PartitionData:
    return R.PartitionData(
        leader_id=1, leader_epoch=3, high_watermark=120,
        current_voters=[R.ReplicaState(replica_id=1, replica_directory_id=D1, log_end_offset=120,
                                       last_fetch_timestamp=1000, last_caught_up_timestamp=1000),
                        R.ReplicaState(replica_id=2, replica_directory_id=D2, log_end_offset=100,
                                       last_fetch_timestamp=990, last_caught_up_timestamp=900)],
        observers=[R.ReplicaState(replica_id=7, log_end_offset=110, last_fetch_timestamp=-1,
                                  last_caught_up_timestamp=-1)])


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = mq.run(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_status_text_as_kafka_prints_it() -> None:
    nodes = [R.Node(node_id=1, listeners=[R.Listener(name="CONTROLLER", host="localhost", port=9093)]),
             R.Node(node_id=2, listeners=[R.Listener(name="CONTROLLER", host="::1", port=9094)])]
    text = mq.format_status("abc", _quorum(), nodes)
    assert text == (
        "ClusterId:              abc\n"
        "LeaderId:               1\n"
        "LeaderEpoch:            3\n"
        "HighWatermark:          120\n"
        "MaxFollowerLag:         20\n"
        "MaxFollowerLagTimeMs:   100\n"
        f'CurrentVoters:          [{{"id": 1, "directoryId": "{uuid_to_string(D1)}", '
        f'"endpoints": ["CONTROLLER://localhost:9093"]}}, {{"id": 2, "directoryId": "{uuid_to_string(D2)}", '
        '"endpoints": ["CONTROLLER://[::1]:9094"]}]\n'
        'CurrentObservers:       [{"id": 7}]\n')


def test_replication_table_pads_cells_and_ends_each_with_a_tab() -> None:
    text = mq.format_replication(_quorum(), human_readable=False)
    lines = text.splitlines()
    assert lines[0] == ("NodeId\tDirectoryId           \tLogEndOffset\tLag\tLastFetchTimestamp\t"
                        "LastCaughtUpTimestamp\tStatus  \t")
    assert lines[1] == (f"1     \t{uuid_to_string(D1)}\t120         \t0  \t1000              \t"
                        "1000                 \tLeader  \t")
    assert lines[2].split("\t")[0:4] == ["2     ", uuid_to_string(D2), "100         ", "20 "]
    assert lines[3].split("\t")[1] == "AAAAAAAAAAAAAAAAAAAAAA"
    assert lines[3].split("\t")[4].strip() == "-1" and lines[3].split("\t")[6].strip() == "Observer"


def test_human_readable_times_are_relative_to_now() -> None:
    text = mq.format_replication(_quorum(), human_readable=True, now_ms=lambda: 1500)
    leader = text.splitlines()[1].split("\t")
    assert leader[4] == "500 ms ago        " and leader[5].strip() == "500 ms ago"
    with pytest.raises(mq.TerseFailure, match="possible drift in system clock"):
        mq.format_replication(_quorum(), human_readable=True, now_ms=lambda: 10)


def test_describe_needs_exactly_one_of_status_or_replication() -> None:
    base = ["--bootstrap-server", "localhost:1", "describe"]
    assert _run(base) == (1, "", "One of --status or --replication must be specified with describe sub-command\n")
    assert _run(base + ["--status", "--replication"])[2] == (
        "Only one of --status or --replication should be specified with describe sub-command\n")
    assert _run(base + ["--status", "--human-readable"])[2] == (
        "The option --human-readable is only supported along with --replication\n")


def test_command_line_errors_print_usage_and_argparse_message() -> None:
    code, out, err = _run(["describe", "--status"])
    assert code == 1 and err.startswith(mq.MAIN_USAGE)
    # argparse4j justifies the line to 75 columns and may break after a hyphen
    assert err.endswith("kafka-metadata-quorum: error: one  of  the  arguments --bootstrap-server --\n"
                        "bootstrap-controller is required\n")
    code, _, err = _run(["--bootstrap-server", "a:1", "--bootstrap-controller", "b:1", "describe"])
    assert " ".join(err.split()).endswith(
        "error: argument --bootstrap-controller: not allowed with argument --bootstrap-server")
    code, _, err = _run(["--bootstrap-server", "a:1", "remove-controller", "-d", "x"])
    assert code == 1 and err.startswith(mq.REMOVE_USAGE) and "argument --controller-id/-i is required" in err
    code, _, err = _run(["--bootstrap-server", "a:1", "frob"])
    assert "error: invalid choice: 'frob' (choose from 'describe'," in " ".join(err.split())
    code, out, _ = _run(["--help"])
    assert code == 0 and out == mq.MAIN_HELP


def test_remove_controller_checks_its_arguments_before_sending() -> None:
    base = ["--bootstrap-server", "localhost:1", "remove-controller"]
    assert _run(base + ["-i", "-3", "-d", "x"])[1:] == ("", "Invalid negative --controller-id: -3\n")
    code, _, err = _run(base + ["--controller-id=-3", "-d", uuid_to_string(D1)])
    assert (code, err) == (1, "Invalid negative --controller-id: -3\n")
    code, _, err = _run(base + ["-i", "3", "-d", "short"])
    assert err.startswith("Failed to parse --controller-directory-id: Input string `short` decoded as")
    code, out, _ = _run(base + ["-i", "3", "-d", uuid_to_string(D1), "--dry-run"])
    assert (code, out) == (0, f"DRY RUN of removing KRaft controller 3 with directory id {uuid_to_string(D1)}\n")


def _controller_config(tmp_path: Path, extra: str = "") -> Path:
    logs = tmp_path / "meta"
    logs.mkdir()
    write_meta_properties(logs, MetaProperties(1, "cid", 4, uuid_to_string(D2)))
    cfg = tmp_path / "controller.properties"
    cfg.write_text("process.roles=controller\nnode.id=4\n"
                   f"metadata.log.dir={logs}\ncontroller.listener.names=CONTROLLER\n"
                   "listeners=CONTROLLER://:9095\n" + extra)
    return cfg


def test_add_controller_reads_the_controllers_own_properties(tmp_path: Path) -> None:
    cfg = _controller_config(tmp_path, "advertised.listeners=CONTROLLER://ctl-4:9096\n")
    code, out, err = _run(["--bootstrap-controller", "localhost:1", "--command-config", str(cfg),
                           "add-controller", "--dry-run"])
    assert (code, err) == (0, "")
    assert out == f"DRY RUN of adding controller 4 with directory id {uuid_to_string(D2)} and endpoints: " \
                  "CONTROLLER://ctl-4:9096\n"


def test_add_controller_refuses_what_is_not_a_controller_configuration(tmp_path: Path) -> None:
    base = ["--bootstrap-controller", "localhost:1"]
    assert _run(base + ["add-controller"])[2] == (
        "You must supply the configuration file of the controller you are adding when using add-controller.\n")
    assert _run(base + ["--command-config", str(tmp_path / "none"), "add-controller"])[2] == (
        f"Properties file {tmp_path / 'none'} does not exist.\n")
    cfg = tmp_path / "broker.properties"
    cfg.write_text("process.roles=broker\nnode.id=4\n")
    assert _run(base + ["--command-config", str(cfg), "add-controller"])[2] == (
        "process.roles did not contain 'controller' in configuration file. Is this a valid controller "
        "configuration file?\n")
    cfg.write_text("process.roles=controller\nnode.id=4\nlog.dirs=" + str(tmp_path / "empty") + "\n")
    assert _run(base + ["--command-config", str(cfg), "add-controller"])[2] == (
        f"Unable to read meta.properties from {tmp_path / 'empty'}\n")
    cfg = _controller_config(tmp_path, "controller.listener.names=OTHER\n")
    assert _run(base + ["--command-config", str(cfg), "add-controller", "--dry-run"])[2] == (
        "Cannot find information about controller listener name: OTHER\n")
