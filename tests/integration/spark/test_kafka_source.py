"""Spark's stock Kafka source against kafpy: codecs, headers, timestamps, rate limits and
data loss under a running query."""
from __future__ import annotations

import time

import pytest
from kafka import KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient

from kafpy.protocol.records import iter_batches

from .helpers import create_topic, read_topic

# a JVM on a loaded 2-core machine: Spark jobs here take minutes, not seconds
pytestmark = pytest.mark.timeout(600)

BASE_TS = 1_600_000_000_000
CODEC_IDS = {"gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


def produce(bootstrap: str, topic: str, values: range, partition: int = 0,
            one_per_batch: bool = False, **config) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **config)
    try:
        for i in values:
            producer.send(topic, partition=partition, value=f"r{i}".encode())
            if one_per_batch:
                producer.flush()
        producer.flush()
    finally:
        producer.close()


@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
def test_reads_each_codec_with_headers(spark, kafka, codec):
    topic = f"codec-{codec}"
    producer = KafkaProducer(bootstrap_servers=kafka.bootstrap, acks="all",
                             compression_type=codec, linger_ms=20)
    for i in range(200):
        producer.send(topic, key=f"k{i}".encode(), value=f"{codec}-{i:04d}".encode() * 8,
                      headers=[("source", codec.encode()), ("seq", str(i).encode())],
                      timestamp_ms=BASE_TS + i)
    producer.flush()
    producer.close()
    rows = read_topic(spark, kafka.bootstrap, topic, (
        "CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value", "offset",
        "timestamp", "headers"), includeHeaders="true")
    assert sorted(r.offset for r in rows) == list(range(200))
    for r in rows:
        i = r.offset
        assert r.key == f"k{i}"
        assert r.value == f"{codec}-{i:04d}" * 8
        assert int(r.timestamp.timestamp() * 1000) == BASE_TS + i
        assert [(h.key, bytes(h.value)) for h in r.headers] == [
            ("source", codec.encode()), ("seq", str(i).encode())]

    # and back through Spark's sink, its Java producer compressing with the same codec
    (spark.createDataFrame([(r.key, r.value, r.headers) for r in rows],
                           "key string, value string, headers array<struct<key:string,"
                           "value:binary>>")
     .write.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap)
     .option("topic", f"{topic}-java").option("kafka.compression.type", codec)
     .option("includeHeaders", "true").save())
    copied = read_topic(spark, kafka.bootstrap, f"{topic}-java", (
        "CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value", "headers"),
        includeHeaders="true")
    assert sorted((r.key, r.value, [tuple(h) for h in r.headers]) for r in copied) == sorted(
        (r.key, r.value, [tuple(h) for h in r.headers]) for r in rows)
    segments = sorted((kafka.log_dir / f"{topic}-java-0").glob("*.log"))
    codecs = {h.compression for seg in segments for _, h in iter_batches(seg.read_bytes())}
    assert codecs == {CODEC_IDS[codec]}


def test_starting_timestamp_and_offsets_by_timestamp(spark, kafka):
    topic = "by-timestamp"
    create_topic(kafka.bootstrap, topic, partitions=2)
    producer = KafkaProducer(bootstrap_servers=kafka.bootstrap, acks="all")
    for p in range(2):
        for i in range(40):
            producer.send(topic, partition=p, value=f"{p}-{i}".encode(),
                          timestamp_ms=BASE_TS + 1000 * i)
    producer.flush()
    producer.close()
    # first record at or after the timestamp: 10.5 s -> offset 11 in both partitions
    rows = read_topic(spark, kafka.bootstrap, topic, ("partition", "offset"),
                      startingTimestamp=str(BASE_TS + 10_500))
    assert sorted((r.partition, r.offset) for r in rows) == [
        (p, o) for p in range(2) for o in range(11, 40)]
    rows = read_topic(spark, kafka.bootstrap, topic, ("partition", "offset"),
                      startingOffsetsByTimestamp='{"%s":{"0":%d,"1":%d}}' % (
                          topic, BASE_TS + 30_000, BASE_TS),
                      endingOffsetsByTimestamp='{"%s":{"0":%d,"1":%d}}' % (
                          topic, BASE_TS + 35_000, BASE_TS + 2_000))
    assert sorted((r.partition, r.offset) for r in rows) == [
        (0, o) for o in range(30, 35)] + [(1, 0), (1, 1)]


def test_max_offsets_per_trigger_splits_batches(spark, kafka, tmp_path):
    topic = "rate-limited"
    create_topic(kafka.bootstrap, topic, partitions=2)
    produce(kafka.bootstrap, topic, range(0, 30), partition=0)
    produce(kafka.bootstrap, topic, range(30, 50), partition=1)
    q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap)
         .option("subscribe", topic).option("startingOffsets", "earliest")
         .option("maxOffsetsPerTrigger", "8").load()
         .selectExpr("CAST(value AS STRING) AS value", "partition", "offset")
         .writeStream.format("memory").queryName("rate_limited")
         .option("checkpointLocation", str(tmp_path / "cp"))
         .trigger(availableNow=True).start())
    q.awaitTermination(240)
    assert not q.isActive and q.exception() is None
    sizes = [p["numInputRows"] for p in q.recentProgress if p["numInputRows"]]
    values = sorted(r.value for r in spark.sql("SELECT value FROM rate_limited").collect())
    assert values == sorted(f"r{i}" for i in range(50))
    assert sum(sizes) == 50
    assert len(sizes) >= 50 // 8 and max(sizes) <= 8


@pytest.mark.parametrize("fail_on_data_loss", [True, False], ids=["fail", "carry-on"])
def test_records_deleted_under_running_query(spark, kafka, tmp_path, fail_on_data_loss):
    """DeleteRecords moves the log start past what a running query has read: with
    failOnDataLoss=true the query stops with Spark's data-loss error, else it goes on from
    the new log start. maxOffsetsPerTrigger keeps the query behind the log end (10 records
    every 2 s), so the deletion lands ahead of it without racing its triggers; one record per
    batch and 1-byte fetch sizes keep the executor's consumer from having fetched (and
    buffered, as any Kafka client may) much beyond what the query has read."""
    topic = f"data-loss-{str(fail_on_data_loss).lower()}"
    name = topic.replace("-", "_")
    produce(kafka.bootstrap, topic, range(60), one_per_batch=True)
    q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap)
         .option("subscribe", topic).option("startingOffsets", "earliest")
         .option("maxOffsetsPerTrigger", "10")
         .option("kafka.max.partition.fetch.bytes", "1").option("kafka.fetch.max.bytes", "1")
         .option("failOnDataLoss", str(fail_on_data_loss).lower()).load()
         .selectExpr("CAST(value AS STRING) AS value", "offset")
         .writeStream.format("memory").queryName(name)
         .option("checkpointLocation", str(tmp_path / "cp"))
         .trigger(processingTime="2 seconds").start())
    admin = KafkaAdminClient(bootstrap_servers=kafka.bootstrap)
    try:
        for _ in range(1200):  # the first batch (offsets 0-9) is done: bounded wait
            if q.lastProgress is not None or not q.isActive:
                break
            time.sleep(0.1)
        assert q.lastProgress is not None and q.lastProgress["numInputRows"] == 10
        result = admin.delete_records({TopicPartition(topic, 0): 40})
        assert result[TopicPartition(topic, 0)]["low_watermark"] == 40
        if fail_on_data_loss:
            with pytest.raises(Exception) as failure:
                q.processAllAvailable()
            assert "failOnDataLoss" in str(failure.value)
            assert "Some data may have been lost" in str(failure.value)
            assert not q.isActive
        else:
            q.processAllAvailable()
            offsets = sorted(r.offset for r in spark.sql(f"SELECT offset FROM {name}").collect())
            read_before = [o for o in offsets if o < 40]
            # what was read (or buffered) before the deletion, then all from the new log start
            assert read_before == list(range(len(read_before)))
            assert 10 <= len(read_before) < 40
            assert offsets[len(read_before):] == list(range(40, 60))
            assert q.isActive
    finally:
        admin.close()
        q.stop()
    assert read_topic(spark, kafka.bootstrap, topic, ("offset",))[0].offset == 40


def test_the_suites_spark_driver_compiles_with_c1_alone(spark):
    """tests/support/spark.py: the session's driver JVM runs -XX:TieredStopAtLevel=1."""
    runtime = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    assert "-XX:TieredStopAtLevel=1" in list(runtime.getInputArguments())
