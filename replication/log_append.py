"""Appends for ``ReplicaManager.append_records`` (Kafka's ReplicaManager.appendToLocalLog):
each partition appended as leader in order, its outcome, and which appends wait for the
high watermark (acks=-1).

Who may call it: ``ReplicaManager`` only (event loop). Nothing on disk of its own; batches
stay opaque bytes (the log validates and assigns offsets in place).
"""
from __future__ import annotations

import logging
from typing import Callable, Mapping, Sequence

from kafpy.protocol.errors import ErrorCode
from kafpy.storage.errors import RecordValidationError, StorageError
from kafpy.storage.log import LogAppendInfo

from kafpy.replication.partition import Partition, PartitionError
from kafpy.replication.topic_stats import BrokerTopicStats

log = logging.getLogger("kafka.server.ReplicaManager")

# One partition's outcome (Kafka's PartitionResponse): (error, error message, the append's
# LogAppendInfo or None when it failed, log start offset). A plain tuple: a Produce makes
# one per partition on the hot path.
AppendResult = tuple[ErrorCode, "str | None", "LogAppendInfo | None", int]
NONE = ErrorCode.NONE


class RecordErrorsMessage(str):
    """The error message of a batch refused for some of its records, carrying them:
    (batch index, message) each, for the Produce response's `record_errors` (Kafka's
    PartitionResponse.recordErrors). A str, so every other reader of an AppendResult's
    message (coordinator writes, markers, logs) reads it as the message it is."""

    record_errors: list[tuple[int, str]]

    def __new__(cls, message: str, record_errors: list[tuple[int, str]]) -> "RecordErrorsMessage":
        self = super().__new__(cls, message)
        self.record_errors = record_errors
        return self


def append_to_local_log(partitions: Mapping[tuple[str, int], Partition],
                        partition_error: Callable[[str, int], ErrorCode],
                        entries: Sequence[tuple[str, int, bytes | memoryview]], origin: str,
                        required_acks: int,
                        internal_topics_allowed: bool,
                        on_appended: Callable[[str, int, LogAppendInfo], None] | None,
                        stats: BrokerTopicStats | None = None
                        ) -> tuple[list[AppendResult], list[tuple[Partition, int]] | None, list[int] | None]:
    """(one result per entry, (partition, offset its HW must reach) for each append that
    waits, the indexes of those in the results; both None when none waits). Unknown partitions answer
    ``partition_error``; internal topics take appends only with ``internal_topics_allowed``;
    a refusal of the partition or of storage is that partition's error, the others go on.
    ``stats`` (while metrics are read) counts clients' appends and refusals per topic here,
    where each append's record count and size are already known."""
    if origin != "client":
        stats = None   # the coordinators' own writes are not BrokerTopicMetrics' produces
    # appends summed per run of one topic's partitions (a Produce lists them together), so
    # stats takes one call per topic rather than one per partition
    counted: str | None = None
    n_parts = n_msgs = n_bytes = 0
    results: list[AppendResult] = []
    waits: list[tuple[Partition, int]] | None = None
    waiting: list[int] | None = None  # the indexes in results of the appends waiting for the HW
    for topic, index, records in entries:
        part = partitions.get((topic, index))
        if part is None:
            error = partition_error(topic, index)
            results.append((error, None, None, -1))
            if stats is not None:
                stats.append_failed(None, error, 0)
            continue
        if part.is_internal and not internal_topics_allowed:
            results.append((ErrorCode.INVALID_TOPIC_EXCEPTION, f"Cannot append to internal topic {topic}", None, -1))
            if stats is not None:
                stats.append_failed(topic, ErrorCode.INVALID_TOPIC_EXCEPTION, 0)
            continue
        try:
            info = part.append_records_to_leader(records, origin, required_acks)
        except (StorageError, PartitionError) as e:
            log.debug("Append to %s-%d (%s) failed: %r", topic, index, origin, e)
            # Kafka answers a client only a RecordValidationException's message (with its
            # record errors); the reason for any other refusal is in the debug line above
            if isinstance(e, RecordValidationError):
                message: str | None = RecordErrorsMessage(str(e), e.record_errors)
            elif origin == "client" and isinstance(e, StorageError):
                message = None
            else:
                message = str(e) or None
            results.append((ErrorCode(e.error_code), message, None, part.log.log_start_offset))
            if stats is not None:
                stats.append_failed(topic, e.error_code, len(records) if records else 0)
            continue
        except Exception as e:  # noqa: BLE001 - answered UNKNOWN_SERVER_ERROR, logged
            log.exception("Unexpected error appending to %s-%d (%s)", topic, index, origin)
            results.append((ErrorCode.UNKNOWN_SERVER_ERROR, str(e), None, -1))
            if stats is not None:
                stats.append_failed(topic, ErrorCode.UNKNOWN_SERVER_ERROR, 0)
            continue
        if stats is not None:
            if topic != counted:
                if counted is not None:
                    stats.appended(counted, n_parts, n_msgs, n_bytes)
                counted, n_parts, n_msgs, n_bytes = topic, 0, 0, 0
            n_parts += 1
            n_msgs += info.records_count
            n_bytes += len(records)   # Kafka: records.sizeInBytes
        if on_appended is not None:
            on_appended(topic, index, info)
        if required_acks == -1 and part.log.high_watermark <= info.last_offset:
            if waits is None or waiting is None:
                waits, waiting = [], []
            waits.append((part, info.last_offset + 1))
            waiting.append(len(results))
        results.append((NONE, None, info, info.log_start_offset))
    if counted is not None:
        stats.appended(counted, n_parts, n_msgs, n_bytes)   # type: ignore[union-attr]
    return results, waits, waiting
