"""Group coordinator throughput: the pure state machine, and OffsetCommit end to end.

    python -m bench.coordinator_bench [--e2e]

Prints a table. The in-process rows use the coordinator with an in-memory log (no
sockets); `--e2e` starts a broker process and sends OffsetCommit over loopback.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

from kafpy.coordinator.group import GroupCoordinator, GroupCoordinatorConfig, InMemoryOffsetsLog, OffsetAndMetadata
from kafpy.coordinator.group.records import encode_offset_commit_key, encode_offset_commit_value


def _coordinator() -> GroupCoordinator:
    counter = itertools.count()
    return GroupCoordinator(GroupCoordinatorConfig(group_initial_rebalance_delay_ms=1),
                            InMemoryOffsetsLog(),
                            member_id_factory=lambda p: f"{p}-{next(counter)}")


def _settle(c: GroupCoordinator, futs, now: int) -> int:
    """Poll on the coordinator's timer until every JoinGroup is answered."""
    while not all(f.done() for f in futs):
        now += 1
        c.poll(now)
    return now


def bench_commits(n: int, partitions: int) -> float:
    c = _coordinator()
    offsets = {("topic", p): OffsetAndMetadata(0, -1, "", 0) for p in range(partitions)}
    t = time.perf_counter()
    for i in range(n):
        c.commit_offsets("g", "", None, -1, offsets, i)
    return n / (time.perf_counter() - t)


def bench_heartbeats(n: int, members: int) -> float:
    c = _coordinator()
    futs = [c.join_group("g", "", None, False, False, f"c{i}", "/h", 30000, 10000, "consumer",
                         [("range", b"")], 0) for i in range(members)]
    _settle(c, futs, 0)
    ids = [f.result().member_id for f in futs]
    gen = futs[0].result().generation_id
    for mid in ids:
        c.sync_group("g", gen, mid, None, None, None, {}, 1)
    t = time.perf_counter()
    for i in range(n):
        c.heartbeat("g", ids[i % members], None, gen, 10 + i // members)
        if i % 1000 == 0:
            c.poll(10 + i // members)
    return n / (time.perf_counter() - t)


def bench_rebalance(rounds: int, members: int) -> float:
    c = _coordinator()
    t = time.perf_counter()
    now = 0
    ids = [""] * members
    for _ in range(rounds):
        now += 1
        futs = [c.join_group("g", ids[i], None, False, False, f"c{i}", "/h", 30000, 10000,
                             "consumer", [("range", b"x" * 64)], now) for i in range(members)]
        now = _settle(c, futs, now)
        results = [f.result() for f in futs]
        ids = [r.member_id for r in results]
        gen = results[0].generation_id
        leader = results[0].leader
        assignment = {m: b"a" * 32 for m in ids}
        for m in ids:
            c.sync_group("g", gen, m, None, None, None, assignment if m == leader else {}, now)
    return rounds / (time.perf_counter() - t)


def bench_records(n: int) -> float:
    om = OffsetAndMetadata(123456, 3, "", 1_700_000_000_000)
    t = time.perf_counter()
    for i in range(n):
        encode_offset_commit_key("group", "topic", i & 63)
        encode_offset_commit_value(om)
    return n / (time.perf_counter() - t)


def bench_e2e_commits(seconds: float, partitions: int) -> float:
    """Synchronous OffsetCommit v8 requests on one connection (one in flight)."""
    import socket

    from kafpy.protocol import messages as M
    from kafpy.protocol.codec import decode_response, encode_request
    from tests.integration.coordinator.helpers import create_topic
    from tests.support.kafpy_broker import KafpyBroker
    from tests.support.wire import read_frame
    b = KafpyBroker(overrides={"group.initial.rebalance.delay.ms": 0})
    b.start()
    try:
        create_topic(b.bootstrap, "bench", partitions)
        sock = socket.create_connection((b.host, b.port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def call(key: int, version: int, body, corr: int) -> bytes:
            header = M.RequestHeader(request_api_key=key, request_api_version=version,
                                     correlation_id=corr, client_id="bench")
            sock.sendall(encode_request(header, body))
            return read_frame(sock)

        # The first FindCoordinator asks for __consumer_offsets; retry until it leads.
        for _ in range(100):
            frame = call(10, 1, M.FindCoordinatorRequest(key="bench-group", key_type=0), 0)
            answer = decode_response(10, 1, frame)[1]
            assert isinstance(answer, M.FindCoordinatorResponse)
            if answer.error_code == 0:
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("no group coordinator after 10 s")
        P = M.OffsetCommitRequest.OffsetCommitRequestPartition
        T = M.OffsetCommitRequest.OffsetCommitRequestTopic
        n = 0
        t = time.perf_counter()
        end = t + seconds
        while time.perf_counter() < end:
            body = M.OffsetCommitRequest(
                group_id="bench-group", generation_id_or_member_epoch=-1, member_id="",
                topics=[T(name="bench", partitions=[
                    P(partition_index=p, committed_offset=n, committed_metadata="")
                    for p in range(partitions)])])
            call(8, 8, body, n + 1)
            n += 1
        rate = n / (time.perf_counter() - t)
        sock.close()
        return rate
    finally:
        b.stop()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--e2e", action="store_true", help="also OffsetCommit against a broker process")
    args = ap.parse_args(argv)
    rows = [
        ("OffsetCommit, 1 partition (state machine)", bench_commits(50_000, 1), "commits/s"),
        ("OffsetCommit, 50 partitions (state machine)", bench_commits(5_000, 50), "commits/s"),
        ("Heartbeat, 100 members", bench_heartbeats(200_000, 100), "heartbeats/s"),
        ("Join+Sync round, 10 members", bench_rebalance(2_000, 10), "rounds/s"),
        ("Join+Sync round, 100 members", bench_rebalance(200, 100), "rounds/s"),
        ("offset record key+value encode", bench_records(100_000), "records/s"),
    ]
    if args.e2e:
        rows.append(("OffsetCommit v8 over loopback, 8 partitions, 1 in flight",
                     bench_e2e_commits(5.0, 8), "commits/s"))
    w = max(len(r[0]) for r in rows)
    print(f"{'measure':<{w}}  {'rate':>12}  unit")
    for name, rate, unit in rows:
        print(f"{name:<{w}}  {rate:>12,.0f}  {unit}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
