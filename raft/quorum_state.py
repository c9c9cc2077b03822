"""Kafka 4.4's ``QuorumState``: the one current epoch state of a node and the only legal ways
out of it. Transitions (epochs only grow; a vote is granted at most once per epoch)::

    Unattached -> Unattached (higher epoch, or adding the vote it grants), Prospective
                  (election timeout), Follower (leader of an epoch >= its own)
    Prospective -> Unattached/Follower (pre-vote lost or timed out, or a higher epoch),
                   Candidate (a majority granted the pre-vote)
    Candidate -> Unattached (higher epoch), Follower (the epoch's leader), Leader (majority),
                 Prospective (election timeout)
    Leader -> Unattached/Follower (higher epoch), Resigned (shutdown, lost quorum)
    Follower -> Unattached/Follower (higher epoch), Prospective (fetch timeout)
    Resigned -> Unattached/Follower (higher epoch), Unattached (its election timeout)

An observer (not in the voter set) is only ever Unattached or Follower: it never asks for
votes. Like Kafka 4.4 it may grant one (Kafka checks the candidate's log, not the receiver's
membership: with dynamic voters a node may be a voter it has not heard of yet). Durable transitions
write the quorum-state file before the state changes; Prospective, Resigned and the vote
that a pre-vote would be are never written. Called by the core (``raft_core.RaftCore``).
"""
from __future__ import annotations

import logging
import random
from typing import Protocol, Union

from kafpy.raft.epoch_state import (
    NEVER, CandidateState, EpochElection, FollowerState, ProspectiveState, ResignedState,
    UnattachedState,
)
from kafpy.raft.leader_state import LeaderState
from kafpy.raft.quorum_state_store import ElectionState, ReplicaKey
from kafpy.raft.replicated_log import OffsetAndEpoch
from kafpy.raft.voter_set import VoterSet

log = logging.getLogger(__name__)

EpochState = Union[UnattachedState, ProspectiveState, CandidateState, LeaderState, FollowerState,
                   ResignedState]


class QuorumStateStore(Protocol):
    def read_election_state(self) -> ElectionState | None: ...

    def write_election_state(self, state: ElectionState, version: int) -> None: ...


class IllegalTransition(RuntimeError):
    """A transition QuorumState does not allow (a bug in the caller, as in Kafka)."""


class QuorumState:
    """Keeps the node's id, the static voter set, the store and the random source of the
    election timeouts (injectable for deterministic tests)."""

    def __init__(self, local_id: int, voters: frozenset[int], store: QuorumStateStore, *,
                 election_timeout_ms: int, fetch_timeout_ms: int, rng: random.Random,
                 local_directory_id: bytes | None = None, quorum_state_version: int = 1) -> None:
        self.local_id = local_id
        self.local_key = ReplicaKey(local_id, local_directory_id)
        self.voter_set = VoterSet.of_ids(frozenset(voters))
        self.store = store
        self.election_timeout_ms = election_timeout_ms
        self.fetch_timeout_ms = fetch_timeout_ms
        self.rng = rng
        self.quorum_state_version = quorum_state_version
        self._state: EpochState | None = None

    # -- reading ---------------------------------------------------------------------------

    @property
    def state(self) -> EpochState:
        if self._state is None:
            raise IllegalTransition("QuorumState is not initialized")
        return self._state

    @property
    def epoch(self) -> int:
        return self.state.epoch

    @property
    def voters(self) -> frozenset[int]:
        """The voters' ids at the log end (the core sets them from the voter-set history)."""
        return self.voter_set.ids()

    def set_voter_set(self, voter_set: VoterSet) -> None:
        """The voter set at the log end changed (an appended or truncated VotersRecord)."""
        self.voter_set = voter_set

    def is_voter(self, node_id: int | None = None) -> bool:
        if node_id is None:
            return self.voter_set.is_voter(self.local_key)
        return node_id in self.voter_set.voters

    def is_observer(self) -> bool:
        return not self.is_voter()

    def leader_id(self) -> int | None:
        s = self.state
        if isinstance(s, LeaderState):
            return self.local_id
        if isinstance(s, ResignedState):
            return self.local_id
        if isinstance(s, FollowerState):
            return s.leader_id
        if isinstance(s, (UnattachedState, ProspectiveState)):
            return s.leader_id
        return None

    def voted_key(self) -> ReplicaKey | None:
        s = self.state
        if isinstance(s, (UnattachedState, ProspectiveState, FollowerState)):
            return s.voted_key
        if isinstance(s, CandidateState):
            return s.local_key
        return None

    def high_watermark(self) -> int | None:
        return self.state.high_watermark

    def can_grant_vote(self, candidate: ReplicaKey, log_up_to_date: bool, pre_vote: bool) -> bool:
        return self.state.can_grant_vote(candidate, log_up_to_date, pre_vote)

    def random_election_timeout_ms(self) -> int:
        """Kafka: ``electionTimeoutMs + random.nextInt(electionTimeoutMs)``."""
        return self.election_timeout_ms + self.rng.randrange(max(1, self.election_timeout_ms))

    def _election_deadline(self, now_ms: int) -> int:
        return NEVER if self.is_observer() else now_ms + self.random_election_timeout_ms()

    # -- start -----------------------------------------------------------------------------

    def initialize(self, log_end: OffsetAndEpoch, now_ms: int) -> None:
        """Start in the state the file describes: a leader restarts Resigned in its epoch (it
        must not vote again there, nor reuse an offset of that epoch), a self-voted node
        Candidate, a voter that voted Unattached with that vote; an epoch behind the log's
        last epoch moves up to it. A node removed from the voters starts Unattached in its
        epoch whatever it was."""
        election = self.store.read_election_state() or ElectionState(0)
        if self.is_observer() and self.local_id in (election.leader_id,
                                                     election.voted_key.id if election.voted_key else None):
            # a voter since removed (KIP-853): it led or ran in that epoch, as an observer it
            # only remembers the epoch (and its vote, so it never votes twice there)
            log.info("Quorum state %s names this node, which is not a voter any more", election)
            election = ElectionState(election.epoch, None, election.voted_key)
        hw = None
        state: EpochState
        if election.epoch < log_end.epoch:
            log.warning("Epoch from quorum-state file is %s, which is smaller than last written "
                     "epoch %s in the log", election.epoch, log_end.epoch)
            state = UnattachedState(log_end.epoch, None, None, self._election_deadline(now_ms), hw)
        elif election.is_leader(self.local_id) and self.is_voter():
            state = ResignedState(election.epoch, self.local_id, set(self.voters - {self.local_id}),
                                  [], now_ms + self.random_election_timeout_ms(), hw)
        elif self.is_voter() and election.is_voted_candidate(self.local_key):
            state = CandidateState(election.epoch, self.local_key, self._new_election(),
                                   now_ms + self.random_election_timeout_ms(), hw)
        elif election.leader_id is not None and election.leader_id != self.local_id \
                and election.leader_id in self.voters:
            state = FollowerState(election.epoch, election.leader_id, election.voted_key,
                                  self.fetch_timeout_ms, now_ms + self.fetch_timeout_ms, hw)
        else:
            state = UnattachedState(election.epoch, election.leader_id, election.voted_key,
                                    self._election_deadline(now_ms), hw)
        self._durable_transition(state)

    def _new_election(self) -> EpochElection:
        e = EpochElection(self.voters)
        e.record_vote(self.local_id, True)
        return e

    # -- transitions -----------------------------------------------------------------------

    def _durable_transition(self, state: EpochState) -> None:
        self.store.write_election_state(self._with_voters(state.election_state()),
                                        self.quorum_state_version)
        self._memory_transition(state)

    def _with_voters(self, election: ElectionState) -> ElectionState:
        if self.quorum_state_version == 0:
            return ElectionState(election.epoch, election.leader_id, election.voted_key, self.voters)
        return election

    def _memory_transition(self, state: EpochState) -> None:
        old = self._state
        self._state = state
        log.info("Completed transition to %s epoch %s from %s", state.name, state.epoch,
                 None if old is None else old.name)

    def transition_to_unattached(self, epoch: int, leader_id: int | None, now_ms: int) -> None:
        """A higher epoch whose leader is unknown (or known by id only); Prospective and
        Resigned may also stay in their epoch (election lost, resignation over)."""
        s = self.state
        same_epoch_ok = isinstance(s, (ProspectiveState, ResignedState)) and epoch == s.epoch
        if epoch <= s.epoch and not same_epoch_ok:
            raise IllegalTransition(f"cannot transition to Unattached in epoch {epoch} from {s}")
        if self.is_observer():
            deadline = NEVER
        elif isinstance(s, (CandidateState, ProspectiveState, UnattachedState)):
            deadline = s.election_deadline  # keep the remaining election time
        else:
            deadline = now_ms + self.random_election_timeout_ms()
        voted = s.voted_key if isinstance(s, ProspectiveState) and epoch == s.epoch else None
        self._durable_transition(UnattachedState(epoch, leader_id, voted, deadline, s.high_watermark))

    def unattached_add_voted_state(self, epoch: int, candidate: ReplicaKey, now_ms: int) -> None:
        """Grant this epoch's one vote while Unattached: persisted before the answer leaves."""
        s = self.state
        if not isinstance(s, UnattachedState) or s.epoch != epoch or s.voted_key is not None:
            raise IllegalTransition(f"cannot vote for {candidate} in epoch {epoch} from {s}")
        if candidate.id == self.local_id:
            raise IllegalTransition("cannot add a vote for the local node")
        self._durable_transition(UnattachedState(
            epoch, s.leader_id, candidate, now_ms + self.random_election_timeout_ms(),
            s.high_watermark))

    def prospective_add_voted_state(self, epoch: int, candidate: ReplicaKey) -> None:
        """Grant the epoch's vote while Prospective: stays Prospective, the vote persisted."""
        s = self.state
        if not isinstance(s, ProspectiveState) or s.epoch != epoch or s.voted_key is not None:
            raise IllegalTransition(f"cannot vote for {candidate} in epoch {epoch} from {s}")
        if candidate.id == self.local_id:
            raise IllegalTransition("cannot add a vote for the local node")
        self.store.write_election_state(
            self._with_voters(ElectionState(epoch, s.leader_id, candidate)), self.quorum_state_version)
        s.voted_key = candidate

    def transition_to_follower(self, epoch: int, leader_id: int, now_ms: int) -> None:
        s = self.state
        if leader_id == self.local_id:
            raise IllegalTransition(f"cannot follow the local node in epoch {epoch}")
        if epoch < s.epoch:
            raise IllegalTransition(f"cannot follow {leader_id} in epoch {epoch} < {s.epoch}")
        if epoch == s.epoch and isinstance(s, (LeaderState, FollowerState)):
            raise IllegalTransition(f"cannot follow {leader_id} in epoch {epoch} from {s.name}")
        voted = self.voted_key() if epoch == s.epoch else None
        self._durable_transition(FollowerState(epoch, leader_id, voted, self.fetch_timeout_ms,
                                               now_ms + self.fetch_timeout_ms, s.high_watermark))

    def transition_to_prospective(self, now_ms: int) -> None:
        """Start a pre-vote in the current epoch (not persisted)."""
        s = self.state
        if self.is_observer():
            raise IllegalTransition(f"observer {self.local_id} cannot become Prospective")
        if isinstance(s, (LeaderState, ProspectiveState)):
            raise IllegalTransition(f"cannot transition to Prospective from {s.name}")
        self._memory_transition(ProspectiveState(
            s.epoch, self.local_id, self.leader_id(), self.voted_key(), self._new_election(),
            now_ms + self.random_election_timeout_ms(), s.high_watermark))

    def transition_to_candidate(self, now_ms: int) -> None:
        """Bump the epoch and vote for itself (persisted); only from Prospective."""
        s = self.state
        if self.is_observer():
            raise IllegalTransition(f"observer {self.local_id} cannot become Candidate")
        if not isinstance(s, ProspectiveState):
            raise IllegalTransition(f"cannot transition to Candidate from {s.name}")
        self._durable_transition(CandidateState(
            s.epoch + 1, self.local_key, self._new_election(),
            now_ms + self.random_election_timeout_ms(), s.high_watermark))

    def transition_to_leader(self, epoch_start_offset: int, now_ms: int) -> LeaderState:
        """Won the election. The leader does not keep the HW it knew as follower: it starts
        unknown and only moves on a majority in this epoch."""
        s = self.state
        if self.is_observer() or not isinstance(s, CandidateState):
            raise IllegalTransition(f"cannot transition to Leader from {s.name}")
        if not s.epoch_election.is_vote_granted():
            raise IllegalTransition("cannot become leader without a majority of votes")
        leader = LeaderState(s.epoch, self.local_id, self.voters, epoch_start_offset,
                             self.fetch_timeout_ms, now_ms)
        self._durable_transition(leader)
        return leader

    def transition_to_resigned(self, preferred_successors: list[ReplicaKey], now_ms: int) -> None:
        """A leader steps down in its epoch (soft state: a restarted leader is Resigned anyway)."""
        s = self.state
        if not isinstance(s, LeaderState):
            raise IllegalTransition(f"cannot transition to Resigned from {s.name}")
        self._memory_transition(ResignedState(
            s.epoch, self.local_id, set(self.voters - {self.local_id}), preferred_successors,
            now_ms + self.random_election_timeout_ms(), s.high_watermark))
