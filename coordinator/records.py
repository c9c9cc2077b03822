"""Keys and values of `__consumer_offsets` records, in Kafka's formats.

Key versions 0/1 are offset commits (OffsetCommitKey), 2 is group metadata
(GroupMetadataKey). Values are written as Kafka 2.3+ brokers write them:
OffsetCommitValue v3 (v1 when an explicit expire timestamp exists, from
OffsetCommit v2-v4 retention_time_ms) and GroupMetadataValue v3, so Kafka's own
`kafka-dump-log --offsets-decoder` and brokers read them. Every version 0-4 of
both values is readable (v4 is the flexible encoding).

Encoded by hand here (a handful of fixed layouts) until the generated message
classes of protocol.messages cover the group-coordinator schemas.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")


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

def _str(s: str) -> bytes:
    b = s.encode("utf-8")
    return _I16.pack(len(b)) + b


def _nstr(s: str | None) -> bytes:
    return _I16.pack(-1) if s is None else _str(s)


def _bytes(b: bytes) -> bytes:
    return _I32.pack(len(b)) + bytes(b)


def encode_offset_commit_key(group: str, topic: str, partition: int) -> bytes:
    return _I16.pack(1) + _str(group) + _str(topic) + _I32.pack(partition)


def encode_group_metadata_key(group: str) -> bytes:
    return _I16.pack(2) + _str(group)


def encode_offset_commit_value(om: OffsetAndMetadata) -> bytes:
    if om.expire_timestamp >= 0:
        return (_I16.pack(1) + _I64.pack(om.offset) + _str(om.metadata)
                + _I64.pack(om.commit_timestamp) + _I64.pack(om.expire_timestamp))
    return (_I16.pack(3) + _I64.pack(om.offset) + _I32.pack(om.leader_epoch)
            + _str(om.metadata) + _I64.pack(om.commit_timestamp))


def encode_group_metadata_value(v: GroupMetadataValue) -> bytes:
    out = [_I16.pack(3), _str(v.protocol_type), _I32.pack(v.generation), _nstr(v.protocol),
           _nstr(v.leader), _I64.pack(v.current_state_timestamp), _I32.pack(len(v.members))]
    for m in v.members:
        out += [_str(m.member_id), _nstr(m.group_instance_id), _str(m.client_id),
                _str(m.client_host), _I32.pack(m.rebalance_timeout),
                _I32.pack(m.session_timeout), _bytes(m.subscription), _bytes(m.assignment)]
    return b"".join(out)


# ---------------------------------------------------------------- decoding

class _Reader:
    __slots__ = ("buf", "pos", "flexible")

    def __init__(self, buf: bytes, pos: int = 0, flexible: bool = False) -> None:
        self.buf = bytes(buf)
        self.pos = pos
        self.flexible = flexible

    def _take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.buf):
            raise ValueError("truncated __consumer_offsets record")
        b = self.buf[self.pos:self.pos + n]
        self.pos += n
        return b

    def i16(self) -> int:
        return _I16.unpack(self._take(2))[0]

    def i32(self) -> int:
        return _I32.unpack(self._take(4))[0]

    def i64(self) -> int:
        return _I64.unpack(self._take(8))[0]

    def uvarint(self) -> int:
        shift = result = 0
        while True:
            b = self._take(1)[0]
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def _len(self, wide: bool) -> int:
        if self.flexible:
            return self.uvarint() - 1
        return self.i32() if wide else self.i16()

    def nstr(self) -> str | None:
        n = self._len(False)
        return None if n < 0 else self._take(n).decode("utf-8")

    def str(self) -> str:
        s = self.nstr()
        if s is None:
            raise ValueError("null string in non-nullable field")
        return s

    def bytes(self) -> bytes:
        n = self._len(True)
        return b"" if n < 0 else self._take(n)

    def array_len(self) -> int:
        return self._len(True)

    def tagged_fields(self) -> None:
        if self.flexible:
            for _ in range(self.uvarint()):
                self.uvarint()
                self._take(self.uvarint())


def decode_key(buf: bytes) -> OffsetCommitKey | GroupMetadataKey:
    r = _Reader(buf)
    version = r.i16()
    if version in (0, 1):
        return OffsetCommitKey(r.str(), r.str(), r.i32())
    if version == 2:
        return GroupMetadataKey(r.str())
    raise ValueError(f"unknown __consumer_offsets key version {version}")


def decode_offset_commit_value(buf: bytes) -> OffsetAndMetadata:
    version = _I16.unpack_from(buf, 0)[0]
    if not 0 <= version <= 4:
        raise ValueError(f"unknown OffsetCommitValue version {version}")
    r = _Reader(buf, 2, flexible=version >= 4)
    offset = r.i64()
    epoch = r.i32() if version >= 3 else -1
    metadata = r.str()
    commit_ts = r.i64()
    expire_ts = r.i64() if version == 1 else -1
    r.tagged_fields()
    return OffsetAndMetadata(offset, epoch, metadata, commit_ts, expire_ts)


def decode_group_metadata_value(buf: bytes) -> GroupMetadataValue:
    version = _I16.unpack_from(buf, 0)[0]
    if not 0 <= version <= 4:
        raise ValueError(f"unknown GroupMetadataValue version {version}")
    r = _Reader(buf, 2, flexible=version >= 4)
    v = GroupMetadataValue(r.str(), r.i32(), r.nstr(), r.nstr())
    if version >= 2:
        v.current_state_timestamp = r.i64()
    for _ in range(max(r.array_len(), 0)):
        member_id = r.str()
        instance = r.nstr() if version >= 3 else None
        client_id = r.str()
        client_host = r.str()
        rebalance = r.i32() if version >= 1 else -1
        session = r.i32()
        subscription = r.bytes()
        assignment = r.bytes()
        r.tagged_fields()
        if rebalance < 0:
            rebalance = session
        v.members.append(MemberRecord(member_id, instance, client_id, client_host,
                                      rebalance, session, subscription, assignment))
    r.tagged_fields()
    return v


def parse_consumer_subscription_topics(metadata: bytes) -> set[str] | None:
    """Topics of a ConsumerProtocolSubscription (any version: v0 is a prefix of all),
    or None when the bytes do not parse."""
    try:
        r = _Reader(metadata)
        if r.i16() < 0:
            return None
        n = r.i32()
        if n < 0 or n > len(metadata):
            return None
        return {r.str() for _ in range(n)}
    except (ValueError, UnicodeDecodeError, struct.error):
        return None
