"""An in-memory ``ReplicatedLog`` for the core's tests and the simulation: entries are
(offset, epoch, payload) with an epoch cache like the leader-epoch checkpoint. Its records on
the "wire" are its own framing (offset int64, epoch int32, control int8, length int32,
payload), which only it reads: the core passes them along unopened.
"""
from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass
from typing import Sequence

from kafpy.protocol.codec import encode_data
from kafpy.protocol.messages import LeaderChangeMessage
from kafpy.raft.quorum_state_store import ReplicaKey
from kafpy.raft.replicated_log import LogAppendInfo, OffsetAndEpoch
from kafpy.raft.snapshot import SnapshotId

_HEADER = struct.Struct(">qibi")


@dataclass(frozen=True)
class Entry:
    offset: int
    epoch: int
    payload: bytes
    control: bool = False


class MemoryReplicatedLog:
    """Keeps the entries in a list (offset == index, the log starts at 0) and the epoch
    cache as parallel lists of (epoch, start offset)."""

    def __init__(self, entries: Sequence[Entry] = ()) -> None:
        self.entries: list[Entry] = []
        self._epochs: list[int] = []
        self._epoch_starts: list[int] = []
        for e in entries:
            self._append(e.epoch, e.payload, e.control)

    def _append(self, epoch: int, payload: bytes, control: bool) -> Entry:
        if self._epochs and epoch < self._epochs[-1]:
            raise ValueError(f"epoch {epoch} below the log's last epoch {self._epochs[-1]}")
        entry = Entry(len(self.entries), epoch, bytes(payload), control)
        self.entries.append(entry)
        if not self._epochs or epoch > self._epochs[-1]:
            self._epochs.append(epoch)
            self._epoch_starts.append(entry.offset)
        return entry

    def start_offset(self) -> int:
        return 0

    def end_offset(self) -> int:
        return len(self.entries)

    def last_fetched_epoch(self) -> int:
        return self._epochs[-1] if self._epochs else 0

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        if self._epochs and epoch == self._epochs[-1]:
            return OffsetAndEpoch(epoch, self.end_offset())
        higher = bisect.bisect_right(self._epochs, epoch)
        if higher == len(self._epochs):  # past every epoch, or an empty cache
            return OffsetAndEpoch(self.last_fetched_epoch(), self.end_offset())
        if higher == 0:  # before every epoch
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
        entry = self._append(epoch, encode_data(message, 0), True)
        return LogAppendInfo(entry.offset, entry.offset)

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
        del self.entries[offset:]
        keep = bisect.bisect_left(self._epoch_starts, offset)
        del self._epochs[keep:]
        del self._epoch_starts[keep:]

    def read(self, offset: int, max_bytes: int) -> bytes:
        if offset > self.end_offset():
            raise ValueError(f"read at {offset} past the log end {self.end_offset()}")
        out = bytearray()
        for entry in self.entries[offset:]:
            if out and len(out) + _HEADER.size + len(entry.payload) > max_bytes:
                break
            out += _HEADER.pack(entry.offset, entry.epoch, int(entry.control), len(entry.payload))
            out += entry.payload
        return bytes(out)

    def earliest_snapshot_id(self) -> SnapshotId | None:
        return None

    def latest_snapshot_id(self) -> SnapshotId | None:
        return None
