"""ConsumerGroupHeartbeat's validation and error codes, the same raw requests to Apache
Kafka 4.4 and kafpy in the same test, as Kafka 4.4's group coordinator answers them:

- a join (epoch 0) with a non-empty TopicPartitions list is INVALID_REQUEST;
- an epoch above 0 for a group that does not exist is GROUP_ID_NOT_FOUND;
- an empty InstanceId or RackId is INVALID_REQUEST;
- OffsetCommit v8 from a consumer-protocol member is UNSUPPORTED_VERSION (v9 commits);
- a member leaving moves the group epoch once: the next heartbeats of the member left
  behind do not bump it again (the leave writes the hash of what the others subscribe to);
- an OffsetCommit at the member's previous epoch, after it moved on keeping a partition, is
  taken for the partition kept and STALE_MEMBER_EPOCH for the one given up (KIP-1251);
- static members: rejoining at epoch 0 while live is UNRELEASED_INSTANCE_ID, a leave naming
  another member id with a live instance id is FENCED_INSTANCE_ID (the owner stays), and a
  static leave hands what the member was giving up to the member waiting for it at once;
- static members closed without leaving expire on time: DeleteGroups 3 s after their
  session timeout finds the group empty and deletes it;
- a Streams application restarted with another topology (at the topology epoch 0 that 4.4
  clients always send) is INVALID_REQUEST "Topology updates are not supported yet.".
"""
from __future__ import annotations

import time
import uuid
from typing import Any, Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from tests.integration.broker.raw import RawConnection
from tests.integration.cluster.harness import wait_until
from tests.support.side_by_side import apache_and_kafpy
from tests.support.ports import LOOPBACK

RETRIABLE = (14, 15, 16)     # the group coordinator is loading, moving or not there yet
# groups may lower their session timeout to 6 s (consumer.session.timeout.ms); the others
# keep the default 45 s
SETTINGS = {"group.consumer.min.session.timeout.ms": 6000}
EXPIRY_SESSION_MS = 6000


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    yield from apache_and_kafpy(tmp_path_factory.mktemp("cg-heartbeat"), SETTINGS)


def _create_topic(conn: RawConnection, topic: str, partitions: int) -> Any:
    T = M.CreateTopicsRequest
    r = conn.request(ApiKey.CREATE_TOPICS, 7, T(timeout_ms=30000, validate_only=False, topics=[
        T.CreatableTopic(name=topic, num_partitions=partitions, replication_factor=1,
                         assignments=[], configs=[])]))
    assert r.topics[0].error_code == 0, r.topics[0]
    return r.topics[0].topic_id


def _heartbeat(conn: RawConnection, group: str, member_id: str, epoch: int, **fields: Any) -> Any:
    """One ConsumerGroupHeartbeat v1, retried while the coordinator is not ready."""
    H = M.ConsumerGroupHeartbeatRequest
    body = {"group_id": group, "member_id": member_id, "member_epoch": epoch, "instance_id": None,
            "rack_id": None, "rebalance_timeout_ms": 30000 if epoch == 0 else -1,
            "subscribed_topic_names": None, "subscribed_topic_regex": None,
            "server_assignor": None, "topic_partitions": [] if epoch == 0 else None, **fields}
    deadline = time.monotonic() + 60
    while True:
        r = conn.request(ApiKey.CONSUMER_GROUP_HEARTBEAT, 1, H(**body))
        if r.error_code not in RETRIABLE:
            return r
        conn.request(ApiKey.FIND_COORDINATOR, 4, M.FindCoordinatorRequest(
            key="", key_type=0, coordinator_keys=[group]))
        assert time.monotonic() < deadline, r
        time.sleep(0.2)


def _commit(conn: RawConnection, version: int, group: str, member_id: str, epoch: int,
            topic: str, partition: int = 0) -> int:
    C = M.OffsetCommitRequest
    r = conn.request(ApiKey.OFFSET_COMMIT, version, C(
        group_id=group, generation_id_or_member_epoch=epoch, member_id=member_id,
        group_instance_id=None, retention_time_ms=-1, topics=[C.OffsetCommitRequestTopic(
            name=topic, partitions=[C.OffsetCommitRequestPartition(
                partition_index=partition, committed_offset=0, committed_leader_epoch=-1,
                commit_timestamp=-1, committed_metadata="")])]))
    return r.topics[0].partitions[0].error_code


def _group_epoch(conn: RawConnection, group: str) -> int:
    r = conn.request(ApiKey.CONSUMER_GROUP_DESCRIBE, 0, M.ConsumerGroupDescribeRequest(
        group_ids=[group], include_authorized_operations=False))
    assert r.groups[0].error_code == 0, r
    return int(r.groups[0].group_epoch)


def _scenario(port: int) -> list[object]:
    t, u, group = "cg-hb-t", "cg-hb-u", "cg-hb-group"
    answers: list[object] = []
    with RawConnection(LOOPBACK, port, timeout=30) as conn:
        t_id = _create_topic(conn, t, 2)
        _create_topic(conn, u, 1)
        H = M.ConsumerGroupHeartbeatRequest
        m1, m2 = str(uuid.uuid4()), str(uuid.uuid4())

        def answer(label: str, r: Any) -> None:
            answers.append((label, r.error_code, r.error_message))

        answer("join owning partitions", _heartbeat(
            conn, group, m1, 0, subscribed_topic_names=[t],
            topic_partitions=[H.TopicPartitions(topic_id=t_id, partitions=[0])]))
        answer("epoch 3 in no group", _heartbeat(conn, "cg-hb-nowhere", m1, 3))
        answer("leave of no group", _heartbeat(conn, "cg-hb-nowhere", m1, -1))
        answer("empty instance id", _heartbeat(conn, group, m1, 0, subscribed_topic_names=[t],
                                               instance_id=""))
        answer("empty rack id", _heartbeat(conn, group, m1, 0, subscribed_topic_names=[t],
                                           rack_id=""))
        r1 = _heartbeat(conn, group, m1, 0, subscribed_topic_names=[t])
        answers.append(("m1 joins", r1.error_code))
        answers.append(("commit v8", _commit(conn, 8, group, m1, r1.member_epoch, t)))
        answers.append(("commit v9", _commit(conn, 9, group, m1, r1.member_epoch, t)))
        # How far the group epoch moves from here (Kafka 4.4 computes target assignments
        # on its own schedule, so member epochs are not compared).
        first = _group_epoch(conn, group)
        r2 = _heartbeat(conn, group, m2, 0, subscribed_topic_names=[u])
        answers.append(("m2 joins", r2.error_code, _group_epoch(conn, group) - first))
        r1 = _heartbeat(conn, group, m1, r1.member_epoch)
        answers.append(("m1 follows", r1.error_code, _group_epoch(conn, group) - first))
        r2 = _heartbeat(conn, group, m2, -1)
        answers.append(("m2 leaves", r2.error_code, r2.member_epoch, _group_epoch(conn, group) - first))
        for _ in range(2):
            r1 = _heartbeat(conn, group, m1, r1.member_epoch)
            answers.append(("m1 after the leave", r1.error_code, _group_epoch(conn, group) - first))
    return answers


def test_heartbeat_validation_and_error_codes(brokers: dict[str, Any]) -> None:
    got = {name: _scenario(broker.port) for name, broker in brokers.items()}
    assert got["kafpy"] == got["apache"], got
    joining = "TopicPartitions must be empty when (re-)joining."
    assert got["apache"] == [
        ("join owning partitions", 42, joining),
        ("epoch 3 in no group", 69, "Consumer group cg-hb-nowhere not found."),
        ("leave of no group", 69, "Group cg-hb-nowhere not found."),
        ("empty instance id", 42, "InstanceId can't be empty."),
        ("empty rack id", 42, "RackId can't be empty."),
        ("m1 joins", 0), ("commit v8", 35), ("commit v9", 0),
        ("m2 joins", 0, 1), ("m1 follows", 0, 1), ("m2 leaves", 0, -1, 2),
        ("m1 after the leave", 0, 2), ("m1 after the leave", 0, 2)], got


def _owned(r: Any) -> list[int]:
    return sorted(p for tp in r.assignment.topic_partitions for p in tp.partitions) \
        if r.assignment is not None else []


def _previous_epoch_scenario(port: int) -> list[object]:
    topic, group = "cg-hb-kept", "cg-hb-kept-group"
    H = M.ConsumerGroupHeartbeatRequest
    with RawConnection(LOOPBACK, port, timeout=30) as conn:
        topic_id = _create_topic(conn, topic, 2)
        m1, m2 = str(uuid.uuid4()), str(uuid.uuid4())

        def beat(member: str, epoch: int, owned: list[int] | None = None) -> Any:
            r = _heartbeat(conn, group, member, epoch, **({} if owned is None else {
                "topic_partitions": [H.TopicPartitions(topic_id=topic_id, partitions=owned)]}))
            assert r.error_code == 0, r
            return r

        def until(what: str, step: Any, done: Any) -> Any:
            deadline = time.monotonic() + 60
            while True:
                r = step()
                if done(r):
                    return r
                assert time.monotonic() < deadline, what
                time.sleep(0.3)

        r1 = _heartbeat(conn, group, m1, 0, subscribed_topic_names=[topic])
        # Kafka's coordinator may see the new topic a little later (one more epoch): the
        # epoch m1 settles at, owning both partitions, is the one the commits refer to
        seen: list[tuple[int, list[int]]] = [(r1.member_epoch, _owned(r1))]

        def settle() -> Any:
            epoch, held = seen[-1]
            r = beat(m1, epoch, held)
            seen.append((r.member_epoch, held if r.assignment is None else _owned(r)))
            return r

        until("m1 settles owning both", settle,
              lambda r: len(seen) >= 4 and seen[-1] == seen[-2] == seen[-3] and seen[-1][1] == [0, 1])
        first, held = seen[-1]
        _heartbeat(conn, group, m2, 0, subscribed_topic_names=[topic])
        r1 = until("m1 asked to give one up", lambda: beat(m1, first, held),
                   lambda r: r.assignment is not None and len(_owned(r)) == 1)
        kept = _owned(r1)
        r1 = until("m1 moves on", lambda: beat(m1, first, kept), lambda r: r.member_epoch > first)
        given_up = 1 - kept[0]
        return [("m1 moved on keeping one", len(kept), _owned(r1) in ([], kept)),
                ("commit kept at the previous epoch", _commit(conn, 9, group, m1, first, topic, kept[0])),
                ("commit given up at the previous epoch",
                 _commit(conn, 9, group, m1, first, topic, given_up)),
                ("commit kept at the current epoch",
                 _commit(conn, 9, group, m1, r1.member_epoch, topic, kept[0]))]


def test_commit_at_the_previous_epoch_for_a_partition_kept(brokers: dict[str, Any]) -> None:
    got = {name: _previous_epoch_scenario(broker.port) for name, broker in brokers.items()}
    assert got["kafpy"] == got["apache"], got
    assert got["apache"] == [
        ("m1 moved on keeping one", 1, True), ("commit kept at the previous epoch", 0),
        ("commit given up at the previous epoch", 113), ("commit kept at the current epoch", 0)], got


def _streams_scenario(port: int) -> list[object]:
    """A Streams application stops and comes back with another topology (the 4.4 client
    sends topology epoch 0 every time)."""
    app = "cg-hb-streams-app"
    Q = M.StreamsGroupHeartbeatRequest

    def topology(source: str) -> Any:
        return Q.Topology(epoch=0, subtopologies=[Q.Subtopology(
            subtopology_id="0", source_topics=[source], source_topic_regex=[],
            state_changelog_topics=[], repartition_sink_topics=[], repartition_source_topics=[],
            copartition_groups=[])])

    answers: list[object] = []
    with RawConnection(LOOPBACK, port, timeout=30) as conn:
        for name in ("cg-hb-streams-a", "cg-hb-streams-b"):
            _create_topic(conn, name, 1)

        def beat(member: str, epoch: int, source: str | None) -> Any:
            deadline = time.monotonic() + 60
            while True:
                r = conn.request(ApiKey.STREAMS_GROUP_HEARTBEAT, 0, Q(
                    group_id=app, member_id=member, member_epoch=epoch, endpoint_information_epoch=-1,
                    rebalance_timeout_ms=30000 if epoch == 0 else -1,
                    topology=topology(source) if source else None,
                    process_id=str(uuid.uuid4()) if epoch == 0 else None, user_endpoint=None,
                    client_tags=[] if epoch == 0 else None,
                    active_tasks=[] if epoch == 0 else None, standby_tasks=[] if epoch == 0 else None,
                    warmup_tasks=[] if epoch == 0 else None))
                if r.error_code not in RETRIABLE:
                    return r
                conn.request(ApiKey.FIND_COORDINATOR, 4, M.FindCoordinatorRequest(
                    key="", key_type=0, coordinator_keys=[app]))
                assert time.monotonic() < deadline, r
                time.sleep(0.2)

        first = str(uuid.uuid4())
        r = beat(first, 0, "cg-hb-streams-a")
        answers.append(("first run joins", r.error_code))
        answers.append(("first run stops", beat(first, -1, None).error_code))
        for label, source in (("restarted with another topology", "cg-hb-streams-b"),
                              ("restarted with the same topology", "cg-hb-streams-a")):
            r = beat(str(uuid.uuid4()), 0, source)
            answers.append((label, r.error_code, r.error_message if r.error_code else None))
    return answers


def test_a_streams_application_restarted_with_another_topology(brokers: dict[str, Any]) -> None:
    got = {name: _streams_scenario(broker.port) for name, broker in brokers.items()}
    assert got["kafpy"] == got["apache"], got
    assert got["apache"] == [
        ("first run joins", 0), ("first run stops", 0),
        ("restarted with another topology", 42, "Topology updates are not supported yet."),
        ("restarted with the same topology", 0, None)], got


def _static_scenario(port: int) -> list[tuple[object, ...]]:
    """A static member: rejoining while live, a leave naming another member id with its
    instance id, and a static leave while the other member waits for its partition."""
    topic, group = "cg-hb-static", "cg-hb-static-group"
    H = M.ConsumerGroupHeartbeatRequest
    answers: list[tuple[object, ...]] = []
    with RawConnection(LOOPBACK, port, timeout=30) as conn:
        topic_id = _create_topic(conn, topic, 2)
        s1, m2 = str(uuid.uuid4()), str(uuid.uuid4())

        def beat(member: str, epoch: int, owned: list[int] | None, **fields: Any) -> Any:
            if owned is not None:
                fields["topic_partitions"] = [H.TopicPartitions(topic_id=topic_id, partitions=owned)]
            return _heartbeat(conn, group, member, epoch, **fields)

        def until(what: str, step: Any, done: Any, timeout: float = 60) -> Any:
            deadline = time.monotonic() + timeout
            while True:
                r = step()
                assert r.error_code == 0, r
                if done(r):
                    return r
                assert time.monotonic() < deadline, what
                time.sleep(0.3)

        r1 = beat(s1, 0, None, subscribed_topic_names=[topic], instance_id="i1")
        state = {"epoch": r1.member_epoch, "held": _owned(r1)}

        def s1_beat() -> Any:
            r = beat(s1, state["epoch"], state["held"], instance_id="i1")
            state["epoch"] = r.member_epoch
            if r.assignment is not None:
                state["held"] = _owned(r)
            return r

        until("s1 owns both", s1_beat, lambda r: state["held"] == [0, 1])
        r = beat(s1, 0, None, subscribed_topic_names=[topic], instance_id="i1")
        answers.append(("s1 rejoins while live", r.error_code, r.error_message))
        r2 = beat(m2, 0, None, subscribed_topic_names=[topic])
        answers.append(("m2 joins", r2.error_code))
        until("s1 asked to give one up", s1_beat, lambda r: len(state["held"]) == 1)
        r = beat("another-member", -1, None, instance_id="i1")
        answers.append(("leave naming another member with i1", r.error_code, r.error_message))
        r = beat(s1, -2, None, instance_id="i1")
        answers.append(("s1 leaves for a while", r.error_code, r.member_epoch))
        m2_state = {"epoch": r2.member_epoch, "held": _owned(r2)}

        def m2_beat() -> Any:
            r = beat(m2, m2_state["epoch"], m2_state["held"])
            m2_state["epoch"] = r.member_epoch
            if r.assignment is not None:
                m2_state["held"] = _owned(r)
            return r

        # well before s1's session (45 s) would expire
        until("m2 gets the partition s1 gave up", m2_beat, lambda r: len(m2_state["held"]) == 1,
              timeout=15)
        answers.append(("m2 got the partition s1 gave up", m2_state["held"] != state["held"]))
    # the member ids differ from run to run
    return [tuple(a.replace(s1, "<s1>") if isinstance(a, str) else a for a in answer)
            for answer in answers]


def test_static_members_rejoin_fencing_and_leave(brokers: dict[str, Any]) -> None:
    got = {name: _static_scenario(broker.port) for name, broker in brokers.items()}
    assert got["kafpy"] == got["apache"], got
    assert got["apache"] == [
        ("s1 rejoins while live", 111, "Static member <s1> with instance id i1 cannot join the group "
         "because the instance id is owned by <s1> member."),
        ("m2 joins", 0),
        ("leave naming another member with i1", 82,
         "Static member another-member with instance id i1 was fenced by member <s1>."),
        ("s1 leaves for a while", 0, -2), ("m2 got the partition s1 gave up", True)], got


def _wait_until_described(conn: RawConnection, groups: list[str], key: str, value: str) -> None:
    """Until the broker describes ``key`` = ``value`` for every group: Apache's broker applies a
    group config from its metadata image, which can lag the controller's commit on a loaded
    machine, and a member joining before that gets the default 45 s session."""
    D = M.DescribeConfigsRequest
    request = D(resources=[D.DescribeConfigsResource(resource_type=32, resource_name=g, configuration_keys=[key])
                           for g in groups])

    def described() -> bool:
        r = conn.request(ApiKey.DESCRIBE_CONFIGS, 4, request)
        return all(any(c.name == key and c.value == value for c in res.configs) for res in r.results)
    wait_until(described, 30, f"{key}={value} described for {groups}")


def _expiry_scenario(port: int, reference: bool = False) -> list[object]:
    """Static members close without leaving; each group is deleted its member's session
    timeout plus 3 s after the member joined (three groups, so a timer that fires late shows;
    the margin is what a two-core machine running four test workers needs: 1.5 s was once too
    short there. It is still half of the 6 s session: a timer off by a whole session, or never
    firing, fails).

    `reference`: the broker is Apache Kafka, the measure of what the answers are, not of
    timing on a loaded machine: NON_EMPTY_GROUP is asked again for up to 20 s more (its JVM
    once expired a member late in CI)."""
    groups = [f"cg-hb-expiry-{i}" for i in range(3)]
    answers: list[object] = []
    with RawConnection(LOOPBACK, port, timeout=30) as conn:
        _create_topic(conn, "cg-hb-expiry", 1)
        A = M.IncrementalAlterConfigsRequest
        r = conn.request(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, A(validate_only=False, resources=[
            A.AlterConfigsResource(resource_type=32, resource_name=g, configs=[A.AlterableConfig(
                name="consumer.session.timeout.ms", config_operation=0, value=str(EXPIRY_SESSION_MS))])
            for g in groups]))
        assert all(res.error_code == 0 for res in r.responses), r
        _wait_until_described(conn, groups, "consumer.session.timeout.ms", str(EXPIRY_SESSION_MS))
        last: dict[str, float] = {}
        for i, g in enumerate(groups):
            j = _heartbeat(conn, g, str(uuid.uuid4()), 0, subscribed_topic_names=["cg-hb-expiry"],
                           instance_id=f"expiry-{i}")
            last[g] = time.monotonic()          # the member's session started before this
            answers.append((g, "joins", j.error_code))
        for g in groups:
            time.sleep(max(0.0, last[g] + EXPIRY_SESSION_MS / 1000 + 3.0 - time.monotonic()))
            r = conn.request(ApiKey.DELETE_GROUPS, 2, M.DeleteGroupsRequest(groups_names=[g]))
            deadline = time.monotonic() + 20
            while reference and r.results[0].error_code == ErrorCode.NON_EMPTY_GROUP \
                    and time.monotonic() < deadline:
                time.sleep(0.5)
                r = conn.request(ApiKey.DELETE_GROUPS, 2, M.DeleteGroupsRequest(groups_names=[g]))
            answers.append((g, "deleted", r.results[0].error_code))
    return answers


def test_members_expire_on_time_and_the_group_can_be_deleted(brokers: dict[str, Any]) -> None:
    got = {name: _expiry_scenario(broker.port, reference=name == "apache")
           for name, broker in brokers.items()}
    assert got["kafpy"] == got["apache"], got
    assert got["apache"] == [(f"cg-hb-expiry-{i}", "joins", 0) for i in range(3)] + [
        (f"cg-hb-expiry-{i}", "deleted", 0) for i in range(3)], got
