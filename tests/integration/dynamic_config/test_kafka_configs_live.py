"""Live configuration with Apache's kafka-configs.sh on a running three-broker ZooKeeper
cluster, as Kafka's ZooKeeper mode does it:

- ``--entity-type brokers --entity-default --alter`` is stored in
  ``/config/brokers/<default>`` and takes effect on every broker without a restart
  (``message.max.bytes``: a record over it is refused by every leader), and DescribeConfigs
  reports it with source DYNAMIC_DEFAULT_BROKER_CONFIG;
- ``--entity-name 1`` is stored in ``/config/brokers/1``, wins over the default on broker 1
  only, and reports DYNAMIC_BROKER_CONFIG;
- ``--entity-type broker-loggers`` changes a logger's level on that broker at once
  (``kafka.request.logger`` at DEBUG logs every request), and describes the levels;
- the slow-request threshold of the request logger is itself a dynamic broker config;
- ``max.connections.per.ip.overrides`` holds new connections to the new limit at once."""
from __future__ import annotations

import json
import socket

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from tests.integration.cluster.harness import start_cluster, wait_until
from kafpy.protocol import codec
from kafpy.protocol.messages import ApiVersionsRequest, RequestHeader
from tests.support.kafka_dist import run_tool

pytestmark = pytest.mark.timeout(600)
TOPIC = "live-config"


def configs(*args: str) -> str:
    return run_tool("4", "kafka-configs", list(args), timeout=120).stdout


def _znode(zookeeper, path: str) -> dict:
    zk = KazooClient(hosts=zookeeper.connect_string)
    zk.start(timeout=30)
    try:
        data, _ = zk.get(path)
        return json.loads(data)["config"]
    finally:
        zk.stop()


def _produce(bootstrap: str, partition: int, size: int) -> str | None:
    """None when a record of ``size`` bytes is acknowledged, else the error's name."""
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "message.max.bytes": 10_000_000,
                  "retries": 0, "enable.idempotence": False})
    errors: list = []
    p.produce(TOPIC, value=b"x" * size, partition=partition, on_delivery=lambda err, msg: errors.append(err))
    p.flush(30)
    return errors[0].name() if errors and errors[0] is not None else None


def _leaders(admin: AdminClient) -> dict[int, int]:
    return {p.id: p.leader for p in admin.list_topics(TOPIC, timeout=10).topics[TOPIC].partitions.values()}


def _accepted_on(admin: AdminClient, bootstrap: str, broker: int) -> set[bool]:
    """For each partition ``broker`` leads now: whether a 3000-byte record is acknowledged
    (an empty set while it leads none)."""
    return {_produce(bootstrap, p, 3000) is None for p, leader in _leaders(admin).items() if leader == broker}


def _answers_from(source: str, broker) -> socket.socket | None:
    """A connection from ``source`` (another loopback address) that got its ApiVersions
    answer, or None when the broker closed it."""
    s = socket.create_connection((broker.host, broker.port), timeout=10, source_address=(source, 0))
    frame = codec.encode_request(RequestHeader(request_api_key=18, request_api_version=0, correlation_id=1,
                                               client_id="limits"), ApiVersionsRequest())
    try:
        s.sendall(frame)
        if s.recv(4):
            return s
    except OSError:
        pass
    s.close()
    return None


def test_broker_configs_and_loggers_change_on_a_running_cluster(zookeeper, broker_factory):
    brokers = start_cluster(zookeeper, broker_factory, 3)
    bootstrap = ",".join(b.bootstrap for b in brokers)
    bs = ["--bootstrap-server", brokers[0].bootstrap]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, 3, 3)])[TOPIC].result(30)
    wait_until(lambda: all(_produce(bootstrap, p, 3000) is None for p in range(3)), 60,
               "3000-byte records accepted on every partition")
    leaders = _leaders(admin)
    assert set(leaders.values()) == {0, 1, 2}, leaders   # each broker leads one: each one's limit is checked

    # cluster-wide default: stored in /config/brokers/<default>, in force on every broker
    configs(*bs, "--entity-type", "brokers", "--entity-default", "--alter", "--add-config", "message.max.bytes=2000")
    assert _znode(zookeeper, "/config/brokers/<default>") == {"message.max.bytes": "2000"}
    wait_until(lambda: all(_produce(bootstrap, p, 3000) == "MSG_SIZE_TOO_LARGE" for p in range(3)), 60,
               "every leader refuses a 3000-byte record")
    assert _produce(bootstrap, 0, 1000) is None
    out = configs(*bs, "--entity-type", "brokers", "--entity-name", "2", "--describe", "--all")
    assert "message.max.bytes=2000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:message.max.bytes=2000" in out
    out = configs(*bs, "--entity-type", "brokers", "--entity-default", "--describe")
    assert "Default configs for brokers in the cluster are:" in out and "message.max.bytes=2000" in out

    # broker 1's own value wins over the default, on broker 1 only
    configs(*bs, "--entity-type", "brokers", "--entity-name", "1", "--alter", "--add-config", "message.max.bytes=5000")
    assert _znode(zookeeper, "/config/brokers/1") == {"message.max.bytes": "5000"}
    # the partitions each broker leads now (a leader may have moved under load since the start)
    try:
        wait_until(lambda: _accepted_on(admin, bootstrap, 1) == {True}, 60, "broker 1 accepts 3000 bytes again")
    except AssertionError as e:
        now = _leaders(admin)
        raise AssertionError(f"{e}; leaders now {now} (at the start {leaders}); broker 1's log:\n"
                             f"{brokers[1].log_text()[-6000:]}") from None
    assert _accepted_on(admin, bootstrap, 0) == {False}, _leaders(admin)
    out = configs("--bootstrap-server", brokers[1].bootstrap, "--entity-type", "brokers", "--entity-name", "1",
                  "--describe")
    assert ("message.max.bytes=5000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:message.max.bytes=5000, "
            "DYNAMIC_DEFAULT_BROKER_CONFIG:message.max.bytes=2000, DEFAULT_CONFIG:message.max.bytes=1048588}") in out

    # broker-loggers: kafka.request.logger at DEBUG on broker 2 logs every request it serves
    b2 = ["--bootstrap-server", brokers[2].bootstrap]
    out = configs(*b2, "--entity-type", "broker-loggers", "--entity-name", "2", "--describe")
    assert "kafka.request.logger=INFO" in out
    mark = len(brokers[2].log_text())
    configs(*b2, "--entity-type", "broker-loggers", "--entity-name", "2", "--alter", "--add-config",
            "kafka.request.logger=DEBUG")
    assert "kafka.request.logger=DEBUG" in configs(*b2, "--entity-type", "broker-loggers", "--entity-name", "2",
                                                    "--describe")
    wait_until(lambda: "Completed request:{api=DescribeConfigs" in brokers[2].log_text()[mark:], 30,
               "broker 2 logs requests at DEBUG")
    assert "Completed request:" not in brokers[1].log_text()
    configs(*b2, "--entity-type", "broker-loggers", "--entity-name", "2", "--alter", "--delete-config",
            "kafka.request.logger")
    assert "kafka.request.logger=INFO" in configs(*b2, "--entity-type", "broker-loggers", "--entity-name", "2",
                                                   "--describe")
    bad = run_tool("4", "kafka-configs", [*b2, "--entity-type", "broker-loggers", "--entity-name", "2", "--alter",
                                          "--add-config", "kafka.request.logger=LOUD"], check=False)
    assert bad.returncode != 0 and "not a supported log level" in bad.stdout + bad.stderr

    # the request logger's slow-request threshold, for every broker at once
    marks = [len(b.log_text()) for b in brokers]
    configs(*bs, "--entity-type", "brokers", "--entity-default", "--alter", "--add-config",
            "kafpy.request.logger.slow.ms=0")
    for b, m in zip(brokers, marks):
        wait_until(lambda b=b, m=m: (AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=10) and
                                     "Slow request (over 0 ms)" in b.log_text()[m:]), 60,
                   f"{b.name} logs slow requests at INFO")

    # connection limits: one connection from 127.0.0.2 on every broker from now on
    held = [_answers_from("127.0.0.2", b) for b in brokers]
    assert all(held)
    configs(*bs, "--entity-type", "brokers", "--entity-default", "--alter", "--add-config",
            "max.connections.per.ip.overrides=[127.0.0.2:1]")
    for b in brokers:
        wait_until(lambda b=b: _answers_from("127.0.0.2", b) is None, 30,
                   f"{b.name} refuses a second connection from 127.0.0.2")
    assert all(_answers_from("127.0.0.3", b) for b in brokers)   # other addresses keep the default
    for s in held:
        s.close()

