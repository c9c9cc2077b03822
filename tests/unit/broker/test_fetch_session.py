"""Incremental fetch sessions (KIP-227): the session cache on its own, and the Fetch handler's
session handling against a socket-free broker."""
from __future__ import annotations

import asyncio
from typing import Sequence

import pytest

from kafpy.protocol.messages import FetchRequest
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.records import iter_batches

from kafpy.broker.fetch_session import (FINAL_EPOCH, INITIAL_EPOCH, CachedPartition, FetchSessionCache,
                                  FetchSessionError, next_epoch)
from kafpy.broker.handlers.fetch import handle_fetch
from tests.unit.broker.helpers import LocalBroker, call

FETCH = 1
F = FetchRequest


def cp(topic: str, partition: int, offset: int = 0) -> CachedPartition:
    return CachedPartition(topic, bytes(16), partition, offset, 1 << 20, -1, -1)


# --------------------------------------------------------------------------- the cache
def test_create_assigns_id_and_first_epoch():
    cache = FetchSessionCache(max_slots=10)
    s = cache.create([cp("a", 0), cp("a", 1)], False, now_ms=0)
    assert s is not None and s.id > 0 and s.epoch == 1
    assert list(s.partitions) == [("a", 0), ("a", 1)]
    assert cache.get_incremental(s.id, 1, now_ms=5) is s


def test_unknown_session_and_wrong_epoch():
    cache = FetchSessionCache()
    s = cache.create([cp("a", 0)], False, 0)
    with pytest.raises(FetchSessionError) as e:
        cache.get_incremental(s.id + 1, 1, 0)
    assert e.value.error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND
    with pytest.raises(FetchSessionError) as e:
        cache.get_incremental(s.id, 2, 0)
    assert e.value.error_code == ErrorCode.INVALID_FETCH_SESSION_EPOCH


def test_epoch_wraps_to_one():
    assert next_epoch(INITIAL_EPOCH) == 1
    assert next_epoch(41) == 42
    assert next_epoch(2147483647) == 1


def test_idle_sessions_are_evicted_and_slots_bounded():
    cache = FetchSessionCache(max_slots=2, eviction_ms=1000)
    s1 = cache.create([cp("a", 0)], False, 0)
    s2 = cache.create([cp("a", 1)], False, 10)
    cache.get_incremental(s1.id, 1, 20)  # s1 used more recently than s2
    s3 = cache.create([cp("a", 2)], False, 30)  # full: the least recently used goes
    assert set(cache.sessions) == {s1.id, s3.id}
    assert s2.id not in cache.sessions
    cache.create([cp("b", 0)], False, 5000)  # both others idle past eviction_ms
    assert len(cache.sessions) == 1


def test_no_slots_means_sessionless():
    assert FetchSessionCache(max_slots=0).create([cp("a", 0)], False, 0) is None


def test_remove():
    cache = FetchSessionCache()
    s = cache.create([cp("a", 0)], False, 0)
    cache.remove(s.id)
    cache.remove(s.id)  # twice is fine
    assert not cache.sessions


# --------------------------------------------------------------------------- the handler
@pytest.fixture
def broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop)
    try:
        yield b
    finally:
        b.close()
        loop.close()


def fetch(broker, version: int, session_id: int, epoch: int, parts: list[tuple[str, int, int]],
          forgotten: Sequence[tuple[str, list[int]]] = (), max_wait_ms: int = 0):
    topics: dict[str, list] = {}
    for t, p, off in parts:
        topics.setdefault(t, []).append(F.FetchPartition(partition=p, current_leader_epoch=-1, fetch_offset=off,
                                                         log_start_offset=-1, partition_max_bytes=1 << 20))
    md = broker.metadata
    use_ids = version >= 13
    req = F(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=1, max_bytes=1 << 24, isolation_level=0,
            session_id=session_id, session_epoch=epoch,
            topics=[F.FetchTopic(topic=t, topic_id=md.topic(t).topic_id if use_ids else bytes(16), partitions=ps)
                    for t, ps in topics.items()],
            forgotten_topics_data=[F.ForgottenTopic(topic=t, topic_id=md.topic(t).topic_id if use_ids else bytes(16),
                                                    partitions=ps) for t, ps in forgotten],
            rack_id="")
    return call(broker, handle_fetch, FETCH, version, req)


def returned(resp, broker=None) -> dict[tuple[str, int], tuple[int, int, int]]:
    """(topic, partition) -> (error, high watermark, record count) for every partition in the response."""
    out = {}
    for t in resp.responses:
        name = t.topic
        if not name and broker is not None:
            name = broker.metadata.topic_by_id(t.topic_id).name
        for p in t.partitions:
            recs = p.records
            data = recs.read_bytes() if hasattr(recs, "read_bytes") else bytes(recs or b"")
            out[(name, p.partition_index)] = (p.error_code, p.high_watermark,
                                              sum(h.records_count for _, h in iter_batches(data)))
    return out


@pytest.mark.parametrize("version", [7, 12, 13, 17])
def test_incremental_fetch_returns_only_news(broker, version):
    broker.create_topic("a", 2)
    broker.create_topic("b", 1)
    broker.append("a", 0, [b"x", b"y"])
    full = fetch(broker, version, 0, INITIAL_EPOCH, [("a", 0, 0), ("a", 1, 0), ("b", 0, 0)])
    assert full.error_code == 0 and full.session_id != 0
    assert returned(full, broker) == {("a", 0): (0, 2, 2), ("a", 1): (0, 0, 0), ("b", 0): (0, 0, 0)}
    sid = full.session_id

    # epoch 1: a-0 moved its position; nothing new anywhere -> an empty response
    r = fetch(broker, version, sid, 1, [("a", 0, 2)])
    assert r.error_code == 0 and r.session_id == sid and returned(r, broker) == {}
    # new data on b-0 only: just b-0 comes back, with the records
    broker.append("b", 0, [b"z"])
    r = fetch(broker, version, sid, 2, [])
    assert returned(r, broker) == {("b", 0): (0, 1, 1)}
    # a-1 forgotten: data there is no longer sent
    broker.append("a", 1, [b"w"])
    r = fetch(broker, version, sid, 3, [("b", 0, 1)], forgotten=[("a", [1])])
    assert returned(r, broker) == {}
    # a stale epoch is refused without touching the session
    r = fetch(broker, version, sid, 3, [])
    assert r.error_code == ErrorCode.INVALID_FETCH_SESSION_EPOCH and r.responses == []
    r = fetch(broker, version, sid, 4, [])
    assert r.error_code == 0 and returned(r, broker) == {}


def test_full_fetch_with_session_id_replaces_the_session(broker):
    """The Java client sends (its session id, epoch 0) after an error or reconnect: the old
    session is closed and a new one opened, never INVALID_FETCH_SESSION_EPOCH."""
    broker.create_topic("a", 1)
    broker.append("a", 0, [b"x"])
    first = fetch(broker, 12, 0, INITIAL_EPOCH, [("a", 0, 0)])
    again = fetch(broker, 12, first.session_id, INITIAL_EPOCH, [("a", 0, 1)])
    assert again.error_code == 0 and again.session_id not in (0, first.session_id)
    assert returned(again) == {("a", 0): (0, 1, 0)}
    assert first.session_id not in broker.services.fetch_sessions.sessions
    r = fetch(broker, 12, again.session_id, 1, [])
    assert r.error_code == 0


def test_close_and_sessionless(broker):
    broker.create_topic("a", 1)
    s = fetch(broker, 12, 0, INITIAL_EPOCH, [("a", 0, 0)])
    closed = fetch(broker, 12, s.session_id, FINAL_EPOCH, [("a", 0, 0)])
    assert closed.error_code == 0 and closed.session_id == 0 and ("a", 0) in returned(closed)
    assert s.session_id not in broker.services.fetch_sessions.sessions
    r = fetch(broker, 12, s.session_id, 1, [])
    assert r.error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND
    plain = fetch(broker, 12, 0, FINAL_EPOCH, [("a", 0, 0)])
    assert plain.session_id == 0 and ("a", 0) in returned(plain)
    assert fetch(broker, 12, 0, 5, []).error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND


def test_errors_are_resent_until_they_clear(broker):
    broker.create_topic("a", 1)
    broker.append("a", 0, [b"x", b"y"])
    s = fetch(broker, 12, 0, INITIAL_EPOCH, [("a", 0, 0)])
    r = fetch(broker, 12, s.session_id, 1, [("a", 0, 99)])
    assert returned(r) == {("a", 0): (1, -1, 0)}  # OFFSET_OUT_OF_RANGE
    r = fetch(broker, 12, s.session_id, 2, [("a", 0, 2)])
    assert returned(r) == {("a", 0): (0, 2, 0)}  # back to normal: sent once more with the watermark


def test_fetch_from_inside_a_batch_returns_the_whole_batch(broker):
    broker.create_topic("a", 1)
    broker.append("a", 0, [b"0", b"1", b"2", b"3"])
    r = fetch(broker, 4, 0, FINAL_EPOCH, [("a", 0, 2)])
    assert returned(r) == {("a", 0): (0, 4, 4)}


def test_long_poll_wakes_on_append(broker):
    broker.create_topic("a", 1)

    async def run():
        from kafpy.broker.handler import RequestContext
        from kafpy.protocol.messages import RequestHeader
        req = F(replica_id=-1, max_wait_ms=30000, min_bytes=1, max_bytes=1 << 20, isolation_level=0,
                session_id=0, session_epoch=FINAL_EPOCH, rack_id="", forgotten_topics_data=[],
                topics=[F.FetchTopic(topic="a", partitions=[F.FetchPartition(
                    partition=0, current_leader_epoch=-1, fetch_offset=0, log_start_offset=-1,
                    partition_max_bytes=1 << 20)])])
        ctx = RequestContext(broker.services, RequestHeader(request_api_key=1, request_api_version=12, correlation_id=1,
                                                   client_id="u"), "127.0.0.1", 1, "c", "PLAINTEXT")
        task = asyncio.ensure_future(handle_fetch(ctx, req))
        for _ in range(5):
            await asyncio.sleep(0)
        assert not task.done()
        broker.append("a", 0, [b"late"])
        return await asyncio.wait_for(task, 10)

    r = broker.loop.run_until_complete(run())
    assert returned(r) == {("a", 0): (0, 1, 1)}
