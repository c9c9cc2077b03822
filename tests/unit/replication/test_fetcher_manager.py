"""The fetcher manager: Kafka's fetcher id rule, one fetcher task per (leader, fetcher id),
moving partitions between leaders, replacing a fetcher whose leader moved, shutting down;
fetching runs for real against in-memory leaders over real logs."""
from __future__ import annotations

import asyncio
from pathlib import Path

from kafpy.replication.fetch_state import (BrokerEndPoint, InitialFetchState, PartitionFetchState, ReplicaFetcherConfig,
                                           TopicPartition)
from kafpy.replication.fetcher_manager import ReplicaFetcherManager, fetcher_id_for, java_string_hash
from kafpy.replication.follower_log import StorageFollowerLog
from kafpy.storage.log import Log
from kafpy.protocol.message_base import ZERO_UUID

from .in_memory_leader import InMemoryLeader, append, become_leader, open_log


def fetch_state(manager: ReplicaFetcherManager, tp: TopicPartition) -> PartitionFetchState:
    state = manager.fetch_state(tp)
    assert state is not None, f"{tp} is not fetched"
    return state


def test_java_string_hash_and_fetcher_ids() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322                 # "hello".hashCode()
    assert java_string_hash("__consumer_offsets") == -970371369   # wraps past 2**31
    assert java_string_hash("topic-\u03a9") == -1139259765           # a non-ASCII character
    # the values a JVM gives for Utils.abs(31 * "hello".hashCode() + p) % 4
    assert [fetcher_id_for(TopicPartition("hello", p), 4) for p in range(4)] == [2, 1, 0, 3]
    assert {fetcher_id_for(TopicPartition("t", p), 1) for p in range(10)} == {0}


def test_partitions_are_fetched_by_one_task_per_leader_and_fetcher_id(tmp_path: Path) -> None:
    tps = [TopicPartition("hello", p) for p in range(4)]
    leaders = {1: BrokerEndPoint(1, "one", 9092), 2: BrokerEndPoint(2, "two", 9092)}
    leader_logs: dict[int, dict[TopicPartition, Log]] = {1: {}, 2: {}}
    followers: dict[TopicPartition, Log] = {}
    for tp in tps:
        followers[tp] = open_log(tmp_path, "follower", tp)
        for b in (1, 2):
            log = leader_logs[b][tp] = open_log(tmp_path, f"leader{b}", tp)
            become_leader(log, b)
            append(log, b, b"%s from %d" % (str(tp).encode(), b))
    endpoints: list[InMemoryLeader] = []
    epochs = {1: 1, 2: 2}     # each broker's leader epoch (the same for all its partitions)

    def factory(source: BrokerEndPoint, fetcher_id: int) -> InMemoryLeader:
        endpoints.append(InMemoryLeader(leader_logs[source.id], epochs[source.id]))
        return endpoints[-1]

    config = ReplicaFetcherConfig(replica_id=7, num_fetchers=2, backoff_ms=5, max_wait_ms=5)
    manager = ReplicaFetcherManager(config, lambda tp: StorageFollowerLog(followers[tp]) if tp in followers else None,
                                    leader_endpoint_factory=factory)

    async def until(condition) -> None:
        for _ in range(400):
            if condition():
                return
            await asyncio.sleep(0.005)
        raise AssertionError("timed out")

    async def scenario() -> None:
        await manager.add_fetcher_for_partitions(
            {tp: InitialFetchState(leaders[1], ZERO_UUID, 0, 1) for tp in tps})
        # fetcher ids of "hello"-0..3 with 2 fetchers: 0, 1, 0, 1
        assert sorted(manager.fetcher_threads) == [(1, 0), (1, 1)]
        await until(lambda: all(followers[tp].log_end_offset == 1 for tp in tps))
        # partition 0 follows broker 2 now (epoch 2): it moves to a new fetcher
        followers[tps[0]].truncate_to(0)
        await manager.add_fetcher_for_partitions({tps[0]: InitialFetchState(leaders[2], ZERO_UUID, 0, 2)})
        assert sorted(manager.fetcher_threads) == [(1, 0), (1, 1), (2, 0)]
        assert fetch_state(manager, tps[0]).current_leader_epoch == 2
        assert manager.fetcher_threads[(1, 0)].partition_count == 1
        await until(lambda: followers[tps[0]].log_end_offset == 1
                    and followers[tps[0]].leader_epoch_cache.latest_epoch == 2)
        # partition 2 is fenced: broker 1 moved on to epoch 3
        fenced = manager.fetcher_threads[(1, 0)].leader
        assert isinstance(fenced, InMemoryLeader)
        epochs[1] = fenced.leader_epoch = 3
        append(leader_logs[1][tps[2]], 1, b"more")
        await until(lambda: manager.failed_partitions() == {tps[2]})
        removed = manager.remove_fetcher_for_partitions([tps[1], tps[3]])
        assert set(removed) == {tps[1], tps[3]} and manager.fetch_state(tps[1]) is None
        await manager.shutdown_idle_fetcher_threads()       # (1, 0) fetches nothing now
        assert sorted(manager.fetcher_threads) == [(2, 0)] and manager.failed_partitions() == {tps[2]}
        # broker 2 moved to another port: its fetcher is replaced
        moved = BrokerEndPoint(2, "two", 9093)
        old = manager.fetcher_threads[(2, 0)]
        assert isinstance(old.leader, InMemoryLeader)
        await manager.add_fetcher_for_partitions({tps[0]: InitialFetchState(moved, ZERO_UUID, 1, 2)})
        assert manager.fetcher_threads[(2, 0)] is not old and old.task is None and old.leader.closed
        await manager.add_fetcher_for_partitions({tps[2]: InitialFetchState(leaders[1], ZERO_UUID, 1, 3)})
        assert manager.failed_partitions() == set() and fetch_state(manager, tps[2]).current_leader_epoch == 3
        await until(lambda: followers[tps[2]].log_end_offset == 2)
        await manager.shutdown()
        assert manager.fetcher_threads == {} and all(e.closed for e in endpoints)

    asyncio.run(scenario())


def test_resizing_the_pool_spreads_partitions_by_the_new_count_and_keeps_their_offsets(tmp_path: Path) -> None:
    tps = [TopicPartition("hello", p) for p in range(4)]
    leader = BrokerEndPoint(1, "one", 9092)
    leader_logs: dict[TopicPartition, Log] = {}
    followers: dict[TopicPartition, Log] = {}
    for tp in tps:
        followers[tp] = open_log(tmp_path, "follower", tp)
        log = leader_logs[tp] = open_log(tmp_path, "leader", tp)
        become_leader(log, 1)
        append(log, 1, b"first")
    config = ReplicaFetcherConfig(replica_id=7, num_fetchers=1, backoff_ms=5, max_wait_ms=5)
    manager = ReplicaFetcherManager(config, lambda tp: StorageFollowerLog(followers[tp]) if tp in followers else None,
                                    leader_endpoint_factory=lambda source, fid: InMemoryLeader(leader_logs, 1))

    async def until(condition) -> None:
        for _ in range(400):
            if condition():
                return
            await asyncio.sleep(0.005)
        raise AssertionError("timed out")

    async def scenario() -> None:
        await manager.add_fetcher_for_partitions({tp: InitialFetchState(leader, ZERO_UUID, 0, 1) for tp in tps})
        await until(lambda: all(followers[tp].log_end_offset == 1 for tp in tps))
        assert sorted(manager.fetcher_threads) == [(1, 0)]
        await manager.resize_thread_pool(4)
        # "hello"-0..3 with 4 fetchers: ids 2, 1, 0, 3 (see the JVM's values above)
        assert sorted(manager.fetcher_threads) == [(1, 0), (1, 1), (1, 2), (1, 3)]
        assert manager.fetcher_threads[(1, 2)].core.states.keys() == {tps[0]}
        assert all(fetch_state(manager, tp).fetch_offset == 1 for tp in tps)   # resumed where they were
        for tp in tps:
            append(leader_logs[tp], 1, b"second")
        await until(lambda: all(followers[tp].log_end_offset == 2 for tp in tps))
        await manager.resize_thread_pool(2)       # ids 0, 1, 0, 1: fetchers 2 and 3 stop
        assert sorted(manager.fetcher_threads) == [(1, 0), (1, 1)] and manager.config.num_fetchers == 2
        assert all(fetch_state(manager, tp).fetch_offset == 2 for tp in tps)
        await manager.shutdown()

    asyncio.run(scenario())
