"""Partition files written at once and fsynced later in one batch (PendingFsyncs), and the
LogManager's rule that they are durable before the recovery points that may cover them."""
from __future__ import annotations

import os

from kafpy.storage import LogConfig
from kafpy.storage.checkpoint import LeaderEpochCheckpointFile, PartitionMetadataFile, PendingFsyncs
from kafpy.storage.log_manager import RECOVERY_POINT_CHECKPOINT, LogManager


def _record_fsyncs(monkeypatch) -> list[str]:
    """Paths fsynced from now on, in order (os.fsync still runs)."""
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


def test_metadata_is_readable_at_once_and_epochs_written_once_by_flush(tmp_path, monkeypatch):
    synced = _record_fsyncs(monkeypatch)
    pending = PendingFsyncs()
    meta = PartitionMetadataFile(str(tmp_path / "partition.metadata"), pending)
    epochs = LeaderEpochCheckpointFile(str(tmp_path / "leader-epoch-checkpoint"), pending)
    meta.write(bytes(range(16)))
    epochs.write([(0, 0)])
    epochs.write([(0, 0), (2, 10)])
    assert synced == []
    # partition.metadata is in place (fsynced later); the epochs wait for the flush, which
    # writes only their last version
    assert meta.read() == bytes(range(16)) and epochs.read() == []
    assert len(pending) == 2 and not any(n.endswith(".tmp") for n in os.listdir(tmp_path))
    pending.flush()
    assert epochs.read() == [(0, 0), (2, 10)]
    # each file once (the epochs as their temp file, before the rename), then their directory once
    assert sorted(synced[:2]) == sorted([meta.path, epochs.path + ".tmp"]) and synced[2:] == [str(tmp_path)]
    assert len(pending) == 0
    pending.flush()
    assert len(synced) == 3


def test_flush_skips_deleted_files_and_keeps_failed_ones(tmp_path, monkeypatch):
    pending = PendingFsyncs()
    gone = PartitionMetadataFile(str(tmp_path / "gone"), pending)
    kept = PartitionMetadataFile(str(tmp_path / "kept"), pending)
    gone.write(bytes(16))
    kept.write(bytes(16))
    os.unlink(gone.path)
    real = os.fsync

    def failing(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}") == kept.path:
            raise OSError(5, "EIO")
        real(fd)

    monkeypatch.setattr(os, "fsync", failing)
    pending.flush()
    assert len(pending) == 1  # the failed one waits for the next pass
    monkeypatch.setattr(os, "fsync", real)
    pending.flush()
    assert len(pending) == 0


def test_log_manager_makes_partition_files_durable_before_recovery_points(tmp_path, monkeypatch):
    lm = LogManager([str(tmp_path)], LogConfig(), start_cleaner=False)
    lm.startup()
    tid = bytes(range(16))
    lg = lm.get_or_create_log("t", 0, topic_id=tid)
    lg.leader_epoch_cache.assign(3, 0)
    part_dir = os.path.join(str(tmp_path), "t-0")
    assert len(lm.pending_fsyncs) == 2
    synced = _record_fsyncs(monkeypatch)
    lm.checkpoint()
    rp = synced.index(os.path.join(str(tmp_path), RECOVERY_POINT_CHECKPOINT + ".tmp"))
    assert {os.path.join(part_dir, "partition.metadata"),
            os.path.join(part_dir, "leader-epoch-checkpoint.tmp"), part_dir} <= set(synced[:rp])
    assert len(lm.pending_fsyncs) == 0
    lg.leader_epoch_cache.assign(4, 0)
    lm.shutdown()  # the clean-shutdown marker comes after the pending files
    marker = synced.index(os.path.join(str(tmp_path), ".kafka_cleanshutdown"))
    assert synced.index(os.path.join(part_dir, "leader-epoch-checkpoint.tmp"), rp + 1) < marker
    assert LeaderEpochCheckpointFile(os.path.join(part_dir, "leader-epoch-checkpoint")).read() == [(4, 0)]
    lm2 = LogManager([str(tmp_path)], LogConfig(), start_cleaner=False)
    lm2.startup()
    assert lm2.get_log("t", 0).topic_id == tid
    lm2.shutdown()
