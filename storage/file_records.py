"""A segment's ``.log`` file as the broker reads and sends it (Kafka's ``FileRecords``).

Keeps nothing of its own on disk: ``SegmentFile`` is the open descriptor of a ``.log``
file, shared by its segment and every ``FileRecordsSlice`` cut from it (a region the
broker sends with sendfile), so a fetch racing with retention or compaction still
reads what it was promised. Also here: Linux's fallocate(2), with which a segment
reserves disk blocks ahead of its end (see ``kafpy.storage.segment``).

Who may call it: the segment that owns the file, and the broker's network code for
the slices it sends (any thread; a slice only reads).
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import sys
from dataclasses import dataclass
from typing import Callable

from kafpy.storage.errors import KafkaStorageError

__all__ = ["SegmentFile", "FileRecordsSlice", "BatchPosition", "reserve_length", "reserve_blocks"]

log = logging.getLogger(__name__)

_RESERVE_MIN = 64 * 1024
_RESERVE_MAX = 8 * 1024 * 1024
_FALLOC_FL_KEEP_SIZE = 1


def _load_fallocate() -> Callable[[int, int, int, int], int] | None:
    """libc's fallocate(2), or None where there is none (then nothing is reserved)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).fallocate
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    fn.restype = ctypes.c_int
    return fn


_fallocate = _load_fallocate()


def reserve_length(size: int, end: int) -> int:
    """How much to reserve past ``size`` when an append would end at ``end``: a quarter
    of the segment, 64 KiB to 8 MiB, and at least up to ``end``."""
    return max(min(max(size // 4, _RESERVE_MIN), _RESERVE_MAX), end - size)

def reserve_blocks(fd: int, start: int, end: int, enabled: bool = True) -> int:
    """Reserve disk blocks of ``fd`` from ``start`` to past ``end`` (FALLOC_FL_KEEP_SIZE:
    the file's size stays); how far they are reserved, as far as callers need to know.

    Best effort: where fallocate is missing, turned off or refuses (unsupported
    filesystem, a full disk) nothing is reserved, the answer is past ``end`` so that
    the next try comes later, and the write itself reports what it must.
    """
    length = reserve_length(start, end)
    if _fallocate is None or not enabled:
        return end + length
    if _fallocate(fd, _FALLOC_FL_KEEP_SIZE, start, length) != 0:
        err = ctypes.get_errno()
        if err not in (errno.ENOSPC, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL, errno.EINTR):
            log.debug("fallocate on fd %d failed: %s", fd, os.strerror(err))
        return end + length
    return start + length


class SegmentFile:
    """The open descriptor of a ``.log`` file.

    Shared by the segment and every ``FileRecordsSlice`` cut from it; the descriptor is
    closed when the last of them lets go (or on an explicit ``close()`` at shutdown),
    which is what keeps a fetch racing with retention or compaction readable.

    An empty file is not kept open: it is created if missing and opened on the first
    ``fileno()`` (an append), so a partition nobody wrote to holds no descriptor; a
    broker hosting tens of thousands of partitions would run out of them otherwise.
    ``size`` is the file's size when this was made.
    """

    __slots__ = ("fd", "name", "size", "_shut")

    def __init__(self, path: str):
        self.name = path
        self._shut = False
        self.fd = -1
        try:
            self.size = os.stat(path).st_size
        except FileNotFoundError:
            os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644))
            self.size = 0
        if self.size:
            self.fileno()

    def fileno(self) -> int:
        if self.fd < 0:
            if self._shut:
                raise ValueError(f"{self.name} is closed")
            self.fd = os.open(self.name, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        return self.fd

    @property
    def is_open(self) -> bool:
        """A descriptor is held now (an empty file may not have been opened yet)."""
        return self.fd >= 0

    @property
    def closed(self) -> bool:
        return self._shut

    def close(self) -> None:
        self._shut = True
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)

    def __del__(self) -> None:
        try:
            self.close()
        except OSError:
            pass


class FileRecordsSlice:
    """A region of a segment file, sent with sendfile() by the broker.

    Holds a reference to the segment's file object, which keeps the descriptor open
    even if the segment is deleted meanwhile.
    """

    __slots__ = ("file", "position", "size")

    def __init__(self, file: SegmentFile, position: int, size: int):
        self.file = file
        self.position = position
        self.size = size

    def fileno(self) -> int:
        return self.file.fileno()

    def read_bytes(self) -> bytes:
        data = os.pread(self.file.fileno(), self.size, self.position)
        if len(data) != self.size:
            raise KafkaStorageError(f"short read: {len(data)} of {self.size} bytes")
        return data

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"FileRecordsSlice({self.file.name!r}, position={self.position}, size={self.size})"


@dataclass(slots=True)
class BatchPosition:
    """Where a batch sits in a segment (scan result)."""

    base_offset: int
    last_offset: int
    position: int
    size: int
