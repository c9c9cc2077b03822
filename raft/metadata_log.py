"""KRaft's replicated log on disk (Kafka's ``KafkaMetadataLog``): the ``ReplicatedLog`` the
consensus core drives, over storage's partition ``Log`` in
``<metadata.log.dir>/__cluster_metadata-0`` (segments, offset/time indexes,
``leader-epoch-checkpoint``, ``partition.metadata`` with the metadata topic id), plus the ``.checkpoint`` snapshots of that directory.

Who calls it: the KRaft driver (it opens the log and hands it to ``RaftCore``), the quorum
controller (``create_new_snapshot`` at or below the high watermark, ``maybe_clean``), and
``RaftCore`` itself for FetchSnapshot (``read_snapshot``, ``create_new_snapshot_unchecked``,
``truncate_to_latest_snapshot``).

As Kafka: the underlying log has no retention of its own (retention.ms/.bytes -1) and is
recovered batch by batch at every open (``lastShutdownClean = false``); retention is by
snapshot (``maybe_clean``: while the log plus the snapshots exceed
``metadata.max.retention.bytes``, or the oldest snapshot is older than
``metadata.max.retention.ms``, the log start moves to the next snapshot's end offset and the
segments wholly below it go). At open, ``.part`` and ``.deleted`` snapshot files and snapshots
below the log start are removed, and a snapshot past the log end (a follower that crashed
after fetching it) truncates the log fully to it. Kafka 4.4's format leaves the bootstrap
snapshot ``0-0`` and no segment: the log opens at 0 with that snapshot as its first.

Records are opaque here: ``append_as_leader`` puts each payload (a metadata record's serde
bytes) as the value of one record of a single batch. Blocking file I/O on the caller's thread;
the set of snapshots alone is guarded by a lock (a snapshot writer freezes its file, and the
snapshot joins the set, on a worker thread).
"""
from __future__ import annotations

import logging
import os
import struct
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.messages import LeaderChangeMessage, SnapshotHeaderRecord
from kafpy.raft.batch_reader import read_batches
from kafpy.protocol.batch_header import iter_batches
from kafpy.protocol.record_decoder import decode_records
from kafpy.raft.control_records import (
    ControlMessage, ControlRecord, build_control_record_batch, decode_control_batch, decode_control_record,
)
from kafpy.raft.kafka_raft_client import Batch
from kafpy.raft.quorum_state_store import ReplicaKey
from kafpy.raft.raft_messages import METADATA_TOPIC_ID
from kafpy.raft.replicated_log import LogAppendInfo, OffsetAndEpoch, ValidKind, validate_offset_and_epoch
from kafpy.raft.voter_set_history import ControlBatch
from kafpy.raft.snapshot import (
    CLUSTER_METADATA_DIR, DELETE_SUFFIX, MAX_BATCH_SIZE_BYTES, RawSnapshotWriter, SnapshotId,
    parse_snapshot_path, snapshot_filename, snapshot_path,
)
from kafpy.storage.config import LogConfig
from kafpy.storage.leader_epoch import UNDEFINED_EPOCH_OFFSET
from kafpy.storage.log import Log

__all__ = ["MetadataLogConfig", "KafkaMetadataLog", "NotifyingRawSnapshotWriter", "RawSnapshotReader", "MetadataLogError",
           "decode_batches"]

log = logging.getLogger(__name__)

_BATCH_LENGTH = struct.Struct(">qi")  # base offset, batch length: the first 12 bytes of a batch


class MetadataLogError(RuntimeError):
    """A metadata log directory in a state Kafka refuses (Kafka's ``IllegalStateException``)."""


@dataclass(frozen=True)
class MetadataLogConfig:
    """Kafka's ``MetadataLogConfig``: plain values of the KafkaConfig keys
    metadata.log.segment.bytes / .segment.ms, metadata.max.retention.bytes / .ms,
    metadata.log.segment.min.bytes (internal; below 8 MiB only in tests), the largest batch,
    the largest read, and the delay before a removed snapshot's file is unlinked."""

    segment_bytes: int = 1073741824
    segment_ms: int = 604800000
    retention_max_bytes: int = 104857600
    retention_ms: int = 604800000
    segment_min_bytes: int = MAX_BATCH_SIZE_BYTES
    max_batch_size_bytes: int = MAX_BATCH_SIZE_BYTES
    max_fetch_size_bytes: int = MAX_BATCH_SIZE_BYTES
    file_delete_delay_ms: int = 60000
    node_id: int = -1

    def log_config(self) -> LogConfig:
        if self.segment_bytes < self.segment_min_bytes:
            raise ValueError(f"Cannot set metadata.log.segment.bytes below {self.segment_min_bytes}: "
                             f"{self.segment_bytes}")
        return LogConfig(segment_bytes=self.segment_bytes, segment_ms=self.segment_ms,
                         retention_ms=-1, retention_bytes=-1, max_message_bytes=self.max_batch_size_bytes,
                         file_delete_delay_ms=self.file_delete_delay_ms)


class RawSnapshotReader:
    """A frozen snapshot file (Kafka's ``FileRawSnapshotReader``): its size and byte ranges,
    which FetchSnapshot serves chunk by chunk."""

    def __init__(self, path: Path, snapshot_id: SnapshotId) -> None:
        self.path = path
        self.snapshot_id = snapshot_id
        self._size = path.stat().st_size

    def size_in_bytes(self) -> int:
        return self._size

    def slice(self, position: int, max_bytes: int) -> bytes:
        """Up to ``max_bytes`` from ``position`` (Kafka's ``slice``)."""
        with open(self.path, "rb") as f:
            f.seek(position)
            return f.read(max(0, min(max_bytes, self._size - position)))

    def read_all(self) -> bytes:
        return self.path.read_bytes()

    def last_contained_log_timestamp(self) -> int:
        """The SnapshotHeaderRecord's timestamp (Kafka's ``Snapshots.lastContainedLogTimestamp``)."""
        with open(self.path, "rb") as f:
            head = f.read(_BATCH_LENGTH.size)
            if len(head) < _BATCH_LENGTH.size:
                return -1
            _, length = _BATCH_LENGTH.unpack(head)
            batch = head + f.read(length)
        _, records = decode_control_batch(batch)
        message = records[0].message if records else None
        return message.last_contained_log_timestamp if isinstance(message, SnapshotHeaderRecord) else -1


class NotifyingRawSnapshotWriter(RawSnapshotWriter):
    """A snapshot writer that tells its log when it is frozen (Kafka's
    ``NotifyingRawSnapshotWriter``), so a fetched or written snapshot joins the log's set."""

    def __init__(self, log_dir: Path, snapshot_id: SnapshotId, on_frozen: Callable[[SnapshotId], None]) -> None:
        super().__init__(log_dir, snapshot_id)
        self._on_frozen = on_frozen

    def freeze(self) -> Path:
        path = super().freeze()
        self._on_frozen(self.snapshot_id)
        return path


class KafkaMetadataLog:
    """Keeps the partition ``Log``, the set of frozen snapshot ids (sorted), the high
    watermark the core reports, and the snapshot files waiting for their deletion delay."""

    def __init__(self, metadata_log_dir: str | Path, config: MetadataLogConfig = MetadataLogConfig(),
                 *, now_ms: Callable[[], int]) -> None:
        self.dir = Path(metadata_log_dir) / CLUSTER_METADATA_DIR
        self.config = config
        self._now_ms = now_ms
        self.dir.mkdir(parents=True, exist_ok=True)
        self.log = Log(str(self.dir), config.log_config(), clock=lambda: now_ms() / 1000.0,
                       recovery_point=0, log_start_offset=0, needs_recovery=True, topic_id=METADATA_TOPIC_ID)
        # the set of frozen snapshots: a snapshot written on a worker thread joins it from
        # there (Kafka's ``snapshots synchronized``); every change swaps in a new sorted list
        self._snapshots_lock = threading.Lock()
        self._snapshots: list[SnapshotId] = self._recover_snapshots()
        self._pending_deletes: list[tuple[int, Path]] = []
        self.truncate_to_latest_snapshot()

    # -- opening ---------------------------------------------------------------------------

    def _recover_snapshots(self) -> list[SnapshotId]:
        """Kafka's ``recoverSnapshots``: keep the frozen snapshots at or above the log start,
        remove partial, deleted and older ones."""
        keep: list[SnapshotId] = []
        drop: list[Path] = []
        start = self.log.log_start_offset
        for entry in os.scandir(self.dir):
            parsed = parse_snapshot_path(entry.path)
            if parsed is None:
                continue
            if parsed.partial or parsed.deleted or parsed.snapshot_id.end_offset < start:
                drop.append(parsed.path)
            else:
                keep.append(parsed.snapshot_id)
        keep.sort()
        if start > 0 and not (keep and keep[-1].end_offset >= start):
            raise MetadataLogError(
                "Inconsistent snapshot state: there must be a snapshot at an offset larger then the "
                f"current log start offset {start}, but the latest snapshot is {keep[-1] if keep else None}")
        for path in drop:
            path.unlink(missing_ok=True)
            log.info("Deleted unneeded snapshot file with path %s", path)
        log.info("Initialized snapshots with IDs %s from %s", keep, self.dir)
        return keep

    # -- the ReplicatedLog protocol --------------------------------------------------------

    def start_offset(self) -> int:
        return self.log.log_start_offset

    def end_offset(self) -> int:
        return self.log.log_end_offset

    def last_fetched_epoch(self) -> int:
        latest = self.log.leader_epoch_cache.latest_epoch
        if latest >= 0:
            return latest
        snapshot = self.latest_snapshot_id()
        if snapshot is None:
            return 0
        if snapshot.end_offset == self.start_offset() == self.end_offset():
            return snapshot.epoch  # an empty log after a snapshot
        raise MetadataLogError(
            f"Log doesn't have a last fetch epoch and there is a snapshot ({snapshot}). Expected the "
            f"snapshot's end offset to match the log's end offset ({self.end_offset()}) and the log "
            f"start offset ({self.start_offset()})")

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        found_epoch, found_offset = self.log.leader_epoch_cache.end_offset_for(epoch)
        if found_offset == UNDEFINED_EPOCH_OFFSET:
            return OffsetAndEpoch(self.last_fetched_epoch(), self.end_offset())
        earliest = self.earliest_snapshot_id()
        if earliest is not None and found_offset == earliest.end_offset and found_epoch == epoch:
            # the epoch is below the log's first: the oldest snapshot is where it diverges
            return OffsetAndEpoch(earliest.epoch, earliest.end_offset)
        return OffsetAndEpoch(found_epoch, found_offset)

    def _append_batch(self, batch: bytes, epoch: int) -> LogAppendInfo:
        info = self.log.append(batch, epoch, "coordinator")  # Kafka's AppendOrigin.RAFT_LEADER
        return LogAppendInfo(info.first_offset, info.last_offset)

    def append_as_leader(self, payloads: Sequence[bytes], epoch: int) -> LogAppendInfo:
        """One batch of ``payloads`` (record values), stamped with ``epoch`` and now."""
        if not payloads:
            raise ValueError("Attempt to append an empty record set")
        now = self._now_ms()
        batch = build_batch([(None, p, (), now) for p in payloads], base_offset=self.end_offset(),
                            base_timestamp=now, max_timestamp=now, partition_leader_epoch=epoch)
        return self._append_batch(batch, epoch)

    def append_leader_change(self, epoch: int, leader_id: int, voters: Sequence[ReplicaKey],
                             granting_voters: Sequence[ReplicaKey]) -> LogAppendInfo:
        """The LeaderChangeMessage control batch a new leader starts its epoch with (Kafka's
        ``LeaderState.appendStartOfEpochControlRecords``)."""
        message = LeaderChangeMessage(
            version=0, leader_id=leader_id,
            voters=[LeaderChangeMessage.Voter(voter_id=v.id) for v in voters],
            granting_voters=[LeaderChangeMessage.Voter(voter_id=v.id) for v in granting_voters])
        batch = build_control_record_batch(message, base_offset=self.end_offset(), timestamp=self._now_ms(),
                                           leader_epoch=epoch)
        return self._append_batch(batch, epoch)

    def append_control_records(self, epoch: int, messages: Sequence[ControlMessage]) -> LogAppendInfo:
        """One control batch of ``messages`` (a new leader's LeaderChange with the
        KRaftVersion and Voters records, or a lone VotersRecord of a voter change)."""
        batch = build_control_record_batch(list(messages), base_offset=self.end_offset(),
                                           timestamp=self._now_ms(), leader_epoch=epoch)
        return self._append_batch(batch, epoch)

    def control_batches(self, records: bytes) -> list[ControlBatch]:
        return control_batches(records)

    def snapshot_control_records(self, snapshot_id: SnapshotId) -> list[ControlRecord]:
        """The control records of the snapshot's first batch (its header: SnapshotHeader,
        KRaftVersion, Voters), read without the rest of the file."""
        reader = self.read_snapshot(snapshot_id)
        if reader is None:
            return []
        head = reader.slice(0, _BATCH_LENGTH.size)
        if len(head) < _BATCH_LENGTH.size:
            return []
        _, length = _BATCH_LENGTH.unpack(head)
        header, records = decode_control_batch(reader.slice(0, _BATCH_LENGTH.size + length))
        return records

    def append_as_follower(self, records: bytes) -> LogAppendInfo | None:
        if not records:
            return None
        info = self.log.append_as_follower(records)
        return LogAppendInfo(info.first_offset, info.last_offset)

    def truncate_to(self, offset: int) -> None:
        if offset < self.log.high_watermark:
            raise ValueError(f"Attempt to truncate to offset {offset}, which is below the current high "
                             f"watermark {self.log.high_watermark}")
        self.log.truncate_to(offset)

    def read(self, offset: int, max_bytes: int) -> bytes:
        info = self.log.read(offset, min(max_bytes, self.config.max_fetch_size_bytes))
        return b"" if info.records is None else info.records.read_bytes()

    # -- high watermark, flush, close ------------------------------------------------------

    def high_watermark(self) -> int:
        return self.log.high_watermark

    def update_high_watermark(self, offset: int) -> None:
        kept = self.log.update_high_watermark(offset)
        if kept != offset:
            log.warning("Log's high watermark (%s) is different from the local replica's high watermark (%s)",
                        kept, offset)

    def flush(self) -> None:
        self.log.flush()

    def close(self) -> None:
        self.log.close()

    # -- snapshots -------------------------------------------------------------------------

    def latest_snapshot_id(self) -> SnapshotId | None:
        return self._snapshots[-1] if self._snapshots else None

    def earliest_snapshot_id(self) -> SnapshotId | None:
        return self._snapshots[0] if self._snapshots else None

    def snapshot_ids(self) -> list[SnapshotId]:
        return list(self._snapshots)

    def create_new_snapshot(self, snapshot_id: SnapshotId) -> NotifyingRawSnapshotWriter | None:
        """A writer for a snapshot of the log up to ``snapshot_id`` (Kafka's
        ``createNewSnapshot``): None below the log start or when it exists; ``ValueError``
        above the high watermark or off the log."""
        if snapshot_id.end_offset < self.start_offset():
            log.info("Cannot create a snapshot with an id (%s) less than the log start offset (%s)",
                     snapshot_id, self.start_offset())
            return None
        if snapshot_id.end_offset > self.high_watermark():
            raise ValueError(f"Cannot create a snapshot with an id ({snapshot_id}) greater than the "
                             f"high-watermark ({self.high_watermark()})")
        valid = validate_offset_and_epoch(self, snapshot_id.end_offset, snapshot_id.epoch)
        if valid.kind is not ValidKind.VALID:
            raise ValueError(f"Snapshot id ({snapshot_id}) is not valid according to the log: {valid}")
        return self.create_new_snapshot_unchecked(snapshot_id)

    def create_new_snapshot_unchecked(self, snapshot_id: SnapshotId) -> NotifyingRawSnapshotWriter | None:
        """A writer for any snapshot id (a follower fetching the leader's snapshot); None
        when it exists. Frozen, it joins this log's snapshots."""
        if snapshot_id in self._snapshots:
            return None
        return NotifyingRawSnapshotWriter(self.dir, snapshot_id, self.on_snapshot_frozen)

    def on_snapshot_frozen(self, snapshot_id: SnapshotId) -> None:
        """A snapshot was frozen (on any thread): it joins the set."""
        with self._snapshots_lock:
            if snapshot_id not in self._snapshots:
                self._snapshots = sorted([*self._snapshots, snapshot_id])

    def read_snapshot(self, snapshot_id: SnapshotId) -> RawSnapshotReader | None:
        if snapshot_id not in self._snapshots:
            return None
        path = snapshot_path(self.dir, snapshot_id)
        try:
            return RawSnapshotReader(path, snapshot_id)
        except FileNotFoundError:
            log.warning("Couldn't read %s; expected to find snapshot file %s", snapshot_id, path)
            with self._snapshots_lock:
                self._snapshots = [s for s in self._snapshots if s != snapshot_id]
            return None

    def latest_snapshot(self) -> RawSnapshotReader | None:
        latest = self.latest_snapshot_id()
        return None if latest is None else self.read_snapshot(latest)

    def truncate_to_latest_snapshot(self) -> bool:
        """Truncate fully to the latest snapshot when it is past the log (Kafka's
        ``truncateToLatestSnapshot``): the follower then fetches from its end offset."""
        latest = self.latest_snapshot_id()
        latest_epoch = max(self.log.leader_epoch_cache.latest_epoch, 0)
        if latest is None or not (latest.epoch > latest_epoch or
                                  (latest.epoch == latest_epoch and latest.end_offset > self.end_offset())):
            return False
        self.log.truncate_fully_and_start_at(latest.end_offset)
        self._remove_snapshots(self._forget_snapshots_before(latest), "the partition was fully truncated")
        return True

    def delete_before_snapshot(self, snapshot_id: SnapshotId, reason: str = "for unknown reason") -> bool:
        """Move the log start to ``snapshot_id`` and remove the segments and snapshots below
        it (Kafka's ``deleteBeforeSnapshot``); whether anything went."""
        latest = self.latest_snapshot_id()
        if (latest is None or snapshot_id not in self._snapshots
                or not self.start_offset() < snapshot_id.end_offset <= latest.end_offset
                or snapshot_id.end_offset > self.high_watermark()):
            return False
        self.log.maybe_increment_log_start_offset(snapshot_id.end_offset)
        deleted = self.log.delete_old_segments(self._now_ms())
        forgotten = self._forget_snapshots_before(snapshot_id)
        self._remove_snapshots(forgotten, reason)
        return deleted != 0 or bool(forgotten)

    def clean(self) -> bool:
        """The raft client's minute job (Kafka's ``RaftMetadataLogCleanerManager``):
        ``maybe_clean``, then unlink what waited out its delete delay; whether anything went."""
        cleaned = self.maybe_clean()
        return self.delete_pending_files() > 0 or cleaned

    def maybe_clean(self) -> bool:
        """Kafka's ``maybeClean``: retention by bytes, then by time; whether anything went."""
        cleaned = self._clean_retention_size()
        cleaned |= self._clean_retention_ms()
        return cleaned

    def _clean(self, should_clean: Callable[[SnapshotId], str | None]) -> bool:
        cleaned = False
        for snapshot, next_snapshot in zip(list(self._snapshots), list(self._snapshots[1:])):
            reason = should_clean(snapshot)
            if reason is None or not self.delete_before_snapshot(next_snapshot, reason):
                return cleaned
            cleaned = True
        return cleaned

    def _clean_retention_size(self) -> bool:
        if self.config.retention_max_bytes < 0:
            return False
        sizes: dict[SnapshotId, int] = {}
        for sid in self._snapshots:
            reader = self.read_snapshot(sid)
            if reader is not None:
                sizes[sid] = reader.size_in_bytes()
        total = [sum(sizes.values())]

        def should_clean(sid: SnapshotId) -> str | None:
            size = sizes.get(sid)
            log_size = self.log.size_in_bytes()
            if size is None or log_size + total[0] <= self.config.retention_max_bytes:
                return None
            old_total = total[0]
            total[0] -= size
            return (f"the log size ({log_size}) and snapshots size ({old_total}) is greater than "
                    f"{self.config.retention_max_bytes}")
        return self._clean(should_clean)

    def _clean_retention_ms(self) -> bool:
        if self.config.retention_ms < 0:
            return False

        def should_clean(sid: SnapshotId) -> str | None:
            reader = self.read_snapshot(sid)
            if reader is None:
                return None
            timestamp = reader.last_contained_log_timestamp()
            now = self._now_ms()
            if now - timestamp > self.config.retention_ms:
                return f"its timestamp ({timestamp}) is now ({now}) older than the retention ({self.config.retention_ms})"
            return None
        return self._clean(should_clean)

    def _forget_snapshots_before(self, snapshot_id: SnapshotId) -> list[SnapshotId]:
        with self._snapshots_lock:
            forgotten = [s for s in self._snapshots if s < snapshot_id]
            self._snapshots = [s for s in self._snapshots if s >= snapshot_id]
        return forgotten

    def _remove_snapshots(self, snapshot_ids: list[SnapshotId], reason: str) -> None:
        """Rename to ``.checkpoint.deleted`` now, unlink after the file delete delay
        (Kafka's ``removeSnapshots``: a reader may still have it open)."""
        due = self._now_ms() + self.config.file_delete_delay_ms
        for sid in snapshot_ids:
            log.info("Marking snapshot %s for deletion because %s", sid, reason)
            source = snapshot_path(self.dir, sid)
            target = self.dir / (snapshot_filename(sid) + DELETE_SUFFIX)
            try:
                os.replace(source, target)
            except FileNotFoundError:
                continue
            self._pending_deletes.append((due, target))

    def delete_pending_files(self, force: bool = False) -> int:
        """Unlink removed snapshots and segments whose delete delay has passed; how many."""
        now = self._now_ms()
        done = [p for due, p in self._pending_deletes if force or due <= now]
        self._pending_deletes = [(due, p) for due, p in self._pending_deletes if not (force or due <= now)]
        for path in done:
            path.unlink(missing_ok=True)
        return len(done) + self.log.delete_pending_files(now, force)


def control_batches(records: bytes) -> list[ControlBatch]:
    """The batches of a read of this log with the control records decoded; data batches by
    their header alone (what ``voter_set_history`` follows)."""
    out: list[ControlBatch] = []
    for pos, header in iter_batches(records):
        controls = [decode_control_record(r) for r in decode_records(records, pos, header)] \
            if header.is_control else []
        out.append(ControlBatch(header.base_offset, header.last_offset, controls))
    return out


def decode_batches(records: bytes) -> list[Batch]:
    """What ``KafkaMetadataLog.read`` returned as the raft client's batches (its
    ``BatchDecoder``): Kafka record batches, each data record's value one payload; a control
    batch carries no payloads (listeners learn of leader changes from the client)."""
    return [Batch(b.base_offset, b.last_offset, b.epoch, tuple(b.records), b.is_control,
                  b.header.batch_length + _BATCH_LENGTH.size, b.header.max_timestamp)
            for b in read_batches(records, bytes)]
