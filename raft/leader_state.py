"""The leader's epoch state (Kafka's ``LeaderState``): what each replica has fetched, the high
watermark on a majority of voters, the voters that acknowledged the new leader, and the
"check quorum" timer after which a leader that no majority fetches from resigns.

The high watermark only moves past ``epoch_start_offset``: the leader appends a LeaderChange
entry there when its epoch begins, and no entry of an older epoch counts as committed before
one of the leader's own epoch is on a majority (Raft's commit rule, as Kafka enforces it).
Observers are tracked for DescribeQuorum but never count toward the majority.
"""
from __future__ import annotations

from dataclasses import dataclass

from kafpy.raft.quorum_state_store import ElectionState, ReplicaKey

CHECK_QUORUM_TIMEOUT_FACTOR = 1.5


@dataclass
class ReplicaState:
    """One replica as the leader sees it: its end offset (the next offset it will fetch),
    when it last fetched, whether it acknowledged this leader."""

    node_id: int
    end_offset: int | None = None
    last_fetch_ms: int = -1
    has_acknowledged_leader: bool = False
    last_caught_up_ms: int = -1
    last_fetch_leader_end_offset: int = -1
    directory_id: bytes | None = None  # as the replica's last Fetch named it

    def update_follower_state(self, fetch_offset: int, leader_end_offset: int | None, now_ms: int) -> None:
        """Kafka's ``ReplicaState.updateFollowerState``: caught up now when the fetch reaches
        the leader's end; caught up as of the previous fetch when it reaches the end the
        leader had then (what DescribeQuorum reports as LastCaughtUpTimestamp)."""
        if leader_end_offset is not None:
            if fetch_offset >= leader_end_offset:
                self.last_caught_up_ms = max(self.last_caught_up_ms, now_ms)
            elif self.last_fetch_leader_end_offset > 0 and fetch_offset >= self.last_fetch_leader_end_offset:
                self.last_caught_up_ms = max(self.last_caught_up_ms, self.last_fetch_ms)
            self.last_fetch_leader_end_offset = leader_end_offset
        self.last_fetch_ms = max(self.last_fetch_ms, now_ms)
        self.end_offset = fetch_offset
        self.has_acknowledged_leader = True


class LeaderState:
    """Created by ``QuorumState.transition_to_leader``; updated by the core on the leader's own
    appends (``update_local_state``) and on every Fetch (``update_replica_state``)."""

    name = "Leader"

    def __init__(self, epoch: int, local_id: int, voters: frozenset[int], epoch_start_offset: int,
                 fetch_timeout_ms: int, now_ms: int) -> None:
        self.epoch = epoch
        self.local_id = local_id
        self.voters = voters
        self.epoch_start_offset = epoch_start_offset
        self.high_watermark: int | None = None
        self.local_state = ReplicaState(local_id, has_acknowledged_leader=True)
        self.voter_states = {v: self.local_state if v == local_id else ReplicaState(v) for v in voters}
        self.observer_states: dict[int, ReplicaState] = {}
        self.resign_requested = False  # a leader that removed itself resigns once it commits
        self.check_quorum_timeout_ms = int(fetch_timeout_ms * CHECK_QUORUM_TIMEOUT_FACTOR)
        self.check_quorum_deadline = now_ms + self.check_quorum_timeout_ms
        self.fetched_voters: set[int] = set()
        self.begin_quorum_epoch_timeout_ms = fetch_timeout_ms // 2
        self.begin_quorum_epoch_deadline = now_ms  # send BeginQuorumEpoch at once

    def election_state(self) -> ElectionState:
        return ElectionState(self.epoch, self.local_id, None)  # Kafka writes votedId -1 as leader

    def can_grant_vote(self, candidate: ReplicaKey, log_up_to_date: bool, pre_vote: bool) -> bool:
        return False

    def non_acknowledging_voters(self) -> list[int]:
        return sorted(v for v, s in self.voter_states.items() if not s.has_acknowledged_leader)

    def need_to_send_begin_quorum_requests(self, now_ms: int) -> list[int]:
        """Kafka 4.4: the voters that have not fetched for half the fetch timeout (never
        fetched included) get BeginQuorumEpoch each time the timer fires."""
        return sorted(v for v, s in self.voter_states.items() if v != self.local_id and
                      (s.last_fetch_ms < 0 or now_ms - s.last_fetch_ms >= self.begin_quorum_epoch_timeout_ms))

    def add_acknowledgement_from(self, node_id: int) -> None:
        state = self.voter_states.get(node_id)
        if state is not None:
            state.has_acknowledged_leader = True

    def time_until_check_quorum_expires(self, now_ms: int) -> int:
        """0 when no majority of voters fetched within the check-quorum timeout; a single
        voter never expires."""
        if len(self.voter_states) == 1:
            return 2 ** 62
        return max(0, self.check_quorum_deadline - now_ms)

    def update_check_quorum_for_following_voter(self, node_id: int, now_ms: int) -> None:
        """A voter fetched a snapshot chunk: it follows this leader (Kafka's name)."""
        self._update_check_quorum(node_id, now_ms)

    def _update_check_quorum(self, node_id: int, now_ms: int) -> None:
        if node_id not in self.voter_states:
            return
        self.fetched_voters.add(node_id)
        majority = len(self.voter_states) // 2 + 1 - 1  # the leader counts itself
        if len(self.fetched_voters) >= majority:
            self.fetched_voters.clear()
            self.check_quorum_deadline = now_ms + self.check_quorum_timeout_ms

    def update_local_state(self, end_offset: int) -> bool:
        """The leader's log end moved (its own append); True when the HW moved."""
        state = self.local_state
        if state.end_offset is not None and state.end_offset > end_offset:
            raise ValueError(f"non-monotonic local end offset {state.end_offset} -> {end_offset}")
        state.end_offset = end_offset
        return self._maybe_update_high_watermark()

    def update_voters(self, voters: frozenset[int]) -> bool:
        """The voter set at the log end changed (Kafka's ``updateVoterAndObserverStates``):
        new voters keep what the leader knew of them as observers, removed ones become
        observers (the leader too, which then no longer counts). True when the HW moved."""
        old = self.voter_states
        states: dict[int, ReplicaState] = {}
        for v in sorted(voters):
            states[v] = old.get(v) or self.observer_states.pop(v, None) or (
                self.local_state if v == self.local_id else ReplicaState(v))
            self.observer_states.pop(v, None)
        for v, state in old.items():
            if v not in voters and v != self.local_id:
                self.observer_states.setdefault(v, state)
        self.voter_states = states
        self.voters = frozenset(voters)
        self.fetched_voters &= set(states)
        return self._maybe_update_high_watermark()

    def is_replica_caught_up(self, node_id: int, directory_id: bytes | None, now_ms: int) -> bool:
        """Kafka's ``isReplicaCaughtUp`` for AddRaftVoter: an observer with that directory that
        has caught up to the leader's end once and fetched within the last hour."""
        state = self.observer_states.get(node_id)
        return (state is not None and state.directory_id == directory_id and state.last_caught_up_ms > 0
                and state.last_fetch_ms > 0 and state.last_fetch_ms > now_ms - 3_600_000)

    def update_replica_state(self, node_id: int, fetch_offset: int, now_ms: int,
                             directory_id: bytes | None = None) -> bool:
        """A Fetch at ``fetch_offset`` from ``node_id`` (validated against the log): True when
        the HW moved. Negative ids (consumers) are ignored."""
        if node_id < 0:
            return False
        if node_id == self.local_id:
            raise ValueError(f"fetch from the leader itself ({node_id})")
        if node_id in self.voter_states:
            state = self.voter_states[node_id]
        else:
            state = self.observer_states.setdefault(node_id, ReplicaState(node_id))
        state.directory_id = directory_id
        state.update_follower_state(fetch_offset, self.local_state.end_offset, now_ms)
        self._update_check_quorum(node_id, now_ms)
        return node_id in self.voter_states and self._maybe_update_high_watermark()

    def _by_descending_end_offset(self) -> list[ReplicaState]:
        return sorted(self.voter_states.values(),
                      key=lambda s: -1 if s.end_offset is None else s.end_offset, reverse=True)

    def non_leader_voters_by_descending_fetch_offset(self) -> list[ReplicaKey]:
        """The preferred successors a resigning leader names, best first."""
        return [ReplicaKey(s.node_id) for s in self._by_descending_end_offset()
                if s.node_id != self.local_id]

    def _maybe_update_high_watermark(self) -> bool:
        if not self.voter_states:
            return False
        ordered = self._by_descending_end_offset()
        candidate = ordered[len(self.voter_states) // 2].end_offset
        if candidate is None or candidate <= self.epoch_start_offset:
            return False
        if self.high_watermark is None or candidate > self.high_watermark:
            self.high_watermark = candidate
            return True
        return False
