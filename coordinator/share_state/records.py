"""The records of `__share_group_state`, in Kafka 4.4's formats, so Apache's
`kafka-dump-log --share-group-state-decoder` and a Kafka broker read them.

Key: int16 record type (0 ShareSnapshot, 1 ShareUpdate) + the key data (group id, topic id,
partition). Value: int16 version 0 + ShareSnapshotValue / ShareUpdateValue (flexible). A
tombstone of the ShareSnapshot key (value None) deletes the share partition's state.

Who calls it: the ShareCoordinatorShard (writes and replay). Pure.
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass, field

from kafpy.protocol import messages
from kafpy.protocol.codec import decode_data, encode_data

from kafpy.coordinator.record_types import ShareStateRecordType
from kafpy.coordinator.share_state.persister import SharePartitionKey, StateBatch

_I16 = struct.Struct(">h")
SHARE_SNAPSHOT, SHARE_UPDATE = ShareStateRecordType.SHARE_SNAPSHOT, ShareStateRecordType.SHARE_UPDATE
VALUE_VERSION = 0


@dataclass
class ShareGroupOffset:
    """A share partition's state as one record carries it (Kafka's ShareGroupOffset)."""

    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    batches: list[StateBatch] = field(default_factory=list)
    delivery_complete_count: int = -1
    create_timestamp: int = -1
    write_timestamp: int = -1


def encode_key(record_type: int, key: SharePartitionKey) -> bytes:
    cls: type[messages.ShareSnapshotKey] | type[messages.ShareUpdateKey] = (
        messages.ShareSnapshotKey if record_type == SHARE_SNAPSHOT else messages.ShareUpdateKey)
    data = cls(group_id=key.group_id, topic_id=key.topic_id.bytes, partition=key.partition)
    return _I16.pack(record_type) + encode_data(data, record_type)


def decode_key(data: bytes) -> tuple[int, SharePartitionKey]:
    """(record type, key); ValueError for a type this topic does not hold."""
    (record_type,) = _I16.unpack_from(data, 0)
    cls: type[messages.ShareSnapshotKey] | type[messages.ShareUpdateKey]
    if record_type == SHARE_SNAPSHOT:
        cls = messages.ShareSnapshotKey
    elif record_type == SHARE_UPDATE:
        cls = messages.ShareUpdateKey
    else:
        raise ValueError(f"unknown share group state record type {record_type}")
    k = decode_data(cls, record_type, memoryview(data)[2:])
    return record_type, SharePartitionKey(k.group_id, uuid.UUID(bytes=bytes(k.topic_id)), k.partition)


def _batches(cls: type[messages.ShareSnapshotValue.StateBatch] | type[messages.ShareUpdateValue.StateBatch],
             batches: list[StateBatch]) -> list:
    return [cls(first_offset=b.first_offset, last_offset=b.last_offset,
                delivery_state=b.delivery_state, delivery_count=b.delivery_count) for b in batches]


def _from_batches(batches: list[messages.ShareSnapshotValue.StateBatch] | list[messages.ShareUpdateValue.StateBatch] | None
                  ) -> list[StateBatch]:
    return [StateBatch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count)
            for b in batches or []]


def encode_snapshot(s: ShareGroupOffset) -> bytes:
    value = messages.ShareSnapshotValue(
        snapshot_epoch=s.snapshot_epoch, state_epoch=s.state_epoch, leader_epoch=s.leader_epoch,
        start_offset=s.start_offset, delivery_complete_count=s.delivery_complete_count,
        create_timestamp=s.create_timestamp, write_timestamp=s.write_timestamp,
        state_batches=_batches(messages.ShareSnapshotValue.StateBatch, s.batches))
    return _I16.pack(VALUE_VERSION) + encode_data(value, VALUE_VERSION)


def encode_update(s: ShareGroupOffset) -> bytes:
    """An update carries no state epoch nor timestamps (they stay the snapshot's)."""
    value = messages.ShareUpdateValue(
        snapshot_epoch=s.snapshot_epoch, leader_epoch=s.leader_epoch, start_offset=s.start_offset,
        delivery_complete_count=s.delivery_complete_count,
        state_batches=_batches(messages.ShareUpdateValue.StateBatch, s.batches))
    return _I16.pack(VALUE_VERSION) + encode_data(value, VALUE_VERSION)


def decode_value(record_type: int, data: bytes) -> ShareGroupOffset:
    """The state a value carries; an update's state epoch and timestamps are -1."""
    (version,) = _I16.unpack_from(data, 0)
    if version != VALUE_VERSION:
        raise ValueError(f"unknown share group state value version {version}")
    if record_type == SHARE_SNAPSHOT:
        snapshot = decode_data(messages.ShareSnapshotValue, version, memoryview(data)[2:])
        return ShareGroupOffset(snapshot.snapshot_epoch, snapshot.state_epoch, snapshot.leader_epoch,
                                snapshot.start_offset, _from_batches(snapshot.state_batches),
                                snapshot.delivery_complete_count, snapshot.create_timestamp, snapshot.write_timestamp)
    v = decode_data(messages.ShareUpdateValue, version, memoryview(data)[2:])
    return ShareGroupOffset(v.snapshot_epoch, -1, v.leader_epoch, v.start_offset,
                            _from_batches(v.state_batches), v.delivery_complete_count)
