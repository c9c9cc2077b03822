"""broker/handlers/group.py: field mapping per version, and every response encodes at
every version it advertises (socket-free: a stand-in broker around a real coordinator)."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.codec import decode_response, encode_response

from kafpy.broker.handlers import group as G
from kafpy.coordinator.group import GroupCoordinator, GroupCoordinatorConfig, InMemoryOffsetsLog
from kafpy.protocol.errors import ErrorCode as E

from tests.unit.coordinator.helpers import subscription


class _Node:
    def __init__(self, node_id, host, port):
        self.node_id, self.host, self.port = node_id, host, port


class _Topic:
    def __init__(self, partitions):
        self.partitions = {p: None for p in range(partitions)}


class _Metadata:
    def topic(self, name):
        return _Topic(3) if name == "t" else None

    def brokers(self):
        return []


class _Service:
    """What the handlers use of coordinator.service.GroupCoordinatorService."""

    def __init__(self, loop):
        counter = itertools.count(1)
        self.classic = self.coordinator = GroupCoordinator(
            GroupCoordinatorConfig(group_initial_rebalance_delay_ms=0), InMemoryOffsetsLog(),
            future_factory=loop.create_future,
            member_id_factory=lambda prefix: f"{prefix}-{next(counter)}")
        self.consumer = self.share = self.streams = None
        self.clock = 1000

    def now_ms(self):
        return self.clock

    def expire_due(self):
        self.coordinator.poll(self.clock)

    def find_coordinator(self, key, key_type):
        if key_type not in (0, 1):
            return E.INVALID_REQUEST, -1, "", -1
        return E.NONE, 0, "127.0.0.1", 9092


class _Broker:
    def __init__(self, loop):
        self.group_coordinator = _Service(loop)
        self.metadata_cache = _Metadata()


class _Ctx:
    def __init__(self, broker, version, client_id="client-1"):
        self.services = broker
        self.api_version = version
        self.client_id = client_id
        self.client_host = "127.0.0.1"


def _run(coro_fn):
    async def main():
        broker = _Broker(asyncio.get_running_loop())
        service = broker.group_coordinator

        async def timer():       # the service's timer: a join completes on a tick
            while True:
                service.coordinator.poll(service.clock)
                await asyncio.sleep(0.005)
        ticking = asyncio.get_running_loop().create_task(timer())
        try:
            return await coro_fn(broker)
        finally:
            ticking.cancel()
    return asyncio.run(main())


def _roundtrip(api_key, version, body):
    """Encode as the broker would and decode as a client would."""
    frame = encode_response(api_key, version, 7, body)
    corr, decoded = decode_response(api_key, version, frame[4:])
    assert corr == 7
    return decoded


def _ranges():
    return {h.api_key: (h.min_version, h.max_version) for h in G.HANDLERS}


def test_advertised_ranges_start_at_zero_and_match_the_specs():
    for key, (lo, hi) in _ranges().items():
        spec = M.API_KEYS[key]
        assert lo == 0 and hi == spec.max_version, key


@pytest.mark.parametrize("version", range(0, 10))
def test_join_sync_heartbeat_leave_every_version(version):
    jv = version
    sv, hv, lv = min(version, 5), min(version, 4), min(version, 5)

    async def scenario(broker):
        proto = [M.JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=subscription("t"))]
        join = M.JoinGroupRequest(group_id="g", session_timeout_ms=10000, rebalance_timeout_ms=20000,
                                  member_id="", protocol_type="consumer", protocols=proto)
        r = await G.handle_join_group(_Ctx(broker, jv), join)
        if jv >= 4:
            assert r.error_code == E.MEMBER_ID_REQUIRED
            join.member_id = r.member_id
            r = await G.handle_join_group(_Ctx(broker, jv), join)
        assert r.error_code == E.NONE
        decoded = _roundtrip(11, jv, r)
        assert decoded.leader == decoded.member_id == r.member_id
        assert decoded.protocol_name == "range"
        assert decoded.members[0].metadata == subscription("t")
        assert (decoded.protocol_type == "consumer") if jv >= 7 else True
        assert broker.group_coordinator.coordinator.groups["g"].members[r.member_id].client_host \
            == "/127.0.0.1"
        rebalance = broker.group_coordinator.coordinator.groups["g"].members[r.member_id]
        assert rebalance.rebalance_timeout_ms == (10000 if jv == 0 else 20000)
        A = M.SyncGroupRequest.SyncGroupRequestAssignment
        sync = M.SyncGroupRequest(group_id="g", generation_id=r.generation_id, member_id=r.member_id,
                                  protocol_type="consumer", protocol_name="range",
                                  assignments=[A(member_id=r.member_id, assignment=b"\x01\x02")])
        s = await G.handle_sync_group(_Ctx(broker, sv), sync)
        assert _roundtrip(14, sv, s).assignment == b"\x01\x02"
        hb = M.HeartbeatRequest(group_id="g", generation_id=r.generation_id, member_id=r.member_id)
        assert _roundtrip(12, hv, await G.handle_heartbeat(_Ctx(broker, hv), hb)).error_code == 0
        bad = M.HeartbeatRequest(group_id="g", generation_id=99, member_id=r.member_id)
        assert (await G.handle_heartbeat(_Ctx(broker, hv), bad)).error_code == E.ILLEGAL_GENERATION
        if lv < 3:
            leave = M.LeaveGroupRequest(group_id="g", member_id=r.member_id)
        else:
            leave = M.LeaveGroupRequest(group_id="g", members=[
                M.LeaveGroupRequest.MemberIdentity(member_id=r.member_id),
                M.LeaveGroupRequest.MemberIdentity(member_id="ghost")])
        lr = _roundtrip(13, lv, await G.handle_leave_group(_Ctx(broker, lv), leave))
        assert lr.error_code == 0
        if lv >= 3:
            assert [(m.member_id, m.error_code) for m in lr.members] == \
                [(r.member_id, 0), ("ghost", E.UNKNOWN_MEMBER_ID)]
        assert broker.group_coordinator.coordinator.groups["g"].state.value == "Empty"

    _run(scenario)


def test_join_errors_encode_at_every_version():
    async def scenario(broker):
        for v in range(0, 10):
            join = M.JoinGroupRequest(group_id="g", session_timeout_ms=1, member_id="",
                                      protocol_type="consumer", protocols=[])
            r = await G.handle_join_group(_Ctx(broker, v), join)
            d = _roundtrip(11, v, r)
            assert d.error_code == E.INVALID_SESSION_TIMEOUT and d.generation_id == -1
            assert d.protocol_name == ("" if v < 7 else None)
    _run(scenario)


def test_sync_v5_requires_protocol_type_and_name():
    async def scenario(broker):
        s = await G.handle_sync_group(_Ctx(broker, 5), M.SyncGroupRequest(
            group_id="g", generation_id=1, member_id="m", protocol_type=None, protocol_name=None))
        assert s.error_code == E.INCONSISTENT_GROUP_PROTOCOL
    _run(scenario)


def test_leave_v0_carries_member_error_at_top_level():
    async def scenario(broker):
        r = await G.handle_leave_group(_Ctx(broker, 0), M.LeaveGroupRequest(group_id="g", member_id="x"))
        assert r.error_code == E.UNKNOWN_MEMBER_ID
    _run(scenario)


@pytest.mark.parametrize("version", range(0, 7))
def test_find_coordinator_every_version(version):
    async def scenario(broker):
        if version < 4:
            req = M.FindCoordinatorRequest(key="g", key_type=0)
            d = _roundtrip(10, version, await G.handle_find_coordinator(_Ctx(broker, version), req))
            assert (d.error_code, d.node_id, d.host, d.port) == (0, 0, "127.0.0.1", 9092)
        else:
            req = M.FindCoordinatorRequest(key_type=0, coordinator_keys=["a", "b"])
            d = _roundtrip(10, version, await G.handle_find_coordinator(_Ctx(broker, version), req))
            assert [(c.key, c.node_id, c.port, c.error_code) for c in d.coordinators] == \
                [("a", 0, 9092, 0), ("b", 0, 9092, 0)]
            req = M.FindCoordinatorRequest(key_type=2, coordinator_keys=["s"])
            d = await G.handle_find_coordinator(_Ctx(broker, version), req)
            assert d.coordinators[0].error_code == E.INVALID_REQUEST
    _run(scenario)


def _commit_request(version, offsets, generation=-1, member=""):
    P = M.OffsetCommitRequest.OffsetCommitRequestPartition
    T = M.OffsetCommitRequest.OffsetCommitRequestTopic
    by_topic: dict = {}
    for (t, p), (off, meta) in offsets.items():
        by_topic.setdefault(t, []).append(P(partition_index=p, committed_offset=off,
                                            committed_leader_epoch=5, committed_metadata=meta,
                                            commit_timestamp=-1))
    return M.OffsetCommitRequest(group_id="s", generation_id_or_member_epoch=generation,
                                 member_id=member, retention_time_ms=-1,
                                 topics=[T(name=t, partitions=ps) for t, ps in by_topic.items()])


@pytest.mark.parametrize("version", range(0, 10))
def test_offset_commit_and_fetch_every_version(version):
    async def scenario(broker):
        req = _commit_request(version, {("t", 0): (10, "meta"), ("t", 1): (11, None),
                                        ("nope", 0): (1, "")})
        r = _roundtrip(8, version, await G.handle_offset_commit(_Ctx(broker, version), req))
        assert [(t.name, p.partition_index, p.error_code) for t in r.topics for p in t.partitions] == \
            [("t", 0, 0), ("t", 1, 0), ("nope", 0, E.UNKNOWN_TOPIC_OR_PARTITION)]
        om = broker.group_coordinator.coordinator.groups["s"].offsets[("t", 0)]
        assert (om.offset, om.metadata, om.commit_timestamp) == (10, "meta", 1000)
        assert om.leader_epoch == (5 if version >= 6 else -1)
        assert broker.group_coordinator.coordinator.groups["s"].offsets[("t", 1)].metadata == ""

        fv = version
        if fv >= 8:
            F = M.OffsetFetchRequest
            req = F(groups=[F.OffsetFetchRequestGroup(group_id="s", topics=[
                        F.OffsetFetchRequestTopics(name="t", partition_indexes=[0, 2])]),
                    F.OffsetFetchRequestGroup(group_id="s", topics=None)], require_stable=True)
            d = _roundtrip(9, fv, await G.handle_offset_fetch(_Ctx(broker, fv), req))
            first, everything = d.groups
            assert [(p.partition_index, p.committed_offset) for t in first.topics
                    for p in t.partitions] == [(0, 10), (2, -1)]
            assert sorted((p.partition_index, p.committed_offset, p.committed_leader_epoch)
                          for t in everything.topics for p in t.partitions) == \
                [(0, 10, 5), (1, 11, 5)]          # v8+ commits carry leader epochs
        else:
            F = M.OffsetFetchRequest
            req = F(group_id="s", topics=[F.OffsetFetchRequestTopic(name="t", partition_indexes=[0, 2])])
            d = _roundtrip(9, fv, await G.handle_offset_fetch(_Ctx(broker, fv), req))
            assert [(p.partition_index, p.committed_offset, p.metadata) for t in d.topics
                    for p in t.partitions] == [(0, 10, "meta"), (2, -1, "")]
            if fv >= 2:
                d = _roundtrip(9, fv, await G.handle_offset_fetch(_Ctx(broker, fv), F(group_id="s", topics=None)))
                assert sorted(p.partition_index for t in d.topics for p in t.partitions) == [0, 1]
    _run(scenario)


def test_offset_commit_v1_timestamp_and_v2_retention():
    async def scenario(broker):
        req = _commit_request(1, {("t", 0): (3, "")})
        req.topics[0].partitions[0].commit_timestamp = 555
        await G.handle_offset_commit(_Ctx(broker, 1), req)
        assert broker.group_coordinator.coordinator.groups["s"].offsets[("t", 0)].commit_timestamp == 555
        req = _commit_request(2, {("t", 0): (4, "")})
        req.retention_time_ms = 60_000
        await G.handle_offset_commit(_Ctx(broker, 2), req)
        om = broker.group_coordinator.coordinator.groups["s"].offsets[("t", 0)]
        assert (om.commit_timestamp, om.expire_timestamp) == (1000, 61_000)
    _run(scenario)


def test_offset_fetch_v1_group_error_lands_on_partitions():
    async def scenario(broker):
        broker.group_coordinator.coordinator.owned_partitions.clear()
        F = M.OffsetFetchRequest
        req = F(group_id="s", topics=[F.OffsetFetchRequestTopic(name="t", partition_indexes=[0])])
        d = _roundtrip(9, 1, await G.handle_offset_fetch(_Ctx(broker, 1), req))
        assert d.topics[0].partitions[0].error_code == E.NOT_COORDINATOR
        d = _roundtrip(9, 3, await G.handle_offset_fetch(_Ctx(broker, 3), req))
        assert d.error_code == E.NOT_COORDINATOR and d.topics == []
    _run(scenario)


@pytest.mark.parametrize("version", range(0, 6))
def test_describe_and_list_groups_every_version(version):
    async def scenario(broker):
        await G.handle_offset_commit(_Ctx(broker, 2), _commit_request(2, {("t", 0): (1, "")}))
        req = M.DescribeGroupsRequest(groups=["s", "missing"], include_authorized_operations=True)
        d = _roundtrip(15, version, await G.handle_describe_groups(_Ctx(broker, version), req))
        assert [(g.group_id, g.group_state, g.error_code) for g in d.groups] == \
            [("s", "Empty", 0), ("missing", "Dead", 0)]
        if version >= 3:
            assert d.groups[0].authorized_operations == G._GROUP_OPERATIONS
        req = M.ListGroupsRequest(states_filter=["Empty"], types_filter=[])
        d = _roundtrip(16, version, await G.handle_list_groups(_Ctx(broker, version), req))
        assert [(g.group_id, g.protocol_type) for g in d.groups] == [("s", "")]
        if version >= 4:
            req = M.ListGroupsRequest(states_filter=["Stable"])
            assert (await G.handle_list_groups(_Ctx(broker, version), req)).groups == []
    _run(scenario)


@pytest.mark.parametrize("version", range(0, 3))
def test_offset_delete_and_delete_groups(version):
    async def scenario(broker):
        await G.handle_offset_commit(_Ctx(broker, 2), _commit_request(2, {("t", 0): (1, ""), ("t", 1): (2, "")}))
        OD = M.OffsetDeleteRequest
        req = OD(group_id="s", topics=[OD.OffsetDeleteRequestTopic(name="t", partitions=[
            OD.OffsetDeleteRequestPartition(partition_index=1)]), OD.OffsetDeleteRequestTopic(
            name="nope", partitions=[OD.OffsetDeleteRequestPartition(partition_index=0)])])
        d = _roundtrip(47, 0, await G.handle_offset_delete(_Ctx(broker, 0), req))
        assert d.error_code == 0
        assert [(t.name, p.partition_index, p.error_code) for t in d.topics for p in t.partitions] == \
            [("t", 1, 0), ("nope", 0, E.UNKNOWN_TOPIC_OR_PARTITION)]
        d = _roundtrip(47, 0, await G.handle_offset_delete(_Ctx(broker, 0), OD(group_id="zz", topics=[])))
        assert d.error_code == E.GROUP_ID_NOT_FOUND
        req = M.DeleteGroupsRequest(groups_names=["s", "zz", "s"])
        d = _roundtrip(42, version, await G.handle_delete_groups(_Ctx(broker, version), req))
        assert [(r.group_id, r.error_code) for r in d.results] == [("s", 0), ("zz", E.GROUP_ID_NOT_FOUND)]
    _run(scenario)


class _RecreatedTopic(_Topic):
    def __init__(self, partitions, topic_id):
        super().__init__(partitions)
        self.topic_id = topic_id


class _RecreatableMetadata(_Metadata):
    """Topic "t" with an id that changes when it is deleted and created again."""

    def __init__(self, topic_id):
        self.topic_id = topic_id

    def topic(self, name):
        return _RecreatedTopic(3, self.topic_id) if name == "t" else None

    def topic_name(self, topic_id):
        return "t" if topic_id == self.topic_id else None


def test_offset_fetch_by_id_ignores_an_offset_committed_for_an_earlier_topic_of_that_name():
    """Kafka 4.4 (OffsetMetadataManager.isMismatchedTopicId): an offset committed by id is kept
    with that id, and asked for by the id of a topic created again under the same name it is
    no offset (-1), so the consumer does not resume at the old topic's position. An offset
    committed by name carries no id and is answered whatever the topic's id."""
    old, new = bytes([1] * 16), bytes([2] * 16)
    C, F = M.OffsetCommitRequest, M.OffsetFetchRequest

    async def scenario(broker):
        broker.metadata_cache = _RecreatableMetadata(old)
        by_id = C(group_id="s", generation_id_or_member_epoch=-1, member_id="", retention_time_ms=-1, topics=[
            C.OffsetCommitRequestTopic(topic_id=old, partitions=[C.OffsetCommitRequestPartition(
                partition_index=0, committed_offset=10, committed_leader_epoch=-1, committed_metadata="")])])
        r = _roundtrip(8, 10, await G.handle_offset_commit(_Ctx(broker, 10), by_id))
        assert [p.error_code for t in r.topics for p in t.partitions] == [E.NONE]
        by_name = _commit_request(9, {("t", 1): (11, "")}, generation=-1, member="")
        r = _roundtrip(8, 9, await G.handle_offset_commit(_Ctx(broker, 9), by_name))
        assert [p.error_code for t in r.topics for p in t.partitions] == [E.NONE]

        def fetch(topic_id):
            return F(groups=[F.OffsetFetchRequestGroup(group_id="s", member_id=None, member_epoch=-1, topics=[
                F.OffsetFetchRequestTopics(topic_id=topic_id, partition_indexes=[0, 1])])], require_stable=False)

        async def answered(topic_id):
            d = _roundtrip(9, 10, await G.handle_offset_fetch(_Ctx(broker, 10), fetch(topic_id)))
            return [(bytes(t.topic_id), p.partition_index, p.committed_offset, p.error_code)
                    for g in d.groups for t in g.topics for p in t.partitions]
        assert await answered(old) == [(old, 0, 10, E.NONE), (old, 1, 11, E.NONE)]
        broker.metadata_cache = _RecreatableMetadata(new)   # "t" deleted and created again
        assert await answered(new) == [(new, 0, -1, E.NONE), (new, 1, 11, E.NONE)]
        assert await answered(old) == [(old, 0, -1, E.UNKNOWN_TOPIC_ID), (old, 1, -1, E.UNKNOWN_TOPIC_ID)]
    _run(scenario)
