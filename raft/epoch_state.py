"""The epoch states of Kafka 4.4's ``QuorumState`` except the leader's (``leader_state.py``):
Unattached (with or without a voted candidate), Prospective (pre-vote, KIP-996), Candidate,
Follower and Resigned. Each keeps its epoch, what ``election_state()`` persists, its timer as an
absolute deadline in milliseconds (the clock is passed in, never read), and answers
``can_grant_vote`` as Kafka's class of the same name does. ``QuorumState`` creates them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kafpy.raft.quorum_state_store import ElectionState, ReplicaKey

NEVER = 2 ** 62  # a deadline that never comes (an observer's election timer)


@dataclass
class EpochElection:
    """The votes a Prospective or Candidate has collected in its epoch (Kafka's
    ``EpochElection``): granted and rejected voter ids among ``voters``."""

    voters: frozenset[int]
    granted: set[int] = field(default_factory=set)
    rejected: set[int] = field(default_factory=set)

    @property
    def majority(self) -> int:
        return len(self.voters) // 2 + 1

    def record_vote(self, voter_id: int, granted: bool) -> bool:
        """Record the first answer of ``voter_id``; False when it had answered already."""
        if voter_id not in self.voters:
            raise ValueError(f"{voter_id} is not a voter of {sorted(self.voters)}")
        if voter_id in self.granted or voter_id in self.rejected:
            return False
        (self.granted if granted else self.rejected).add(voter_id)
        return True

    def unrecorded_voters(self) -> frozenset[int]:
        return self.voters - self.granted - self.rejected

    def is_vote_granted(self) -> bool:
        return len(self.granted) >= self.majority

    def is_vote_rejected(self) -> bool:
        """No majority is possible any more, whatever the voters still to answer say."""
        return len(self.granted) + len(self.unrecorded_voters()) < self.majority


def unattached_or_prospective_can_grant_vote(leader_id: int | None, voted_key: ReplicaKey | None,
                                             candidate: ReplicaKey, log_up_to_date: bool,
                                             pre_vote: bool) -> bool:
    """Kafka's ``QuorumState.unattachedOrProspectiveCanGrantVote``: a pre-vote only needs an
    up-to-date log; a vote goes again to the candidate already voted for, never to another,
    never while the epoch's leader is known, and only to an up-to-date log."""
    if pre_vote:
        return log_up_to_date
    if voted_key is not None:
        return voted_key.matches(candidate)
    if leader_id is not None:
        return False
    return log_up_to_date


class _AwaitingElection:
    """What Unattached and Prospective share: the epoch's known leader (if any) and vote,
    the same vote-granting rule, and an election deadline."""

    epoch: int
    leader_id: int | None
    voted_key: ReplicaKey | None
    election_deadline: int

    def election_state(self) -> ElectionState:
        return ElectionState(self.epoch, self.leader_id, self.voted_key)

    def can_grant_vote(self, candidate: ReplicaKey, log_up_to_date: bool, pre_vote: bool) -> bool:
        return unattached_or_prospective_can_grant_vote(self.leader_id, self.voted_key, candidate,
                                                        log_up_to_date, pre_vote)

    def has_election_timeout_expired(self, now_ms: int) -> bool:
        return now_ms >= self.election_deadline


@dataclass
class UnattachedState(_AwaitingElection):
    """An epoch whose leader this node does not follow (yet): maybe it knows the leader's id,
    maybe it voted. On the election timeout a voter turns Prospective."""

    epoch: int
    leader_id: int | None
    voted_key: ReplicaKey | None
    election_deadline: int
    high_watermark: int | None = None

    name = "Unattached"


@dataclass
class ProspectiveState(_AwaitingElection):
    """Pre-vote (KIP-996): same epoch, nothing persisted; asks the voters whether it could win
    before bumping the epoch, so a node cut off from the quorum cannot disturb it."""

    epoch: int
    local_id: int
    leader_id: int | None
    voted_key: ReplicaKey | None
    epoch_election: EpochElection
    election_deadline: int
    high_watermark: int | None = None

    name = "Prospective"


@dataclass
class CandidateState:
    """A voter that bumped the epoch and voted for itself (persisted) and asks for votes."""

    epoch: int
    local_key: ReplicaKey
    epoch_election: EpochElection
    election_deadline: int
    high_watermark: int | None = None

    name = "Candidate"

    def election_state(self) -> ElectionState:
        return ElectionState(self.epoch, None, self.local_key)

    def can_grant_vote(self, candidate: ReplicaKey, log_up_to_date: bool, pre_vote: bool) -> bool:
        return pre_vote and log_up_to_date

    def has_election_timeout_expired(self, now_ms: int) -> bool:
        return now_ms >= self.election_deadline


@dataclass
class FollowerState:
    """Following the leader of ``epoch``; ``fetch_deadline`` moves on every successful Fetch.
    A pre-vote is granted only before the first successful fetch from the leader."""

    epoch: int
    leader_id: int
    voted_key: ReplicaKey | None
    fetch_timeout_ms: int
    fetch_deadline: int
    high_watermark: int | None = None
    has_fetched_from_leader: bool = False
    # a voter checks every fetch timeout whether its listeners differ from the voter set's
    # (Kafka 4.4's updateVoterSetPeriodTimer: one fetch timeout; three before 4.0); -1: the
    # first check is due that long after the start
    update_voter_deadline: int = -1

    name = "Follower"

    def update_voter_period_expired(self, now_ms: int) -> bool:
        if self.update_voter_deadline < 0:
            self.update_voter_deadline = self.fetch_deadline
        return now_ms >= self.update_voter_deadline

    def reset_update_voter_period(self, now_ms: int) -> None:
        self.update_voter_deadline = now_ms + self.fetch_timeout_ms

    def election_state(self) -> ElectionState:
        return ElectionState(self.epoch, self.leader_id, self.voted_key)

    def can_grant_vote(self, candidate: ReplicaKey, log_up_to_date: bool, pre_vote: bool) -> bool:
        return pre_vote and not self.has_fetched_from_leader and log_up_to_date

    def has_fetch_timeout_expired(self, now_ms: int) -> bool:
        return now_ms >= self.fetch_deadline

    def reset_fetch_timeout_for_successful_fetch(self, now_ms: int) -> None:
        self.fetch_deadline = now_ms + self.fetch_timeout_ms
        self.has_fetched_from_leader = True

    def override_fetch_timeout(self, now_ms: int, timeout_ms: int) -> None:
        """After EndQuorumEpoch: start the next election after the successor's backoff."""
        self.fetch_deadline = now_ms + timeout_ms

    def update_high_watermark(self, high_watermark: int | None) -> bool:
        """Take the leader's HW; it never goes back (Kafka raises on a smaller one)."""
        if high_watermark is None or high_watermark == self.high_watermark:
            return False
        if self.high_watermark is not None and high_watermark < self.high_watermark:
            raise ValueError(f"non-monotonic high watermark {self.high_watermark} -> {high_watermark}")
        self.high_watermark = high_watermark
        return True


@dataclass
class ResignedState:
    """A leader that stepped down in its epoch: it sends EndQuorumEpoch to the voters that
    have not acknowledged it (naming its preferred successors) until its election timeout."""

    epoch: int
    local_id: int
    unacked_voters: set[int]
    preferred_successors: list[ReplicaKey]
    election_deadline: int
    high_watermark: int | None = None

    name = "Resigned"

    def election_state(self) -> ElectionState:
        return ElectionState(self.epoch, self.local_id, None)

    def can_grant_vote(self, candidate: ReplicaKey, log_up_to_date: bool, pre_vote: bool) -> bool:
        return pre_vote and log_up_to_date

    def acknowledge_resignation(self, voter_id: int) -> None:
        self.unacked_voters.discard(voter_id)

    def has_election_timeout_expired(self, now_ms: int) -> bool:
        return now_ms >= self.election_deadline


def strict_exponential_election_backoff_ms(preferred: list[ReplicaKey], local_key: ReplicaKey,
                                           backoff_max_ms: int) -> int:
    """After EndQuorumEpoch: the first preferred successor runs at once, the next ones after a
    strictly growing backoff (Kafka's ``strictExponentialElectionBackoffMs``)."""
    position = len(preferred)
    for i, key in enumerate(preferred):
        if key.matches(local_key):
            position = i
            break
    if position == 0:
        return 0
    if position >= len(preferred):
        return backoff_max_ms
    base = backoff_max_ms >> (len(preferred) - 1)
    return min(backoff_max_ms, base << (position - 1))
