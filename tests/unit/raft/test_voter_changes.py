"""KIP-853 in the sans-IO core: the voter-set history (bootstrap snapshot, VotersRecords of the
log, truncation of an uncommitted one), the leader writing the bootstrap voters at the start
of its epoch, and AddRaftVoter / RemoveRaftVoter / UpdateRaftVoter with Kafka's errors, over
simulated nodes whose quorum was formatted with initial controllers (kraft.version 1)."""
from __future__ import annotations

from pathlib import Path

from kafpy.metadata.bootstrap import BootstrapMetadata, write_bootstrap_snapshot
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AddRaftVoterRequest, ApiVersionsResponse, KRaftVersionRecord, RemoveRaftVoterRequest, UpdateRaftVoterRequest,
    UpdateRaftVoterResponse, VotersRecord,
)
from kafpy.raft import voter_changes
from kafpy.raft.control_records import ControlRecordType
from kafpy.raft.epoch_state import FollowerState
from kafpy.raft.leader_state import LeaderState
from kafpy.raft.memory_log import MemoryReplicatedLog, decode_control_payload
from kafpy.raft.metadata_log import KafkaMetadataLog
from kafpy.raft.quorum_config import QuorumConfig
from kafpy.raft.quorum_state_store import MemoryQuorumStateStore, ReplicaKey
from kafpy.raft.raft_core import RaftCore
from kafpy.raft.snapshot import SnapshotId
from kafpy.raft.voter_set import Endpoint, Voter, VoterSet
from kafpy.raft.voter_set_history import KRaftControlRecordStateMachine
from tests.unit.raft.sim import CLUSTER_ID, CheckedLog, Message, Simulation, leader_state

DIRS = {n: bytes([n]) * 16 for n in range(1, 6)}
LISTENER = "CONTROLLER"


def endpoint(node: int, port: int | None = None) -> tuple[Endpoint, ...]:
    return (Endpoint(LISTENER, "localhost", port or 9000 + node),)


def voter_set(*ids: int) -> VoterSet:
    return VoterSet({n: Voter(n, DIRS[n], endpoint(n), (0, 1)) for n in ids}, 1)


def bootstrap(log: MemoryReplicatedLog, ids: tuple[int, ...], kraft_version: int = 1) -> None:
    """What ``kafka-storage format --initial-controllers`` leaves: the 0-0 snapshot with the
    kraft.version and the voters."""
    head = MemoryReplicatedLog()
    head.append_control_records(0, [KRaftVersionRecord(version=0, k_raft_version=kraft_version),
                                    voter_set(*ids).to_voters_record()])
    log.snapshots[SnapshotId(0, 0)] = head.read_range(0, head.end_offset())


def dynamic_sim(voters: int = 3, observers: int = 1, seed: int = 1, kraft_version: int = 1,
                config: QuorumConfig = QuorumConfig()) -> Simulation:
    """Voters 1..n formatted with initial controllers; observers with no voters in their
    snapshot that find the leader through the voters (as bootstrap servers)."""
    sim = Simulation(voters, observers, seed, config=config)
    for node in sim.nodes.values():
        node.directory_id = DIRS[node.node_id]
        if node.node_id <= voters:
            bootstrap(node.log, tuple(range(1, voters + 1)), kraft_version)
        node.start(sim.now)
    assert sim.run_until(lambda: sim.has_stable_leader() and all(
        n.log.end_offset() == sim.leader().log.end_offset() for n in sim.nodes.values()  # type: ignore[union-attr]
    ), 20_000)
    sim.run(500)  # one more fetch each: the leader sees everyone at its end and moves the HW
    return sim


def leader_core(sim: Simulation) -> RaftCore:
    leader = sim.leader()
    assert leader is not None and leader.core is not None
    return leader.core


def add_request(node: int, directory: bytes | None = None, listener: str = LISTENER) -> AddRaftVoterRequest:
    return AddRaftVoterRequest(
        cluster_id=CLUSTER_ID, timeout_ms=30_000, voter_id=node,
        voter_directory_id=DIRS[node] if directory is None else directory,
        listeners=[AddRaftVoterRequest.Listener(name=listener, host="localhost", port=9000 + node)])


def remove_request(node: int, directory: bytes | None = None) -> RemoveRaftVoterRequest:
    return RemoveRaftVoterRequest(cluster_id=CLUSTER_ID, voter_id=node,
                                  voter_directory_id=DIRS[node] if directory is None else directory)


def answer_of(sim: Simulation, result: object, timeout_ms: int = 5_000) -> tuple[int, str | None]:
    """The error code (and message) of an answer given now or of a pending change once done."""
    if isinstance(result, voter_changes.PendingVoterChange):
        pending = result
        assert sim.run_until(lambda: pending.response is not None, timeout_ms)
        result = pending.response
    code = getattr(result, "error_code")
    return code, getattr(result, "error_message", None)


# -- the history -----------------------------------------------------------------------------

def test_history_reads_the_bootstrap_snapshot_then_the_log_and_forgets_a_truncated_voters_record() -> None:
    log = MemoryReplicatedLog()
    bootstrap(log, (1, 2, 3))
    history = KRaftControlRecordStateMachine(VoterSet.of_ids(frozenset({7})), log)
    history.update_state()
    assert history.last_kraft_version() == 1
    assert history.last_voter_set_entry() == (-1, voter_set(1, 2, 3).with_kraft_version(1))
    log.append_as_leader([b"a", b"b"], 1)
    history.skip_data(0, log.end_offset())
    log.append_control_records(1, [voter_set(1, 2, 3, 4).to_voters_record()])  # offset 2
    log.append_as_leader([b"c"], 1)
    assert history.update_state()  # the new set
    assert history.last_voter_set().ids() == {1, 2, 3, 4} and history.last_voter_set_offset() == 2
    assert history.voter_set_at(1).ids() == {1, 2, 3}
    assert history.voter_set_at(2).ids() == {1, 2, 3, 4}
    log.truncate_to(2)  # the VotersRecord was not committed: gone with the truncation
    history.truncate_new_entries(2)
    assert history.last_voter_set().ids() == {1, 2, 3} and history.last_voter_set_offset() == -1
    assert not history.update_state()


def test_without_voters_records_the_static_voters_at_kraft_version_0() -> None:
    history = KRaftControlRecordStateMachine(VoterSet.of_ids(frozenset({1, 2, 3})), MemoryReplicatedLog())
    history.update_state()
    assert history.last_voter_set().ids() == {1, 2, 3}
    assert history.last_kraft_version() == 0 and history.last_voter_set_entry() is None


def test_the_first_leader_writes_the_bootstrap_voters_into_its_epoch_start_batch() -> None:
    sim = dynamic_sim(observers=0)
    leader = sim.leader()
    assert leader is not None
    controls = [decode_control_payload(e.payload) for e in leader.log.entries if e.control]
    types = [c.type for c in controls]
    assert types[:3] == [ControlRecordType.LEADER_CHANGE, ControlRecordType.KRAFT_VERSION,
                         ControlRecordType.KRAFT_VOTERS]
    assert types.count(ControlRecordType.KRAFT_VOTERS) == 1  # later leaders find it in the log
    voters = controls[2].message
    assert isinstance(voters, VotersRecord)
    assert VoterSet.from_voters_record(voters, 1) == voter_set(1, 2, 3)
    for node in sim.nodes.values():  # replicated: every node reads the set from its log
        assert node.core is not None and node.core.voter_history.last_voter_set_offset() == 2


def test_a_static_quorum_writes_no_voters() -> None:
    sim = Simulation(3, seed=2)
    assert sim.run_until(sim.has_stable_leader, 20_000)
    leader = sim.leader()
    assert leader is not None
    assert [decode_control_payload(e.payload).type for e in leader.log.entries if e.control] == [
        ControlRecordType.LEADER_CHANGE]


# -- AddRaftVoter ----------------------------------------------------------------------------

def test_an_observer_that_caught_up_is_added_and_votes_afterwards() -> None:
    sim = dynamic_sim()
    core = leader_core(sim)
    observer = sim.nodes[4]
    assert observer.core is not None and not observer.core.quorum.is_voter()
    assert 4 in leader_state(sim.leader()).observer_states  # type: ignore[arg-type]
    result = voter_changes.handle_add_voter(core, add_request(4), sim.now)
    assert isinstance(result, voter_changes.PendingVoterChange)
    assert core.quorum.voters == {1, 2, 3}  # not before node 4 answered ApiVersions
    assert sim.run_until(lambda: result.last_offset >= 0 or result.response is not None, 1_000)
    assert core.quorum.voters == {1, 2, 3, 4}  # then at once, uncommitted
    assert answer_of(sim, result) == (0, None)
    hw_now = core.high_watermark()
    assert hw_now is not None and hw_now > result.last_offset
    assert sorted(leader_state(sim.leader()).voter_states) == [1, 2, 3, 4]  # type: ignore[arg-type]
    assert observer.core.quorum.is_voter()
    # node 4 now counts: with two voters down, no majority of four remains
    leader = sim.leader()
    assert leader is not None
    others = [n for n in (1, 2, 3) if n != leader.node_id]
    sim.partition({leader.node_id, 4}, set(others))
    hw = core.high_watermark()
    core.append([b"x"], sim.now)
    sim.run(500)
    assert core.high_watermark() == hw  # 2 of 4 is no majority
    sim.heal()
    assert sim.run_until(lambda: (core.high_watermark() or 0) > (hw or 0) or not core.is_leader(), 10_000)


def test_add_voter_errors_as_kafka() -> None:
    sim = dynamic_sim(observers=2)
    core = leader_core(sim)
    follower = next(n.core for n in sim.nodes.values() if n.core and not n.core.is_leader()
                    and n.core.quorum.is_voter())
    assert follower is not None
    assert answer_of(sim, voter_changes.handle_add_voter(follower, add_request(4), sim.now))[0] == \
        ErrorCode.NOT_LEADER_OR_FOLLOWER
    bad_cluster = add_request(4)
    bad_cluster.cluster_id = "other"
    assert answer_of(sim, voter_changes.handle_add_voter(core, bad_cluster, sim.now))[0] == \
        ErrorCode.INCONSISTENT_CLUSTER_ID
    assert answer_of(sim, voter_changes.handle_add_voter(core, add_request(4, bytes(16)), sim.now)) == (
        ErrorCode.INVALID_REQUEST, "Add voter request didn't include a valid voter")
    code, message = answer_of(sim, voter_changes.handle_add_voter(core, add_request(4, listener="OTHER"), sim.now))
    assert code == ErrorCode.INVALID_REQUEST and message is not None and "default listener CONTROLLER" in message
    code, message = answer_of(sim, voter_changes.handle_add_voter(core, add_request(2), sim.now))
    assert code == ErrorCode.DUPLICATE_VOTER and message is not None and "already part of the set" in message
    # an observer fetching with another directory is not the replica asked for
    code, message = answer_of(sim, voter_changes.handle_add_voter(core, add_request(4, DIRS[5]), sim.now))
    assert code == ErrorCode.REQUEST_TIMED_OUT and message is not None and "lagging behind" in message
    # one change at a time
    pending = voter_changes.handle_add_voter(core, add_request(4), sim.now)
    assert isinstance(pending, voter_changes.PendingVoterChange)
    code, message = answer_of(sim, voter_changes.handle_add_voter(core, add_request(5), sim.now))
    assert code == ErrorCode.REQUEST_TIMED_OUT and message is not None and "previous voter change" in message
    assert answer_of(sim, pending)[0] == ErrorCode.NONE


def test_add_voter_asks_the_new_voter_for_its_kraft_version_range() -> None:
    """Kafka's AddVoterHandler: an ApiVersions error aborts with REQUEST_TIMED_OUT, a range
    without the finalized kraft.version with INVALID_REQUEST; the range is recorded."""
    sim = dynamic_sim(observers=2)
    core = leader_core(sim)
    sim.api_versions[4] = ApiVersionsResponse(error_code=int(ErrorCode.UNSUPPORTED_VERSION))
    assert answer_of(sim, voter_changes.handle_add_voter(core, add_request(4), sim.now)) == (
        ErrorCode.REQUEST_TIMED_OUT, "Aborted add voter operation for since API_VERSIONS returned an error "
        "UNSUPPORTED_VERSION")
    sim.api_versions[4] = ApiVersionsResponse(error_code=0)  # no kraft.version feature at all
    code, message = answer_of(sim, voter_changes.handle_add_voter(core, add_request(4), sim.now))
    assert code == ErrorCode.INVALID_REQUEST and message is not None
    assert message.endswith("since the kraft.version range (min: 0, max: 0) doesn't support the finalized version 1")
    sim.api_versions[5] = ApiVersionsResponse(error_code=0, supported_features=[
        ApiVersionsResponse.SupportedFeatureKey(name="kraft.version", min_version=1, max_version=3)])
    assert answer_of(sim, voter_changes.handle_add_voter(core, add_request(5), sim.now)) == (0, None)
    assert core.quorum.voter_set.voters[5].kraft_versions == (1, 3)
    assert 4 not in core.quorum.voters


def test_add_voter_v1_without_ack_when_committed_answers_once_appended() -> None:
    """AddRaftVoter v1 with AckWhenCommitted false (Kafka's AddVoterHandler): answered NONE as
    soon as the VotersRecord is in the leader's log, before it commits; the change stays
    pending, so another waits, until the high watermark passes it."""
    sim = dynamic_sim(observers=2)
    core = leader_core(sim)
    request = add_request(4)
    request.ack_when_committed = False
    pending = voter_changes.handle_add_voter(core, request, sim.now)
    assert isinstance(pending, voter_changes.PendingVoterChange)
    assert sim.run_until(lambda: pending.last_offset >= 0, 5_000)
    assert pending.response is not None and pending.response.error_code == ErrorCode.NONE
    hw = core.high_watermark()
    assert hw is not None and hw <= pending.last_offset    # answered before the commit
    assert core.pending_voter_change is pending
    code, message = answer_of(sim, voter_changes.handle_add_voter(core, add_request(5), sim.now))
    assert code == ErrorCode.REQUEST_TIMED_OUT and message is not None and "previous voter change" in message
    assert sim.run_until(lambda: core.pending_voter_change is None, 5_000)
    assert 4 in core.quorum.voters
    # v0, or true: answered only once committed
    committed = voter_changes.handle_add_voter(core, add_request(5), sim.now)
    assert isinstance(committed, voter_changes.PendingVoterChange)
    assert sim.run_until(lambda: committed.last_offset >= 0, 5_000)
    assert committed.response is None or (core.high_watermark() or 0) > committed.last_offset
    assert answer_of(sim, committed)[0] == ErrorCode.NONE


def test_add_voter_needs_kraft_version_1() -> None:
    sim = dynamic_sim(kraft_version=0)
    code, message = answer_of(sim, voter_changes.handle_add_voter(leader_core(sim), add_request(4), sim.now))
    assert code == ErrorCode.UNSUPPORTED_VERSION
    assert message == "Cluster doesn't support adding voter because the kraft.version feature is 0"


def test_a_change_that_cannot_commit_times_out() -> None:
    sim = dynamic_sim()
    core = leader_core(sim)
    leader = sim.leader()
    assert leader is not None
    sim.partition({leader.node_id}, {n for n in sim.nodes if n != leader.node_id})
    pending = voter_changes.handle_remove_voter(core, remove_request(next(n for n in (1, 2, 3) if n != leader.node_id)),
                                                sim.now)
    assert isinstance(pending, voter_changes.PendingVoterChange)
    assert answer_of(sim, pending, 10_000)[0] in (ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NOT_LEADER_OR_FOLLOWER)


def test_an_uncommitted_voters_record_is_truncated_away_with_the_old_leaders_epoch() -> None:
    sim = dynamic_sim()
    old = sim.leader()
    assert old is not None and old.core is not None
    core = old.core
    sim.partition({old.node_id, 4}, {n for n in sim.nodes if n not in (old.node_id, 4)})
    pending = voter_changes.handle_add_voter(core, add_request(4), sim.now)
    assert isinstance(pending, voter_changes.PendingVoterChange)
    assert sim.run_until(lambda: pending.last_offset >= 0, 1_000)  # node 4 answered ApiVersions
    assert core.quorum.voters == {1, 2, 3, 4}
    assert sim.run_until(lambda: any(n.core and n.core.is_leader() and n is not old for n in sim.nodes.values()),
                         20_000)
    sim.heal()
    assert sim.run_until(lambda: old.core is not None and not old.core.is_leader()
                         and old.log.last_fetched_epoch() == leader_core(sim).epoch, 20_000)
    assert pending.response is not None and pending.response.error_code in (
        ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.REQUEST_TIMED_OUT)
    assert old.core.quorum.voters == {1, 2, 3}  # the record went with the truncation
    assert old.core.voter_history.last_voter_set_offset() == 2


# -- RemoveRaftVoter -------------------------------------------------------------------------

def test_a_removed_follower_becomes_an_observer() -> None:
    sim = dynamic_sim()
    core = leader_core(sim)
    gone = next(n for n in (1, 2, 3) if n != core.node_id)
    assert answer_of(sim, voter_changes.handle_remove_voter(core, remove_request(gone, DIRS[4]), sim.now))[0] == \
        ErrorCode.VOTER_NOT_FOUND
    assert answer_of(sim, voter_changes.handle_remove_voter(core, remove_request(gone), sim.now)) == (0, None)
    assert core.quorum.voters == {1, 2, 3} - {gone}
    removed = sim.nodes[gone].core
    assert removed is not None and not removed.quorum.is_voter()
    sim.run(3_000)  # it never starts an election: the leader stays
    assert removed.quorum.leader_id() == core.node_id and core.is_leader()
    assert gone in leader_state(sim.leader()).observer_states  # type: ignore[arg-type]


def test_a_leader_that_removes_itself_resigns_once_committed() -> None:
    sim = dynamic_sim()
    core = leader_core(sim)
    me = core.node_id
    epoch = core.epoch
    assert answer_of(sim, voter_changes.handle_remove_voter(core, remove_request(me), sim.now)) == (0, None)
    assert sim.run_until(lambda: sim.leader() is not None and sim.leader().node_id != me, 20_000)  # type: ignore[union-attr]
    new = leader_core(sim)
    assert new.epoch > epoch and new.quorum.voters == {1, 2, 3} - {me}
    assert not core.quorum.is_voter()


# -- UpdateRaftVoter -------------------------------------------------------------------------

def test_update_voter_records_new_listeners_at_once() -> None:
    sim = dynamic_sim(observers=0)
    core = leader_core(sim)
    other = next(n for n in (1, 2, 3) if n != core.node_id)

    def update(epoch: int, low: int = 0, high: int = 1) -> UpdateRaftVoterResponse:
        return voter_changes.handle_update_voter(core, UpdateRaftVoterRequest(
            cluster_id=CLUSTER_ID, current_leader_epoch=epoch, voter_id=other, voter_directory_id=DIRS[other],
            listeners=[UpdateRaftVoterRequest.Listener(name=LISTENER, host="localhost", port=19000)],
            k_raft_version_feature=UpdateRaftVoterRequest.KRaftVersionFeature(
                min_supported_version=low, max_supported_version=high)), sim.now)

    assert update(core.epoch - 1).error_code == ErrorCode.FENCED_LEADER_EPOCH
    assert update(core.epoch + 1).error_code == ErrorCode.UNKNOWN_LEADER_EPOCH
    assert update(core.epoch, 1, 0).error_code == ErrorCode.INVALID_REQUEST
    answer = update(core.epoch)
    assert answer.error_code == 0
    assert (answer.current_leader.leader_id, answer.current_leader.leader_epoch) == (core.node_id, core.epoch)
    assert answer.current_leader.port == 9000 + core.node_id
    assert core.quorum.voter_set.voters[other].endpoints == endpoint(other, 19000)
    assert update(core.epoch).error_code == ErrorCode.REQUEST_TIMED_OUT  # the last one is not committed yet
    assert isinstance(core.quorum.state, LeaderState)
    sim.run(500)
    assert all(n.core is not None and n.core.quorum.voter_set.voters[other].endpoints == endpoint(other, 19000)
               for n in sim.nodes.values())
    assert ReplicaKey(other, DIRS[other]) in core.quorum.voter_set.voter_keys()


def test_a_voter_whose_listeners_changed_sends_update_raft_voter() -> None:
    """A follower restarted on another port finds its old listener in the voter set and, after
    a fetch timeout, sends UpdateRaftVoter; every node then has the new endpoint."""
    sim = dynamic_sim(observers=0)
    leader = leader_core(sim)
    moved = sim.nodes[next(n for n in (1, 2, 3) if n != leader.node_id)]
    moved.crash()
    moved.local_endpoints = endpoint(moved.node_id, 19999)
    moved.start(sim.now)
    sent: list[Message] = []
    sim.delivered = sent
    assert sim.run_until(lambda: all(
        n.core is not None and n.core.quorum.voter_set.voters[moved.node_id].endpoints == endpoint(moved.node_id, 19999)
        for n in sim.nodes.values()), 20_000)
    assert any(isinstance(m.request, UpdateRaftVoterRequest) for m in sent)
    sent.clear()
    sim.run(int(QuorumConfig().fetch_timeout_ms * 4))  # listeners now match: no more updates
    assert not any(isinstance(m.request, UpdateRaftVoterRequest) for m in sent)


def test_auto_join_adds_an_observer_controller_by_itself() -> None:
    """``controller.quorum.auto.join.enable``: an observer that has listeners and a directory id
    sends AddRaftVoter for itself (instead of a Fetch, every fetch timeout) until it is a
    voter; without the setting it stays an observer."""
    config = QuorumConfig(auto_join=True)
    sim = Simulation(3, 1, seed=4, config=config)
    for node in sim.nodes.values():
        node.directory_id = DIRS[node.node_id]
        node.local_endpoints = endpoint(node.node_id)
        if node.node_id <= 3:
            bootstrap(node.log, (1, 2, 3))
        node.start(sim.now)
    observer = sim.nodes[4]
    assert sim.run_until(lambda: observer.core is not None and observer.core.quorum.is_voter(), 30_000)
    core = leader_core(sim)
    assert core.quorum.voters == {1, 2, 3, 4}
    assert core.quorum.voter_set.voters[4].endpoints == endpoint(4)

    plain = dynamic_sim(seed=5)
    plain.run(int(QuorumConfig().fetch_timeout_ms * 4))
    assert leader_core(plain).quorum.voters == {1, 2, 3}


def test_auto_join_removes_an_older_incarnation_of_its_id_first() -> None:
    """Node 3 comes back with a new directory (its disk was replaced): with auto join it first
    removes the voter 3 of the old directory, then adds itself."""
    sim = Simulation(3, 0, seed=6, config=QuorumConfig(auto_join=True))
    for node in sim.nodes.values():
        node.directory_id = DIRS[node.node_id]
        node.local_endpoints = endpoint(node.node_id)
        bootstrap(node.log, (1, 2, 3))
        node.start(sim.now)
    assert sim.run_until(sim.has_stable_leader, 20_000)
    leader = leader_core(sim)
    replaced = sim.nodes[next(n for n in (1, 2, 3) if n != leader.node_id)]
    replaced.crash()
    replaced.log = CheckedLog()  # a new disk: empty log, no bootstrap voters
    replaced.store = MemoryQuorumStateStore()
    replaced.directory_id = DIRS[5]
    replaced.start(sim.now)
    new_key = ReplicaKey(replaced.node_id, DIRS[5])
    assert sim.run_until(lambda: new_key in leader_core(sim).quorum.voter_set.voter_keys(), 60_000)
    assert ReplicaKey(replaced.node_id, DIRS[replaced.node_id]) not in leader_core(sim).quorum.voter_set.voter_keys()


def test_history_on_the_on_disk_log_from_the_bootstrap_snapshot_and_after_reopening(tmp_path: Path) -> None:
    """KafkaMetadataLog: the bootstrap snapshot's voters at -1 (read from the file's header
    batch), a VotersRecord appended as a control batch, the same history after reopening the
    directory, and a truncated VotersRecord forgotten."""
    def clock() -> int:
        return 1_700_000_000_000

    write_bootstrap_snapshot(tmp_path, BootstrapMetadata.from_versions(27, {}, "test"), kraft_version=1,
                             voters=voter_set(1, 2, 3).to_voters_record(), now_ms=clock)
    mlog = KafkaMetadataLog(tmp_path, now_ms=clock)
    history = KRaftControlRecordStateMachine(VoterSet({}, 0), mlog)
    history.update_state()
    assert history.last_voter_set_entry() == (-1, voter_set(1, 2, 3))
    mlog.append_as_leader([b"x"], 1)  # a data batch: skipped by its header
    mlog.append_control_records(1, [voter_set(1, 2, 3, 4).to_voters_record()])
    assert history.update_state() and history.last_voter_set_offset() == 1
    mlog.flush()
    mlog.close()
    reopened = KafkaMetadataLog(tmp_path, now_ms=clock)
    again = KRaftControlRecordStateMachine(VoterSet({}, 0), reopened)
    again.update_state()
    assert again.last_voter_set().ids() == {1, 2, 3, 4} and again.last_kraft_version() == 1
    assert again.voter_set_at(0).ids() == {1, 2, 3}
    reopened.truncate_to(1)
    again.truncate_new_entries(1)
    assert again.last_voter_set().ids() == {1, 2, 3} and again.last_voter_set_offset() == -1
    reopened.close()


def test_a_removed_leader_restarts_as_an_observer() -> None:
    """The quorum-state file of a leader (or a candidate) that was removed since: it starts
    Unattached in that epoch, follows the new leader and never runs for election."""
    sim = dynamic_sim(observers=0)
    old = leader_core(sim)
    me = old.node_id
    assert answer_of(sim, voter_changes.handle_remove_voter(old, remove_request(me), sim.now)) == (0, None)
    node = sim.nodes[me]
    node.crash()  # at once: its file still says it leads
    node.start(sim.now)
    assert node.core is not None and not node.core.quorum.is_voter() and not node.core.is_leader()
    assert node.core.quorum.leader_id() is None
    def following_another_leader() -> bool:
        leader = sim.leader()
        return (leader is not None and leader.node_id != me and node.core is not None
                and node.core.quorum.leader_id() == leader.node_id)
    assert sim.run_until(following_another_leader, 20_000)


def test_the_membership_check_comes_every_fetch_timeout() -> None:
    """Kafka 4.4's FollowerState: its updateVoterSetPeriodTimer runs one fetch timeout (three
    in Kafka 3.9), from the start of the follower's epoch and again after each check."""
    state = FollowerState(epoch=3, leader_id=1, voted_key=None, fetch_timeout_ms=2000, fetch_deadline=12_000)
    assert not state.update_voter_period_expired(11_999)
    assert state.update_voter_period_expired(12_000)
    state.reset_update_voter_period(12_000)
    assert not state.update_voter_period_expired(13_999)
    assert state.update_voter_period_expired(14_000)
