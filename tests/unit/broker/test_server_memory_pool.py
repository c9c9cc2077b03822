"""queued.max.request.bytes in the socket server's connection: a request that does not fit in
the memory pool mutes the connection until requests in flight give their bytes back; a
connection that goes away gives back what its incomplete request held. Same stand-ins as
test_server.py (a socketpair, no network)."""
from __future__ import annotations

import struct

from kafpy.protocol.memory_pool import MemoryPool
from kafpy.protocol.messages import ApiVersionsRequest
from tests.unit.broker.test_server import Harness, request

BIG = ApiVersionsRequest(client_software_name="x" * 600_000, client_software_version="1")


def test_a_request_the_pool_cannot_hold_mutes_the_connection_until_memory_frees():
    pool = MemoryPool(1 << 20, 1 << 20)
    h = Harness(memory_pool=pool)
    try:
        h.feed(request(1, "wait:a", body=BIG) + request(2, "wait:a", body=BIG), piece=60_000)
        assert pool.out_of_memory and h.transport.paused == 0  # the second one overdrew it
        h.feed(request(3, "c"))
        assert h.conn.reader.memory_blocked and h.transport.paused == 1 and h.stand_in.calls == [1, 2]
        h.stand_in.waits["a"].set_result(None)
        h.settle()
        assert not h.conn.reader.memory_blocked and h.transport.resumed == 1
        assert [c for c, _ in h.responses(3)] == [1, 2, 3]
        assert pool.available == pool.size
    finally:
        h.close()


def test_a_connection_lost_mid_request_gives_its_memory_back():
    pool = MemoryPool(1 << 20, 1 << 20)
    h = Harness(memory_pool=pool)
    h.feed(struct.pack(">i", 900_000) + b"\0" * 1000)
    assert pool.available == (1 << 20) - 900_000
    h.close()
    assert pool.available == pool.size


def test_a_request_still_handled_when_its_connection_goes_gives_its_memory_back():
    pool = MemoryPool(1 << 20, 1 << 20)
    h = Harness(memory_pool=pool)
    h.feed(request(1, "wait:a", body=BIG) + request(2, "c"))
    assert pool.available == pool.size - len(request(1, "wait:a", body=BIG)) + 4  # 2 was answered
    h.close()   # cancels the handler's Task
    assert pool.available == pool.size
