"""ACLs on a standalone broker with the authorizer on (PLAINTEXT: every client is
User:ANONYMOUS): Apache's kafka-acls.sh (4.x) grants and revokes produce and consume rights,
a principal without a right is refused and nothing is written or read, and, last, with every
right denied, a walk over every API key the broker serves shows none returns data or changes
state. One broker for the module, made with the topic and its first record; the tests run in
order on it, but each one holds without the others (a file's tests may be split between test
processes), so none relies on what an earlier one created."""
from __future__ import annotations

import base64
import functools
import json
import time

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.records import build_batch
from tests.integration.broker.raw import RawConnection, create_topic, produce_request
from tests.integration.security import raw_acls
from tests.integration.security.raw_acls import create_acl, delete_acls
from tests.integration.security.walk import ACCEPTABLE, AUTH_ERRORS, walk_every_api
from tests.support.kafka_dist import run_tool
from tests.support.kafpy_broker import KafpyBroker

ANON = "User:ANONYMOUS"
TOPIC, GROUP = "sensor", "alerts"


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    work = tmp_path_factory.mktemp("kafpy-acls")
    b = KafpyBroker(work_dir=work, log_dir=work / "logs", start_timeout=150, overrides={
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "allow.everyone.if.no.acl.found": "true", "auto.create.topics.enable": "false",
        "offsets.topic.replication.factor": "1", "group.initial.rebalance.delay.ms": "0",
        "transaction.state.log.replication.factor": "1", "transaction.state.log.min.isr": "1",
        "transaction.state.log.num.partitions": "1"})
    b.start()
    try:
        # no ACLs yet: allow.everyone.if.no.acl.found lets ANONYMOUS create and write
        create_topic(b.port, TOPIC)
        assert produce(b, b"open") == ErrorCode.NONE
        yield b
    finally:
        b.stop()


def acls(broker, *args: str, version: str = "4") -> str:
    return run_tool(version, "kafka-acls", ["--bootstrap-server", broker.bootstrap, *args]).stdout


def create_topic_error(broker, name: str) -> int:
    T = M.CreateTopicsRequest
    with RawConnection("127.0.0.1", broker.port) as c:
        resp = c.request(19, 5, T(timeout_ms=30000, validate_only=False, topics=[T.CreatableTopic(
            name=name, num_partitions=1, replication_factor=1, assignments=[], configs=[])]))
    return resp.topics[0].error_code


def init_producer_id(broker, transactional_id: str | None) -> int:
    """InitProducerId's error, retried while the transaction coordinator is being set up
    (FindCoordinator first, which makes the broker create __transaction_state)."""
    req = M.InitProducerIdRequest(transactional_id=transactional_id, transaction_timeout_ms=60000,
                                  producer_id=-1, producer_epoch=-1)
    retriable = (ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR,
                 ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
    for _ in range(100):
        with RawConnection("127.0.0.1", broker.port) as c:
            if transactional_id is not None:
                c.request(10, 3, M.FindCoordinatorRequest(key=transactional_id, key_type=1))
            error = c.request(22, 4, req).error_code
        if error not in retriable:
            return error
        time.sleep(0.2)
    return error


def produce(broker, value: bytes) -> int:
    with RawConnection("127.0.0.1", broker.port) as c:
        resp = c.request(0, 9, produce_request(TOPIC, build_batch([(None, value)])))
    return resp.responses[0].partition_responses[0].error_code


def fetch(broker) -> tuple[int, bytes | None]:
    F = M.FetchRequest
    req = F(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=0, topics=[
        F.FetchTopic(topic=TOPIC, partitions=[F.FetchPartition(partition=0, fetch_offset=0,
                                                               partition_max_bytes=1 << 20)])])
    with RawConnection("127.0.0.1", broker.port) as c:
        resp = c.request(1, 11, req)
    p = resp.responses[0].partitions[0]
    return p.error_code, bytes(p.records) if p.records else None


def end_offset(broker) -> int:
    """The partition's log end, from the log file (ListOffsets might be refused)."""
    from kafpy.protocol.records import iter_batches
    data = b"".join(f.read_bytes() for f in sorted((broker.log_dir / f"{TOPIC}-0").glob("*.log")))
    return sum(h.records_count for _, h in iter_batches(data))


def consume_with_group(broker) -> list[bytes]:
    from kafka import KafkaConsumer
    c = KafkaConsumer(TOPIC, bootstrap_servers=broker.bootstrap, group_id=GROUP, auto_offset_reset="earliest",
                      consumer_timeout_ms=8000)
    try:
        return [m.value for m in c]
    finally:
        c.close()


@pytest.mark.timeout(300)
def test_grant_and_revoke_produce_and_consume_with_apache_kafka_acls(broker):
    assert end_offset(broker) == 1  # the fixture's "open", written before any ACL existed
    # an ACL for someone else: the topic now has ACLs, and ANONYMOUS has none of them
    acls(broker, "--add", "--allow-principal", "User:alice", "--producer", "--topic", TOPIC)
    assert produce(broker, b"refused") == ErrorCode.TOPIC_AUTHORIZATION_FAILED
    assert fetch(broker) == (ErrorCode.TOPIC_AUTHORIZATION_FAILED, None)
    assert end_offset(broker) == 1
    acls(broker, "--add", "--allow-principal", ANON, "--producer", "--topic", TOPIC)
    assert produce(broker, b"granted") == ErrorCode.NONE
    assert end_offset(broker) == 2
    listed = acls(broker, "--list", "--topic", TOPIC)
    assert "principal=User:alice" in listed and f"principal={ANON}" in listed and "operation=WRITE" in listed
    # consume as a group needs READ on the topic and on the group
    acls(broker, "--add", "--allow-principal", ANON, "--operation", "Read", "--topic", TOPIC)
    acls(broker, "--add", "--deny-principal", ANON, "--operation", "Read", "--group", GROUP)
    from kafka.errors import GroupAuthorizationFailedError
    with pytest.raises(GroupAuthorizationFailedError):
        consume_with_group(broker)
    acls(broker, "--remove", "--force", "--deny-principal", ANON, "--operation", "Read", "--group", GROUP)
    acls(broker, "--add", "--allow-principal", ANON, "--consumer", "--topic", TOPIC, "--group", GROUP)
    assert consume_with_group(broker) == [b"open", b"granted"]
    acls(broker, "--remove", "--force", "--allow-principal", ANON, "--producer", "--topic", TOPIC)
    assert produce(broker, b"revoked") == ErrorCode.TOPIC_AUTHORIZATION_FAILED
    assert end_offset(broker) == 2
    # kept in the metadata file beside the topics, in Kafka's JSON names
    state = json.loads((broker.log_dir / "cluster-metadata.json").read_text())
    assert {"resourceType": "Group", "name": GROUP, "patternType": "Literal", "acls": [
        {"principal": ANON, "permissionType": "Allow", "operation": "Read", "host": "*"}]} in state["acls"]


def session_fetch(conn: RawConnection, session_id: int, epoch: int, offset: int = 0):
    """Fetch v12 in a session: the full fetch (epoch 0) names the partition, later ones none."""
    F = M.FetchRequest
    topics = [F.FetchTopic(topic=TOPIC, partitions=[F.FetchPartition(
        partition=0, fetch_offset=offset, partition_max_bytes=1 << 20, current_leader_epoch=-1,
        last_fetched_epoch=-1, log_start_offset=-1)])] if epoch == 0 else []
    return conn.request(1, 12, F(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=0,
                                 session_id=session_id, session_epoch=epoch, topics=topics,
                                 forgotten_topics_data=[], rack_id=""))


@pytest.mark.timeout(120)
def test_revoked_read_stops_an_incremental_fetch_session_that_holds_the_topic(broker):
    """As Kafka: every partition of the session is checked on every fetch, not only those the
    request names."""
    with RawConnection("127.0.0.1", broker.port) as c:
        full = session_fetch(c, 0, 0)
        assert full.error_code == ErrorCode.NONE and full.session_id != 0
        (p,) = full.responses[0].partitions
        assert p.error_code == ErrorCode.NONE and p.records
        create_acl(broker, raw_acls.TOPIC, TOPIC, raw_acls.READ, raw_acls.DENY)
        try:
            inc = session_fetch(c, full.session_id, 1)
        finally:
            assert delete_acls(broker, raw_acls.TOPIC, TOPIC) >= 1
            create_acl(broker, raw_acls.TOPIC, TOPIC, raw_acls.READ, raw_acls.ALLOW)
        assert inc.error_code == ErrorCode.NONE
        assert [(t.topic, [(q.partition_index, q.error_code, bytes(q.records or b"")) for q in t.partitions])
                for t in inc.responses] == [(TOPIC, [(0, ErrorCode.TOPIC_AUTHORIZATION_FAILED, b"")])]


@pytest.mark.timeout(300)
def test_create_and_transactional_rights_granted_and_revoked_with_apache_3_9_kafka_acls(broker):
    """Apache's 3.9 tool this time. Cluster ACLs let ANONYMOUS keep managing ACLs (ALTER and
    DESCRIBE) while alice holds the create and transactional rights; ANONYMOUS is refused
    until granted and again once revoked, and nothing is created meanwhile."""
    a39 = functools.partial(acls, broker, version="3.9")
    a39("--add", "--allow-principal", ANON, "--operation", "Alter", "--operation", "Describe", "--cluster")
    a39("--add", "--allow-principal", "User:alice", "--operation", "Create", "--topic", "made-",
        "--resource-pattern-type", "prefixed")
    a39("--add", "--allow-principal", "User:alice", "--producer", "--topic", TOPIC, "--transactional-id", "rig-tx",
        "--idempotent")
    assert create_topic_error(broker, "made-1") == ErrorCode.TOPIC_AUTHORIZATION_FAILED
    assert init_producer_id(broker, "rig-tx") == ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    # the cluster has ACLs now, and ANONYMOUS may write no topic: no idempotent producer either
    assert init_producer_id(broker, None) == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
    a39("--add", "--allow-principal", ANON, "--operation", "Create", "--topic", "made-",
        "--resource-pattern-type", "prefixed")
    a39("--add", "--allow-principal", ANON, "--producer", "--topic", TOPIC, "--transactional-id", "rig-tx")
    assert create_topic_error(broker, "made-1") == ErrorCode.NONE
    assert init_producer_id(broker, "rig-tx") == ErrorCode.NONE
    assert init_producer_id(broker, None) == ErrorCode.NONE  # WRITE on a topic is enough, as in Kafka
    a39("--remove", "--force", "--allow-principal", ANON, "--operation", "Create", "--topic", "made-",
        "--resource-pattern-type", "prefixed")
    a39("--remove", "--force", "--allow-principal", ANON, "--producer", "--topic", TOPIC,
        "--transactional-id", "rig-tx")
    assert create_topic_error(broker, "made-2") == ErrorCode.TOPIC_AUTHORIZATION_FAILED
    assert init_producer_id(broker, "rig-tx") == ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    state = json.loads((broker.log_dir / "cluster-metadata.json").read_text())
    assert [t["name"] for t in state["topics"] if t["name"].startswith("made-")] == ["made-1"]


@pytest.mark.timeout(300)
def test_every_api_refuses_an_unauthorized_principal(broker):
    """Deny ANONYMOUS everything, then send each API the broker serves a request naming the
    topic, the group and a transactional id: each answer is an authorization error (or the
    connection closes) and the logs, offsets and metadata are as before."""
    for resource in (["--topic", "*"], ["--group", "*"], ["--transactional-id", "*"], ["--cluster"]):
        acls(broker, "--add", "--deny-principal", ANON, "--operation", "All", *resource)
    before = (end_offset(broker), (broker.log_dir / "cluster-metadata.json").read_text())
    state = json.loads(before[1])
    topic_id = next(base64.b64decode(t["topic_id"]) for t in state["topics"] if t["name"] == TOPIC)
    results = walk_every_api(broker.port, TOPIC, GROUP, topic_id)
    leaks = {k: r for k, r in results.items() if r not in AUTH_ERRORS | ACCEPTABLE}
    assert not leaks, leaks
    assert results[3] == "TOPIC_AUTHORIZATION_FAILED"  # Metadata names the topic, refused
    assert (end_offset(broker), (broker.log_dir / "cluster-metadata.json").read_text()) == before
