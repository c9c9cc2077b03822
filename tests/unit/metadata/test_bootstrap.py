"""Snapshot files and the bootstrap metadata files, against files Apache Kafka wrote."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable, Iterator

import pytest

from kafpy.metadata.bootstrap import (
    BootstrapMetadata,
    bootstrap_snapshot_path,
    read_bootstrap_checkpoint,
    read_bootstrap_snapshot,
    write_bootstrap_checkpoint,
    write_bootstrap_snapshot,
)
from kafpy.metadata.record_serde import ApiMessageAndVersion, read_record, write_record
from kafpy.protocol.errors import CorruptRecord
from kafpy.protocol.messages import FeatureLevelRecord, TopicRecord, UserScramCredentialRecord, VotersRecord
from kafpy.raft.snapshot import (
    RawSnapshotWriter,
    RecordsSnapshotWriter,
    SnapshotId,
    parse_snapshot_path,
    read_snapshot,
    snapshot_filename,
)

DATA = Path(__file__).parent / "data"
# `kafka-storage format --standalone` of Apache Kafka 4.4.0 (node 1, CONTROLLER://127.0.0.1:19093)
APACHE_STANDALONE = DATA / "kafka-4.4.0-standalone.checkpoint"
# `kafka-storage format --add-scram SCRAM-SHA-512=[name=bob,...]` of Apache Kafka 3.9.1
APACHE_39_BOOTSTRAP = DATA / "kafka-3.9.1-bootstrap.checkpoint"
FEATURES = {"metadata.version": 33, "eligible.leader.replicas.version": 1, "group.version": 1,
            "share.version": 2, "streams.version": 1, "transaction.version": 2, "kraft.version": 1}


def clock(*times: int) -> Callable[[], int]:
    it: Iterator[int] = iter(times)
    return lambda: next(it)


def test_snapshot_names() -> None:
    assert snapshot_filename(SnapshotId(0, 0)) == "00000000000000000000-0000000000"
    assert snapshot_filename(SnapshotId(1234, 7)) == "00000000000000001234-0000000007"
    parsed = parse_snapshot_path("/x/00000000000000001234-0000000007.checkpoint")
    assert parsed is not None and parsed.snapshot_id == SnapshotId(1234, 7) and not parsed.partial
    part = parse_snapshot_path("00000000000000001234-0000000007-123.checkpoint.part")
    assert part is not None and part.partial
    assert parse_snapshot_path("00000000000000000000.log") is None


def test_bootstrap_snapshot_is_apaches_bytes(tmp_path: Path) -> None:
    reference = read_snapshot(APACHE_STANDALONE, read_record)
    assert reference.voters is not None
    bootstrap = BootstrapMetadata.from_versions(33, FEATURES, "format command")
    path = write_bootstrap_snapshot(tmp_path, bootstrap, kraft_version=1, voters=reference.voters,
                                    now_ms=clock(1795903050305, 1795903050324, 1795903050362, 1795903050363))
    assert path == tmp_path / "__cluster_metadata-0" / "00000000000000000000-0000000000.checkpoint"
    assert path.read_bytes() == APACHE_STANDALONE.read_bytes()
    assert not stat.S_IMODE(os.stat(path).st_mode) & 0o222  # read-only, as Kafka leaves it
    assert list((tmp_path / "__cluster_metadata-0").iterdir()) == [path]  # no .part left


def test_apaches_standalone_snapshot_reads(tmp_path: Path) -> None:
    named = tmp_path / "00000000000000000000-0000000000.checkpoint"
    named.write_bytes(APACHE_STANDALONE.read_bytes())
    snap = read_snapshot(named, read_record)
    assert snap.snapshot_id == SnapshotId(0, 0)
    assert snap.kraft_version is not None and snap.kraft_version.k_raft_version == 1
    assert snap.voters is not None
    [voter] = snap.voters.voters
    assert voter.voter_id == 1 and voter.endpoints[0].name == "CONTROLLER" and voter.endpoints[0].port == 19093
    names = [r.message.name for r in snap.records if isinstance(r.message, FeatureLevelRecord)]
    assert names == ["metadata.version", "eligible.leader.replicas.version", "group.version", "share.version",
                     "streams.version", "transaction.version"]


def test_read_bootstrap_snapshot_from_metadata_dir(tmp_path: Path) -> None:
    target = bootstrap_snapshot_path(tmp_path)
    target.parent.mkdir()
    target.write_bytes(APACHE_STANDALONE.read_bytes())
    meta, kraft_version, voters = read_bootstrap_snapshot(tmp_path)
    assert meta.metadata_version_level == 33 and meta.feature_level("share.version") == 2
    assert kraft_version == 1 and voters is not None


def test_apaches_39_bootstrap_checkpoint_reads() -> None:
    meta = read_bootstrap_checkpoint(APACHE_39_BOOTSTRAP)
    assert meta.metadata_version_level == 21
    scram = [r.message for r in meta.records if isinstance(r.message, UserScramCredentialRecord)]
    assert [(s.name, s.mechanism, s.iterations) for s in scram] == [("bob", 2, 4096)]


def test_bootstrap_checkpoint_layout_is_kafka_3s(tmp_path: Path) -> None:
    reference = read_bootstrap_checkpoint(APACHE_39_BOOTSTRAP)
    path = write_bootstrap_checkpoint(tmp_path, reference, clock(1795903371896, 1795903371910, 1795903371910))
    assert path.read_bytes() == APACHE_39_BOOTSTRAP.read_bytes()
    assert read_bootstrap_checkpoint(path).records == reference.records


def test_from_versions_orders_features_and_leaves_kraft_version_out() -> None:
    meta = BootstrapMetadata.from_versions(33, {"b.version": 1, "a.version": 0, "kraft.version": 1, "c.version": 2},
                                           "format command")
    assert [(r.message.name, r.message.feature_level) for r in meta.records
            if isinstance(r.message, FeatureLevelRecord)] == [("metadata.version", 33), ("b.version", 1),
                                                               ("c.version", 2)]
    with pytest.raises(ValueError, match="No FeatureLevelRecord for metadata.version"):
        BootstrapMetadata.from_records([], "x")


def test_snapshot_batches_split_and_part_file_removed_on_close(tmp_path: Path) -> None:
    raw = RawSnapshotWriter(tmp_path, SnapshotId(100, 3))
    writer = RecordsSnapshotWriter(raw, write_record, clock(*range(1, 100)), kraft_version=0, max_batch_size=400)
    topics = [ApiMessageAndVersion(TopicRecord(name=f"topic-{i}", topic_id=bytes([i]) * 16), 0) for i in range(20)]
    for t in topics:
        writer.append([t])
    path = writer.freeze()
    writer.close()
    snap = read_snapshot(path, read_record)
    assert snap.records == topics and snap.kraft_version is None and snap.voters is None
    data_batches = [b for b in snap.batches if not b.is_control]
    assert len(data_batches) > 1 and all(b.header.total_size <= 400 for b in data_batches)
    assert all(b.epoch == 3 for b in snap.batches)
    offsets = [b.base_offset for b in snap.batches]
    assert offsets == sorted(offsets) and snap.batches[-1].last_offset == 21

    raw2 = RawSnapshotWriter(tmp_path, SnapshotId(200, 3))
    RecordsSnapshotWriter(raw2, write_record, clock(1, 2), kraft_version=0).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_voters_need_kraft_version_1(tmp_path: Path) -> None:
    raw = RawSnapshotWriter(tmp_path, SnapshotId(0, 0))
    try:
        with pytest.raises(ValueError, match="kraft.version is 0"):
            RecordsSnapshotWriter(raw, write_record, clock(1), kraft_version=0, voters=VotersRecord())
    finally:
        raw.close()


def test_truncated_snapshot_is_corrupt(tmp_path: Path) -> None:
    data = APACHE_STANDALONE.read_bytes()
    with pytest.raises(CorruptRecord):
        read_snapshot(data[:-10], read_record)
    with pytest.raises(CorruptRecord, match="footer"):
        read_snapshot(data[:-75], read_record)
    with pytest.raises(CorruptRecord, match="control batch"):
        read_snapshot(data[166:], read_record)
