"""What the replica fetcher needs of a follower's local log, and the adapter over ``storage.Log``.

Who may call it: ``kafpy.replication.fetcher`` and ``kafpy.replication.truncation`` (through the
``FollowerLog`` protocol); whoever hosts a follower partition hands the fetcher one
``FollowerLog`` per partition (``StorageFollowerLog`` over the partition's ``storage.Log``).

The protocol mirrors the parts of Kafka's ``UnifiedLog`` that ``ReplicaFetcherThread``
uses. Leader epochs follow ``kafpy.storage.leader_epoch``: ``UNDEFINED_EPOCH`` (-1) where Kafka
has an empty ``Option``.
"""
from __future__ import annotations

from typing import Protocol

from kafpy.storage.leader_epoch import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from kafpy.storage.log import Log, LogAppendInfo

__all__ = ["FollowerLog", "StorageFollowerLog", "UNDEFINED_EPOCH", "UNDEFINED_EPOCH_OFFSET"]


class FollowerLog(Protocol):
    """A follower's log as the fetcher sees it. Used from the event loop's thread only."""

    @property
    def log_start_offset(self) -> int: ...

    @property
    def log_end_offset(self) -> int: ...

    @property
    def high_watermark(self) -> int: ...

    @property
    def latest_epoch(self) -> int:
        """The largest leader epoch in the log, ``UNDEFINED_EPOCH`` when it has none."""
        ...

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int] | None:
        """(largest epoch <= ``epoch`` the log knows, the end offset of that epoch in this
        log), as Kafka's ``UnifiedLog.endOffsetForEpoch``; None when the log knows no
        epoch <= ``epoch`` (or none at all)."""
        ...

    def append_as_follower(self, records: bytes | bytearray | memoryview) -> LogAppendInfo:
        """Appends the leader's batches unchanged (offsets, epochs, producer state)."""
        ...

    def truncate_to(self, offset: int) -> object: ...

    def truncate_fully_and_start_at(self, offset: int) -> None: ...

    def update_high_watermark(self, offset: int) -> int: ...

    def maybe_increment_log_start_offset(self, offset: int) -> None: ...


class StorageFollowerLog:
    """``FollowerLog`` over a ``storage.Log``: everything but the two epoch queries is the
    log's own method; those read its leader epoch cache."""

    __slots__ = ("log",)

    def __init__(self, log: Log) -> None:
        self.log = log

    @property
    def log_start_offset(self) -> int:
        return self.log.log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self.log.log_end_offset

    @property
    def high_watermark(self) -> int:
        return self.log.high_watermark

    @property
    def latest_epoch(self) -> int:
        return self.log.leader_epoch_cache.latest_epoch

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int] | None:
        found_epoch, offset = self.log.leader_epoch_cache.end_offset_for(epoch)
        if offset == UNDEFINED_EPOCH_OFFSET:
            return None
        return found_epoch, offset

    def append_as_follower(self, records: bytes | bytearray | memoryview) -> LogAppendInfo:
        return self.log.append_as_follower(records)

    def truncate_to(self, offset: int) -> bool:
        return self.log.truncate_to(offset)

    def truncate_fully_and_start_at(self, offset: int) -> None:
        self.log.truncate_fully_and_start_at(offset)

    def update_high_watermark(self, offset: int) -> int:
        return self.log.update_high_watermark(offset)

    def maybe_increment_log_start_offset(self, offset: int) -> None:
        self.log.maybe_increment_log_start_offset(offset)
