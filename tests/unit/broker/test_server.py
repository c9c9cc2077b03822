"""The socket server's connection: framing, eager dispatch, in-order responses, coalesced and
partial writes, sendfile slices, backpressure and cancellation.

No network: the connection writes to one end of a Unix socketpair and the test reads the
other; handlers are stand-ins registered in a real ``ApiRegistry``.
"""
from __future__ import annotations

import asyncio
import os
import socket
import struct
import tempfile
from types import SimpleNamespace

import pytest

from kafpy.broker import server as server_mod
from kafpy.broker.acceptor import Acceptor
from kafpy.broker.apis import ApiRegistry
from kafpy.broker.connection_quotas import ConnectionQuotas
from kafpy.broker.handler import CloseConnection, Handler
from kafpy.broker.config import KafkaConfig
from kafpy.broker.server import KafkaConnection, SocketServer, SocketWriter, TrafficStats
from kafpy.protocol import codec
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.messages import ApiVersionsRequest, ApiVersionsResponse, FetchResponse, RequestHeader


class Slice:
    """A record slice as the log returns it: a file region sent with sendfile."""

    def __init__(self, f, position: int, size: int) -> None:
        self.file = f
        self.position = position
        self.size = size

    def fileno(self) -> int:
        return self.file.fileno()


class Transport:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.paused = 0
        self.resumed = 0
        self.aborted = False

    def get_extra_info(self, name, default=None):
        return {"socket": self.sock, "peername": ("127.0.0.1", 4242)}.get(name, default)

    def pause_reading(self) -> None:
        self.paused += 1

    def resume_reading(self) -> None:
        self.resumed += 1

    def abort(self) -> None:
        self.aborted = True


class StandIn:
    """What the connection needs of its server; handlers steered by client id."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        # the declared parts a connection reads; none configured
        self.services = SimpleNamespace(quotas=None, share_partitions=None, user_configs=None)
        self.observer = None
        self.clock = lambda: 0.0
        self.max_request_size = 1 << 20
        self.send_buffer_bytes = -1   # socket.send.buffer.bytes: the OS default
        self.connections: set = set()
        self.stats = TrafficStats()
        self.scratch = bytearray(server_mod.READ_BUFFER_SIZE)
        self.memory_pool = None   # queued.max.request.bytes off, as by default
        self.security: dict = {}   # PLAINTEXT: no AuthSession
        unlimited = ConnectionQuotas(["PLAINTEXT"], max_connections=2**31 - 1, max_per_ip=2**31 - 1)
        self.acceptor = Acceptor(unlimited, self.connections, None, loop, self.clock)  # type: ignore[arg-type]
        self.waits: dict[str, asyncio.Future] = {}
        self.calls: list[int] = []
        self.slice: Slice | None = None
        self.apis = ApiRegistry([Handler(ApiKey.API_VERSIONS, 0, 4, self.api_versions), Handler(ApiKey.FETCH, 12, 12, self.fetch)])

    async def api_versions(self, ctx, req):
        self.calls.append(ctx.header.correlation_id)
        cid = ctx.client_id
        if cid.startswith("wait:"):
            fut = self.waits.setdefault(cid[5:], self.loop.create_future())
            await fut
        elif cid == "none":
            return None
        elif cid == "close":
            raise CloseConnection("asked to")
        elif cid == "bug":
            raise RuntimeError("handler bug")
        return ApiVersionsResponse(error_code=0, api_keys=[], throttle_time_ms=ctx.header.correlation_id)

    async def fetch(self, ctx, req):
        part = FetchResponse.PartitionData(partition_index=0, error_code=0, high_watermark=1, last_stable_offset=1,
                                           log_start_offset=0, aborted_transactions=None,
                                           preferred_read_replica=-1, records=self.slice)
        return FetchResponse(throttle_time_ms=0, error_code=0, session_id=0, responses=[
            FetchResponse.FetchableTopicResponse(topic="t", topic_id=bytes(16), partitions=[part])])


def request(corr: int, client_id: str, api_key: int = ApiKey.API_VERSIONS, version: int = 3, body=None) -> bytes:
    header = RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=corr,
                           client_id=client_id)
    if body is None:
        body = ApiVersionsRequest(client_software_name="t", client_software_version="1")
    return codec.encode_request(header, body)


def fetch_request(corr: int) -> bytes:
    from kafpy.protocol.messages import FetchRequest
    return request(corr, "c", ApiKey.FETCH, 12, FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20,
                                                       isolation_level=0, session_id=0, session_epoch=-1,
                                                       topics=[], forgotten_topics_data=[], rack_id=""))


class Harness:
    def __init__(self, sndbuf: int | None = None, memory_pool=None) -> None:
        self.loop = asyncio.new_event_loop()
        self.ours, self.peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        if sndbuf is not None:
            self.ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        self.ours.setblocking(False)
        self.peer.settimeout(5)
        self.stand_in = StandIn(self.loop)
        self.stand_in.memory_pool = memory_pool
        self.conn = KafkaConnection(self.stand_in, "PLAINTEXT")  # type: ignore[arg-type]
        self.transport = Transport(self.ours)
        self.conn.connection_made(self.transport)  # type: ignore[arg-type]
        self.received = bytearray()

    def feed(self, data: bytes, piece: int = 1 << 30) -> None:
        pos = 0
        while pos < len(data):
            buf = self.conn.get_buffer(-1)
            n = min(len(buf), piece, len(data) - pos)
            buf[:n] = data[pos:pos + n]
            pos += n
            self.conn.buffer_updated(n)

    def settle(self, rounds: int = 50) -> None:
        async def spin():
            for _ in range(rounds):
                await asyncio.sleep(0)
        self.loop.run_until_complete(spin())

    def responses(self, count: int, api_key: int = ApiKey.API_VERSIONS, version: int = 3) -> list:
        out = []
        for _ in range(count):
            size = struct.unpack(">i", self._read(4))[0]
            frame = self._read(size)
            out.append(codec.decode_response(api_key, version, frame))
        return out

    def _read(self, n: int) -> bytes:
        while len(self.received) < n:
            chunk = self.peer.recv(1 << 20)
            assert chunk, "connection closed"
            self.received += chunk
        out = bytes(self.received[:n])
        del self.received[:n]
        return out

    def nothing_pending(self) -> bool:
        self.peer.setblocking(False)
        try:
            return self.peer.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return True
        finally:
            self.peer.settimeout(5)

    def close(self) -> None:
        self.conn.connection_lost(None)
        self.settle()
        self.ours.close()
        self.peer.close()
        self.loop.close()


@pytest.fixture
def h():
    harness = Harness()
    yield harness
    harness.close()


def test_a_handler_that_does_not_wait_is_answered_inside_the_read_callback(h):
    h.feed(request(7, "c"))
    # no loop iteration ran: the response is already on the socket, and no task was made
    assert h.conn.response_task is None
    [(corr, body)] = h.responses(1)
    assert corr == 7 and body.throttle_time_ms == 7


def test_several_frames_in_one_read_and_a_frame_split_across_reads(h):
    data = request(1, "c") + request(2, "c") + request(3, "c")
    h.feed(data[:5])
    h.feed(data[5:], piece=7)
    assert [c for c, _ in h.responses(3)] == [1, 2, 3]


def test_responses_keep_request_order_when_an_earlier_handler_waits(h):
    h.feed(request(1, "wait:a") + request(2, "c") + request(3, "none") + request(4, "c"))
    h.settle()
    assert h.stand_in.calls == [1, 2, 3, 4]
    assert h.nothing_pending()  # 2 and 4 are ready but must not overtake 1
    assert len(h.conn.queue) == 4
    h.stand_in.waits["a"].set_result(None)
    h.settle()
    # 3 asked for no response (acks=0)
    assert [c for c, _ in h.responses(3)] == [1, 2, 4]
    assert not h.conn.queue
    h.feed(request(5, "c"))
    assert [c for c, _ in h.responses(1)] == [5]


def test_two_waiting_handlers_finishing_in_reverse_order(h):
    h.feed(request(1, "wait:a") + request(2, "wait:b"))
    h.settle()
    h.stand_in.waits["b"].set_result(None)
    h.settle()
    assert h.nothing_pending()
    h.stand_in.waits["a"].set_result(None)
    h.settle()
    assert [c for c, _ in h.responses(2)] == [1, 2]


def test_close_connection_after_the_responses_before_it(h):
    h.feed(request(1, "wait:a") + request(2, "c") + request(3, "close") + request(4, "c"))
    h.stand_in.waits["a"].set_result(None)
    h.settle()
    assert [c for c, _ in h.responses(2)] == [1, 2]
    assert h.transport.aborted
    assert h.nothing_pending()


def test_close_connection_from_a_handler_that_does_not_wait(h):
    h.feed(request(1, "close"))
    assert h.transport.aborted


def test_a_failing_handler_is_answered_with_unknown_server_error_and_the_connection_stays(h):
    h.feed(request(1, "c") + request(2, "bug") + request(3, "wait:a") + request(4, "bug"))
    h.stand_in.waits["a"].set_result(None)
    h.settle()
    answers = h.responses(4)
    assert [c for c, _ in answers] == [1, 2, 3, 4]
    assert [b.error_code for _, b in answers] == [0, -1, 0, -1]
    assert not h.transport.aborted


def test_connection_lost_cancels_waiting_handlers(h):
    h.feed(request(1, "wait:a") + request(2, "c"))
    h.settle()
    task = h.conn.queue[0]
    h.conn.connection_lost(None)
    h.settle()
    assert task.cancelled()
    assert h.stand_in.waits["a"].cancelled()  # the handler's own await was cancelled too
    assert not h.conn.queue


def test_backpressure_pauses_and_resumes_reading(h):
    n = server_mod.MAX_QUEUED_REQUESTS
    h.feed(b"".join(request(i, "wait:a") for i in range(n)))
    assert h.transport.paused == 1
    h.stand_in.waits["a"].set_result(None)
    h.settle(200)
    assert h.transport.resumed == 1
    assert [c for c, _ in h.responses(n)] == list(range(n))


def test_unsupported_api_versions_version_is_answered_with_the_ranges(h):
    # a version newer than ours: header v2 (no tagged fields), as the Java client sends it
    payload = struct.pack(">hhih", ApiKey.API_VERSIONS, 99, 9, 1) + b"c" + b"\0"
    h.feed(struct.pack(">i", len(payload)) + payload)
    size = struct.unpack(">i", h._read(4))[0]
    corr, error = struct.unpack(">ih", h._read(size)[:6])
    assert (corr, error) == (9, 35)


def test_record_slices_go_out_with_sendfile_between_the_bytes(h):
    with tempfile.TemporaryFile() as f:
        payload = os.urandom(50_000)
        f.write(b"x" * 100 + payload)
        f.flush()
        h.stand_in.slice = Slice(f, 100, len(payload))
        h.feed(fetch_request(3) + request(4, "c"))
        [(corr, resp)] = h.responses(1, ApiKey.FETCH, 12)
        assert corr == 3
        assert bytes(resp.responses[0].partitions[0].records) == payload
        assert [c for c, _ in h.responses(1)] == [4]
        assert h.stand_in.stats.sendfile_bytes == len(payload)


def test_partial_writes_finish_in_order_once_the_peer_reads():
    h = Harness(sndbuf=4096)
    try:
        with tempfile.TemporaryFile() as f:
            payload = os.urandom(300_000)
            f.write(payload)
            f.flush()
            h.stand_in.slice = Slice(f, 0, len(payload))
            h.feed(fetch_request(1) + request(2, "c") + fetch_request(3) + request(4, "c"))
            assert h.conn.response_task is not None  # the socket filled: a task finishes the writes
            got = []

            async def read_all():
                for _ in range(4):
                    size = struct.unpack(">i", await recv_exact(4))[0]
                    got.append(await recv_exact(size))

            async def recv_exact(n):
                while len(h.received) < n:
                    h.received += await h.loop.sock_recv(h.peer, 1 << 16)
                out = bytes(h.received[:n])
                del h.received[:n]
                return out

            h.peer.setblocking(False)
            h.loop.run_until_complete(asyncio.wait_for(read_all(), 10))
            corr1, r1 = codec.decode_response(ApiKey.FETCH, 12, got[0])
            corr3, r3 = codec.decode_response(ApiKey.FETCH, 12, got[2])
            assert (corr1, corr3) == (1, 3)
            assert bytes(r1.responses[0].partitions[0].records) == payload
            assert bytes(r3.responses[0].partitions[0].records) == payload
            assert [codec.decode_response(ApiKey.API_VERSIONS, 3, g)[0] for g in (got[1], got[3])] == [2, 4]
    finally:
        h.close()


def test_a_request_larger_than_the_read_buffer_is_received_into_its_own_buffer(h):
    big = ApiVersionsRequest(client_software_name="x" * (server_mod.READ_BUFFER_SIZE + 1000),
                             client_software_version="1")
    h.feed(request(1, "c") + request(2, "c", body=big) + request(3, "c"), piece=60_000)
    assert [c for c, _ in h.responses(3)] == [1, 2, 3]


def test_oversized_request_closes_the_connection(h):
    h.feed(struct.pack(">i", h.stand_in.max_request_size + 1) + b"\0" * 10)
    assert h.transport.aborted


def test_writer_gathers_bytes_and_returns_what_the_socket_did_not_take():
    loop = asyncio.new_event_loop()
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    a.setblocking(False)
    try:
        w = SocketWriter(loop, a, TrafficStats())
        chunks = [os.urandom(1000) for _ in range(200)]
        rest = w.write_now(list(chunks))
        assert rest  # 200 KB do not fit a 4 KiB socket buffer
        sent = w.stats.bytes_sent
        assert sum(len(c) for c in rest) == 200_000 - sent
        got = bytearray()
        while rest:
            got += b.recv(1 << 20)
            rest = w.write_now(rest)
        b.settimeout(5)
        while len(got) < 200_000:
            got += b.recv(1 << 20)
        assert bytes(got) == b"".join(chunks)
        w.close()
    finally:
        a.close()
        b.close()
        loop.close()


def test_an_error_outside_the_handler_closes_after_the_earlier_responses(h, monkeypatch):
    real = codec.decode_request

    def decode(frame):
        header, body = real(frame)
        if header.correlation_id == 3:
            raise IndexError("a decoder bug")
        return header, body

    monkeypatch.setattr(codec, "decode_request", decode)
    h.feed(request(1, "wait:a") + request(2, "c") + request(3, "c") + request(4, "c"))
    h.stand_in.waits["a"].set_result(None)
    h.settle()
    assert [c for c, _ in h.responses(2)] == [1, 2]
    assert h.transport.aborted
    assert h.nothing_pending()


def test_the_server_takes_its_collaborators_and_closes_idle_connections_by_its_clock():
    loop = asyncio.new_event_loop()
    now = [100.0]
    services = SimpleNamespace(quotas=None, share_partitions=None, user_configs=None)
    seen: list = []

    async def api_versions(ctx, req):
        seen.append(ctx)
        return ApiVersionsResponse(error_code=0, api_keys=[], throttle_time_ms=0)

    apis = ApiRegistry([Handler(ApiKey.API_VERSIONS, 0, 4, api_versions)])
    config = KafkaConfig({"connections.max.idle.ms": "1000", "socket.request.max.bytes": "4096"})
    server = SocketServer(config, apis, services, loop, clock=lambda: now[0])
    assert server.max_request_size == 4096
    ours, peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    ours.setblocking(False)
    try:
        busy, quiet = (KafkaConnection(server, "PLAINTEXT") for _ in range(2))
        t_busy, t_quiet = Transport(ours), Transport(ours)
        busy.connection_made(t_busy)
        quiet.connection_made(t_quiet)
        assert server.connections == {busy, quiet}
        payload = request(1, "c")
        buf = busy.get_buffer(-1)
        buf[:len(payload)] = payload
        now[0] = 100.5
        busy.buffer_updated(len(payload))
        # the RequestContext got the services object as it was given, and the listener name
        assert len(seen) == 1 and seen[0].listener == "PLAINTEXT"
        assert services in [getattr(seen[0], slot) for slot in type(seen[0]).__slots__]
        now[0] = 101.2   # quiet: idle 1.2 s > 1 s; busy: 0.7 s
        assert server.close_idle_connections() == 1
        assert t_quiet.aborted and not t_busy.aborted
        now[0] = 101.6
        assert server.close_idle_connections() == 1
        assert t_busy.aborted
        busy.connection_lost(None)
        quiet.connection_lost(None)
        assert not server.connections
    finally:
        ours.close()
        peer.close()
        loop.close()


def test_a_zero_length_frame_is_read_and_rejected_without_stalling_the_stream(h):
    # a request too short for its header closes the connection (after nothing)
    h.feed(struct.pack(">i", 0) + request(2, "c"))
    assert h.transport.aborted


class _Timings:
    """An observer keeping (correlation id, total s, remote s) of each request."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, float, float]] = []

    def completed(self, ctx, api_key, request, response, elapsed_s, throttle_ms=0, remote_s=0.0) -> None:
        self.seen.append((ctx.header.correlation_id, elapsed_s, remote_s))


def test_the_wait_of_a_handler_is_timed_as_remote_time_and_no_wait_as_none():
    h = Harness()
    try:
        timings = h.conn.observer = _Timings()
        h.feed(request(1, "c") + request(2, "wait:a"))
        h.loop.run_until_complete(asyncio.sleep(0.2))   # the wait being timed
        h.stand_in.waits["a"].set_result(None)
        h.settle()
        assert [c for c, _ in h.responses(2)] == [1, 2]
        (c1, total1, remote1), (c2, total2, remote2) = timings.seen
        assert (c1, remote1) == (1, 0.0)
        assert c2 == 2 and 0.2 <= remote2 <= total2
    finally:
        h.close()
