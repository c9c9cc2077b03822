"""One transactional id's state as the coordinator keeps it (Kafka's TransactionMetadata).

A change is made in two steps, as in Kafka: `prepare_*` builds the next state as a
`TxnTransit` and marks it pending (every other request meanwhile gets
CONCURRENT_TRANSACTIONS); once the transit is written to `__transaction_state`,
`complete_transit` applies it, and a failed write clears it with `abort_transit`.

Transaction version 2 (KIP-890 part 2; `client_transaction_version` 2, set by the
request that started or ended the transaction): every commit or abort bumps the epoch
(`prepare_abort_or_commit`), and an exhausted epoch moves to `next_producer_id` at
epoch 0 when the transaction completes (`prepare_complete`).

Who calls it: the TransactionCoordinator only, on one thread. Nothing on disk here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
# Kafka's TransactionMetadata.isEpochExhausted: the last epoch is kept for fencing bumps.
MAX_PRODUCER_EPOCH = 32767
# Kafka's TransactionVersion levels: 0 and 1 end a transaction at the same epoch, 2 bumps it.
TV_0, TV_1, TV_2 = 0, 1, 2


def supports_epoch_bump(transaction_version: int) -> bool:
    """Whether a transaction of this version bumps the epoch at every end (KIP-890 part 2)."""
    return transaction_version >= TV_2

TopicPartition = tuple[str, int]


class TxnState(IntEnum):
    """Kafka's TransactionState, with the ids written in TransactionLogValue."""

    EMPTY = 0
    ONGOING = 1
    PREPARE_COMMIT = 2
    PREPARE_ABORT = 3
    COMPLETE_COMMIT = 4
    COMPLETE_ABORT = 5
    DEAD = 6
    PREPARE_EPOCH_FENCE = 7

    @property
    def state_name(self) -> str:
        """The name the admin APIs use ("Ongoing", "PrepareCommit", ...)."""
        return _NAMES[self]

    @classmethod
    def from_name(cls, name: str) -> "TxnState | None":
        return _BY_NAME.get(name)

    @property
    def is_expiration_allowed(self) -> bool:
        return self in (TxnState.EMPTY, TxnState.COMPLETE_COMMIT, TxnState.COMPLETE_ABORT)


_NAMES = {
    TxnState.EMPTY: "Empty", TxnState.ONGOING: "Ongoing",
    TxnState.PREPARE_COMMIT: "PrepareCommit", TxnState.PREPARE_ABORT: "PrepareAbort",
    TxnState.COMPLETE_COMMIT: "CompleteCommit", TxnState.COMPLETE_ABORT: "CompleteAbort",
    TxnState.DEAD: "Dead", TxnState.PREPARE_EPOCH_FENCE: "PrepareEpochFence",
}
_BY_NAME = {v: k for k, v in _NAMES.items()}


def is_epoch_exhausted(epoch: int) -> bool:
    return epoch >= MAX_PRODUCER_EPOCH - 1


@dataclass
class TxnTransit:
    """The next state of a transactional id, as written to the log."""

    producer_id: int
    previous_producer_id: int
    next_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    txn_timeout_ms: int
    state: TxnState
    partitions: frozenset[TopicPartition]
    txn_start_timestamp: int
    txn_last_update_timestamp: int
    client_transaction_version: int = TV_0


@dataclass(eq=False)
class TransactionMetadata:
    """What the coordinator knows of one transactional id."""

    transactional_id: str
    producer_id: int
    previous_producer_id: int = NO_PRODUCER_ID
    next_producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH
    last_producer_epoch: int = NO_PRODUCER_EPOCH
    txn_timeout_ms: int = 60_000
    state: TxnState = TxnState.EMPTY
    partitions: set[TopicPartition] = field(default_factory=set)
    txn_start_timestamp: int = -1
    txn_last_update_timestamp: int = -1
    client_transaction_version: int = TV_0
    pending: TxnTransit | None = None
    # Kafka's hasFailedEpochFence: a fence whose write failed is not bumped again.
    failed_epoch_fence: bool = False

    @property
    def pending_state(self) -> TxnState | None:
        return None if self.pending is None else self.pending.state

    @property
    def is_epoch_exhausted(self) -> bool:
        return is_epoch_exhausted(self.producer_epoch)

    def to_transit(self) -> TxnTransit:
        return TxnTransit(self.producer_id, self.previous_producer_id, self.next_producer_id,
                          self.producer_epoch, self.last_producer_epoch, self.txn_timeout_ms,
                          self.state, frozenset(self.partitions), self.txn_start_timestamp,
                          self.txn_last_update_timestamp, self.client_transaction_version)

    @classmethod
    def from_transit(cls, transactional_id: str, t: TxnTransit) -> "TransactionMetadata":
        m = cls(transactional_id, t.producer_id)
        m.apply(t)
        return m

    def apply(self, t: TxnTransit) -> None:
        self.producer_id, self.previous_producer_id = t.producer_id, t.previous_producer_id
        self.next_producer_id = t.next_producer_id
        self.producer_epoch, self.last_producer_epoch = t.producer_epoch, t.last_producer_epoch
        self.txn_timeout_ms, self.state = t.txn_timeout_ms, t.state
        self.partitions = set(t.partitions)
        self.txn_start_timestamp = t.txn_start_timestamp
        self.txn_last_update_timestamp = t.txn_last_update_timestamp
        self.client_transaction_version = t.client_transaction_version

    # ------------------------------------------------------------------ transitions
    def _prepare(self, state: TxnState, *, producer_id: int | None = None,
                 producer_epoch: int | None = None, last_producer_epoch: int | None = None,
                 timeout_ms: int | None = None, partitions: frozenset | None = None,
                 start: int | None = None, next_producer_id: int | None = None,
                 client_transaction_version: int | None = None, now_ms: int) -> TxnTransit:
        if self.pending is not None:
            raise RuntimeError(f"{self.transactional_id}: transition to {self.pending.state.name} "
                               "already in progress")
        base = self.to_transit()
        t = replace(
            base, state=state,
            producer_id=self.producer_id if producer_id is None else producer_id,
            previous_producer_id=self.producer_id,
            next_producer_id=self.next_producer_id if next_producer_id is None else next_producer_id,
            producer_epoch=self.producer_epoch if producer_epoch is None else producer_epoch,
            last_producer_epoch=(self.last_producer_epoch if last_producer_epoch is None
                                 else last_producer_epoch),
            txn_timeout_ms=self.txn_timeout_ms if timeout_ms is None else timeout_ms,
            partitions=base.partitions if partitions is None else partitions,
            txn_start_timestamp=self.txn_start_timestamp if start is None else start,
            txn_last_update_timestamp=now_ms,
            client_transaction_version=(self.client_transaction_version
                                        if client_transaction_version is None
                                        else client_transaction_version))
        self.pending = t
        return t

    def prepare_increment_epoch(self, timeout_ms: int, expected_epoch: int | None,
                                now_ms: int) -> TxnTransit | None:
        """InitProducerId on a finished transaction: the next epoch, or the current one for
        a retry of a call that succeeded; None when `expected_epoch` is fenced."""
        bumped = self.producer_epoch + 1
        if expected_epoch is None:
            epochs = (bumped, NO_PRODUCER_EPOCH)
        elif self.producer_epoch == NO_PRODUCER_EPOCH or expected_epoch == self.producer_epoch:
            epochs = (bumped, self.producer_epoch)
        elif expected_epoch == self.last_producer_epoch:
            epochs = (self.producer_epoch, self.last_producer_epoch)
        else:
            return None
        return self._prepare(TxnState.EMPTY, producer_epoch=epochs[0], last_producer_epoch=epochs[1],
                             timeout_ms=timeout_ms, partitions=frozenset(), start=-1, now_ms=now_ms)

    def prepare_producer_id_rotation(self, new_producer_id: int, timeout_ms: int,
                                     record_last_epoch: bool, now_ms: int) -> TxnTransit:
        """The epoch is exhausted: a new producer id starting at epoch 0."""
        return self._prepare(TxnState.EMPTY, producer_id=new_producer_id, producer_epoch=0,
                             last_producer_epoch=(self.producer_epoch if record_last_epoch
                                                  else NO_PRODUCER_EPOCH),
                             timeout_ms=timeout_ms, partitions=frozenset(), start=-1,
                             now_ms=now_ms)

    def prepare_fence_epoch(self) -> TxnTransit:
        """Bump the epoch of an ongoing transaction before aborting it (a new producer
        instance, or the transaction timed out). Never written as such: the abort that
        follows writes PrepareAbort with this epoch."""
        if self.producer_epoch >= MAX_PRODUCER_EPOCH:
            raise RuntimeError(f"{self.transactional_id}: cannot fence epoch {self.producer_epoch}")
        epoch = self.producer_epoch if self.failed_epoch_fence else self.producer_epoch + 1
        return self._prepare(TxnState.PREPARE_EPOCH_FENCE, producer_epoch=epoch,
                             last_producer_epoch=NO_PRODUCER_EPOCH,
                             now_ms=self.txn_last_update_timestamp)

    def prepare_add_partitions(self, added: set[TopicPartition], now_ms: int,
                               client_transaction_version: int = TV_0) -> TxnTransit:
        """Ongoing with `added`; a transaction starting now takes the client's version."""
        start = now_ms if self.state in (TxnState.EMPTY, TxnState.COMPLETE_ABORT,
                                         TxnState.COMPLETE_COMMIT) else self.txn_start_timestamp
        return self._prepare(TxnState.ONGOING, partitions=frozenset(self.partitions | added),
                             start=start, client_transaction_version=client_transaction_version,
                             now_ms=now_ms)

    def prepare_abort_or_commit(self, state: TxnState, now_ms: int,
                                client_transaction_version: int = TV_0,
                                next_producer_id: int = NO_PRODUCER_ID,
                                no_partition_added: bool = False) -> TxnTransit:
        """PrepareCommit/PrepareAbort. Transaction version 2 writes it with the epoch
        bumped (the markers carry it, fencing the previous epoch's late batches) and the
        last epoch kept for retries; `next_producer_id` is the id an exhausted epoch moves
        to. An abort with no partition added starts (and ends) the transaction now."""
        epoch, last_epoch = self.producer_epoch, self.last_producer_epoch
        if supports_epoch_bump(client_transaction_version):
            # MAX_PRODUCER_EPOCH is only reached by a fence; its abort keeps it
            if not (epoch >= MAX_PRODUCER_EPOCH and state == TxnState.PREPARE_ABORT):
                epoch += 1
            last_epoch = self.producer_epoch
        return self._prepare(state, producer_epoch=epoch, last_producer_epoch=last_epoch,
                             start=now_ms if no_partition_added else None,
                             next_producer_id=next_producer_id,
                             client_transaction_version=client_transaction_version,
                             now_ms=now_ms)

    def prepare_complete(self, now_ms: int) -> TxnTransit:
        """CompleteCommit/CompleteAbort, after the markers. A version 2 transaction whose
        epoch ran out continues as `next_producer_id` at epoch 0."""
        state = (TxnState.COMPLETE_COMMIT if self.state == TxnState.PREPARE_COMMIT
                 else TxnState.COMPLETE_ABORT)
        producer_id, epoch = self.producer_id, self.producer_epoch
        if (supports_epoch_bump(self.client_transaction_version)
                and self.next_producer_id != NO_PRODUCER_ID):
            producer_id, epoch = self.next_producer_id, 0
        return self._prepare(state, producer_id=producer_id, producer_epoch=epoch,
                             next_producer_id=NO_PRODUCER_ID, partitions=frozenset(),
                             now_ms=now_ms)

    def prepare_dead(self) -> TxnTransit:
        return self._prepare(TxnState.DEAD, partitions=frozenset(),
                             now_ms=self.txn_last_update_timestamp)

    def complete_transit(self) -> None:
        t, self.pending = self.pending, None
        if t is not None:
            self.apply(t)
            self.failed_epoch_fence = False

    def abort_transit(self) -> None:
        self.pending = None
