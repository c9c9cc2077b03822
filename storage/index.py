"""Sparse offset and time indexes of one log segment (``.index`` / ``.timeindex``).

On disk (Kafka's format, big-endian):
- ``<base>.index``: 8-byte entries ``(relative offset int32, file position int32)``;
  the offset is the *last* offset of the batch that starts at that position.
- ``<base>.timeindex``: 12-byte entries ``(timestamp int64, relative offset int32)``;
  the timestamp is the largest seen so far in the segment and the offset the last
  offset of the batch that carried it.

The index of the active segment is preallocated (sparse) to ``segment.index.bytes``
(rounded down to whole entries) and memory-mapped; entries are written through the
mapping only into blocks reserved with posix_fallocate (see ``_store``); it is trimmed to its real length when the
segment rolls and on close, so Kafka's tools and a restarted broker read exactly the
entries. A file left preallocated by a crash is recognised by its zero-filled tail: a
real offset-index entry never has position 0 (the first batch of a segment is never
indexed) and a real time-index entry is never all zero, so a binary search finds the
end.

Descriptors and mappings (as Kafka's lazy indexes): an index holds no file descriptor, only
its mapping (``kafpy.storage.mapping``); the descriptor is opened for the moment a mapping is
made, a file resized or blocks reserved. An index is mapped on first use (an empty new
segment's never is, so an idle partition costs no mapping), and ``unload()`` drops the
mapping of an inactive index until it is needed again.

Threading: the owning segment's thread; the cleaner only builds new indexes.
"""

from __future__ import annotations

import errno
import mmap
import os
import struct
import threading
from typing import Optional

from kafpy.storage.errors import CorruptIndexError
from kafpy.storage.mapping import FileMapping

__all__ = ["OffsetIndex", "TimeIndex"]

_OFF = struct.Struct(">ii")
_TIME = struct.Struct(">qi")
_POS = struct.Struct(">i")
_TS = struct.Struct(">q")
_LOAD_LOCK = threading.Lock()
_RESERVE_CHUNK = 64 * 1024
_UNMAPPED = memoryview(b"")  # ``_mm`` of an index with no mapping: reads and writes fail


class _Index:
    entry_size = 8
    _entry = _OFF

    def __init__(self, path: str, base_offset: int, max_index_size: int = 10485760, writable: bool = False):
        self.path = path
        self.base_offset = base_offset
        self.max_index_size = max(self.entry_size, max_index_size - max_index_size % self.entry_size)
        self._max_entries = self.max_index_size // self.entry_size
        self._writable = writable
        self._mapping: Optional[FileMapping] = None
        self._mm: memoryview = _UNMAPPED  # the mapping's bytes
        self._entries = 0
        self._loaded = False
        self.misaligned = False
        self._backed = 0  # bytes from the start known to have disk blocks
        self._no_fallocate = False

    # -- loading -----------------------------------------------------------------
    def _ensure(self) -> None:
        if not self._loaded:
            self._open()

    def _open(self) -> None:
        # the cleaner thread may look at an inactive segment's index while the event
        # loop does too; loading happens once, under a lock
        with _LOAD_LOCK:
            if not self._loaded:
                self._open_locked()

    def _open_fd(self) -> int:
        return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)

    def create_file(self) -> None:
        """Create the (empty) file if missing, without loading it (a new segment)."""
        if not self._loaded:
            os.close(self._open_fd())

    def _open_locked(self) -> None:
        fd = self._open_fd()
        try:
            size = os.fstat(fd).st_size
            self.misaligned = size % self.entry_size != 0
            size -= size % self.entry_size
            if size:
                mm = mmap.mmap(fd, size, prot=mmap.PROT_READ)
                try:
                    self._entries = self._find_end(mm, size // self.entry_size)
                finally:
                    mm.close()
            else:
                self._entries = 0
            self._map(self.max_index_size if self._writable else self._entries * self.entry_size, fd)
        finally:
            os.close(fd)
        self._loaded = True

    def _map(self, length: int, fd: Optional[int] = None) -> None:
        """Resize the file to ``length`` and map all of it (nothing when 0)."""
        self._backed = self._entries * self.entry_size
        self._unmap()
        own = fd is None
        mapped_fd = self._open_fd() if fd is None else fd
        try:
            os.ftruncate(mapped_fd, length)
            if length:
                self._mapping = FileMapping(mapped_fd, length)
                self._mm = self._mapping.view
        finally:
            if own:
                os.close(mapped_fd)

    def _unmap(self) -> None:
        if self._mapping is not None:
            self._mm = _UNMAPPED
            self._mapping.close()
            self._mapping = None

    def _is_blank(self, mm: mmap.mmap, i: int) -> bool:
        raise NotImplementedError

    def _find_end(self, mm: mmap.mmap, n: int) -> int:
        """Number of real entries: the first blank entry starts the preallocated tail."""
        if n == 0 or not self._is_blank(mm, n - 1):
            return n
        lo, hi = 0, n - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self._is_blank(mm, mid):
                hi = mid
            else:
                lo = mid + 1
        return lo

    # -- state ------------------------------------------------------------------
    @property
    def entries(self) -> int:
        self._ensure()
        return self._entries

    @property
    def max_entries(self) -> int:
        return self.max_index_size // self.entry_size

    def is_full(self) -> bool:
        if not self._loaded:
            self._open()
        return self._entries >= self._max_entries

    @property
    def size_in_bytes(self) -> int:
        return self.entries * self.entry_size

    def entry(self, i: int) -> tuple[int, int]:
        self._ensure()
        return self._entry.unpack_from(self._mm, i * self.entry_size)

    def make_writable(self) -> None:
        """Preallocate and map for appends (the segment became active again); an index not
        loaded yet is mapped so when it is first used."""
        if not self._writable:
            self._writable = True
            if self._loaded:
                self._map(self.max_index_size)

    def unload(self) -> None:
        """Drop the mapping of an inactive index (it loads again on next use); an active
        one keeps it."""
        if self._loaded and not self._writable:
            with _LOAD_LOCK:
                self._unmap()
                self._loaded = False

    def _largest_lower_bound(self, target: int, key: struct.Struct, field: int) -> int:
        """Slot of the largest entry whose key <= target, -1 if none; the key is ``key``
        unpacked at ``field`` bytes into each entry (no per-step Python call: the loop is
        on every Fetch and halves the cost of a lookup compared with a key function)."""
        hi = self._entries - 1
        if hi < 0:
            return -1
        unpack, mm, size = key.unpack_from, self._mm, self.entry_size
        if unpack(mm, field)[0] > target:
            return -1
        lo = 0
        while lo < hi:
            mid = (lo + hi + 1) >> 1
            if unpack(mm, mid * size + field)[0] <= target:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _store(self, st: struct.Struct, pos: int, a: int, b: int) -> None:
        """Write one entry at ``pos``.

        The preallocated file is sparse, and a store through the mapping into a page
        with no disk block behind it raises SIGBUS on a full disk, which would kill
        the broker. So blocks are reserved ahead with posix_fallocate (ENOSPC comes
        back as an OSError) and only reserved pages are written through the mapping;
        where fallocate is unsupported every entry goes in with pwrite.
        """
        end = pos + st.size
        if end <= self._backed or (not self._no_fallocate and self._reserve(end)):
            st.pack_into(self._mm, pos, a, b)
        else:
            self._pwrite(st.pack(a, b), pos)

    def _reserve(self, end: int) -> bool:
        start = self._backed
        length = min(max(end - start, _RESERVE_CHUNK), len(self._mm) - start)
        fd = self._open_fd()
        try:
            os.posix_fallocate(fd, start, length)
        except OSError as e:
            if e.errno in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                self._no_fallocate = True
                return False
            raise
        finally:
            os.close(fd)
        self._backed = start + length
        return True

    def _pwrite(self, entry: bytes, pos: int) -> None:
        # pwrite fails with ENOSPC where a store into the mapping would SIGBUS; the
        # shared mapping sees the bytes at once (same page cache)
        fd = self._open_fd()
        try:
            if os.pwrite(fd, entry, pos) != len(entry):
                raise OSError(errno.ENOSPC, "short index write")
        finally:
            os.close(fd)

    def _append_raw(self, a: int, b: int) -> None:
        if self._entries >= self.max_entries:
            raise CorruptIndexError(f"index {self.path} is full")
        if not self._writable:
            self.make_writable()
        self._store(self._entry, self._entries * self.entry_size, a, b)
        self._entries += 1

    def reserved_slots(self) -> int:
        """How many entries ``append_reserved`` may still store: below the capacity (one
        slot kept free, so that a full index makes the segment roll first) and inside
        blocks already reserved. 0 unless the index is loaded and writable."""
        if not self._loaded or not self._writable:
            return 0
        return min(self._max_entries - 1, self._backed // self.entry_size) - self._entries

    def truncate_entries(self, n: int) -> None:
        self._ensure()
        if n < self._entries:
            self._mm[n * self.entry_size:self._entries * self.entry_size] = bytes((self._entries - n) * self.entry_size)
            self._entries = n

    def reset(self) -> None:
        """Drop every entry (before a rebuild)."""
        self._ensure()
        self.truncate_entries(0)

    def flush(self) -> None:
        if self._mapping is not None:
            self._mapping.flush()

    def trim(self) -> None:
        """Shrink the file to its real entries (segment rolled or closing)."""
        if not self._loaded:
            self._writable = False  # never mapped: the file is as it was found
            return
        if self._writable:
            self._writable = False
            self._map(self._entries * self.entry_size)

    def close(self) -> None:
        """Trim to the real entries and release the mapping (a writable index is unmapped
        first and then cut, not mapped again at its trimmed size only to be unmapped)."""
        if not self._loaded:
            self._writable = False
            return
        writable, self._writable = self._writable, False
        self.close_without_trim()
        if writable:
            fd = self._open_fd()
            try:
                os.ftruncate(fd, self._entries * self.entry_size)
            finally:
                os.close(fd)

    def close_without_trim(self) -> None:
        """Release the mapping (the file is being deleted or replaced)."""
        self._unmap()
        self._loaded = False

    def rename(self, new_path: str) -> None:
        if os.path.exists(self.path):
            os.replace(self.path, new_path)
        self.path = new_path

    def delete(self) -> None:
        self.close_without_trim()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


class OffsetIndex(_Index):
    """Maps the last offset of an indexed batch to the batch's position in the ``.log``."""

    entry_size = 8
    _entry = _OFF

    def _is_blank(self, mm: mmap.mmap, i: int) -> bool:
        return _OFF.unpack_from(mm, i * 8)[1] == 0

    def append(self, offset: int, position: int) -> None:
        if not self._loaded:
            self._open()
        rel = offset - self.base_offset
        n = self._entries
        if n and rel <= _POS.unpack_from(self._mm, (n - 1) * 8)[0]:
            raise CorruptIndexError(
                f"offset {offset} not larger than last entry in {self.path}")
        if n >= self._max_entries or not self._writable:
            self._append_raw(rel, position)
            return
        self._store(_OFF, n * 8, rel, position)
        self._entries = n + 1

    def append_reserved(self, offset: int, position: int) -> None:
        """``append`` without its checks, for the active segment's hot path, which has
        counted the slot against ``reserved_slots()`` and assigns increasing offsets."""
        n = self._entries
        _OFF.pack_into(self._mm, n * 8, offset - self.base_offset, position)
        self._entries = n + 1

    def lookup(self, offset: int) -> tuple[int, int]:
        """(offset, position) of the largest entry with offset <= ``offset``, else (base, 0)."""
        self._ensure()
        mm, base = self._mm, self.base_offset
        slot = self._largest_lower_bound(offset - base, _POS, 0)
        if slot < 0:
            return base, 0
        rel, pos = _OFF.unpack_from(mm, slot * 8)
        return base + rel, pos

    def position_at_or_before(self, position: int) -> int:
        """Largest indexed position <= ``position`` (0 if none): positions ascend too."""
        self._ensure()
        mm = self._mm
        slot = self._largest_lower_bound(position, _POS, 4)
        return 0 if slot < 0 else _POS.unpack_from(mm, slot * 8 + 4)[0]

    def last_offset(self) -> int:
        self._ensure()
        if not self._entries:
            return self.base_offset
        return self.base_offset + self.entry(self._entries - 1)[0]

    def truncate_to(self, offset: int) -> None:
        """Remove entries for offsets >= ``offset``."""
        self._ensure()
        slot = self._largest_lower_bound(offset - self.base_offset - 1, _POS, 0)
        self.truncate_entries(slot + 1)

    def sanity_check(self, log_size: int) -> None:
        """Cheap check as Kafka does: whole entries, first and last inside the segment."""
        self._ensure()
        if self.misaligned:
            raise CorruptIndexError(f"index {self.path} is not a whole number of entries")
        if not self._entries:
            return
        first_rel, first_pos = self.entry(0)
        last_rel, last_pos = self.entry(self._entries - 1)
        if first_rel < 0 or last_rel < first_rel or first_pos <= 0 or last_pos >= log_size:
            raise CorruptIndexError(f"corrupt index {self.path}")


class TimeIndex(_Index):
    """Maps a timestamp to the last offset of the batch that first reached it."""

    entry_size = 12
    _entry = _TIME

    def _is_blank(self, mm: mmap.mmap, i: int) -> bool:
        return _TIME.unpack_from(mm, i * 12) == (0, 0)

    def last_entry(self) -> tuple[int, int]:
        """(timestamp, offset) of the last entry, (-1, base) when empty."""
        self._ensure()
        if not self._entries:
            return -1, self.base_offset
        ts, rel = self.entry(self._entries - 1)
        return ts, self.base_offset + rel

    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False,
                     closing: bool = False) -> None:
        """An entry for a new largest timestamp. ``closing``: the segment rolls or closes and
        the index is trimmed right after, so the entry goes in with pwrite, without reserving
        blocks or storing through the mapping (a store into a fresh page faults a block in,
        which waits behind the journal while other logs fsync: milliseconds per partition
        at shutdown)."""
        if not self._loaded:
            self._open()
        n = self._entries
        rel = offset - self.base_offset
        if n:
            last_ts, last_rel = _TIME.unpack_from(self._mm, (n - 1) * 12)
            if timestamp <= last_ts:
                return
            if rel < last_rel:
                raise CorruptIndexError(f"time index offset going backwards in {self.path}")
        if n >= self._max_entries:
            if skip_full_check:
                return
        elif self._writable:
            if closing:
                self._pwrite(_TIME.pack(timestamp, rel), n * 12)
            else:
                self._store(_TIME, n * 12, timestamp, rel)
            self._entries = n + 1
            return
        self._append_raw(timestamp, rel)

    def maybe_append_reserved(self, timestamp: int, offset: int) -> None:
        """``maybe_append`` without its checks, for the active segment's hot path (see
        ``OffsetIndex.append_reserved``): an entry only for a new largest timestamp."""
        n = self._entries
        if not n or timestamp > _TS.unpack_from(self._mm, (n - 1) * 12)[0]:
            _TIME.pack_into(self._mm, n * 12, timestamp, offset - self.base_offset)
            self._entries = n + 1

    def lookup(self, timestamp: int) -> tuple[int, int]:
        """(timestamp, offset) of the largest entry with ts <= ``timestamp``, else (-1, base)."""
        self._ensure()
        mm = self._mm
        slot = self._largest_lower_bound(timestamp, _TS, 0)
        if slot < 0:
            return -1, self.base_offset
        ts, rel = _TIME.unpack_from(mm, slot * 12)
        return ts, self.base_offset + rel

    def truncate_to(self, offset: int) -> None:
        """Remove entries whose offset >= ``offset``."""
        self._ensure()
        n = self._entries
        while n and self.base_offset + self.entry(n - 1)[1] >= offset:
            n -= 1
        self.truncate_entries(n)

    def sanity_check(self) -> None:
        self._ensure()
        if self.misaligned:
            raise CorruptIndexError(f"time index {self.path} is not a whole number of entries")
        if self._entries > 1:
            ts0, rel0 = self.entry(0)
            ts1, rel1 = self.entry(self._entries - 1)
            if ts1 < ts0 or rel1 < rel0 or rel0 < 0:
                raise CorruptIndexError(f"corrupt time index {self.path}")
