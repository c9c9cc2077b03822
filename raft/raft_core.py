"""The consensus core of KRaft, sans-IO: what Kafka's ``KafkaRaftClient`` decides, without its
network or threads. The driver (later, not here) calls

* ``poll(now_ms)`` -> the requests to send now (Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch),
* ``handle_request(source, api_key, data, now_ms)`` -> the response to send back,
* ``handle_response(source, correlation_id, data, now_ms)`` for each answer it got,
* ``append(payloads, now_ms)`` on the leader, ``resign(now_ms)`` on shutdown,

with the clock passed in and the random source injected. Elections use pre-vote (KIP-996):
a node whose election or fetch timeout expires turns Prospective and asks the voters in its
own epoch before it bumps the epoch; a vote needs the candidate's log at least as up to date
(last epoch, then end offset). Replication is Kafka's: followers Fetch with (FetchOffset,
LastFetchedEpoch); the leader answers with records or the DivergingEpoch to truncate to, and
moves the high watermark once a majority of voters has fetched past its LeaderChange entry.
A follower behind the leader's log start is answered the SnapshotId to fetch; it then sends
FetchSnapshot for chunks of it (``snapshot_fetch``) until it has it all, truncates its log to
it and fetches from its end offset.
The leader answers a Fetch at once; parking it until records arrive is the driver's business.
The voters are those at the log end (``voter_history``: the bootstrap snapshot's, then each
VotersRecord, committed or not; the static ones without any), and change with AddRaftVoter,
RemoveRaftVoter and UpdateRaftVoter (KIP-853, ``voter_changes``).
"""
from __future__ import annotations

import logging
import random
from typing import Callable

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AddRaftVoterResponse, ApiVersionsResponse, BeginQuorumEpochRequest, BeginQuorumEpochResponse, EndQuorumEpochRequest,
    EndQuorumEpochResponse, FetchRequest, FetchResponse, FetchSnapshotRequest, FetchSnapshotResponse,
    LeaderChangeMessage, RemoveRaftVoterResponse, UpdateRaftVoterRequest, UpdateRaftVoterResponse,
    VoteRequest, VoteResponse,
)
from kafpy.raft import raft_messages as msg
from kafpy.raft import snapshot_fetch, voter_changes
from kafpy.raft.core_view import handle_partition_answer
from kafpy.raft.epoch_state import (
    CandidateState, FollowerState, ProspectiveState, ResignedState, UnattachedState,
    strict_exponential_election_backoff_ms,
)
from kafpy.raft.leader_state import LeaderState
from kafpy.raft.quorum_config import QuorumConfig
from kafpy.raft.quorum_state import EpochState, QuorumState, QuorumStateStore
from kafpy.raft.quorum_state_store import ReplicaKey
from kafpy.raft.replicated_log import (
    OffsetAndEpoch, RawSnapshotWriterProtocol, ReplicatedLog, ValidKind, ValidOffsetAndEpoch,
    truncate_to_end_offset, validate_offset_and_epoch,
)
from kafpy.raft.request_manager import RequestManager
from kafpy.raft.snapshot import BOOTSTRAP_SNAPSHOT_ID, SnapshotId
from kafpy.raft.voter_set import Endpoint, VoterSet
from kafpy.raft.voter_set_history import KRaftControlRecordStateMachine

log = logging.getLogger(__name__)

# KafkaRaftClient's fetchMaxWaitMs: how long a follower's Fetch may wait at the leader (a
# different wait shifts when a follower's fetch timeout fires, and with it who asks for votes
# first in a quorum shared with Apache Kafka's controllers). Kafka uses 500 ms whatever the fetch
# timeout; here a fetch timeout under 1 s caps it at half the timeout, so a parked fetch cannot
# outlast the timeout and start an election (Kafka would churn there).
FETCH_MAX_WAIT_MS = 500


class NotLeaderError(RuntimeError):
    """``append`` on a node that is not the leader (Kafka's ``NotLeaderException``)."""


class RaftCore:
    """One node's consensus state: its QuorumState, its log, the requests in flight."""

    def __init__(self, node_id: int, voters: frozenset[int] | VoterSet, log_: ReplicatedLog,
                 store: QuorumStateStore, *, now_ms: int, cluster_id: str | None = None,
                 config: QuorumConfig = QuorumConfig(), rng: random.Random | None = None,
                 directory_id: bytes | None = None, quorum_state_version: int = 1,
                 listener_name: str = "CONTROLLER", local_endpoints: tuple[Endpoint, ...] = (),
                 bootstrap_ids: tuple[int, ...] = ()) -> None:
        self.node_id = node_id
        # the voters at each offset (static voters until a VotersRecord says otherwise)
        static = voters if isinstance(voters, VoterSet) else VoterSet.of_ids(frozenset(voters))
        self.voter_history = KRaftControlRecordStateMachine(static, log_)
        self.voter_history.update_state()
        self.listener_name = listener_name
        self.local_endpoints = local_endpoints
        self.bootstrap_ids = bootstrap_ids  # controller.quorum.bootstrap.servers as ids -2, -3, ...
        self.pending_voter_change: voter_changes.PendingVoterChange | None = None
        self.cluster_id = cluster_id
        self.config = config
        self.log = log_
        self.rng = rng or random.Random()
        self.quorum = QuorumState(
            node_id, frozenset(), store, election_timeout_ms=config.election_timeout_ms,
            fetch_timeout_ms=config.fetch_timeout_ms, rng=self.rng,
            local_directory_id=directory_id, quorum_state_version=quorum_state_version)
        self.quorum.set_voter_set(self.voter_history.last_voter_set())
        self.quorum.initialize(self.end_offset(), now_ms)
        self.requests = RequestManager(config.request_timeout_ms, config.retry_backoff_ms)
        self._next_correlation = 0
        # the snapshot a follower is fetching (Kafka keeps it in FollowerState: any transition drops it)
        self.fetching_snapshot: RawSnapshotWriterProtocol | None = None
        # Kafka's initialize: the only voter does not wait an election timeout to elect itself;
        # the first poll starts its election (the driver then flushes and tells the listeners)
        self._elect_at_first_poll = (self.quorum.voters == frozenset({node_id}) and self.quorum.is_voter()
                                     and isinstance(self.quorum.state, (UnattachedState, ResignedState)))

    # -- views -----------------------------------------------------------------------------

    def end_offset(self) -> OffsetAndEpoch:
        return OffsetAndEpoch(self.log.last_fetched_epoch(), self.log.end_offset())

    @property
    def epoch(self) -> int:
        return self.quorum.epoch

    def is_leader(self) -> bool:
        return isinstance(self.quorum.state, LeaderState)

    def high_watermark(self) -> int | None:
        return self.quorum.high_watermark()

    # -- the leader's API ------------------------------------------------------------------

    def append(self, payloads: list[bytes], now_ms: int) -> int:
        """Append as leader in its epoch; the offset of the last entry."""
        state = self.quorum.state
        if not isinstance(state, LeaderState):
            raise NotLeaderError(f"node {self.node_id} is not the leader in epoch {self.epoch}")
        info = self.log.append_as_leader(payloads, state.epoch)
        self.voter_history.skip_data(info.first_offset, self.log.end_offset())
        if state.update_local_state(self.log.end_offset()):
            self._on_high_watermark(state.high_watermark)
        return info.last_offset

    def append_voters_record(self, voters: VoterSet, now_ms: int) -> int:
        """The leader appends ``voters`` as a VotersRecord (a voter change): the voter set at
        the log end is the new one from now on, committed or not. Its offset."""
        state = self.quorum.state
        if not isinstance(state, LeaderState):
            raise NotLeaderError(f"node {self.node_id} is not the leader in epoch {self.epoch}")
        info = self.log.append_control_records(state.epoch, [voters.to_voters_record()])
        self._log_appended(now_ms)
        return info.last_offset

    # -- the voter set at the log end ------------------------------------------------------

    def _log_appended(self, now_ms: int) -> None:
        """The log grew (or was replaced by a snapshot): read its new control records; a new
        voter set takes effect at once, and the leader's own end offset moves."""
        if self.voter_history.update_state():
            voters = self.voter_history.last_voter_set()
            self.quorum.set_voter_set(voters)
            log.info("Node %s: the voters are now %s (kraft.version %s)", self.node_id, sorted(voters.voters),
                     voters.kraft_version)
            state = self.quorum.state
            if isinstance(state, LeaderState) and state.update_voters(voters.ids()):
                self._on_high_watermark(state.high_watermark)
        state = self.quorum.state
        if isinstance(state, LeaderState) and state.update_local_state(self.log.end_offset()):
            self._on_high_watermark(state.high_watermark)

    def _log_truncated(self, end_offset: int, now_ms: int) -> None:
        self.voter_history.truncate_new_entries(end_offset)
        self.quorum.set_voter_set(self.voter_history.last_voter_set())
        self._log_appended(now_ms)

    def resign(self, now_ms: int) -> None:
        """Graceful shutdown of a leader: Resigned, then EndQuorumEpoch naming the voters
        that fetched furthest as preferred successors."""
        state = self.quorum.state
        if isinstance(state, LeaderState):
            self._transition_to_resigned(state.non_leader_voters_by_descending_fetch_offset(), now_ms)

    # -- transitions with their side effects (Kafka's onBecome*) ---------------------------

    def _on_high_watermark(self, high_watermark: int | None) -> None:
        """The high watermark moved: the log learns it (it bounds snapshots and truncation)."""
        if high_watermark is not None:
            self.log.update_high_watermark(high_watermark)
            state = self.quorum.state
            if isinstance(state, LeaderState):
                voter_changes.high_watermark_updated(self, state)

    def _reset(self) -> None:
        if not isinstance(self.quorum.state, LeaderState):
            voter_changes.leader_gone(self)
        self.requests.reset_all()
        self._set_fetching_snapshot(None)

    def _set_fetching_snapshot(self, writer: RawSnapshotWriterProtocol | None) -> None:
        if self.fetching_snapshot is not None and self.fetching_snapshot is not writer:
            self.fetching_snapshot.close()  # an unfinished one: its .part file goes
        self.fetching_snapshot = writer

    def _transition_to_unattached(self, epoch: int, leader_id: int | None, now_ms: int) -> None:
        self.quorum.transition_to_unattached(epoch, leader_id, now_ms)
        self._reset()

    def _transition_to_follower(self, epoch: int, leader_id: int, now_ms: int) -> None:
        self.quorum.transition_to_follower(epoch, leader_id, now_ms)
        self._reset()

    def _transition_to_resigned(self, preferred: list[ReplicaKey], now_ms: int) -> None:
        self.quorum.transition_to_resigned(preferred, now_ms)
        self._reset()

    def _transition_to_prospective(self, now_ms: int) -> None:
        self.quorum.transition_to_prospective(now_ms)
        self._reset()
        state = self.quorum.state
        if isinstance(state, ProspectiveState) and state.epoch_election.is_vote_granted():
            self._transition_to_candidate(now_ms)  # the only voter

    def _transition_to_candidate(self, now_ms: int) -> None:
        self.quorum.transition_to_candidate(now_ms)
        self._reset()
        state = self.quorum.state
        if isinstance(state, CandidateState) and state.epoch_election.is_vote_granted():
            self._become_leader(now_ms)

    def _become_leader(self, now_ms: int) -> None:
        candidate = self.quorum.state
        granted = candidate.epoch_election.granted if isinstance(candidate, CandidateState) else set()
        leader = self.quorum.transition_to_leader(self.log.end_offset(), now_ms)
        voters = [ReplicaKey(v) for v in sorted(self.quorum.voters)]
        extra = voter_changes.start_of_epoch_records(self)
        if extra:  # Kafka's appendStartOfEpochControlRecords: one batch with the LeaderChange
            self.log.append_control_records(leader.epoch, [LeaderChangeMessage(
                version=0, leader_id=self.node_id,
                voters=[LeaderChangeMessage.Voter(voter_id=v.id) for v in voters],
                granting_voters=[LeaderChangeMessage.Voter(voter_id=v) for v in sorted(granted)]), *extra])
        else:
            self.log.append_leader_change(leader.epoch, self.node_id, voters,
                                          [ReplicaKey(v) for v in sorted(granted)])
        self._log_appended(now_ms)
        self._reset()
        log.info("Node %s is leader of epoch %s from offset %s", self.node_id, leader.epoch,
                 leader.epoch_start_offset)

    def _prospective_election_loss(self, state: ProspectiveState, now_ms: int) -> None:
        if state.leader_id is not None and state.leader_id != self.node_id:
            self._transition_to_follower(state.epoch, state.leader_id, now_ms)
        else:
            self._transition_to_unattached(state.epoch, state.leader_id, now_ms)

    def _maybe_transition(self, leader_id: int | None, epoch: int, now_ms: int) -> None:
        """Kafka's ``maybeTransition``: follow what a request or response says of the epoch."""
        known = self.quorum.leader_id()
        if epoch == self.epoch and leader_id is not None and known is not None and known != leader_id:
            raise RuntimeError(f"leader {leader_id} in epoch {epoch} is inconsistent with "
                               f"the known leader {known}")
        if epoch > self.epoch:
            if leader_id is not None and leader_id != self.node_id:
                self._transition_to_follower(epoch, leader_id, now_ms)
            else:
                self._transition_to_unattached(epoch, None, now_ms)
        elif leader_id is not None and known is None and leader_id != self.node_id:
            self._transition_to_follower(epoch, leader_id, now_ms)

    # -- poll ------------------------------------------------------------------------------

    def _send(self, out: list[msg.OutboundRequest], destination: int, api_key: ApiKey,
              data: msg.RaftRequestData, now_ms: int) -> None:
        self._next_correlation += 1
        self.requests.on_send(destination, self._next_correlation, now_ms)
        out.append(msg.OutboundRequest(destination, self._next_correlation, api_key, data))

    def poll(self, now_ms: int) -> list[msg.OutboundRequest]:
        """Expire timers, move the state on, and return the requests to send now."""
        self.requests.expire(now_ms)
        out: list[msg.OutboundRequest] = []
        if self._elect_at_first_poll:
            self._elect_at_first_poll = False
            if isinstance(self.quorum.state, (UnattachedState, ResignedState)) and self.quorum.voters == frozenset(
                    {self.node_id}):
                self._transition_to_prospective(now_ms)
        state = self.quorum.state
        if isinstance(state, LeaderState):
            self._poll_leader(state, now_ms, out)
        elif isinstance(state, ResignedState):
            self._poll_resigned(state, now_ms, out)
        elif isinstance(state, CandidateState):
            if state.has_election_timeout_expired(now_ms):
                log.info("Election was not granted, transitioning to prospective")
                self._transition_to_prospective(now_ms)
            else:
                self._send_votes(state, False, now_ms, out)
        elif isinstance(state, ProspectiveState):
            if state.has_election_timeout_expired(now_ms):
                self._prospective_election_loss(state, now_ms)
            else:
                self._send_votes(state, True, now_ms, out)
        elif isinstance(state, FollowerState):
            self._poll_follower(state, now_ms, out)
        elif isinstance(state, UnattachedState):
            if self.quorum.is_voter():
                if state.has_election_timeout_expired(now_ms):
                    self._transition_to_prospective(now_ms)
            else:
                self._fetch_from_any_voter(now_ms, out)
        if out or self.quorum.state is state:
            return out
        return out + self.poll(now_ms)  # a transition happened: act in the new state at once

    def _poll_leader(self, state: LeaderState, now_ms: int, out: list[msg.OutboundRequest]) -> None:
        voter_changes.expire(self, now_ms)
        for destination, request in voter_changes.leader_requests(self):
            self._send(out, destination, ApiKey.API_VERSIONS, request, now_ms)
        if state.resign_requested:
            log.info("Leader %s is not in the committed voter set; resigning from epoch %s",
                     self.node_id, state.epoch)
            self._transition_to_resigned(state.non_leader_voters_by_descending_fetch_offset(), now_ms)
            return
        if state.time_until_check_quorum_expires(now_ms) == 0:
            log.info("Leader %s did not hear from a majority within %s ms; resigning",
                     self.node_id, state.check_quorum_timeout_ms)
            self._transition_to_resigned(state.non_leader_voters_by_descending_fetch_offset(), now_ms)
            return
        if now_ms >= state.begin_quorum_epoch_deadline:
            state.begin_quorum_epoch_deadline = now_ms + state.begin_quorum_epoch_timeout_ms
            for voter in state.need_to_send_begin_quorum_requests(now_ms):
                if self.requests.is_ready(voter, now_ms):
                    self._send(out, voter, ApiKey.BEGIN_QUORUM_EPOCH, msg.begin_quorum_epoch_request(
                        self.cluster_id, state.epoch, self.node_id, ReplicaKey(voter)), now_ms)

    def _poll_resigned(self, state: ResignedState, now_ms: int, out: list[msg.OutboundRequest]) -> None:
        if state.has_election_timeout_expired(now_ms):
            self._transition_to_unattached(state.epoch, None, now_ms)
            return
        for voter in sorted(state.unacked_voters):
            if self.requests.is_ready(voter, now_ms):
                self._send(out, voter, ApiKey.END_QUORUM_EPOCH, msg.end_quorum_epoch_request(
                    self.cluster_id, state.epoch, self.node_id, state.preferred_successors), now_ms)

    def _send_votes(self, state: ProspectiveState | CandidateState, pre_vote: bool, now_ms: int,
                    out: list[msg.OutboundRequest]) -> None:
        if state.epoch_election.is_vote_rejected():
            return
        end = self.end_offset()
        for voter in sorted(state.epoch_election.unrecorded_voters()):
            if self.requests.is_ready(voter, now_ms):
                self._send(out, voter, ApiKey.VOTE, msg.vote_request(
                    self.cluster_id, state.epoch, self.quorum.local_key, ReplicaKey(voter),
                    end.epoch, end.offset, pre_vote), now_ms)

    def _poll_follower(self, state: FollowerState, now_ms: int, out: list[msg.OutboundRequest]) -> None:
        if state.has_fetch_timeout_expired(now_ms):
            if self.quorum.is_voter():
                self._transition_to_prospective(now_ms)
            else:
                self._fetch_from_any_voter(now_ms, out)
            return
        if self.requests.is_ready(state.leader_id, now_ms):
            snapshot = self.fetching_snapshot
            if snapshot is not None:
                sid = snapshot.snapshot_id
                self._send(out, state.leader_id, ApiKey.FETCH_SNAPSHOT, msg.fetch_snapshot_request(
                    self.cluster_id, self.quorum.local_key, self.epoch, sid.end_offset, sid.epoch,
                    snapshot.size_in_bytes(), self.config.fetch_snapshot_max_bytes), now_ms)
            elif (change := voter_changes.membership_request(self, state, now_ms)) is not None:
                self._send(out, state.leader_id, change[0], change[1], now_ms)  # instead of a Fetch
            else:
                self._send(out, state.leader_id, ApiKey.FETCH, self._fetch_request(), now_ms)

    def _fetch_from_any_voter(self, now_ms: int, out: list[msg.OutboundRequest]) -> None:
        """An observer finds the leader by fetching from a voter (Kafka's bootstrap fetch)."""
        if self.requests.has_any_in_flight():
            return
        candidates = self.bootstrap_ids or tuple(sorted(self.quorum.voters))
        ready = [v for v in candidates if self.requests.is_ready(v, now_ms)]
        if ready:
            self._send(out, self.rng.choice(ready), ApiKey.FETCH, self._fetch_request(), now_ms)

    def _fetch_request(self) -> FetchRequest:
        end = self.end_offset()
        hw = self.high_watermark()
        return msg.fetch_request(self.cluster_id, self.quorum.local_key, self.epoch, end.offset,
                                 end.epoch, self.config.fetch_max_bytes,
                                 min(FETCH_MAX_WAIT_MS, self.config.fetch_timeout_ms // 2),
                                 -1 if hw is None else hw)

    def time_until_next_poll_ms(self, now_ms: int) -> int:
        """How long the driver may wait (for a request or response) before calling ``poll``
        again: the nearest timer of the current state or of a request in flight."""
        state = self.quorum.state
        deadlines: list[int] = []
        if isinstance(state, LeaderState):
            deadlines.append(state.begin_quorum_epoch_deadline)
            deadlines.append(now_ms + state.time_until_check_quorum_expires(now_ms))
        elif isinstance(state, FollowerState):
            deadlines.append(state.fetch_deadline)
        else:
            deadlines.append(state.election_deadline)
        request = self.requests.next_deadline()
        if request is not None:
            deadlines.append(request)
        return max(0, min(deadlines) - now_ms)

    # -- requests --------------------------------------------------------------------------

    def handle_request(self, source: int, api_key: int, data: msg.RaftRequestData,
                       now_ms: int) -> msg.RaftResponseData:
        if api_key == ApiKey.VOTE and isinstance(data, VoteRequest):
            return self._handle_vote_request(data, now_ms)
        if api_key == ApiKey.BEGIN_QUORUM_EPOCH and isinstance(data, BeginQuorumEpochRequest):
            return self._handle_begin_quorum_epoch_request(data, now_ms)
        if api_key == ApiKey.END_QUORUM_EPOCH and isinstance(data, EndQuorumEpochRequest):
            return self._handle_end_quorum_epoch_request(data, now_ms)
        if api_key == ApiKey.FETCH and isinstance(data, FetchRequest):
            return self._handle_fetch_request(data, now_ms)
        if api_key == ApiKey.FETCH_SNAPSHOT and isinstance(data, FetchSnapshotRequest):
            return snapshot_fetch.handle_fetch_snapshot_request(self, data, now_ms)
        if api_key == ApiKey.UPDATE_RAFT_VOTER and isinstance(data, UpdateRaftVoterRequest):
            return voter_changes.handle_update_voter(self, data, now_ms)
        raise ValueError(f"the raft core does not handle api key {api_key} ({type(data).__name__})")

    def _valid_cluster_id(self, cluster_id: str | None) -> bool:
        """Kafka does not enforce a cluster id the request leaves out."""
        return cluster_id is None or self.cluster_id is None or cluster_id == self.cluster_id

    def _validate_voter_only(self, remote_id: int, epoch: int) -> ErrorCode | None:
        if epoch < self.epoch:
            return ErrorCode.FENCED_LEADER_EPOCH
        if remote_id < 0:
            return ErrorCode.INVALID_REQUEST
        return None

    def _valid_voter_key(self, voter_id: int, directory: bytes) -> bool:
        """The request was meant for this replica (KIP-853's voter key), when it says so."""
        if voter_id < 0:
            return True
        key = ReplicaKey.of(voter_id, directory)
        return key.id == self.node_id and (key.directory_id is None or
                                           self.quorum.local_key.directory_id is None or
                                           key.directory_id == self.quorum.local_key.directory_id)

    def _vote_answer(self, partition_error: ErrorCode, granted: bool = False) -> VoteResponse:
        return msg.vote_response(ErrorCode.NONE, partition_error, self.epoch,
                                 self.quorum.leader_id(), granted)

    def _handle_vote_request(self, request: VoteRequest, now_ms: int) -> VoteResponse:
        if not self._valid_cluster_id(request.cluster_id):
            return msg.vote_response(ErrorCode.INCONSISTENT_CLUSTER_ID)
        if not msg.single_partition_ok(request.topics):
            return msg.vote_response(ErrorCode.INVALID_REQUEST)
        p = request.topics[0].partitions[0]
        illegal = p.last_offset_epoch > p.replica_epoch if p.pre_vote else p.last_offset_epoch >= p.replica_epoch
        if illegal:
            log.info("Received a vote request from replica %s with illegal epoch %s, last epoch %s, "
                     "preVote=%s", p.replica_id, p.replica_epoch, p.last_offset_epoch, p.pre_vote)
        if p.last_offset < 0 or p.last_offset_epoch < 0 or illegal:
            return self._vote_answer(ErrorCode.INVALID_REQUEST)
        error = self._validate_voter_only(p.replica_id, p.replica_epoch)
        if error is not None:
            return self._vote_answer(error)
        if p.replica_epoch > self.epoch:
            self._transition_to_unattached(p.replica_epoch, None, now_ms)
        if not self._valid_voter_key(request.voter_id, p.voter_directory_id):
            return self._vote_answer(ErrorCode.INVALID_VOTER_KEY)
        candidate = ReplicaKey.of(p.replica_id, p.replica_directory_id)
        up_to_date = OffsetAndEpoch(p.last_offset_epoch, p.last_offset) >= self.end_offset()
        granted = self.quorum.can_grant_vote(candidate, up_to_date, p.pre_vote)
        state = self.quorum.state
        if granted and not p.pre_vote:
            if isinstance(state, UnattachedState) and state.voted_key is None:
                self.quorum.unattached_add_voted_state(p.replica_epoch, candidate, now_ms)
            elif isinstance(state, ProspectiveState) and state.voted_key is None:
                self.quorum.prospective_add_voted_state(p.replica_epoch, candidate)
        log.info("Vote request from %s (preVote=%s) with epoch %s is %s", p.replica_id, p.pre_vote,
                 p.replica_epoch, "granted" if granted else "rejected")
        return self._vote_answer(ErrorCode.NONE, granted)

    def _handle_begin_quorum_epoch_request(self, request: BeginQuorumEpochRequest,
                                           now_ms: int) -> BeginQuorumEpochResponse:
        if not self._valid_cluster_id(request.cluster_id):
            return msg.begin_quorum_epoch_response(ErrorCode.INCONSISTENT_CLUSTER_ID)
        if not msg.single_partition_ok(request.topics):
            return msg.begin_quorum_epoch_response(ErrorCode.INVALID_REQUEST)
        p = request.topics[0].partitions[0]
        error = self._validate_voter_only(p.leader_id, p.leader_epoch)
        if error is None:
            self._maybe_transition(p.leader_id, p.leader_epoch, now_ms)
            if not self._valid_voter_key(request.voter_id, p.voter_directory_id):
                error = ErrorCode.INVALID_VOTER_KEY
        return msg.begin_quorum_epoch_response(ErrorCode.NONE, error or ErrorCode.NONE, self.epoch,
                                               self.quorum.leader_id())

    def _handle_end_quorum_epoch_request(self, request: EndQuorumEpochRequest,
                                         now_ms: int) -> EndQuorumEpochResponse:
        if not self._valid_cluster_id(request.cluster_id):
            return msg.end_quorum_epoch_response(ErrorCode.INCONSISTENT_CLUSTER_ID)
        if not msg.single_partition_ok(request.topics):
            return msg.end_quorum_epoch_response(ErrorCode.INVALID_REQUEST)
        p = request.topics[0].partitions[0]
        error = self._validate_voter_only(p.leader_id, p.leader_epoch)
        if error is None:
            self._maybe_transition(p.leader_id, p.leader_epoch, now_ms)
            state = self.quorum.state
            if isinstance(state, FollowerState) and state.leader_id == p.leader_id:
                backoff = strict_exponential_election_backoff_ms(
                    msg.preferred_candidates(p), self.quorum.local_key, self.config.election_backoff_max_ms)
                log.debug("Overriding follower fetch timeout to %s after EndQuorumEpoch from %s",
                          backoff, p.leader_id)
                state.override_fetch_timeout(now_ms, backoff)
        return msg.end_quorum_epoch_response(ErrorCode.NONE, error or ErrorCode.NONE, self.epoch,
                                             self.quorum.leader_id())

    def _fetch_error(self, error: ErrorCode) -> FetchResponse:
        return msg.fetch_response(ErrorCode.NONE, error, epoch=self.epoch,
                                  leader_id=self.quorum.leader_id(), high_watermark=self.high_watermark())

    def _handle_fetch_request(self, request: FetchRequest, now_ms: int) -> FetchResponse:
        if not self._valid_cluster_id(request.cluster_id):
            return msg.fetch_response(ErrorCode.INCONSISTENT_CLUSTER_ID)
        if not msg.fetch_partition_ok(request):
            return msg.fetch_response(ErrorCode.INVALID_REQUEST)
        p = request.topics[0].partitions[0]
        if p.fetch_offset < 0 or p.last_fetched_epoch < 0 or p.last_fetched_epoch > p.current_leader_epoch:
            return self._fetch_error(ErrorCode.INVALID_REQUEST)
        if p.current_leader_epoch < self.epoch:
            return self._fetch_error(ErrorCode.FENCED_LEADER_EPOCH)
        if p.current_leader_epoch > self.epoch:
            return self._fetch_error(ErrorCode.UNKNOWN_LEADER_EPOCH)
        state = self.quorum.state
        if not isinstance(state, LeaderState):
            return self._fetch_error(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        replica_id = request.replica_state.replica_id
        if replica_id < 0:
            replica_id = request.replica_id
        latest = self.log.latest_snapshot_id()
        if p.fetch_offset == 0 and latest is not None and latest != BOOTSTRAP_SNAPSHOT_ID:
            # an empty follower: the snapshot is cheaper than the whole log (as Kafka)
            valid = ValidOffsetAndEpoch(ValidKind.SNAPSHOT, OffsetAndEpoch(latest.epoch, latest.end_offset))
        else:
            valid = validate_offset_and_epoch(self.log, p.fetch_offset, p.last_fetched_epoch)
        if valid.kind == ValidKind.SNAPSHOT:
            d = valid.offset_and_epoch
            return msg.fetch_response(ErrorCode.NONE, epoch=state.epoch, leader_id=self.node_id,
                                      high_watermark=state.high_watermark, snapshot_id=(d.epoch, d.offset))
        if valid.kind != ValidKind.VALID:
            d = valid.offset_and_epoch
            return msg.fetch_response(ErrorCode.NONE, epoch=state.epoch, leader_id=self.node_id,
                                      high_watermark=state.high_watermark, diverging=(d.epoch, d.offset))
        records = self.log.read(p.fetch_offset, min(p.partition_max_bytes, self.config.fetch_max_bytes))
        if replica_id != self.node_id:
            directory = ReplicaKey.of(replica_id, bytes(p.replica_directory_id)).directory_id
            if state.update_replica_state(replica_id, p.fetch_offset, now_ms, directory):
                self._on_high_watermark(state.high_watermark)
        return msg.fetch_response(ErrorCode.NONE, epoch=state.epoch, leader_id=self.node_id,
                                  high_watermark=state.high_watermark, records=records)


    # -- responses -------------------------------------------------------------------------

    def handle_response(self, source: int, correlation_id: int, data: msg.RaftResponseData,
                        now_ms: int) -> None:
        """An answer from ``source``; dropped when no longer expected (timed out, or the
        state changed since it was sent)."""
        if not self.requests.on_response(source, correlation_id, now_ms):
            log.debug("Ignoring unexpected response %s from %s", correlation_id, source)
            return
        ok: bool
        if isinstance(data, VoteResponse):
            ok = self._handle_vote_response(source, data, now_ms)
        elif isinstance(data, BeginQuorumEpochResponse):
            ok = self._handle_begin_quorum_epoch_response(source, data, now_ms)
        elif isinstance(data, EndQuorumEpochResponse):
            ok = self._handle_end_quorum_epoch_response(source, data, now_ms)
        elif isinstance(data, FetchResponse):
            ok = self._handle_fetch_response(source, data, now_ms)
        elif isinstance(data, ApiVersionsResponse):
            ok = voter_changes.handle_api_versions_response(self, source, data, now_ms)
        elif isinstance(data, (UpdateRaftVoterResponse, AddRaftVoterResponse, RemoveRaftVoterResponse)):
            ok = voter_changes.handle_membership_response(self, data, now_ms)
        elif isinstance(data, FetchSnapshotResponse):
            ok = snapshot_fetch.handle_fetch_snapshot_response(self, source, data, now_ms)
        else:
            raise ValueError(f"the raft core does not handle {type(data).__name__}")
        if not ok:
            self.requests.on_failure(source, now_ms)

    def _handle_common(self, error: ErrorCode, leader_id: int | None, epoch: int,
                       now_ms: int) -> bool | None:
        """Kafka's ``maybeHandleCommonResponse``: True/False when the epoch or the error
        settled the response, None when the caller goes on with it."""
        if epoch < self.epoch or error == ErrorCode.UNKNOWN_LEADER_EPOCH:
            return True
        if epoch > self.epoch or error in (ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.NOT_LEADER_OR_FOLLOWER):
            self._maybe_transition(leader_id, epoch, now_ms)
            return True
        if leader_id is not None and self.quorum.leader_id() is None and leader_id != self.node_id:
            self._transition_to_follower(epoch, leader_id, now_ms)
            return None if error == ErrorCode.NONE else True
        if error == ErrorCode.BROKER_NOT_AVAILABLE:
            return False
        if error == ErrorCode.INVALID_VOTER_KEY:
            return True
        if error == ErrorCode.INVALID_REQUEST:
            raise RuntimeError("received an unexpected INVALID_REQUEST error")
        return None

    def _handle_vote_response(self, source: int, response: VoteResponse, now_ms: int) -> bool:
        error = ErrorCode.of_known(response.error_code)
        state = self.quorum.state
        if error == ErrorCode.UNSUPPORTED_VERSION and isinstance(state, ProspectiveState):
            self._transition_to_candidate(now_ms)  # a voter without pre-vote: vote for real
            return True
        if error != ErrorCode.NONE or not msg.single_partition_ok(response.topics):
            return False
        p = response.topics[0].partitions[0]
        perror = ErrorCode.of_known(p.error_code)
        handled = self._handle_common(perror, None if p.leader_id < 0 else p.leader_id, p.leader_epoch, now_ms)
        if handled is not None:
            return handled
        if perror != ErrorCode.NONE:
            return False
        state = self.quorum.state
        if not isinstance(state, (ProspectiveState, CandidateState)) or source not in self.quorum.voters:
            return True
        state.epoch_election.record_vote(source, p.vote_granted)
        if state.epoch_election.is_vote_granted():
            if isinstance(state, ProspectiveState):
                self._transition_to_candidate(now_ms)
            else:
                self._become_leader(now_ms)
        elif state.epoch_election.is_vote_rejected() and isinstance(state, ProspectiveState):
            self._prospective_election_loss(state, now_ms)
        return True

    def _handle_begin_quorum_epoch_response(self, source: int, response: BeginQuorumEpochResponse,
                                            now_ms: int) -> bool:
        def acknowledged(state: EpochState) -> None:
            if isinstance(state, LeaderState):
                state.add_acknowledgement_from(source)
        return self._handle_epoch_notice_response(response, now_ms, acknowledged)

    def _handle_end_quorum_epoch_response(self, source: int, response: EndQuorumEpochResponse,
                                          now_ms: int) -> bool:
        def acknowledged(state: EpochState) -> None:
            if isinstance(state, ResignedState):
                state.acknowledge_resignation(source)
        return self._handle_epoch_notice_response(response, now_ms, acknowledged)

    def _handle_epoch_notice_response(self, response: BeginQuorumEpochResponse | EndQuorumEpochResponse,
                                      now_ms: int, acknowledged: Callable[[EpochState], None]) -> bool:
        """BeginQuorumEpoch's and EndQuorumEpoch's answers: the common epoch/leader handling,
        then, on success, the state in force takes the voter's acknowledgement."""
        if response.error_code != 0 or not msg.single_partition_ok(response.topics):
            return False
        p = response.topics[0].partitions[0]
        perror = ErrorCode.of_known(p.error_code)
        handled = self._handle_common(perror, None if p.leader_id < 0 else p.leader_id, p.leader_epoch, now_ms)
        if handled is not None:
            return handled
        if perror == ErrorCode.NONE:
            acknowledged(self.quorum.state)
        return perror == ErrorCode.NONE

    def _handle_fetch_response(self, source: int, response: FetchResponse, now_ms: int) -> bool:
        p = msg.fetch_response_partition(response)
        error, handled = handle_partition_answer(self, response.error_code, p, now_ms)
        if handled is not None:
            return handled
        assert p is not None  # handle_partition_answer settled an answer without one
        state = self.quorum.state
        if error != ErrorCode.NONE:
            return False
        if not isinstance(state, FollowerState) or state.leader_id != source:
            return True  # an answer from a voter that is not our leader: nothing to take
        if p.diverging_epoch.epoch >= 0:
            diverging = OffsetAndEpoch(p.diverging_epoch.epoch, p.diverging_epoch.end_offset)
            if state.high_watermark is not None and diverging.offset < state.high_watermark:
                raise RuntimeError(f"the leader asked for truncation to {diverging.offset}, below "
                                   f"the high watermark {state.high_watermark}")
            offset = truncate_to_end_offset(self.log, diverging)
            self._log_truncated(offset, now_ms)
            log.info("Truncated to offset %s from Fetch response from leader %s", offset, source)
        elif p.snapshot_id.epoch >= 0 or p.snapshot_id.end_offset >= 0:
            if p.snapshot_id.epoch < 0 or p.snapshot_id.end_offset < 0:
                log.error("The leader sent an invalid snapshot id (end offset %s, epoch %s)",
                          p.snapshot_id.end_offset, p.snapshot_id.epoch)
                return False
            snapshot_id = SnapshotId(p.snapshot_id.end_offset, p.snapshot_id.epoch)
            # not checked against the log: the snapshot is past its end and high watermark
            self._set_fetching_snapshot(self.log.create_new_snapshot_unchecked(snapshot_id))
            log.info("%s snapshot %s from Fetch response from leader %s",
                     "Fetching" if self.fetching_snapshot else "Already stored", snapshot_id, source)
        else:
            records = p.records
            if records:
                self.log.append_as_follower(bytes(records))
                self._log_appended(now_ms)
            if p.high_watermark >= 0:
                if state.update_high_watermark(min(p.high_watermark, self.log.end_offset())):
                    self._on_high_watermark(state.high_watermark)
        state.reset_fetch_timeout_for_successful_fetch(now_ms)
        return True
