"""Kafka Streams 4.4 with `group.protocol=streams` (KIP-1071) on the three-broker ZooKeeper
cluster (Apache Kafka offers Streams groups only in KRaft mode): WordCountDemo with
exactly_once_v2, in two instances sharing the tasks, counts words while the broker
coordinating its group is killed
(SIGKILL). The group's topology, members and assignment are in the replicated
`__consumer_offsets`; the new leader of its partition loads them, the application carries
on, and the counts it wrote are exactly 1, 2, ..., n for every word."""
from __future__ import annotations

import threading
from collections import Counter

from confluent_kafka.admin import AdminClient, NewTopic

from kafpy.coordinator.group.partitioner import partition_for
from tests.integration.cluster.harness import metadata, start_cluster, wait_until
from tests.integration.streams.test_streams_groups import (
    SINK, SOURCE, STREAMS_BROKER, WordCount, _counts, _feed, _lines, _wait_for_counts)

GROUP = "wordcount-kip1071"
OVERRIDES = {**STREAMS_BROKER, "offsets.topic.num.partitions": 5, "min.insync.replicas": 1,
             "transaction.state.log.min.isr": 1}


def test_word_count_carries_on_when_the_coordinator_is_killed(zookeeper, broker_factory, tmp_path):
    brokers = start_cluster(zookeeper, broker_factory, **OVERRIDES)
    bootstrap = ",".join(b.bootstrap for b in brokers)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, 2, 3) for t in (SOURCE, SINK)]).values():
        f.result(60)
    lines = _lines(900, 23)
    want = Counter(w for line in lines for w in line.split())
    # two instances: the tasks are shared, and move when the second one joins
    app = WordCount(bootstrap, tmp_path / "app", "exactly_once_v2", replication_factor=3).start()
    other = WordCount(bootstrap, tmp_path / "other", "exactly_once_v2", replication_factor=3)
    feeder = threading.Thread(target=_feed, args=(bootstrap, lines[:300]), daemon=True)
    try:
        feeder.start()
        wait_until(lambda: sum(len(v) for v in _counts(bootstrap).values()) >= 200 or not app.alive(),
                   120, "the application counts before the second instance starts")
        other.start()
        wait_until(lambda: sum(len(v) for v in _counts(bootstrap).values()) >= 400 or not app.alive(),
                   120, "the application counts before the kill")
        assert app.alive() and other.alive(), app.tail() + other.tail()
        feeder.join(60)
        offsets_md = metadata(brokers[0], ["__consumer_offsets"]).topics[0]
        n = len(offsets_md.partitions)
        coordinator = {p.partition_index: p.leader_id
                       for p in offsets_md.partitions}[partition_for(GROUP, n)]
        brokers[coordinator].kill()
        survivors = ",".join(b.bootstrap for i, b in enumerate(brokers) if i != coordinator)
        _feed(survivors, lines[300:])
        got = _wait_for_counts(survivors, app, want, 180)
        assert other.alive(), other.tail()
    finally:
        app.stop()
        other.stop()
    assert {w: got[w] for w in want} == {w: list(range(1, n + 1)) for w, n in want.items()}
