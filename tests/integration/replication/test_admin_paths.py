"""The legacy admin znodes Kafka 2.x tools write, served by the in-process KafkaController
against a real ZooKeeper (the recording channel of test_controller stands in for the brokers):
``/admin/preferred_replica_election`` (at failover and on creation, deleted when done) and
``/admin/reassign_partitions`` (partitions leave it as they complete or are refused; an API
reassignment of the same partition replaces the znode's)."""
from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import pytest

from kafpy.protocol.errors import ErrorCode
from kafpy.replication import zk_data as zd
from kafpy.replication.leader_and_isr import LeaderAndIsr
from kafpy.replication.zk_client import MATCH_ANY_VERSION, KafkaZkClient
from tests.integration.replication.test_controller import Recorder, run, started, wait_until, znode
from tests.integration.replication.test_reassign_controller import isr_request

pytestmark = pytest.mark.timeout(120)



def topic_id(topic: str) -> bytes:
    return bytes([ord(topic[0])] * 16)
PREFERRED = zd.PREFERRED_REPLICA_ELECTION_PATH
REASSIGN = zd.REASSIGN_PARTITIONS_PATH


async def topic_with_leaders(zk: KafkaZkClient, topic: str, partitions: dict[int, list[int]],
                             leaders: dict[int, int]) -> None:
    """A topic as ZooKeeper would show it after some leader moves (written before any controller)."""
    await zk.create_topic_assignment(topic, zd.TopicAssignment.of(zd.topic_id_to_str(topic_id(topic)),
                                                                  partitions))
    await zk.create_partition_states({(topic, p): LeaderAndIsr(leaders[p], 0, tuple(partitions[p]))
                                      for p in partitions}, 0, MATCH_ANY_VERSION)


async def leader(zk: KafkaZkClient, topic: str, partition: int) -> tuple[int, int]:
    state = await znode(zk, zd.partition_state_path(topic, partition))
    return state["leader"], state["leader_epoch"]


async def absent(zk: KafkaZkClient, path: str) -> bool:
    return await zk.exists(path) is None


def test_preferred_replica_election_znode(zookeeper):
    async def body(zks: list[KafkaZkClient], epochs: list[int]) -> None:
        a, _ = zks
        await topic_with_leaders(a, "p", {0: [2, 1], 1: [1, 2]}, {0: 1, 1: 1})
        await topic_with_leaders(a, "q", {0: [2, 1]}, {0: 1})
        # written while no controller runs: the new controller serves it at failover
        await a.create_admin_request(PREFERRED, zd.encode_partition_list([("p", 0), ("p", 1), ("nope", 0)]))
        c1 = started(a, 1, Recorder())
        await c1.startup(epochs[0])
        await wait_until(lambda: absent(a, PREFERRED))
        assert await leader(a, "p", 0) == (2, 1)
        assert await leader(a, "p", 1) == (1, 0)  # already led by its preferred replica: untouched
        assert await leader(a, "q", 0) == (1, 0)  # not asked for

        # created while the controller runs: the watch fires, the election runs, the znode goes
        await a.create_admin_request(PREFERRED, zd.encode_partition_list([("q", 0)]))
        await wait_until(lambda: absent(a, PREFERRED))
        assert await leader(a, "q", 0) == (2, 1)

        # and again (the watch was re-armed); nothing to move, still deleted
        await a.create_admin_request(PREFERRED, zd.encode_partition_list([("q", 0)]))
        await wait_until(lambda: absent(a, PREFERRED))
        assert await leader(a, "q", 0) == (2, 1)
        await c1.shutdown()
    run(zookeeper, 2, body)


def test_reassign_partitions_znode(zookeeper):
    async def body(zks: list[KafkaZkClient], epochs: list[int]) -> None:
        a, _, _ = zks
        # written while no controller runs: started at failover
        await topic_with_leaders(a, "f", {0: [1, 2]}, {0: 1})
        await a.create_admin_request(REASSIGN, zd.encode_partition_reassignment({("f", 0): [1, 2, 3]}))
        c1 = started(a, 1, Recorder())
        await c1.startup(epochs[0])
        await wait_until(lambda: equals(topic_adding(a, "f"), {"0": [3]}))
        assert (await znode(a, zd.topic_path("f")))["partitions"] == {"0": [1, 2, 3]}
        assert await zk_request(a) == {("f", 0): (1, 2, 3)}
        # broker 3 joins the ISR: the reassignment completes and the znode, now empty, goes
        state = await znode(a, zd.partition_state_path("f", 0))
        _, stat = await a.get_data(zd.partition_state_path("f", 0))
        assert stat is not None
        resp = await c1.alter_partition(isr_request(1, epochs, topic_id("f"), state, [1, 2, 3],
                                                    stat.version), 3)
        assert resp.topics[0].partitions[0].error_code == 0
        await wait_until(lambda: absent(a, REASSIGN))
        assert (await znode(a, zd.topic_path("f")))["partitions"] == {"0": [1, 2, 3]}

        # created while the controller runs: a no-op move completes at once, an unknown
        # partition and an invalid target are refused; only the real move stays listed
        await a.create_topic_assignment("r", zd.TopicAssignment.of(zd.topic_id_to_str(topic_id("r")),
                                                                   {0: [1, 2], 1: [1, 2]}))
        await wait_until(lambda: znode(a, zd.partition_state_path("r", 1)))
        await a.create_admin_request(REASSIGN, zd.encode_partition_reassignment({
            ("r", 0): [2, 3], ("r", 1): [1, 2], ("nope", 0): [1], ("f", 0): [1, 1]}))
        await wait_until(lambda: equals(topic_adding(a, "r"), {"0": [3]}))
        await wait_until(lambda: equals(zk_request(a), {("r", 0): (2, 3)}))
        assert (await c1.list_partition_reassignments(None))[1].keys() == {("r", 0)}

        # an API reassignment of the same partition replaces it: the znode goes
        result = await c1.alter_partition_reassignments({("r", 0): [1, 3]})
        assert result == {("r", 0): (ErrorCode.NONE, None)}
        await wait_until(lambda: absent(a, REASSIGN))
        assert await topic_adding(a, "r") == {"0": [3]}

        # the watch was re-armed: a later request is served too (cancelling back to [1, 2])
        await a.create_admin_request(REASSIGN, zd.encode_partition_reassignment({("r", 0): [1, 2]}))
        await wait_until(lambda: absent(a, REASSIGN))
        topic = await znode(a, zd.topic_path("r"))
        assert (topic["partitions"]["0"], topic["adding_replicas"]) == ([1, 2], {})
        await c1.shutdown()
    run(zookeeper, 3, body)


async def topic_adding(zk: KafkaZkClient, topic: str) -> dict | None:
    return (await znode(zk, zd.topic_path(topic)) or {}).get("adding_replicas")


async def zk_request(zk: KafkaZkClient) -> dict | None:
    data = await zk.get_admin_request(REASSIGN)
    return None if data is None else zd.decode_partition_reassignment(data)


async def equals(value: Awaitable[Any], expected: Any) -> bool:
    return await value == expected
