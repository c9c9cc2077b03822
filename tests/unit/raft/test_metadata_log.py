"""KafkaMetadataLog on a real directory: appends as leader and follower, the leader-epoch
checkpoint, recovery at open, the bootstrap snapshot of Kafka's format, snapshots at or below
the high watermark, cleaning by retention, truncation to the latest snapshot."""
from __future__ import annotations

from pathlib import Path

import pytest

from kafpy.metadata.record_serde import ApiMessageAndVersion, read_metadata_batches, write_record
from kafpy.protocol.messages import LeaderChangeMessage, TopicRecord
from kafpy.raft.control_records import ControlRecordType
from kafpy.raft.metadata_log import KafkaMetadataLog, MetadataLogConfig, MetadataLogError
from kafpy.raft.quorum_state_store import ReplicaKey
from kafpy.raft.replicated_log import OffsetAndEpoch, ValidKind, validate_offset_and_epoch
from kafpy.raft.snapshot import RawSnapshotWriter, RecordsSnapshotWriter, SnapshotId, snapshot_path
from kafpy.storage.checkpoint import LeaderEpochCheckpointFile


class Clock:
    def __init__(self, ms: int = 1_700_000_000_000) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


SMALL = MetadataLogConfig(segment_bytes=1024, segment_min_bytes=512, retention_max_bytes=-1, retention_ms=-1,
                          file_delete_delay_ms=0)


def topic(name: str) -> bytes:
    return write_record(ApiMessageAndVersion(TopicRecord(name=name, topic_id=bytes(16)), 0))


def open_log(tmp_path: Path, config: MetadataLogConfig = SMALL, clock: Clock | None = None) -> KafkaMetadataLog:
    return KafkaMetadataLog(tmp_path, config, now_ms=clock or Clock())


def write_snapshot(mlog: KafkaMetadataLog, sid: SnapshotId, clock: Clock, *, checked: bool = True) -> None:
    raw = mlog.create_new_snapshot(sid) if checked else mlog.create_new_snapshot_unchecked(sid)
    assert raw is not None
    writer: RecordsSnapshotWriter[bytes] = RecordsSnapshotWriter(
        raw, lambda v: v, clock, last_contained_log_timestamp=clock(), kraft_version=0)
    writer.append([topic("snap")])
    writer.freeze()
    mlog.on_snapshot_frozen(sid)


def test_leader_appends_are_kafka_batches_on_disk(tmp_path: Path) -> None:
    clock = Clock()
    mlog = open_log(tmp_path, clock=clock)
    info = mlog.append_leader_change(3, 1, [ReplicaKey(1), ReplicaKey(2)], [ReplicaKey(1)])
    assert (info.first_offset, info.last_offset) == (0, 0)
    info = mlog.append_as_leader([topic("a"), topic("b")], 3)
    assert (info.first_offset, info.last_offset) == (1, 2)
    assert mlog.end_offset() == 3 and mlog.last_fetched_epoch() == 3
    batches = read_metadata_batches(mlog.read(0, 1 << 20))
    assert [b.epoch for b in batches] == [3, 3]
    control = batches[0].control_records[0]
    assert control.type is ControlRecordType.LEADER_CHANGE
    assert isinstance(control.message, LeaderChangeMessage) and control.message.leader_id == 1
    assert [r.message.name if isinstance(r.message, TopicRecord) else None for r in batches[1].records] == ["a", "b"]
    assert batches[1].header.max_timestamp == clock.ms
    mlog.close()
    epochs = LeaderEpochCheckpointFile(str(tmp_path / "__cluster_metadata-0" / "leader-epoch-checkpoint")).read()
    assert epochs == [(3, 0)]


def test_follower_append_keeps_offsets_and_epochs_and_reopen_recovers(tmp_path: Path) -> None:
    leader = open_log(tmp_path / "leader")
    for epoch in (1, 1, 4):
        leader.append_as_leader([topic(f"t{epoch}")], epoch)
    follower = open_log(tmp_path / "follower")
    assert follower.append_as_follower(b"") is None
    info = follower.append_as_follower(leader.read(0, 1 << 20))
    assert info is not None and (info.first_offset, info.last_offset) == (0, 2)
    assert follower.end_offset_for_epoch(1) == OffsetAndEpoch(1, 2)
    assert follower.end_offset_for_epoch(3) == OffsetAndEpoch(1, 2)
    assert follower.end_offset_for_epoch(4) == OffsetAndEpoch(4, 3)
    follower.close()
    segment = tmp_path / "follower" / "__cluster_metadata-0" / "00000000000000000000.log"
    with open(segment, "ab") as f:  # a torn write at the end
        f.write(b"\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x01\x00junk")
    reopened = open_log(tmp_path / "follower")
    assert reopened.end_offset() == 3 and reopened.last_fetched_epoch() == 4
    assert [b.base_offset for b in read_metadata_batches(reopened.read(0, 1 << 20))] == [0, 1, 2]


def test_segments_roll_at_metadata_log_segment_bytes(tmp_path: Path) -> None:
    mlog = open_log(tmp_path)
    for i in range(40):
        mlog.append_as_leader([topic(f"topic-{i:03d}")], 1)
    assert len(mlog.log.segments) > 1
    with pytest.raises(ValueError, match="below 8388608"):
        MetadataLogConfig(segment_bytes=1024).log_config()


def test_truncate_refuses_below_the_high_watermark(tmp_path: Path) -> None:
    mlog = open_log(tmp_path)
    mlog.append_as_leader([topic("a"), topic("b")], 1)
    mlog.append_as_leader([topic("c")], 2)
    mlog.update_high_watermark(2)
    with pytest.raises(ValueError, match="below the current high watermark 2"):
        mlog.truncate_to(1)
    mlog.truncate_to(2)
    assert mlog.end_offset() == 2 and mlog.last_fetched_epoch() == 1


def test_opens_kafka_formatted_directory_with_the_bootstrap_snapshot(tmp_path: Path) -> None:
    clock = Clock()
    first = open_log(tmp_path, clock=clock)
    write_snapshot(first, SnapshotId(0, 0), clock, checked=False)  # what kafka-storage format leaves
    first.close()
    (tmp_path / "__cluster_metadata-0" / "00000000000000000000-0000000000-x.checkpoint.part").write_bytes(b"x")
    mlog = open_log(tmp_path, clock=clock)
    assert mlog.start_offset() == 0 and mlog.end_offset() == 0
    assert mlog.latest_snapshot_id() == SnapshotId(0, 0) == mlog.earliest_snapshot_id()
    assert mlog.last_fetched_epoch() == 0
    assert not list((tmp_path / "__cluster_metadata-0").glob("*.part"))
    reader = mlog.read_snapshot(SnapshotId(0, 0))
    assert reader is not None and reader.slice(0, 12)[:8] == bytes(8)


def test_snapshot_only_at_or_below_the_high_watermark(tmp_path: Path) -> None:
    clock = Clock()
    mlog = open_log(tmp_path, clock=clock)
    mlog.append_as_leader([topic("a"), topic("b")], 1)
    mlog.append_as_leader([topic("c")], 2)
    mlog.update_high_watermark(2)
    with pytest.raises(ValueError, match="greater than the high-watermark"):
        mlog.create_new_snapshot(SnapshotId(3, 2))
    with pytest.raises(ValueError, match="not valid according to the log"):
        mlog.create_new_snapshot(SnapshotId(2, 3))  # no epoch 3 on this log
    write_snapshot(mlog, SnapshotId(2, 1), clock)
    assert mlog.create_new_snapshot(SnapshotId(2, 1)) is None  # exists
    assert mlog.latest_snapshot_id() == SnapshotId(2, 1)
    assert snapshot_path(mlog.dir, SnapshotId(2, 1)).exists()


def fill(mlog: KafkaMetadataLog, epoch: int, n: int) -> None:
    for i in range(n):
        mlog.append_as_leader([topic(f"topic-{epoch}-{i:03d}")], epoch)


def test_maybe_clean_moves_the_log_start_to_a_snapshot_and_drops_segments(tmp_path: Path) -> None:
    clock = Clock()
    config = MetadataLogConfig(segment_bytes=1024, segment_min_bytes=512, retention_max_bytes=1,
                               retention_ms=-1, file_delete_delay_ms=0)
    mlog = open_log(tmp_path, config, clock)
    fill(mlog, 1, 30)
    first_snapshot = SnapshotId(10, 1)
    second = SnapshotId(25, 1)
    mlog.update_high_watermark(30)
    write_snapshot(mlog, first_snapshot, clock)
    assert not mlog.maybe_clean()  # one snapshot: nothing to clean
    write_snapshot(mlog, second, clock)
    segments_before = len(mlog.log.segments)
    assert mlog.maybe_clean()
    assert mlog.start_offset() == 25
    assert mlog.snapshot_ids() == [second]
    assert len(mlog.log.segments) < segments_before
    assert all(s.base_offset <= 25 for s in mlog.log.segments[:1])
    mlog.delete_pending_files(force=True)
    assert not snapshot_path(mlog.dir, first_snapshot).exists()
    # a fetch below the log start is answered with the snapshot
    valid = validate_offset_and_epoch(mlog, 5, 1)
    assert valid.kind is ValidKind.SNAPSHOT and valid.offset_and_epoch == OffsetAndEpoch(1, 25)
    assert validate_offset_and_epoch(mlog, 27, 1).kind is ValidKind.VALID
    mlog.close()
    reopened = open_log(tmp_path, config, clock)
    assert reopened.start_offset() == reopened.log.segments[0].base_offset
    assert reopened.snapshot_ids() == [second]


def test_maybe_clean_by_time(tmp_path: Path) -> None:
    clock = Clock()
    config = MetadataLogConfig(segment_bytes=1024, segment_min_bytes=512, retention_max_bytes=-1,
                               retention_ms=1000, file_delete_delay_ms=0)
    mlog = open_log(tmp_path, config, clock)
    fill(mlog, 1, 30)
    mlog.update_high_watermark(30)
    write_snapshot(mlog, SnapshotId(10, 1), clock)
    clock.ms += 500
    write_snapshot(mlog, SnapshotId(20, 1), clock)
    assert not mlog.maybe_clean()  # neither older than a second
    clock.ms += 600
    assert mlog.maybe_clean()  # the first is 1100 ms old, the second 600
    assert mlog.snapshot_ids() == [SnapshotId(20, 1)] and mlog.start_offset() == 20


def test_clean_also_unlinks_what_waited_out_its_delay(tmp_path: Path) -> None:
    """The raft client's minute job: retention, then the files marked deleted go."""
    clock = Clock()
    config = MetadataLogConfig(segment_bytes=1024, segment_min_bytes=512, retention_max_bytes=-1,
                               retention_ms=1000, file_delete_delay_ms=0)
    mlog = open_log(tmp_path, config, clock)
    fill(mlog, 1, 30)
    mlog.update_high_watermark(30)
    write_snapshot(mlog, SnapshotId(10, 1), clock)
    write_snapshot(mlog, SnapshotId(20, 1), clock)
    assert not mlog.clean()
    clock.ms += 1100
    assert mlog.clean()
    assert mlog.snapshot_ids() == [SnapshotId(20, 1)]
    assert not list(tmp_path.rglob("*.deleted"))  # marked and unlinked in the same call


def test_truncate_to_latest_snapshot_when_behind_it(tmp_path: Path) -> None:
    clock = Clock()
    mlog = open_log(tmp_path, clock=clock)
    fill(mlog, 1, 5)
    write_snapshot(mlog, SnapshotId(40, 3), clock, checked=False)  # fetched from the leader
    assert mlog.truncate_to_latest_snapshot()
    assert mlog.start_offset() == mlog.end_offset() == 40
    assert mlog.last_fetched_epoch() == 3
    mlog.append_as_follower(_batch_at(tmp_path, 40, 4))
    assert mlog.end_offset() == 41 and mlog.end_offset_for_epoch(2) == OffsetAndEpoch(3, 40)


def _batch_at(tmp_path: Path, offset: int, epoch: int) -> bytes:
    other = open_log(tmp_path / "other")
    other.log.truncate_fully_and_start_at(offset)
    other.append_as_leader([topic("x")], epoch)
    return other.read(offset, 1 << 20)


def test_crash_after_fetching_a_snapshot_truncates_at_open(tmp_path: Path) -> None:
    clock = Clock()
    mlog = open_log(tmp_path, clock=clock)
    fill(mlog, 1, 5)
    raw = RawSnapshotWriter(mlog.dir, SnapshotId(50, 2))
    writer: RecordsSnapshotWriter[bytes] = RecordsSnapshotWriter(raw, lambda v: v, clock, kraft_version=0)
    writer.freeze()
    mlog.close()  # crashed before truncating to it
    reopened = open_log(tmp_path, clock=clock)
    assert reopened.start_offset() == reopened.end_offset() == 50
    assert reopened.last_fetched_epoch() == 2


def test_open_refuses_a_log_start_without_a_snapshot(tmp_path: Path) -> None:
    mlog = open_log(tmp_path)
    mlog.log.truncate_fully_and_start_at(7)
    mlog.append_as_leader([topic("a")], 1)
    mlog.close()
    with pytest.raises(MetadataLogError, match="Inconsistent snapshot state"):
        open_log(tmp_path)
