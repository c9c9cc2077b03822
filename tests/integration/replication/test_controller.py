"""KafkaController in-process against a real ZooKeeper, with a channel that records (and
encodes) the control requests instead of sending them: election and epochs, topic creation
with ids and partition states field for field, failover when the first controller's session
closes, AlterPartition, ElectLeaders, controlled shutdown and topic deletion."""
from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kafpy.broker.config import KafkaConfig
from kafpy.replication.metadata_cache import BrokerInfo
from kafpy.protocol import codec
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (AlterPartitionRequest, LeaderAndIsrResponse, RequestHeader,
                               StopReplicaResponse, UpdateMetadataResponse)
from kafpy.replication import controller_events as ce
from kafpy.replication import zk_data as zd
from kafpy.replication.controller import KafkaController
from kafpy.replication.controller_context import TopicPartition
from kafpy.replication.leader_and_isr import LeaderAndIsr
from kafpy.replication.zk_client import KafkaZkClient

pytestmark = pytest.mark.timeout(120)

LAIR, STOP, UMR = 4, 5, 6
RESPONSES = {LAIR: LeaderAndIsrResponse, STOP: StopReplicaResponse, UMR: UpdateMetadataResponse}


class Recorder:
    """Every request the controllers would send: (from controller, to broker, key, version, body)."""

    def __init__(self, versions: dict[int, int] | None = None,
                 on_send: Callable[[int, int, Any], None] | None = None,
                 respond: Callable[[int, int, Any], Any] | None = None) -> None:
        self.sent: list[tuple[int, int, int, int, Any]] = []
        self.versions = versions or {LAIR: 7, STOP: 4, UMR: 8}
        self.on_send = on_send  # (to broker, api key, decoded body)
        self.respond = respond  # (to broker, api key, decoded body) -> the response (else an empty one)

    def factory(self, controller_id: int) -> Callable[[BrokerInfo], Any]:
        recorder = self

        class Client:
            def __init__(self, broker: BrokerInfo) -> None:
                self.broker = broker

            async def ready(self) -> None:
                return None

            def api_version(self, key: int) -> int:
                return recorder.versions[key]

            async def send(self, key: int, body: Any, *, version: int | None = None,
                           timeout_ms: int | None = None) -> Any:
                assert version is not None, "the controller names the version it sends"
                header = RequestHeader(request_api_key=key, request_api_version=version,
                                       correlation_id=1, client_id="controller")
                _, decoded = codec.decode_request(codec.encode_request(header, body)[4:])
                recorder.sent.append((controller_id, self.broker.node_id, key, version, decoded))
                if recorder.on_send is not None:
                    recorder.on_send(self.broker.node_id, key, decoded)
                if recorder.respond is not None:
                    return recorder.respond(self.broker.node_id, key, decoded)
                return RESPONSES[key]()

            async def close(self) -> None:
                return None
        return Client

    def of(self, key: int, to: int | None = None, since: int = 0) -> list[Any]:
        return [body for _, b, k, _, body in self.sent[since:] if k == key and (to is None or b == to)]


def config(broker_id: int, **extra: str) -> KafkaConfig:
    return KafkaConfig({"broker.id": str(broker_id), "auto.leader.rebalance.enable": "false", **extra})


def registration(broker_id: int) -> zd.BrokerRegistration:
    return zd.BrokerRegistration(broker_id, (zd.EndPoint("PLAINTEXT", "127.0.0.1", 9090 + broker_id),))


def leadership(c: KafkaController, tp: TopicPartition) -> LeaderAndIsr:
    """What the controller knows of ``tp``'s leadership (it must know the partition)."""
    s = c.ctx.leader_and_isr(tp)
    assert s is not None, f"the controller knows no {tp}"
    return s


async def wait_until(cond: Callable[[], Any], timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


async def znode(zk: KafkaZkClient, path: str) -> Any:
    data, _ = await zk.get_data(path)
    return json.loads(data) if data else None


def run(zookeeper, n: int, body: Callable[..., Awaitable[None]]) -> None:
    async def main() -> None:
        # a short session (expiry tests wait for it) but a patient first connection: on a
        # loaded CI machine the shared ZooKeeper may take more than 6 s to accept one
        zks = [KafkaZkClient(zookeeper.connect_string, session_timeout_ms=6000,
                             connection_timeout_ms=30_000) for _ in range(n)]
        for zk in zks:
            await zk.start()
        await zks[0].ensure_persistent_paths()
        epochs = [await zk.register_broker(registration(i + 1)) for i, zk in enumerate(zks)]
        try:
            await body(zks, epochs)
        finally:
            for zk in zks:
                await zk.close()
    asyncio.run(main())


def started(zk: KafkaZkClient, broker_id: int, recorder: Recorder, **extra: str) -> KafkaController:
    return KafkaController(config(broker_id, **extra), zk, broker_id, time.time,
                           asyncio.get_running_loop(), recorder.factory(broker_id))


def test_election_topic_creation_failover_and_requests(zookeeper):
    async def body(zks: list[KafkaZkClient], epochs: list[int]) -> None:
        a, b = zks
        rec = Recorder()
        c1 = started(a, 1, rec)
        await c1.startup(epochs[0])
        await wait_until(lambda: c1.is_active)
        assert c1.epoch == 1
        data, stat = await a.get_data(zd.CONTROLLER_EPOCH_PATH)
        assert stat is not None
        assert data == b"1" and stat.version == 1
        assert (await znode(a, zd.CONTROLLER_PATH))["brokerid"] == 1
        # UpdateMetadata to both brokers, each with its own epoch
        umrs = await wait_until(lambda: {r.broker_epoch for r in rec.of(UMR)} >= set(epochs) and rec.of(UMR))
        assert all(u.controller_id == 1 and u.controller_epoch == 1 for u in umrs)
        assert sorted(x.id for x in umrs[0].live_brokers) == [1, 2]

        c2 = started(b, 2, rec)
        await c2.startup(epochs[1])
        await wait_until(lambda: c2.active_controller_id == 1)
        assert not c2.is_active

        # a topic written as AdminZkClient does, without a topic id (pre-2.8 tools)
        await a.set_or_create_entity_config(zd.ConfigType.TOPIC, "t", {"retention.ms": "1000"})
        await a.create_topic_assignment("t", zd.TopicAssignment.of(None, {0: [1, 2], 1: [2, 1]}))
        state0 = await wait_until(lambda: znode(a, zd.partition_state_path("t", 1)))
        assert await znode(a, zd.partition_state_path("t", 0)) == {
            "controller_epoch": 1, "leader": 1, "version": 1, "leader_epoch": 0, "isr": [1, 2]}
        assert state0 == {"controller_epoch": 1, "leader": 2, "version": 1, "leader_epoch": 0, "isr": [2, 1]}
        topic = await znode(a, zd.topic_path("t"))
        assert topic["version"] == 3 and topic["partitions"] == {"0": [1, 2], "1": [2, 1]}
        assert len(topic["topic_id"]) == 22
        topic_id = zd.topic_id_from_str(topic["topic_id"])
        lairs = await wait_until(lambda: rec.of(LAIR, to=2))
        lair = lairs[-1]
        assert (lair.controller_id, lair.controller_epoch, lair.broker_epoch) == (1, 1, epochs[1])
        (ts,) = lair.topic_states
        assert ts.topic_name == "t" and ts.topic_id == topic_id
        assert [(p.partition_index, p.leader, p.isr, p.is_new, p.partition_epoch) for p in ts.partition_states] \
            == [(0, 1, [1, 2], True, 0), (1, 2, [2, 1], True, 0)]

        # AlterPartition: leader 1 shrinks partition 0's ISR
        req = AlterPartitionRequest(broker_id=1, broker_epoch=epochs[0], topics=[AlterPartitionRequest.TopicData(
            topic_id=topic_id, partitions=[AlterPartitionRequest.PartitionData(
                partition_index=0, leader_epoch=0, new_isr_with_epochs=[
                    AlterPartitionRequest.BrokerState(broker_id=1, broker_epoch=epochs[0])],
                partition_epoch=0)])])
        resp = await c1.alter_partition(req, 3)
        (p,) = resp.topics[0].partitions
        assert (resp.error_code, p.error_code, p.leader_id, p.leader_epoch, p.isr, p.partition_epoch) == \
            (0, 0, 1, 0, [1], 1)
        assert (await c1.alter_partition(req, 3)).topics[0].partitions[0].partition_epoch == 1  # idempotent
        stale = AlterPartitionRequest(broker_id=1, broker_epoch=epochs[0] - 1, topics=req.topics)
        assert (await c1.alter_partition(stale, 3)).error_code == ErrorCode.STALE_BROKER_EPOCH
        assert (await c2.alter_partition(req, 3)).error_code == ErrorCode.NOT_CONTROLLER
        assert await znode(a, zd.partition_state_path("t", 0)) == {
            "controller_epoch": 1, "leader": 1, "version": 1, "leader_epoch": 0, "isr": [1]}

        # failover: the first controller's session ends
        await c1.shutdown()
        await a.close()
        await wait_until(lambda: c2.is_active)
        assert c2.epoch == 2
        assert (await b.get_data(zd.CONTROLLER_EPOCH_PATH))[0] == b"2"
        # partition 0 lost its only ISR member: no clean leader (unclean election is off)
        # (the new controller handles broker 1's end after it became active: wait for its write)
        async def rewritten() -> dict[str, Any] | None:
            state = await znode(b, zd.partition_state_path("t", 1))
            return state if state is not None and state["controller_epoch"] == 2 else None
        s0 = await wait_until(rewritten)
        assert s0 == {"controller_epoch": 2, "leader": 2, "version": 1, "leader_epoch": 1, "isr": [2]}
        assert (await znode(b, zd.partition_state_path("t", 0)))["leader"] in (-1, 1)
        result = await c2.elect_leaders(1, [("t", 0)])  # unclean
        assert result == {("t", 0): (ErrorCode.NONE, None)}
        s = await znode(b, zd.partition_state_path("t", 0))
        assert (s["leader"], s["isr"], s["controller_epoch"], s.get("leader_recovery_state")) == (2, [2], 2, 1)
        pref = await c2.elect_leaders(0, [("t", 0)])
        assert pref[("t", 0)][0] == ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE

        # deletion
        mark = len(rec.sent)
        await b.create_delete_topic_path("t")
        await wait_until(lambda: rec.of(STOP, to=2, since=mark))
        (stop,) = rec.of(STOP, to=2, since=mark)
        assert [(p.partition_index, p.delete_partition, p.leader_epoch) for p in stop.topic_states[0].partition_states] \
            == [(0, True, -2), (1, True, -2)]

        async def gone() -> bool:
            return (await b.exists(zd.topic_path("t"))) is None and not await b.get_topic_deletions()
        await wait_until(gone)
        await c2.shutdown()
    run(zookeeper, 2, body)


def test_broker_change_and_controlled_shutdown(zookeeper):
    async def body(zks: list[KafkaZkClient], epochs: list[int]) -> None:
        a, b, c = zks
        rec = Recorder({LAIR: 1, STOP: 0, UMR: 4})  # old versions: ungrouped layouts
        c1 = started(a, 1, rec)
        await c1.startup(epochs[0])
        await wait_until(lambda: c1.is_active)
        await a.create_topic_assignment("u", zd.TopicAssignment.of("AAAAAAAAAAAAAAAAAAAAAQ", {0: [2, 3], 1: [3, 2]}))
        await wait_until(lambda: znode(a, zd.partition_state_path("u", 1)))
        lair = (await wait_until(lambda: rec.of(LAIR, to=3)))[-1]
        assert sorted((s.topic_name, s.partition_index) for s in lair.ungrouped_partition_states) == \
            [("u", 0), ("u", 1)]

        mark = len(rec.sent)
        error, remaining = await c1.controlled_shutdown(3, epochs[2])
        assert (error, remaining) == (ErrorCode.NONE, [])
        assert await znode(a, zd.partition_state_path("u", 1)) == {
            "controller_epoch": 1, "leader": 2, "version": 1, "leader_epoch": 1, "isr": [2]}
        assert (await znode(a, zd.partition_state_path("u", 0)))["isr"] == [2]
        stops = await wait_until(lambda: rec.of(STOP, to=3, since=mark))
        assert [(p.topic_name, p.partition_index) for p in stops[0].ungrouped_partitions] == [("u", 0)]
        assert stops[0].delete_partitions is False
        # broker 3 follows u-0 and is taken out of its ISR: the LeaderAndIsr for that goes to
        # the other replicas only (Kafka's OfflineReplica), 3 keeps the StopReplica
        told = [(s.topic_name, s.partition_index) for r in rec.of(LAIR, to=3, since=mark)
                for s in r.ungrouped_partition_states]
        assert ("u", 0) not in told and ("u", 1) in told
        assert ("u", 0) in [(s.topic_name, s.partition_index) for r in rec.of(LAIR, to=2, since=mark)
                            for s in r.ungrouped_partition_states]
        assert (await c1.controlled_shutdown(3, epochs[2] - 1))[0] == ErrorCode.STALE_BROKER_EPOCH

        # broker 3 goes away, comes back with a new epoch: it gets its partitions again
        await c.close()
        await wait_until(lambda: 3 not in c1.ctx.live_brokers)
        c_new = KafkaZkClient(c.connect, session_timeout_ms=6000)
        await c_new.start()
        try:
            mark = len(rec.sent)
            epoch3 = await c_new.register_broker(registration(3))
            lairs = await wait_until(lambda: rec.of(LAIR, to=3, since=mark))
            assert c1.ctx.broker_epochs[3] == epoch3  # (LeaderAndIsr v1 carries no broker epoch)
            assert {s.partition_index for s in lairs[0].ungrouped_partition_states} == {0, 1}
            umr = (await wait_until(lambda: rec.of(UMR, to=3, since=mark)))[0]
            assert sorted(x.id for x in umr.live_brokers) == [1, 2, 3]
            # UpdateMetadata reaches the returning broker before LeaderAndIsr names its leaders
            assert [k for _, b, k, _, _ in rec.sent[mark:] if b == 3][:2] == [UMR, LAIR]

            # producer id blocks for a broker that asks the controller (AllocateProducerIds)
            block = await c1.allocate_producer_ids(3, epoch3)
            assert isinstance(block, zd.ProducerIdBlock), block
            assert (block.broker_id, block.size) == (3, 1000)
            assert await c1.allocate_producer_ids(3, epochs[2]) == ErrorCode.STALE_BROKER_EPOCH
            assert await c1.allocate_producer_ids(9, 1) == ErrorCode.BROKER_ID_NOT_REGISTERED

            # leader 2 takes 3 back into u-1's ISR; the imbalance check gives 3 its leadership back
            s1 = leadership(c1, ("u", 1))
            req = AlterPartitionRequest(broker_id=2, broker_epoch=epochs[1], topics=[AlterPartitionRequest.TopicData(
                topic_name="u", partitions=[AlterPartitionRequest.PartitionData(
                    partition_index=1, leader_epoch=s1.leader_epoch, new_isr=[2, 3],
                    partition_epoch=s1.partition_epoch)])])
            assert (await c1.alter_partition(req, 1)).topics[0].partitions[0].isr == [2, 3]
            c1._events.put(ce.AutoPreferredReplicaLeaderElection())
            await wait_until(lambda: leadership(c1, ("u", 1)).leader == 3)
            assert await znode(a, zd.partition_state_path("u", 1)) == {
                "controller_epoch": 1, "leader": 3, "version": 1, "leader_epoch": 2, "isr": [2, 3]}
        finally:
            await c1.shutdown()
            await c_new.close()
    run(zookeeper, 3, body)


def test_session_expiry_resigns_at_once_and_a_new_session_reelects(zookeeper):
    from kazoo.client import KazooClient

    async def body(zks: list[KafkaZkClient], epochs: list[int]) -> None:
        (a,) = zks
        rec = Recorder()
        c1 = started(a, 1, rec)
        await c1.startup(epochs[0])
        await wait_until(lambda: c1.is_active)
        # expire the session: a twin client with the same credentials closes it on the server
        session_id, password = a.kazoo.client_id
        twin = KazooClient(hosts=a.connect, client_id=(session_id, password))
        await asyncio.to_thread(twin.start, 15)
        await asyncio.to_thread(twin.stop)
        twin.close()
        await wait_until(lambda: not c1.is_active)
        await wait_until(lambda: c1._channels is None)  # resigned: channels closed
        await wait_until(lambda: a.session_id not in (0, session_id))
        epoch = await a.register_broker(registration(1))
        mark = len(rec.sent)
        await c1.on_new_session(epoch)
        await wait_until(lambda: c1.is_active)
        assert c1.epoch == 2
        umr = (await wait_until(lambda: rec.of(UMR, since=mark)))[0]
        assert (umr.controller_epoch, umr.broker_epoch) == (2, epoch)
        await c1.shutdown()
    run(zookeeper, 1, body)


def test_a_failed_log_dir_moves_leadership_off_its_replicas(zookeeper):
    """Broker 3 writes a log dir event; the controller asks it (LeaderAndIsr) which replicas
    are offline, elects another leader for the one it led and takes it out of the ISR."""
    failed: set[tuple[str, int]] = set()  # broker 3's replicas in its failed dir, once it fails
    R = LeaderAndIsrResponse

    def respond(to: int, key: int, body: Any) -> Any:
        if key != LAIR:
            return RESPONSES[key]()
        return R(error_code=0, topics=[R.LeaderAndIsrTopicError(topic_id=t.topic_id, partition_errors=[
            R.LeaderAndIsrPartitionError(partition_index=p.partition_index, error_code=int(
                ErrorCode.KAFKA_STORAGE_ERROR if to == 3 and (t.topic_name, p.partition_index) in failed
                else ErrorCode.NONE)) for p in t.partition_states]) for t in body.topic_states])

    async def body(zks: list[KafkaZkClient], epochs: list[int]) -> None:
        a, _, c = zks
        rec = Recorder(respond=respond)
        c1 = started(a, 1, rec)
        await c1.startup(epochs[0])
        try:
            await wait_until(lambda: c1.is_active)
            await a.create_topic_assignment("d", zd.TopicAssignment.of("AAAAAAAAAAAAAAAAAAAAAg",
                                                                       {0: [2, 3], 1: [3, 2]}))
            await wait_until(lambda: znode(a, zd.partition_state_path("d", 1)))
            assert (await znode(a, zd.partition_state_path("d", 1)))["leader"] == 3
            mark = len(rec.sent)
            failed.add(("d", 1))
            await c.propagate_log_dir_event(3)
            await wait_until(lambda: leadership(c1, ("d", 1)).leader == 2)
            assert await znode(a, zd.partition_state_path("d", 1)) == {
                "controller_epoch": 1, "leader": 2, "version": 1, "leader_epoch": 1, "isr": [2]}
            assert (await znode(a, zd.partition_state_path("d", 0)))["isr"] == [2, 3]  # its dir works
            assert c1.ctx.replicas_on_offline_dirs == {3: {("d", 1)}}
            asked = [(t.topic_name, p.partition_index) for r in rec.of(LAIR, to=3, since=mark)
                     for t in r.topic_states for p in t.partition_states]
            assert {("d", 0), ("d", 1)} <= set(asked)
            assert await wait_until(lambda: _no_events(a))
            umr = await wait_until(lambda: [u for u in rec.of(UMR, since=mark) for t in u.topic_states
                                            for p in t.partition_states if p.offline_replicas == [3]])
            assert umr
        finally:
            await c1.shutdown()
    run(zookeeper, 3, body)


async def _no_events(zk: KafkaZkClient) -> bool:
    return await zk.get_log_dir_events() == {}
