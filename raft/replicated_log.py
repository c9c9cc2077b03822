"""What the consensus core needs of the ``__cluster_metadata-0`` log (Kafka's ``RaftLog`` /
``ReplicatedLog``): end offset, last fetched epoch, the epoch cache's answer for an epoch,
appends as leader and follower, truncation, reads of up to N bytes, and the Fetch validation
of Kafka's ``validateOffsetAndEpoch``. Records are opaque to the core: it hands the bytes a
leader's ``read`` returned to the follower's ``append_as_follower`` and nothing else.

``memory_log.MemoryReplicatedLog`` implements it for tests; ``metadata_log.KafkaMetadataLog``
is the on-disk log over storage's ``Log`` (it builds the LeaderChange control batch in
``append_leader_change``).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol, Sequence

from kafpy.raft.control_records import ControlMessage, ControlRecord
from kafpy.raft.quorum_state_store import ReplicaKey
from kafpy.raft.snapshot import SnapshotId
from kafpy.raft.voter_set_history import ControlBatch


@dataclass(frozen=True, order=True)
class OffsetAndEpoch:
    """An offset and the epoch it belongs to; ordered by epoch first, then offset, which is
    how a voter compares logs ("at least as up to date")."""

    epoch: int
    offset: int


class ValidKind(Enum):
    VALID = "valid"
    DIVERGING = "diverging"
    SNAPSHOT = "snapshot"


@dataclass(frozen=True)
class ValidOffsetAndEpoch:
    """Kafka's ``ValidOffsetAndEpoch``: the fetch position is on the log (VALID), the
    follower must truncate to ``offset_and_epoch`` (DIVERGING), or fetch the snapshot
    ``offset_and_epoch`` names (SNAPSHOT: its epoch and end offset)."""

    kind: ValidKind
    offset_and_epoch: OffsetAndEpoch


@dataclass(frozen=True)
class LogAppendInfo:
    first_offset: int
    last_offset: int


class RawSnapshotWriterProtocol(Protocol):
    """What the core needs of a snapshot it fetches (Kafka's ``RawSnapshotWriter``):
    ``snapshot.RawSnapshotWriter`` on disk, ``memory_log.MemorySnapshotWriter`` in tests.
    Its log learns of it when it is frozen."""

    @property
    def snapshot_id(self) -> SnapshotId: ...

    def size_in_bytes(self) -> int: ...

    def append(self, data: bytes) -> None: ...

    def freeze(self) -> object: ...

    def close(self) -> None: ...


class RawSnapshotReaderProtocol(Protocol):
    """What the leader needs to serve FetchSnapshot (Kafka's ``RawSnapshotReader``)."""

    @property
    def snapshot_id(self) -> SnapshotId: ...

    def size_in_bytes(self) -> int: ...

    def slice(self, position: int, max_bytes: int) -> bytes: ...


class ReplicatedLog(Protocol):
    """The log the core replicates; one per node."""

    def start_offset(self) -> int: ...

    def end_offset(self) -> int:
        """The offset the next appended entry gets (Kafka's LEO)."""
        ...

    def flush(self) -> None:
        """Make everything appended durable (fsync); the driver calls it before a node tells
        anyone how far its log goes."""
        ...

    def last_fetched_epoch(self) -> int:
        """The epoch of the last entry (0 for an empty log)."""
        ...

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        """Kafka's ``endOffsetForEpoch``: the end offset of the largest epoch <= ``epoch`` and
        that epoch; the log end and last epoch when ``epoch`` is past the last one."""
        ...

    def append_as_leader(self, payloads: Sequence[bytes], epoch: int) -> LogAppendInfo:
        """Assign the next offsets to ``payloads`` and stamp them with ``epoch``."""
        ...

    def append_leader_change(self, epoch: int, leader_id: int, voters: Sequence[ReplicaKey],
                             granting_voters: Sequence[ReplicaKey]) -> LogAppendInfo:
        """Append the LeaderChange control entry that starts the leader's epoch (Kafka's
        LeaderChangeMessage: the voters, and those that granted this leader its vote)."""
        ...

    def append_control_records(self, epoch: int, messages: Sequence[ControlMessage]) -> LogAppendInfo:
        """Append ``messages`` as one control batch (a leader's KRaftVersion/Voters records)."""
        ...

    def control_batches(self, records: bytes) -> list[ControlBatch]:
        """What ``read`` returned as batches, control records decoded (data batches empty)."""
        ...

    def snapshot_control_records(self, snapshot_id: SnapshotId) -> list[ControlRecord]:
        """The control records at the head of a snapshot (its KRaftVersion and Voters)."""
        ...

    def append_as_follower(self, records: bytes) -> LogAppendInfo | None:
        """Append what the leader's ``read`` returned (offsets and epochs as the leader set
        them); ``None`` when ``records`` is empty."""
        ...

    def truncate_to(self, offset: int) -> None:
        """Remove every entry at ``offset`` and above."""
        ...

    def read(self, offset: int, max_bytes: int) -> bytes:
        """Records from ``offset`` on, about ``max_bytes`` (at least one entry when any)."""
        ...

    def update_high_watermark(self, offset: int) -> None:
        """The core's high watermark moved (Kafka's ``updateHighWatermark``)."""
        ...

    def earliest_snapshot_id(self) -> SnapshotId | None:
        """The oldest snapshot (the one at the log start when the log start is above 0)."""
        ...

    def latest_snapshot_id(self) -> SnapshotId | None:
        ...

    def create_new_snapshot_unchecked(self, snapshot_id: SnapshotId) -> RawSnapshotWriterProtocol | None:
        """A writer for a snapshot fetched from the leader (not checked against this log);
        None when this log has it already. Frozen, the log knows it."""
        ...

    def read_snapshot(self, snapshot_id: SnapshotId) -> RawSnapshotReaderProtocol | None:
        ...

    def truncate_to_latest_snapshot(self) -> bool:
        """Truncate fully to the latest snapshot when it is past the log's end (Kafka's
        ``truncateToLatestSnapshot``); whether it did."""
        ...


def validate_offset_and_epoch(log: ReplicatedLog, offset: int, epoch: int) -> ValidOffsetAndEpoch:
    """Kafka's ``validateOffsetAndEpoch``: is the follower's (FetchOffset, LastFetchedEpoch)
    on this log? If not, where it diverges, or the snapshot to fetch when the position is
    below the log start (or at it in another epoch, or in an epoch older than the snapshot's)."""
    start = log.start_offset()
    if start == 0 and offset == 0:
        return ValidOffsetAndEpoch(ValidKind.VALID, OffsetAndEpoch(0, 0))
    earliest = log.earliest_snapshot_id()
    if earliest is not None and (offset < start or (offset == start and epoch != earliest.epoch)
                                 or epoch < earliest.epoch):
        latest = log.latest_snapshot_id()
        if latest is None:
            raise RuntimeError(f"Log start offset ({start}) is greater than zero but latest snapshot was not found")
        return ValidOffsetAndEpoch(ValidKind.SNAPSHOT, OffsetAndEpoch(latest.epoch, latest.end_offset))
    end = log.end_offset_for_epoch(epoch)
    if end.epoch != epoch or end.offset < offset:
        return ValidOffsetAndEpoch(ValidKind.DIVERGING, end)
    return ValidOffsetAndEpoch(ValidKind.VALID, OffsetAndEpoch(epoch, offset))


def truncate_to_end_offset(log: ReplicatedLog, diverging: OffsetAndEpoch) -> int:
    """Kafka's ``truncateToEndOffset``: truncate after a DivergingEpoch answer; returns the
    offset truncated to."""
    if diverging.epoch == 0:
        offset = min(diverging.offset, log.end_offset())
    else:
        local = log.end_offset_for_epoch(diverging.epoch)
        offset = min(local.offset, diverging.offset) if local.epoch == diverging.epoch else local.offset
    log.truncate_to(offset)
    return offset
