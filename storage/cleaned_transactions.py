"""What the log cleaner does with transactions (Kafka's ``CleanedTransactionMetadata``).

A compacted log holds transactional batches and their COMMIT/ABORT markers. In one cleaning
pass, in offset order over every segment group:

- a batch of an aborted transaction loses its records and leaves the offset map alone: a
  key's committed value must not be compacted away behind a later value whose transaction
  aborted (read_committed consumers would then find no value at all);
- an ABORT marker is kept while the pass saw a batch of its transaction (even an emptied one
  kept for its producer's state), and so is its entry in the cleaned segment's transaction
  index; once none is left it may go, and its index entry goes with it;
- a COMMIT marker may go once the pass saw no batch of its transaction.

A marker that may go is still kept until ``delete.retention.ms`` has passed, as tombstones
are, and while it is its producer's last entry (see ``LogCleaner``).

Who may call it: ``kafpy.storage.cleaner`` on its own thread, one instance per pass; pure of
files and clocks.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Iterable

from kafpy.protocol.batch_builder import CONTROL_ABORT, CONTROL_COMMIT

from kafpy.storage.txn_index import AbortedTxn


class AbortedRanges:
    """The aborted transactions of a log by producer: which one, if any, a transactional
    batch of that producer belongs to (a producer's transactions never overlap)."""

    def __init__(self, txns: Iterable[AbortedTxn]) -> None:
        by_producer: dict[int, list[AbortedTxn]] = {}
        for t in txns:
            by_producer.setdefault(t.producer_id, []).append(t)
        self._txns = {pid: sorted(ts, key=lambda t: t.first_offset) for pid, ts in by_producer.items()}
        self._firsts = {pid: [t.first_offset for t in ts] for pid, ts in self._txns.items()}

    def __bool__(self) -> bool:
        return bool(self._txns)

    def containing(self, producer_id: int, offset: int) -> AbortedTxn | None:
        """The aborted transaction of ``producer_id`` whose range (first offset to marker)
        holds ``offset``."""
        firsts = self._firsts.get(producer_id)
        if not firsts:
            return None
        i = bisect_right(firsts, offset) - 1
        if i < 0:
            return None
        t = self._txns[producer_id][i]
        return t if offset <= t.last_offset else None


class CleanedTransactions:
    """One cleaning pass's view of transactions, fed every batch in offset order."""

    def __init__(self, aborted: AbortedRanges) -> None:
        self.aborted = aborted
        self._seen_aborted: set[AbortedTxn] = set()
        self._ongoing_committed: set[int] = set()   # producers with a batch seen since their last marker
        self.index_entries: list[AbortedTxn] = []   # for the segment being written; its writer drains it

    def on_batch(self, producer_id: int, base_offset: int, is_transactional: bool) -> bool:
        """A data batch: whether its records are to be dropped (its transaction aborted)."""
        if not is_transactional:
            return False
        txn = self.aborted.containing(producer_id, base_offset)
        if txn is not None:
            self._seen_aborted.add(txn)
            return True
        self._ongoing_committed.add(producer_id)
        return False

    def on_marker(self, producer_id: int, offset: int, control_type: int) -> bool:
        """A control batch: whether it may go (its transaction has no batch left)."""
        if control_type == CONTROL_ABORT:
            txn = self.aborted.containing(producer_id, offset)
            if txn is not None and txn in self._seen_aborted:
                self._seen_aborted.discard(txn)
                self.index_entries.append(txn)
                return False
            return True
        if control_type == CONTROL_COMMIT:
            seen = producer_id in self._ongoing_committed
            self._ongoing_committed.discard(producer_id)
            return not seen
        return False   # a control type this broker does not know is kept as it is
