"""An in-memory ``ReplicatedLog`` for the core's tests and the simulation: entries are
(offset, epoch, payload) with an epoch cache like the leader-epoch checkpoint. Its records on
the "wire" are its own framing (offset int64, epoch int32, control int8, length int32,
payload), which only it reads: the core passes them along unopened.

Snapshots are byte strings keyed by ``SnapshotId``; ``take_snapshot`` (the simulation's
state machine) frames the entries below its end offset after the snapshot the log starts
at, ``delete_before_snapshot`` moves the log start to a snapshot, and FetchSnapshot moves
the bytes unopened as with the on-disk log.
"""
from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass
from typing import Callable, Sequence

from kafpy.protocol.messages import LeaderChangeMessage
from kafpy.raft.control_records import (
    ControlMessage, ControlRecord, ControlRecordType, control_record_key, control_type_of, decode_control_value,
    encode_control_value, parse_control_record_type,
)
from kafpy.raft.kafka_raft_client import Batch
from kafpy.raft.quorum_state_store import ReplicaKey
from kafpy.raft.replicated_log import LogAppendInfo, OffsetAndEpoch
from kafpy.raft.snapshot import SnapshotId
from kafpy.raft.voter_set_history import ControlBatch

_HEADER = struct.Struct(">qibi")


@dataclass(frozen=True)
class Entry:
    offset: int
    epoch: int
    payload: bytes
    control: bool = False


class MemorySnapshotWriter:
    """A snapshot being written (a follower fetching it); ``freeze`` hands it to its log."""

    def __init__(self, snapshot_id: SnapshotId, on_frozen: Callable[[SnapshotId, bytes], None]) -> None:
        self.snapshot_id = snapshot_id
        self._data = bytearray()
        self._on_frozen = on_frozen
        self.frozen = False

    def size_in_bytes(self) -> int:
        return len(self._data)

    def append(self, data: bytes) -> None:
        if self.frozen:
            raise RuntimeError(f"Append is not supported. Snapshot is already frozen: id = {self.snapshot_id}")
        self._data += data

    def freeze(self) -> None:
        self.frozen = True
        self._on_frozen(self.snapshot_id, bytes(self._data))

    def close(self) -> None:
        self._data.clear()


class MemorySnapshotReader:
    def __init__(self, snapshot_id: SnapshotId, data: bytes) -> None:
        self.snapshot_id = snapshot_id
        self.data = data

    def size_in_bytes(self) -> int:
        return len(self.data)

    def slice(self, position: int, max_bytes: int) -> bytes:
        return self.data[position:position + max_bytes]


class MemoryReplicatedLog:
    """Keeps the entries from the log start in a list (offset == start + index), the epoch
    cache as parallel lists of (epoch, start offset), and the frozen snapshots."""

    def __init__(self, entries: Sequence[Entry] = ()) -> None:
        self.entries: list[Entry] = []
        self._start = 0
        self._epochs: list[int] = []
        self._epoch_starts: list[int] = []
        self.snapshots: dict[SnapshotId, bytes] = {}
        self.high_watermark = 0
        for e in entries:
            self._append(e.epoch, e.payload, e.control)

    def _append(self, epoch: int, payload: bytes, control: bool) -> Entry:
        if self._epochs and epoch < self._epochs[-1]:
            raise ValueError(f"epoch {epoch} below the log's last epoch {self._epochs[-1]}")
        entry = Entry(self.end_offset(), epoch, bytes(payload), control)
        self.entries.append(entry)
        if not self._epochs or epoch > self._epochs[-1]:
            self._epochs.append(epoch)
            self._epoch_starts.append(entry.offset)
        return entry

    def start_offset(self) -> int:
        return self._start

    def end_offset(self) -> int:
        return self._start + len(self.entries)

    def flush(self) -> None:
        """Nothing to make durable: the log lives in memory."""

    def last_fetched_epoch(self) -> int:
        if self._epochs:
            return self._epochs[-1]
        latest = self.latest_snapshot_id()
        return latest.epoch if latest is not None else 0

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        if self._epochs and epoch == self._epochs[-1]:
            return OffsetAndEpoch(epoch, self.end_offset())
        higher = bisect.bisect_right(self._epochs, epoch)
        if higher == len(self._epochs):  # past every epoch, or an empty cache
            return OffsetAndEpoch(self.last_fetched_epoch(), self.end_offset())
        if higher == 0:  # before every epoch: the oldest snapshot, if the log starts at it
            earliest = self.earliest_snapshot_id()
            if earliest is not None and earliest.end_offset == self._epoch_starts[0]:
                return OffsetAndEpoch(earliest.epoch, earliest.end_offset)
            return OffsetAndEpoch(epoch, self._epoch_starts[0])
        return OffsetAndEpoch(self._epochs[higher - 1], self._epoch_starts[higher])

    def append_as_leader(self, payloads: Sequence[bytes], epoch: int) -> LogAppendInfo:
        if not payloads:
            raise ValueError("nothing to append")
        first = self.end_offset()
        for p in payloads:
            self._append(epoch, p, False)
        return LogAppendInfo(first, self.end_offset() - 1)

    def append_leader_change(self, epoch: int, leader_id: int, voters: Sequence[ReplicaKey],
                             granting_voters: Sequence[ReplicaKey]) -> LogAppendInfo:
        message = LeaderChangeMessage(
            version=0, leader_id=leader_id,
            voters=[LeaderChangeMessage.Voter(voter_id=v.id) for v in voters],
            granting_voters=[LeaderChangeMessage.Voter(voter_id=v.id) for v in granting_voters])
        entry = self._append(epoch, encode_control_payload(message), True)
        return LogAppendInfo(entry.offset, entry.offset)

    def append_control_records(self, epoch: int, messages: Sequence[ControlMessage]) -> LogAppendInfo:
        first = self.end_offset()
        for message in messages:
            self._append(epoch, encode_control_payload(message), True)
        return LogAppendInfo(first, self.end_offset() - 1)

    def control_batches(self, records: bytes) -> list[ControlBatch]:
        return [ControlBatch(b.base_offset, b.last_offset, [decode_control_payload(r) for r in b.records]
                             if b.control else []) for b in decode_batches(records)]

    def snapshot_control_records(self, snapshot_id: SnapshotId) -> list[ControlRecord]:
        """The control entries a snapshot starts with (none when a test stored bytes that are
        not this log's framing)."""
        out: list[ControlRecord] = []
        try:
            batches = decode_batches(self.snapshots.get(snapshot_id, b""))
        except struct.error:
            return []
        for batch in batches:
            if not batch.control:
                break
            out.extend(decode_control_payload(r) for r in batch.records)
        return out

    def append_as_follower(self, records: bytes) -> LogAppendInfo | None:
        view = memoryview(records)
        first = None
        pos = 0
        while pos < len(view):
            offset, epoch, control, size = _HEADER.unpack_from(view, pos)
            pos += _HEADER.size
            if offset != self.end_offset():
                raise ValueError(f"follower append at {offset}, log end is {self.end_offset()}")
            self._append(epoch, bytes(view[pos:pos + size]), bool(control))
            pos += size
            if first is None:
                first = offset
        return None if first is None else LogAppendInfo(first, self.end_offset() - 1)

    def truncate_to(self, offset: int) -> None:
        if offset < 0:
            raise ValueError(f"truncate to {offset}")
        del self.entries[max(0, offset - self._start):]
        self.high_watermark = min(self.high_watermark, self.end_offset())
        keep = bisect.bisect_left(self._epoch_starts, offset)
        del self._epochs[keep:]
        del self._epoch_starts[keep:]

    def read(self, offset: int, max_bytes: int) -> bytes:
        if offset > self.end_offset():
            raise ValueError(f"read at {offset} past the log end {self.end_offset()}")
        out = bytearray()
        if offset < self._start:
            raise ValueError(f"read at {offset} below the log start {self._start}")
        for entry in self.entries[offset - self._start:]:
            if out and len(out) + _HEADER.size + len(entry.payload) > max_bytes:
                break
            out += _HEADER.pack(entry.offset, entry.epoch, int(entry.control), len(entry.payload))
            out += entry.payload
        return bytes(out)

    def update_high_watermark(self, offset: int) -> None:
        self.high_watermark = min(max(offset, self._start), self.end_offset())

    # -- snapshots -------------------------------------------------------------------------

    def earliest_snapshot_id(self) -> SnapshotId | None:
        return min(self.snapshots) if self.snapshots else None

    def latest_snapshot_id(self) -> SnapshotId | None:
        return max(self.snapshots) if self.snapshots else None

    def take_snapshot(self, end_offset: int) -> SnapshotId:
        """Snapshot the state up to ``end_offset`` (the snapshot the log starts at, if any,
        then the entries from the log start); its epoch is that of the entry before it."""
        if not self._start <= end_offset <= self.end_offset():
            raise ValueError(f"snapshot at {end_offset} outside [{self._start}, {self.end_offset()}]")
        epoch = self.entries[end_offset - self._start - 1].epoch if end_offset > self._start else \
            self.last_fetched_epoch()
        base = next((d for sid, d in self.snapshots.items() if sid.end_offset == self._start), b"")
        data = base + self.read_range(self._start, end_offset)
        snapshot_id = SnapshotId(end_offset, epoch)
        self.snapshots[snapshot_id] = data
        return snapshot_id

    def read_range(self, start: int, end: int) -> bytes:
        out = bytearray()
        for entry in self.entries[start - self._start:end - self._start]:
            out += _HEADER.pack(entry.offset, entry.epoch, int(entry.control), len(entry.payload))
            out += entry.payload
        return bytes(out)

    def create_new_snapshot_unchecked(self, snapshot_id: SnapshotId) -> MemorySnapshotWriter | None:
        if snapshot_id in self.snapshots:
            return None
        return MemorySnapshotWriter(snapshot_id, self.snapshots.__setitem__)

    def read_snapshot(self, snapshot_id: SnapshotId) -> MemorySnapshotReader | None:
        data = self.snapshots.get(snapshot_id)
        return None if data is None else MemorySnapshotReader(snapshot_id, data)

    def _forget_snapshots_before(self, snapshot_id: SnapshotId) -> None:
        for sid in [s for s in self.snapshots if s < snapshot_id]:
            del self.snapshots[sid]

    def truncate_to_latest_snapshot(self) -> bool:
        latest = self.latest_snapshot_id()
        last_epoch = self._epochs[-1] if self._epochs else 0
        if latest is None or not (latest.epoch > last_epoch or
                                  (latest.epoch == last_epoch and latest.end_offset > self.end_offset())):
            return False
        self.entries.clear()
        self._epochs.clear()
        self._epoch_starts.clear()
        self._start = latest.end_offset
        self._forget_snapshots_before(latest)
        return True

    def delete_before_snapshot(self, snapshot_id: SnapshotId) -> bool:
        """Move the log start to ``snapshot_id`` (a leader cleaning its log)."""
        latest = self.latest_snapshot_id()
        if latest is None or snapshot_id not in self.snapshots or \
                not self._start < snapshot_id.end_offset <= min(latest.end_offset, self.end_offset()):
            return False
        del self.entries[:snapshot_id.end_offset - self._start]
        self._start = snapshot_id.end_offset
        keep = max(0, bisect.bisect_right(self._epoch_starts, self._start) - 1)
        del self._epochs[:keep]
        del self._epoch_starts[:keep]
        if self._epoch_starts:
            self._epoch_starts[0] = max(self._epoch_starts[0], self._start)
        self._forget_snapshots_before(snapshot_id)
        return True


def encode_control_payload(message: ControlMessage) -> bytes:
    """A control entry's payload: the control record's key (version, type), then its value."""
    return control_record_key(control_type_of(message)) + encode_control_value(message)


def decode_control_payload(payload: bytes) -> ControlRecord:
    control_type = ControlRecordType(parse_control_record_type(payload[:4]))
    return ControlRecord(control_type, decode_control_value(control_type, payload[4:]))


def decode_batches(records: bytes) -> list[Batch]:
    """What ``read`` returned as the raft client's batches, one per entry (the client's
    ``BatchDecoder`` for this log)."""
    out: list[Batch] = []
    view = memoryview(records)
    pos = 0
    while pos < len(view):
        offset, epoch, control, size = _HEADER.unpack_from(view, pos)
        pos += _HEADER.size
        out.append(Batch(offset, offset, epoch, (bytes(view[pos:pos + size]),), bool(control), _HEADER.size + size))
        pos += size
    return out
