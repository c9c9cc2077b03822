"""The broker's SharePersister: a key whose `__share_group_state` partition this broker leads
goes to the local share coordinator, any other to its leader as a persister RPC; "not here
yet" answers are retried with backoff within a bound; uninitialized partitions read as the
seam promises. Fakes stand for the metadata cache, the local coordinator and the clients."""
from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field

from kafpy.broker.share_persister import BrokerSharePersister
from kafpy.coordinator.share_state.persister import (UNINITIALIZED_START_OFFSET, ReadStateResult, SharePartitionKey,
                                               StateBatch)
from kafpy.coordinator.share_state.shard import UNINITIALIZED_READ, UNINITIALIZED_WRITE
from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode as E
from kafpy.protocol.topics import SHARE_GROUP_STATE_TOPIC_NAME

KEY = SharePartitionKey("g", uuid.UUID(int=7), 0)


@dataclass
class _Part:
    leader: int


@dataclass
class _Topic:
    partitions: dict


@dataclass
class _Metadata:
    leader: int
    n: int = 5
    alive: set = field(default_factory=lambda: {0, 1, 2})

    def topic(self, name):
        assert name == SHARE_GROUP_STATE_TOPIC_NAME
        return _Topic({p: _Part(self.leader) for p in range(self.n)})

    def broker(self, node):
        return object() if node in self.alive else None


class _Local:
    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = []

    async def write_state(self, *args):
        self.calls.append(("write", args))
        return self.answers.pop(0)

    async def initialize_state(self, *args):
        self.calls.append(("initialize", args))
        return self.answers.pop(0)

    async def read_state(self, *args):
        self.calls.append(("read", args))
        return self.answers.pop(0)

    def find_coordinator(self, key):
        self.calls.append(("find", key))


class _Client:
    closed = False

    def __init__(self, responses):
        self.responses = responses
        self.sent = []

    async def send(self, api_key, body):
        self.sent.append((api_key, body))
        r = self.responses.pop(0)
        if isinstance(r, Exception):
            raise r
        return r


def persister(metadata, local, client=None, max_wait_ms=2000):
    return BrokerSharePersister(0, metadata, lambda: local, lambda _b: client, asyncio.new_event_loop(),
                                max_wait_ms=max_wait_ms, backoff_ms=1, max_backoff_ms=5)


def go(p, coro):
    """Run one call on the persister's own loop."""
    return p._loop.run_until_complete(coro)


def _write_response(error, message=None):
    R = M.WriteShareGroupStateResponse
    return R(results=[R.WriteStateResult(topic_id=KEY.topic_id.bytes, partitions=[
        R.PartitionResult(partition=0, error_code=error, error_message=message)])])


def test_local_coordinator_is_called_directly_and_load_in_progress_is_retried():
    local = _Local([(E.COORDINATOR_LOAD_IN_PROGRESS, None), (E.NONE, None)])
    p = persister(_Metadata(leader=0), local)
    batches = [StateBatch(0, 1, 2, 1)]
    assert go(p, p.write_state(KEY, 0, 1, 0, batches)) == E.NONE
    assert [c[0] for c in local.calls] == ["write", "write"]
    assert local.calls[0][1] == (KEY, 0, 1, 0, batches, -1)


def test_remote_coordinator_gets_the_rpc_and_not_coordinator_is_retried():
    client = _Client([ConnectionError("refused"), _write_response(E.NOT_COORDINATOR), _write_response(E.NONE)])
    p = persister(_Metadata(leader=2), _Local([]), client)
    assert go(p, p.write_state(KEY, 3, 4, 10, [StateBatch(10, 12, 0, 1)], 5)) == E.NONE
    api_key, body = client.sent[-1]
    assert api_key == ApiKey.WRITE_SHARE_GROUP_STATE and body.group_id == "g"
    part = body.topics[0].partitions[0]
    assert (part.state_epoch, part.leader_epoch, part.start_offset, part.delivery_complete_count) == (3, 4, 10, 5)
    assert [(b.first_offset, b.last_offset) for b in part.state_batches] == [(10, 12)]


def test_retries_stop_at_the_bound_with_the_last_error():
    client = _Client([_write_response(E.COORDINATOR_NOT_AVAILABLE)] * 1000)
    p = persister(_Metadata(leader=1), _Local([]), client, max_wait_ms=50)
    error, sent = go(p, p.write_state(KEY, 0, 0, 0, [])), len(client.sent)
    assert error == E.COORDINATOR_NOT_AVAILABLE and 1 < sent < 100


def test_other_errors_are_not_retried():
    client = _Client([_write_response(E.FENCED_LEADER_EPOCH, "stale")])
    p = persister(_Metadata(leader=1), _Local([]), client)
    assert go(p, p.write_state(KEY, 0, 0, 0, [])) == E.FENCED_LEADER_EPOCH
    assert len(client.sent) == 1


def test_no_state_topic_asks_for_it_and_answers_coordinator_not_available():
    class NoTopic(_Metadata):
        def topic(self, name):
            return None
    local = _Local([])
    p = persister(NoTopic(leader=0), local, max_wait_ms=20)
    r = go(p, p.read_state(KEY, 0))
    assert r.error_code == E.COORDINATOR_NOT_AVAILABLE
    assert ("find", str(KEY)) in local.calls


def test_uninitialized_partition_reads_as_the_seam_promises_and_a_write_initializes_it():
    local = _Local([ReadStateResult(error_code=E.INVALID_REQUEST, error_message=f"{UNINITIALIZED_READ} x"),
                    (E.INVALID_REQUEST, f"{UNINITIALIZED_WRITE} x"), (E.NONE, None), (E.NONE, None)])
    p = persister(_Metadata(leader=0), local)
    r = go(p, p.read_state(KEY, 0))
    assert (r.error_code, r.start_offset) == (E.NONE, UNINITIALIZED_START_OFFSET)
    assert go(p, p.write_state(KEY, 2, 0, 7, [])) == E.NONE
    assert [c[0] for c in local.calls] == ["read", "write", "initialize", "write"]
    assert local.calls[2][1] == (KEY, 2, 7)

