"""Leader epoch cache of one partition (``leader-epoch-checkpoint``).

Keeps ``(epoch, start offset)`` pairs in ascending order: the first offset written
in each leader epoch. Followers use it (OffsetsForLeaderEpoch) to find where their log
diverges. Every change is written through atomically (Kafka's text format, see
``kafpy.storage.checkpoint``); with a ``PendingFsyncs`` the write is fsynced later, in a batch
(see there for why that keeps Kafka's crash safety). Who may call it: the owning Log's
thread.
"""

from __future__ import annotations

import bisect
import logging
from typing import Callable, Optional

from kafpy.storage.checkpoint import LeaderEpochCheckpointFile, PendingFsyncs

__all__ = ["LeaderEpochFileCache", "UNDEFINED_EPOCH", "UNDEFINED_EPOCH_OFFSET"]

log = logging.getLogger(__name__)

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


class LeaderEpochFileCache:
    def __init__(self, path: Optional[str], log_end_offset: Callable[[], int],
                 pending: Optional[PendingFsyncs] = None):
        self._file = LeaderEpochCheckpointFile(path, pending) if path else None
        self._log_end_offset = log_end_offset
        self._epochs: list[int] = []
        self._offsets: list[int] = []
        if self._file is not None:
            for epoch, offset in self._file.read():
                self._epochs.append(epoch)
                self._offsets.append(offset)
        # the newest epoch, kept as a plain attribute (every change below sets it):
        # the Log compares it with the leader's epoch on every append
        self.latest_epoch = self._epochs[-1] if self._epochs else UNDEFINED_EPOCH
        self._written = tuple(self.entries())  # what the file holds (or will, after its deferred write)

    def entries(self) -> list[tuple[int, int]]:
        return list(zip(self._epochs, self._offsets))

    def _flush(self) -> None:
        """Write the entries unless the file already holds them (a partition that becomes
        leader again at the epoch it had rewrites nothing)."""
        entries = tuple(self.entries())
        if self._file is not None and entries != self._written:
            self._written = entries
            try:
                self._file.write(entries)
            except OSError as e:
                # the data it describes is already in the log; keep serving from memory
                # (the file is rewritten on the next change and rebuilt by recovery)
                log.error("writing %s failed: %s", self._file.path, e)

    def assign(self, epoch: int, start_offset: int, flush: bool = True) -> bool:
        """Record that ``epoch`` starts at ``start_offset``; True if the cache changed.

        Ignores an epoch not larger than the latest (Kafka: only a new, higher epoch,
        or a lower start offset for the latest one, is recorded). Entries that would
        break monotonicity (same or larger start offset with a smaller epoch) are removed.
        """
        if epoch < 0:
            return False
        if self._epochs and epoch == self._epochs[-1]:
            return False
        if self._epochs and epoch < self._epochs[-1]:
            log.warning("ignoring leader epoch %d at %d: latest is %d", epoch, start_offset, self._epochs[-1])
            return False
        # drop entries whose start offset is >= the new one (they are superseded)
        while self._offsets and self._offsets[-1] >= start_offset:
            self._epochs.pop()
            self._offsets.pop()
        self._epochs.append(epoch)
        self._offsets.append(start_offset)
        self.latest_epoch = epoch
        if flush:
            self._flush()
        return True

    def epoch_for_offset(self, offset: int) -> int:
        """Epoch in which ``offset`` was written, -1 if unknown."""
        i = bisect.bisect_right(self._offsets, offset) - 1
        return self._epochs[i] if i >= 0 else UNDEFINED_EPOCH

    def end_offset_for(self, requested_epoch: int) -> tuple[int, int]:
        """(epoch, end offset) as Kafka's OffsetsForLeaderEpoch answers.

        The latest epoch ends at the log end offset; an older one at the start offset
        of the next larger epoch, reported with the largest epoch <= requested.
        """
        if requested_epoch == UNDEFINED_EPOCH or not self._epochs:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        if requested_epoch == self._epochs[-1]:
            return requested_epoch, self._log_end_offset()
        hi = bisect.bisect_right(self._epochs, requested_epoch)
        if hi >= len(self._epochs):
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        if hi == 0:
            return requested_epoch, self._offsets[0]
        return self._epochs[hi - 1], self._offsets[hi]

    def truncate_from_end(self, end_offset: int, flush: bool = True) -> None:
        """Remove entries whose start offset >= ``end_offset`` (log truncated). Loading
        passes ``flush=False``: the entries it drops start at or after the log end, so
        the next load drops them again, and a leader taking up the same epoch leaves
        the file as it was."""
        changed = False
        while self._offsets and self._offsets[-1] >= end_offset:
            self._epochs.pop()
            self._offsets.pop()
            changed = True
        if changed:
            self.latest_epoch = self._epochs[-1] if self._epochs else UNDEFINED_EPOCH
            if flush:
                self._flush()

    def truncate_from_start(self, start_offset: int) -> None:
        """Log start moved to ``start_offset``: drop earlier epochs, keep the covering one."""
        i = bisect.bisect_right(self._offsets, start_offset) - 1
        if i < 0:
            return
        changed = i > 0 or self._offsets[i] != start_offset
        del self._epochs[:i]
        del self._offsets[:i]
        self._offsets[0] = start_offset
        if changed:
            self._flush()

    def clear(self) -> None:
        self._epochs.clear()
        self._offsets.clear()
        self.latest_epoch = UNDEFINED_EPOCH
        self._flush()

    def flush(self) -> None:
        self._flush()
