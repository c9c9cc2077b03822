"""The metadata a KRaft cluster starts from (Kafka's ``BootstrapMetadata``): the feature levels
(metadata.version first) and the records ``kafka-storage format --add-scram`` adds, and the
two files that carry it.

Who calls it: ``kafka-storage format`` (writes), the quorum controller at its first start
(reads), tools and tests.

- Kafka 4.4's ``format`` writes them into the bootstrap snapshot
  ``__cluster_metadata-0/00000000000000000000-0000000000.checkpoint`` of a controller's metadata
  log dir (``write_bootstrap_snapshot``): header batch (with KRaftVersionRecord and, for a
  dynamic quorum, VotersRecord), the records, footer.
- Kafka 3.x wrote ``bootstrap.checkpoint`` in the metadata log dir (``BootstrapDirectory``);
  Kafka 4.4 still reads it when it is there (``BootstrapMetadata.fromDirectory``): a header batch
  (no kraft.version, last contained timestamp 0), the records from offset 1, a footer, all
  epoch 0, written through ``bootstrap.checkpoint.tmp`` and renamed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from kafpy.metadata.record_serde import ApiMessageAndVersion, read_record, write_record
from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.batch_header import BATCH_HEADER_SIZE
from kafpy.protocol.errors import CorruptRecord
from kafpy.protocol.messages import FeatureLevelRecord, SnapshotFooterRecord, SnapshotHeaderRecord, VotersRecord
from kafpy.raft.batch_reader import read_batches
from kafpy.raft.control_records import build_control_record_batch
from kafpy.raft.snapshot import (
    BOOTSTRAP_SNAPSHOT_ID,
    CLUSTER_METADATA_DIR,
    MAX_BATCH_SIZE_BYTES,
    RawSnapshotWriter,
    RecordsSnapshotWriter,
    read_snapshot,
    snapshot_path,
)

__all__ = [
    "BINARY_BOOTSTRAP_FILENAME",
    "METADATA_VERSION_FEATURE",
    "KRAFT_VERSION_FEATURE",
    "BootstrapMetadata",
    "write_bootstrap_checkpoint",
    "read_bootstrap_checkpoint",
    "write_bootstrap_snapshot",
    "read_bootstrap_snapshot",
    "bootstrap_snapshot_path",
]

BINARY_BOOTSTRAP_FILENAME = "bootstrap.checkpoint"
METADATA_VERSION_FEATURE = "metadata.version"
KRAFT_VERSION_FEATURE = "kraft.version"


@dataclass(frozen=True)
class BootstrapMetadata:
    """The bootstrap records, the metadata.version level among them and where they came from."""

    records: tuple[ApiMessageAndVersion, ...]
    metadata_version_level: int
    source: str

    @classmethod
    def from_records(cls, records: Sequence[ApiMessageAndVersion], source: str) -> BootstrapMetadata:
        """As Kafka's ``fromRecords``: the records must set metadata.version."""
        level = None
        for rec in records:
            msg = rec.message
            if isinstance(msg, FeatureLevelRecord) and msg.name == METADATA_VERSION_FEATURE:
                level = msg.feature_level
        if level is None:
            raise ValueError(f"No FeatureLevelRecord for {METADATA_VERSION_FEATURE} was found in the "
                             f"bootstrap metadata from {source}")
        return cls(tuple(records), level, source)

    @classmethod
    def from_versions(cls, metadata_version_level: int, feature_levels: Mapping[str, int],
                      source: str) -> BootstrapMetadata:
        """As Kafka's ``fromVersions``: metadata.version first, then the other features by name;
        kraft.version is not a record (raft keeps it) and level-0 features are left out."""
        records = [ApiMessageAndVersion(FeatureLevelRecord(name=METADATA_VERSION_FEATURE,
                                                           feature_level=metadata_version_level), 0)]
        for name in sorted(feature_levels):
            level = feature_levels[name]
            if name in (METADATA_VERSION_FEATURE, KRAFT_VERSION_FEATURE) or level <= 0:
                continue
            records.append(ApiMessageAndVersion(FeatureLevelRecord(name=name, feature_level=level), 0))
        return cls(tuple(records), metadata_version_level, source)

    def feature_level(self, name: str) -> int:
        """The level a FeatureLevelRecord sets for ``name`` (0 when none)."""
        for rec in self.records:
            if isinstance(rec.message, FeatureLevelRecord) and rec.message.name == name:
                return rec.message.feature_level
        return 0


def _split(values: list[bytes], max_batch_size: int) -> list[list[bytes]]:
    """Values in batches of at most ``max_batch_size`` bytes (a record's framing ~12 bytes)."""
    out: list[list[bytes]] = [[]]
    size = BATCH_HEADER_SIZE
    for v in values:
        if out[-1] and size + len(v) + 12 > max_batch_size:
            out.append([])
            size = BATCH_HEADER_SIZE
        out[-1].append(v)
        size += len(v) + 12
    return out


def write_bootstrap_checkpoint(directory: str | Path, bootstrap: BootstrapMetadata,
                               now_ms: Callable[[], int]) -> Path:
    """Write ``bootstrap.checkpoint`` in ``directory`` as Kafka 3.x's ``BatchFileWriter`` did."""
    d = Path(directory)
    if not d.is_dir():
        raise FileNotFoundError(f"No such directory as {d}")
    final = d / BINARY_BOOTSTRAP_FILENAME
    temp = d / (BINARY_BOOTSTRAP_FILENAME + ".tmp")
    temp.unlink(missing_ok=True)
    parts = [build_control_record_batch(SnapshotHeaderRecord(version=0, last_contained_log_timestamp=0),
                                        base_offset=0, timestamp=now_ms(), leader_epoch=0)]
    offset = 1
    if bootstrap.records:
        append_time = now_ms()
        for chunk in _split([write_record(r) for r in bootstrap.records], MAX_BATCH_SIZE_BYTES):
            parts.append(_values_batch(chunk, base_offset=offset, append_time=append_time))
            offset += len(chunk)
    parts.append(build_control_record_batch(SnapshotFooterRecord(version=0), base_offset=offset,
                                            timestamp=now_ms(), leader_epoch=0))
    try:
        with open(temp, "xb") as f:
            f.write(b"".join(parts))
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, final)
    finally:
        temp.unlink(missing_ok=True)
    return final


def _values_batch(values: list[bytes], *, base_offset: int, append_time: int) -> bytes:
    """A metadata batch of already serialized record values (epoch 0)."""
    return build_batch([(None, v, (), append_time) for v in values], base_offset=base_offset,
                       base_timestamp=append_time, max_timestamp=append_time, partition_leader_epoch=0)


def read_bootstrap_checkpoint(path: str | Path) -> BootstrapMetadata:
    """The records of a ``bootstrap.checkpoint`` file (control batches skipped, as Kafka does)."""
    p = Path(path)
    records: list[ApiMessageAndVersion] = []
    for batch in read_batches(p.read_bytes(), read_record):
        records.extend(batch.records)
    return BootstrapMetadata.from_records(records, f"the binary bootstrap metadata file: {p}")


def bootstrap_snapshot_path(metadata_log_dir: str | Path) -> Path:
    """``<metadata log dir>/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint``."""
    return snapshot_path(Path(metadata_log_dir) / CLUSTER_METADATA_DIR, BOOTSTRAP_SNAPSHOT_ID)


def write_bootstrap_snapshot(
    metadata_log_dir: str | Path,
    bootstrap: BootstrapMetadata,
    *,
    kraft_version: int,
    voters: VotersRecord | None,
    now_ms: Callable[[], int],
) -> Path:
    """Kafka 4.4's ``Formatter.writeBoostrapSnapshot``: the 0-0 snapshot holding the bootstrap
    records (and the initial voters of a dynamic quorum)."""
    raw = RawSnapshotWriter(Path(metadata_log_dir) / CLUSTER_METADATA_DIR, BOOTSTRAP_SNAPSHOT_ID)
    try:
        writer = RecordsSnapshotWriter(raw, write_record, now_ms, last_contained_log_timestamp=now_ms(),
                                       kraft_version=kraft_version, voters=voters)
        if bootstrap.records:
            writer.append(list(bootstrap.records))
        return writer.freeze()
    finally:
        raw.close()


def read_bootstrap_snapshot(metadata_log_dir: str | Path) -> tuple[BootstrapMetadata, int, VotersRecord | None]:
    """The bootstrap records, kraft.version and voters of a metadata log dir's 0-0 snapshot."""
    path = bootstrap_snapshot_path(metadata_log_dir)
    snap = read_snapshot(path, read_record)
    kraft_version = snap.kraft_version.k_raft_version if snap.kraft_version is not None else 0
    try:
        meta = BootstrapMetadata.from_records(snap.records, f"the bootstrap snapshot {path}")
    except ValueError as exc:
        raise CorruptRecord(str(exc)) from exc
    return meta, kraft_version, snap.voters

