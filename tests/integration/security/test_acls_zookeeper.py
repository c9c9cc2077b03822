"""ACLs kept in ZooKeeper are one set for the whole cluster: two kafpy brokers and one Apache
Kafka 3.9.1 broker (ZooKeeper mode, ``kafka.security.authorizer.AclAuthorizer``) on one
ZooKeeper. An ACL created through any of them is enforced by all the others as soon as they
have read the change notification, literal and prefixed alike, and deleting it through
another broker lifts it everywhere. Enforcement is judged by Metadata for a topic the ACL
denies DESCRIBE on (no topic needs to exist: Kafka answers TOPIC_AUTHORIZATION_FAILED before
it looks)."""
from __future__ import annotations

import pytest

from kafpy.protocol.errors import ErrorCode
from tests.integration.cluster.harness import metadata, wait_until
from tests.integration.security.raw_acls import DENY, DESCRIBE, LITERAL, PREFIXED, TOPIC, create_acl, delete_acls
from tests.support.zk_kafka import ZkReferenceKafka

pytestmark = pytest.mark.timeout(300)

AUTHORIZER = {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
              "allow.everyone.if.no.acl.found": "true", "auto.create.topics.enable": "false",
              "zookeeper.session.timeout.ms": 6000}


@pytest.fixture
def apache(zookeeper, tmp_path_factory):
    work = tmp_path_factory.mktemp("apache-acl")
    kafka = ZkReferenceKafka(zookeeper.connect_string, 2, overrides=AUTHORIZER, work_dir=work,
                             log_dir=work / "data")
    try:
        kafka.start()
        yield kafka
    finally:
        kafka.stop()


def deny_describe(broker, name: str, pattern_type: int) -> None:
    create_acl(broker, TOPIC, name, DESCRIBE, DENY, pattern_type)


def delete(broker, name: str, pattern_type: int) -> int:
    return delete_acls(broker, TOPIC, name, pattern_type)


def describe_error(broker, topic: str) -> int:
    (t,) = metadata(broker, [topic]).topics
    return t.error_code


def refused_everywhere(brokers, topic: str) -> None:
    for b in brokers:
        wait_until(lambda b=b: describe_error(b, topic) == ErrorCode.TOPIC_AUTHORIZATION_FAILED, 20,
                   f"{b.name} refuses to describe {topic}")


def allowed_everywhere(brokers, topic: str) -> None:
    for b in brokers:
        wait_until(lambda b=b: describe_error(b, topic) == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 20,
                   f"{b.name} describes {topic} again")


def test_acls_written_by_any_broker_are_enforced_by_every_broker(zookeeper, broker_factory, apache):
    kafpy = [broker_factory({**AUTHORIZER, "broker.id": i}, zookeeper=zookeeper) for i in range(2)]
    everyone = [*kafpy, apache]
    for name in ("kafpy-literal", "kafpy-prefixed-x", "apache-literal", "apache-prefixed-x"):
        assert describe_error(kafpy[1], name) == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    # written by kafpy 0, read by kafpy 1 and by Apache
    deny_describe(kafpy[0], "kafpy-literal", LITERAL)
    deny_describe(kafpy[0], "kafpy-prefixed-", PREFIXED)
    refused_everywhere(everyone, "kafpy-literal")
    refused_everywhere(everyone, "kafpy-prefixed-x")
    # written by Apache, read by both kafpy brokers
    deny_describe(apache, "apache-literal", LITERAL)
    deny_describe(apache, "apache-prefixed-", PREFIXED)
    refused_everywhere(everyone, "apache-literal")
    refused_everywhere(everyone, "apache-prefixed-x")
    # deleted by the other kind: lifted everywhere
    assert delete(apache, "kafpy-literal", LITERAL) == 1
    assert delete(apache, "kafpy-prefixed-", PREFIXED) == 1
    assert delete(kafpy[1], "apache-literal", LITERAL) == 1
    assert delete(kafpy[1], "apache-prefixed-", PREFIXED) == 1
    for name in ("kafpy-literal", "kafpy-prefixed-x", "apache-literal", "apache-prefixed-x"):
        allowed_everywhere(everyone, name)
