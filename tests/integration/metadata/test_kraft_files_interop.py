"""KRaft's files on disk between Apache Kafka 4.4 and this project, both ways: an Apache node
comes up on directories our kafka-storage formatted, our readers decode every record of a
running Apache node's __cluster_metadata-0 log segments and snapshots, and Apache's
kafka-dump-log decodes a snapshot and a log segment we wrote."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.integration.scripts.tools import run_script
from tests.support.kafka_dist import ReferenceKafka, random_cluster_id, run_tool
from tests.support.ports import free_ports

from kafpy.metadata.bootstrap import bootstrap_snapshot_path, read_bootstrap_snapshot
from kafpy.metadata.meta_properties import load_ensemble
from kafpy.metadata.record_serde import ApiMessageAndVersion, build_metadata_batch, read_metadata_batches, read_record
from kafpy.protocol.messages import (
    FeatureLevelRecord,
    LeaderChangeMessage,
    PartitionRecord,
    RegisterBrokerRecord,
    TopicRecord,
)
from kafpy.raft.control_records import ControlRecordType, build_control_record_batch
from kafpy.raft.snapshot import parse_snapshot_path, read_snapshot

TOPIC_ID = bytes(range(1, 17))


def _batch_validity(dump: str) -> list[str]:
    """The CRC verdict kafka-dump-log gives each batch."""
    return [line[line.index("isvalid:"):] for line in dump.splitlines() if line.startswith("baseOffset:")]


def _write_config(ref: ReferenceKafka) -> None:
    ref.work_dir.mkdir(parents=True, exist_ok=True)
    ref.config_path.write_text("".join(f"{k}={v}\n" for k, v in ref.properties().items()))


@pytest.mark.parametrize("dynamic", [True, False], ids=["standalone", "static-voters"])
def test_apache_starts_on_directories_we_formatted(tmp_path: Path, dynamic: bool) -> None:
    port, controller_port = free_ports(2)
    overrides: dict[str, object] = {}
    if dynamic:
        overrides = {"controller.quorum.voters": "",
                     "controller.quorum.bootstrap.servers": f"127.0.0.1:{controller_port}"}
    ref = ReferenceKafka("4", port=port, controller_port=controller_port, work_dir=tmp_path / "ref",
                         overrides=overrides, formatted=True)
    ref.cluster_id = random_cluster_id()
    _write_config(ref)
    formatted = run_script("kafka-storage", "format", "-t", ref.cluster_id, "-c", str(ref.config_path),
                           *(["--standalone"] if dynamic else []))
    assert formatted.returncode == 0, formatted.stderr
    info = run_tool("4", "kafka-storage", ["info", "-c", str(ref.config_path)])
    assert f"cluster.id={ref.cluster_id}" in info.stdout
    try:
        ref.start()
        described = run_tool("4", "kafka-metadata-quorum", ["--bootstrap-server", ref.bootstrap, "describe",
                                                            "--status"])
        assert f"ClusterId:              {ref.cluster_id}" in described.stdout, described.stdout
        assert "LeaderId:               1" in described.stdout
        created = run_tool("4", "kafka-topics", ["--bootstrap-server", ref.bootstrap, "--create", "--topic",
                                                 "interop", "--partitions", "2"])
        assert "Created topic interop." in created.stdout
    finally:
        ref.stop()
    # Apache kept our meta.properties (cluster id, node id, directory ids) as they were
    ensemble = load_ensemble([str(ref.log_dir)], str(ref.work_dir / "metadata"))
    ensemble.verify_for_kraft_start(1)
    assert ensemble.cluster_id() == ref.cluster_id


def _wait_for_snapshot(directory: Path, newer_than: float, timeout: float = 90.0) -> list[Path]:
    """The snapshots Apache wrote (not the bootstrap one), once one was written after ``newer_than``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snaps = sorted((p for p in directory.glob("*.checkpoint") if (parsed := parse_snapshot_path(p)) and
                        parsed.snapshot_id.end_offset > 0), key=lambda p: p.name)
        if snaps and snaps[-1].stat().st_mtime > newer_than:
            return snaps
        time.sleep(0.5)
    raise AssertionError(f"Apache Kafka wrote no snapshot in {directory} within {timeout}s: "
                         f"{sorted(p.name for p in directory.iterdir())}")


def test_we_read_a_running_apache_nodes_metadata_log_and_snapshot(tmp_path: Path) -> None:
    ref = ReferenceKafka("4", work_dir=tmp_path / "ref",
                         overrides={"metadata.log.max.snapshot.interval.ms": 1000,
                                    "metadata.max.idle.interval.ms": 100})
    partition_dir = ref.work_dir / "metadata" / "__cluster_metadata-0"
    try:
        ref.start()
        run_tool("4", "kafka-topics", ["--bootstrap-server", ref.bootstrap, "--create", "--topic", "seen",
                                       "--partitions", "3"])
        created = time.time()
        snapshots = _wait_for_snapshot(partition_dir, newer_than=created + 1.0)
    finally:
        ref.stop()
    log_records: list[ApiMessageAndVersion] = []
    control_types: set[ControlRecordType] = set()
    segments = sorted(partition_dir.glob("*.log"))
    assert segments
    for segment in segments:
        for batch in read_metadata_batches(segment.read_bytes()):
            log_records.extend(batch.records)
            control_types.update(c.type for c in batch.control_records)
    assert ControlRecordType.LEADER_CHANGE in control_types
    leader_changes = [c.message for seg in segments for b in read_metadata_batches(seg.read_bytes())
                      for c in b.control_records if isinstance(c.message, LeaderChangeMessage)]
    assert leader_changes and leader_changes[0].leader_id == 1
    messages = [r.message for r in log_records]
    assert any(isinstance(m, RegisterBrokerRecord) and m.broker_id == 1 for m in messages)
    assert any(isinstance(m, TopicRecord) and m.name == "seen" for m in messages)
    assert sum(isinstance(m, PartitionRecord) for m in messages) >= 3
    for path in snapshots:
        snap = read_snapshot(path, read_record)
        names = {type(r.message).__name__ for r in snap.records}
        assert "FeatureLevelRecord" in names, names
        assert snap.header.last_contained_log_timestamp > 0
    latest = read_snapshot(snapshots[-1], read_record)
    assert any(isinstance(r.message, TopicRecord) and r.message.name == "seen" for r in latest.records)
    assert any(isinstance(r.message, RegisterBrokerRecord) for r in latest.records)
    # the bootstrap snapshot Apache's own format wrote reads too
    boot, kraft_version, _voters = read_bootstrap_snapshot(ref.work_dir / "metadata")
    assert kraft_version == 0 and boot.metadata_version_level == 33


def test_apache_dump_log_decodes_what_we_wrote(tmp_path: Path) -> None:
    config = tmp_path / "server.properties"
    config.write_text("process.roles=broker,controller\nnode.id=1\n"
                      "controller.quorum.bootstrap.servers=127.0.0.1:19093\n"
                      "listeners=PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093\n"
                      "controller.listener.names=CONTROLLER\n"
                      f"log.dirs={tmp_path}/data\nmetadata.log.dir={tmp_path}/meta\n")
    assert run_script("kafka-storage", "format", "-t", random_cluster_id(), "-c", str(config),
                      "--standalone").returncode == 0
    snapshot = bootstrap_snapshot_path(tmp_path / "meta")
    dumped = run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", str(snapshot)])
    assert '"name":"metadata.version","featureLevel":33' in dumped.stdout, dumped.stdout
    assert "KRaftVersion" in dumped.stdout and "SnapshotFooter" in dumped.stdout, dumped.stdout
    assert '"host":"127.0.0.1","port":19093' in dumped.stdout, dumped.stdout
    assert _batch_validity(dumped.stdout) == ["isvalid: true"] * 3, dumped.stdout

    segment_dir = tmp_path / "segment" / "__cluster_metadata-0"
    segment_dir.mkdir(parents=True)
    now = int(time.time() * 1000)
    blob = build_control_record_batch(
        LeaderChangeMessage(leader_id=1, voters=[LeaderChangeMessage.Voter(voter_id=1)],
                            granting_voters=[LeaderChangeMessage.Voter(voter_id=1)]),
        base_offset=0, timestamp=now, leader_epoch=1)
    blob += build_metadata_batch([
        ApiMessageAndVersion(FeatureLevelRecord(name="metadata.version", feature_level=33), 0),
        ApiMessageAndVersion(TopicRecord(name="ours", topic_id=TOPIC_ID), 0),
        ApiMessageAndVersion(PartitionRecord(partition_id=0, topic_id=TOPIC_ID, replicas=[1], isr=[1], leader=1,
                                             leader_epoch=0, partition_epoch=0), 0),
    ], base_offset=1, append_time=now, leader_epoch=1)
    segment = segment_dir / "00000000000000000000.log"
    segment.write_bytes(blob)
    dumped = run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", str(segment)])
    assert "LeaderChange" in dumped.stdout and '"leaderId":1' in dumped.stdout, dumped.stdout
    assert '"name":"ours"' in dumped.stdout and "PARTITION_RECORD" in dumped.stdout, dumped.stdout
    assert _batch_validity(dumped.stdout) == ["isvalid: true"] * 2, dumped.stdout
    assert read_metadata_batches(segment.read_bytes())[1].records[1].message == TopicRecord(name="ours",
                                                                                            topic_id=TOPIC_ID)
