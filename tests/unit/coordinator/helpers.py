"""Shared builders for the coordinator unit tests (no sockets, no sleeps)."""

from __future__ import annotations

import itertools
import struct

from kafpy.coordinator.group import GroupCoordinator, GroupCoordinatorConfig, InMemoryOffsetsLog


def subscription(*topics: str, user_data: bytes | None = None) -> bytes:
    """A ConsumerProtocolSubscription v0 as the Java consumer sends it."""
    out = struct.pack(">hi", 0, len(topics))
    for t in topics:
        b = t.encode()
        out += struct.pack(">h", len(b)) + b
    out += struct.pack(">i", -1) if user_data is None else struct.pack(">i", len(user_data)) + user_data
    return out


def make_coordinator(log: InMemoryOffsetsLog | None = None, **cfg) -> GroupCoordinator:
    config = GroupCoordinatorConfig(**{"group_initial_rebalance_delay_ms": 100, **cfg})
    counter = itertools.count(1)
    return GroupCoordinator(config, log if log is not None else InMemoryOffsetsLog(),
                            member_id_factory=lambda prefix: f"{prefix}-{next(counter)}")


def commit(c: GroupCoordinator, group: str, member_id: str, instance: str | None,
           generation: int, offsets: dict, now: int) -> dict:
    """OffsetCommit through `c` whose write completes at once: the per-partition errors."""
    fut = c.commit_offsets(group, member_id, instance, generation, offsets, now)
    assert fut.done(), "the commit is still waiting for its write"
    return fut.result()


def join(c: GroupCoordinator, group: str = "g", member_id: str = "", *, now: int = 0,
         instance: str | None = None, v4: bool = False, skip: bool = False,
         client_id: str = "client", protocols=None, protocol_type: str = "consumer",
         session: int = 10_000, rebalance: int = 30_000):
    if protocols is None:
        protocols = [("range", subscription("t"))]
    return c.join_group(group, member_id, instance, v4 and instance is None, skip, client_id,
                        "/127.0.0.1", rebalance, session, protocol_type, protocols, now)


def sync(c: GroupCoordinator, group: str, member_id: str, generation: int, *, now: int = 0,
         assignments: dict | None = None, instance: str | None = None,
         protocol_type: str | None = None, protocol_name: str | None = None):
    return c.sync_group(group, generation, member_id, protocol_type, protocol_name, instance,
                        assignments or {}, now)


def stable_group(c: GroupCoordinator, n: int, group: str = "g", now: int = 0):
    """Join n dynamic members (pre-KIP-394) and sync; returns (member ids, generation,
    time when the group became Stable)."""
    futs = [join(c, group, now=now, client_id=f"c{i}") for i in range(n)]
    now = drive(c, futs, now)
    results = [f.result() for f in futs]
    assert all(r.error == 0 for r in results), results
    gen = results[0].generation_id
    leader = results[0].leader
    ids = [r.member_id for r in results]
    assignments = {mid: f"assign-{mid}".encode() for mid in ids}
    sfuts = [sync(c, group, mid, gen, now=now,
                  assignments=assignments if mid == leader else None) for mid in ids]
    assert all(f.done() and f.result().error == 0 for f in sfuts)
    return ids, gen, now


def drive(c: GroupCoordinator, futs, now: int = 0, step: int | None = None) -> int:
    """Poll the coordinator on its own timer steps until every future is done (the
    initial rebalance delay extends while new members keep arriving); returns the time."""
    step = step or max(c.config.group_initial_rebalance_delay_ms, 1)
    for _ in range(1000):
        if all(f.done() for f in futs):
            return now
        now += step
        c.poll(now)
    raise AssertionError("futures never completed")
