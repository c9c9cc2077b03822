"""The share coordinator fails over with its `__share_group_state` partition: on the
three-broker ZooKeeper cluster, share-partition state is written to the coordinator (every
write acknowledged only once committed to the in-sync replicas), a broker that is not the
coordinator answers NOT_COORDINATOR, then the coordinator's broker is killed (SIGKILL). The
partition's next leader loads it and answers the last acknowledged state: no acknowledged
write is lost, and writes go on there."""
from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace

import pytest
from kafka import KafkaAdminClient
from kafka.admin import NewTopic

from kafpy.broker.share_persister import BrokerSharePersister
from kafpy.coordinator.share_state.persister import SharePartitionKey
from kafpy.replication.network_client import NetworkClient, NetworkClientConfig
from kafpy.protocol.errors import ErrorCode as E
from tests.integration.broker.raw import RawConnection
from tests.integration.cluster.harness import metadata, start_cluster, wait_until
from tests.integration.coordinator.test_share_coordinator import (batches, find_share_coordinator, initialize, read,
                                                                  summary, write)

TOPIC = "share-failover"
WRITES = 25


def _create_topic(broker) -> uuid.UUID:
    admin = KafkaAdminClient(bootstrap_servers=[broker.bootstrap], request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic(TOPIC, 1, 3)])
    finally:
        admin.close()
    md = wait_until(lambda: (lambda md: md.topics[0].partitions and md.topics[0].partitions[0].leader_id >= 0
                             and md)(metadata(broker, [TOPIC])), 30, f"{TOPIC} has a leader")
    return uuid.UUID(bytes=bytes(md.topics[0].topic_id))


def _coordinator(broker, key: SharePartitionKey, not_on: int = -1) -> int:
    """The node that coordinates `key` as `broker` sees it, once it is not `not_on` and has
    loaded the state partition."""
    def found():
        with RawConnection(broker.host, broker.port) as c:
            co = find_share_coordinator(c, key)
        if co.error_code != E.NONE or co.node_id == not_on:
            return None
        return co
    co = wait_until(found, 60, f"a share coordinator for {key} other than {not_on}")
    return co.node_id


class _ClusterView:
    """What the broker's SharePersister reads of its metadata cache, read afresh from a
    broker's Metadata each time (so a persister outside the cluster follows a failover)."""

    def __init__(self, broker) -> None:
        self._broker = broker

    def topic(self, name: str):
        try:
            md = metadata(self._broker, [name])
        except OSError:
            return None
        (t,) = md.topics
        self._brokers = {b.node_id: SimpleNamespace(node_id=b.node_id, host=b.host, port=b.port)
                         for b in md.brokers}
        return SimpleNamespace(partitions={p.partition_index: SimpleNamespace(leader=p.leader_id)
                                           for p in t.partitions})

    def broker(self, node: int):
        return self._brokers.get(node)


def _remote_read(via, key: SharePartitionKey, leader_epoch: int):
    """ReadShareGroupState through the broker's SharePersister as another broker runs it
    (no local coordinator, the RPC over a NetworkClient), retrying as it does."""
    async def run():
        loop = asyncio.get_running_loop()
        persister = BrokerSharePersister(
            -1, _ClusterView(via), lambda: None,
            lambda b: NetworkClient(b.host, b.port, client_id="share-persister-test", node_id=b.node_id, loop=loop,
                                    config=NetworkClientConfig(request_timeout_ms=5000)),
            loop, max_wait_ms=60_000)
        try:
            return await persister.read_state(key, leader_epoch)
        finally:
            await persister.close()
    return asyncio.run(run())


@pytest.mark.timeout(150)
def test_state_survives_killing_the_coordinator(zookeeper, broker_factory):
    brokers = start_cluster(zookeeper, broker_factory, **{
        "share.coordinator.state.topic.num.partitions": 1,
        "share.coordinator.snapshot.update.records.per.snapshot": 10})
    key = SharePartitionKey("share-fo", _create_topic(brokers[0]), 0)
    coord_id = _coordinator(brokers[0], key)
    coord = brokers[coord_id]
    other = brokers[(coord_id + 1) % 3]

    with RawConnection(coord.host, coord.port) as c:
        wait_until(lambda: summary(c, key).error_code == E.NONE, 30, "the coordinator loaded its partition")
        assert initialize(c, key, 0, 0).error_code == E.NONE
        for i in range(WRITES):
            # record i acknowledged (2), i+1..i+3 acquired-then-released (0): the last write leaves
            # start offset WRITES-1 and batches from there on
            assert write(c, key, 0, 1, i, [(i, i, 2, 1), (i + 1, i + 3, 0, 1)]).error_code == E.NONE
        last = read(c, key, 1)
    expected = (E.NONE, 0, WRITES - 1, [(WRITES - 1, WRITES - 1, 2, 1), (WRITES, WRITES + 2, 0, 1)])
    assert (last.error_code, last.state_epoch, last.start_offset, batches(last)) == expected

    with RawConnection(other.host, other.port) as c:
        assert read(c, key, 1).error_code == E.NOT_COORDINATOR
        assert write(c, key, 0, 1, 0, []).error_code == E.NOT_COORDINATOR

    r = _remote_read(other, key, 1)
    assert (r.error_code, r.state_epoch, r.start_offset) == expected[:3]
    assert [(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count) for b in r.batches] == expected[3]

    coord.kill()
    # the persister finds the new coordinator by itself (NOT_COORDINATOR, connection errors,
    # loading: retried with backoff) and reads the last acknowledged state there
    r = _remote_read(other, key, 2)
    assert (r.error_code, r.state_epoch, r.start_offset) == expected[:3]
    assert [(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count) for b in r.batches] == expected[3]
    new_id = _coordinator(other, key, not_on=coord_id)
    new = brokers[new_id]
    with RawConnection(new.host, new.port) as c:
        # answered once the partition is loaded and the new leader epoch is recorded
        # (committed to the surviving in-sync replicas)
        after = wait_until(lambda: (lambda p: p.error_code == E.NONE and p)(read(c, key, 2)), 30,
                           "the new coordinator answers the state")
        assert (after.error_code, after.state_epoch, after.start_offset, batches(after)) == expected
        # the old leader epoch is fenced, the new one writes on
        assert write(c, key, 0, 1, WRITES, []).error_code == E.FENCED_LEADER_EPOCH
        assert write(c, key, 0, 2, WRITES, [(WRITES, WRITES, 2, 2)]).error_code == E.NONE
        p = read(c, key, 2)
        assert (p.start_offset, batches(p)) == (WRITES, [(WRITES, WRITES, 2, 2), (WRITES + 1, WRITES + 2, 0, 1)])
