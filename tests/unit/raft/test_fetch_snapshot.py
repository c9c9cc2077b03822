"""FetchSnapshot in RaftCore: the leader answers a Fetch below its log start with the
SnapshotId, serves the snapshot in chunks of at most MaxBytes with Kafka's errors; a follower
writes the chunks, freezes the snapshot, truncates its log to it and fetches on from its end
offset. On the simulated network (a voter restarted behind the leader's snapshot) and with
the on-disk KafkaMetadataLog on both sides."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from kafpy.metadata.record_serde import ApiMessageAndVersion, write_record
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchSnapshotRequest, FetchSnapshotResponse, TopicRecord
from kafpy.raft import raft_messages as msg
from kafpy.raft.memory_log import MemoryReplicatedLog
from kafpy.raft.metadata_log import KafkaMetadataLog, MetadataLogConfig
from kafpy.raft.quorum_config import QuorumConfig
from kafpy.raft.quorum_state_store import ElectionState, MemoryQuorumStateStore, ReplicaKey
from kafpy.raft.raft_core import RaftCore
from kafpy.raft.replicated_log import ReplicatedLog
from kafpy.raft.snapshot import BOOTSTRAP_SNAPSHOT_ID, RecordsSnapshotWriter, SnapshotId
from kafpy.raft.snapshot_fetch import SnapshotFetchError
from tests.unit.raft.sim import CLUSTER_ID, Simulation
from tests.unit.raft.test_replication import VOTERS, fetch, make_leader, part


def fetch_snapshot(core: RaftCore, replica: int, sid: SnapshotId, position: int, max_bytes: int = 1 << 20,
                   epoch: int | None = None) -> FetchSnapshotResponse.PartitionSnapshot:
    request = msg.fetch_snapshot_request(CLUSTER_ID, ReplicaKey(replica), core.epoch if epoch is None else epoch,
                                         sid.end_offset, sid.epoch, position, max_bytes)
    response = core.handle_request(replica, ApiKey.FETCH_SNAPSHOT, request, 6000)
    assert isinstance(response, FetchSnapshotResponse) and response.error_code == 0
    p = msg.fetch_snapshot_response_partition(response)
    assert p is not None
    return p


def leader_with_snapshot() -> tuple[RaftCore, MemoryReplicatedLog, SnapshotId]:
    log = MemoryReplicatedLog()
    for i in range(10):
        log.append_as_leader([b"entry-%d" % i], 1 + i // 5)
    sid = log.take_snapshot(8)
    assert log.delete_before_snapshot(sid)
    return make_leader(log), log, sid


def test_leader_answers_a_fetch_below_its_log_start_with_the_snapshot_id() -> None:
    core, log, sid = leader_with_snapshot()
    assert log.start_offset() == 8 and sid == SnapshotId(8, 2)
    p = part(fetch(core, 2, 3, 1))
    assert (p.snapshot_id.end_offset, p.snapshot_id.epoch) == (8, 2)
    assert p.diverging_epoch.epoch == -1 and not p.records
    p = part(fetch(core, 2, 8, 1))  # at the log start in another epoch than the snapshot's
    assert (p.snapshot_id.end_offset, p.snapshot_id.epoch) == (8, 2)
    p = part(fetch(core, 2, 9, 2))  # on the log
    assert p.snapshot_id.epoch == -1 and p.records


def test_an_empty_follower_gets_the_latest_snapshot_even_when_the_log_starts_at_zero() -> None:
    log = MemoryReplicatedLog()
    for i in range(6):
        log.append_as_leader([b"entry-%d" % i], 1)
    log.snapshots[BOOTSTRAP_SNAPSHOT_ID] = b"bootstrap"
    core = make_leader(log)
    p = part(fetch(core, 2, 0, 0))  # only the bootstrap snapshot: the log from 0
    assert p.snapshot_id.epoch == -1 and p.records
    sid = log.take_snapshot(4)
    assert log.start_offset() == 0
    p = part(fetch(core, 2, 0, 0))
    assert (p.snapshot_id.end_offset, p.snapshot_id.epoch) == (sid.end_offset, sid.epoch) and not p.records
    assert part(fetch(core, 2, 2, 1)).records  # a follower with entries reads the log


def test_leader_serves_chunks_with_kafkas_errors() -> None:
    core, log, sid = leader_with_snapshot()
    whole = log.snapshots[sid]
    first = fetch_snapshot(core, 2, sid, 0, max_bytes=10)
    assert first.error_code == 0 and first.size == len(whole) and first.position == 0
    assert bytes(first.unaligned_records) == whole[:10]
    assert (first.snapshot_id.end_offset, first.snapshot_id.epoch) == (8, 2)
    rest = fetch_snapshot(core, 2, sid, 10)
    assert bytes(rest.unaligned_records) == whole[10:]
    assert fetch_snapshot(core, 2, sid, len(whole)).error_code == ErrorCode.POSITION_OUT_OF_RANGE
    assert fetch_snapshot(core, 2, sid, -1).error_code == ErrorCode.POSITION_OUT_OF_RANGE
    assert fetch_snapshot(core, 2, SnapshotId(7, 2), 0).error_code == ErrorCode.SNAPSHOT_NOT_FOUND
    log.snapshots[BOOTSTRAP_SNAPSHOT_ID] = b"bootstrap"
    assert fetch_snapshot(core, 2, BOOTSTRAP_SNAPSHOT_ID, 0).error_code == ErrorCode.SNAPSHOT_NOT_FOUND
    assert fetch_snapshot(core, 2, sid, 0, epoch=core.epoch - 1).error_code == ErrorCode.FENCED_LEADER_EPOCH
    assert fetch_snapshot(core, 2, sid, 0, epoch=core.epoch + 1).error_code == ErrorCode.UNKNOWN_LEADER_EPOCH
    bad = msg.fetch_snapshot_request("other-cluster", ReplicaKey(2), core.epoch, 8, 2, 0, 100)
    response = core.handle_request(2, ApiKey.FETCH_SNAPSHOT, bad, 6000)
    assert isinstance(response, FetchSnapshotResponse)
    assert response.error_code == ErrorCode.INCONSISTENT_CLUSTER_ID


def test_follower_answers_not_leader() -> None:
    store = MemoryQuorumStateStore(ElectionState(4, leader_id=1).to_json(1))
    follower = RaftCore(2, VOTERS, MemoryReplicatedLog(), store, now_ms=0, cluster_id=CLUSTER_ID,
                        rng=random.Random(2))
    p = fetch_snapshot(follower, 3, SnapshotId(8, 2), 0)
    assert p.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER and p.current_leader.leader_id == 1


SMALL_CHUNKS = QuorumConfig(election_timeout_ms=300, election_backoff_max_ms=300, fetch_timeout_ms=600,
                            request_timeout_ms=200, retry_backoff_ms=10, fetch_snapshot_max_bytes=40)


def test_restarted_voter_behind_the_leaders_snapshot_fetches_it_in_chunks() -> None:
    sim = Simulation(3, seed=7, max_delay_ms=5, config=SMALL_CHUNKS)
    assert sim.run_until(sim.has_stable_leader, 10_000)
    leader = sim.leader()
    assert leader is not None and leader.core is not None
    lagging = next(n for n in sim.nodes.values() if n is not leader)
    for i in range(5):
        leader.core.append([b"before-%d" % i], sim.now)
    assert sim.run_until(lambda: lagging.log.end_offset() == leader.log.end_offset(), 5_000)
    lagging.crash()
    for i in range(30):
        leader.core.append([b"while-down-%d" % i], sim.now)
        sim.run(20)
    hw = leader.core.high_watermark()
    assert hw is not None and hw == leader.log.end_offset()
    sid = leader.log.take_snapshot(hw)
    assert leader.log.delete_before_snapshot(sid) and leader.log.start_offset() == hw
    snapshot_size = len(leader.log.snapshots[sid])
    assert snapshot_size > 3 * SMALL_CHUNKS.fetch_snapshot_max_bytes  # several chunks
    behind = lagging.log.end_offset()
    assert behind < leader.log.start_offset()

    sim.delivered = []
    lagging.start(sim.now)
    for i in range(3):
        leader.core.append([b"after-%d" % i], sim.now)
    assert sim.run_until(lambda: lagging.log.end_offset() == leader.log.end_offset(), 10_000)
    assert lagging.log.snapshots.get(sid) == leader.log.snapshots[sid]
    assert lagging.log.start_offset() == sid.end_offset
    assert lagging.log.entries == leader.log.entries
    assert lagging.core is not None and lagging.core.fetching_snapshot is None
    chunks = [bytes(p.unaligned_records) for m in sim.delivered
              if isinstance(m.response, FetchSnapshotResponse) and m.destination == lagging.node_id
              for p in [msg.fetch_snapshot_response_partition(m.response)] if p is not None and p.error_code == 0]
    assert len(chunks) >= 4 and max(len(c) for c in chunks) <= SMALL_CHUNKS.fetch_snapshot_max_bytes
    assert b"".join(chunks) == leader.log.snapshots[sid]
    hw_after = lagging.core.high_watermark()
    assert hw_after is not None and hw_after >= sid.end_offset


def _drive(leader: RaftCore, follower: RaftCore, now: int, rounds: int) -> int:
    """Deliver the follower's requests to the leader and the answers back, ``rounds`` times."""
    for _ in range(rounds):
        now += 10
        leader.poll(now)
        for out in follower.poll(now):
            if out.destination == leader.node_id:
                response = leader.handle_request(follower.node_id, out.api_key, out.data, now)
                follower.handle_response(leader.node_id, out.correlation_id, response, now)
    return now


def _record(name: str) -> bytes:
    return write_record(ApiMessageAndVersion(TopicRecord(name=name, topic_id=bytes(16)), 0))


def test_snapshot_transfer_between_kafka_metadata_logs(tmp_path: Path) -> None:
    now = [0]
    config = MetadataLogConfig(segment_bytes=1024, segment_min_bytes=512, file_delete_delay_ms=0)
    leader_log = KafkaMetadataLog(tmp_path / "leader", config, now_ms=lambda: now[0])
    follower_log = KafkaMetadataLog(tmp_path / "follower", config, now_ms=lambda: now[0])
    for i in range(40):
        leader_log.append_as_leader([_record(f"topic-{i:03d}")], 1)
    leader_log.update_high_watermark(40)
    for end in (20, 40):
        raw = leader_log.create_new_snapshot(SnapshotId(end, 1))
        assert raw is not None
        writer: RecordsSnapshotWriter[bytes] = RecordsSnapshotWriter(raw, lambda v: v, lambda: now[0],
                                                                     kraft_version=0)
        writer.append([_record(f"state-{n}") for n in range(end)])
        writer.freeze()
    assert leader_log.delete_before_snapshot(SnapshotId(40, 1)) and leader_log.start_offset() == 40

    voters = frozenset({1, 2})
    store = MemoryQuorumStateStore(ElectionState(1).to_json(1))
    quorum = QuorumConfig(fetch_snapshot_max_bytes=256)
    leader_logs: ReplicatedLog = leader_log
    leader = RaftCore(1, voters, leader_logs, store, now_ms=0, cluster_id=CLUSTER_ID, config=quorum,
                      rng=random.Random(1))
    now[0] = 5000
    out = leader.poll(now[0])
    for o in out:
        leader.handle_response(o.destination, o.correlation_id,
                               msg.vote_response(ErrorCode.NONE, epoch=leader.epoch, granted=True), now[0])
    out = leader.poll(now[0] + 1)
    for o in out:
        leader.handle_response(o.destination, o.correlation_id,
                               msg.vote_response(ErrorCode.NONE, epoch=leader.epoch, granted=True), now[0] + 1)
    assert leader.is_leader()
    follower = RaftCore(2, voters, follower_log,
                        MemoryQuorumStateStore(ElectionState(leader.epoch, leader_id=1).to_json(1)),
                        now_ms=now[0], cluster_id=CLUSTER_ID, config=quorum, rng=random.Random(2))
    now[0] = _drive(leader, follower, now[0], 40)
    assert follower_log.snapshot_ids() == [SnapshotId(40, 1)]
    leader_snapshot = leader_log.read_snapshot(SnapshotId(40, 1))
    follower_snapshot = follower_log.read_snapshot(SnapshotId(40, 1))
    assert leader_snapshot is not None and follower_snapshot is not None
    assert leader_snapshot.size_in_bytes() > 4 * 256
    assert follower_snapshot.read_all() == leader_snapshot.read_all()
    assert follower_log.start_offset() == 40
    assert follower_log.end_offset() == leader_log.end_offset() == 41  # the LeaderChange, fetched after
    assert follower_log.read(40, 1 << 20) == leader_log.read(40, 1 << 20)
    assert not list(follower_log.dir.glob("*.part"))
    # the core hands its high watermark to the logs: both hold the LeaderChange as committed
    assert leader.high_watermark() == leader_log.high_watermark() == 41
    assert follower.high_watermark() == follower_log.high_watermark() == 41
    leader_log.close()
    follower_log.close()


def follower_on_disk(tmp_path: Path) -> tuple[RaftCore, KafkaMetadataLog]:
    mlog = KafkaMetadataLog(tmp_path, MetadataLogConfig(), now_ms=lambda: 0)
    store = MemoryQuorumStateStore(ElectionState(4, leader_id=1).to_json(1))
    core = RaftCore(2, VOTERS, mlog, store, now_ms=0, cluster_id=CLUSTER_ID, rng=random.Random(2),
                    config=QuorumConfig(fetch_snapshot_max_bytes=100))
    return core, mlog


def answer_fetch_with_snapshot(core: RaftCore, sid: SnapshotId, now: int) -> None:
    out = core.poll(now)
    assert [o.api_key for o in out] == [ApiKey.FETCH]
    core.handle_response(1, out[0].correlation_id, msg.fetch_response(
        ErrorCode.NONE, epoch=4, leader_id=1, high_watermark=50, snapshot_id=(sid.epoch, sid.end_offset)), now)


def test_follower_asks_for_the_snapshot_and_starts_over_when_the_leader_lost_it(tmp_path: Path) -> None:
    core, mlog = follower_on_disk(tmp_path)
    sid = SnapshotId(50, 3)
    answer_fetch_with_snapshot(core, sid, 10)
    assert core.fetching_snapshot is not None and list(mlog.dir.glob("*.checkpoint.part"))
    out = core.poll(50)
    assert [o.api_key for o in out] == [ApiKey.FETCH_SNAPSHOT]
    request = out[0].data
    assert isinstance(request, FetchSnapshotRequest) and request.max_bytes == 100
    p = request.topics[0].partitions[0]
    assert (p.snapshot_id.end_offset, p.snapshot_id.epoch, p.position, p.current_leader_epoch) == (50, 3, 0, 4)
    core.handle_response(1, out[0].correlation_id, msg.fetch_snapshot_response(
        ErrorCode.NONE, ErrorCode.SNAPSHOT_NOT_FOUND, epoch=4, leader_id=1), 60)
    assert core.fetching_snapshot is None and not list(mlog.dir.glob("*.part"))
    assert [o.api_key for o in core.poll(100)] == [ApiKey.FETCH]


def test_a_new_epoch_drops_the_partial_snapshot(tmp_path: Path) -> None:
    core, mlog = follower_on_disk(tmp_path)
    answer_fetch_with_snapshot(core, SnapshotId(50, 3), 10)
    out = core.poll(50)
    core.handle_response(1, out[0].correlation_id, msg.fetch_snapshot_response(
        ErrorCode.NONE, epoch=4, leader_id=1, snapshot_id=(50, 3), size=300, position=0, records=b"x" * 100), 60)
    assert core.fetching_snapshot is not None and core.fetching_snapshot.size_in_bytes() == 100
    core.handle_request(3, ApiKey.BEGIN_QUORUM_EPOCH, msg.begin_quorum_epoch_request(CLUSTER_ID, 5, 3, ReplicaKey(2)), 70)
    assert core.epoch == 5 and core.fetching_snapshot is None
    assert not list(mlog.dir.glob("*.part")) and mlog.snapshot_ids() == []


def test_a_chunk_at_the_wrong_position_is_refused(tmp_path: Path) -> None:
    core, _ = follower_on_disk(tmp_path)
    answer_fetch_with_snapshot(core, SnapshotId(50, 3), 10)
    out = core.poll(50)
    with pytest.raises(SnapshotFetchError, match="invalid position. Expected 0; Received 7"):
        core.handle_response(1, out[0].correlation_id, msg.fetch_snapshot_response(
            ErrorCode.NONE, epoch=4, leader_id=1, snapshot_id=(50, 3), size=300, position=7, records=b"x"), 60)
