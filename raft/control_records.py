"""KRaft's control records: the one-record control batches the raft layer writes into
``__cluster_metadata`` and into snapshots (leader changes, snapshot header and footer, the
kraft.version and the voter set).

Who calls it: the raft log (a new leader's LeaderChangeMessage, the voters on a membership
change), the snapshot writer and reader (header first, footer last), ``kafka-storage format``
(the bootstrap snapshot's KRaftVersionRecord and VotersRecord) and every reader of the log.

The bytes are Kafka's (``MemoryRecords.withLeaderChangeMessage`` and its siblings): key
``version int16 = 0, type int16`` (``ControlRecordType``), value the generated message
encoded at the version ``ControlRecordUtils`` fixes (0 for all five in Kafka 4.4, whatever
newer versions the schema knows); uncompressed, CreateTime with the
batch's base and max timestamp the record's, no producer id/epoch/sequence, not
transactional, the control flag set, partition leader epoch the raft epoch. Reading follows
Kafka's ``RecordsIterator``: a record must have a non-empty key and value, a zero timestamp
delta and no headers; an unknown control type is an error (``CorruptRecord``).
"""

from __future__ import annotations

import struct
from enum import IntEnum
from typing import NamedTuple, Sequence, Union

from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.batch_header import NO_PARTITION_LEADER_EPOCH, Record, RecordBatchHeader
from kafpy.protocol.codec import decode_data, encode_data
from kafpy.protocol.record_decoder import decode_batch
from kafpy.protocol.errors import CorruptRecord, ProtocolError
from kafpy.protocol.messages import (
    KRaftVersionRecord,
    LeaderChangeMessage,
    SnapshotFooterRecord,
    SnapshotHeaderRecord,
    VotersRecord,
)

__all__ = [
    "ControlRecordType",
    "ControlMessage",
    "ControlRecord",
    "CONTROL_RECORD_KEY_VERSION",
    "CURRENT_VERSIONS",
    "control_record_key",
    "parse_control_record_type",
    "control_type_of",
    "encode_control_value",
    "decode_control_record",
    "decode_control_value",
    "build_control_record_batch",
    "decode_control_batch",
    "check_kraft_record",
]


class ControlRecordType(IntEnum):
    """Kafka's ``ControlRecordType``: the int16 in a control record's key."""

    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VERSION = 5
    KRAFT_VOTERS = 6


ControlMessage = Union[
    LeaderChangeMessage, SnapshotHeaderRecord, SnapshotFooterRecord, KRaftVersionRecord, VotersRecord
]

CONTROL_RECORD_KEY_VERSION = 0
_KEY = struct.Struct(">hh")

# The message class of each KRaft control type and the version Kafka 4.4 writes and reads it
# at (ControlRecordUtils.*_CURRENT_VERSION). LeaderChangeMessage's schema goes to v1, but
# Kafka still writes and decodes v0: reading at v1 would misread a v0 value.
_CLASSES: dict[ControlRecordType, type[ControlMessage]] = {
    ControlRecordType.LEADER_CHANGE: LeaderChangeMessage,
    ControlRecordType.SNAPSHOT_HEADER: SnapshotHeaderRecord,
    ControlRecordType.SNAPSHOT_FOOTER: SnapshotFooterRecord,
    ControlRecordType.KRAFT_VERSION: KRaftVersionRecord,
    ControlRecordType.KRAFT_VOTERS: VotersRecord,
}
CURRENT_VERSIONS: dict[ControlRecordType, int] = {t: 0 for t in _CLASSES}
_TYPES: dict[type, ControlRecordType] = {cls: t for t, cls in _CLASSES.items()}


class ControlRecord(NamedTuple):
    """One decoded KRaft control record (Kafka's ``ControlRecord``): its type and message."""

    type: ControlRecordType
    message: ControlMessage


def control_record_key(control_type: ControlRecordType) -> bytes:
    """The 4-byte key: key version 0, then the type."""
    return _KEY.pack(CONTROL_RECORD_KEY_VERSION, int(control_type))


def parse_control_record_type(key: bytes | bytearray | memoryview | None) -> int:
    """The type id in a control record's key, as Kafka's ``ControlRecordType.parseTypeId``:
    at least 4 bytes, a non-negative key version (a newer one is read as v0)."""
    if key is None or len(key) < 4:
        size = 0 if key is None else len(key)
        raise CorruptRecord(
            f"Invalid value size found for end control record key. Must have at least 4 bytes, "
            f"but found only {size}"
        )
    version, type_id = _KEY.unpack_from(key)
    if version < 0:
        raise CorruptRecord(
            f"Invalid version found for control record: {version}. May indicate data corruption"
        )
    return int(type_id)


def control_type_of(message: ControlMessage) -> ControlRecordType:
    """The control type a message is written under."""
    try:
        return _TYPES[type(message)]
    except KeyError:
        raise TypeError(f"{type(message).__name__} is not a KRaft control record") from None


def encode_control_value(message: ControlMessage) -> bytes:
    """The record value: the message at the version Kafka writes its type at."""
    return encode_data(message, CURRENT_VERSIONS[control_type_of(message)])


def decode_control_value(control_type: ControlRecordType, value: bytes | bytearray | memoryview) -> ControlMessage:
    """Decode a control record's value of a known KRaft type (``CorruptRecord`` if it does not parse)."""
    cls = _CLASSES[control_type]
    try:
        return decode_data(cls, CURRENT_VERSIONS[control_type], value)
    except ProtocolError as exc:
        raise CorruptRecord(f"malformed {control_type.name} control record value: {exc}") from exc


def check_kraft_record(record: Record) -> None:
    """What Kafka's ``RecordsIterator`` demands of every record in the KRaft log: a zero
    timestamp delta and no headers."""
    if record.timestamp_delta != 0:
        raise CorruptRecord(
            f"Got timestamp delta of {record.timestamp_delta}, but this is invalid because it is "
            "not 0 as expected."
        )
    if record.headers:
        raise CorruptRecord(
            f"Got numHeaders of {len(record.headers)}, but this is invalid because it is not 0 as expected."
        )


def decode_control_record(record: Record) -> ControlRecord:
    """Decode one record of a KRaft control batch (Kafka's ``RecordsIterator.decodeControlRecord``).

    Raises ``CorruptRecord`` for a missing or empty key or value, a transaction marker or an
    unknown type (neither belongs in the metadata log), or a value that does not decode."""
    check_kraft_record(record)
    if record.key is None:
        raise CorruptRecord("Missing key in the record when a key was expected")
    if len(record.key) == 0:
        raise CorruptRecord("Got an unexpected empty key in the record")
    if record.value is None:
        raise CorruptRecord("Missing value in the record when a value was expected")
    if len(record.value) == 0:
        raise CorruptRecord("Got an unexpected empty value in the record")
    type_id = parse_control_record_type(record.key)
    try:
        control_type = ControlRecordType(type_id)
    except ValueError:
        control_type = None
    if control_type is None or control_type not in _CLASSES:
        name = control_type.name if control_type is not None else "UNKNOWN"
        raise CorruptRecord(f"Unknown control record type {name} ({type_id})")
    return ControlRecord(control_type, decode_control_value(control_type, record.value))


def build_control_record_batch(
    messages: ControlMessage | Sequence[ControlMessage],
    *,
    base_offset: int,
    timestamp: int,
    leader_epoch: int,
) -> bytes:
    """A control batch holding ``messages`` in order (one record each, offsets from
    ``base_offset``), as Kafka's ``MemoryRecords.with*`` (one message) or a snapshot writer's
    first batch (SnapshotHeader, KRaftVersion, Voters: three records in one batch).

    ``leader_epoch`` is the batch's partition leader epoch; Kafka refuses a LeaderChangeMessage
    without one (``ValueError`` here). ``timestamp`` is every record's and the batch's."""
    items = [messages] if not isinstance(messages, Sequence) else list(messages)
    if not items:
        raise ValueError("a control batch needs at least one control record")
    records = []
    for message in items:
        control_type = control_type_of(message)
        if control_type is ControlRecordType.LEADER_CHANGE and leader_epoch == NO_PARTITION_LEADER_EPOCH:
            raise ValueError(f"Partition leader epoch must be valid, but get {leader_epoch}")
        records.append((control_record_key(control_type), encode_control_value(message), (), timestamp))
    return build_batch(
        records,
        base_offset=base_offset,
        base_timestamp=timestamp,
        partition_leader_epoch=leader_epoch,
        is_control=True,
    )


def decode_control_batch(
    buf: bytes | bytearray | memoryview, pos: int = 0
) -> tuple[RecordBatchHeader, list[ControlRecord]]:
    """Header and decoded records of the control batch at ``pos`` (CRC checked);
    ``CorruptRecord`` if it is not a control batch or a record does not decode."""
    header, records = decode_batch(buf, pos)
    if not header.is_control:
        raise CorruptRecord(f"batch at offset {header.base_offset} is not a control batch")
    return header, [decode_control_record(r) for r in records]
