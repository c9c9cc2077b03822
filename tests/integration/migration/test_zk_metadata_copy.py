"""Step one of a ZooKeeper to KRaft migration (KIP-866, as Kafka 3.9 does it): a kafpy KRaft
controller started with ``zookeeper.metadata.migration.enable`` waits for the three ZooKeeper
brokers to register with it, claims ZooKeeper's controller role and copies all of ZooKeeper's
metadata into the metadata log in one migration transaction. Apache Kafka 4.4's
``kafka-dump-log`` reads the log; the image its records replay to holds what ZooKeeper holds."""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from kafpy.metadata.image.configs import ConfigResource, ConfigResourceType
from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.metadata.image.uuids import uuid_str
from kafpy.protocol.messages import (
    BeginTransactionRecord, EndTransactionRecord, RegisterBrokerRecord, ZkMigrationStateRecord,
)
from tests.integration.cluster.harness import metadata, start_cluster, wait_until
from tests.integration.migration.support import (
    CONTROLLER_ID, MigratingController, controller_port, create_user_metadata, migrating_broker_overrides,
    read_znode, read_zookeeper,
)
from tests.support.metadata_json import parse_dump

pytestmark = pytest.mark.timeout(420)

OPERATIONS = {3: "Read", 4: "Write", 8: "Describe"}
PERMISSIONS = {2: "Deny", 3: "Allow"}
RESOURCE_TYPES = {2: "Topic"}
MECHANISMS = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}


def znode(connect: str, path: str) -> Any:
    found = read_znode(connect, path)
    assert found is not None, f"{path} does not exist"
    return found[0]


def test_controller_copies_zookeeper_metadata_into_the_log(zookeeper, broker_factory, tmp_path):
    port = controller_port()
    brokers = start_cluster(zookeeper, broker_factory, **migrating_broker_overrides(port))
    create_user_metadata(brokers)
    epoch_before = znode(zookeeper.connect_string, "/controller_epoch")
    zk_controller_before = metadata(brokers[0]).controller_id
    assert zk_controller_before in (0, 1, 2)

    cluster_id = metadata(brokers[0]).cluster_id
    controller = MigratingController(tmp_path / "controller", port, zookeeper.connect_string, cluster_id)
    controller.start()
    try:
        migration = wait_until(lambda: (lambda m: m is not None and m[0]["kraft_metadata_offset"] > 0 and m[0])(
            read_znode(zookeeper.connect_string, "/migration")), 120, "the migration offset written to /migration")
        zk_after = read_zookeeper(zookeeper.connect_string)
    finally:
        output = controller.output()
        # the brokers first: a migrating broker's controlled shutdown asks the KRaft controller,
        # and with it gone each waited out its shutdown timeout (90 s of teardown)
        for b in brokers:
            b.stop()
        controller.stop()
    assert "Zk brokers are registered and ready for migration" in output, output[-4000:]
    assert "Completed migration of metadata from ZooKeeper to KRaft" in output, output[-4000:]

    # ZooKeeper's controller role is the KRaft controller's, at a newer controller epoch
    registration = znode(zookeeper.connect_string, "/controller")
    assert registration["brokerid"] == CONTROLLER_ID and registration["kraftControllerEpoch"] > 0, registration
    epoch_after = znode(zookeeper.connect_string, "/controller_epoch")
    assert epoch_after > epoch_before
    assert migration["kraft_controller_id"] == CONTROLLER_ID

    batches = parse_dump(controller.dump_log())
    records = [(offset, r) for b in batches for offset, r in b.records]
    states = [(o, r.zk_migration_state) for o, r in records if isinstance(r, ZkMigrationStateRecord)]
    assert [s for _, s in states] == [2, 1], states  # PRE_MIGRATION at activation, then MIGRATION
    begins = [(o, r.name) for o, r in records if isinstance(r, BeginTransactionRecord)]
    ends = [o for o, r in records if isinstance(r, EndTransactionRecord)]
    (begin_zk,) = [o for o, name in begins if name == "ZK Migration"]
    migrated_state_offset = states[1][0]
    end_zk = min(o for o in ends if o > begin_zk)
    assert begin_zk < migrated_state_offset < end_zk
    assert migration["kraft_metadata_offset"] >= end_zk
    # every ZooKeeper broker registered as a migrating ZooKeeper broker before the copy
    registered = {r.broker_id for o, r in records
                  if isinstance(r, RegisterBrokerRecord) and r.is_migrating_zk_broker and o < begin_zk}
    assert registered == {0, 1, 2}

    delta = MetadataDelta(EMPTY_IMAGE)
    delta.replay_all([r for o, r in records if o <= end_zk])
    image = delta.apply(MetadataProvenance(end_zk, 1, 0))

    # topics and partitions: ids, replicas, leaders, ISRs, leader and partition epochs
    assert {name: uuid_str(t.id) for name, t in image.topics.topics_by_name.items()} == zk_after.topic_ids
    got = {(name, p): (list(reg.replicas), list(reg.isr), reg.leader, reg.leader_epoch, reg.partition_epoch)
           for name, t in image.topics.topics_by_name.items() for p, reg in t.partitions.items()}
    assert got == zk_after.partitions
    assert {"orders", "events"} <= set(zk_after.topic_ids) and len(got) >= 6 + 3
    # configs
    for topic, config in zk_after.topic_configs.items():
        assert dict(image.configs.resource_data.get(ConfigResource(ConfigResourceType.TOPIC, topic), {})) == config
    assert dict(image.configs.resource_data[ConfigResource(ConfigResourceType.BROKER, "")]) == \
        zk_after.broker_configs[""] == {"log.cleaner.threads": "2"}
    # SCRAM credentials and quotas
    scram = {(user, MECHANISMS[int(m)]): (c.salt, c.iterations)
             for m, users in image.scram.mechanisms.items() for user, c in users.items()}
    assert scram == zk_after.scram and ("alice", "SCRAM-SHA-256") in scram
    quotas = {entity: dict(values) for entity, values in image.client_quotas.entities.items()}
    assert quotas == zk_after.quotas
    assert quotas[(("user", "alice"),)] == {"producer_byte_rate": 1048576.0}
    # ACLs
    acls = {("PREFIXED" if a.pattern_type == 4 else "LITERAL", RESOURCE_TYPES[a.resource_type], a.resource_name,
             a.principal, a.host, OPERATIONS[a.operation], PERMISSIONS[a.permission_type])
            for a in image.acls.acls.values()}
    assert acls == zk_after.acls and len(acls) == 3
    assert Counter(a.pattern_type for a in image.acls.acls.values()) == Counter({3: 2, 4: 1})
    # the next producer id block follows ZooKeeper's
    assert zk_after.next_producer_id is not None and image.producer_ids.next_producer_id == zk_after.next_producer_id
