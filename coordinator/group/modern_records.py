"""The byte layout the records of modern groups (consumer, share and Streams groups) share
in `__consumer_offsets`: an int16 key version (Kafka 4.x's record type) before the key,
an int16 value version (0, flexible) before the value, a value of None for a tombstone.

Who calls it: consumer_records.py, share_records.py and streams_records.py, which name
their own key and value classes; nothing else.
"""
from __future__ import annotations

import struct
from typing import Any, Callable, Iterable, Mapping, TypeVar

from kafpy.protocol.codec import decode_data, encode_data
from kafpy.protocol.errors import ProtocolError
from kafpy.protocol.messages import Message

I16 = struct.Struct(">h")

# a topic id -> partitions (the assignments of consumer and share groups)
TopicIdPartitions = dict[bytes, set[int]]


def encode_key(kind: int, key: Message) -> bytes:
    """The key of record type `kind` (its key is encoded at version `kind`)."""
    return I16.pack(kind) + encode_data(key, kind)


def encode_value(obj: Message) -> bytes:
    return I16.pack(0) + encode_data(obj, 0)


def decode(keys: Mapping[int, type[Message]], values: Mapping[int, type[Message]], what: str,
           key: bytes, value: bytes | None) -> tuple[int, Any, Any]:
    """(key version, decoded key, decoded value or None for a tombstone) of a record
    whose key version is one of `keys`. Raises ValueError, naming `what` ("consumer
    group", ...), for bytes that do not parse."""
    if len(key) < 2:
        raise ValueError("record key shorter than its version")
    kind = I16.unpack_from(key, 0)[0]
    if kind not in keys:
        raise ValueError(f"not a {what} record: key version {kind}")
    try:
        k = decode_data(keys[kind], kind, bytes(key[2:]))
        v = None
        if value is not None:
            v = decode_data(values[kind], I16.unpack_from(value, 0)[0], bytes(value[2:]))
    except (ProtocolError, struct.error, UnicodeDecodeError) as e:
        raise ValueError(f"bad {what} record (key version {kind}): {e}") from e
    return kind, k, v


_T = TypeVar("_T")


def topic_partitions(cls: Callable[..., _T], a: TopicIdPartitions) -> list[_T]:
    """`a` as a record's list of `cls(topic_id, partitions)`, empty topics left out."""
    return [cls(topic_id=t, partitions=sorted(ps)) for t, ps in sorted(a.items()) if ps]


def assignment(items: Iterable) -> TopicIdPartitions:
    """A record's list of (topic_id, partitions) back as a mapping, empty topics left out."""
    return {bytes(tp.topic_id): set(tp.partitions) for tp in items if tp.partitions}
