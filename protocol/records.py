"""Record batches, message format v2 ("magic 2"), as Kafka stores and sends them.

The public face of three modules, so callers import from here only:

- ``kafpy.protocol.batch_header``: layout constants, ``RecordBatchHeader``, ``parse_header``,
  ``iter_batches``, the CRC and the in-place setters: all the Produce and Fetch paths
  use (only the 61-byte header is read; batches stay opaque bytes).
- ``kafpy.protocol.record_decoder``: ``decode_batch`` / ``decode_records``, for the places that
  must see records (compaction, recompression, the coordinators' logs, tests, tools).
- ``kafpy.protocol.batch_builder``: ``build_batch``, transaction markers, ``recompress_batch``.

Legacy message sets (magic 0 and 1) are recognised by ``is_legacy`` and converted to
v2 batches by ``upconvert_legacy``: Kafka 3.x up-converts old produce requests when the
log's message format is v2, and we store only v2, so the broker does the same.

Everything here is a pure function of its arguments (no module state), so any thread
may call it; the in-place setters write only the batch they are given.
"""

from __future__ import annotations

from kafpy.protocol.batch_builder import (
    ControlRecord,
    build_batch,
    build_control_batch,
    parse_control_record,
    recompress_batch,
)
from kafpy.protocol.batch_header import (
    ATTRIBUTES_FIELD,
    ATTRIBUTES_LOW_BYTE_OFFSET,
    ATTRIBUTES_OFFSET,
    BASE_OFFSET_FIELD,
    BASE_OFFSET_OFFSET,
    BASE_SEQUENCE_FIELD,
    BASE_SEQUENCE_OFFSET,
    BASE_TIMESTAMP_FIELD,
    BASE_TIMESTAMP_OFFSET,
    BATCH_HEADER_SIZE,
    BATCH_LENGTH_FIELD,
    BATCH_LENGTH_OFFSET,
    COMPRESSION_MASK,
    CONTROL_ABORT,
    CONTROL_COMMIT,
    CONTROL_MASK,
    CRC_FIELD,
    CRC_OFFSET,
    DELETE_HORIZON_MASK,
    HEADER_FORMAT,
    HEADER_STRUCT,
    LAST_OFFSET_DELTA_FIELD,
    LAST_OFFSET_DELTA_OFFSET,
    LOG_OVERHEAD,
    MAGIC_FIELD,
    MAGIC_OFFSET,
    MAX_TIMESTAMP_FIELD,
    MAX_TIMESTAMP_OFFSET,
    MIN_BATCH_LENGTH,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    OFFSET_AND_LENGTH,
    PARTITION_LEADER_EPOCH_FIELD,
    PARTITION_LEADER_EPOCH_OFFSET,
    PREFIX_THROUGH_EPOCH,
    PREFIX_THROUGH_LAST_OFFSET_DELTA,
    PRODUCER_EPOCH_FIELD,
    PRODUCER_EPOCH_OFFSET,
    PRODUCER_ID_FIELD,
    PRODUCER_ID_AND_EPOCH,
    PRODUCER_ID_OFFSET,
    RECORDS_COUNT_FIELD,
    RECORDS_COUNT_OFFSET,
    RECORDS_OFFSET,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_MASK,
    Record,
    RecordBatchHeader,
    compute_crc,
    iter_batches,
    parse_header,
    fields_struct,
    set_base_offset,
    set_max_timestamp,
    set_partition_leader_epoch,
    verify_crc,
)
from kafpy.protocol.compression import compress, decompress
from kafpy.protocol.record_decoder import decode_batch, decode_records, has_null_key, largest_record

__all__ = [
    "has_null_key",
    "largest_record",
    "BATCH_HEADER_SIZE",
    "HEADER_FORMAT",
    "HEADER_STRUCT",
    "OFFSET_AND_LENGTH",
    "PREFIX_THROUGH_EPOCH",
    "PREFIX_THROUGH_LAST_OFFSET_DELTA",
    "ATTRIBUTES_LOW_BYTE_OFFSET",
    "BASE_OFFSET_FIELD",
    "BATCH_LENGTH_FIELD",
    "PARTITION_LEADER_EPOCH_FIELD",
    "MAGIC_FIELD",
    "CRC_FIELD",
    "ATTRIBUTES_FIELD",
    "LAST_OFFSET_DELTA_FIELD",
    "BASE_TIMESTAMP_FIELD",
    "MAX_TIMESTAMP_FIELD",
    "PRODUCER_ID_FIELD",
    "PRODUCER_EPOCH_FIELD",
    "BASE_SEQUENCE_FIELD",
    "RECORDS_COUNT_FIELD",
    "fields_struct",
    "PRODUCER_ID_AND_EPOCH",
    "MIN_BATCH_LENGTH",
    "LOG_OVERHEAD",
    "RECORDS_OFFSET",
    "BASE_OFFSET_OFFSET",
    "BATCH_LENGTH_OFFSET",
    "PARTITION_LEADER_EPOCH_OFFSET",
    "MAGIC_OFFSET",
    "CRC_OFFSET",
    "ATTRIBUTES_OFFSET",
    "LAST_OFFSET_DELTA_OFFSET",
    "BASE_TIMESTAMP_OFFSET",
    "MAX_TIMESTAMP_OFFSET",
    "PRODUCER_ID_OFFSET",
    "PRODUCER_EPOCH_OFFSET",
    "BASE_SEQUENCE_OFFSET",
    "RECORDS_COUNT_OFFSET",
    "DELETE_HORIZON_MASK",
    "NO_TIMESTAMP",
    "NO_PRODUCER_ID",
    "NO_PRODUCER_EPOCH",
    "NO_SEQUENCE",
    "NO_PARTITION_LEADER_EPOCH",
    "COMPRESSION_MASK",
    "TIMESTAMP_TYPE_MASK",
    "TRANSACTIONAL_MASK",
    "CONTROL_MASK",
    "CONTROL_ABORT",
    "CONTROL_COMMIT",
    "RecordBatchHeader",
    "Record",
    "ControlRecord",
    "parse_header",
    "iter_batches",
    "verify_crc",
    "compute_crc",
    "set_base_offset",
    "set_partition_leader_epoch",
    "set_max_timestamp",
    "decode_batch",
    "decode_records",
    "build_batch",
    "build_control_batch",
    "parse_control_record",
    "recompress_batch",
    "compress",
    "decompress",
    "is_legacy",
    "upconvert_legacy",
]


def is_legacy(buf: bytes | bytearray | memoryview, pos: int = 0) -> bool:
    """True if the data at ``pos`` is an old message set (magic 0 or 1)."""
    return len(buf) - pos > MAGIC_OFFSET and buf[pos + MAGIC_OFFSET] in (0, 1)


def upconvert_legacy(buf: bytes | bytearray | memoryview, strict: bool = True) -> bytes:
    """Convert a magic 0/1 message set to v2 batches (see ``kafpy.protocol.legacy``)."""
    from kafpy.protocol.legacy import upconvert_legacy as _upconvert

    return _upconvert(buf, strict=strict)
