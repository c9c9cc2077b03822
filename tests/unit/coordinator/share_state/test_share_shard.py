"""ShareCoordinatorShard: records written per request, replay, snapshot cadence, epochs and
fencing. The state changes only when the returned records are replayed (as the service does
once they are committed); the clock is passed in."""
from __future__ import annotations

import uuid

from kafpy.coordinator.share_state.config import ShareCoordinatorConfig
from kafpy.coordinator.share_state.coordinator import ShareCoordinator
from kafpy.coordinator.share_state.persister import (ACKNOWLEDGED, ARCHIVED, AVAILABLE, SharePartitionKey,
                                               StateBatch)
from kafpy.coordinator.share_state.records import SHARE_SNAPSHOT, SHARE_UPDATE, decode_key, decode_value
from kafpy.coordinator.share_state.shard import ShareCoordinatorShard
from kafpy.protocol.errors import ErrorCode

TOPIC = uuid.UUID("6f2f3a4e-1f0b-4b55-9a67-2d3c4e5f6a7b")
KEY = SharePartitionKey("g1", TOPIC, 0)


def shard(per_snapshot: int = 500, partitions: int = 3) -> ShareCoordinatorShard:
    cfg = ShareCoordinatorConfig()
    cfg.snapshot_update_records_per_snapshot = per_snapshot
    return ShareCoordinatorShard(cfg, lambda tid: partitions if tid == TOPIC else None)


def apply(s: ShareCoordinatorShard, result) -> None:
    assert result.error == ErrorCode.NONE, result
    s.replay_all(result.records)


def types(result) -> list[int]:
    return [decode_key(k)[0] for k, _ in result.records]


def test_initialize_writes_a_snapshot_and_read_returns_it():
    s = shard()
    r = s.initialize_state(KEY, state_epoch=0, start_offset=10, now_ms=1000)
    assert types(r) == [SHARE_SNAPSHOT]
    value = decode_value(SHARE_SNAPSHOT, r.records[0][1])
    assert (value.snapshot_epoch, value.state_epoch, value.start_offset, value.leader_epoch) == (0, 0, 10, -1)
    assert value.create_timestamp == value.write_timestamp == 1000
    assert KEY not in s.states  # nothing changes before the record is replayed
    apply(s, r)
    read = s.read_state(KEY, leader_epoch=1, now_ms=1001)
    assert read.read.start_offset == 10 and read.read.state_epoch == 0 and read.read.batches == []


def test_read_and_write_on_uninitialized_partition_are_invalid_requests():
    s = shard()
    assert s.read_state(KEY, 0, 0).error == ErrorCode.INVALID_REQUEST
    assert s.write_state(KEY, 0, 0, 0, [], 0).error == ErrorCode.INVALID_REQUEST


def test_write_appends_updates_that_replay_over_the_snapshot():
    s = shard()
    apply(s, s.initialize_state(KEY, 0, 0, 0))
    w1 = s.write_state(KEY, 0, 1, 0, [StateBatch(0, 9, ACKNOWLEDGED, 1)], 10)
    assert types(w1) == [SHARE_UPDATE]
    apply(s, w1)
    apply(s, s.write_state(KEY, 0, 1, 5, [StateBatch(5, 6, AVAILABLE, 2), StateBatch(10, 12, ARCHIVED, 5)], 11))
    st = s.states[KEY]
    assert st.start_offset == 5
    assert st.batches == [StateBatch(5, 6, AVAILABLE, 2), StateBatch(7, 9, ACKNOWLEDGED, 1),
                          StateBatch(10, 12, ARCHIVED, 5)]
    assert st.leader_epoch == 1
    # the start offset never moves back
    apply(s, s.write_state(KEY, 0, 1, 2, [], 12))
    assert s.states[KEY].start_offset == 5


def test_a_snapshot_every_n_updates_and_replay_from_the_log_rebuilds_the_state():
    s = shard(per_snapshot=3)
    log = []

    def run(result):
        apply(s, result)
        log.extend(result.records)
        return types(result)

    assert run(s.initialize_state(KEY, 0, 0, 0)) == [SHARE_SNAPSHOT]
    written = [run(s.write_state(KEY, 0, 0, i, [StateBatch(i, i, ACKNOWLEDGED, 1)], i)) for i in range(7)]
    assert written == [[SHARE_UPDATE]] * 3 + [[SHARE_SNAPSHOT]] + [[SHARE_UPDATE]] * 3
    snapshot = decode_value(SHARE_SNAPSHOT, log[4][1])
    assert snapshot.snapshot_epoch == 1 and snapshot.start_offset == 3
    assert snapshot.batches == [StateBatch(3, 3, ACKNOWLEDGED, 1)]
    assert s.updates_since_snapshot[KEY] == 3
    # a new shard replaying the log (from the start, or from the last snapshot) agrees
    again = shard(per_snapshot=3)
    again.replay_all(log)
    assert again.states == s.states
    tail = shard(per_snapshot=3)
    tail.replay_all(log[4:])
    assert tail.states[KEY].batches == s.states[KEY].batches
    assert tail.states[KEY].start_offset == 6


def test_epochs_fence_stale_writers_and_readers():
    s = shard()
    apply(s, s.initialize_state(KEY, 2, 0, 0))
    apply(s, s.write_state(KEY, 2, 5, 0, [], 1))
    assert s.write_state(KEY, 2, 4, 0, [], 2).error == ErrorCode.FENCED_LEADER_EPOCH
    assert s.write_state(KEY, 1, 5, 0, [], 2).error == ErrorCode.FENCED_STATE_EPOCH
    assert s.read_state(KEY, 4, 2).error == ErrorCode.FENCED_LEADER_EPOCH
    assert s.initialize_state(KEY, 1, 0, 2).error == ErrorCode.FENCED_STATE_EPOCH
    assert s.write_state(KEY, -1, 5, 0, [], 2).error == ErrorCode.INVALID_REQUEST
    assert s.read_state(KEY, -1, 2).error == ErrorCode.INVALID_REQUEST


def test_read_with_a_new_leader_epoch_records_it_first():
    s = shard()
    apply(s, s.initialize_state(KEY, 0, 7, 0))
    r = s.read_state(KEY, 3, 1)
    assert types(r) == [SHARE_UPDATE] and r.read.start_offset == 7
    apply(s, r)
    assert s.states[KEY].leader_epoch == 3
    assert s.read_state(KEY, 3, 2).records == []  # the same epoch writes nothing
    assert s.read_summary(KEY).leader_epoch == 3


def test_reinitialize_with_a_new_state_epoch_starts_over():
    s = shard()
    apply(s, s.initialize_state(KEY, 0, 0, 0))
    apply(s, s.write_state(KEY, 0, 0, 0, [StateBatch(0, 4, ACKNOWLEDGED, 1)], 1))
    r = s.initialize_state(KEY, 1, 100, 2)
    assert decode_value(SHARE_SNAPSHOT, r.records[0][1]).snapshot_epoch == 1
    apply(s, r)
    st = s.states[KEY]
    assert (st.state_epoch, st.start_offset, st.batches) == (1, 100, [])


def test_unknown_topic_or_partition():
    s = shard(partitions=1)
    assert s.initialize_state(SharePartitionKey("g", TOPIC, 1), 0, 0, 0).error == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert s.initialize_state(SharePartitionKey("g", uuid.uuid4(), 0), 0, 0, 0).error == \
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


def test_delete_writes_a_tombstone_and_replay_forgets_the_partition():
    s = shard()
    assert s.delete_state(KEY).records == []  # nothing to delete: success, nothing written
    apply(s, s.initialize_state(KEY, 0, 0, 0))
    r = s.delete_state(KEY)
    assert r.records == [(r.records[0][0], None)] and decode_key(r.records[0][0]) == (SHARE_SNAPSHOT, KEY)
    apply(s, r)
    assert KEY not in s.states
    summary = s.read_summary(KEY)
    assert summary.error_code == ErrorCode.NONE and summary.start_offset == -1


def test_coordinator_routes_keys_to_owned_partitions():
    cfg = ShareCoordinatorConfig()
    c = ShareCoordinator(cfg, lambda tid: 1)
    p = c.partition_for(KEY)
    assert 0 <= p < 50
    assert c.shard_for(KEY)[0] == ErrorCode.NOT_COORDINATOR
    c.begin_load(p)
    assert c.shard_for(KEY)[0] == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
    c.complete_load(p, [])
    assert c.shard_for(KEY)[0] == ErrorCode.NONE
    c.unload_partition(p)
    assert c.shard_for(KEY)[0] == ErrorCode.NOT_COORDINATOR
    c.shutdown()
    assert c.shard_for(KEY)[0] == ErrorCode.COORDINATOR_NOT_AVAILABLE


def test_coordinator_key_is_kafkas():
    # Kafka prints a Uuid as URL-safe base64 without padding
    key = SharePartitionKey("grp", uuid.UUID(bytes=bytes(range(16))), 4)
    assert str(key) == "grp:AAECAwQFBgcICQoLDA0ODw:4"
