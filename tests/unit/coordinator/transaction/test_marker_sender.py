"""TxnMarkerSender: markers grouped by leader, the local broker called directly, retries
until written, partitions that are gone skipped, a fenced epoch given up."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace

from kafpy.coordinator.transaction.marker_sender import TxnMarkerSender
from kafpy.coordinator.transaction.markers import TxnMarker
from kafpy.protocol.errors import ErrorCode as E
from kafpy.protocol.messages import WriteTxnMarkersResponse as R


class _Metadata:
    def __init__(self, leaders):
        self.leaders = leaders  # (topic, partition) -> leader

    def topic(self, name):
        parts = {p: SimpleNamespace(leader=l) for (t, p), l in self.leaders.items() if t == name}
        return SimpleNamespace(partitions=parts) if parts else None

    def broker(self, node):
        return SimpleNamespace(node_id=node, host="127.0.0.1", port=9000 + node)


def _answer(req, errors):
    m = req.markers[0]
    return R(markers=[R.WritableTxnMarkerResult(producer_id=m.producer_id, topics=[
        R.WritableTxnMarkerTopicResult(name=t.name, partitions=[
            R.WritableTxnMarkerPartitionResult(partition_index=p, error_code=errors.get((t.name, p), E.NONE))
            for p in t.partition_indexes]) for t in m.topics])])


class _Broker:
    """A broker's WriteTxnMarkers answering from a script of per-partition errors."""

    def __init__(self, script=()):
        self.script = list(script)
        self.requests = []
        self.closed = False

    async def write(self, req):
        self.requests.append(req)
        return _answer(req, self.script.pop(0) if self.script else {})

    async def send(self, api_key, req):
        assert api_key == 27
        return await self.write(req)

    async def close(self):
        self.closed = True


MARKER = TxnMarker("t", 7, 2, True, 5, (("a", 0), ("a", 1), ("b", 0)))


def _run(leaders, local, remote, marker=MARKER):
    async def scenario():
        loop = asyncio.get_running_loop()
        sender = TxnMarkerSender(0, _Metadata(leaders), local.write, lambda node: remote, loop,
                                 timeout_ms=5_000, retry_backoff_ms=1)
        result = await sender.send(marker)
        await sender.close()
        return result
    return asyncio.run(scenario())


def test_markers_go_to_each_leader_and_retry_until_written():
    local, remote = _Broker([{("a", 0): E.NOT_LEADER_OR_FOLLOWER}]), _Broker()
    assert _run({("a", 0): 0, ("a", 1): 0, ("b", 0): 1}, local, remote) == E.NONE
    first = local.requests[0].markers[0]
    assert (first.producer_id, first.producer_epoch, first.transaction_result, first.coordinator_epoch) == \
        (7, 2, True, 5)
    assert [(t.name, t.partition_indexes) for t in first.topics] == [("a", [0, 1])]
    assert [(t.name, t.partition_indexes) for t in local.requests[1].markers[0].topics] == [("a", [0])]
    assert [(t.name, t.partition_indexes) for t in remote.requests[0].markers[0].topics] == [("b", [0])]
    assert remote.closed


def test_a_partition_that_is_gone_needs_no_marker():
    local = _Broker()
    assert _run({("a", 0): 0}, local, _Broker()) == E.NONE
    assert [(t.name, t.partition_indexes) for t in local.requests[0].markers[0].topics] == [("a", [0])]


def test_a_fenced_producer_epoch_stops_the_send():
    local = _Broker([{("a", 0): E.INVALID_PRODUCER_EPOCH}])
    assert _run({("a", 0): 0, ("a", 1): 0, ("b", 0): 0}, local, _Broker()) == E.INVALID_PRODUCER_EPOCH
