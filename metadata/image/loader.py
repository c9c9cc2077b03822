"""Batches of the metadata log into published images, as Kafka's ``MetadataBatchLoader``.

Who calls it: the node's metadata listener, with each committed batch of
``__cluster_metadata`` (already decoded into record messages) and, once a commit is handled,
``maybe_flush``. Pure: no I/O, no clock; ``publish`` is called with each new delta and image.

Metadata transactions (KIP-868): the records between ``BeginTransactionRecord`` and
``EndTransactionRecord`` become visible together. What was replayed before a
``BeginTransactionRecord`` is published first (unless the transaction starts a fresh delta),
no image is published while a transaction is open, and ``AbortTransactionRecord`` discards
the transaction's records. Kafka keeps the aborted records in its delta until the next flush
(and replays them if more records follow in the same batch); here the delta is reset to the
last published image at the abort itself, which is what the abort means."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.protocol.messages import (
    AbortTransactionRecord,
    BeginTransactionRecord,
    EndTransactionRecord,
    Message,
)


class TransactionState(Enum):
    NO_TRANSACTION = "no transaction"
    STARTED_TRANSACTION = "started"
    CONTINUED_TRANSACTION = "continued"
    ENDED_TRANSACTION = "ended"
    ABORTED_TRANSACTION = "aborted"


_OPEN = (TransactionState.STARTED_TRANSACTION, TransactionState.CONTINUED_TRANSACTION)

Publisher = Callable[[MetadataDelta, MetadataImage], None]


class MetadataBatchLoader:
    """Keeps the last published image, the delta being built and the transaction state."""

    def __init__(self, image: MetadataImage, publish: Publisher) -> None:
        self.image = image
        self.publish = publish
        self.delta = MetadataDelta(image)
        self.transaction_state = TransactionState.NO_TRANSACTION
        self.last_offset = image.provenance.last_contained_offset
        self.last_epoch = image.provenance.last_contained_epoch
        self.last_log_time_ms = image.provenance.last_contained_log_time_ms
        self.batches_since_publish = 0

    def load_batch(self, base_offset: int, epoch: int, append_time_ms: int,
                   records: Sequence[Message]) -> None:
        """Replay one committed batch (records at ``base_offset``, ``base_offset + 1``, ...).
        A record that cannot be applied raises ``MetadataReplayError`` naming its offset."""
        self.last_epoch = epoch
        self.last_log_time_ms = append_time_ms
        for index, record in enumerate(records):
            offset = base_offset + index
            try:
                self._replay(record)
            except MetadataReplayError as e:
                raise MetadataReplayError(
                    f"Error loading metadata log record from offset {offset}: {e}") from e
            if (self.transaction_state is TransactionState.STARTED_TRANSACTION
                    and (index > 0 or self.batches_since_publish > 0)):
                # publish what came before the transaction, up to the record before Begin
                self._publish(self.delta, aligned=index == 0)
            self.last_offset = offset
        self.batches_since_publish += 1

    def maybe_flush(self) -> None:
        """Publish what was loaded since the last image, unless a transaction is open."""
        state = self.transaction_state
        if state in _OPEN:
            return
        self._publish(self.delta)

    def _replay(self, record: Message) -> None:
        state = self.transaction_state
        if isinstance(record, BeginTransactionRecord):
            if state in _OPEN:
                raise MetadataReplayError(
                    "Encountered BeginTransactionRecord while already in a transaction")
            self.transaction_state = TransactionState.STARTED_TRANSACTION
        elif isinstance(record, EndTransactionRecord):
            if state not in _OPEN:
                raise MetadataReplayError(
                    "Encountered EndTransactionRecord without having seen a BeginTransactionRecord")
            self.transaction_state = TransactionState.ENDED_TRANSACTION
        elif isinstance(record, AbortTransactionRecord):
            if state not in _OPEN:
                raise MetadataReplayError(
                    "Encountered AbortTransactionRecord without having seen a "
                    "BeginTransactionRecord")
            self.transaction_state = TransactionState.ABORTED_TRANSACTION
            self.delta = MetadataDelta(self.image)
        else:
            if state is TransactionState.STARTED_TRANSACTION:
                self.transaction_state = TransactionState.CONTINUED_TRANSACTION
            elif state in (TransactionState.ENDED_TRANSACTION,
                           TransactionState.ABORTED_TRANSACTION):
                self.transaction_state = TransactionState.NO_TRANSACTION
            self.delta.replay(record)

    def _publish(self, delta: MetadataDelta, aligned: bool = True) -> None:
        provenance = MetadataProvenance(self.last_offset, self.last_epoch, self.last_log_time_ms,
                                        is_offset_batch_aligned=aligned)
        self.image = delta.apply(provenance)
        self.publish(delta, self.image)
        self.delta = MetadataDelta(self.image)
        self.batches_since_publish = 0
