"""KafkaMetadataLog and Apache Kafka 4.4's ``__cluster_metadata-0``, both ways.

- A directory Apache's ``kafka-storage format`` left (the bootstrap snapshot ``0-0``, no
  segment) opens at offset 0 with that snapshot as its first, and takes appends.
- An Apache Kafka 4.4 node (KRaft, combined roles; a segment a second and a snapshot
  every 2 s) is formatted, gets topics, is stopped; KafkaMetadataLog opens its metadata log
  dir (recovery at open, the bootstrap snapshot ``0-0`` and Kafka's own snapshots) and reads
  every batch, the same batches ``kafka-dump-log --cluster-metadata-decoder`` prints.
- A log written by KafkaMetadataLog (a LeaderChange control batch, metadata batches, a
  snapshot) is read by Apache's ``kafka-dump-log --cluster-metadata-decoder``.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

from kafpy.metadata.record_serde import ApiMessageAndVersion, read_metadata_batches, read_record, write_record
from kafpy.protocol.messages import FeatureLevelRecord, PartitionRecord, TopicRecord
from kafpy.raft.control_records import ControlRecordType
from kafpy.raft.metadata_log import KafkaMetadataLog, MetadataLogConfig
from kafpy.raft.quorum_state_store import ReplicaKey
from kafpy.raft.snapshot import BOOTSTRAP_SNAPSHOT_ID, RecordsSnapshotWriter, SnapshotId, read_snapshot
from tests.support.kafka_dist import ReferenceKafka, run_tool
from tests.support.metadata_json import DumpedBatch, parse_dump

SEGMENT_MS = 1000
SETTINGS = {
    "metadata.log.segment.ms": SEGMENT_MS,  # several segments (Kafka refuses segment.bytes below 8 MiB)
    "metadata.log.max.snapshot.interval.ms": 2000,
}
TOPICS = [f"raftlog-{i}" for i in range(6)]


def _dump(paths: list[Path]) -> list[DumpedBatch]:
    files = ",".join(str(p) for p in paths)
    return parse_dump(run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", files]).stdout)


def _now_ms() -> int:
    return int(time.time() * 1000)


def test_reads_every_batch_of_a_log_apache_kafka_ran_in(tmp_path: Path) -> None:
    kafka = ReferenceKafka("4", work_dir=tmp_path / "kafka", overrides=SETTINGS)
    metadata_dir = kafka.work_dir / "metadata"
    partition_dir = metadata_dir / "__cluster_metadata-0"
    kafka.start()
    try:
        for name in TOPICS:
            kafka.run_tool("kafka-topics", ["--bootstrap-server", kafka.bootstrap, "--create", "--topic", name,
                                            "--partitions", "3", "--config", "retention.ms=12345"])
        before = set(partition_dir.glob("*.checkpoint"))  # the bootstrap one, maybe Kafka's
        deadline = time.monotonic() + 60
        while not set(partition_dir.glob("*.checkpoint")) - before:  # one that has every topic
            assert time.monotonic() < deadline, "Kafka wrote no snapshot"
            time.sleep(0.5)
    finally:
        kafka.stop()
    segments = sorted(partition_dir.glob("*.log"))
    assert len(segments) > 1, "expected several segments"
    dumped = _dump(segments)
    on_disk_snapshots = sorted(SnapshotId(int(p.name[:20]), int(p.name[21:31]))
                               for p in partition_dir.glob("*.checkpoint"))

    kafkas_partition_metadata = (partition_dir / "partition.metadata").read_bytes()
    mlog = KafkaMetadataLog(metadata_dir, MetadataLogConfig(segment_ms=SEGMENT_MS), now_ms=_now_ms)
    try:
        assert (partition_dir / "partition.metadata").read_bytes() == kafkas_partition_metadata
        fresh = KafkaMetadataLog(tmp_path / "fresh", now_ms=_now_ms)
        fresh.close()
        assert (fresh.dir / "partition.metadata").read_bytes() == kafkas_partition_metadata
        assert mlog.start_offset() == 0
        assert mlog.snapshot_ids() == on_disk_snapshots and on_disk_snapshots[0] == BOOTSTRAP_SNAPSHOT_ID
        assert len(mlog.log.segments) == len(segments)
        raw = bytearray()
        offset = mlog.start_offset()
        while offset < mlog.end_offset():
            chunk = mlog.read(offset, 1 << 16)
            batches = read_metadata_batches(chunk)
            assert batches and batches[0].base_offset == offset
            raw += chunk
            offset = batches[-1].last_offset + 1
        ours = read_metadata_batches(bytes(raw))
        assert [(b.base_offset, b.epoch, b.is_control, len(b.records)) for b in ours] == \
            [(b.base_offset, b.epoch, b.is_control, len(b.records)) for b in dumped]
        assert [r.message for b in ours for r in b.records] == [m for b in dumped for _o, m in b.records]
        assert mlog.end_offset() == ours[-1].last_offset + 1
        assert mlog.last_fetched_epoch() == ours[-1].epoch
        assert any(c.type is ControlRecordType.LEADER_CHANGE for b in ours for c in b.control_records)
        created = {r.message.name for b in ours for r in b.records if isinstance(r.message, TopicRecord)}
        assert set(TOPICS) <= created
        assert mlog.end_offset_for_epoch(ours[-1].epoch).offset == mlog.end_offset()
        latest = mlog.latest_snapshot()
        assert latest is not None
        snapshot = read_snapshot(latest.read_all(), read_record)
        assert {r.message.name for r in snapshot.records if isinstance(r.message, TopicRecord)} >= set(TOPICS)
    finally:
        mlog.close()


def _record(message: TopicRecord | PartitionRecord | FeatureLevelRecord) -> bytes:
    return write_record(ApiMessageAndVersion(message, 0 if not isinstance(message, PartitionRecord) else 2))


def test_apache_dump_log_reads_a_log_written_by_kafka_metadata_log(tmp_path: Path) -> None:
    topic_id = bytes(range(1, 17))
    mlog = KafkaMetadataLog(tmp_path, MetadataLogConfig(segment_bytes=1024, segment_min_bytes=1024),
                            now_ms=_now_ms)
    mlog.append_leader_change(2, 1, [ReplicaKey(1), ReplicaKey(2), ReplicaKey(3)], [ReplicaKey(1), ReplicaKey(3)])
    mlog.append_as_leader([_record(FeatureLevelRecord(name="metadata.version", feature_level=27))], 2)
    for i in range(8):
        mlog.append_as_leader([
            _record(TopicRecord(name=f"topic-{i}", topic_id=topic_id)),
            _record(PartitionRecord(partition_id=0, topic_id=topic_id, replicas=[1, 2], isr=[1, 2],
                                    leader=1, leader_epoch=0, partition_epoch=0)),
        ], 2)
    end = mlog.end_offset()
    mlog.update_high_watermark(end)
    raw = mlog.create_new_snapshot(SnapshotId(end, 2))
    assert raw is not None
    writer: RecordsSnapshotWriter[bytes] = RecordsSnapshotWriter(raw, lambda v: v, _now_ms, kraft_version=0)
    writer.append([_record(TopicRecord(name="in-snapshot", topic_id=topic_id))])
    snapshot_file = writer.freeze()
    mlog.on_snapshot_frozen(SnapshotId(end, 2))
    mlog.close()

    segments = sorted((tmp_path / "__cluster_metadata-0").glob("*.log"))
    assert len(segments) > 1
    assert (tmp_path / "__cluster_metadata-0" / "partition.metadata").read_bytes() == \
        b"version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"  # as Kafka writes it
    out = run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files",
                                           ",".join(str(p) for p in segments)]).stdout
    dumped = parse_dump(out)
    assert [b.base_offset for b in dumped] == [0, 1] + [2 + 2 * i for i in range(8)]
    assert all(b.epoch == 2 for b in dumped) and dumped[0].is_control
    assert re.search(r'LeaderChange: \{"version":0,"leaderId":1,"voters":\[\{"voterId":1\},\{"voterId":2\},'
                     r'\{"voterId":3\}\],"grantingVoters":\[\{"voterId":1\},\{"voterId":3\}\]\}', out), out
    names = [m.name for b in dumped for _o, m in b.records if isinstance(m, TopicRecord)]
    assert names == [f"topic-{i}" for i in range(8)]
    partitions = [m for b in dumped for _o, m in b.records if isinstance(m, PartitionRecord)]
    assert len(partitions) == 8 and partitions[0].replicas == [1, 2] and partitions[0].topic_id == topic_id

    snap = run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", str(snapshot_file)]).stdout
    assert "SnapshotHeader" in snap and "SnapshotFooter" in snap, snap
    assert [m.name for b in parse_dump(snap) for _o, m in b.records if isinstance(m, TopicRecord)] == ["in-snapshot"]



def test_opens_a_directory_apache_kafka_only_formatted(tmp_path: Path) -> None:
    kafka = ReferenceKafka("4", work_dir=tmp_path / "kafka")
    kafka.format()
    partition_dir = kafka.work_dir / "metadata" / "__cluster_metadata-0"
    assert [p.name for p in partition_dir.glob("*.checkpoint")] == ["00000000000000000000-0000000000.checkpoint"]
    mlog = KafkaMetadataLog(kafka.work_dir / "metadata", now_ms=_now_ms)
    try:
        assert (mlog.start_offset(), mlog.end_offset(), mlog.last_fetched_epoch()) == (0, 0, 0)
        assert mlog.snapshot_ids() == [BOOTSTRAP_SNAPSHOT_ID]
        reader = mlog.read_snapshot(BOOTSTRAP_SNAPSHOT_ID)
        assert reader is not None
        bootstrap = read_snapshot(reader.read_all(), read_record)
        assert any(isinstance(r.message, FeatureLevelRecord) and r.message.name == "metadata.version"
                   for r in bootstrap.records)
        mlog.append_leader_change(1, 1, [ReplicaKey(1)], [ReplicaKey(1)])
        assert mlog.end_offset() == 1 and mlog.last_fetched_epoch() == 1
    finally:
        mlog.close()
