"""MirrorMaker 2 (Apache's dedicated driver, its defaults: topic ACL sync on) between two
kafpy brokers, with and without an authorizer: it runs without logging an error, copies a
topic's records to ``src.<topic>``, and, with an authorizer, copies the topic ACLs MM2
copies (ALLOW ALL becomes ALLOW READ, ALLOW WRITE is not copied, the others as they are);
without one the brokers answer the ACL APIs SECURITY_DISABLED, which MM2 takes as "no ACL
sync". Only the internal topics' replication factors (one broker per cluster) and the
intervals (seconds, not minutes) differ from MM2's defaults."""
from __future__ import annotations

import pytest

from tests.integration.broker.raw import create_topic, produce_with_client, read_all
from tests.integration.cluster.harness import wait_until
from tests.integration.security.mirror_maker import MirrorMaker
from tests.integration.security.raw_acls import ALLOW, DENY, READ, TOPIC, create_acl, topic_acls

pytestmark = pytest.mark.timeout(240)

ALL, WRITE = 2, 4
SETTINGS = {
    "topics": "mm-.*", "replication.factor": 1, "checkpoints.topic.replication.factor": 1,
    "heartbeats.topic.replication.factor": 1, "offset-syncs.topic.replication.factor": 1,
    "offset.storage.replication.factor": 1, "config.storage.replication.factor": 1,
    "status.storage.replication.factor": 1, "refresh.topics.interval.seconds": 2,
    "sync.topic.acls.interval.seconds": 2, "sync.topic.configs.interval.seconds": 2,
}
AUTHORIZER = {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:ANONYMOUS"}
SOURCE_ACLS = [("User:alice", READ, ALLOW), ("User:bob", ALL, ALLOW), ("User:carol", WRITE, ALLOW),
               ("User:dave", READ, DENY)]
COPIED = {("src.mm-data", "User:alice", "*", READ, ALLOW), ("src.mm-data", "User:bob", "*", READ, ALLOW),
          ("src.mm-data", "User:dave", "*", READ, DENY)}


@pytest.mark.parametrize("authorizer", [False, True], ids=["no-authorizer", "authorizer"])
def test_mirror_maker_copies_records_and_topic_acls(broker_factory, tmp_path, authorizer):
    overrides = {"offsets.topic.replication.factor": 1, "group.initial.rebalance.delay.ms": 0,
                 **(AUTHORIZER if authorizer else {})}
    source, target = broker_factory(overrides), broker_factory(overrides)
    create_topic(source.port, "mm-data")
    values = [f"v{i}".encode() for i in range(10)]
    produce_with_client(source.bootstrap, "mm-data", values)
    if authorizer:
        for principal, operation, permission in SOURCE_ACLS:
            create_acl(source, TOPIC, "mm-data", operation, permission, principal=principal)
    mm = MirrorMaker(tmp_path / "mm2", source.bootstrap, target.bootstrap, SETTINGS)
    mm.start()
    try:
        wait_until(lambda: [v for _, _, v in read_all(target.bootstrap, "src.mm-data")] == values
                   if "src.mm-data" in target_topics(target) else False, 90, "MM2 copied mm-data's records")
        if authorizer:
            wait_until(lambda: topic_acls(target) == COPIED, 30, "MM2 copied the topic ACLs")
        assert mm.proc.poll() is None, mm.log_text()[-3000:]
        assert mm.errors() == [], "\n".join(mm.errors())
        if not authorizer:
            assert "No ACL authorizer is configured on the source Kafka cluster" in mm.log_text()
    finally:
        mm.stop()


def target_topics(broker) -> set[str]:
    from tests.integration.cluster.harness import metadata
    return {t.name for t in metadata(broker).topics}
