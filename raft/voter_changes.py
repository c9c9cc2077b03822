"""The leader's voter changes of KIP-853 (Kafka's ``AddVoterHandler``, ``RemoveVoterHandler``
and ``UpdateVoterHandler``, with the checks ``KafkaRaftClient`` makes before them), sans-IO.

AddRaftVoter first asks the new voter for its kraft.version range (ApiVersions), then checks
it has caught up. AddRaftVoter and RemoveRaftVoter append a VotersRecord with the new set and are answered when
it commits (the high watermark passes it), or REQUEST_TIMED_OUT when it has not within the
request timeout; one change at a time, and only once the leader has a high watermark and the
last VotersRecord is committed. UpdateRaftVoter (a voter's new listeners or kraft.version
range) is answered as soon as its VotersRecord is appended. A leader that removed itself
resigns once the change commits. Errors and their order are Kafka 4.4's.

Who calls it: ``RaftCore.handle_request`` for the three APIs and ``RaftCore`` when the high
watermark moves, on every poll (the timeout) and on leaving the leader state.
"""
from __future__ import annotations

import base64
import logging
from typing import Union

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AddRaftVoterRequest, AddRaftVoterResponse, ApiVersionsRequest, ApiVersionsResponse, KRaftVersionRecord, RemoveRaftVoterRequest, RemoveRaftVoterResponse,
    UpdateRaftVoterRequest, UpdateRaftVoterResponse, VotersRecord,
)
from kafpy.raft.core_view import RaftCoreView as RaftCore
from kafpy.raft.epoch_state import FollowerState
from kafpy.raft.leader_state import LeaderState
from kafpy.raft.pending_voter_change import DEFAULT_MESSAGES, PendingVoterChange, VoterChangeResponse
from kafpy.raft.quorum_state_store import ReplicaKey
from kafpy.raft.voter_set import SUPPORTED_KRAFT_VERSIONS, Endpoint, Voter, VoterSet

log = logging.getLogger(__name__)

__all__ = ["PendingVoterChange", "VoterChangeResponse", "handle_add_voter", "handle_remove_voter",
           "handle_update_voter", "update_voter_request", "membership_request", "handle_membership_response", "leader_requests",
           "handle_api_versions_response", "high_watermark_updated", "expire", "leader_gone", "start_of_epoch_records"]


def _add_response(error: ErrorCode, message: str | None = None) -> AddRaftVoterResponse:
    return AddRaftVoterResponse(error_code=int(error), error_message=message or DEFAULT_MESSAGES.get(error))


def _remove_response(error: ErrorCode, message: str | None = None) -> RemoveRaftVoterResponse:
    return RemoveRaftVoterResponse(error_code=int(error),
                                   error_message=message or DEFAULT_MESSAGES.get(error))


def _cluster_id_message(core: RaftCore, cluster_id: str | None) -> str:
    return f'The given id "{cluster_id}" doesn\'t match the cluster id "{core.cluster_id}"'


def _leader_only_error(core: RaftCore, request_epoch: int) -> ErrorCode | None:
    """Kafka's ``validateLeaderOnlyRequest``."""
    if request_epoch < core.epoch:
        return ErrorCode.FENCED_LEADER_EPOCH
    if request_epoch > core.epoch:
        return ErrorCode.UNKNOWN_LEADER_EPOCH
    if not isinstance(core.quorum.state, LeaderState):
        return ErrorCode.NOT_LEADER_OR_FOLLOWER
    return None


def _common_checks(core: RaftCore, leader: LeaderState, what: str, now_ms: int
                   ) -> tuple[ErrorCode, str] | tuple[None, tuple[int, VoterSet]]:
    """What Add/Remove/UpdateVoterHandler check first, in their order: no change pending, a
    high watermark, kraft.version >= 1, the last VotersRecord committed."""
    expire(core, now_ms)
    if core.pending_voter_change is not None:
        return ErrorCode.REQUEST_TIMED_OUT, "Request timed out waiting for leader to handle previous voter change request"
    hw = leader.high_watermark
    if hw is None:
        return (ErrorCode.REQUEST_TIMED_OUT,
                "Request timed out waiting for leader to establish HWM and fence previous voter changes")
    history = core.voter_history
    kraft_version = history.last_kraft_version()
    if kraft_version < 1:
        return (ErrorCode.UNSUPPORTED_VERSION,
                f"Cluster doesn't support {what} voter because the kraft.version feature is {kraft_version}")
    entry = history.last_voter_set_entry()
    if entry is None or entry[0] >= hw:
        at = "Optional.empty" if entry is None else f"Optional[{entry[0]}]"
        return (ErrorCode.REQUEST_TIMED_OUT,
                f"Request timed out waiting for voters to commit the latest voter change at {at} with HWM {hw}")
    return None, entry


def _voter_key(voter_id: int, directory_id: bytes) -> ReplicaKey | None:
    """A voter key with a directory id, as the three requests must carry (else None)."""
    key = ReplicaKey.of(voter_id, bytes(directory_id))
    return key if voter_id >= 0 and key.directory_id is not None else None


def handle_add_voter(core: RaftCore, request: AddRaftVoterRequest, now_ms: int
                     ) -> AddRaftVoterResponse | PendingVoterChange:
    if not core._valid_cluster_id(request.cluster_id):
        return _add_response(ErrorCode.INCONSISTENT_CLUSTER_ID, _cluster_id_message(core, request.cluster_id))
    error = _leader_only_error(core, core.epoch)
    leader = core.quorum.state
    if error is not None or not isinstance(leader, LeaderState):
        return AddRaftVoterResponse(error_code=int(error or ErrorCode.NOT_LEADER_OR_FOLLOWER))
    key = _voter_key(request.voter_id, request.voter_directory_id)
    if key is None:
        return _add_response(ErrorCode.INVALID_REQUEST, "Add voter request didn't include a valid voter")
    endpoints = tuple(Endpoint(li.name, li.host, li.port) for li in request.listeners)
    if not any(e.name == core.listener_name for e in endpoints):
        return _add_response(ErrorCode.INVALID_REQUEST, (
            f"Add voter request didn't include the endpoint ({_endpoints_text(endpoints)}) for the default "
            f"listener {core.listener_name}"))
    failed, entry = _common_checks(core, leader, "adding", now_ms)
    if failed is not None:
        assert isinstance(entry, str)
        return _add_response(failed, entry)
    assert isinstance(entry, tuple)
    voters = entry[1]
    if key.id in voters.voters:
        return _add_response(ErrorCode.DUPLICATE_VOTER, (
            f"The voter id for {_key_text(key)} is already part of the set of voters "
            f"{_keys_text(voters.voter_keys())}."))
    # Kafka asks the new voter for its kraft.version range first (ApiVersions); the rest
    # follows its answer (handle_api_versions_response)
    pending = PendingVoterChange(True, key, -1, now_ms + core.config.request_timeout_ms, endpoints=endpoints,
                                 awaiting_api_versions=True, ack_when_committed=request.ack_when_committed)
    core.pending_voter_change = pending
    return pending


def leader_requests(core: RaftCore) -> list[tuple[int, ApiVersionsRequest]]:
    """The ApiVersions request to the voter being added, once (Kafka's AddVoterHandler)."""
    pending = core.pending_voter_change
    if pending is None or not pending.awaiting_api_versions or pending.api_versions_sent:
        return []
    pending.api_versions_sent = True
    return [(pending.voter.id, ApiVersionsRequest(client_software_name="kafpy", client_software_version="1.0"))]


def handle_api_versions_response(core: RaftCore, source: int, response: ApiVersionsResponse, now_ms: int) -> bool:
    """The voter being added answered ApiVersions: abort on an error, on a kraft.version range
    without the finalized version, or when it is not caught up; else append the VotersRecord
    with it (Kafka's ``handleApiVersionsResponse``)."""
    pending = core.pending_voter_change
    leader = core.quorum.state
    if pending is None or not pending.awaiting_api_versions or pending.voter.id != source \
            or not isinstance(leader, LeaderState):
        log.info("API_VERSIONS response is not expected from %s", source)
        return True
    key = pending.voter
    error = ErrorCode.of_known(response.error_code)
    if error != ErrorCode.NONE:
        core.pending_voter_change = None
        pending.complete(ErrorCode.REQUEST_TIMED_OUT,
                         f"Aborted add voter operation for since API_VERSIONS returned an error {error.name}")
        return False
    kraft_version = core.voter_history.last_kraft_version()
    feature = next((f for f in response.supported_features if f.name == "kraft.version"), None)
    if feature is None or not feature.min_version <= kraft_version <= feature.max_version:
        core.pending_voter_change = None
        shown = "(min: 0, max: 0)" if feature is None else f"(min: {feature.min_version}, max: {feature.max_version}"
        pending.complete(ErrorCode.INVALID_REQUEST, (
            f"Aborted add voter operation for {_key_text(key)} since the kraft.version range {shown} doesn't "
            f"support the finalized version {kraft_version}"))
        return True
    if not leader.is_replica_caught_up(key.id, key.directory_id, now_ms):
        core.pending_voter_change = None
        pending.complete(ErrorCode.REQUEST_TIMED_OUT,
                         f"Aborted add voter operation for {_key_text(key)} since it is lagging behind")
        return True
    assert key.directory_id is not None
    new_voters = core.voter_history.last_voter_set().add_voter(
        Voter(key.id, key.directory_id, pending.endpoints, (feature.min_version, feature.max_version)))
    if new_voters is None:
        core.pending_voter_change = None
        pending.complete(ErrorCode.DUPLICATE_VOTER)
        return True
    pending.awaiting_api_versions = False
    pending.last_offset = core.append_voters_record(new_voters, now_ms)
    if not pending.ack_when_committed:
        pending.complete(ErrorCode.NONE)   # v1, AckWhenCommitted false: answered now, as Kafka
    return True


def handle_remove_voter(core: RaftCore, request: RemoveRaftVoterRequest, now_ms: int
                        ) -> RemoveRaftVoterResponse | PendingVoterChange:
    if not core._valid_cluster_id(request.cluster_id):
        return _remove_response(ErrorCode.INCONSISTENT_CLUSTER_ID, _cluster_id_message(core, request.cluster_id))
    error = _leader_only_error(core, core.epoch)
    leader = core.quorum.state
    if error is not None or not isinstance(leader, LeaderState):
        return RemoveRaftVoterResponse(error_code=int(error or ErrorCode.NOT_LEADER_OR_FOLLOWER))
    key = _voter_key(request.voter_id, request.voter_directory_id)
    if key is None:
        return _remove_response(ErrorCode.INVALID_REQUEST, "Remove voter request didn't include a valid voter")
    failed, entry = _common_checks(core, leader, "removing", now_ms)
    if failed is not None:
        assert isinstance(entry, str)
        return _remove_response(failed, entry)
    assert isinstance(entry, tuple)
    new_voters = entry[1].remove_voter(key)
    if new_voters is None:
        return _remove_response(ErrorCode.VOTER_NOT_FOUND, (
            f"Cannot remove voter {_key_text(key)} from the set of voters "
            f"{_keys_text(entry[1].voter_keys())}"))
    offset = core.append_voters_record(new_voters, now_ms)
    pending = PendingVoterChange(False, key, offset, now_ms + core.config.request_timeout_ms)
    core.pending_voter_change = pending
    return pending


def handle_update_voter(core: RaftCore, request: UpdateRaftVoterRequest, now_ms: int) -> UpdateRaftVoterResponse:
    def answer(error: ErrorCode) -> UpdateRaftVoterResponse:
        leader_id = core.quorum.leader_id()
        address = None
        if leader_id is not None:
            voter = core.quorum.voter_set.voters.get(leader_id)
            address = voter.address(core.listener_name) if voter is not None else None
            if leader_id == core.node_id and address is None:
                address = next(((e.host, e.port) for e in core.local_endpoints if e.name == core.listener_name), None)
        return UpdateRaftVoterResponse(error_code=int(error), current_leader=UpdateRaftVoterResponse.CurrentLeader(
            leader_id=-1 if leader_id is None else leader_id, leader_epoch=core.epoch,
            host="" if address is None else address[0], port=-1 if address is None else address[1]))

    if not core._valid_cluster_id(request.cluster_id):
        return answer(ErrorCode.INCONSISTENT_CLUSTER_ID)
    error = _leader_only_error(core, request.current_leader_epoch)
    leader = core.quorum.state
    if error is not None or not isinstance(leader, LeaderState):
        return answer(error or ErrorCode.NOT_LEADER_OR_FOLLOWER)
    key = _voter_key(request.voter_id, request.voter_directory_id)
    if key is None:
        return answer(ErrorCode.INVALID_REQUEST)
    endpoints = tuple(Endpoint(li.name, li.host, li.port) for li in request.listeners)
    if not any(e.name == core.listener_name for e in endpoints):
        return answer(ErrorCode.INVALID_REQUEST)
    low, high = (request.k_raft_version_feature.min_supported_version,
                 request.k_raft_version_feature.max_supported_version)
    if low < 0 or high < 0 or high < low:
        return answer(ErrorCode.INVALID_REQUEST)
    failed, entry = _common_checks(core, leader, "updating", now_ms)
    if failed is not None:
        return answer(failed)
    assert isinstance(entry, tuple)
    kraft_version = core.voter_history.last_kraft_version()
    if not low <= kraft_version <= high:
        return answer(ErrorCode.INVALID_REQUEST)
    updated = entry[1].update_voter(Voter(key.id, request.voter_directory_id, endpoints, (low, high)))
    if updated is None:
        return answer(ErrorCode.VOTER_NOT_FOUND)
    core.append_voters_record(updated, now_ms)
    return answer(ErrorCode.NONE)  # not waiting for the commit, as Kafka


def update_voter_request(core: RaftCore) -> UpdateRaftVoterRequest | None:
    """What a voter sends its leader when the voter set holds other listeners or kraft.version
    range for it than its own (Kafka's ``buildUpdateVoterRequest``); None when nothing differs
    or the quorum is at kraft.version 0."""
    me = core.quorum.voter_set.voters.get(core.node_id)
    if me is None or not core.local_endpoints or core.voter_history.last_kraft_version() < 1:
        return None
    local = Voter(me.node_id, me.directory_id, core.local_endpoints, SUPPORTED_KRAFT_VERSIONS)
    if not core.quorum.voter_set.needs_update(local):
        return None
    low, high = SUPPORTED_KRAFT_VERSIONS
    return UpdateRaftVoterRequest(
        cluster_id=core.cluster_id, current_leader_epoch=core.epoch, voter_id=core.node_id,
        voter_directory_id=me.directory_id,
        listeners=[UpdateRaftVoterRequest.Listener(name=e.name, host=e.host, port=e.port)
                   for e in core.local_endpoints],
        k_raft_version_feature=UpdateRaftVoterRequest.KRaftVersionFeature(
            min_supported_version=low, max_supported_version=high))


MembershipRequest = Union[UpdateRaftVoterRequest, AddRaftVoterRequest, RemoveRaftVoterRequest]


def membership_request(core: RaftCore, state: FollowerState, now_ms: int
                       ) -> tuple[ApiKey, MembershipRequest] | None:
    """Every fetch timeout a follower may send its leader, instead of a Fetch (Kafka's
    ``pollFollowerAsVoter`` / ``pollFollowerAsObserver``): a voter whose listeners differ from
    the voter set's, UpdateRaftVoter; an observer with ``controller.quorum.auto.join.enable``
    (a controller: it has listeners and a directory id), RemoveRaftVoter for an older
    incarnation of its id still in the set, else AddRaftVoter for itself."""
    if not state.update_voter_period_expired(now_ms):
        return None
    state.reset_update_voter_period(now_ms)
    if core.voter_history.last_kraft_version() < 1:
        return None
    if core.quorum.is_voter():
        update = update_voter_request(core)
        return None if update is None else (ApiKey.UPDATE_RAFT_VOTER, update)
    me = core.quorum.local_key
    if not core.config.auto_join or not core.local_endpoints or me.directory_id is None:
        return None
    old = core.quorum.voter_set.voters.get(me.id)
    if old is not None:  # this id with another directory: that replica is gone
        return ApiKey.REMOVE_RAFT_VOTER, RemoveRaftVoterRequest(
            cluster_id=core.cluster_id, voter_id=old.node_id, voter_directory_id=old.directory_id)
    return ApiKey.ADD_RAFT_VOTER, AddRaftVoterRequest(
        cluster_id=core.cluster_id, timeout_ms=core.config.request_timeout_ms, voter_id=me.id,
        voter_directory_id=me.directory_id,
        listeners=[AddRaftVoterRequest.Listener(name=e.name, host=e.host, port=e.port) for e in core.local_endpoints])


def handle_membership_response(core: RaftCore, response: UpdateRaftVoterResponse | AddRaftVoterResponse
                               | RemoveRaftVoterResponse, now_ms: int) -> bool:
    """The leader's answer to one of those: UpdateRaftVoter's epoch and leader are taken as
    any answer's (Kafka's ``handleUpdateVoterResponse``); the others are only logged. The
    follower asks again after the next period if need be."""
    error = ErrorCode.of_known(response.error_code)
    if isinstance(response, UpdateRaftVoterResponse):
        leader = response.current_leader
        handled = core._handle_common(error, None if leader.leader_id < 0 else leader.leader_id,
                                      leader.leader_epoch, now_ms)
        return True if handled is None else handled
    log.info("%s answered %s%s", type(response).__name__[:-8], error.name,
             f": {response.error_message}" if response.error_message else "")
    return error == ErrorCode.NONE


def high_watermark_updated(core: RaftCore, leader: LeaderState) -> None:
    """Complete the pending change once its VotersRecord is below the high watermark; a
    leader no longer in the committed set then asks to resign."""
    pending = core.pending_voter_change
    hw = leader.high_watermark
    if pending is None or pending.last_offset < 0 or hw is None or hw <= pending.last_offset:
        return
    core.pending_voter_change = None
    pending.complete(ErrorCode.NONE)
    if not pending.add and not core.voter_history.last_voter_set().is_voter(core.quorum.local_key):
        leader.resign_requested = True


def expire(core: RaftCore, now_ms: int) -> None:
    """A change that did not commit in time is answered REQUEST_TIMED_OUT (Kafka's
    ``maybeExpirePendingOperation``); the VotersRecord stays in the log."""
    pending = core.pending_voter_change
    if pending is not None and now_ms >= pending.deadline_ms:
        core.pending_voter_change = None
        pending.complete(ErrorCode.REQUEST_TIMED_OUT)


def leader_gone(core: RaftCore) -> None:
    """The node left the leader state: what was pending is answered NOT_LEADER_OR_FOLLOWER."""
    pending = core.pending_voter_change
    if pending is not None:
        core.pending_voter_change = None
        pending.complete(ErrorCode.NOT_LEADER_OR_FOLLOWER)


def start_of_epoch_records(core: RaftCore) -> list[KRaftVersionRecord | VotersRecord]:
    """With kraft.version 1, a leader writes the voters to the log when they come from the
    bootstrap snapshot only (offset -1) or its own listeners changed."""
    history = core.voter_history
    kraft_version = history.last_kraft_version()
    entry = history.last_voter_set_entry()
    if kraft_version < 1 or entry is None:
        return []
    voters = entry[1]
    me = voters.voters.get(core.node_id)
    updated = voters
    if me is not None and core.local_endpoints:
        local = Voter(me.node_id, me.directory_id, core.local_endpoints, me.kraft_versions)
        if voters.needs_update(local):
            updated = voters.update_voter(local) or voters
    if entry[0] != -1 and updated is voters:
        return []
    return [KRaftVersionRecord(version=0, k_raft_version=kraft_version), updated.to_voters_record()]


def _key_text(key: ReplicaKey) -> str:
    """Kafka's ``ReplicaKey.toString`` (the directory id as Kafka prints a Uuid)."""
    if key.directory_id is None:
        return f"ReplicaKey(id={key.id}, directoryId=<undefined>)"
    uuid = base64.urlsafe_b64encode(key.directory_id).rstrip(b"=").decode()
    return f"ReplicaKey(id={key.id}, directoryId={uuid})"


def _keys_text(keys: list[ReplicaKey]) -> str:
    """A Java set of keys as Kafka prints it: ``[ReplicaKey(...), ...]``."""
    return "[" + ", ".join(_key_text(k) for k in keys) + "]"


def _endpoints_text(endpoints: tuple[Endpoint, ...]) -> str:
    return ", ".join(f"{e.name}://{e.host}:{e.port}" for e in endpoints)
