"""A share group on the three-broker ZooKeeper cluster when the broker coordinating it is
killed (SIGKILL): the new leader of its `__consumer_offsets` partition loads the group from
the replicated ShareGroup* records, and the member heartbeats on at its epoch with its
assignment, unfenced."""
from __future__ import annotations

from confluent_kafka.admin import AdminClient, NewTopic

from kafpy.coordinator.group.partitioner import partition_for
from kafpy.scripts.kafka_console_share_consumer import ShareConsumer
from kafpy.scripts.share_group_client import ShareGroupAdmin
from tests.integration.cluster.harness import metadata, start_cluster, wait_until

TOPIC, GROUP = "sg-failover", "sg-failover-group"
OVERRIDES = {"group.share.heartbeat.interval.ms": 500, "group.share.min.heartbeat.interval.ms": 500,
             "offsets.topic.num.partitions": 5, "min.insync.replicas": 1,
             "share.coordinator.state.topic.num.partitions": 3}


def test_a_share_group_moves_with_its_coordinator(zookeeper, broker_factory):
    brokers = start_cluster(zookeeper, broker_factory, **OVERRIDES)
    bootstrap = ",".join(b.bootstrap for b in brokers)
    topics_admin = AdminClient({"bootstrap.servers": bootstrap})
    topics_admin.create_topics([NewTopic(TOPIC, 3, 3)])[TOPIC].result(60)
    with ShareGroupAdmin(bootstrap) as admin:
        member = ShareConsumer(admin, GROUP, TOPIC, "failover-test", 1)

        def assigned():
            member.heartbeat()
            return member.assigned == {0, 1, 2}
        wait_until(assigned, 60, "the member's assignment")
        epoch = member.epoch
    offsets_md = metadata(brokers[0], ["__consumer_offsets"]).topics[0]
    n = len(offsets_md.partitions)
    coordinator = {p.partition_index: p.leader_id for p in offsets_md.partitions}[partition_for(GROUP, n)]
    brokers[coordinator].kill()
    survivors = ",".join(b.bootstrap for i, b in enumerate(brokers) if i != coordinator)

    def described():
        with ShareGroupAdmin(survivors) as admin:
            d, _, node = admin.describe(GROUP)
            return d if d.error_code == 0 and node != coordinator else None
    d = wait_until(described, 60, f"the group loaded after broker {coordinator} was killed")
    [m] = d.members
    assert (m.member_id, m.member_epoch) == (member.member_id, epoch)
    with ShareGroupAdmin(survivors) as admin:
        member.admin = admin
        member.heartbeat()
        assert member.epoch == epoch and member.assigned == {0, 1, 2}
