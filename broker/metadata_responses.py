"""Metadata responses from cached, already encoded topic entries.

A full Metadata names every partition: at 20,000 partitions building the entries and
encoding them took ~250 ms of the event loop per request. Kafka answers from an immutable
metadata image; here each topic's entry is built and encoded once per (metadata version,
``TopicInfo``) — the cache's writer replaces a TopicInfo rather than changing it, so its
identity says whether an entry is current — and the whole "all topics" part once per
(version, ``MetadataCache.generation``, live brokers, offline partitions). A response is
then the small encoded head (brokers, cluster id, controller), the cached topic bytes and
the tail, spliced: the topics array is the last regular field of every version, followed
only by fixed-size fields (cluster authorized operations, v8-10) and the (empty) tagged
fields, whose size ``_Layout`` measures once per version from the codec's own output.

Keeps nothing on disk. Who may call it: the Metadata handler, on the event loop.
"""
from __future__ import annotations

import copy

import struct
import weakref
from typing import Callable

from kafpy.protocol import codec
from kafpy.protocol.messages import MetadataResponse
from kafpy.protocol.varint import unsigned_varint
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.handler import PreEncodedResponse
from kafpy.replication.metadata_cache import MetadataCache, TopicInfo

_INT32 = struct.Struct(">i")


class _Layout:
    """Where the topics array sits in an encoded Metadata response of one version."""

    def __init__(self, version: int) -> None:
        self.version = version
        flexible_min = codec.SPECS[ApiKey.METADATA].flexible_min
        self.flexible = flexible_min is not None and version >= flexible_min
        self.len_size = 1 if self.flexible else 4   # an empty array's length prefix
        empty = codec.encode_response(ApiKey.METADATA, version, 0, MetadataResponse(topics=[]))
        one = codec.encode_response(ApiKey.METADATA, version, 0, MetadataResponse(topics=[MetadataResponse.MetadataResponseTopic(name="x")]))
        i = 4  # past the size prefix, which differs
        while empty[i] == one[i]:
            i += 1
        # the first difference is the last byte of the array's length: the tail follows it
        self.tail = len(empty) - (i + 1)
        self.topics_at = len(empty) - self.tail   # in a default response, where topic bytes go

    def topic_bytes(self, entry: MetadataResponse.MetadataResponseTopic) -> bytes:
        """``entry`` (a MetadataResponseTopic) encoded as an element of the topics array."""
        e = codec.encode_response(ApiKey.METADATA, self.version, 0, MetadataResponse(topics=[entry]))
        return e[self.topics_at:len(e) - self.tail]

    def array_length(self, n: int) -> bytes:
        return unsigned_varint(n + 1) if self.flexible else _INT32.pack(n)


_LAYOUTS: dict[int, _Layout] = {}


def layout(version: int) -> _Layout:
    lay = _LAYOUTS.get(version)
    if lay is None:
        lay = _LAYOUTS[version] = _Layout(version)
    return lay


class EncodedMetadataResponse(MetadataResponse, PreEncodedResponse):
    """A MetadataResponse whose ``topics`` (shared, cached entries: read only) also come
    encoded in ``topic_bytes``; the server sends ``encode_chunks``."""

    __slots__ = ("topic_bytes",)
    topic_bytes: bytes

    def plain(self) -> MetadataResponse:
        """A MetadataResponse of its own with copies of the topic entries, for a caller that
        changes the answer (the authorizer filters topics and fills in authorized
        operations): the entries here are shared with the cache and ``topic_bytes`` would
        no longer match them."""
        out = MetadataResponse(**{f: getattr(self, f) for f in MetadataResponse.__slots__})
        out.topics = [copy.copy(t) for t in self.topics]
        return out

    def encode_chunks(self, api_version: int, correlation_id: int) -> list:
        lay = layout(api_version)
        topics, self.topics = self.topics, []
        try:
            e = codec.encode_response(ApiKey.METADATA, api_version, correlation_id, self)
        finally:
            self.topics = topics
        cut = len(e) - lay.tail
        head = e[4:cut - lay.len_size]
        arr = lay.array_length(len(topics))
        body = self.topic_bytes
        size = len(head) + len(arr) + len(body) + lay.tail
        out = [_INT32.pack(size) + head + arr, body]
        if lay.tail:
            out.append(e[cut:])
        return out


_Topic = MetadataResponse.MetadataResponseTopic


class TopicEntryCache:
    """Built and encoded topic entries of one MetadataCache (see the module docstring)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, str], tuple[TopicInfo, _Topic, bytes, object]] = {}
        self._all: dict[int, tuple[tuple[int, object], list[_Topic], bytes]] = {}

    def entry(self, version: int, info: TopicInfo, key: object,
              build: Callable[[TopicInfo], _Topic]) -> tuple[_Topic, bytes]:
        """(entry, its bytes) for ``info``, built by ``build`` when not cached for this
        TopicInfo and ``key`` (what else the entry depends on: live brokers, offline set)."""
        k = (version, info.name)
        hit = self._entries.get(k)
        if hit is not None and hit[0] is info and hit[3] == key:
            return hit[1], hit[2]
        obj = build(info)
        data = layout(version).topic_bytes(obj)
        self._entries[k] = (info, obj, data, key)
        return obj, data

    def all_topics(self, version: int, md: MetadataCache, key: object,
                   build: Callable[[TopicInfo], _Topic]) -> tuple[list[_Topic], bytes]:
        """Every topic's entry, by name, and their bytes joined."""
        full = (md.generation, key)
        hit = self._all.get(version)
        if hit is not None and hit[0] == full:
            return hit[1], hit[2]
        entries, parts = [], []
        for info in sorted(md.topics().values(), key=lambda t: t.name):
            obj, data = self.entry(version, info, key, build)
            entries.append(obj)
            parts.append(data)
        names = set(md.topics())
        for k in [k for k in self._entries if k[1] not in names]:
            del self._entries[k]  # deleted topics
        joined = b"".join(parts)
        self._all[version] = (full, entries, joined)
        return entries, joined


_CACHES: "weakref.WeakKeyDictionary[MetadataCache, TopicEntryCache]" = weakref.WeakKeyDictionary()


def entry_cache(md: MetadataCache) -> TopicEntryCache:
    c = _CACHES.get(md)
    if c is None:
        c = _CACHES[md] = TopicEntryCache()
    return c
