"""Partition log storage in Kafka's on-disk format (see docs/INTERFACES.md, "storage/")."""

from .config import LogConfig
from .errors import (
    CorruptRecordError,
    DuplicateSequenceError,
    InvalidProducerEpochError,
    InvalidTimestampError,
    UnknownProducerIdError,
    InvalidRecordError,
    KafkaStorageError,
    OffsetOutOfRangeError,
    OutOfOrderSequenceError,
    RecordListTooLargeError,
    RecordTooLargeError,
    StorageError,
)
from .log import FetchDataInfo, Log, LogAppendInfo
from .log_manager import LogManager
from .segment import FileRecordsSlice

__all__ = [
    "LogConfig",
    "LogManager",
    "Log",
    "LogAppendInfo",
    "FetchDataInfo",
    "FileRecordsSlice",
    "StorageError",
    "CorruptRecordError",
    "OffsetOutOfRangeError",
    "RecordTooLargeError",
    "RecordListTooLargeError",
    "InvalidRecordError",
    "KafkaStorageError",
    "OutOfOrderSequenceError",
    "InvalidProducerEpochError",
    "InvalidTimestampError",
    "DuplicateSequenceError",
    "UnknownProducerIdError",
]
