"""StreamsGroupHeartbeat and StreamsGroupDescribe through their handlers, on a broker
without sockets: internal topics created in the background, tasks and the partitions of
each member's endpoint in the response (encoded and read back as a client would),
invalid topologies, the task offsets members report (kept, described), and both APIs off
with streams.version 0."""
from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest

from kafpy.broker.handlers.streams_group import (handle_streams_group_describe,
                                                 handle_streams_group_heartbeat)
from kafpy.coordinator.group import GroupCoordinator, InMemoryOffsetsLog
from kafpy.coordinator.group.config import GroupCoordinatorConfig
from kafpy.coordinator.group.consumer.topics import MetadataCacheTopics
from kafpy.coordinator.group.streams.config import StreamsGroupConfig
from kafpy.coordinator.group.streams.coordinator import StreamsGroupCoordinator
from kafpy.protocol import codec
from kafpy.protocol.errors import ErrorCode as E
from kafpy.protocol.messages import StreamsGroupDescribeRequest as D
from kafpy.protocol.messages import StreamsGroupHeartbeatRequest as Q
from tests.unit.broker.helpers import LocalBroker, call

HEARTBEAT, DESCRIBE = 88, 89


@pytest.fixture
def broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop)
    classic = GroupCoordinator(GroupCoordinatorConfig(), InMemoryOffsetsLog(),
                               future_factory=loop.create_future)
    streams = StreamsGroupCoordinator(classic, StreamsGroupConfig(initial_rebalance_delay_ms=0),
                                      MetadataCacheTopics(b.metadata))
    classic.attach(streams=streams)
    b.services.group_coordinator = SimpleNamespace(classic=classic, coordinator=classic, streams=streams,
                                                   now_ms=lambda: 0, expire_due=lambda: classic.poll(0))
    try:
        yield b
    finally:
        b.close()
        loop.close()


def _topology(*sources: str) -> Q.Topology:
    info = Q.TopicInfo
    return Q.Topology(epoch=0, subtopologies=[
        Q.Subtopology(subtopology_id="0", source_topics=list(sources), source_topic_regex=[],
                      state_changelog_topics=[], repartition_sink_topics=["app-rep"],
                      repartition_source_topics=[], copartition_groups=[]),
        Q.Subtopology(subtopology_id="1", source_topics=[], source_topic_regex=[],
                      state_changelog_topics=[info(name="app-store-changelog", partitions=0,
                                                   replication_factor=0, topic_configs=[
                                                       Q.KeyValue(key="cleanup.policy",
                                                                  value="compact")])],
                      repartition_sink_topics=[],
                      repartition_source_topics=[info(name="app-rep", partitions=0,
                                                      replication_factor=0, topic_configs=[])],
                      copartition_groups=[])])


def _heartbeat(broker, epoch: int, topology=None, owned=None, endpoint_epoch=-1, version=1,
               task_offsets=None, task_end_offsets=None):
    req = Q(group_id="app", member_id="m1", member_epoch=epoch,
            task_offsets=task_offsets, task_end_offsets=task_end_offsets,
            endpoint_information_epoch=endpoint_epoch, rebalance_timeout_ms=30000,
            topology=topology, process_id="p1",
            user_endpoint=Q.Endpoint(host="h1", port=7070), client_tags=[],
            active_tasks=owned, standby_tasks=[] if owned is not None else None,
            warmup_tasks=[] if owned is not None else None)
    resp = call(broker, handle_streams_group_heartbeat, HEARTBEAT, version, req)
    # what a client reads back
    frame = codec.encode_response(HEARTBEAT, version, 1, resp)
    return codec.decode_response(HEARTBEAT, version, frame[4:])[1]


def test_internal_topics_are_created_then_tasks_and_endpoints_are_given(broker):
    broker.create_topic("in", 2)
    r = _heartbeat(broker, 0, _topology("in"))
    assert r.error_code == E.NONE and r.member_id == "m1"
    assert [s.status_code for s in r.status] == [3]          # MISSING_INTERNAL_TOPICS
    assert r.active_tasks == []
    deadline = time.monotonic() + 10
    while broker.metadata.topic("app-rep") is None or broker.metadata.topic("app-store-changelog") is None:
        assert time.monotonic() < deadline, "the internal topics were not created"
        broker.loop.run_until_complete(asyncio.sleep(0.01))
    assert len(broker.metadata.topic("app-rep").partitions) == 2
    assert broker.metadata.topic("app-store-changelog").configs == {"cleanup.policy": "compact"}
    r = _heartbeat(broker, r.member_epoch, owned=[])
    assert r.status == [] and r.acceptable_recovery_lag == 10_000
    assert sorted((t.subtopology_id, p) for t in r.active_tasks for p in t.partitions) == [
        ("0", 0), ("0", 1), ("1", 0), ("1", 1)]
    (ep,) = r.partitions_by_user_endpoint
    assert (ep.user_endpoint.host, ep.user_endpoint.port) == ("h1", 7070)
    assert {t.topic: t.partitions for t in ep.active_partitions} == {"in": [0, 1], "app-rep": [0, 1]}
    d = call(broker, handle_streams_group_describe, DESCRIBE, 1, D(group_ids=["app", "nope"]))
    codec.encode_response(DESCRIBE, 1, 1, d)
    app, nope = d.groups
    assert (app.error_code, app.group_state, app.assignor_name) == (E.NONE, "Stable", "sticky")
    assert app.topology.subtopologies[1].state_changelog_topics[0].name == "app-store-changelog"
    assert app.members[0].process_id == "p1" and app.members[0].user_endpoint.port == 7070
    assert nope.error_code == E.GROUP_ID_NOT_FOUND


def test_invalid_topologies_and_streams_version_zero(broker):
    r = _heartbeat(broker, 0, _topology("__consumer_offsets"))
    assert r.error_code == E.STREAMS_INVALID_TOPOLOGY and "prohibited" in r.error_message
    r = _heartbeat(broker, 0, _topology("in"), version=0)
    assert [s.status_code for s in r.status] == [1]          # MISSING_SOURCE_TOPICS
    broker.loop.run_until_complete(broker.services.features.update({"streams.version": 0}))
    assert _heartbeat(broker, 0, _topology("in")).error_code == E.UNSUPPORTED_VERSION
    d = call(broker, handle_streams_group_describe, DESCRIBE, 0, D(group_ids=["app"]))
    assert d.groups[0].error_code == E.UNSUPPORTED_VERSION


def test_reported_task_offsets_are_kept_and_described(broker):
    broker.create_topic("in", 2)
    broker.create_topic("app-rep", 2)
    broker.create_topic("app-store-changelog", 2)
    r = _heartbeat(broker, 0, _topology("in"))
    offsets = [Q.TaskOffset(subtopology_id="1", partition=0, offset=42)]
    ends = [Q.TaskOffset(subtopology_id="1", partition=0, offset=50)]
    r = _heartbeat(broker, r.member_epoch, owned=[], task_offsets=offsets, task_end_offsets=ends)
    assert r.error_code == E.NONE and r.task_offset_interval_ms == 60_000
    # a heartbeat without them (null: unchanged) keeps what was reported
    r = _heartbeat(broker, r.member_epoch, owned=[])
    d = call(broker, handle_streams_group_describe, DESCRIBE, 1, D(group_ids=["app"]))
    frame = codec.encode_response(DESCRIBE, 1, 1, d)
    (member,) = codec.decode_response(DESCRIBE, 1, frame[4:])[1].groups[0].members
    assert [(o.subtopology_id, o.partition, o.offset) for o in member.task_offsets] == [("1", 0, 42)]
    assert [(o.subtopology_id, o.partition, o.offset) for o in member.task_end_offsets] == [
        ("1", 0, 50)]
