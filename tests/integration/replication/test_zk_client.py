"""KafkaZkClient against a real ZooKeeper: registration and broker epoch, controller election
and fencing, partition-state CAS, producer-id blocks, session expiry."""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from kazoo.client import KazooClient

from kafpy.replication import zk_data as zd
from kafpy.replication.leader_and_isr import LeaderAndIsr
from kafpy.replication.zk_client import (BrokerIdInUseError, ControllerMovedError, CreateOp, KafkaZkClient,
                                   NodeExistsError, SessionState)

pytestmark = pytest.mark.timeout(120)


def registration(broker_id: int, port: int = 9092) -> zd.BrokerRegistration:
    return zd.BrokerRegistration(broker_id, (zd.EndPoint("PLAINTEXT", "127.0.0.1", port),))


def run(zookeeper, body: Callable[..., Awaitable[None]], clients: int = 1, **kwargs) -> None:
    """Run ``body(*clients)`` with started clients that are closed afterwards."""
    async def main() -> None:
        zks = [KafkaZkClient(zookeeper.connect_string, session_timeout_ms=6000, **kwargs)
               for _ in range(clients)]
        for zk in zks:
            await zk.start()
        try:
            await body(*zks)
        finally:
            for zk in zks:
                await zk.close()
    asyncio.run(main())


def raw_client(zookeeper) -> KazooClient:
    client = KazooClient(hosts=zookeeper.connect_string)
    client.start(timeout=15)
    return client


def test_persistent_paths_cluster_id_and_broker_registration(zookeeper):
    async def body(a: KafkaZkClient, b: KafkaZkClient) -> None:
        await a.ensure_persistent_paths()
        await b.ensure_persistent_paths()  # idempotent
        for path in zd.PERSISTENT_PATHS:
            # no data (null), as Kafka creates them: its Java readers reject empty JSON
            data, stat = await a.get_data(path)
            assert stat is not None and data is None, path
        assert await a.get_cluster_id() is None
        assert await a.get_or_create_cluster_id("EfeGfqByQRWyjpXa2RWzkQ") == "EfeGfqByQRWyjpXa2RWzkQ"
        assert await b.get_or_create_cluster_id("another-id-xxxxxxxxxxx") == "EfeGfqByQRWyjpXa2RWzkQ"

        epoch1 = await a.register_broker(registration(1, 9092))
        data, stat = await b.get_data(zd.broker_path(1))
        assert stat is not None
        assert stat.czxid == epoch1 and stat.ephemeralOwner == a.session_id
        assert zd.BrokerRegistration.decode(1, data).endpoints == registration(1).endpoints
        assert await a.register_broker(registration(1, 9092)) == epoch1  # our own node: same epoch
        with pytest.raises(BrokerIdInUseError):
            await b.register_broker(registration(1, 9093))
        epoch2 = await b.register_broker(registration(2, 9093))
        assert epoch2 > epoch1
        brokers = await a.get_all_brokers_and_epochs()
        assert {i: e for i, (_, e) in brokers.items()} == {1: epoch1, 2: epoch2}
    run(zookeeper, body, clients=2)


def test_controller_election_race_and_stale_controller_is_fenced(zookeeper):
    async def body(a: KafkaZkClient, b: KafkaZkClient, c: KafkaZkClient) -> None:
        await a.ensure_persistent_paths()
        results = await asyncio.gather(a.register_controller_and_increment_epoch(1),
                                       b.register_controller_and_increment_epoch(2),
                                       return_exceptions=True)
        winners = [r for r in results if not isinstance(r, BaseException)]
        losers = [r for r in results if isinstance(r, BaseException)]
        assert len(winners) == 1 and len(losers) == 1, results
        assert isinstance(losers[0], ControllerMovedError)
        epoch, epoch_zk_version = winners[0]
        assert epoch == 1 and await c.get_controller_epoch() == (1, epoch_zk_version)
        winner_id = 1 if not isinstance(results[0], BaseException) else 2
        assert await c.get_controller_id() == winner_id

        # a fenced write by the current controller succeeds
        winner = a if winner_id == 1 else b
        await winner.controller_op(CreateOp(zd.FEATURE_PATH, zd.FeatureZNode().encode()),
                                   epoch_zk_version)
        data, _ = await c.get_data(zd.FEATURE_PATH)
        assert zd.FeatureZNode.decode(data) == zd.FeatureZNode()

        # the controller's znode goes away: c takes over with epoch 2
        await winner.delete_controller(epoch_zk_version)
        new_epoch, new_version = await c.register_controller_and_increment_epoch(3)
        assert new_epoch == 2 and new_version > epoch_zk_version
        assert await a.get_controller_id() == 3

        # the old controller's writes are refused, the new one's go through
        await c.create_topic_assignment("t", zd.TopicAssignment.of("_XR2JmRDQXGMY7sIhV02gw", {0: [1, 2]}))
        grown = zd.TopicAssignment.of("_XR2JmRDQXGMY7sIhV02gw", {0: [1, 2], 1: [2, 1]})
        with pytest.raises(ControllerMovedError):
            await winner.set_topic_assignment("t", grown, epoch_zk_version)
        assignment = await a.get_topic_assignment("t")
        assert assignment is not None and assignment.partitions.keys() == {0}
        await c.set_topic_assignment("t", grown, new_version)
        assert (await a.get_topic_assignment("t")) == grown
        with pytest.raises(NodeExistsError):
            await c.create_topic_assignment("t", grown)
    run(zookeeper, body, clients=3)


def test_partition_state_create_and_cas_conflict(zookeeper):
    async def body(zk: KafkaZkClient) -> None:
        await zk.ensure_persistent_paths()
        epoch, ver = await zk.register_controller_and_increment_epoch(1)
        await zk.create_topic_assignment("t", zd.TopicAssignment.of(None, {0: [1, 2], 1: [2, 1]}))
        created = await zk.create_partition_states(
            {("t", 0): LeaderAndIsr.initial(1, [1, 2]), ("t", 1): LeaderAndIsr.initial(2, [2, 1])},
            epoch, ver)
        assert created[("t", 0)] == LeaderAndIsr(1, 0, (1, 2), partition_epoch=0)
        again = await zk.create_partition_states({("t", 0): LeaderAndIsr.initial(1, [1, 2])}, epoch, ver)
        assert isinstance(again[("t", 0)], NodeExistsError)
        state = await zk.get_partition_state("t", 0)
        assert state == zd.LeaderIsrAndControllerEpoch(LeaderAndIsr(1, 0, (1, 2)), epoch)

        # controller writes at partition epoch 0 -> zkVersion 1
        shrunk = state.leader_and_isr.new_leader_and_isr(1, [1])
        result = await zk.update_leader_and_isr({("t", 0): shrunk}, epoch, ver)
        assert result.to_retry == [] and result.finished[("t", 0)] == shrunk.with_partition_epoch(1)
        # a second writer still holding partition epoch 0 loses the race and must re-read
        stale = state.leader_and_isr.new_leader_and_isr(2, [2])
        fresh = created[("t", 1)]
        assert isinstance(fresh, LeaderAndIsr), fresh
        result = await zk.update_leader_and_isr({("t", 0): stale, ("t", 1): fresh}, epoch, ver)
        assert result.to_retry == [("t", 0)]
        finished = result.finished[("t", 1)]
        assert isinstance(finished, LeaderAndIsr), finished
        assert finished.partition_epoch == 1
        states = await zk.get_partition_states([("t", 0), ("t", 1), ("t", 9)])
        assert states[("t", 0)].leader_and_isr == LeaderAndIsr(1, 1, (1,), partition_epoch=1)
        assert ("t", 9) not in states
        # a stale controller epoch fences partition writes too
        with pytest.raises(ControllerMovedError):
            await zk.update_leader_and_isr({("t", 1): finished}, epoch, ver - 1)
    run(zookeeper, body)


def test_producer_id_blocks_from_two_clients_never_overlap(zookeeper):
    async def body(a: KafkaZkClient, b: KafkaZkClient) -> None:
        await a.ensure_persistent_paths()
        blocks = await asyncio.gather(*(zk.allocate_producer_id_block(i)
                                        for _ in range(5) for i, zk in ((1, a), (2, b))))
        ranges = sorted((blk.first_id, blk.last_id) for blk in blocks)
        assert ranges == [(i * 1000, i * 1000 + 999) for i in range(10)]
        assert {blk.broker_id for blk in blocks} == {1, 2}
        data, _ = await a.get_data(zd.PRODUCER_ID_BLOCK_PATH)
        assert data is not None
        last_block = zd.ProducerIdBlock.decode(data)
        assert last_block is not None and last_block.last_id == 9999
    run(zookeeper, body, clients=2)


def test_producer_id_blocks_keep_coming_through_a_session_expiry(zookeeper):
    """Blocks claimed back to back while ZooKeeper expires the session: the claims in flight
    or refused meanwhile wait for the new session and go again, none fails (a producer's
    InitProducerId would get UNKNOWN_SERVER_ERROR) and no id is handed out twice."""
    async def body(zk: KafkaZkClient) -> None:
        await zk.ensure_persistent_paths()
        session_id, password = zk.kazoo.client_id
        blocks: list[zd.ProducerIdBlock] = []

        async def claim() -> None:
            while zk.session_id in (0, session_id) or len(blocks) < 10:
                blocks.append(await zk.allocate_producer_id_block(1))

        claims = asyncio.create_task(claim())
        while len(blocks) < 5:
            await asyncio.sleep(0.01)
        twin = KazooClient(hosts=zookeeper.connect_string, client_id=(session_id, password))
        await asyncio.to_thread(twin.start, 15)
        await asyncio.to_thread(twin.stop)
        twin.close()
        await asyncio.wait_for(claims, 60)
        assert zk.session_id not in (0, session_id)
        firsts = [blk.first_id for blk in blocks]
        assert firsts == sorted(set(firsts)), "no block twice, in order"
        data, _ = await zk.get_data(zd.PRODUCER_ID_BLOCK_PATH)
        assert zd.ProducerIdBlock.decode(data) == blocks[-1]
    run(zookeeper, body)


def test_configs_notifications_and_topic_deletion(zookeeper):
    async def body(zk: KafkaZkClient) -> None:
        await zk.ensure_persistent_paths()
        _, ver = await zk.register_controller_and_increment_epoch(1)
        await zk.change_entity_config(zd.ConfigType.TOPIC, "t", {"retention.ms": "3600000"})
        await zk.change_entity_config(zd.ConfigType.TOPIC, "t", {"min.insync.replicas": "2"})
        assert await zk.get_entity_config(zd.ConfigType.TOPIC, "t") == {"min.insync.replicas": "2"}
        changes = sorted(await zk.get_children(zd.CONFIG_CHANGES_PATH))
        assert [zd.sequence_number(c, zd.CONFIG_CHANGE_PREFIX) for c in changes] == [0, 1]
        data, _ = await zk.get_data(f"{zd.CONFIG_CHANGES_PATH}/{changes[0]}")
        assert zd.decode_config_change(data) == "topics/t"

        await zk.create_topic_assignment("t", zd.TopicAssignment.of(None, {0: [1]}))
        await zk.create_partition_states({("t", 0): LeaderAndIsr.initial(1, [1])}, 1, ver)
        fired = asyncio.Event()
        assert await zk.get_topic_deletions(watch=lambda ev: fired.set()) == set()
        await zk.create_delete_topic_path("t")
        await asyncio.wait_for(fired.wait(), 10)  # the watch was handed to the loop
        assert await zk.get_topic_deletions() == {"t"}
        with pytest.raises(NodeExistsError):
            await zk.create_delete_topic_path("t")
        await zk.delete_topic("t", ver)
        assert await zk.get_all_topics() == set()
        assert await zk.exists(zd.config_entity_path("topics", "t")) is None
        assert await zk.get_topic_deletions() == set()
    run(zookeeper, body)


def test_session_expiry_drops_the_registration_and_a_new_session_follows(zookeeper):
    states: list[SessionState] = []
    changed = asyncio.Event()

    def on_state(state: SessionState) -> None:
        states.append(state)
        changed.set()

    async def wait_for(state: SessionState) -> None:
        while state not in states:
            changed.clear()
            await asyncio.wait_for(changed.wait(), 30)

    async def body(zk: KafkaZkClient) -> None:
        await wait_for(SessionState.CONNECTED)
        await zk.ensure_persistent_paths()
        epoch = await zk.register_broker(registration(5))
        await zk.register_controller_and_increment_epoch(5)
        observer = raw_client(zookeeper)
        try:
            assert observer.exists(zd.broker_path(5)) is not None
            # expire the session the way kazoo's test harness does: a second client with the
            # same session credentials closes it on the server
            session_id, password = zk.kazoo.client_id
            twin = KazooClient(hosts=zookeeper.connect_string, client_id=(session_id, password))
            twin.start(timeout=15)
            twin.stop()
            twin.close()
            await wait_for(SessionState.EXPIRED)
            assert observer.exists(zd.broker_path(5)) is None
            assert observer.exists(zd.CONTROLLER_PATH) is None
            await wait_for(SessionState.NEW_SESSION)
            assert zk.session_id != session_id
            new_epoch = await zk.register_broker(registration(5))
            assert new_epoch > epoch  # a bounced broker: larger czxid
            assert await zk.register_controller_and_increment_epoch(5) == (2, 2)
        finally:
            observer.stop()
            observer.close()
    run(zookeeper, body, on_session_state=on_state)
