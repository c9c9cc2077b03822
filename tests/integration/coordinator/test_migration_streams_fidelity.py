"""Online migration and Streams members in the corner cases Kafka 4.4's group coordinator
decides by reading more than the member's own state, the same raw requests to Apache
Kafka 4.4 and kafpy in the same test:

- a classic member inside a consumer group (KIP-848 online migration) waiting for a
  partition another member has not released yet hears NONE on its Heartbeat (not
  REBALANCE_IN_PROGRESS, which would make an eager member revoke everything again), and
  REBALANCE_IN_PROGRESS once the partition is free, so it rejoins and takes it;
- Streams static members (StreamsGroupHeartbeat with an InstanceId): rejoining at epoch 0
  while live, a leave naming another member id with a live instance id, and a static
  leave (epoch -2) while another member waits for the tasks it was giving up;
- a classic member told to rejoin must JoinGroup within its rebalance timeout, and SyncGroup
  within it after joining, or it is removed (its Heartbeat then hears UNKNOWN_MEMBER_ID);
- a Streams task moving between two threads (members) of one process: no thread is given
  it, in any role, while another thread of the process still holds it (Kafka 4.4's
  Streams CurrentAssignmentBuilder holds standby, warm-up and active tasks back), so two
  threads never fight over one task's state directory.
"""
from __future__ import annotations

import struct
import time
import uuid
from typing import Any, Callable, Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.codec import decode_data, encode_data
from tests.integration.broker.raw import RawConnection
from tests.integration.coordinator.test_consumer_heartbeat_fidelity import (
    RETRIABLE, _create_topic, _heartbeat, _owned)
from tests.support.kafka_dist import ReferenceKafka
from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK


@pytest.fixture(scope="module")
def brokers(reference_kafka: ReferenceKafka, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Apache Kafka 4.4: the session's reference broker (default settings, as this module
    needs; its topic and group names are its own); kafpy: the module's own broker."""
    base = tmp_path_factory.mktemp("migration-streams")
    ours = KafpyBroker(work_dir=base / "kafpy", start_timeout=150)
    ours.start()
    try:
        yield {"apache": reference_kafka, "kafpy": ours}
    finally:
        ours.stop()


def _until(what: str, step: Callable[[], Any], done: Callable[[Any], bool],
           timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        r = step()
        if done(r):
            return r
        assert time.monotonic() < deadline, (what, r)
        time.sleep(0.3)


def _subscription(topic: str) -> bytes:
    """A ConsumerProtocolSubscription v1 owning nothing (an eager member rejoining)."""
    S = M.ConsumerProtocolSubscription
    return struct.pack(">h", 1) + encode_data(S(topics=[topic], user_data=None,
                                                   owned_partitions=[]), 1)


def _assigned(data: bytes) -> list[int]:
    version = struct.unpack_from(">h", data, 0)[0]
    a = decode_data(M.ConsumerProtocolAssignment, min(version, 3), bytes(data[2:]))
    return sorted(p for tp in a.assigned_partitions for p in tp.partitions)


class ClassicMember:
    """A classic (JoinGroup/SyncGroup/Heartbeat) member speaking raw requests."""

    def __init__(self, conn: RawConnection, group: str, topic: str,
                 rebalance_timeout_ms: int = 30000) -> None:
        self.conn, self.group, self.topic = conn, group, topic
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.member_id, self.generation = "", -1

    def _retrying(self, api: int, version: int, body: Any) -> Any:
        deadline = time.monotonic() + 60
        while True:
            r = self.conn.request(api, version, body)
            if r.error_code not in RETRIABLE:
                return r
            self.conn.request(ApiKey.FIND_COORDINATOR, 4, M.FindCoordinatorRequest(
                key="", key_type=0, coordinator_keys=[self.group]))
            assert time.monotonic() < deadline, r
            time.sleep(0.2)

    def join(self) -> int:
        J = M.JoinGroupRequest
        while True:
            r = self._retrying(ApiKey.JOIN_GROUP, 9, J(
                group_id=self.group, session_timeout_ms=30000,
                rebalance_timeout_ms=self.rebalance_timeout_ms,
                member_id=self.member_id, group_instance_id=None, protocol_type="consumer",
                protocols=[J.JoinGroupRequestProtocol(name="range",
                                                      metadata=_subscription(self.topic))],
                reason=None))
            self.member_id = r.member_id or self.member_id
            if r.error_code != 79:          # MEMBER_ID_REQUIRED: again with the id given
                break
        self.generation = r.generation_id
        return int(r.error_code)

    def sync(self) -> tuple[int, list[int]]:
        r = self._retrying(ApiKey.SYNC_GROUP, 5, M.SyncGroupRequest(
            group_id=self.group, generation_id=self.generation, member_id=self.member_id,
            group_instance_id=None, protocol_type="consumer", protocol_name="range",
            assignments=[]))
        return int(r.error_code), _assigned(r.assignment) if r.assignment else []

    def heartbeat(self) -> int:
        r = self._retrying(ApiKey.HEARTBEAT, 4, M.HeartbeatRequest(
            group_id=self.group, generation_id=self.generation, member_id=self.member_id,
            group_instance_id=None))
        return int(r.error_code)


def _migration_scenario(port: int) -> list[object]:
    topic, group = "mig-hb-t", "mig-hb-group"
    H = M.ConsumerGroupHeartbeatRequest
    answers: list[object] = []
    with RawConnection(LOOPBACK, port, timeout=30) as conn:
        topic_id = _create_topic(conn, topic, 2)
        m1 = str(uuid.uuid4())
        epoch: list[int] = [0]
        held: list[int] = []

        def m1_beat(owned: list[int] | None = None) -> Any:
            fields: dict[str, Any] = {}
            if epoch[0] == 0:
                fields["subscribed_topic_names"] = [topic]
            elif owned is not None:
                fields["topic_partitions"] = [H.TopicPartitions(topic_id=topic_id, partitions=owned)]
            r = _heartbeat(conn, group, m1, epoch[0], **fields)
            assert r.error_code == 0, r
            epoch[0] = r.member_epoch
            if r.assignment is not None:
                held[:] = _owned(r)
            return r

        _until("m1 owns both", lambda: m1_beat(held), lambda _r: held == [0, 1])
        # Kafka 4.4 computes a new target at most once per group.consumer.assignment.interval.ms
        # (1 s): past it, the classic member's join computes the target it waits in
        time.sleep(1.5)
        c = ClassicMember(conn, group, topic)
        answers.append(("classic member joins", c.join()))
        answers.append(("its first sync", c.sync()))
        answers.append(("heartbeat waiting for m1", c.heartbeat()))
        # m1 hears it must give one up, and holds on to it for now
        _until("m1 asked to give one up", lambda: m1_beat(None), lambda _r: len(held) == 1)
        answers.append(("heartbeat while m1 still owns it", c.heartbeat()))
        answers.append(("again", c.heartbeat()))
        kept = list(held)
        m1_beat(kept)                                   # m1 released the other one
        answers.append(("heartbeat once it is free", c.heartbeat()))
        answers.append(("classic member rejoins", c.join()))
        error, got = c.sync()
        answers.append(("its sync", error, got == [1 - kept[0]]))
        answers.append(("heartbeat after", c.heartbeat()))
    return answers


def test_a_classic_member_waiting_for_an_unreleased_partition(brokers: dict[str, Any]) -> None:
    got = {name: _migration_scenario(broker.port) for name, broker in brokers.items()}
    assert got["kafpy"] == got["apache"], got
    assert got["apache"] == [
        ("classic member joins", 0), ("its first sync", (0, [])), ("heartbeat waiting for m1", 0),
        ("heartbeat while m1 still owns it", 0), ("again", 0), ("heartbeat once it is free", 27),
        ("classic member rejoins", 0), ("its sync", 0, True), ("heartbeat after", 0)], got


def _rejoin_timeout_scenario(port: int) -> list[object]:
    """Classic members with a 3 s rebalance timeout in a consumer group: one told to rejoin
    goes on heartbeating without rejoining; another joins and never syncs."""
    topic, group = "mig-late-t", "mig-late-group"
    answers: list[object] = []
    with RawConnection(LOOPBACK, port, timeout=30) as conn:
        topic_id = _create_topic(conn, topic, 2)
        m1 = str(uuid.uuid4())
        H = M.ConsumerGroupHeartbeatRequest
        epoch = 0
        held: list[int] = []

        def m1_beat() -> None:
            nonlocal epoch, held
            fields: dict[str, Any] = {"subscribed_topic_names": [topic]} if epoch == 0 else {
                "topic_partitions": [H.TopicPartitions(topic_id=topic_id, partitions=held)]}
            r1 = _heartbeat(conn, group, m1, epoch, **fields)
            assert r1.error_code == 0, r1
            epoch = r1.member_epoch
            if r1.assignment is not None:
                held = _owned(r1)

        _until("m1 owns both", m1_beat, lambda _r: held == [0, 1])
        time.sleep(1.5)                       # past Kafka's assignment interval
        late = ClassicMember(conn, group, topic, rebalance_timeout_ms=3000)
        answers.append(("joins", late.join(), late.sync()[0]))
        # its join found m1 owning both; m1 moves on and releases one
        heard: list[int] = []

        def heartbeat() -> int:
            m1_beat()
            error = late.heartbeat()
            if not heard or heard[-1] != error:
                heard.append(error)
            return error

        _until("told to rejoin", heartbeat, lambda e: e == 27, timeout=30)
        started = time.monotonic()
        _until("removed", heartbeat, lambda e: e != 27, timeout=20)
        waited = time.monotonic() - started
        # removed after its rebalance timeout (3 s), well before its session (30 s) ends
        answers.append(("heartbeats without rejoining", heard, 2.0 < waited < 15.0))
        never_syncs = ClassicMember(conn, group, topic, rebalance_timeout_ms=3000)
        answers.append(("another joins", never_syncs.join()))
        time.sleep(1.0)
        m1_beat()
        answers.append(("heartbeat before its sync is due", never_syncs.heartbeat() in (0, 27)))
        time.sleep(3.5)
        m1_beat()
        answers.append(("heartbeat once it is due", never_syncs.heartbeat()))
    return answers


def test_classic_members_must_rejoin_and_sync_within_their_rebalance_timeout(
        brokers: dict[str, Any]) -> None:
    got = {name: _rejoin_timeout_scenario(broker.port) for name, broker in brokers.items()}
    assert got["kafpy"] == got["apache"], got
    assert got["apache"] == [
        ("joins", 0, 0), ("heartbeats without rejoining", [0, 27, 25], True),
        ("another joins", 0), ("heartbeat before its sync is due", True),
        ("heartbeat once it is due", 25)], got


def _topology(source: str, stateful: bool = False) -> Any:
    Q = M.StreamsGroupHeartbeatRequest
    changelogs = [Q.TopicInfo(name=f"{source}-store-changelog", partitions=0, replication_factor=0,
                              topic_configs=[])] if stateful else []
    return Q.Topology(epoch=0, subtopologies=[Q.Subtopology(
        subtopology_id="0", source_topics=[source], source_topic_regex=[],
        state_changelog_topics=changelogs, repartition_sink_topics=[], repartition_source_topics=[],
        copartition_groups=[])])


class StreamsMember:
    """One Streams member speaking raw StreamsGroupHeartbeat v0; it reports what it holds
    and takes what it is given at once (so only the coordinator holds tasks back)."""

    def __init__(self, conn: RawConnection, group: str, topology: Any, process_id: str,
                 instance_id: str | None = None) -> None:
        self.conn, self.group, self.topology = conn, group, topology
        self.process_id, self.instance_id = process_id, instance_id
        self.member_id, self.epoch = str(uuid.uuid4()), 0
        self.active: list[int] = []
        self.standby: list[int] = []
        self.warmup: list[int] = []

    @staticmethod
    def _tasks(ids: list[int]) -> list[Any]:
        T = M.StreamsGroupHeartbeatRequest.TaskIds
        return [T(subtopology_id="0", partitions=sorted(ids))] if ids else []

    def request(self, epoch: int, member_id: str | None = None, report: bool = True) -> Any:
        """One heartbeat at `epoch` (retried while the coordinator is not ready)."""
        Q = M.StreamsGroupHeartbeatRequest
        joining = epoch == 0
        body = Q(group_id=self.group, member_id=member_id or self.member_id, member_epoch=epoch,
                 endpoint_information_epoch=-1, instance_id=self.instance_id, rack_id=None,
                 rebalance_timeout_ms=30000 if joining else -1,
                 topology=self.topology if joining else None,
                 process_id=self.process_id if joining else None, user_endpoint=None,
                 client_tags=[] if joining else None,
                 active_tasks=[] if joining else (self._tasks(self.active) if report else None),
                 standby_tasks=[] if joining else (self._tasks(self.standby) if report else None),
                 warmup_tasks=[] if joining else (self._tasks(self.warmup) if report else None))
        deadline = time.monotonic() + 60
        while True:
            r = self.conn.request(ApiKey.STREAMS_GROUP_HEARTBEAT, 0, body)
            if r.error_code not in RETRIABLE:
                return r
            self.conn.request(ApiKey.FIND_COORDINATOR, 4, M.FindCoordinatorRequest(
                key="", key_type=0, coordinator_keys=[self.group]))
            assert time.monotonic() < deadline, r
            time.sleep(0.2)

    def beat(self) -> Any:
        """A heartbeat as the member's own (taking what the answer gives it)."""
        r = self.request(self.epoch)
        assert r.error_code == 0, r
        self.epoch = r.member_epoch

        def ids(tasks: list[Any] | None, held: list[int]) -> list[int]:
            return held if tasks is None else sorted(p for t in tasks for p in t.partitions)
        self.active = ids(r.active_tasks, self.active)
        self.standby = ids(r.standby_tasks, self.standby)
        self.warmup = ids(r.warmup_tasks, self.warmup)
        return r


def _streams_static_scenario(port: int) -> list[tuple[object, ...]]:
    """A static Streams member: rejoining while live, a heartbeat and a leave naming another
    member id with its live instance id, and a static leave while the other member waits
    for the task it was giving up."""
    source, app = "st-static-in", "st-static-app"
    answers: list[tuple[object, ...]] = []
    with RawConnection(LOOPBACK, port, timeout=30) as conn:
        _create_topic(conn, source, 2)
        s1 = StreamsMember(conn, app, _topology(source), str(uuid.uuid4()), instance_id="i1")
        _until("s1 runs both tasks", s1.beat, lambda _r: s1.active == [0, 1])

        def answer(label: str, r: Any) -> None:
            answers.append((label, r.error_code, r.error_message))

        answer("s1 rejoins while live", s1.request(0))
        answer("heartbeat naming another member with i1", s1.request(s1.epoch, "another-member"))
        m2 = StreamsMember(conn, app, _topology(source), str(uuid.uuid4()))
        answers.append(("m2 joins", m2.beat().error_code))
        _until("s1 asked to give one up", s1.beat, lambda _r: len(s1.active) == 1)
        answer("leave naming another member with i1", s1.request(-1, "another-member"))
        answer("leave naming an unknown instance id", StreamsMember(
            conn, app, None, "", instance_id="i9").request(-1))
        answer("leave of no group", StreamsMember(conn, "st-static-nowhere", None, "").request(-1))
        r = s1.request(-2)
        answers.append(("s1 leaves for a while", r.error_code, r.member_epoch))
        # well before s1's session (45 s) would expire
        _until("m2 gets the task s1 gave up", m2.beat, lambda _r: len(m2.active) == 1, timeout=15)
        answers.append(("m2 got the task s1 gave up", m2.active != s1.active))
    return [tuple(a.replace(s1.member_id, "<s1>") if isinstance(a, str) else a for a in answer)
            for answer in answers]


def test_streams_static_members(brokers: dict[str, Any]) -> None:
    got = {name: _streams_static_scenario(broker.port) for name, broker in brokers.items()}
    assert got["kafpy"] == got["apache"], got
    fenced = "Static member another-member with instance id i1 was fenced by member <s1>."
    assert got["apache"] == [
        ("s1 rejoins while live", 111, "Static member <s1> with instance id i1 cannot join the group "
         "because the instance id is owned by <s1> member."),
        ("heartbeat naming another member with i1", 82, fenced), ("m2 joins", 0),
        ("leave naming another member with i1", 82, fenced),
        ("leave naming an unknown instance id", 25, "Instance id i9 is unknown."),
        ("leave of no group", 69, "Group st-static-nowhere not found."),
        ("s1 leaves for a while", 0, -2), ("m2 got the task s1 gave up", True)], got


def _same_process_scenario(port: int) -> list[tuple[object, ...]]:
    """One stateful task, one standby replica. Process P runs it; process Q's first thread
    keeps its standby copy; Q's second thread joins and P goes away: the task moves to Q.
    Every member takes what it is given at once and reports what it holds, so a task two
    threads of Q hold at once (state-directory locks fought over) shows in their answers."""
    source, app = "st-process-in", "st-process-app"
    answers: list[tuple[object, ...]] = []
    with RawConnection(LOOPBACK, port, timeout=30) as conn:
        _create_topic(conn, source, 1)
        A = M.IncrementalAlterConfigsRequest
        r = conn.request(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, A(validate_only=False, resources=[
            A.AlterConfigsResource(resource_type=32, resource_name=app, configs=[A.AlterableConfig(
                name="streams.num.standby.replicas", config_operation=0, value="1")])]))
        assert r.responses[0].error_code == 0, r
        topology = _topology(source, stateful=True)
        p, q = str(uuid.uuid4()), str(uuid.uuid4())
        a1 = StreamsMember(conn, app, topology, p)
        # member ids sorted so that a tie between Q's threads goes to the second one
        b1 = StreamsMember(conn, app, topology, q)
        b1.member_id = "z" + b1.member_id[1:]
        b2 = StreamsMember(conn, app, topology, q)
        b2.member_id = "a" + b2.member_id[1:]
        _until("P runs the task", a1.beat, lambda _r: a1.active == [0], timeout=90)
        _until("Q keeps a standby copy", lambda: (a1.beat(), b1.beat()),
               lambda _r: b1.standby == [0], timeout=60)
        b2.beat()
        answers.append(("P leaves", a1.request(-1).error_code))
        # past the assignment interval (1 s), the next heartbeat computes the new target
        time.sleep(1.5)
        overlaps: list[str] = []

        def q_beats() -> None:
            for m in (b2, b1):                      # the thread taking the task over first
                m.beat()
                if (set(b1.active) | set(b1.standby) | set(b1.warmup)) & (
                        set(b2.active) | set(b2.standby) | set(b2.warmup)):
                    overlaps.append(f"active {b1.active} {b2.active}, standby {b1.standby} {b2.standby}")

        _until("the task runs on Q", q_beats, lambda _r: (b1.active + b2.active) == [0])
        for _ in range(3):
            q_beats()
        answers.append(("Q's threads held the task at once", overlaps[:1]))
        answers.append(("the task runs on one thread of Q", sorted(b1.active + b2.active),
                        sorted(b1.standby + b2.standby)))
    return answers


def test_threads_of_one_process_never_hold_a_task_at_once(brokers: dict[str, Any]) -> None:
    got = {name: _same_process_scenario(broker.port) for name, broker in brokers.items()}
    assert got["kafpy"] == got["apache"], got
    assert got["apache"] == [
        ("P leaves", 0), ("Q's threads held the task at once", []),
        ("the task runs on one thread of Q", [0], [])], got
