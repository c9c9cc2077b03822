"""Issue 22, defect 1: turning unclean.leader.election.enable on (for a topic, or for the
brokers dynamically) has the controller elect a leader for partitions left without a live
ISR member at once, as Kafka's processTopicUncleanLeaderElectionEnable and
processUncleanLeaderElectionEnable do, instead of at the next broker change.

KafkaController and ZkAdminManager in-process against a real ZooKeeper; the config change
goes through ``/config/changes`` as kafka-configs --alter writes it."""
from __future__ import annotations

import asyncio
import time

import pytest

from kafpy.broker.quotas.entity_configs import EntityConfigs
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
from kafpy.protocol.messages import AlterPartitionRequest
from kafpy.replication import controller_events as ce
from kafpy.replication import zk_data as zd
from kafpy.replication.controller import KafkaController
from kafpy.replication.zk_admin import ZkAdminManager
from kafpy.replication.zk_client import KafkaZkClient
from tests.integration.replication.test_controller import Recorder, config, leadership, run, wait_until, znode

pytestmark = pytest.mark.timeout(120)


async def _shrink_isr_to_leader(c1, zk: KafkaZkClient, epoch: int, tp: tuple[str, int]) -> None:
    """The leader (broker 2) takes the other replica out of the ISR."""
    s = leadership(c1, tp)
    req = AlterPartitionRequest(broker_id=2, broker_epoch=epoch, topics=[AlterPartitionRequest.TopicData(
        topic_name=tp[0], partitions=[AlterPartitionRequest.PartitionData(
            partition_index=tp[1], leader_epoch=s.leader_epoch, new_isr=[2],
            partition_epoch=s.partition_epoch)])])
    assert (await c1.alter_partition(req, 1)).topics[0].partitions[0].isr == [2]


def test_enabling_unclean_election_elects_offline_partitions_at_once(zookeeper):
    async def body(zks: list[KafkaZkClient], epochs: list[int]) -> None:
        a, b, _ = zks
        cfg, loop = config(1), asyncio.get_running_loop()  # one config, as on a broker
        c1 = KafkaController(cfg, a, 1, time.time, loop, Recorder().factory(1))
        await c1.startup(epochs[0])
        admin = ZkAdminManager(cfg, a, MetadataCache("c", BrokerInfo(1, "127.0.0.1", 9091)), c1, time.time, loop,
                               EntityConfigs())
        await admin.start()
        try:
            await wait_until(lambda: c1.is_active)
            for topic, tid in (("w", "AAAAAAAAAAAAAAAAAAAAAw"), ("v", "AAAAAAAAAAAAAAAAAAAABA")):
                await a.create_topic_assignment(topic, zd.TopicAssignment.of(tid, {0: [2, 3]}))
                await wait_until(lambda: znode(a, zd.partition_state_path(topic, 0)))
                # the znode is written before the controller's context takes it in
                await wait_until(lambda: c1.ctx.leader_and_isr((topic, 0)) is not None)
                await _shrink_isr_to_leader(c1, a, epochs[1], (topic, 0))

            await b.close()  # broker 2, the only ISR member, dies: both partitions go offline
            await wait_until(lambda: 2 not in c1.ctx.live_brokers)
            # the broker leaves the live set before the controller has written the partitions'
            # offline state to ZooKeeper (one seen in CI a moment after): wait for that too
            await wait_until(lambda: leadership(c1, ("w", 0)).leader == -1 and leadership(c1, ("v", 0)).leader == -1)
            assert c1.stats.unclean_leader_elections == 0   # UncleanLeaderElectionsPerSec

            # kafka-configs --alter --entity-type topics --entity-name w
            await admin.alter_topic_config("w", {"unclean.leader.election.enable": "true"})
            await wait_until(lambda: leadership(c1, ("w", 0)).leader == 3)
            assert (await znode(a, zd.partition_state_path("w", 0)))["isr"] == [3]
            assert leadership(c1, ("v", 0)).leader == -1  # its topic still says no
            assert c1.stats.unclean_leader_elections == 1

            # kafka-configs --alter --entity-type brokers --entity-default
            await admin.alter_broker_configs({"unclean.leader.election.enable": "true"},
                                             entity_name=zd.DEFAULT_BROKER_ENTITY)
            await wait_until(lambda: leadership(c1, ("v", 0)).leader == 3)
            assert c1.stats.unclean_leader_elections == 2
            assert a.request_latency.count > 0 and max(a.request_latency.recent) < 30_000   # ZooKeeperRequestLatencyMs
            assert c1.event_manager.rate_and_time[ce.ControllerState.TOPIC_UNCLEAN_LEADER_ELECTION_ENABLE].count == 1
        finally:
            await admin.shutdown()
            await c1.shutdown()
    run(zookeeper, 3, body)
