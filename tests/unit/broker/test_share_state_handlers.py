"""The persister RPC handlers (83-87) with a fake share coordinator: one result per
requested partition, Kafka's empty answer for an empty group id, COORDINATOR_NOT_AVAILABLE
without a share coordinator, and CLUSTER_AUTHORIZATION_FAILED in every partition when the
caller lacks CLUSTER_ACTION."""
from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace

from kafpy.broker.authorization_rules import share_state_rule
from kafpy.broker.handlers import share_state as H
from kafpy.coordinator.share_state.persister import ReadStateResult, StateBatch, StateSummary
from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode as E

TID = uuid.UUID(int=3)


class _Service:
    def __init__(self):
        self.calls = []

    async def read_state(self, key, leader_epoch):
        self.calls.append(("read", key, leader_epoch))
        if key.partition == 1:
            return ReadStateResult(error_code=E.FENCED_LEADER_EPOCH, error_message="stale")
        return ReadStateResult(state_epoch=2, start_offset=10, batches=[StateBatch(10, 11, 2, 1)])

    async def write_state(self, key, state_epoch, leader_epoch, start_offset, batches, dcc):
        self.calls.append(("write", key, state_epoch, leader_epoch, start_offset, batches, dcc))
        return E.NONE, None

    async def read_summary(self, key):
        return StateSummary(state_epoch=1, leader_epoch=4, start_offset=7, delivery_complete_count=3)


def _ctx(service, api_key, version=0):
    return SimpleNamespace(services=SimpleNamespace(share_coordinator=service), api_version=version,
                           header=SimpleNamespace(request_api_key=api_key))


def _read_request(group="g", partitions=(0, 1)):
    R = M.ReadShareGroupStateRequest
    return R(group_id=group, topics=[R.ReadStateData(topic_id=TID.bytes, partitions=[
        R.PartitionData(partition=p, leader_epoch=5) for p in partitions])])


def test_read_answers_each_partition():
    svc = _Service()
    resp = asyncio.run(H.handle_read_share_group_state(_ctx(svc, 84), _read_request()))
    (topic,) = resp.results
    assert bytes(topic.topic_id) == TID.bytes
    ok, fenced = topic.partitions
    assert (ok.error_code, ok.state_epoch, ok.start_offset) == (E.NONE, 2, 10)
    assert [(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count) for b in ok.state_batches] == \
        [(10, 11, 2, 1)]
    assert (fenced.error_code, fenced.error_message, fenced.start_offset) == (E.FENCED_LEADER_EPOCH, "stale", -1)
    assert svc.calls[0][1].group_id == "g" and svc.calls[0][1].topic_id == TID and svc.calls[0][2] == 5


def test_write_passes_the_delivery_complete_count_from_v1():
    R = M.WriteShareGroupStateRequest
    req = R(group_id="g", topics=[R.WriteStateData(topic_id=TID.bytes, partitions=[R.PartitionData(
        partition=0, state_epoch=1, leader_epoch=2, start_offset=3, delivery_complete_count=9,
        state_batches=[R.StateBatch(first_offset=3, last_offset=4, delivery_state=0, delivery_count=1)])])])
    for version, dcc in ((0, -1), (1, 9)):
        svc = _Service()
        resp = asyncio.run(H.handle_write_share_group_state(_ctx(svc, 85, version), req))
        assert resp.results[0].partitions[0].error_code == E.NONE
        assert svc.calls == [("write", svc.calls[0][1], 1, 2, 3, [StateBatch(3, 4, 0, 1)], dcc)]


def test_summary_fields():
    R = M.ReadShareGroupStateSummaryRequest
    req = R(group_id="g", topics=[R.ReadStateSummaryData(topic_id=TID.bytes, partitions=[
        R.PartitionData(partition=0, leader_epoch=0)])])
    p = asyncio.run(H.handle_read_share_group_state_summary(_ctx(_Service(), 87, 1), req)).results[0].partitions[0]
    assert (p.error_code, p.state_epoch, p.leader_epoch, p.start_offset, p.delivery_complete_count) == \
        (E.NONE, 1, 4, 7, 3)


def test_empty_group_or_no_coordinator():
    assert asyncio.run(H.handle_read_share_group_state(_ctx(_Service(), 84), _read_request(group=""))).results == []
    resp = asyncio.run(H.handle_read_share_group_state(_ctx(None, 84), _read_request()))
    assert [p.error_code for p in resp.results[0].partitions] == [E.COORDINATOR_NOT_AVAILABLE] * 2


def test_cluster_action_required():
    denied = SimpleNamespace(cluster=lambda op: False)

    async def never(ctx, req):
        raise AssertionError("the handler must not run")
    resp = asyncio.run(share_state_rule(denied, _ctx(_Service(), 84), _read_request(), never))
    assert [p.error_code for p in resp.results[0].partitions] == [E.CLUSTER_AUTHORIZATION_FAILED] * 2
    allowed = SimpleNamespace(cluster=lambda op: True)
    resp = asyncio.run(share_state_rule(allowed, _ctx(_Service(), 84), _read_request(),
                                          H.handle_read_share_group_state))
    assert resp.results[0].partitions[0].error_code == E.NONE
