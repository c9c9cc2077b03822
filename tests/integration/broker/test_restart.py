"""Restarts: a clean restart keeps topics (ids, partitions, configs) and data; kill -9 under a
produce load with acks=1 and acks=-1 loses no acknowledged record, offsets continue where
the log ends, and a consumer group resumes from its committed offset."""
from __future__ import annotations

import re
import threading
import time

import pytest

from kafpy.protocol.records import build_batch
from kafpy.storage.checkpoint import OffsetCheckpointFile
from tests.integration.broker.conftest import topic_name
from tests.integration.broker.raw import PRODUCE, RawConnection, create_topic, produce_request, read_all

BATCH = 20


class LoadProducer(threading.Thread):
    """Sends one batch per request to one partition until the broker goes away, keeping the
    (base offset, values) of every acknowledged batch."""

    def __init__(self, port: int, topic: str, partition: int, acks: int) -> None:
        super().__init__(daemon=True)
        self.port, self.topic, self.partition, self.acks = port, topic, partition, acks
        self.acked: list[tuple[int, list[bytes]]] = []
        self.errors: list[int] = []
        self.stop_flag = threading.Event()

    def run(self) -> None:
        n = 0
        try:
            with RawConnection("127.0.0.1", self.port, timeout=30) as c:
                while not self.stop_flag.is_set() and n < 100_000:
                    values = [b"p%d-%d" % (self.partition, n + i) for i in range(BATCH)]
                    n += BATCH
                    req = produce_request(self.topic, build_batch([(None, v) for v in values]),
                                          self.partition, self.acks)
                    resp = c.request(PRODUCE, 9, req)
                    pr = resp.responses[0].partition_responses[0]
                    if pr.error_code:
                        self.errors.append(pr.error_code)
                        continue
                    self.acked.append((pr.base_offset, values))
        except (OSError, ConnectionError, ValueError):
            pass  # the broker was killed under us


def group_consumer(bootstrap: str, group: str):
    from kafka import KafkaConsumer
    return KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False,
                         auto_offset_reset="earliest", consumer_timeout_ms=5000)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("acks", [1, -1])
def test_kill_under_load_keeps_acknowledged_records(broker, acks):
    from kafka import TopicPartition
    from kafka.structs import OffsetAndMetadata

    topic = topic_name(f"crash{acks}")
    create_topic(broker.port, topic, partitions=2)
    with RawConnection("127.0.0.1", broker.port) as c:
        for i in range(5):
            c.request(PRODUCE, 9, produce_request(topic, build_batch([(None, b"seed-%d" % (i * 10 + j))
                                                                       for j in range(10)]), 0, acks))
    # a consumer group commits a position before the crash
    tp = TopicPartition(topic, 0)
    group = topic_name("crash-group")
    consumer = group_consumer(broker.bootstrap, group)
    try:
        consumer.assign([tp])
        seen = []
        deadline = time.monotonic() + 60
        while len(seen) < 30 and time.monotonic() < deadline:
            for recs in consumer.poll(timeout_ms=500, max_records=30 - len(seen)).values():
                seen += recs
        assert [m.offset for m in seen] == list(range(30))
        consumer.commit({tp: OffsetAndMetadata(30, "", -1)})
    finally:
        consumer.close(autocommit=False)

    loaders = [LoadProducer(broker.port, topic, p, acks) for p in (0, 1)]
    for ld in loaders:
        ld.start()
    deadline = time.monotonic() + 120
    while min(len(ld.acked) for ld in loaders) < 100 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert min(len(ld.acked) for ld in loaders) >= 100, "the load did not get going"
    broker.kill()  # SIGKILL, mid-load
    for ld in loaders:
        ld.stop_flag.set()
        ld.join(30)
    assert all(not ld.errors for ld in loaders), [ld.errors for ld in loaders]

    mark = len(broker.log_text())
    broker.start()
    restarted = broker.log_text()[mark:]
    assert "since no clean shutdown file was found" in restarted
    loaded = re.search(r"Loaded \d+ logs in [0-9.]+ s \((\d+) segments recovered", restarted)
    assert loaded and int(loaded.group(1)) > 0, loaded  # the crash is recovered from
    for ld in loaders:
        records = read_all(broker.bootstrap, topic, ld.partition)
        by_offset = {o: v for o, _, v in records}
        # the log is contiguous and every acknowledged record is where it was acknowledged
        assert [o for o, _, _ in records] == list(range(len(records)))
        for base, values in ld.acked:
            assert [by_offset.get(base + i) for i in range(len(values))] == values
        # offsets continue at the log end
        with RawConnection("127.0.0.1", broker.port) as c:
            resp = c.request(PRODUCE, 9, produce_request(topic, build_batch([(None, b"after")]), ld.partition, acks))
            pr = resp.responses[0].partition_responses[0]
            assert (pr.error_code, pr.base_offset) == (0, len(records))
    # the group resumes from its committed offset
    consumer = group_consumer(broker.bootstrap, group)
    try:
        consumer.assign([tp])
        assert consumer.committed(tp) == 30
        first = None
        deadline = time.monotonic() + 60
        while first is None and time.monotonic() < deadline:
            for recs in consumer.poll(timeout_ms=500, max_records=1).values():
                first = recs[0]
        assert first is not None and (first.offset, first.value) == (30, b"seed-30")
    finally:
        consumer.close(autocommit=False)


@pytest.mark.timeout(180)
def test_clean_restart_keeps_topics_configs_and_data(broker):
    from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewPartitions, NewTopic

    t1, t2 = topic_name("keep"), topic_name("keep-compact")
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        admin.create_topics([NewTopic(t1, 3, 1), NewTopic(t2, 1, 1, topic_configs={
            "cleanup.policy": "compact", "retention.ms": "3600000"})])
        admin.create_partitions({t1: NewPartitions(5)})
        before = {t["name"]: t for t in admin.describe_topics([t1, t2])}
    finally:
        admin.close()
    from kafka import KafkaProducer
    p = KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all")
    try:
        for part in range(5):
            for i in range(10):
                p.send(t1, key=b"k%d" % i, value=b"%d-%d" % (part, i), partition=part)
        for i in range(10):
            p.send(t2, key=b"key%d" % (i % 3), value=b"c%d" % i, partition=0)
        p.flush(30)
    finally:
        p.close(10)

    mark = len(broker.log_text())
    broker.restart()
    # the clean shutdown left what the start needed: no segment was read again
    restarted = broker.log_text()[mark:]
    assert "since clean shutdown file was found" in restarted
    loaded = re.search(r"Loaded (\d+) logs in [0-9.]+ s \((\d+) segments recovered, (\d+) batches replayed", restarted)
    assert loaded and int(loaded.group(1)) >= 6 and loaded.group(2, 3) == ("0", "0"), loaded

    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        assert {t1, t2} <= set(admin.list_topics())
        after = {t["name"]: t for t in admin.describe_topics([t1, t2])}
        for t in (t1, t2):
            assert after[t]["topic_id"] == before[t]["topic_id"]
            assert len(after[t]["partitions"]) == len(before[t]["partitions"])
        assert len(after[t1]["partitions"]) == 5
        configs = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, t2)])["topic"][t2]
        assert configs["cleanup.policy"]["value"] == "compact"
        assert configs["retention.ms"]["value"] == "3600000"
        assert configs["retention.ms"]["config_source"] == "DYNAMIC_TOPIC_CONFIG"
    finally:
        admin.close()
    for part in range(5):
        assert [v for _, _, v in read_all(broker.bootstrap, t1, part)] == [b"%d-%d" % (part, i) for i in range(10)]
    # the active segment is never compacted, so all ten are still there
    assert [v for _, _, v in read_all(broker.bootstrap, t2)] == [b"c%d" % i for i in range(10)]
    # and new records continue the offsets
    with RawConnection("127.0.0.1", broker.port) as c:
        resp = c.request(PRODUCE, 9, produce_request(t1, build_batch([(None, b"more")]), 4))
        assert resp.responses[0].partition_responses[0].base_offset == 10


def written_hw(broker, topic: str) -> int:
    """Partition 0's high watermark in the broker's replication-offset-checkpoint, -1 if none."""
    return OffsetCheckpointFile(str(broker.log_dir / "replication-offset-checkpoint")).read().get((topic, 0), -1)


def test_checkpoints_are_written_every_few_seconds_while_serving(broker):
    """High watermarks reach their checkpoint file on the 5 s tick (written from a thread,
    so requests go on meanwhile), without a restart."""
    topic = topic_name("ckpt")
    create_topic(broker.port, topic, 1)

    with RawConnection("127.0.0.1", broker.port) as c:
        resp = c.request(PRODUCE, 9, produce_request(topic, build_batch([(None, b"v%d" % i) for i in range(7)])))
        assert resp.responses[0].partition_responses[0].error_code == 0
        deadline = time.monotonic() + 20
        while written_hw(broker, topic) < 7 and time.monotonic() < deadline:
            # the broker keeps answering while the files are written
            more = c.request(PRODUCE, 9, produce_request(topic, build_batch([(None, b"x")]), 0, 1))
            assert more.responses[0].partition_responses[0].error_code == 0
            time.sleep(0.5)
    assert written_hw(broker, topic) >= 7
    assert "Writing checkpoints failed" not in broker.log_text()


@pytest.mark.parametrize("interval_ms", [300, 60_000])
def test_the_checkpoint_tick_is_replica_high_watermark_checkpoint_interval_ms(broker_factory, interval_ms):
    """replica.high.watermark.checkpoint.interval.ms sets the tick: at 300 ms the high watermark
    is on disk within 3 s (less than the 5 s default tick); at a minute it is not there after
    8 s (more than it)."""
    broker = broker_factory(overrides={"replica.high.watermark.checkpoint.interval.ms": interval_ms})
    topic = topic_name("tick")
    create_topic(broker.port, topic, 1)

    with RawConnection("127.0.0.1", broker.port) as c:
        resp = c.request(PRODUCE, 9, produce_request(topic, build_batch([(None, b"v%d" % i) for i in range(3)])))
        assert resp.responses[0].partition_responses[0].error_code == 0
    deadline = time.monotonic() + (3 if interval_ms < 5000 else 8)
    while written_hw(broker, topic) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    if interval_ms < 5000:
        assert written_hw(broker, topic) == 3
    else:
        assert written_hw(broker, topic) < 3
