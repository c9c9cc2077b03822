"""The records a client batch is refused for (KIP-467), found the way Kafka's LogValidator
finds them: each record in batch order is checked for a key (compacted topics) and then
for a timestamp within `message.timestamp.before/after.max.ms` (CreateTime topics), one
error per record at most; the batch fails whole with every offending record listed.

Who calls it: LogValidator, only once a batch has already failed its cheap checks (a
keyless record in a compacted topic, a header timestamp out of range), so a valid batch
never pays for the per-record walk here (the Produce hot path stays per batch).
"""

from __future__ import annotations

from typing import Optional

from kafpy.protocol.errors import ErrorCode, ProtocolError
from kafpy.protocol.records import NO_TIMESTAMP, decode_batch

from kafpy.storage.errors import CorruptRecordError, RecordValidationError

__all__ = ["batch_record_errors"]

# Kafka's RecordValidationException message lists at most this many record errors
SHOWN = 3


def batch_record_errors(buf: bytes | bytearray | memoryview, pos: int, topic_partition: str,
                        compacted: bool, ts_bounds: Optional[tuple[int, int]], now_ms: int
                        ) -> Optional[RecordValidationError]:
    """The error refusing the batch at `pos` of `buf` for its records, or None when none
    of its records breaks a rule. `ts_bounds` is (before, after) for CreateTime topics
    that bound timestamps, else None."""
    try:
        header, records = decode_batch(buf, pos, verify=False)
    except ProtocolError as e:
        raise CorruptRecordError(str(e)) from e
    errors: list[tuple[int, str]] = []
    timestamp_error = False
    for index, record in enumerate(records):
        if compacted and record.key is None:
            errors.append((index, "Compacted topic cannot accept message without key in "
                                  f"topic partition {topic_partition}"))
            continue
        if ts_bounds is None:
            continue
        ts = record.timestamp(header)
        before, after = ts_bounds
        if ts != NO_TIMESTAMP and (now_ms - ts > before or ts - now_ms > after):
            timestamp_error = True
            errors.append((index, f"Timestamp {ts} of message with offset {record.offset(header)} is "
                                  f"out of range. The timestamp should be within "
                                  f"[{now_ms - before}, {now_ms + after}]"))
    if not errors:
        return None
    if timestamp_error:
        return RecordValidationError(
            ErrorCode.INVALID_TIMESTAMP,
            "One or more records have been rejected due to invalid timestamp", errors)
    shown = ", ".join(f"RecordError(batchIndex={i}, message='{m}')" for i, m in errors[:SHOWN])
    return RecordValidationError(
        ErrorCode.INVALID_RECORD,
        f"One or more records have been rejected due to {len(errors)} record errors in total, "
        f"and only showing the first three errors at most: [{shown}]", errors)
