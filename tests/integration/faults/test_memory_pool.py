"""queued.max.request.bytes against a real broker: connections that announce large requests and
never finish them hold at most the pool (plus the one request that overdrew it), not one
buffer each; once they go away, a client that was muted meanwhile is answered. Found by the
fuzzer: without the pool, five connections announcing 100 MB each took a broker from 61 to
538 MB."""
from __future__ import annotations

import socket
import struct
import time

from tests.faults.fuzz import rss
from tests.support import wire

MB = 1 << 20
REQUEST_MAX = 20 * MB
HOSTILE = 8  # without the pool: 8 x 20 MB zero-filled at once


def settled_rss(pid: int, above: int, limit_s: float = 10.0) -> int:
    """RSS once it has passed ``above`` and stopped changing (the broker has read what it was
    sent); bounded, so a broker that never allocates fails the caller's check instead."""
    deadline, last = time.monotonic() + limit_s, -1
    while time.monotonic() < deadline:
        now = rss(pid)
        if now > above and now == last:
            return now
        last = now
        time.sleep(0.3)
    return rss(pid)


def test_announced_requests_share_the_pool_and_give_it_back(broker_factory):
    broker = broker_factory({"socket.request.max.bytes": REQUEST_MAX, "queued.max.request.bytes": REQUEST_MAX})
    assert wire.api_versions(broker.host, broker.port, timeout=10)
    pid = broker.proc.pid
    before = rss(pid)
    hostile = []
    for _ in range(HOSTILE):
        s = socket.create_connection((broker.host, broker.port), timeout=10)
        s.sendall(struct.pack(">i", REQUEST_MAX - 100) + b"\1" * 4096)
        hostile.append(s)
    bound = 2 * REQUEST_MAX + 16 * MB  # the pool, the request that overdrew it, slack
    held = settled_rss(pid, before + REQUEST_MAX // 2) - before
    assert held < bound, f"{HOSTILE} announced requests hold {held >> 20} MB"
    client = socket.create_connection((broker.host, broker.port), timeout=30)
    client.sendall(wire.encode_request(18, 0, 7))  # muted while the pool is spent
    for s in hostile:
        s.close()  # each one's bytes were read (and its memory taken or refused) before its close
    assert struct.unpack(">i", wire.read_frame(client)[:4])[0] == 7  # its correlation id
    client.close()
