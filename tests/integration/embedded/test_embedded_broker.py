"""kafpy.embedded's brokers seen from a client: start, topics, kill/restart, a cut listener."""
from __future__ import annotations

import json
import re
import time

import pytest
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient
from kafka.errors import KafkaTimeoutError, TopicAlreadyExistsError

from kafpy import EmbeddedBroker, EmbeddedCluster
from kafpy.embedded import TEST_DEFAULTS
from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from tests.integration.broker.raw import RawConnection
from tests.support.kafka_dist import run_tool


def consume_all(bootstrap: str, topic: str, expected: int, timeout: float = 30.0) -> list[bytes]:
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                             consumer_timeout_ms=1000)
    got: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while len(got) < expected and time.monotonic() < deadline:
            got += [m.value for m in consumer]
    finally:
        consumer.close()
    return got


def test_context_manager_starts_a_broker_with_settings_and_removes_its_files():
    with EmbeddedBroker({"log.segment.bytes": 1 << 20}) as broker:
        assert broker.running and broker.bootstrap_servers == f"127.0.0.1:{broker.port}"
        settings = broker.properties_path.read_text()
        assert "log.segment.bytes=1048576" in settings
        assert f"offsets.topic.num.partitions={TEST_DEFAULTS['offsets.topic.num.partitions']}" in settings
        assert "Kafka Server started" in broker.log_text() or "started" in broker.log_text()
        work_dir = broker.work_dir
    assert not broker.running and not work_dir.exists()


def test_create_topic_with_partitions_and_config(tmp_path):
    with EmbeddedBroker(work_dir=tmp_path) as broker:
        broker.create_topic("orders", partitions=3, config={"cleanup.policy": "compact"})
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap_servers)
        try:
            [described] = admin.describe_topics(["orders"])
            assert len(described["partitions"]) == 3
            with pytest.raises(TopicAlreadyExistsError):
                broker.create_topic("orders")
        finally:
            admin.close()
    assert (tmp_path / "broker.log").exists(), "a caller's work dir is kept"


def test_kill_and_restart_keep_port_and_acknowledged_records(tmp_path):
    with EmbeddedBroker(work_dir=tmp_path) as broker:
        port = broker.port
        broker.create_topic("events")
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, acks="all")
        producer.send("events", b"before").get(timeout=30)
        broker.kill()
        assert not broker.running and broker.exit_codes == [-9]
        broker.start()
        producer.send("events", b"after").get(timeout=60)
        producer.close()
        broker.restart()
        assert broker.port == port and broker.exit_codes == [-9, 0]
        assert consume_all(broker.bootstrap_servers, "events", 2) == [b"before", b"after"]
        assert broker.log_text().count("### ") == 3  # one command line per start


def test_cut_listener_resets_clients_until_restored():
    with EmbeddedBroker(cuttable=True) as broker:
        broker.create_topic("cut")
        broker.cut_listener()
        with pytest.raises(KafkaTimeoutError):  # bootstrap_timeout_ms: kafka-python waits 30 s by default
            KafkaProducer(bootstrap_servers=broker.bootstrap_servers, max_block_ms=1500,
                          request_timeout_ms=1000, bootstrap_timeout_ms=1500).send("cut", b"x").get(timeout=5)
        assert broker.running
        broker.restore_listener()
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
        producer.send("cut", b"y").get(timeout=30)
        producer.close()


def test_cut_listener_needs_a_cuttable_broker():
    broker = EmbeddedBroker()
    with pytest.raises(RuntimeError, match="cuttable=True"):
        broker.cut_listener()
    broker.close()


def test_a_broker_that_cannot_start_reports_its_log(tmp_path):
    broker = EmbeddedBroker({"num.partitions": "zero"}, work_dir=tmp_path)
    with pytest.raises(RuntimeError, match="num.partitions"):
        broker.start()
    assert not broker.running


# A dead broker is noticed when its session runs out (Kafka's 9 s in KRaft, 18 s with ZooKeeper):
# short sessions here, the failover they lead to is the same.
FAST_FAILOVER = {"broker.heartbeat.interval.ms": 500, "broker.session.timeout.ms": 2000,
                 "zookeeper.session.timeout.ms": 2000}


@pytest.mark.parametrize("mode", ["kraft", "zookeeper"])
def test_cluster_survives_the_loss_of_a_broker(tmp_path, mode):
    with EmbeddedCluster(3, FAST_FAILOVER, work_dir=tmp_path, mode=mode) as cluster:
        assert len(cluster.bootstrap_servers.split(",")) == 3
        if mode == "kraft":  # no ZooKeeper: three combined nodes, one quorum Kafka's tool sees
            assert cluster.zookeeper is None
            assert cluster.quorum is not None
            controller = f"127.0.0.1:{cluster.quorum.controller_ports[1]}"
            status = run_tool("4", "kafka-metadata-quorum", ["--bootstrap-controller", controller,
                                                             "describe", "--status"]).stdout
            voters = re.search(r"^CurrentVoters:\s+(\[.*\])$", status, re.M)
            assert voters and voters[1].count('"id":') == 3, status
        cluster.create_topic("replicated", partitions=2, replication_factor=3,
                             config={"min.insync.replicas": 2})
        producer = KafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks="all",
                                 retries=20, retry_backoff_ms=200)
        producer.send("replicated", b"one", partition=0).get(timeout=30)
        cluster.brokers[0].kill()
        producer.send("replicated", b"two", partition=0).get(timeout=60)
        producer.close()
        survivors = ",".join(b.bootstrap_servers for b in cluster.brokers[1:])
        assert consume_all(survivors, "replicated", 2) == [b"one", b"two"]
        if mode == "kraft":
            # the controller fenced the dead broker: DescribeCluster v2 lists it on request
            # (KIP-1073), with IsFenced, and leaves it out otherwise
            host, port = cluster.brokers[1].bootstrap_servers.split(":")

            def described(include: bool) -> list[tuple[int, bool]]:
                with RawConnection(host, int(port)) as c:
                    r = c.request(ApiKey.DESCRIBE_CLUSTER, 2, M.DescribeClusterRequest(
                        include_cluster_authorized_operations=False, endpoint_type=1,
                        include_fenced_brokers=include))
                return [(b.broker_id, b.is_fenced) for b in r.brokers]
            deadline = time.monotonic() + 30
            while described(True) != [(0, True), (1, False), (2, False)]:
                assert time.monotonic() < deadline, described(True)
                time.sleep(0.2)
            assert described(False) == [(1, False), (2, False)]
        if mode == "zookeeper":  # no controller to end the last one's controlled shutdown: it
            for b in cluster.brokers[1:]:  # retries every 5 s, as Kafka's does
                b.kill()
            return
        # a clean stop of the survivors: the last has no quorum left to end its controlled
        # shutdown with, and stops waiting once no controller answered for a session
        assert [b.stop() for b in reversed(cluster.brokers[1:])] == [0, 0]
        assert "No controller has answered a heartbeat for" in cluster.brokers[1].log_text()
        assert "No controller has answered" not in cluster.brokers[2].log_text()  # its quorum let it go
        # each kept the epoch it registered with for its next registration (KIP-966), as Kafka
        for b in cluster.brokers[1:]:
            marker = json.loads((b.log_dir / ".kafka_cleanshutdown").read_text())
            assert marker["version"] == 0 and marker["brokerEpoch"] >= 0, marker
        # started again alone, a node cannot register without a quorum: a SIGTERM still ends it
        # at once (as Kafka's shutdown hook), not when its minute to register runs out (or
        # stop()'s SIGKILL after 30 s)
        lone = cluster.brokers[1].start()
        assert lone.stop() == 0
        assert "Stopped during start-up; shutting down what started" in lone.log_text()


def test_a_failing_with_block_keeps_the_log_and_says_where(capfd):
    with pytest.raises(ZeroDivisionError):
        with EmbeddedBroker() as broker:
            1 / 0
    assert not broker.running
    assert broker.output_path.is_file()
    assert str(broker.output_path) in capfd.readouterr().err
    broker.keep_files = False
    broker.close()
    assert not broker.work_dir.exists()
