"""QuorumState's epoch states and the transitions Kafka 4.4 allows between them."""
from __future__ import annotations

import random

import pytest

from kafpy.raft.epoch_state import (
    NEVER, CandidateState, FollowerState, ProspectiveState, ResignedState, UnattachedState,
)
from kafpy.raft.leader_state import LeaderState
from kafpy.raft.quorum_state import IllegalTransition, QuorumState
from kafpy.raft.quorum_state_store import ElectionState, MemoryQuorumStateStore, ReplicaKey
from kafpy.raft.replicated_log import OffsetAndEpoch

VOTERS = frozenset({1, 2, 3})


def quorum(local_id: int = 1, store: MemoryQuorumStateStore | None = None, log_end: OffsetAndEpoch = OffsetAndEpoch(0, 0),
           version: int = 1) -> tuple[QuorumState, MemoryQuorumStateStore]:
    store = store or MemoryQuorumStateStore()
    q = QuorumState(local_id, VOTERS, store, election_timeout_ms=1000, fetch_timeout_ms=2000,
                    rng=random.Random(7), quorum_state_version=version)
    q.initialize(log_end, now_ms=0)
    return q, store


def stored(store: MemoryQuorumStateStore) -> ElectionState | None:
    return store.read_election_state()


def test_fresh_voter_starts_unattached_in_epoch_0_and_persists() -> None:
    q, store = quorum()
    assert isinstance(q.state, UnattachedState) and q.epoch == 0
    assert stored(store) == ElectionState(0)
    assert 1000 <= q.state.election_deadline < 2000  # randomized election timeout


def test_observer_never_times_out_and_never_runs() -> None:
    q, _ = quorum(local_id=9)
    assert q.is_observer() and isinstance(q.state, UnattachedState)
    assert q.state.election_deadline == NEVER
    with pytest.raises(IllegalTransition):
        q.transition_to_prospective(5000)
    q.transition_to_follower(1, 2, now_ms=10)
    assert isinstance(q.state, FollowerState)
    with pytest.raises(IllegalTransition):
        q.transition_to_prospective(5000)


def test_election_path_prospective_candidate_leader() -> None:
    q, store = quorum()
    q.transition_to_prospective(1500)
    assert isinstance(q.state, ProspectiveState) and q.epoch == 0
    assert stored(store) == ElectionState(0)  # a pre-vote writes nothing
    with pytest.raises(IllegalTransition):
        q.transition_to_leader(0, 1500)
    q.transition_to_candidate(1600)
    assert isinstance(q.state, CandidateState) and q.epoch == 1
    assert stored(store) == ElectionState(1, None, ReplicaKey(1))  # voted for itself
    with pytest.raises(IllegalTransition):  # only one of three votes
        q.transition_to_leader(0, 1600)
    assert isinstance(q.state, CandidateState)
    q.state.epoch_election.record_vote(2, True)
    leader = q.transition_to_leader(0, 1700)
    assert isinstance(q.state, LeaderState) and leader.epoch == 1
    assert stored(store) == ElectionState(1, 1, None)
    assert leader.high_watermark is None


def test_candidate_only_from_prospective() -> None:
    q, _ = quorum()
    with pytest.raises(IllegalTransition):
        q.transition_to_candidate(0)


def test_vote_granted_once_per_epoch_and_persisted() -> None:
    q, store = quorum()
    q.transition_to_unattached(4, None, now_ms=10)
    assert q.can_grant_vote(ReplicaKey(2), True, False)
    q.unattached_add_voted_state(4, ReplicaKey(2), now_ms=20)
    assert stored(store) == ElectionState(4, None, ReplicaKey(2))
    assert q.can_grant_vote(ReplicaKey(2), True, False)  # the same candidate again
    assert not q.can_grant_vote(ReplicaKey(3), True, False)  # never another one
    assert q.can_grant_vote(ReplicaKey(3), True, True)  # a pre-vote changes nothing
    with pytest.raises(IllegalTransition):
        q.unattached_add_voted_state(4, ReplicaKey(3), now_ms=30)


def test_epoch_never_goes_back() -> None:
    q, _ = quorum()
    q.transition_to_unattached(5, None, 0)
    with pytest.raises(IllegalTransition):
        q.transition_to_unattached(5, None, 0)
    with pytest.raises(IllegalTransition):
        q.transition_to_unattached(4, None, 0)
    with pytest.raises(IllegalTransition):
        q.transition_to_follower(4, 2, 0)
    q.transition_to_follower(5, 2, 0)
    with pytest.raises(IllegalTransition):  # a second leader in one epoch
        q.transition_to_follower(5, 3, 0)


def test_unattached_with_vote_does_not_vote_after_knowing_leader() -> None:
    q, _ = quorum()
    q.transition_to_unattached(3, 2, 0)
    assert not q.can_grant_vote(ReplicaKey(3), True, False)
    assert not q.can_grant_vote(ReplicaKey(3), False, False)
    assert q.can_grant_vote(ReplicaKey(3), True, True)


def test_follower_grants_pre_vote_only_before_first_fetch() -> None:
    q, _ = quorum()
    q.transition_to_follower(2, 2, now_ms=0)
    assert isinstance(q.state, FollowerState)
    assert q.can_grant_vote(ReplicaKey(3), True, True)
    assert not q.can_grant_vote(ReplicaKey(3), True, False)
    q.state.reset_fetch_timeout_for_successful_fetch(100)
    assert not q.can_grant_vote(ReplicaKey(3), True, True)
    assert q.state.fetch_deadline == 2100


def test_prospective_keeps_vote_and_leader_and_loses_back_to_unattached() -> None:
    q, store = quorum()
    q.transition_to_unattached(3, None, 0)
    q.unattached_add_voted_state(3, ReplicaKey(2), 0)
    q.transition_to_prospective(2000)
    assert isinstance(q.state, ProspectiveState) and q.state.voted_key == ReplicaKey(2)
    q.transition_to_unattached(3, None, 2500)  # pre-vote lost: same epoch
    assert isinstance(q.state, UnattachedState) and q.state.voted_key == ReplicaKey(2)
    assert stored(store) == ElectionState(3, None, ReplicaKey(2))


def test_prospective_adds_vote() -> None:
    q, store = quorum()
    q.transition_to_prospective(2000)
    q.prospective_add_voted_state(0, ReplicaKey(3))
    assert isinstance(q.state, ProspectiveState) and q.state.voted_key == ReplicaKey(3)
    assert stored(store) == ElectionState(0, None, ReplicaKey(3))


def test_leader_resigns_and_restarted_leader_is_resigned() -> None:
    q, store = quorum()
    q.transition_to_prospective(0)
    q.transition_to_candidate(0)
    assert isinstance(q.state, CandidateState)
    q.state.epoch_election.record_vote(3, True)
    q.transition_to_leader(0, 0)
    q.transition_to_resigned([ReplicaKey(2), ReplicaKey(3)], 10)
    assert isinstance(q.state, ResignedState) and q.state.unacked_voters == {2, 3}
    assert not q.can_grant_vote(ReplicaKey(2), True, False)
    q2, _ = quorum(store=store)
    assert isinstance(q2.state, ResignedState) and q2.epoch == 1


def test_restart_as_candidate_voted_and_follower() -> None:
    store = MemoryQuorumStateStore(ElectionState(6, None, ReplicaKey(1)).to_json(1))
    q, _ = quorum(store=store)
    assert isinstance(q.state, CandidateState) and q.epoch == 6
    store = MemoryQuorumStateStore(ElectionState(6, None, ReplicaKey(3)).to_json(1))
    q, _ = quorum(store=store)
    assert isinstance(q.state, UnattachedState) and q.state.voted_key == ReplicaKey(3)
    store = MemoryQuorumStateStore(ElectionState(6, 3, None).to_json(1))
    q, _ = quorum(store=store)
    assert isinstance(q.state, FollowerState) and q.state.leader_id == 3


def test_state_file_behind_the_log_moves_up() -> None:
    store = MemoryQuorumStateStore(ElectionState(2, 3, None).to_json(1))
    q, _ = quorum(store=store, log_end=OffsetAndEpoch(5, 40))
    assert isinstance(q.state, UnattachedState) and q.epoch == 5


def test_version_0_files_carry_the_voters() -> None:
    q, store = quorum(version=0)
    q.transition_to_unattached(2, None, 0)
    assert store.data is not None and b'"currentVoters":[{"voterId":1},{"voterId":2},{"voterId":3}]' in store.data


def test_leader_cannot_follow_in_its_own_epoch() -> None:
    q, _ = quorum()
    q.transition_to_prospective(0)
    q.transition_to_candidate(0)
    assert isinstance(q.state, CandidateState)
    q.state.epoch_election.record_vote(2, True)
    q.transition_to_leader(0, 0)
    with pytest.raises(IllegalTransition):
        q.transition_to_follower(1, 2, 0)
    q.transition_to_follower(2, 2, 0)
    assert isinstance(q.state, FollowerState)
