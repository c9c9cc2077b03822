"""Kafka's ``MetadataRecordSerde``: how one metadata record sits in a record's value in the
``__cluster_metadata`` log, its snapshots and ``bootstrap.checkpoint``.

Who calls it: the snapshot and bootstrap writers and readers, the raft log's users (the
controller writes records, every node replays them), tools that dump the log.

The frame is Kafka's ``AbstractApiMessageSerde``: unsigned varint frame version (1), unsigned
varint record type (the message's ``API_KEY``), unsigned varint record version, then the
message at that version. A record type is looked up in ``METADATA_RECORD_TYPES``, built from
the generated classes of KIND ``metadata``. Bad bytes raise ``MetadataParseError`` with
Kafka's wording (frame version 0 from the 2.8 preview, unknown type, unsupported version,
trailing garbage). Metadata batches are Kafka's raft ``BatchBuilder`` batches: records with a
null key and the serde bytes as value, zero timestamp deltas, the append time as the batch's
base and max timestamp, no producer, the raft epoch as partition leader epoch.
"""

from __future__ import annotations

import inspect
from typing import NamedTuple, Sequence

from kafpy.protocol import messages
from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.batch_header import RecordBatchHeader, parse_header
from kafpy.protocol.codec import decoder_for, encode_data
from kafpy.protocol.compression import NONE
from kafpy.protocol.errors import CorruptRecord, ProtocolError
from kafpy.protocol.messages import Message
from kafpy.protocol.varint import read_unsigned_varint, unsigned_varint
from kafpy.raft.batch_reader import Batch, decode_data_values, read_batches

__all__ = [
    "ApiMessageAndVersion",
    "MetadataParseError",
    "METADATA_RECORD_TYPES",
    "FRAME_VERSION",
    "write_record",
    "read_record",
    "build_metadata_batch",
    "decode_metadata_batch",
    "read_metadata_batches",
]

FRAME_VERSION = 1
_SHORT_MAX = 0x7FFF


class ApiMessageAndVersion(NamedTuple):
    """A metadata record and the version it is (or was) written at (Kafka's class of the
    same name)."""

    message: Message
    version: int


class MetadataParseError(CorruptRecord):
    """A metadata record's value does not decode (Kafka's ``MetadataParseException``)."""


def _metadata_record_types() -> dict[int, type[Message]]:
    found: dict[int, type[Message]] = {}
    for obj in vars(messages).values():
        if inspect.isclass(obj) and issubclass(obj, Message) and obj.KIND == "metadata" and obj.API_KEY is not None:
            found[obj.API_KEY] = obj
    return dict(sorted(found.items()))


# record type (MetadataRecordType's id) -> generated message class
METADATA_RECORD_TYPES: dict[int, type[Message]] = _metadata_record_types()


def write_record(record: ApiMessageAndVersion) -> bytes:
    """The serde bytes of one record (``TypeError`` for a message that is not a metadata record)."""
    message, version = record
    api_key = type(message).API_KEY
    if type(message).KIND != "metadata" or api_key is None:
        raise TypeError(f"{type(message).__name__} is not a metadata record")
    head = unsigned_varint(FRAME_VERSION) + unsigned_varint(api_key) + unsigned_varint(version)
    return head + encode_data(message, version)


def _read_short(buf: bytes | memoryview, pos: int, entity: str) -> tuple[int, int]:
    try:
        value, pos = read_unsigned_varint(buf, pos)
    except (IndexError, ValueError) as exc:
        raise MetadataParseError(f"Error while reading {entity}: {exc}") from exc
    if value > _SHORT_MAX:
        raise MetadataParseError(f"Value for {entity} was too large.")
    return value, pos


def read_record(value: bytes | bytearray | memoryview) -> ApiMessageAndVersion:
    """Decode one record from a record value (Kafka's ``AbstractApiMessageSerde.read``)."""
    buf: bytes | memoryview = value if isinstance(value, (bytes, memoryview)) else bytes(value)
    frame_version, pos = _read_short(buf, 0, "frame version")
    if frame_version == 0:
        raise MetadataParseError(
            "Could not deserialize metadata record with frame version 0. Note that upgrades from the "
            "preview release of KRaft in 2.8 to newer versions are not supported."
        )
    if frame_version != FRAME_VERSION:
        raise MetadataParseError(
            f"Could not deserialize metadata record due to unknown frame version {frame_version}"
            f"(only frame version {FRAME_VERSION} is supported)"
        )
    api_key, pos = _read_short(buf, pos, "type")
    version, pos = _read_short(buf, pos, "version")
    cls = METADATA_RECORD_TYPES.get(api_key)
    if cls is None:
        raise MetadataParseError(f"Unknown metadata id {api_key}")
    lo, hi = cls.VALID_VERSIONS
    if not lo <= version <= hi:
        raise MetadataParseError(
            f"Failed to deserialize record with type {api_key}: Can't read version {version} of {cls.NAME}"
        )
    mv = buf if isinstance(buf, memoryview) else memoryview(buf)
    try:
        message, end = decoder_for(cls, version)(buf, mv, pos, len(buf))
    except (ProtocolError, IndexError, ValueError, OverflowError, UnicodeDecodeError) as exc:
        raise MetadataParseError(f"Failed to deserialize record with type {api_key}: {exc}") from exc
    if end != len(buf):
        raise MetadataParseError(f"Found {len(buf) - end} byte(s) of garbage after {api_key}")
    return ApiMessageAndVersion(message, version)


def build_metadata_batch(
    records: Sequence[ApiMessageAndVersion],
    *,
    base_offset: int,
    append_time: int,
    leader_epoch: int,
    compression: int = NONE,
) -> bytes:
    """A batch of metadata records as Kafka's raft ``BatchBuilder`` writes it."""
    if not records:
        raise ValueError("a metadata batch needs at least one record")
    return build_batch(
        [(None, write_record(r), (), append_time) for r in records],
        base_offset=base_offset,
        base_timestamp=append_time,
        max_timestamp=append_time,
        partition_leader_epoch=leader_epoch,
        compression=compression,
    )


def decode_metadata_batch(
    buf: bytes | bytearray | memoryview, pos: int = 0
) -> tuple[RecordBatchHeader, list[ApiMessageAndVersion]]:
    """Header and records of the data batch at ``pos`` (CRC checked)."""
    header = parse_header(buf, pos)
    if header.is_control:
        raise CorruptRecord(f"batch at offset {header.base_offset} is a control batch, not metadata records")
    return header, [read_record(v) for v in decode_data_values(buf, pos, header)]


def read_metadata_batches(buf: bytes | bytearray | memoryview) -> list[Batch[ApiMessageAndVersion]]:
    """Every batch of a metadata log segment or snapshot, control and data alike, decoded."""
    return list(read_batches(buf, read_record))
