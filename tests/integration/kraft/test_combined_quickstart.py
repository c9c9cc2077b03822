"""Kafka 4's quickstart on kafpy: the ``config/server.properties`` Apache Kafka 4 ships (one
combined ``broker,controller`` node, ``controller.quorum.bootstrap.servers``, the controller
listener advertised too), formatted with our ``kafka-storage.sh format --standalone`` and started
with ``scripts/kafka-server-start.sh``, is a one-node KRaft cluster: it elects itself, registers
its broker, serves a topic, is described by Apache Kafka 4.4's ``kafka-metadata-quorum.sh`` as
Kafka describes its own quickstart node, advertises only the broker listener to clients, stops
on SIGTERM in Kafka's order (broker, then controller, then the raft client) and starts again
from its metadata log."""
from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from tests.integration.scripts.test_server_scripts import wait_for_port
from tests.integration.scripts.tools import run_script, started_script
from tests.support import wire
from tests.support.kafka_dist import run_tool
from tests.support.ports import LOOPBACK, free_ports

pytestmark = pytest.mark.timeout(300)


def quickstart_properties(port: int, controller_port: int, log_dir: Path) -> str:
    """Apache Kafka 4's config/server.properties (its keys and values), on free ports."""
    return "\n".join([
        "process.roles=broker,controller",
        "node.id=1",
        f"controller.quorum.bootstrap.servers={LOOPBACK}:{controller_port}",
        f"listeners=PLAINTEXT://{LOOPBACK}:{port},CONTROLLER://{LOOPBACK}:{controller_port}",
        "inter.broker.listener.name=PLAINTEXT",
        f"advertised.listeners=PLAINTEXT://{LOOPBACK}:{port},CONTROLLER://{LOOPBACK}:{controller_port}",
        "controller.listener.names=CONTROLLER",
        "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,"
        "SASL_SSL:SASL_SSL",
        "num.network.threads=3", "num.io.threads=8",
        "socket.send.buffer.bytes=102400", "socket.receive.buffer.bytes=102400", "socket.request.max.bytes=104857600",
        f"log.dirs={log_dir}",
        "num.partitions=1", "num.recovery.threads.per.data.dir=1",
        "offsets.topic.replication.factor=1", "share.coordinator.state.topic.replication.factor=1",
        "share.coordinator.state.topic.min.isr=1",
        "transaction.state.log.replication.factor=1", "transaction.state.log.min.isr=1",
        "log.retention.hours=168", "log.segment.bytes=1073741824", "log.retention.check.interval.ms=300000",
        "",
    ])


def _roundtrip(bootstrap: str, values: list[bytes], expected: int) -> list[bytes]:
    """Write ``values``, then read the topic from the start: its first ``expected`` records,
    and nothing after them (the partition's end offset is ``expected``)."""
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    for v in values:
        producer.send("quickstart-events", v)
    producer.flush()
    producer.close()
    consumer = KafkaConsumer("quickstart-events", bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                             consumer_timeout_ms=30000, group_id=f"g{len(values)}")
    try:
        got = []
        for r in consumer:
            got.append(r.value)
            if len(got) == expected:
                break
        partition = TopicPartition("quickstart-events", 0)
        assert consumer.end_offsets([partition])[partition] == expected
        return got
    finally:
        consumer.close()


def quorum_status(*bootstrap: str) -> dict[str, str]:
    """kafka-metadata-quorum describe --status, key -> value."""
    out = run_tool("4", "kafka-metadata-quorum", [*bootstrap, "describe", "--status"], timeout=120).stdout
    return {k: v.strip() for k, _, v in (line.partition(":") for line in out.splitlines())}


def test_kafka4_quickstart_config_is_a_one_node_kraft_cluster(tmp_path: Path) -> None:
    port, controller_port = free_ports(2)
    config = tmp_path / "server.properties"
    config.write_text(quickstart_properties(port, controller_port, tmp_path / "kraft-combined-logs"))
    cluster_id = run_script("kafka-storage", "random-uuid").stdout.strip()
    formatted = run_script("kafka-storage", "format", "--standalone", "-t", cluster_id, "-c", str(config))
    assert formatted.returncode == 0, formatted.stderr
    bootstrap = f"{LOOPBACK}:{port}"
    out_path = tmp_path / "server.out"
    with open(out_path, "wb") as out, started_script("kafka-server-start", str(config), stdout=out,
                                                     stderr=subprocess.STDOUT) as proc:
        wait_for_port(port, proc)
        created = run_script("kafka-topics", "--bootstrap-server", bootstrap, "--create", "--topic",
                             "quickstart-events")
        assert created.stdout == "Created topic quickstart-events.\n", created.stderr
        assert _roundtrip(bootstrap, [b"first", b"second"], 2) == [b"first", b"second"]
        # clients are told of the broker listener only, never the controller's
        assert wire.metadata_brokers(LOOPBACK, port) == [(1, LOOPBACK, port)]
        status = quorum_status("--bootstrap-controller", f"{LOOPBACK}:{controller_port}")
        # through the broker listener too: DescribeQuorum forwarded to the controller
        assert list(quorum_status("--bootstrap-server", bootstrap)) == list(status)
        assert status["ClusterId"] == cluster_id and status["LeaderId"] == "1"
        assert status["MaxFollowerLag"] == "0" and status["CurrentObservers"] == "[]"
        (voter,) = json.loads(status["CurrentVoters"])
        assert voter["id"] == 1 and voter["endpoints"] == [f"CONTROLLER://{LOOPBACK}:{controller_port}"]
        assert "directoryId" in voter  # --standalone: a dynamic quorum, kraft.version 1
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=90) == 0, out_path.read_text(errors="replace")[-3000:]
    text = out_path.read_text(errors="replace")
    order = [text.find(line) for line in (
        "The broker is now SHUTTING_DOWN", "[KafkaServer id=1] shut down completed",
        "Completed transition to Resigned", "[KafkaRaftServer nodeId=1] shut down completed")]
    assert -1 not in order and order == sorted(order), order

    # again: the node replays its metadata log and serves what it had
    with open(tmp_path / "server-2.out", "wb") as out, started_script(
            "kafka-server-start", str(config), stdout=out, stderr=subprocess.STDOUT) as proc:
        wait_for_port(port, proc)
        assert _roundtrip(bootstrap, [b"third"], 3) == [b"first", b"second", b"third"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=90) == 0
