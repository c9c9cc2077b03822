"""The log cleaner's dynamic configs altered with Apache's kafka-configs.sh on a running
three-broker ZooKeeper cluster: ``log.cleaner.threads`` starts the new
``kafka-log-cleaner-thread-N`` on every broker without a restart, ``log.cleaner.backoff.ms``
applies at once, compaction goes on with them (every replica of a compacted topic records
a cleaned range in its cleaner-offset-checkpoint), and a thread count more than double the
current one is refused as Kafka refuses it."""
from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafpy.storage.checkpoint import OffsetCheckpointFile
from tests.integration.cluster.harness import start_cluster, wait_until
from tests.support.kafka_dist import run_tool

pytestmark = pytest.mark.timeout(600)
TOPIC = "compacted"


def configs(*args: str, check: bool = True):
    return run_tool("4", "kafka-configs", list(args), timeout=120, check=check)


def _cleaned(broker) -> bool:
    """This broker's replica of the topic has been compacted at least once."""
    cp = OffsetCheckpointFile(str(Path(broker.log_dir) / "cleaner-offset-checkpoint")).read()
    return cp.get((TOPIC, 0), 0) > 0


def test_cleaner_threads_and_backoff_change_on_every_broker(zookeeper, broker_factory):
    brokers = start_cluster(zookeeper, broker_factory, 3)
    bootstrap = ",".join(b.bootstrap for b in brokers)
    bs = ["--bootstrap-server", brokers[0].bootstrap]
    marks = [len(b.log_text()) for b in brokers]
    configs(*bs, "--entity-type", "brokers", "--entity-default", "--alter", "--add-config",
            "log.cleaner.threads=2,log.cleaner.backoff.ms=100")
    for b, mark in zip(brokers, marks):
        wait_until(lambda b=b, mark=mark: "[kafka-log-cleaner-thread-1]: Starting" in b.log_text()[mark:], 60,
                   f"{b.name} runs a second cleaner thread")
    out = configs(*bs, "--entity-type", "brokers", "--entity-name", "0", "--describe", "--all").stdout
    assert "log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.cleaner.threads=2" in out

    # compaction goes on: small time-rolled segments, cleaned within the new 100 ms backoff
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, 1, 3, config={
        "cleanup.policy": "compact", "segment.ms": "100", "min.cleanable.dirty.ratio": "0.01"})])[TOPIC].result(30)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})

    def write_round_and_check() -> bool:
        for k in range(10):
            producer.produce(TOPIC, key=b"k%d" % k, value=b"v" * 100)
        assert producer.flush(30) == 0
        return all(_cleaned(b) for b in brokers)
    wait_until(write_round_and_check, 120, "every replica compacted")

    bad = configs(*bs, "--entity-type", "brokers", "--entity-default", "--alter", "--add-config",
                  "log.cleaner.threads=5", check=False)
    assert bad.returncode != 0
    assert "Log cleaner threads cannot be increased to more than double the current value 2" in bad.stdout + bad.stderr
