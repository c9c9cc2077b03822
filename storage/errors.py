"""Exceptions raised by the partition log storage.

Who may call it: everyone. Each exception is a ``KafkaError`` carrying ``error_code`` (a
protocol ``ErrorCode``), so the broker turns a storage failure into a response without a
lookup table.
"""

from __future__ import annotations

from typing import Optional

from kafpy.protocol.errors import ErrorCode, KafkaError

__all__ = [
    "StorageError",
    "CorruptRecordError",
    "OffsetOutOfRangeError",
    "RecordTooLargeError",
    "RecordListTooLargeError",
    "InvalidRecordError",
    "InvalidTimestampError",
    "RecordValidationError",
    "KafkaStorageError",
    "OutOfOrderSequenceError",
    "DuplicateSequenceError",
    "InvalidProducerEpochError",
    "UnknownProducerIdError",
    "CorruptIndexError",
    "CorruptSnapshotError",
]


class StorageError(KafkaError):
    """Base class; ``error_code`` is what a broker answers with."""

    error_code: ErrorCode = ErrorCode.UNKNOWN_SERVER_ERROR


class CorruptRecordError(StorageError):
    error_code = ErrorCode.CORRUPT_MESSAGE


class OffsetOutOfRangeError(StorageError):
    error_code = ErrorCode.OFFSET_OUT_OF_RANGE


class RecordTooLargeError(StorageError):
    error_code = ErrorCode.MESSAGE_TOO_LARGE


class RecordListTooLargeError(StorageError):
    error_code = ErrorCode.RECORD_LIST_TOO_LARGE


class InvalidRecordError(StorageError):
    error_code = ErrorCode.INVALID_RECORD


class InvalidTimestampError(StorageError):
    error_code = ErrorCode.INVALID_TIMESTAMP


class RecordValidationError(StorageError):
    """A client batch refused for some of its records (Kafka's RecordValidationException):
    the batch's error (INVALID_RECORD, or INVALID_TIMESTAMP when a timestamp is at fault)
    and message, and (batch index, message) of each record at fault, which a Produce
    answers in `record_errors` (KIP-467)."""

    def __init__(self, error_code: ErrorCode, message: str,
                 record_errors: list[tuple[int, str]]) -> None:
        super().__init__(message)
        self.error_code = error_code
        self.record_errors = record_errors

    def __reduce__(self) -> tuple[type["RecordValidationError"], tuple[ErrorCode, str, list[tuple[int, str]]]]:
        # the worker process that checks large batches (broker/produce_checks.py) sends it
        # back pickled; an exception pickles by its args, which hold the message alone
        return RecordValidationError, (self.error_code, str(self), self.record_errors)


class KafkaStorageError(StorageError):
    error_code = ErrorCode.KAFKA_STORAGE_ERROR
    errno: Optional[int] = None  # the OS error's, where the log manager wraps one


class OutOfOrderSequenceError(StorageError):
    error_code = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


class DuplicateSequenceError(StorageError):
    error_code = ErrorCode.DUPLICATE_SEQUENCE_NUMBER


class InvalidProducerEpochError(StorageError):
    error_code = ErrorCode.INVALID_PRODUCER_EPOCH


class UnknownProducerIdError(StorageError):
    error_code = ErrorCode.UNKNOWN_PRODUCER_ID


class CorruptIndexError(StorageError):
    """An index file failed its sanity check; the owner rebuilds it from the log."""

    error_code = ErrorCode.KAFKA_STORAGE_ERROR


class CorruptSnapshotError(StorageError):
    """A producer state snapshot is unreadable; it is deleted and state rebuilt."""

    error_code = ErrorCode.KAFKA_STORAGE_ERROR
