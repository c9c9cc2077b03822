"""Replication in RaftCore and the in-memory ReplicatedLog: Fetch validation with
DivergingEpoch, truncation, the high watermark on a majority of voters in the leader's own
epoch, observers that fetch but never count."""
from __future__ import annotations

import random

import pytest

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchResponse
from kafpy.raft import raft_messages as msg
from kafpy.raft.epoch_state import CandidateState, FollowerState
from kafpy.raft.leader_state import LeaderState
from kafpy.raft.memory_log import MemoryReplicatedLog
from kafpy.raft.quorum_state_store import ElectionState, MemoryQuorumStateStore, ReplicaKey
from kafpy.raft.raft_core import NotLeaderError, RaftCore
from kafpy.raft.replicated_log import (
    OffsetAndEpoch, ValidKind, truncate_to_end_offset, validate_offset_and_epoch,
)
from tests.unit.raft.sim import CLUSTER_ID, Simulation, leader_state

VOTERS = frozenset({1, 2, 3})


def log_of(*epochs: int) -> MemoryReplicatedLog:
    log = MemoryReplicatedLog()
    for e in epochs:
        log.append_as_leader([b"e%d" % e], e)
    return log


# -- the in-memory log ------------------------------------------------------------------------

def test_end_offset_for_epoch_like_the_leader_epoch_cache() -> None:
    log = log_of(1, 1, 3, 3, 5)  # epoch 1 at 0, 3 at 2, 5 at 4; end 5
    assert log.end_offset_for_epoch(5) == OffsetAndEpoch(5, 5)
    assert log.end_offset_for_epoch(4) == OffsetAndEpoch(3, 4)
    assert log.end_offset_for_epoch(3) == OffsetAndEpoch(3, 4)
    assert log.end_offset_for_epoch(2) == OffsetAndEpoch(1, 2)
    assert log.end_offset_for_epoch(0) == OffsetAndEpoch(0, 0)
    assert log.end_offset_for_epoch(9) == OffsetAndEpoch(5, 5)
    assert MemoryReplicatedLog().end_offset_for_epoch(3) == OffsetAndEpoch(0, 0)


def test_validate_offset_and_epoch() -> None:
    log = log_of(1, 1, 3, 3, 5)
    assert validate_offset_and_epoch(log, 0, 0).kind == ValidKind.VALID
    assert validate_offset_and_epoch(log, 2, 1).kind == ValidKind.VALID
    assert validate_offset_and_epoch(log, 5, 5).kind == ValidKind.VALID
    diverging = validate_offset_and_epoch(log, 3, 2)  # epoch 2 never existed here
    assert diverging.kind == ValidKind.DIVERGING and diverging.offset_and_epoch == OffsetAndEpoch(1, 2)
    past = validate_offset_and_epoch(log, 7, 3)  # epoch 3 ends at 4 here
    assert past.kind == ValidKind.DIVERGING and past.offset_and_epoch == OffsetAndEpoch(3, 4)


def test_truncate_to_end_offset_and_epoch_cache_follows() -> None:
    log = log_of(1, 1, 2, 2, 2)
    assert truncate_to_end_offset(log, OffsetAndEpoch(1, 2)) == 2
    assert log.end_offset() == 2 and log.last_fetched_epoch() == 1
    log.append_as_leader([b"x"], 3)
    assert log.end_offset_for_epoch(2) == OffsetAndEpoch(1, 2)
    assert truncate_to_end_offset(log, OffsetAndEpoch(0, 1)) == 1


def test_read_and_follower_append_round_trip() -> None:
    leader = log_of(1, 1, 2)
    leader.append_leader_change(3, 1, [ReplicaKey(1), ReplicaKey(2)], [ReplicaKey(1)])
    follower = MemoryReplicatedLog()
    info = follower.append_as_follower(leader.read(0, 10_000))
    assert info is not None and (info.first_offset, info.last_offset) == (0, 3)
    assert follower.entries == leader.entries
    assert follower.entries[3].control
    assert follower.append_as_follower(b"") is None
    one = leader.read(1, 1)  # at least one entry even past max_bytes
    other = MemoryReplicatedLog(leader.entries[:1])
    other.append_as_follower(one)
    assert other.end_offset() == 2
    with pytest.raises(ValueError):
        other.append_as_follower(leader.read(0, 100))  # not at the log end


# -- the leader's side of Fetch ---------------------------------------------------------------

def make_leader(log: MemoryReplicatedLog, epoch: int = 4) -> RaftCore:
    """Node 1, leader of ``epoch`` (elected by node 2's vote)."""
    store = MemoryQuorumStateStore(ElectionState(epoch - 1).to_json(1))
    core = RaftCore(1, VOTERS, log, store, now_ms=0, cluster_id=CLUSTER_ID, rng=random.Random(1))
    out = core.poll(5000)
    core.handle_response(out[0].destination, out[0].correlation_id,
                         msg.vote_response(ErrorCode.NONE, epoch=epoch - 1, granted=True), 5000)
    out = core.poll(5001)
    assert isinstance(core.quorum.state, CandidateState) and core.epoch == epoch
    core.handle_response(out[0].destination, out[0].correlation_id,
                         msg.vote_response(ErrorCode.NONE, epoch=epoch, granted=True), 5002)
    assert core.is_leader()
    return core


def fetch(core: RaftCore, replica: int, offset: int, last_epoch: int, epoch: int | None = None,
          now: int = 6000, cluster_id: str | None = CLUSTER_ID) -> FetchResponse.PartitionData | FetchResponse:
    request = msg.fetch_request(cluster_id, ReplicaKey(replica), core.epoch if epoch is None else epoch,
                                offset, last_epoch, 1 << 20, 500)
    response = core.handle_request(replica, ApiKey.FETCH, request, now)
    assert isinstance(response, FetchResponse)
    part = msg.fetch_response_partition(response)
    return response if part is None else part


def part(x: FetchResponse.PartitionData | FetchResponse) -> FetchResponse.PartitionData:
    assert isinstance(x, FetchResponse.PartitionData)
    return x


def test_high_watermark_waits_for_the_leader_change_of_its_epoch() -> None:
    log = log_of(1, 1, 2)  # three entries of older epochs
    core = make_leader(log)
    assert [e.epoch for e in log.entries] == [1, 1, 2, 4] and log.entries[3].control
    state = core.quorum.state
    assert isinstance(state, LeaderState)
    assert state.epoch_start_offset == 3 and core.high_watermark() is None
    # Node 2 has all the old entries: a majority holds offsets 0..2, but they are not
    # committed before the LeaderChange of epoch 4 is.
    p = part(fetch(core, 2, 3, 2))
    assert p.error_code == 0 and p.high_watermark == -1 and p.diverging_epoch.epoch == -1
    assert core.high_watermark() is None
    p = part(fetch(core, 2, 4, 4))
    assert core.high_watermark() == 4 and p.high_watermark == 4
    core.append([b"a", b"b"], 6100)
    assert core.high_watermark() == 4  # only the leader has them
    fetch(core, 3, 0, 0)  # an empty node 3 does not help
    assert core.high_watermark() == 4
    fetch(core, 3, 6, 4)
    assert core.high_watermark() == 6


def test_fetch_answers_diverging_epoch() -> None:
    core = make_leader(log_of(1, 1, 2, 2))
    # The follower has epoch 3 entries this leader never had, after offset 2.
    p = part(fetch(core, 2, 6, 3))
    assert (p.diverging_epoch.epoch, p.diverging_epoch.end_offset) == (2, 4)
    assert p.records in (None, b"")
    p = part(fetch(core, 2, 3, 1))  # epoch 1 ends at 2 here
    assert (p.diverging_epoch.epoch, p.diverging_epoch.end_offset) == (1, 2)
    assert core.high_watermark() is None  # diverging fetches move nothing


def test_fetch_errors() -> None:
    core = make_leader(log_of(1))
    assert part(fetch(core, 2, 0, 0, epoch=3)).error_code == ErrorCode.FENCED_LEADER_EPOCH
    assert part(fetch(core, 2, 0, 0, epoch=5)).error_code == ErrorCode.UNKNOWN_LEADER_EPOCH
    assert part(fetch(core, 2, -1, 0)).error_code == ErrorCode.INVALID_REQUEST
    assert part(fetch(core, 2, 1, 7)).error_code == ErrorCode.INVALID_REQUEST  # last epoch > epoch
    response = fetch(core, 2, 0, 0, cluster_id="other")
    assert isinstance(response, FetchResponse) and response.error_code == ErrorCode.INCONSISTENT_CLUSTER_ID
    follower = RaftCore(2, VOTERS, MemoryReplicatedLog(), MemoryQuorumStateStore(
        ElectionState(4, 1, None).to_json(1)), now_ms=0, cluster_id=CLUSTER_ID, rng=random.Random(2))
    p = part(fetch(follower, 3, 0, 0, epoch=4))
    assert (p.error_code, p.current_leader.leader_id, p.current_leader.leader_epoch) == \
        (ErrorCode.NOT_LEADER_OR_FOLLOWER, 1, 4)
    with pytest.raises(NotLeaderError):
        follower.append([b"x"], 0)


# -- the follower's side ----------------------------------------------------------------------

def follower_core(log: MemoryReplicatedLog, epoch: int = 4, leader: int = 1) -> RaftCore:
    store = MemoryQuorumStateStore(ElectionState(epoch, leader, None).to_json(1))
    core = RaftCore(2, VOTERS, log, store, now_ms=0, cluster_id=CLUSTER_ID, rng=random.Random(3))
    assert isinstance(core.quorum.state, FollowerState)
    return core


def test_follower_truncates_on_diverging_epoch_then_catches_up() -> None:
    leader_log = log_of(1, 1, 2, 2)
    leader = make_leader(leader_log)
    log = log_of(1, 1, 3, 3, 3)
    core = follower_core(log)
    for i in range(4):
        out = core.poll(100 + i)
        assert [o.api_key for o in out] == [ApiKey.FETCH]
        response = leader.handle_request(2, ApiKey.FETCH, out[0].data, 7000)
        assert isinstance(response, FetchResponse)
        core.handle_response(1, out[0].correlation_id, response, 100 + i)
    assert log.entries == leader_log.entries
    assert core.high_watermark() == leader.high_watermark() == 5


def test_follower_high_watermark_is_capped_by_its_log_end() -> None:
    log = log_of(1)
    core = follower_core(log)
    out = core.poll(10)
    response = msg.fetch_response(ErrorCode.NONE, epoch=4, leader_id=1, high_watermark=9, records=b"")
    core.handle_response(1, out[0].correlation_id, response, 20)
    assert core.high_watermark() == 1
    state = core.quorum.state
    assert isinstance(state, FollowerState) and state.fetch_deadline == 2020


def test_leader_truncation_below_high_watermark_is_refused() -> None:
    log = log_of(1, 1, 1)
    core = follower_core(log)
    out = core.poll(10)
    core.handle_response(1, out[0].correlation_id, msg.fetch_response(
        ErrorCode.NONE, epoch=4, leader_id=1, high_watermark=3), 20)
    out = core.poll(30)
    with pytest.raises(RuntimeError):
        core.handle_response(1, out[0].correlation_id, msg.fetch_response(
            ErrorCode.NONE, epoch=4, leader_id=1, diverging=(1, 1)), 40)
    assert log.end_offset() == 3


# -- with a quorum ----------------------------------------------------------------------------

def test_observer_fetches_but_never_counts_toward_the_majority() -> None:
    sim = Simulation(3, observers=1, seed=21)
    assert sim.run_until(sim.has_stable_leader, 10_000)
    leader = sim.leader()
    assert leader is not None and leader.core is not None
    assert sim.run_until(lambda: all(n.core is not None and n.core.high_watermark() == 1
                                     for n in sim.nodes.values()), 5_000)
    others = {n for n in (1, 2, 3) if n != leader.node_id}
    sim.cut = {frozenset((leader.node_id, o)) for o in others}
    leader.core.append([b"x", b"y"], sim.now)
    sim.run(1_000)
    observer = sim.nodes[4]
    assert observer.log.end_offset() == 3  # the observer has the entries...
    leader.core.append([b"z"], sim.now)  # (the leader recomputes its HW on its own appends)
    sim.run(500)
    assert observer.log.end_offset() == 4
    assert leader.core.high_watermark() == 1  # ...but they are not committed
    assert 4 in leader_state(leader).observer_states
    sim.heal()

    # Healed, the quorum converges (the uncommitted entries may be kept or lost, depending on
    # whether the cut voters ran an election meanwhile): every node reaches the leader's end.
    def converged() -> bool:
        current = sim.leader()
        if current is None or current.core is None or not sim.has_stable_leader():
            return False
        end = current.log.end_offset()
        return all(n.core is not None and n.core.high_watermark() == end for n in sim.nodes.values())

    assert sim.run_until(converged, 10_000)
