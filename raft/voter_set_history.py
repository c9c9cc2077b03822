"""The kraft.version and the voter set at every offset of the ``__cluster_metadata`` log
(Kafka's ``KRaftControlRecordStateMachine`` with its ``VoterSetHistory``): loaded from the
KRaftVersion / Voters control records of the latest snapshot's header (at the snapshot's
last contained offset, -1 for the bootstrap snapshot 0-0) and of the log, kept up to date as
the log is appended and truncated.

Who calls it: ``RaftCore`` after every change of its log (``update_state``, and
``truncate_new_entries`` before it re-reads a truncated log). The core uses the voter set at
the log end, uncommitted entries included, as Kafka does: for elections, the high watermark's
majority and the leader's voter-change handlers (``voter_changes``). Without any VotersRecord
the static voters (``controller.quorum.voters``) are the set, at kraft.version 0.

Only control batches are decoded: the log's ``control_batches`` gives a data batch as its
offsets alone, so following the log costs one header parse per batch.
"""
from __future__ import annotations

import bisect
import logging
from dataclasses import dataclass
from typing import Protocol, Sequence

from kafpy.protocol.messages import KRaftVersionRecord, VotersRecord
from kafpy.raft.control_records import ControlRecord
from kafpy.raft.snapshot import SnapshotId
from kafpy.raft.voter_set import VoterSet

log = logging.getLogger(__name__)

STARTING_NEXT_OFFSET = -1
READ_BYTES = 1024 * 1024  # read per step of the log


@dataclass(frozen=True)
class ControlBatch:
    """One batch of the log as the history sees it: its offsets and its control records
    (none for a data batch)."""

    base_offset: int
    last_offset: int
    records: Sequence[ControlRecord]


class ControlRecordLog(Protocol):
    """What the history reads of the log (a subset of ``ReplicatedLog``)."""

    def start_offset(self) -> int: ...

    def end_offset(self) -> int: ...

    def read(self, offset: int, max_bytes: int) -> bytes: ...

    def latest_snapshot_id(self) -> SnapshotId | None: ...

    def control_batches(self, records: bytes) -> list[ControlBatch]: ...

    def snapshot_control_records(self, snapshot_id: SnapshotId) -> list[ControlRecord]: ...


class _History:
    """Values by offset (Kafka's ``TreeMapLogHistory``), offsets strictly increasing."""

    def __init__(self) -> None:
        self.offsets: list[int] = []
        self.values: list[object] = []

    def add_at(self, offset: int, value: object) -> None:
        if self.offsets and offset <= self.offsets[-1]:
            raise ValueError(f"next offset {offset} must be greater than the last offset {self.offsets[-1]}")
        self.offsets.append(offset)
        self.values.append(value)

    def value_at_or_before(self, offset: int) -> object | None:
        i = bisect.bisect_right(self.offsets, offset)
        return self.values[i - 1] if i else None

    def last(self) -> tuple[int, object] | None:
        return (self.offsets[-1], self.values[-1]) if self.offsets else None

    def truncate_new_entries(self, end_offset: int) -> None:
        keep = bisect.bisect_left(self.offsets, end_offset)
        del self.offsets[keep:], self.values[keep:]

    def truncate_old_entries(self, start_offset: int) -> None:
        """Forget what is below ``start_offset`` but the last value before it (still in force)."""
        keep = bisect.bisect_right(self.offsets, start_offset) - 1
        if keep > 0:
            del self.offsets[:keep], self.values[:keep]

    def clear(self) -> None:
        self.offsets.clear()
        self.values.clear()


class KRaftControlRecordStateMachine:
    """Keeps the static voters, the history of voter sets and of kraft.version, and the next
    offset of the log it has not read."""

    def __init__(self, static_voters: VoterSet, log_: ControlRecordLog) -> None:
        self.static_voters = static_voters
        self.log = log_
        self._voters = _History()
        self._kraft_versions = _History()
        self.next_offset = STARTING_NEXT_OFFSET

    # -- reading ---------------------------------------------------------------------------

    def last_kraft_version(self) -> int:
        last = self._kraft_versions.last()
        return last[1] if last is not None and isinstance(last[1], int) else 0

    def last_voter_set_entry(self) -> tuple[int, VoterSet] | None:
        """The offset and value of the last VotersRecord (-1: from the bootstrap snapshot)."""
        last = self._voters.last()
        if last is None:
            return None
        offset, value = last
        assert isinstance(value, VoterSet)
        return offset, value

    def last_voter_set_offset(self) -> int | None:
        entry = self.last_voter_set_entry()
        return None if entry is None else entry[0]

    def last_voter_set(self) -> VoterSet:
        """The voters at the log end (uncommitted included), with the last kraft.version."""
        entry = self.last_voter_set_entry()
        voters = self.static_voters if entry is None else entry[1]
        return voters.with_kraft_version(self.last_kraft_version())

    def voter_set_at(self, offset: int) -> VoterSet:
        value = self._voters.value_at_or_before(offset)
        voters = value if isinstance(value, VoterSet) else self.static_voters
        kraft = self._kraft_versions.value_at_or_before(offset)
        return voters.with_kraft_version(int(kraft) if isinstance(kraft, int) else 0)

    # -- following the log -----------------------------------------------------------------

    def update_state(self) -> bool:
        """Read what is new in the log (the latest snapshot first when the log starts past
        what was read); whether the voter set or kraft.version changed."""
        before = (self.last_voter_set_entry(), self.last_kraft_version())
        self._maybe_load_snapshot()
        self._maybe_load_log()
        return before != (self.last_voter_set_entry(), self.last_kraft_version())

    def truncate_new_entries(self, end_offset: int) -> None:
        """The log was truncated to ``end_offset``: what was read there is gone."""
        self._voters.truncate_new_entries(end_offset)
        self._kraft_versions.truncate_new_entries(end_offset)
        if self.next_offset > end_offset:
            self.next_offset = end_offset

    def reset(self) -> None:
        """Forget everything: the next ``update_state`` starts from the latest snapshot."""
        self._voters.clear()
        self._kraft_versions.clear()
        self.next_offset = STARTING_NEXT_OFFSET

    def truncate_old_entries(self, start_offset: int) -> None:
        self._voters.truncate_old_entries(start_offset)
        self._kraft_versions.truncate_old_entries(start_offset)

    def skip_data(self, first_offset: int, end_offset: int) -> None:
        """The leader appended data records only, from ``first_offset`` up to ``end_offset``:
        nothing there to read back."""
        if self.next_offset == first_offset:
            self.next_offset = end_offset

    def _maybe_load_snapshot(self) -> None:
        snapshot = self.log.latest_snapshot_id()
        if (self.next_offset == STARTING_NEXT_OFFSET or self.next_offset < self.log.start_offset()) \
                and snapshot is not None:
            self._voters.clear()
            self._kraft_versions.clear()
            offset = snapshot.end_offset - 1  # the snapshot's last contained offset
            log.info("Loading snapshot (%s) since log start offset (%s) is greater than the internal "
                     "listener's next offset (%s)", snapshot, self.log.start_offset(), self.next_offset)
            self._handle_records(self.log.snapshot_control_records(snapshot), offset, override=True)
            self.next_offset = snapshot.end_offset
        elif self.next_offset == STARTING_NEXT_OFFSET:
            self.next_offset = 0

    def _maybe_load_log(self) -> None:
        while self.next_offset < self.log.end_offset():
            batches = self.log.control_batches(self.log.read(self.next_offset, READ_BYTES))
            if not batches:
                return
            for batch in batches:
                if batch.last_offset < self.next_offset:
                    continue
                self._handle_records(batch.records, batch.base_offset, override=False)
                self.next_offset = batch.last_offset + 1

    def _handle_records(self, records: Sequence[ControlRecord], offset: int, *, override: bool) -> None:
        for delta, record in enumerate(records):
            at = offset if override else offset + delta
            message = record.message
            if isinstance(message, VotersRecord):
                voters = VoterSet.from_voters_record(message, self.last_kraft_version())
                log.info("Latest set of voters is %s at offset %s", sorted(voters.voters), at)
                self._voters.add_at(at, voters)
            elif isinstance(message, KRaftVersionRecord):
                log.info("Latest kraft.version is %s at offset %s", message.k_raft_version, at)
                self._kraft_versions.add_at(at, message.k_raft_version)
