"""The controller's request batch (bodies at every version, order, recipients' epochs) and
the per-broker channel (ordered, retried until success, dropped with the broker)."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kafpy.replication.metadata_cache import BrokerInfo
from kafpy.protocol import codec
from kafpy.protocol.messages import RequestHeader
from kafpy.replication import zk_data as zd
from kafpy.protocol.api_keys import ApiKey
from kafpy.replication.controller_channel import (ControllerChannelManager, ControllerRequestBatch, broker_info)
from kafpy.replication.controller_context import ControllerContext
from kafpy.replication.leader_and_isr import LeaderAndIsr


def reg(b: int) -> zd.BrokerRegistration:
    return zd.BrokerRegistration(b, (zd.EndPoint("PLAINTEXT", "127.0.0.1", 9000 + b),
                                     zd.EndPoint("REPL", "10.0.0.1", 9100 + b, "PLAINTEXT")), rack="r1")


def context() -> ControllerContext:
    ctx = ControllerContext(epoch=5, epoch_zk_version=5)
    ctx.add_live_brokers({1: (reg(1), 11), 2: (reg(2), 22)})
    ctx.set_topic("t", zd.TopicAssignment.of("x", {0: [1, 2], 1: [2, 1]}), b"\7" * 16)
    ctx.leadership[("t", 0)] = zd.LeaderIsrAndControllerEpoch(LeaderAndIsr(1, 3, (1, 2), partition_epoch=4), 5)
    ctx.leadership[("t", 1)] = zd.LeaderIsrAndControllerEpoch(LeaderAndIsr(2, 0, (2, 1)), 4)
    return ctx


def roundtrip(key: int, version: int, body: Any) -> Any:
    header = RequestHeader(request_api_key=key, request_api_version=version, correlation_id=0, client_id="c")
    return codec.decode_request(codec.encode_request(header, body)[4:])[1]


class Channels:
    """Records what a batch queues, building each body at the given version."""

    def __init__(self, version: dict[int, int]) -> None:
        self.version = version
        self.sent: list[tuple[int, int, list[Any]]] = []

    def send(self, broker: int, key: int, build, callback=None) -> None:
        self.sent.append((broker, key, [roundtrip(key, self.version[key], b) for b in build(self.version[key])]))


@pytest.mark.parametrize("lair,umr,stop", [(0, 0, 0), (1, 4, 1), (2, 5, 2), (5, 7, 3), (7, 8, 4)])
def test_batch_encodes_at_every_version(lair, umr, stop):
    ctx = context()
    batch = ControllerRequestBatch(ctx, controller_id=1)
    batch.add_leader_and_isr([1, 2], ("t", 0), is_new=True)
    batch.add_leader_and_isr([2, 3], ("t", 1))  # 3 is not live: skipped
    batch.add_stop_replica([2], ("t", 1), delete=False)
    batch.add_stop_replica([2], ("t", 0), delete=True)
    ch = Channels({ApiKey.LEADER_AND_ISR: lair, ApiKey.UPDATE_METADATA: umr, ApiKey.STOP_REPLICA: stop})
    batch.send(ch)
    assert [(b, k) for b, k, _ in ch.sent] == [(1, 4), (2, 4), (1, 6), (2, 6), (2, 5)]
    assert batch.is_empty()
    (l1,), (l2,) = ch.sent[0][2], ch.sent[1][2]
    states = l2.ungrouped_partition_states if lair < 2 else [s for t in l2.topic_states for s in t.partition_states]
    assert [(s.partition_index, s.leader, s.leader_epoch, s.isr, s.replicas) for s in states] == \
        [(0, 1, 3, [1, 2], [1, 2]), (1, 2, 0, [2, 1], [2, 1])]
    if lair >= 1:
        assert [s.is_new for s in states] == [True, False]
    if lair >= 2:
        assert (l1.broker_epoch, l2.broker_epoch) == (11, 22)
        assert states[0].partition_epoch == 4 and states[1].controller_epoch == 4
    if lair >= 5:
        assert l2.topic_states[0].topic_id == b"\7" * 16
    assert (l2.controller_id, l2.controller_epoch) == (1, 5)
    assert sorted(x.broker_id for x in l2.live_leaders) == [1, 2]
    (u,) = ch.sent[3][2]
    assert sorted(b.id for b in u.live_brokers) == [1, 2]
    if umr >= 1:
        assert [e.listener if umr >= 3 else e.port for e in u.live_brokers[0].endpoints][0] in ("PLAINTEXT", 9001)
    stops = ch.sent[4][2]
    if stop >= 3:
        (s,) = stops
        assert [(p.partition_index, p.delete_partition, p.leader_epoch) for p in s.topic_states[0].partition_states] \
            == [(0, True, -2), (1, False, 0)]
    else:
        assert [s.delete_partitions for s in stops] == [False, True]


def test_broker_info_prefers_the_inter_broker_listener():
    assert broker_info(reg(1)) == BrokerInfo(1, "127.0.0.1", 9001, "r1")
    assert broker_info(reg(1), listener="REPL") == BrokerInfo(1, "10.0.0.1", 9101, "r1")


class FlakyClient:
    def __init__(self, broker: BrokerInfo, failures: int, log: list) -> None:
        self.broker, self.failures, self.log, self.closed = broker, failures, log, False

    async def ready(self) -> None:
        if self.failures > 0:
            self.failures -= 1
            raise ConnectionError("refused")

    def api_version(self, key: int) -> int:
        return 0

    async def send(self, key: int, body: Any, **_: Any) -> Any:
        self.log.append((self.broker.node_id, key, body))
        return f"response-{body}"

    async def close(self) -> None:
        self.closed = True


def test_channel_sends_in_order_retries_and_drops_removed_brokers(monkeypatch):
    monkeypatch.setattr("kafpy.replication.controller_channel.RETRY_BACKOFF_S", 0.001)

    async def main() -> None:
        log: list = []
        clients: dict[int, FlakyClient] = {}

        def factory(b: BrokerInfo) -> FlakyClient:
            clients[b.node_id] = FlakyClient(b, 3 if b.node_id == 1 else 10**9, log)
            return clients[b.node_id]
        # the stand-ins (FlakyClient, plain ints and strings for requests) have what it uses
        ch: Any = ControllerChannelManager(0, factory, asyncio.get_running_loop())  # type: ignore[arg-type]
        ch.add_broker(BrokerInfo(1, "h", 1))
        ch.add_broker(BrokerInfo(2, "h", 2))
        answers: list = []
        for i in range(3):
            ch.send(1, 6, lambda v, i=i: [i], answers.append)
        ch.send(2, 6, lambda v: ["never"])
        ch.send(9, 6, lambda v: ["unknown broker"])
        for _ in range(200):
            if len(log) == 3:
                break
            await asyncio.sleep(0.005)
        assert log == [(1, 6, 0), (1, 6, 1), (1, 6, 2)]
        assert answers == ["response-0", "response-1", "response-2"]
        await ch.remove_broker(2)
        assert clients[2].closed and ch.broker_ids == {1}
        await ch.shutdown()
        assert clients[1].closed and ch.broker_ids == set()
    asyncio.run(main())
