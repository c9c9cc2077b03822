"""KRaft snapshots on disk, as Kafka's ``Snapshots``, ``FileRawSnapshotWriter`` and
``RecordsSnapshotWriter`` / ``RecordsSnapshotReader`` keep them.

Who calls it: the raft log (snapshots of the replicated state, FetchSnapshot), the quorum
controller (its periodic snapshots), ``kafka-storage format`` (the bootstrap snapshot
``00000000000000000000-0000000000.checkpoint``) and tools that read them.

A snapshot of the log up to (excluding) ``end_offset`` written in ``epoch`` is the file
``<end offset, 20 digits>-<epoch, 10 digits>.checkpoint`` in the ``__cluster_metadata-0``
directory. It is written to ``<name>-<random>.checkpoint.part`` (Kafka's temp file), fsynced,
made read-only and renamed into place on ``freeze``: a crash leaves a ``.part`` file, never
a half snapshot under the final name. Its content is record batches: first a control batch
holding the SnapshotHeaderRecord (and, with kraft.version 1, the KRaftVersionRecord and the
VotersRecord), then the data batches (at most ``max_batch_size`` bytes each, a whole
``append`` in one batch as Kafka's accumulator does), then a control batch with the
SnapshotFooterRecord. Offsets start at 0; every batch carries the snapshot's epoch. Data
records are opaque here: the caller's ``write_value`` / ``read_value`` (the metadata serde)
turns them into bytes and back. The clock is passed in (``now_ms``) for the timestamps.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
import tempfile
from pathlib import Path
from typing import Callable, Generic, NamedTuple, Sequence, TypeVar

from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.batch_header import BATCH_HEADER_SIZE
from kafpy.protocol.compression import NONE
from kafpy.protocol.errors import CorruptRecord
from kafpy.protocol.messages import KRaftVersionRecord, SnapshotFooterRecord, SnapshotHeaderRecord, VotersRecord
from kafpy.raft.batch_reader import Batch, read_batches
from kafpy.raft.control_records import ControlMessage, ControlRecordType, build_control_record_batch

__all__ = [
    "SUFFIX",
    "PARTIAL_SUFFIX",
    "DELETE_SUFFIX",
    "CLUSTER_METADATA_DIR",
    "SnapshotId",
    "SnapshotPath",
    "BOOTSTRAP_SNAPSHOT_ID",
    "MAX_BATCH_SIZE_BYTES",
    "snapshot_filename",
    "snapshot_path",
    "parse_snapshot_path",
    "RawSnapshotWriter",
    "RecordsSnapshotWriter",
    "SnapshotReader",
    "read_snapshot",
]

T = TypeVar("T")

SUFFIX = ".checkpoint"
PARTIAL_SUFFIX = ".checkpoint.part"
DELETE_SUFFIX = ".checkpoint.deleted"
CLUSTER_METADATA_DIR = "__cluster_metadata-0"
_OFFSET_WIDTH = 20
_EPOCH_WIDTH = 10
# KafkaRaftClient.MAX_BATCH_SIZE_BYTES: what the controller and the format tool write snapshots with
MAX_BATCH_SIZE_BYTES = 8 * 1024 * 1024


class SnapshotId(NamedTuple):
    """Kafka's ``OffsetAndEpoch`` naming a snapshot: the log's end offset it covers and its epoch."""

    end_offset: int
    epoch: int


BOOTSTRAP_SNAPSHOT_ID = SnapshotId(0, 0)


class SnapshotPath(NamedTuple):
    """A file of a snapshot directory, parsed (Kafka's ``SnapshotPath``)."""

    path: Path
    snapshot_id: SnapshotId
    partial: bool
    deleted: bool


def snapshot_filename(snapshot_id: SnapshotId) -> str:
    """``00000000000000000042-0000000003`` (no suffix)."""
    return f"{snapshot_id.end_offset:0{_OFFSET_WIDTH}d}-{snapshot_id.epoch:0{_EPOCH_WIDTH}d}"


def snapshot_path(log_dir: str | Path, snapshot_id: SnapshotId) -> Path:
    """The frozen snapshot's path in the partition directory ``log_dir``."""
    return Path(log_dir) / (snapshot_filename(snapshot_id) + SUFFIX)


def parse_snapshot_path(path: str | Path) -> SnapshotPath | None:
    """The snapshot a file name stands for, or None if it is not a snapshot file."""
    p = Path(path)
    name = p.name
    partial = name.endswith(PARTIAL_SUFFIX)
    deleted = name.endswith(DELETE_SUFFIX)
    if not (partial or deleted or name.endswith(SUFFIX)):
        return None
    try:
        end_offset = int(name[:_OFFSET_WIDTH])
        epoch = int(name[_OFFSET_WIDTH + 1:_OFFSET_WIDTH + 1 + _EPOCH_WIDTH])
    except ValueError:
        return None
    return SnapshotPath(p, SnapshotId(end_offset, epoch), partial, deleted)


class RawSnapshotWriter:
    """The bytes of one snapshot going to its ``.part`` file (Kafka's ``FileRawSnapshotWriter``).

    ``append`` writes whole batches; ``freeze`` makes the file final; ``close`` without
    ``freeze`` removes the ``.part`` file. Blocking file I/O: callers on an event loop run it
    in an executor."""

    def __init__(self, log_dir: str | Path, snapshot_id: SnapshotId) -> None:
        self.log_dir = Path(log_dir)
        self.snapshot_id = snapshot_id
        self.log_dir.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=snapshot_filename(snapshot_id) + "-", suffix=PARTIAL_SUFFIX,
                                    dir=self.log_dir)
        self.temp_path = Path(name)
        self._file = os.fdopen(fd, "ab")
        self._frozen_size = -1

    @property
    def is_frozen(self) -> bool:
        return self._frozen_size >= 0

    def size_in_bytes(self) -> int:
        return self._frozen_size if self.is_frozen else self._file.tell()

    def append(self, batches: bytes) -> None:
        if self.is_frozen:
            raise RuntimeError(f"Append is not supported. Snapshot is already frozen: id = {self.snapshot_id}")
        self._file.write(batches)

    def freeze(self) -> Path:
        """Flush, fsync, make read-only and rename to the final name; returns that path."""
        if self.is_frozen:
            raise RuntimeError(f"Freeze is not supported. Snapshot is already frozen: id = {self.snapshot_id}")
        self._file.flush()
        os.fsync(self._file.fileno())
        self._frozen_size = self._file.tell()
        self._file.close()
        mode = os.stat(self.temp_path).st_mode
        os.chmod(self.temp_path, mode & ~0o222)
        destination = snapshot_path(self.log_dir, self.snapshot_id)
        os.replace(self.temp_path, destination)
        dir_fd = os.open(self.log_dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        return destination

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()
        if not self.is_frozen:
            self.temp_path.unlink(missing_ok=True)


class RecordsSnapshotWriter(Generic[T]):
    """Records to a snapshot in Kafka's layout (``RecordsSnapshotWriter``): header batch first,
    data batches, footer batch on ``freeze``.

    ``kraft_version`` 1 adds the KRaftVersionRecord (and the VotersRecord when ``voters`` is
    given) to the header batch; with 0 a voter set is refused, as Kafka refuses it."""

    def __init__(
        self,
        raw: RawSnapshotWriter,
        write_value: Callable[[T], bytes],
        now_ms: Callable[[], int],
        *,
        last_contained_log_timestamp: int = 0,
        kraft_version: int = 1,
        voters: VotersRecord | None = None,
        max_batch_size: int = MAX_BATCH_SIZE_BYTES,
        compression: int = NONE,
    ) -> None:
        if raw.size_in_bytes() != 0:
            raise ValueError(f"Initializing writer with a non-empty snapshot: {raw.snapshot_id}")
        if kraft_version == 0 and voters is not None:
            raise ValueError("Voter set not expected when the kraft.version is 0")
        self.raw = raw
        self._write_value = write_value
        self._now_ms = now_ms
        self._epoch = raw.snapshot_id.epoch
        self._max_batch_size = max_batch_size
        self._compression = compression
        self._next_offset = 0
        self._pending: list[bytes] = []
        self._pending_size = BATCH_HEADER_SIZE
        self._pending_time = 0
        header: list[ControlMessage] = [
            SnapshotHeaderRecord(version=0, last_contained_log_timestamp=last_contained_log_timestamp)
        ]
        if kraft_version >= 1:
            header.append(KRaftVersionRecord(version=0, k_raft_version=kraft_version))
            if voters is not None:
                header.append(voters)
        self._append_control(header)

    def _append_control(self, messages: Sequence[ControlMessage]) -> None:
        batch = build_control_record_batch(messages, base_offset=self._next_offset, timestamp=self._now_ms(),
                                           leader_epoch=self._epoch)
        self._next_offset += len(messages)
        self.raw.append(batch)

    def _drain(self) -> None:
        if not self._pending:
            return
        now = self._pending_time
        batch = build_batch([(None, v, (), now) for v in self._pending], base_offset=self._next_offset,
                            base_timestamp=now, max_timestamp=now, partition_leader_epoch=self._epoch,
                            compression=self._compression)
        self._next_offset += len(self._pending)
        self._pending = []
        self._pending_size = BATCH_HEADER_SIZE
        self.raw.append(batch)

    def append(self, records: Sequence[T]) -> None:
        """Add records; they go into one batch together (a new one if the current is too full)."""
        if self.raw.is_frozen:
            raise RuntimeError(f"Append not supported. Snapshot is already frozen: id = '{self.raw.snapshot_id}'.")
        values = [self._write_value(r) for r in records]
        size = sum(len(v) + 12 for v in values)  # a record's framing is at most ~12 bytes here
        if size + BATCH_HEADER_SIZE > self._max_batch_size:
            raise ValueError(f"records of {size} bytes do not fit in a batch of {self._max_batch_size}")
        if self._pending_size + size > self._max_batch_size:
            self._drain()
        if not self._pending:
            self._pending_time = self._now_ms()  # Kafka stamps a batch when it starts it
        self._pending.extend(values)
        self._pending_size += size

    def freeze(self) -> Path:
        """Write the pending batch and the footer, then freeze the file; returns its path."""
        self._drain()
        self._append_control([SnapshotFooterRecord(version=0)])
        return self.raw.freeze()

    def close(self) -> None:
        self.raw.close()


@dataclass(frozen=True)
class SnapshotReader(Generic[T]):
    """A snapshot read whole: its id, header, kraft.version and voters records (if any), the
    data records in order, and its batches."""

    snapshot_id: SnapshotId | None
    header: SnapshotHeaderRecord
    kraft_version: KRaftVersionRecord | None
    voters: VotersRecord | None
    records: list[T]
    batches: list[Batch[T]]


def read_snapshot(data_or_path: bytes | str | Path, read_value: Callable[[bytes], T]) -> SnapshotReader[T]:
    """Read a snapshot file (or its bytes). ``CorruptRecord`` unless it starts with a
    SnapshotHeaderRecord and ends with a SnapshotFooterRecord, every batch decoding."""
    snapshot_id = None
    if isinstance(data_or_path, (str, Path)):
        parsed = parse_snapshot_path(data_or_path)
        snapshot_id = parsed.snapshot_id if parsed else None
        data = Path(data_or_path).read_bytes()
    else:
        data = data_or_path
    batches = list(read_batches(data, read_value))
    if not batches or not batches[0].control_records:
        raise CorruptRecord("snapshot does not start with a control batch")
    first = batches[0].control_records[0]
    if first.type is not ControlRecordType.SNAPSHOT_HEADER:
        raise CorruptRecord(f"Expected a snapshot header as the first record, found {first.type.name}")
    last = batches[-1]
    if not last.control_records or last.control_records[-1].type is not ControlRecordType.SNAPSHOT_FOOTER:
        raise CorruptRecord("snapshot does not end with a snapshot footer")
    kraft_version: KRaftVersionRecord | None = None
    voters: VotersRecord | None = None
    records: list[T] = []
    for batch in batches:
        records.extend(batch.records)
        for control in batch.control_records:
            if isinstance(control.message, KRaftVersionRecord):
                kraft_version = control.message
            elif isinstance(control.message, VotersRecord):
                voters = control.message
    header = first.message
    assert isinstance(header, SnapshotHeaderRecord)  # the type checked above
    return SnapshotReader(snapshot_id, header, kraft_version, voters, records, batches)
