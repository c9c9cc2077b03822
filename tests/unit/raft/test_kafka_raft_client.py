"""KafkaRaftClient: three drivers in one event loop, wired by an in-memory NetworkChannel that
calls the destination's ``handle_request`` (a down node's channel raises), on the real clock
with short timeouts: they elect one leader, commit appends on all three, hand listeners each
committed batch once and in order, park idle fetches, and elect again when the leader is gone."""
from __future__ import annotations

import asyncio
import random
from typing import Sequence

import pytest

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchResponse, FetchSnapshotResponse, VoteResponse
from kafpy.raft import raft_messages as msg
from kafpy.raft.kafka_raft_client import Batch, KafkaRaftClient, LeaderAndEpoch
from kafpy.raft.memory_log import MemoryReplicatedLog, decode_batches
from kafpy.raft.network_channel import failure_response
from kafpy.raft.quorum_config import QuorumConfig
from kafpy.raft.quorum_state_store import MemoryQuorumStateStore, ReplicaKey
from kafpy.raft.raft_core import NotLeaderError, RaftCore
from kafpy.raft.snapshot import SnapshotId

CONFIG = QuorumConfig(election_timeout_ms=150, election_backoff_max_ms=150, fetch_timeout_ms=400,
                      request_timeout_ms=300, retry_backoff_ms=20)
VOTERS = frozenset({1, 2, 3})


class Net:
    """The clients by id; ``down`` ids neither send nor answer; counts requests by api."""

    def __init__(self) -> None:
        self.clients: dict[int, KafkaRaftClient] = {}
        self.down: set[int] = set()
        self.sent: dict[ApiKey, int] = {}


class MemoryChannel:
    def __init__(self, net: Net, source: int) -> None:
        self.net = net
        self.source = source

    async def send(self, destination: int, api_key: ApiKey,
                   data: msg.RaftRequestData) -> msg.RaftResponseData:
        self.net.sent[api_key] = self.net.sent.get(api_key, 0) + 1
        if self.source in self.net.down or destination in self.net.down:
            raise ConnectionRefusedError(f"node {destination} is down")
        await asyncio.sleep(0.001)
        return await self.net.clients[destination].handle_request(api_key, data)

    def update_address(self, node_id: int, host: str, port: int) -> None:
        """The nodes are addressed by id in memory: nothing to learn."""

    async def close(self) -> None:
        pass


class Recorder:
    def __init__(self) -> None:
        self.batches: list[Batch] = []
        self.leaders: list[LeaderAndEpoch] = []

    def handle_commit(self, batches: Sequence[Batch]) -> None:
        self.batches.extend(batches)

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        self.leaders.append(leader)

    def payloads(self) -> list[bytes]:
        return [r for b in self.batches if not b.control for r in b.records]


async def start_quorum(net: Net) -> dict[int, Recorder]:
    recorders: dict[int, Recorder] = {}
    for node in sorted(VOTERS):
        core = RaftCore(node, VOTERS, MemoryReplicatedLog(), MemoryQuorumStateStore(), now_ms=0,
                        cluster_id="c", config=CONFIG, rng=random.Random(node))
        client = KafkaRaftClient(core, MemoryChannel(net, node), decode_batches, append_linger_ms=5)
        recorders[node] = Recorder()
        client.register(recorders[node])
        net.clients[node] = client
    for client in net.clients.values():
        client.start()
    return recorders


async def wait_for(predicate: object, timeout: float = 10.0) -> None:
    assert callable(predicate)
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


def leaders(net: Net) -> list[int]:
    return [n for n, c in net.clients.items() if n not in net.down and c.core.is_leader()]


async def close_all(net: Net) -> None:
    for client in net.clients.values():
        await client.close()


def test_three_drivers_elect_replicate_and_fail_over() -> None:
    asyncio.run(_elect_replicate_and_fail_over())


async def _elect_replicate_and_fail_over() -> None:
    net = Net()
    recorders = await start_quorum(net)
    try:
        await wait_for(lambda: len(leaders(net)) == 1)
        leader = leaders(net)[0]
        first_epoch = net.clients[leader].core.epoch
        offsets = [net.clients[leader].schedule_append([b"a", b"b"]),
                   net.clients[leader].schedule_append([b"c"])]
        follower = next(n for n in VOTERS if n != leader)
        with pytest.raises(NotLeaderError):
            net.clients[follower].schedule_append([b"x"])
        await wait_for(lambda: all(r.payloads() == [b"a", b"b", b"c"] for r in recorders.values()))
        # the three records went into one append after the linger: offsets right after the
        # LeaderChange entry, committed on every node
        assert offsets == [2, 3]
        for r in recorders.values():
            assert [b.base_offset for b in r.batches] == list(range(len(r.batches)))
            assert r.batches[0].control and r.leaders[-1] == LeaderAndEpoch(leader, first_epoch)
        # idle followers park their fetches: a few per fetch wait, not a busy loop
        before = net.sent.get(ApiKey.FETCH, 0)
        await asyncio.sleep(0.5)
        assert net.sent.get(ApiKey.FETCH, 0) - before < 20
        # the leader goes away: a new one in a higher epoch, with everything committed
        net.down.add(leader)
        await wait_for(lambda: len(leaders(net)) == 1 and leaders(net)[0] != leader)
        new_leader = leaders(net)[0]
        assert net.clients[new_leader].core.epoch > first_epoch
        net.clients[new_leader].schedule_append([b"d"])
        survivors = [n for n in VOTERS if n != leader]
        await wait_for(lambda: all(recorders[n].payloads() == [b"a", b"b", b"c", b"d"] for n in survivors))
        assert recorders[survivors[0]].leaders[-1].leader_id == new_leader
    finally:
        await close_all(net)


def test_failed_send_backs_off_instead_of_waiting_out_the_request_timeout() -> None:
    """With two of three voters unreachable nothing is elected, and the candidate's requests
    fail fast (handed to the core as BROKER_NOT_AVAILABLE) rather than once per timeout."""
    asyncio.run(_failed_sends())


async def _failed_sends() -> None:
    net = Net()
    net.down.update({2, 3})
    await start_quorum(net)
    try:
        await asyncio.sleep(0.6)
        assert leaders(net) == []
        # 0.6 s at a 20 ms retry backoff: many more Vote attempts than 0.6 s / 300 ms timeout
        assert net.sent.get(ApiKey.VOTE, 0) > 6
    finally:
        await close_all(net)


def test_failure_responses_carry_broker_not_available() -> None:
    vote = failure_response(ApiKey.VOTE)
    fetch = failure_response(ApiKey.FETCH)
    assert isinstance(vote, VoteResponse) and vote.error_code == ErrorCode.BROKER_NOT_AVAILABLE
    assert isinstance(fetch, FetchResponse) and fetch.error_code == ErrorCode.BROKER_NOT_AVAILABLE
    snapshot = failure_response(ApiKey.FETCH_SNAPSHOT)  # an observer fetching a snapshot over the network
    assert isinstance(snapshot, FetchSnapshotResponse) and snapshot.error_code == ErrorCode.BROKER_NOT_AVAILABLE
    with pytest.raises(ValueError):
        failure_response(ApiKey.PRODUCE)


def test_a_fetch_v18_behind_the_high_watermark_is_answered_at_once() -> None:
    """KIP-1166: a follower's Fetch that brings nothing new parks for its MaxWaitMs, unless
    the high watermark the follower reports (v18) is behind the leader's: then it is
    answered at once, so the follower learns the new high watermark now."""
    asyncio.run(_fetch_behind_the_high_watermark())


async def _fetch_behind_the_high_watermark() -> None:
    net = Net()
    await start_quorum(net)
    try:
        await wait_for(lambda: len(leaders(net)) == 1)
        leader = net.clients[leaders(net)[0]]
        offset = leader.schedule_append([b"a"])
        await wait_for(lambda: (leader.core.high_watermark() or 0) > offset)
        hw = leader.core.high_watermark()
        assert hw is not None
        end = leader.core.end_offset()
        follower = next(n for n in VOTERS if n != leader.core.node_id)

        async def fetch_seconds(reported_hw: int) -> tuple[float, int]:
            request = msg.fetch_request("c", ReplicaKey(follower, None), leader.core.epoch, end.offset,
                                        end.epoch, 1 << 20, 1000, reported_hw)
            started = asyncio.get_running_loop().time()
            response = await leader.handle_request(ApiKey.FETCH, request)
            assert isinstance(response, FetchResponse)
            part = msg.fetch_response_partition(response)
            assert part is not None
            return asyncio.get_running_loop().time() - started, part.high_watermark
        parked, seen = await fetch_seconds(hw)
        assert parked >= 0.9 and seen == hw        # nothing new: waited out MaxWaitMs
        answered, seen = await fetch_seconds(hw - 1)
        assert answered < 0.5 and seen == hw       # the follower is behind: at once
        answered, seen = await fetch_seconds(-1)   # no high watermark known yet
        assert answered < 0.5 and seen == hw
    finally:
        await close_all(net)


def test_a_high_watermark_inside_a_batch_waits_instead_of_spinning() -> None:
    """A listener is only given whole batches below the HW; while the HW sits inside one the
    driver waits for it to move rather than re-reading the log in a loop."""
    asyncio.run(_high_watermark_inside_a_batch())


async def _high_watermark_inside_a_batch() -> None:
    reads = 0

    def one_big_batch(data: bytes) -> list[Batch]:
        nonlocal reads
        reads += 1
        return [Batch(0, 100, 1, (data,))]  # ends far past the HW

    core = RaftCore(1, frozenset({1}), MemoryReplicatedLog(), MemoryQuorumStateStore(), now_ms=0,
                    cluster_id="c", config=CONFIG, rng=random.Random(1))
    client = KafkaRaftClient(core, MemoryChannel(Net(), 1), one_big_batch)
    recorder = Recorder()
    client.register(recorder)
    client.start()
    try:
        await wait_for(lambda: core.is_leader() and core.high_watermark() == 1)
        await asyncio.sleep(0.3)
        assert recorder.batches == [] and reads < 10
    finally:
        await client.close()


def test_the_log_cleaner_runs_once_a_minute() -> None:
    """Kafka's RaftMetadataLogCleanerManager: the log's retention by snapshot is checked every
    60 s of the poll loop, and the loop sleeps no longer than until the next check."""
    asyncio.run(_log_cleaner_once_a_minute())


async def _log_cleaner_once_a_minute() -> None:
    now = [1_000]
    runs: list[int] = []
    core = RaftCore(1, frozenset({1}), MemoryReplicatedLog(), MemoryQuorumStateStore(), now_ms=0,
                    cluster_id="c", config=CONFIG, rng=random.Random(1))
    client = KafkaRaftClient(core, MemoryChannel(Net(), 1), decode_batches, time_ms=lambda: now[0],
                             log_cleaner=lambda: runs.append(1))
    assert client._maybe_clean_log(1_000) == 60_000 and runs == []
    assert client._maybe_clean_log(60_999) == 1 and runs == []
    assert client._maybe_clean_log(61_000) == 60_000 and len(runs) == 1
    assert client._maybe_clean_log(61_500) == 59_500 and len(runs) == 1
    assert client._maybe_clean_log(121_000) == 60_000 and len(runs) == 2
    await client.channel.close()


class SnapshotRecorder(Recorder):
    """A listener that also takes snapshots (``handle_load_snapshot``)."""

    def __init__(self) -> None:
        super().__init__()
        self.snapshots: list[tuple[SnapshotId, bytes]] = []

    def handle_load_snapshot(self, snapshot_id: SnapshotId, data: bytes) -> None:
        self.snapshots.append((snapshot_id, data))


def test_a_snapshot_listener_starts_at_the_latest_snapshot_then_gets_the_batches_after_it() -> None:
    """Registered on a log whose start moved to a snapshot, a listener that takes snapshots
    gets that snapshot first and then only the batches past it; a plain listener reads the
    log from its start as before."""
    asyncio.run(_snapshot_listener())


async def _snapshot_listener() -> None:
    log = MemoryReplicatedLog()
    core = RaftCore(1, frozenset({1}), log, MemoryQuorumStateStore(), now_ms=0, cluster_id="c", config=CONFIG,
                    rng=random.Random(1))
    client = KafkaRaftClient(core, MemoryChannel(Net(), 1), decode_batches, append_linger_ms=1)
    client.start()
    try:
        await wait_for(lambda: core.is_leader())
        client.schedule_append([b"a", b"b"])
        await wait_for(lambda: (core.high_watermark() or 0) >= log.end_offset() == 3)
        snapshot_id = log.take_snapshot(3)
        assert log.delete_before_snapshot(snapshot_id) and log.start_offset() == 3
        client.schedule_append([b"c"])
        await wait_for(lambda: (core.high_watermark() or 0) == 4)
        with_snapshots, plain = SnapshotRecorder(), Recorder()
        client.register(with_snapshots)
        client.register(plain)
        await wait_for(lambda: with_snapshots.payloads() == [b"c"] and plain.payloads() == [b"c"])
        assert [sid for sid, _ in with_snapshots.snapshots] == [snapshot_id]
        assert with_snapshots.snapshots[0][1] == log.snapshots[snapshot_id]
    finally:
        await client.close()
