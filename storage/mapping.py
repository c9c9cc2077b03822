"""A shared memory mapping of a file that holds no file descriptor (Kafka's ``MappedByteBuffer``).

Python's ``mmap.mmap`` keeps a duplicate of the descriptor it was given for as long as the
mapping lives (3.13's ``trackfd=False`` drops it), so every mapped index cost two
descriptors and a broker ran out of them at a few thousand partitions. The kernel keeps a
mapping valid after its file is closed; here libc's mmap(2) is called directly and the
descriptor closed by the caller right after, leaving one mapping and no descriptor, as the
JVM does. Where libc cannot be reached (not Linux) ``mmap.mmap`` is used instead.

Nothing on disk of its own. Who may call it: ``kafpy.storage.index``, on the thread owning the
index. The caller must not use ``view`` (or anything cut from it) after ``close()``: the
memory is gone then, and unlike ``mmap.mmap`` nothing refuses the access.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
from typing import Callable, Optional

__all__ = ["FileMapping"]

_PYBUF_WRITE = 0x200
_MS_SYNC = getattr(mmap, "MS_SYNC", 4)


def _load_libc() -> Optional[tuple[ctypes.CDLL, Callable[[Optional[int], int, int], memoryview]]]:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                              ctypes.c_long]
        libc.munmap.restype = ctypes.c_int
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        libc.msync.restype = ctypes.c_int
        libc.msync.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        view = ctypes.pythonapi.PyMemoryView_FromMemory
        view.restype = ctypes.py_object
        view.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return libc, view


_LIBC = _load_libc()
_MAP_FAILED = ctypes.c_void_p(-1).value


class FileMapping:
    """``length`` bytes of the file open as ``fd``, mapped shared read-write; ``view`` is a
    writable memoryview of them. ``fd`` may be closed as soon as this returns."""

    __slots__ = ("view", "_addr", "_len", "_mm")

    def __init__(self, fd: int, length: int):
        self._len = length
        self._addr: Optional[int] = None
        self._mm: Optional[mmap.mmap] = None
        if _LIBC is None:
            self._mm = mmap.mmap(fd, length)
            self.view = memoryview(self._mm)
            return
        libc, from_memory = _LIBC
        addr = libc.mmap(None, length, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED, fd, 0)
        if addr is None or addr == _MAP_FAILED:
            err = ctypes.get_errno()
            raise OSError(err, f"mmap: {os.strerror(err)}")
        self._addr = addr
        self.view = from_memory(addr, length, _PYBUF_WRITE)

    def __len__(self) -> int:
        return self._len

    def flush(self) -> None:
        """msync(2): write the dirty pages to disk now."""
        if self._mm is not None:
            self._mm.flush()
        elif self._addr is not None and _LIBC is not None and _LIBC[0].msync(self._addr, self._len, _MS_SYNC) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"msync: {os.strerror(err)}")

    def close(self) -> None:
        """Unmap (idempotent)."""
        self.view.release()
        if self._mm is not None:
            self._mm.close()
            self._mm = None
        elif self._addr is not None and _LIBC is not None:
            _LIBC[0].munmap(self._addr, self._len)
            self._addr = None
