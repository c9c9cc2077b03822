"""A protocol fuzzer against a live cluster, reproducible from its seed.

Requests come from the codec: every API the broker serves, at a random version, with fields
drawn hostile (extreme and negative integers, unknown and huge names, unknown topic ids,
arrays of thousands of entries at every nesting level the schema has, random or valid record
batches, enormous fetch sizes); a share of the frames is then mutated byte-wise (bit flips,
int32 lengths/counts overwritten with huge or negative values, truncation with or without the
size prefix fixed, garbage appended), and some are pure random frames or lying size prefixes.
Between batches: half-closed sockets (a partial frame, then SHUT_WR) and a burst of
``CONNECTIONS`` idle connections. APIs that legitimately change the cluster (deleting topics,
inter-broker controller requests, config changes, creating topics with any partition count)
are never encoded, and a mutation that lands on their api key is redirected, so that after
fuzzing every broker must still serve a normal client; also checked: every broker answers
throughout, and its RSS grew by less than ``RSS_GROWTH_LIMIT``."""
from __future__ import annotations

import random
import socket
import struct
import time
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition

from kafpy.protocol import codec
from kafpy.protocol.message_base import Struct
from kafpy.protocol.messages import RequestHeader
from kafpy.protocol.records import build_batch
from tests.support import wire

from .history import History

# LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown, CreateTopics, DeleteTopics,
# DeleteRecords, AlterConfigs, AlterReplicaLogDirs, CreatePartitions, DeleteGroups,
# IncrementalAlterConfigs, AlterPartitionReassignments, AlterPartition, AlterUserScram...
DESTRUCTIVE = {4, 5, 6, 7, 19, 20, 21, 33, 34, 37, 42, 44, 45, 51, 56, 57, 58, 67}
BATCH = 200  # requests per connection before it is drained and closed
CONNECTIONS = 1000  # idle connections opened at once, every CONNECTION_BURST_EVERY requests
CONNECTION_BURST_EVERY = 50_000
RSS_GROWTH_LIMIT = 256 << 20
INT_RANGES = {"int8": 7, "int16": 15, "int32": 31, "int64": 63}
TOPICS = ["chaos", "__consumer_offsets", "no-such-topic", "", "x" * 249, "\u00e9\u00e9"]
STRINGS = ["".join(chr(random.Random(n).randrange(32, 0x2FF)) for _ in range(n)) for n in (1, 10, 300, 2000)]
POOL = 2000  # encoded requests kept to mutate; a tenth of them is replaced every POOL frames


class RequestMaker:
    """Hostile but encodable requests, one ``frame()`` at a time."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.apis = [(k, s) for k, s in sorted(codec.SPECS.items()) if k not in DESTRUCTIVE]
        self.correlation = 0
        self.budget = 0  # array entries the request being built may still have
        self.pool: list[bytes] = []
        self.drawn = 0

    def value(self, owner: type, ftype: str, name: str, depth: int) -> Any:
        r = self.rng
        if ftype.startswith("[]"):
            inner = ftype[2:]
            n = r.choice((0, 1, 1, 2, 3)) if r.random() > 0.01 else r.choice((100, 1000, 3000))
            n = min(n, self.budget)  # thousands of entries at one level, not at every level
            self.budget -= n
            if n > 3:  # one hostile entry repeated: the count is what matters
                return [self.value(owner, inner, name, depth + 1)] * n
            return [self.value(owner, inner, name, depth + 1) for _ in range(n)]
        if ftype in INT_RANGES:
            bits = INT_RANGES[ftype]
            return r.choice((0, 1, -1, -2, (1 << bits) - 1, -(1 << bits), r.randrange(-5, 100),
                             r.randrange(-(1 << bits), 1 << bits)))
        if ftype == "uint16":
            return r.choice((0, 65535, r.randrange(65536)))
        if ftype == "float64":
            return r.choice((0.0, -1.0, 1e308, float("nan")))
        if ftype == "bool":
            return r.random() < 0.5
        if ftype == "string":
            return r.choice(TOPICS) if r.random() < 0.7 else r.choice(STRINGS)
        if ftype == "uuid":
            return r.choice((bytes(16), r.randbytes(16), b"\0" * 15 + b"\1"))
        if ftype == "bytes":
            if name == "records" and r.random() < 0.5:
                return build_batch([(None, b"fuzz-%d" % r.randrange(1000))] * r.randint(1, 5))
            return r.randbytes(r.choice((0, 1, 61, 200, 4096)))
        struct_cls = getattr(owner, ftype, None)
        if struct_cls is None or depth > 6:
            return None
        return self.struct(owner, struct_cls, depth + 1)

    def struct(self, owner: type, cls: type[Struct], depth: int) -> Any:
        kwargs = {}
        for f in cls.FIELDS:
            if self.rng.random() < 0.8:
                kwargs[f.name] = self.value(owner, f.type, f.name, depth)
        return cls(**kwargs)

    def valid_frame(self) -> bytes:
        """One encodable request (retries on the rare combination the codec refuses)."""
        for _ in range(20):
            key, spec = self.rng.choice(self.apis)
            version = self.rng.randint(spec.min_version, spec.max_version)
            cls = codec.request_class(key, version)
            self.correlation += 1
            header = RequestHeader(request_api_key=key, request_api_version=version,
                                   correlation_id=self.correlation, client_id="fuzz")
            self.budget = 3000
            try:
                return codec.encode_request(header, self.struct(cls, cls, 0))
            except (ValueError, TypeError, OverflowError, struct.error, AttributeError, UnicodeError):
                continue
        return wire.encode_request(18, 0, self.correlation)

    def pooled_frame(self) -> bytes:
        """A valid frame from the pool (encoding each one afresh would be the bottleneck)."""
        if len(self.pool) < POOL:
            self.pool.append(self.valid_frame())
            return self.pool[-1]
        self.drawn += 1
        if self.drawn % 10 == 0:
            self.pool[self.rng.randrange(POOL)] = self.valid_frame()
        return self.rng.choice(self.pool)

    def frame(self) -> tuple[bytes, bool]:
        """A frame to send and whether it is whole (its size prefix tells the truth)."""
        r = self.rng
        roll = r.random()
        if roll < 0.05:
            return struct.pack(">i", r.choice((-1, -(1 << 31), (1 << 31) - 1, 200 << 20))) + r.randbytes(8), False
        if roll < 0.10:
            body = r.randbytes(r.randrange(0, 300))
            return struct.pack(">i", len(body)) + body, True
        frame = bytearray(self.pooled_frame())
        if roll < 0.45:
            return bytes(frame), True
        payload = frame[4:]
        how = r.randrange(5)
        if how == 0:
            for _ in range(r.randint(1, 8)):
                i = r.randrange(len(payload))
                payload[i] ^= 1 << r.randrange(8)
        elif how == 1 and len(payload) > 12:
            i = r.randrange(8, len(payload) - 3)
            payload[i:i + 4] = struct.pack(">i", r.choice((-1, -2, 0x7FFFFFFF, 0x10000000, 1 << 24)))
        elif how == 2:
            payload = payload[:r.randrange(len(payload))]
        elif how == 3:
            payload += r.randbytes(r.randrange(1, 100))
        else:  # truncated body behind the original size prefix: the broker waits for the rest
            return bytes(frame[:r.randrange(4, len(frame))]), False
        if len(payload) >= 2 and struct.unpack_from(">h", payload)[0] in DESTRUCTIVE:
            payload[0:2] = struct.pack(">h", 18)
        return struct.pack(">i", len(payload)) + bytes(payload), True


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _drain(sock: socket.socket, timeout: float) -> None:
    sock.settimeout(timeout)
    try:
        while sock.recv(1 << 16):
            pass
    except OSError:
        pass


def _send_batch(host: str, port: int, maker: RequestMaker, n: int) -> int:
    """Up to ``n`` frames on one connection; stops at the first frame that is not whole."""
    sent = 0
    try:
        with socket.create_connection((host, port), timeout=5) as s:
            for _ in range(n):
                frame, whole = maker.frame()
                s.sendall(frame)
                sent += 1
                if not whole:
                    if maker.rng.random() < 0.5:
                        s.shutdown(socket.SHUT_WR)  # half-closed
                    break
            _drain(s, 0.05)
    except OSError:
        pass
    return sent


def _connection_burst(host: str, port: int, count: int) -> None:
    socks = []
    try:
        for i in range(count):
            try:
                s = socket.create_connection((host, port), timeout=2)
            except OSError:
                break
            if i % 3 == 0:
                s.sendall(struct.pack(">i", 100) + b"\0\x12")  # a frame that never completes
            socks.append(s)
    finally:
        for s in socks:
            s.close()


def serves_client(bootstrap: list[str], topic: str, n: int = 10) -> bool:
    """A normal producer and consumer round trip: n records acks=all, read back."""
    p = Producer({"bootstrap.servers": ",".join(bootstrap), "acks": "all", "message.timeout.ms": 20000,
                  "log_level": 2})
    acked: list = []
    for i in range(n):
        p.produce(topic, b"after-fuzz-%d" % i, partition=i % 3,
                  on_delivery=lambda err, m: acked.append((m.partition(), m.offset())) if err is None else None)
    p.flush(30)
    if len(acked) != n:
        return False
    first: dict[int, int] = {}
    for part, off in acked:
        first[part] = min(off, first.get(part, off))
    c = Consumer({"bootstrap.servers": ",".join(bootstrap), "group.id": "after-fuzz",
                  "enable.auto.commit": False, "log_level": 2})
    try:
        c.assign([TopicPartition(topic, part, off) for part, off in first.items()])
        got = c.consume(num_messages=n, timeout=20)
        return sum(m.error() is None for m in got) >= 1
    finally:
        c.close()


def fuzz_cluster(cluster: Any, count: int, seed: int, history: History) -> int:
    """Send ``count`` requests spread over the brokers; record problems; the number sent."""
    rng = random.Random(seed ^ 0xF022)
    maker = RequestMaker(rng)
    before = {i: rss(b.proc.pid) for i, b in enumerate(cluster.brokers)}
    sent, next_burst, start = 0, CONNECTION_BURST_EVERY // 10, time.monotonic()
    while sent < count:
        b = cluster.brokers[rng.randrange(len(cluster.brokers))]
        sent += _send_batch(b.host, b.port, maker, min(BATCH, count - sent))
        if sent >= next_burst:
            next_burst += CONNECTION_BURST_EVERY
            _connection_burst(b.host, b.port, CONNECTIONS)
            for i, other in enumerate(cluster.brokers):
                if not wire.api_versions(other.host, other.port, timeout=10):
                    history.record("not_serving", broker=i, after=sent)
    for i, b in enumerate(cluster.brokers):
        try:
            wire.api_versions(b.host, b.port, timeout=10)
        except OSError as e:
            history.record("not_serving", broker=i, after=sent, error=repr(e))
    after = {i: rss(b.proc.pid) if b.running else 0 for i, b in enumerate(cluster.brokers)}
    history.record("fuzz", sent=sent, seconds=round(time.monotonic() - start, 1),
                   rss_before=before, rss_after=after)
    for i in before:
        if after[i] - before[i] > RSS_GROWTH_LIMIT:
            history.record("fuzz_failed", broker=i, problem=f"RSS grew from {before[i]} to {after[i]}")
    if not serves_client(cluster.bootstrap, "chaos"):
        history.record("fuzz_failed", problem="a normal producer/consumer round trip failed after fuzzing")
    return sent
