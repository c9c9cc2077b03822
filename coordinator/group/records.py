"""Keys and values of `__consumer_offsets` records, in Kafka's formats.

Key versions 0/1 are offset commits (OffsetCommitKey), 2 is group metadata
(GroupMetadataKey); every record type is named in coordinator/record_types.py. Values are written as Kafka 2.3+ brokers write them:
OffsetCommitValue v3 (v1 when an explicit expire timestamp exists, from
OffsetCommit v2-v4 retention_time_ms; v4 with its tagged topicId when the commit named
the topic by id, OffsetCommit v10 and TxnOffsetCommit v6, as Kafka 4.4 writes it) and
GroupMetadataValue v3, so Kafka's own
`kafka-dump-log --offsets-decoder` and brokers read them. Every version 0-4 of
both values is readable (v4 is the flexible encoding).

Encoded with the generated classes of protocol.messages (`encode_data`/`decode_data`
of protocol.codec), behind a two-byte version prefix as Kafka writes them. The
coordinator keeps its own small dataclasses in memory; this module converts.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from kafpy.protocol import messages
from kafpy.protocol.codec import MessageT, decode_data, encode_data
from kafpy.protocol.errors import ProtocolError
from kafpy.protocol.message_base import ZERO_UUID

from kafpy.coordinator.record_types import MODERN_GROUP_RECORDS, GroupRecordType

_I16 = struct.Struct(">h")


@dataclass
class OffsetCommitKey:
    group: str
    topic: str
    partition: int


@dataclass
class GroupMetadataKey:
    group: str


@dataclass
class OffsetAndMetadata:
    """One committed offset as kept in memory and in OffsetCommitValue."""
    offset: int
    leader_epoch: int = -1
    metadata: str = ""
    commit_timestamp: int = -1
    expire_timestamp: int = -1   # only from OffsetCommit v2-v4 with retention_time_ms
    topic_id: bytes = ZERO_UUID  # only from a commit that named the topic by id


@dataclass
class MemberRecord:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout: int
    session_timeout: int
    subscription: bytes
    assignment: bytes


@dataclass
class GroupMetadataValue:
    protocol_type: str
    generation: int
    protocol: str | None
    leader: str | None
    current_state_timestamp: int = -1
    members: list[MemberRecord] = field(default_factory=list)


# ---------------------------------------------------------------- encoding

def encode_offset_commit_key(group: str, topic: str, partition: int) -> bytes:
    return _I16.pack(GroupRecordType.OFFSET_COMMIT) + encode_data(
        messages.OffsetCommitKey(group=group, topic=topic, partition=partition), GroupRecordType.OFFSET_COMMIT)


def encode_group_metadata_key(group: str) -> bytes:
    return _I16.pack(GroupRecordType.GROUP_METADATA) + encode_data(messages.GroupMetadataKey(group=group), GroupRecordType.GROUP_METADATA)


def encode_offset_commit_value(om: OffsetAndMetadata) -> bytes:
    # v1 only carries an explicit expire timestamp (OffsetCommit v2-v4 retention_time_ms);
    # v4 (flexible, readable by Kafka 3.5+) only when there is a topic id to keep, so the
    # records of commits by name stay v3, as Kafka 3.9 writes them.
    version = 1 if om.expire_timestamp >= 0 else 4 if om.topic_id != ZERO_UUID else 3
    return _I16.pack(version) + encode_data(messages.OffsetCommitValue(
        offset=om.offset, leader_epoch=om.leader_epoch, metadata=om.metadata,
        commit_timestamp=om.commit_timestamp, expire_timestamp=om.expire_timestamp,
        topic_id=om.topic_id), version)


def encode_group_metadata_value(v: GroupMetadataValue) -> bytes:
    MM = messages.GroupMetadataValue.MemberMetadata
    return _I16.pack(3) + encode_data(messages.GroupMetadataValue(
        protocol_type=v.protocol_type, generation=v.generation, protocol=v.protocol,
        leader=v.leader, current_state_timestamp=v.current_state_timestamp,
        members=[MM(member_id=m.member_id, group_instance_id=m.group_instance_id,
                    client_id=m.client_id, client_host=m.client_host,
                    rebalance_timeout=m.rebalance_timeout, session_timeout=m.session_timeout,
                    subscription=m.subscription, assignment=m.assignment)
                 for m in v.members]), 3)


# ---------------------------------------------------------------- decoding

def _split(buf: bytes) -> tuple[int, bytes]:
    if len(buf) < 2:
        raise ValueError("record shorter than its version prefix")
    return _I16.unpack_from(buf, 0)[0], bytes(buf[2:])


def _decode(cls: type[MessageT], version: int, data: bytes) -> MessageT:
    try:
        return decode_data(cls, version, data)
    except ProtocolError as e:
        raise ValueError(f"bad {cls.__name__} v{version}: {e}") from e


def decode_key(buf: bytes) -> OffsetCommitKey | GroupMetadataKey | None:
    """The key of a classic group's record; None for a consumer-protocol or share group's."""
    version, data = _split(buf)
    if version in MODERN_GROUP_RECORDS:
        return None
    if version in (GroupRecordType.LEGACY_OFFSET_COMMIT, GroupRecordType.OFFSET_COMMIT):
        k = _decode(messages.OffsetCommitKey, version, data)
        return OffsetCommitKey(k.group, k.topic, k.partition)
    if version == GroupRecordType.GROUP_METADATA:
        return GroupMetadataKey(_decode(messages.GroupMetadataKey, GroupRecordType.GROUP_METADATA, data).group)
    raise ValueError(f"unknown __consumer_offsets key version {version}")


def decode_offset_commit_value(buf: bytes) -> OffsetAndMetadata:
    version, data = _split(buf)
    v = _decode(messages.OffsetCommitValue, version, data)
    return OffsetAndMetadata(v.offset, v.leader_epoch if version >= 3 else -1, v.metadata,
                             v.commit_timestamp, v.expire_timestamp if version == 1 else -1,
                             v.topic_id if version >= 4 else ZERO_UUID)


def decode_group_metadata_value(buf: bytes) -> GroupMetadataValue:
    version, data = _split(buf)
    v = _decode(messages.GroupMetadataValue, version, data)
    out = GroupMetadataValue(v.protocol_type, v.generation, v.protocol, v.leader,
                             v.current_state_timestamp if version >= 2 else -1)
    for m in v.members:
        rebalance = m.rebalance_timeout if version >= 1 and m.rebalance_timeout >= 0 \
            else m.session_timeout
        out.members.append(MemberRecord(
            m.member_id, m.group_instance_id if version >= 3 else None, m.client_id,
            m.client_host, rebalance, m.session_timeout, bytes(m.subscription or b""),
            bytes(m.assignment or b"")))
    return out


def parse_consumer_subscription_topics(metadata: bytes) -> set[str] | None:
    """Topics of a ConsumerProtocolSubscription (read as v0, the prefix of every
    version, as Kafka does), or None when the bytes do not parse."""
    try:
        version, data = _split(metadata)
        if version < 0:
            return None
        return set(decode_data(messages.ConsumerProtocolSubscription, 0, data).topics)
    except (ValueError, ProtocolError, UnicodeDecodeError, struct.error):
        return None
