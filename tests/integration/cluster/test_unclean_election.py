"""Issue 22, defect 1, end to end: on three kafpy brokers, a partition whose only ISR member
died stays offline while its other replica is back (unclean election is off), and comes
online at once when Apache's kafka-configs.sh turns unclean.leader.election.enable on for
the topic, as Kafka's controller does (processTopicUncleanLeaderElectionEnable), without
waiting for another broker change."""
from __future__ import annotations

import pytest

from tests.integration.cluster.harness import SESSION_TIMEOUT_MS, metadata, start_cluster, wait_until
from tests.support.kafka_dist import run_tool

pytestmark = pytest.mark.timeout(300)

FAILOVER_S = SESSION_TIMEOUT_MS / 1000 + 15
TOPIC = "unclean"


def partition(broker, topic: str = TOPIC):
    (t,) = [t for t in metadata(broker, [topic]).topics if t.name == topic]
    return t.partitions[0]


def test_kafka_configs_enabling_unclean_election_elects_at_once(zookeeper, broker_factory):
    cluster = start_cluster(zookeeper, broker_factory)
    observer = metadata(cluster[0]).controller_id  # the controller stays up throughout
    leader, follower = [i for i in range(3) if i != observer]
    bootstrap = cluster[observer].bootstrap
    run_tool("3.9", "kafka-topics", ["--bootstrap-server", bootstrap, "--create", "--topic", TOPIC,
                                     "--replica-assignment", f"{leader}:{follower}"])
    wait_until(lambda: (lambda p: p.leader_id == leader and sorted(p.isr_nodes) == sorted([leader, follower]))(
        partition(cluster[observer])), 30, "the topic led by its first replica with both in the ISR")

    cluster[follower].kill()
    wait_until(lambda: list(partition(cluster[observer]).isr_nodes) == [leader], FAILOVER_S,
               "the dead follower out of the ISR")
    cluster[leader].kill()
    wait_until(lambda: partition(cluster[observer]).leader_id == -1, FAILOVER_S,
               "the partition offline once its only ISR member died")
    cluster[follower].start()
    wait_until(lambda: follower in {b.node_id for b in metadata(cluster[observer]).brokers}, 60,
               "the follower registered again")
    assert partition(cluster[observer]).leader_id == -1  # not in the ISR: no clean election
    # kafka-configs' admin client sends DescribeConfigs to the least loaded node, which may be the
    # follower: as on Kafka, a broker answers for a topic once its metadata cache holds it
    wait_until(lambda: any(t.name == TOPIC and t.error_code == 0 for t in metadata(cluster[follower], [TOPIC]).topics),
               30, "the restarted follower's metadata knows the topic")

    run_tool("3.9", "kafka-configs", ["--bootstrap-server", bootstrap, "--alter", "--entity-type", "topics",
                                      "--entity-name", TOPIC, "--add-config",
                                      "unclean.leader.election.enable=true"])
    wait_until(lambda: partition(cluster[observer]).leader_id == follower, 10,
               "the live replica elected leader (unclean) as soon as the config changed")
