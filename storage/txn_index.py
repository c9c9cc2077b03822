"""Aborted-transaction index of one segment (``<base>.txnindex``).

On disk (Kafka's format): 34-byte entries ``(version int16 = 0, producer id int64,
first offset int64, last offset int64, last stable offset int64)``, one per ABORT
marker written into the segment, in marker order. The file is created on the first
entry (most segments have none). Consumers in read_committed mode get, with each
fetch, the aborted transactions overlapping the fetched range and drop their records.

Who may call it: the owning Log's thread; the cleaner copies entries into cleaned
segments.
"""

from __future__ import annotations

import logging
import os
import struct
from typing import NamedTuple, Optional

__all__ = ["AbortedTxn", "TransactionIndex", "TXN_INDEX_SUFFIX"]

log = logging.getLogger(__name__)

TXN_INDEX_SUFFIX = ".txnindex"
_ENTRY = struct.Struct(">hqqqq")


class AbortedTxn(NamedTuple):
    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int


class TransactionIndex:
    def __init__(self, path: str):
        self.path = path
        self._entries: Optional[list[AbortedTxn]] = None

    def _load(self) -> list[AbortedTxn]:
        if self._entries is None:
            entries: list[AbortedTxn] = []
            try:
                with open(self.path, "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                data = b""
            usable = len(data) - len(data) % _ENTRY.size
            if usable != len(data):
                log.warning("ignoring %d trailing bytes of %s", len(data) - usable, self.path)
            for pos in range(0, usable, _ENTRY.size):
                version, pid, first, last, lso = _ENTRY.unpack_from(data, pos)
                if version != 0:
                    log.warning("unknown aborted-txn entry version %d in %s", version, self.path)
                    break
                entries.append(AbortedTxn(pid, first, last, lso))
            self._entries = entries
        return self._entries

    @property
    def entries(self) -> list[AbortedTxn]:
        return list(self._load())

    def append(self, txn: AbortedTxn) -> None:
        entries = self._load()
        if entries and txn.last_offset <= entries[-1].last_offset:
            return  # already recorded (a replay after a restart)
        with open(self.path, "ab") as f:
            f.write(_ENTRY.pack(0, *txn))
        entries.append(txn)

    def collect(self, start_offset: int, upper_bound_offset: int) -> list[AbortedTxn]:
        """Entries whose range overlaps [start_offset, upper_bound_offset)."""
        if self._entries is None and not os.path.exists(self.path):
            return []
        return [t for t in self._load() if t.last_offset >= start_offset and t.first_offset < upper_bound_offset]

    def truncate_to(self, offset: int) -> None:
        """Drop entries whose marker is at or after ``offset``."""
        if self._entries is None and not os.path.exists(self.path):
            return
        entries = self._load()
        keep = [t for t in entries if t.last_offset < offset]
        if len(keep) != len(entries):
            self._rewrite(keep)

    def reset(self) -> None:
        self._rewrite([])

    def _rewrite(self, entries: list[AbortedTxn]) -> None:
        self._entries = list(entries)
        if not entries:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
            return
        with open(self.path, "wb") as f:
            f.write(b"".join(_ENTRY.pack(0, *t) for t in entries))

    def flush(self) -> None:
        if os.path.exists(self.path):
            fd = os.open(self.path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def rename(self, new_path: str) -> None:
        if os.path.exists(self.path):
            os.replace(self.path, new_path)
        self.path = new_path

    def delete(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
