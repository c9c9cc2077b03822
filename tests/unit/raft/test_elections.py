"""Elections in RaftCore: Vote with pre-vote, BeginQuorumEpoch, EndQuorumEpoch, the randomized
election timeout and the fetch timeout, each answered with Kafka 4.4's error codes."""
from __future__ import annotations

import random

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.codec import decode_data
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    BeginQuorumEpochResponse, EndQuorumEpochResponse, LeaderChangeMessage, VoteRequest, VoteResponse,
)
from kafpy.raft import raft_messages as msg
from kafpy.raft.epoch_state import CandidateState, FollowerState, ProspectiveState, ResignedState, UnattachedState
from kafpy.raft.leader_state import LeaderState
from kafpy.raft.memory_log import MemoryReplicatedLog
from kafpy.raft.quorum_state_store import ElectionState, MemoryQuorumStateStore, ReplicaKey
from kafpy.raft.raft_core import RaftCore
from tests.unit.raft.sim import CLUSTER_ID, Simulation

VOTERS = frozenset({1, 2, 3})


def make_core(node_id: int = 1, *, epoch: int = 0, log: MemoryReplicatedLog | None = None,
              seed: int = 0, store: MemoryQuorumStateStore | None = None) -> RaftCore:
    if store is None:
        store = MemoryQuorumStateStore(ElectionState(epoch).to_json(1) if epoch else None)
    return RaftCore(node_id, VOTERS, log or MemoryReplicatedLog(), store, now_ms=0,
                    cluster_id=CLUSTER_ID, rng=random.Random(seed))


def vote(core: RaftCore, candidate: int, epoch: int, last_epoch: int = 0, last_offset: int = 0, *,
         pre_vote: bool = False, cluster_id: str | None = CLUSTER_ID, voter: int | None = None,
         now: int = 10) -> VoteResponse:
    request = msg.vote_request(cluster_id, epoch, ReplicaKey(candidate),
                               ReplicaKey(core.node_id if voter is None else voter),
                               last_epoch, last_offset, pre_vote)
    response = core.handle_request(candidate, ApiKey.VOTE, request, now)
    assert isinstance(response, VoteResponse)
    return response


def answer(response: VoteResponse) -> tuple[ErrorCode, bool, int, int]:
    p = response.topics[0].partitions[0]
    return ErrorCode(p.error_code), p.vote_granted, p.leader_epoch, p.leader_id


def log_with_epochs(*epochs: int) -> MemoryReplicatedLog:
    log = MemoryReplicatedLog()
    for e in epochs:
        log.append_as_leader([b"r"], e)
    return log


def test_pre_vote_granted_without_changing_anything() -> None:
    store = MemoryQuorumStateStore(ElectionState(3).to_json(1))
    core = make_core(store=store)
    before = store.data
    assert answer(vote(core, 2, epoch=3, pre_vote=True)) == (ErrorCode.NONE, True, 3, -1)
    assert store.data == before
    assert isinstance(core.quorum.state, UnattachedState) and core.quorum.state.voted_key is None
    # A real vote is still free, and then taken for good.
    assert answer(vote(core, 3, epoch=3)) == (ErrorCode.NONE, True, 3, -1)
    assert store.read_election_state() == ElectionState(3, None, ReplicaKey(3))
    assert answer(vote(core, 2, epoch=3)) == (ErrorCode.NONE, False, 3, -1)
    assert answer(vote(core, 3, epoch=3)) == (ErrorCode.NONE, True, 3, -1)


def test_vote_for_higher_epoch_moves_to_that_epoch() -> None:
    core = make_core(epoch=2)
    assert answer(vote(core, 2, epoch=5, last_epoch=0)) == (ErrorCode.NONE, True, 5, -1)
    assert core.epoch == 5 and core.quorum.voted_key() == ReplicaKey(2)


def test_log_must_be_at_least_as_up_to_date() -> None:
    core = make_core(epoch=4, log=log_with_epochs(1, 1, 3))  # last epoch 3, end offset 3
    assert answer(vote(core, 2, 5, last_epoch=2, last_offset=10, pre_vote=True))[1] is False
    assert answer(vote(core, 2, 5, last_epoch=3, last_offset=2, pre_vote=True))[1] is False
    assert answer(vote(core, 2, 5, last_epoch=3, last_offset=3, pre_vote=True))[1] is True
    assert answer(vote(core, 2, 5, last_epoch=4, last_offset=1, pre_vote=True))[1] is True
    assert answer(vote(core, 2, 5, last_epoch=2, last_offset=10))[1] is False
    assert core.quorum.voted_key() is None  # a rejected vote is not a vote
    assert answer(vote(core, 3, 5, last_epoch=3, last_offset=3))[1] is True


def test_vote_errors() -> None:
    core = make_core(epoch=4)
    assert answer(vote(core, 2, epoch=3))[0] == ErrorCode.FENCED_LEADER_EPOCH
    assert vote(core, 2, epoch=5, cluster_id="other").error_code == ErrorCode.INCONSISTENT_CLUSTER_ID
    assert answer(vote(core, 2, epoch=5, last_epoch=5))[0] == ErrorCode.INVALID_REQUEST  # last epoch >= epoch
    assert answer(vote(core, 2, epoch=4, last_epoch=5, pre_vote=True))[0] == ErrorCode.INVALID_REQUEST
    assert answer(vote(core, 2, epoch=5, last_offset=-1))[0] == ErrorCode.INVALID_REQUEST
    assert answer(vote(core, 2, epoch=5, voter=3))[0] == ErrorCode.INVALID_VOTER_KEY
    bad = msg.vote_request(CLUSTER_ID, 5, ReplicaKey(2), ReplicaKey(1), 0, 0, False)
    bad.topics[0].topic_name = "other"
    response = core.handle_request(2, ApiKey.VOTE, bad, 0)
    assert isinstance(response, VoteResponse) and response.error_code == ErrorCode.INVALID_REQUEST
    assert core.epoch == 5  # the INVALID_VOTER_KEY request still carried a new epoch
    assert core.quorum.voted_key() is None


def test_election_timeout_is_randomized_by_the_injected_source() -> None:
    deadlines = set()
    for seed in range(5):
        state = make_core(seed=seed).quorum.state
        assert isinstance(state, UnattachedState)
        assert 1000 <= state.election_deadline < 2000
        deadlines.add(state.election_deadline)
    assert len(deadlines) > 1
    a, b = make_core(seed=42).quorum.state, make_core(seed=42).quorum.state
    assert isinstance(a, UnattachedState) and isinstance(b, UnattachedState)
    assert a.election_deadline == b.election_deadline


def test_timeout_starts_pre_vote_then_vote_then_leads() -> None:
    log = MemoryReplicatedLog()
    core = make_core(epoch=2, log=log)
    assert core.poll(999) == []
    out = core.poll(2000)
    assert isinstance(core.quorum.state, ProspectiveState) and core.epoch == 2
    assert sorted(o.destination for o in out) == [2, 3]
    for o in out:
        assert o.api_key == ApiKey.VOTE and isinstance(o.data, VoteRequest)
        p = o.data.topics[0].partitions[0]
        assert p.pre_vote and p.replica_epoch == 2 and p.replica_id == 1
    core.handle_response(2, out[0].correlation_id if out[0].destination == 2 else out[1].correlation_id,
                         msg.vote_response(ErrorCode.NONE, epoch=2, granted=True), 2010)
    assert isinstance(core.quorum.state, CandidateState) and core.epoch == 3
    out = core.poll(2020)
    assert all(isinstance(o.data, VoteRequest) and not o.data.topics[0].partitions[0].pre_vote for o in out)
    assert all(o.data.topics[0].partitions[0].replica_epoch == 3 for o in out if isinstance(o.data, VoteRequest))
    core.handle_response(out[1].destination, out[1].correlation_id,
                         msg.vote_response(ErrorCode.NONE, epoch=3, granted=True), 2030)
    assert isinstance(core.quorum.state, LeaderState) and core.epoch == 3
    assert [(e.epoch, e.control) for e in log.entries] == [(3, True)]  # the LeaderChange
    change = decode_data(LeaderChangeMessage, 0, log.entries[0].payload[4:])
    assert change.leader_id == 1
    assert [v.voter_id for v in change.voters] == [1, 2, 3]
    assert [v.voter_id for v in change.granting_voters] == sorted({1, out[1].destination})
    out = core.poll(2040)
    assert sorted((o.destination, o.api_key) for o in out) == [(2, ApiKey.BEGIN_QUORUM_EPOCH), (3, ApiKey.BEGIN_QUORUM_EPOCH)]


def test_prospective_loses_back_to_unattached_and_candidate_times_out_to_prospective() -> None:
    core = make_core(epoch=2)
    out = core.poll(2000)
    for o in out:
        core.handle_response(o.destination, o.correlation_id,
                             msg.vote_response(ErrorCode.NONE, epoch=2, granted=False), 2001)
    assert isinstance(core.quorum.state, UnattachedState) and core.epoch == 2
    # Another round: win the pre-vote, lose the vote, wait out the election timeout.
    out = core.poll(5000)
    assert isinstance(core.quorum.state, ProspectiveState)
    core.handle_response(out[0].destination, out[0].correlation_id,
                         msg.vote_response(ErrorCode.NONE, epoch=2, granted=True), 5001)
    assert isinstance(core.quorum.state, CandidateState)
    out = core.poll(5002)
    for o in out:
        core.handle_response(o.destination, o.correlation_id,
                             msg.vote_response(ErrorCode.NONE, epoch=3, granted=False), 5003)
    state = core.quorum.state
    assert isinstance(state, CandidateState) and core.poll(5004) == []  # rejected: no more votes
    core.poll(state.election_deadline)
    assert isinstance(core.quorum.state, ProspectiveState) and core.epoch == 3


def test_stale_and_unexpected_responses_are_ignored() -> None:
    core = make_core(epoch=2)
    out = core.poll(2000)
    core.handle_response(2, 999, msg.vote_response(ErrorCode.NONE, epoch=2, granted=True), 2001)
    assert isinstance(core.quorum.state, ProspectiveState)
    # An answer in an older epoch counts for nothing.
    core.handle_response(out[0].destination, out[0].correlation_id,
                         msg.vote_response(ErrorCode.NONE, epoch=1, granted=True), 2001)
    assert isinstance(core.quorum.state, ProspectiveState)


def test_vote_response_naming_a_leader_makes_a_follower() -> None:
    core = make_core(epoch=2)
    out = core.poll(2000)
    core.handle_response(out[0].destination, out[0].correlation_id,
                         msg.vote_response(ErrorCode.NONE, epoch=4, leader_id=3, granted=False), 2001)
    assert isinstance(core.quorum.state, FollowerState) and core.epoch == 4
    assert core.quorum.leader_id() == 3


def test_begin_quorum_epoch() -> None:
    core = make_core(epoch=2)
    request = msg.begin_quorum_epoch_request(CLUSTER_ID, 3, 2, ReplicaKey(1))
    response = core.handle_request(2, ApiKey.BEGIN_QUORUM_EPOCH, request, 10)
    assert isinstance(response, BeginQuorumEpochResponse)
    p = response.topics[0].partitions[0]
    assert (p.error_code, p.leader_id, p.leader_epoch) == (0, 2, 3)
    assert isinstance(core.quorum.state, FollowerState)
    old = msg.begin_quorum_epoch_request(CLUSTER_ID, 2, 3, ReplicaKey(1))
    response = core.handle_request(3, ApiKey.BEGIN_QUORUM_EPOCH, old, 20)
    assert isinstance(response, BeginQuorumEpochResponse)
    assert response.topics[0].partitions[0].error_code == ErrorCode.FENCED_LEADER_EPOCH
    wrong = msg.begin_quorum_epoch_request("other", 4, 3, ReplicaKey(1))
    response = core.handle_request(3, ApiKey.BEGIN_QUORUM_EPOCH, wrong, 20)
    assert isinstance(response, BeginQuorumEpochResponse)
    assert response.error_code == ErrorCode.INCONSISTENT_CLUSTER_ID
    assert core.epoch == 3


def test_follower_starts_pre_vote_after_fetch_timeout() -> None:
    core = make_core(epoch=2)
    core.handle_request(2, ApiKey.BEGIN_QUORUM_EPOCH, msg.begin_quorum_epoch_request(CLUSTER_ID, 3, 2, ReplicaKey(1)), 0)
    out = core.poll(10)
    assert [(o.destination, o.api_key) for o in out] == [(2, ApiKey.FETCH)]
    assert core.poll(1999) == []  # the fetch is in flight, no answer yet
    assert isinstance(core.quorum.state, FollowerState)
    out = core.poll(2000)
    assert isinstance(core.quorum.state, ProspectiveState) and core.epoch == 3
    assert all(o.api_key == ApiKey.VOTE for o in out)


def end_quorum_epoch(core: RaftCore, successors: list[int], now: int) -> EndQuorumEpochResponse:
    request = msg.end_quorum_epoch_request(CLUSTER_ID, 3, 2, [ReplicaKey(i) for i in successors])
    response = core.handle_request(2, ApiKey.END_QUORUM_EPOCH, request, now)
    assert isinstance(response, EndQuorumEpochResponse)
    return response


def test_end_quorum_epoch_backoff_by_position_in_preferred_successors() -> None:
    for successors, backoff in (([1, 3], 0), ([3, 1], 500), ([4, 3, 1], 500), ([3], 1000)):
        core = make_core(epoch=2)
        core.handle_request(2, ApiKey.BEGIN_QUORUM_EPOCH,
                            msg.begin_quorum_epoch_request(CLUSTER_ID, 3, 2, ReplicaKey(1)), 0)
        response = end_quorum_epoch(core, successors, 100)
        assert response.topics[0].partitions[0].error_code == 0
        state = core.quorum.state
        assert isinstance(state, FollowerState)
        assert state.fetch_deadline == 100 + backoff, successors


def test_resigned_leader_sends_end_quorum_epoch_and_another_leader_follows() -> None:
    sim = Simulation(3, seed=3)
    assert sim.run_until(sim.has_stable_leader, 10_000)
    old = sim.leader()
    assert old is not None and old.core is not None
    epoch = old.core.epoch
    old.core.resign(sim.now)
    assert isinstance(old.core.quorum.state, ResignedState)
    start = sim.now
    assert sim.run_until(lambda: sim.has_stable_leader() and sim.leader() is not old, 5_000)
    new = sim.leader()
    assert new is not None and new.core is not None and new.core.epoch == epoch + 1
    # The first preferred successor ran at once, well before any fetch timeout.
    assert sim.now - start < 1000


def test_partitioned_follower_cannot_disturb_the_leader() -> None:
    sim = Simulation(3, seed=5)
    assert sim.run_until(sim.has_stable_leader, 10_000)
    leader = sim.leader()
    assert leader is not None and leader.core is not None
    epoch = leader.core.epoch
    leader.core.append([b"a", b"b"], sim.now)
    assert sim.run_until(lambda: all(n.core is not None and n.core.high_watermark() == 3
                                     for n in sim.nodes.values()), 5_000)
    follower = next(n for n in sim.nodes.values() if n is not leader)
    third = next(n for n in sim.nodes if n not in (leader.node_id, follower.node_id))
    # Cut only the follower from the leader: it still reaches the third node, which keeps
    # fetching from the leader and so refuses its pre-votes.
    sim.cut = {frozenset((follower.node_id, leader.node_id))}
    sim.run(8_000)
    assert follower.core is not None and follower.core.epoch == epoch  # pre-votes were rejected
    assert sim.leader() is leader and leader.core is not None and leader.core.epoch == epoch
    third_core = sim.nodes[third].core
    assert third_core is not None and third_core.epoch == epoch


def test_leader_without_quorum_resigns() -> None:
    sim = Simulation(3, seed=8)
    assert sim.run_until(sim.has_stable_leader, 10_000)
    leader = sim.leader()
    assert leader is not None and leader.core is not None
    others = {n for n in sim.nodes if n != leader.node_id}
    sim.partition({leader.node_id}, others)
    start = sim.now
    assert sim.run_until(lambda: not (leader.core is not None and leader.core.is_leader()), 10_000)
    # Kafka's check quorum: 1.5 x controller.quorum.fetch.timeout.ms without a majority fetching.
    assert 2900 <= sim.now - start <= 3100
    assert isinstance(leader.core.quorum.state, (ResignedState, UnattachedState, FollowerState))


def test_observer_never_runs_for_election() -> None:
    sim = Simulation(3, observers=1, seed=11)
    observer = sim.nodes[4]
    sim.partition({4}, {1, 2, 3})
    sim.run(10_000)
    assert observer.core is not None and observer.core.epoch == 0
    assert isinstance(observer.core.quorum.state, UnattachedState)
    assert observer.store.read_election_state() == ElectionState(0)
    sim.heal()
    assert sim.run_until(lambda: observer.core is not None and isinstance(observer.core.quorum.state, FollowerState), 5_000)


def test_leader_repeats_begin_quorum_epoch_to_voters_that_do_not_fetch() -> None:
    store = MemoryQuorumStateStore(ElectionState(2).to_json(1))
    core = RaftCore(1, VOTERS, MemoryReplicatedLog(), store, now_ms=0, cluster_id=CLUSTER_ID,
                    rng=random.Random(0))
    out = core.poll(3000)
    core.handle_response(out[0].destination, out[0].correlation_id,
                         msg.vote_response(ErrorCode.NONE, epoch=2, granted=True), 3000)
    out = core.poll(3000)
    core.handle_response(out[0].destination, out[0].correlation_id,
                         msg.vote_response(ErrorCode.NONE, epoch=3, granted=True), 3000)
    assert core.is_leader()
    out = core.poll(3000)
    assert sorted((o.destination, o.api_key) for o in out) == [(2, ApiKey.BEGIN_QUORUM_EPOCH), (3, ApiKey.BEGIN_QUORUM_EPOCH)]
    for o in out:
        core.handle_response(o.destination, o.correlation_id, msg.begin_quorum_epoch_response(
            ErrorCode.NONE, epoch=3, leader_id=1), 3010)
    core.handle_request(2, ApiKey.FETCH, msg.fetch_request(CLUSTER_ID, ReplicaKey(2), 3, 0, 0, 1 << 20, 0), 3500)
    assert core.poll(3999) == []
    # Half the fetch timeout later: node 3 never fetched, node 2 did 500 ms ago.
    out = core.poll(4000)
    assert [(o.destination, o.api_key) for o in out] == [(3, ApiKey.BEGIN_QUORUM_EPOCH)]


def test_time_until_next_poll_follows_the_state_timers() -> None:
    core = make_core(epoch=2, seed=4)
    state = core.quorum.state
    assert isinstance(state, UnattachedState)
    assert core.time_until_next_poll_ms(100) == state.election_deadline - 100
    assert core.poll(state.election_deadline - 1) == []  # nothing happens before it
    out = core.poll(state.election_deadline)
    assert out and isinstance(core.quorum.state, ProspectiveState)
    # Votes in flight: the next wake-up is the election timeout or a request timeout.
    prospective = core.quorum.state
    wait = core.time_until_next_poll_ms(state.election_deadline)
    assert wait == min(prospective.election_deadline - state.election_deadline, 2000)
    follower = make_core(epoch=2)
    follower.handle_request(2, ApiKey.BEGIN_QUORUM_EPOCH, msg.begin_quorum_epoch_request(CLUSTER_ID, 3, 2, ReplicaKey(1)), 0)
    follower.poll(10)  # a fetch in flight until 10 + request timeout
    assert follower.time_until_next_poll_ms(10) == 1990  # the fetch timeout (2000 from 0) comes first


def test_observer_grants_a_vote_as_kafka_4_4_does() -> None:
    """Kafka 4.4 does not check the receiver's own membership before granting (with dynamic
    voters a node may be a voter it does not know of yet); it never asks for votes itself."""
    store = MemoryQuorumStateStore()
    observer = RaftCore(9, VOTERS, MemoryReplicatedLog(), store, now_ms=0, cluster_id=CLUSTER_ID,
                        rng=random.Random(0))
    assert answer(vote(observer, 2, epoch=1)) == (ErrorCode.NONE, True, 1, -1)
    assert store.read_election_state() == ElectionState(1, None, ReplicaKey(2))
    out = observer.poll(100_000)  # long past any election timeout: it only looks for a leader
    assert out and all(o.api_key == ApiKey.FETCH for o in out)
    assert isinstance(observer.quorum.state, UnattachedState)


def test_the_only_voter_elects_itself_at_its_first_poll() -> None:
    """Kafka's initialize: a quorum of one does not wait an election timeout, whether it
    starts Unattached (a new log) or Resigned (it led before the restart)."""
    core = RaftCore(1, frozenset({1}), MemoryReplicatedLog(), MemoryQuorumStateStore(), now_ms=0,
                    cluster_id=CLUSTER_ID, rng=random.Random(0))
    assert isinstance(core.quorum.state, UnattachedState)
    assert core.poll(0) == []
    assert isinstance(core.quorum.state, LeaderState) and core.epoch == 1
    restarted = RaftCore(1, frozenset({1}), MemoryReplicatedLog(), MemoryQuorumStateStore(
        ElectionState(1, 1, ReplicaKey(1)).to_json(1)), now_ms=0, cluster_id=CLUSTER_ID, rng=random.Random(0))
    assert isinstance(restarted.quorum.state, ResignedState)
    restarted.poll(0)
    assert isinstance(restarted.quorum.state, LeaderState) and restarted.epoch == 2
    # one of three voters still waits for its election timeout
    three = make_core()
    three.poll(0)
    assert isinstance(three.quorum.state, UnattachedState)
