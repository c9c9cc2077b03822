"""ShareCoordinatorService without a broker: a request is answered only once its record is
committed, a failed append changes nothing, and writes of one share partition are serialized
so a snapshot includes every update before it. A fake log stands for `__share_group_state`
(its appends complete when the test says)."""
from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace

from kafpy.coordinator.share_state.config import ShareCoordinatorConfig
from kafpy.coordinator.share_state.persister import ACKNOWLEDGED, SharePartitionKey, StateBatch
from kafpy.coordinator.share_state.service import ShareCoordinatorService
from kafpy.coordinator.share_state.shard import ShareCoordinatorShard
from kafpy.protocol.errors import ErrorCode as E

TOPIC = uuid.UUID(int=42)
KEY = SharePartitionKey("g", TOPIC, 0)


class _Metadata:
    def topic(self, name):
        return None

    def topic_by_id(self, topic_id):
        return SimpleNamespace(partitions={0: None}) if topic_id == TOPIC.bytes else None


class _Log:
    """Appends parked until `settle`; `records` is what was committed, in order. Also the
    replica manager's partition (`log_end_offset`, `delete_records_before`)."""

    def __init__(self, loop):
        self.loop = loop
        self.pending: list[tuple[asyncio.Future, list]] = []
        self.records: list = []
        self.log_end_offset = 0
        self.log_start_offset = 0
        self.is_leader = True

    @property
    def log(self):
        return self

    @property
    def high_watermark(self):
        return len(self.records)

    def get_partition(self, topic, partition):
        return self

    def delete_records_before(self, offset):
        self.log_start_offset = max(self.log_start_offset, offset)
        return self.log_start_offset

    def append(self, partition, records, now_ms):
        fut = self.loop.create_future()
        self.pending.append((fut, records))
        self.log_end_offset += len(records)   # the leader's log takes it at once
        return fut

    def settle(self, error=E.NONE):
        fut, records = self.pending.pop(0)
        if error == E.NONE:
            self.records.extend(records)
        else:   # the failed records stay in the log (a new leader truncates them), unreplayed
            self.records.extend([None] * len(records))
        fut.set_result(error)

    def read(self, partition):
        return iter(self.records)


async def _service(per_snapshot=500):
    loop = asyncio.get_running_loop()
    cfg = ShareCoordinatorConfig()
    cfg.snapshot_update_records_per_snapshot = per_snapshot
    cfg.state_topic_num_partitions = 1
    log = _Log(loop)
    s = ShareCoordinatorService(cfg, log, _Metadata(), None, loop, clock=lambda: 1.0)
    s.state_log = log
    s.coordinator.complete_load(0, [])
    return s


async def _settle_all(log, task, error=E.NONE):
    while not task.done():
        await asyncio.sleep(0)
        while log.pending:
            log.settle(error)
            await asyncio.sleep(0)
    return task.result()


def test_answered_after_commit_and_a_failed_append_changes_nothing():
    async def run():
        s = await _service()
        init = asyncio.ensure_future(s.initialize_state(KEY, 0, 0))
        await asyncio.sleep(0)
        assert not init.done() and len(s.state_log.pending) == 1
        assert await _settle_all(s.state_log, init) == (E.NONE, None)
        shard = s.coordinator.shards[0]
        write = asyncio.ensure_future(s.write_state(KEY, 0, 1, 5, [StateBatch(5, 6, ACKNOWLEDGED, 1)]))
        error, _ = await _settle_all(s.state_log, write, E.NOT_ENOUGH_REPLICAS)
        assert error == E.COORDINATOR_NOT_AVAILABLE
        assert shard.states[KEY].start_offset == 0 and shard.states[KEY].leader_epoch == -1
        write = asyncio.ensure_future(s.write_state(KEY, 0, 1, 5, [StateBatch(5, 6, ACKNOWLEDGED, 1)]))
        error, _ = await _settle_all(s.state_log, write, E.NOT_LEADER_OR_FOLLOWER)
        assert error == E.NOT_COORDINATOR
    asyncio.run(run())


def test_concurrent_writes_of_one_key_are_serialized_into_the_snapshot():
    async def run():
        s = await _service(per_snapshot=2)
        await _settle_all(s.state_log, asyncio.ensure_future(s.initialize_state(KEY, 0, 0)))
        writes = [asyncio.ensure_future(s.write_state(KEY, 0, 0, 0, [StateBatch(i, i, ACKNOWLEDGED, 1)]))
                  for i in range(5)]
        await asyncio.sleep(0)
        assert len(s.state_log.pending) == 1  # the next waits for this one's commit
        done = await _settle_all(s.state_log, asyncio.ensure_future(asyncio.gather(*writes)))
        assert [e for e, _ in done] == [E.NONE] * 5
        live = s.coordinator.shards[0].states[KEY]
        replayed = ShareCoordinatorShard(s.config, lambda _t: 1)
        replayed.replay_all([r for r in s.state_log.records if r is not None])
        assert replayed.states[KEY] == live
        assert live.batches == [StateBatch(i, i, ACKNOWLEDGED, 1) for i in range(5)]
        assert live.snapshot_epoch == 1  # the third write was a snapshot holding the two before it
        assert not s._key_locks
    asyncio.run(run())


def test_not_coordinator_while_not_owned_and_after_unload():
    async def run():
        s = await _service()
        s.on_resigned(0, 5)
        assert (await s.read_state(KEY, 0)).error_code == E.NOT_COORDINATOR
        assert (await s.read_summary(KEY)).error_code == E.NOT_COORDINATOR
    asyncio.run(run())


def test_prune_moves_the_log_start_to_the_oldest_snapshot_still_needed():
    async def run():
        s = await _service(per_snapshot=2)
        other = SharePartitionKey("g2", TOPIC, 0)
        for key in (KEY, other):   # snapshots at offsets 0 and 1
            await _settle_all(s.state_log, asyncio.ensure_future(s.initialize_state(key, 0, 0)))
        for i in range(3):         # KEY: updates at 2, 3, snapshot at 4
            await _settle_all(s.state_log, asyncio.ensure_future(
                s.write_state(KEY, 0, 0, i, [StateBatch(i, i, ACKNOWLEDGED, 1)])))
        shard = s.coordinator.shards[0]
        assert shard.base_offsets == {KEY: 4, other: 1}
        assert s.prune() == {0: 1}   # `other` still needs its snapshot at offset 1
        assert s.prune() == {}       # nothing new
        await _settle_all(s.state_log, asyncio.ensure_future(s.delete_state(other)))
        assert s.prune() == {0: 4}
        # the log from the new start replays to the same state
        replayed = ShareCoordinatorShard(s.config, lambda _t: 1)
        replayed.replay_all(s.state_log.records[4:], 4)
        assert replayed.states == shard.states
        await _settle_all(s.state_log, asyncio.ensure_future(s.delete_state(KEY)))
        assert s.prune() == {0: 7}   # no share partition left: all 7 records are redundant
    asyncio.run(run())


def test_cold_partitions_get_a_snapshot_and_deleted_topics_lose_their_state():
    async def run():
        s = await _service()
        other = SharePartitionKey("g2", TOPIC, 0)
        for key in (KEY, other):
            await _settle_all(s.state_log, asyncio.ensure_future(s.initialize_state(key, 0, 0)))
        await _settle_all(s.state_log, asyncio.ensure_future(
            s.write_state(KEY, 0, 0, 3, [StateBatch(3, 4, ACKNOWLEDGED, 1)])))
        shard = s.coordinator.shards[0]
        before = shard.states[KEY]
        assert await _settle_all(s.state_log, asyncio.ensure_future(s.snapshot_cold_partitions())) == 1
        after = shard.states[KEY]
        assert (after.snapshot_epoch, after.start_offset, after.batches) == (1, 3, before.batches)
        assert shard.base_offsets[KEY] == 3 and shard.updates_since_snapshot[KEY] == 0
        assert await s.snapshot_cold_partitions() == 0   # nothing cold any more
        # the topic goes away: both share partitions' state is deleted
        s._metadata.topic_by_id = lambda _id: None
        s.on_topics_deleted(["t"])
        while s._periodic or s.state_log.pending:
            await asyncio.sleep(0)
            while s.state_log.pending:
                s.state_log.settle()
        assert shard.states == {}
    asyncio.run(run())
