"""The broker-to-broker client without sockets: an in-memory transport carries its requests
to a scripted peer that decodes them with the real codec and answers with encoded
responses, fed back through the connection's get_buffer/buffer_updated; time is a manual
timer, so timeouts and reconnect backoff are checked without sleeping."""
from __future__ import annotations

import asyncio
import struct
from typing import Any, Callable, cast

import pytest

from kafpy.protocol import codec
from kafpy.protocol.errors import ErrorCode, UnsupportedVersion
from kafpy.protocol.messages import (ApiVersionsResponse, FetchRequest, FetchResponse, MetadataRequest,
                               MetadataResponse, ProduceRequest)
from kafpy.replication.broker_connection import (BrokerConnection, CorrelationIdMismatch, Disconnected,
                                           RequestTimedOut)
from kafpy.replication.network_client import (ExponentialBackoff, NetworkClient, NetworkClientConfig,
                                        usable_versions)

API_VERSIONS, METADATA, FETCH, PRODUCE, LIST_OFFSETS = 18, 3, 1, 0, 2


class ManualTimer:
    """The loop's ``time``/``call_later``, on a clock that moves only in ``advance``."""

    def __init__(self) -> None:
        self.now = 0.0
        self.handles: list[Handle] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[..., Any], *args: Any) -> "Handle":
        h = Handle(self.now + delay, callback, args)
        self.handles.append(h)
        return h

    def advance(self, seconds: float) -> None:
        self.now += seconds
        while True:
            due = sorted((h for h in self.handles if not h.cancelled and h.when <= self.now + 1e-9),
                         key=lambda h: h.when)
            if not due:
                return
            h = due[0]
            self.handles.remove(h)
            h.cancelled = True
            h.callback(*h.args)


class Handle:
    def __init__(self, when: float, callback: Callable[..., Any], args: tuple) -> None:
        self.when, self.callback, self.args = when, callback, args
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Peer:
    """The other broker: decodes every request written to it; answers ApiVersions by
    itself (with ``ranges``) and keeps the rest in ``requests`` for the test to answer."""

    def __init__(self, ranges: list[tuple[int, int, int]]) -> None:
        self.ranges = ranges
        self.api_versions_max = 99       # highest ApiVersions version it understands
        self.requests: list[tuple[Any, Any]] = []
        self.api_versions_seen: list[int] = []
        self.transports: list[MemoryTransport] = []

    def received(self, transport: "MemoryTransport", data: bytes) -> None:
        header, body = codec.decode_request(data[4:])
        if header.request_api_key != API_VERSIONS:
            self.requests.append((header, body))
            return
        v = header.request_api_version
        self.api_versions_seen.append(v)
        ranges = [(k, lo, min(hi, self.api_versions_max) if k == API_VERSIONS else hi) for k, lo, hi in self.ranges]
        if v > self.api_versions_max:
            reply = codec.unsupported_api_versions_response(header.correlation_id, ranges)
        else:
            reply = codec.encode_response(API_VERSIONS, v, header.correlation_id, ApiVersionsResponse(
                error_code=0, api_keys=[ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
                                        for k, lo, hi in ranges]))
        transport.loop.call_soon(transport.deliver, reply)

    def answer(self, index: int, body: Any, transport: "MemoryTransport | None" = None, piece: int = 1 << 30) -> None:
        header, _ = self.requests[index]
        frame = codec.encode_response(header.request_api_key, header.request_api_version, header.correlation_id, body)
        (transport or self.transports[-1]).deliver(frame, piece)


class MemoryTransport:
    def __init__(self, loop: asyncio.AbstractEventLoop, protocol: BrokerConnection, peer: Peer) -> None:
        self.loop = loop
        self.protocol = protocol
        self.peer = peer
        self.aborted = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def write(self, data: bytes) -> None:
        assert not self.aborted
        self.peer.received(self, data)

    def deliver(self, data: bytes, piece: int = 1 << 30) -> None:
        pos = 0
        while pos < len(data) and not self.aborted:
            buf = self.protocol.get_buffer(-1)
            n = min(len(buf), piece, len(data) - pos)
            buf[:n] = data[pos:pos + n]
            pos += n
            self.protocol.buffer_updated(n)

    def abort(self) -> None:
        if not self.aborted:
            self.aborted = True
            self.loop.call_soon(self.protocol.connection_lost, None)

    def close(self) -> None:
        self.abort()


RANGES = [(PRODUCE, 3, 9), (FETCH, 4, 99), (METADATA, 0, 12), (API_VERSIONS, 0, 4), (LIST_OFFSETS, 40, 50),
          (999, 0, 1)]


class Rig:
    def __init__(self, ranges: list[tuple[int, int, int]] = RANGES, config: NetworkClientConfig | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.timer = ManualTimer()
        self.peer = Peer(ranges)
        self.attempts: list[float] = []
        self.refuse = 0
        self.client = NetworkClient("10.0.0.2", 9092, client_id="broker-1-fetcher-0", node_id=2,
                                    listener_name="REPLICATION", config=config or NetworkClientConfig(),
                                    loop=self.loop, timer=self.timer,  # type: ignore[arg-type]  # stand-ins
                                    connector=self.connect,  # type: ignore[arg-type]  # a memory transport
                                    rand=lambda: 0.5)

    async def connect(self, factory: Callable[[], BrokerConnection]) -> tuple[MemoryTransport, BrokerConnection]:
        self.attempts.append(self.timer.now)
        if self.refuse:
            self.refuse -= 1
            raise ConnectionRefusedError(111, "Connection refused")
        protocol = factory()
        transport = MemoryTransport(self.loop, protocol, self.peer)
        self.peer.transports.append(transport)
        protocol.connection_made(cast(asyncio.Transport, transport))   # the in-memory stand-in
        return transport, protocol

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def task(self, coro: Any) -> asyncio.Task:
        t = self.loop.create_task(coro)
        self.settle()
        return t

    def settle(self, rounds: int = 20) -> None:
        async def spin() -> None:
            for _ in range(rounds):
                await asyncio.sleep(0)
        self.loop.run_until_complete(spin())

    def close(self) -> None:
        self.run(self.client.close())
        self.settle()
        self.loop.close()


@pytest.fixture
def rig():
    r = Rig()
    yield r
    r.close()


def metadata(marker: int) -> MetadataResponse:
    return MetadataResponse(throttle_time_ms=marker, brokers=[], cluster_id="c", controller_id=2, topics=[])


def test_api_versions_negotiation_picks_the_highest_common_version_capped_by_the_codec(rig):
    rig.run(rig.client.ready())
    assert rig.client.is_ready
    assert rig.peer.api_versions_seen == [codec.SPECS[API_VERSIONS].max_version]
    assert rig.client.api_version(PRODUCE) == 9                                   # theirs is lower
    assert rig.client.api_version(FETCH) == codec.SPECS[FETCH].max_version        # ours is lower
    assert rig.client.api_version(METADATA) == 12
    with pytest.raises(UnsupportedVersion):
        rig.client.api_version(LIST_OFFSETS)   # their 40..50 does not meet our range
    with pytest.raises(UnsupportedVersion):
        rig.client.api_version(4)              # LeaderAndIsr: not offered by the peer


def test_api_versions_retried_at_the_version_the_broker_names():
    rig = Rig()
    rig.peer.api_versions_max = 3
    try:
        rig.run(rig.client.ready())
        assert rig.peer.api_versions_seen == [codec.SPECS[API_VERSIONS].max_version, 3]
        assert rig.client.api_version(API_VERSIONS) == 3
    finally:
        rig.close()


def test_usable_versions():
    ours = {0: (0, 11), 1: (4, 17), 3: (0, 12)}
    assert usable_versions(ours, [(0, 3, 9), (1, 0, 3), (3, 5, 20), (7, 0, 3)]) == {0: 9, 3: 12}


def test_pipelined_requests_are_answered_in_order_and_awaited_concurrently(rig):
    rig.run(rig.client.ready())
    tasks = [rig.task(rig.client.send(METADATA, MetadataRequest(topics=[]))) for _ in range(10)]
    assert len(rig.peer.requests) == 10 and not any(t.done() for t in tasks)
    frames = b"".join(codec.encode_response(METADATA, h.request_api_version, h.correlation_id,
                                            metadata(h.correlation_id)) for h, _ in rig.peer.requests)
    rig.peer.transports[-1].deliver(frames, piece=37)
    rig.settle()
    assert [t.result().throttle_time_ms for t in tasks] == [h.correlation_id for h, _ in rig.peer.requests]
    assert [h.request_api_version for h, _ in rig.peer.requests] == [12] * 10
    assert {h.client_id for h, _ in rig.peer.requests} == {"broker-1-fetcher-0"}


def test_a_response_out_of_turn_closes_the_connection(rig):
    rig.run(rig.client.ready())
    first, second = (rig.task(rig.client.send(METADATA, MetadataRequest(topics=[]))) for _ in range(2))
    transport = rig.peer.transports[-1]
    rig.peer.answer(1, metadata(2))   # the second request's answer comes first
    rig.settle()
    assert transport.aborted and not rig.client.is_ready
    for t in (first, second):
        with pytest.raises(Disconnected) as info:
            t.result()
        assert isinstance(info.value.__cause__, CorrelationIdMismatch)


def test_a_response_to_nothing_in_flight_closes_the_connection(rig):
    rig.run(rig.client.ready())
    transport = rig.peer.transports[-1]
    transport.deliver(codec.encode_response(METADATA, 12, 12345, metadata(0)))
    assert transport.aborted
    assert isinstance(transport.protocol.close_reason, CorrelationIdMismatch)


def test_a_timed_out_request_fails_and_takes_the_connection_with_it():
    rig = Rig(config=NetworkClientConfig(request_timeout_ms=1000))
    try:
        rig.run(rig.client.ready())
        slow = rig.task(rig.client.send(METADATA, MetadataRequest(topics=[])))
        rig.timer.advance(0.5)
        other = rig.task(rig.client.send(METADATA, MetadataRequest(topics=[]), timeout_ms=5000))
        rig.timer.advance(0.499)
        rig.settle()
        assert not slow.done() and not rig.peer.transports[-1].aborted
        rig.timer.advance(0.002)
        rig.settle()
        with pytest.raises(RequestTimedOut, match="no response within 1000 ms") as info:
            slow.result()
        assert info.value.error_code == ErrorCode.REQUEST_TIMED_OUT
        with pytest.raises(Disconnected):
            other.result()
        assert rig.peer.transports[-1].aborted
        assert not rig.client.is_ready
    finally:
        rig.close()


def test_an_answered_request_does_not_time_out(rig):
    rig.run(rig.client.ready())
    t = rig.task(rig.client.send(METADATA, MetadataRequest(topics=[])))
    rig.peer.answer(0, metadata(7))
    rig.settle()
    assert t.result().throttle_time_ms == 7
    rig.timer.advance(3600)
    assert rig.client.is_ready
    assert not [h for h in rig.timer.handles if not h.cancelled]


def drive_ready(rig: Rig) -> BaseException | None:
    """One ready() call, advancing the manual clock through its backoff wait."""
    t = rig.task(rig.client.ready())
    while not t.done():
        rig.timer.advance(rig.client.connection_delay())
        rig.settle()
    return t.exception()


def test_reconnect_backoff_doubles_up_to_the_maximum_and_resets_on_success():
    rig = Rig(config=NetworkClientConfig(reconnect_backoff_ms=50, reconnect_backoff_max_ms=1000))
    try:
        rig.refuse = 7
        for _ in range(7):
            err = drive_ready(rig)
            assert isinstance(err, Disconnected) and "refused" in str(err)
        assert drive_ready(rig) is None
        gaps = [round((b - a) * 1000) for a, b in zip(rig.attempts, rig.attempts[1:])]
        assert gaps == [50, 100, 200, 400, 800, 1000, 1000]
        assert rig.client.failed_attempts == 0
        # a connection that drops waits reconnect.backoff.ms again, not the maximum
        rig.peer.transports[-1].abort()
        rig.settle()
        assert not rig.client.is_ready
        assert round(rig.client.connection_delay() * 1000) == 50
        t = rig.task(rig.client.send(METADATA, MetadataRequest(topics=[])))
        assert not t.done() and len(rig.attempts) == 8   # waiting out the backoff
        rig.timer.advance(0.05)
        rig.settle()
        assert len(rig.attempts) == 9 and len(rig.peer.requests) == 1
        rig.peer.answer(0, metadata(1))
        rig.settle()
        assert t.result().throttle_time_ms == 1
    finally:
        rig.close()


def test_exponential_backoff_jitter_stays_within_twenty_percent_and_under_the_maximum():
    low = ExponentialBackoff(100, 2, 1000, 0.2, rand=lambda: 0.0)
    high = ExponentialBackoff(100, 2, 1000, 0.2, rand=lambda: 0.999999)
    assert [low.backoff(n) for n in range(6)] == [80, 160, 320, 640, 800, 800]
    assert [high.backoff(n) for n in range(6)] == [119, 239, 479, 959, 1000, 1000]
    assert ExponentialBackoff(100, 2, 100, 0.2).backoff(5) == 100   # no growth when max == initial


def test_concurrent_callers_share_one_connection_attempt(rig):
    tasks = [rig.task(rig.client.send(METADATA, MetadataRequest(topics=[]))) for _ in range(3)]
    assert len(rig.attempts) == 1 and len(rig.peer.requests) == 3
    for i in range(3):
        rig.peer.answer(i, metadata(i))
    rig.settle()
    assert [t.result().throttle_time_ms for t in tasks] == [0, 1, 2]


def test_close_fails_pending_requests_and_later_ones(rig):
    rig.run(rig.client.ready())
    pending = [rig.task(rig.client.send(METADATA, MetadataRequest(topics=[]))) for _ in range(2)]
    rig.run(rig.client.close())
    rig.settle()
    for t in pending:
        with pytest.raises(Disconnected):
            t.result()
    with pytest.raises(Disconnected):
        rig.run(rig.client.send(METADATA, MetadataRequest(topics=[])))
    assert len(rig.attempts) == 1


def test_close_during_the_backoff_wait_fails_the_waiting_request(rig):
    rig.refuse = 1
    assert isinstance(drive_ready(rig), Disconnected)
    t = rig.task(rig.client.send(METADATA, MetadataRequest(topics=[])))
    assert not t.done() and rig.client.connection_delay() > 0
    rig.run(rig.client.close())
    rig.settle()
    with pytest.raises(Disconnected, match="closed"):
        t.result()
    assert len(rig.attempts) == 1


def test_produce_with_acks_0_expects_no_response(rig):
    rig.run(rig.client.ready())
    req = ProduceRequest(transactional_id=None, acks=0, timeout_ms=1000, topic_data=[])
    assert rig.run(rig.client.send(PRODUCE, req)) is None
    assert not rig.client.connection.in_flight
    # the next request's answer is matched as usual
    t = rig.task(rig.client.send(METADATA, MetadataRequest(topics=[])))
    rig.peer.answer(1, metadata(5))
    rig.settle()
    assert t.result().throttle_time_ms == 5


def test_a_large_fetch_response_arrives_in_pieces_and_its_records_are_slices_of_it(rig):
    rig.run(rig.client.ready())
    records = bytes(range(256)) * 1024    # 256 KiB, larger than the client's read buffer
    t = rig.task(rig.client.send(FETCH, FetchRequest(replica_id=1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20,
                                                     isolation_level=0, session_id=0, session_epoch=-1, topics=[],
                                                     forgotten_topics_data=[], rack_id="")))
    part = FetchResponse.PartitionData(partition_index=0, error_code=0, high_watermark=1, last_stable_offset=1,
                                       log_start_offset=0, aborted_transactions=None, preferred_read_replica=-1,
                                       records=records)
    rig.peer.answer(0, FetchResponse(throttle_time_ms=0, error_code=0, session_id=0, responses=[
        FetchResponse.FetchableTopicResponse(topic="t", topic_id=bytes(16), partitions=[part])]), piece=10_000)
    rig.settle()
    got = t.result().responses[0].partitions[0].records
    assert bytes(got) == records
    assert isinstance(got, memoryview)


def test_a_truncated_size_prefix_from_the_peer_is_not_mistaken_for_a_response(rig):
    rig.run(rig.client.ready())
    t = rig.task(rig.client.send(METADATA, MetadataRequest(topics=[])))
    transport = rig.peer.transports[-1]
    transport.deliver(struct.pack(">i", -1))
    rig.settle()
    assert transport.aborted
    with pytest.raises(Disconnected):
        t.result()


def test_config_from_kafka_property_names():
    cfg = NetworkClientConfig.from_properties({"request.timeout.ms": "1500", "reconnect.backoff.ms": 10,
                                               "reconnect.backoff.max.ms": "200"})
    assert (cfg.request_timeout_ms, cfg.reconnect_backoff_ms, cfg.reconnect_backoff_max_ms) == (1500, 10, 200)
    assert cfg.connection_setup_timeout_ms == NetworkClientConfig().connection_setup_timeout_ms
