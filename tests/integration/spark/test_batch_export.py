"""batch_export: per-partition offset ranges of a topic to Parquet."""
from __future__ import annotations

import json

import pytest

from kafka import KafkaProducer

from kafpy.spark_jobs import batch_export

from .helpers import create_topic, read_topic

# a JVM on a loaded 2-core machine: Spark jobs here take minutes, not seconds
pytestmark = pytest.mark.timeout(600)


def test_partition_ranges_to_parquet(spark, kafka, tmp_path):
    topic = "export-src"
    create_topic(kafka.bootstrap, topic, partitions=3)
    producer = KafkaProducer(bootstrap_servers=kafka.bootstrap, acks="all")
    for p in range(3):
        for i in range(20):
            producer.send(topic, partition=p, key=f"p{p}".encode(),
                          value=json.dumps({"p": p, "i": i}).encode(),
                          headers=[("seq", str(i).encode())])
    producer.flush()
    producer.close()

    out = tmp_path / "export"
    assert batch_export.main(["--bootstrap-servers", kafka.bootstrap, "--topic", topic,
                              "--output-dir", str(out), "--partition", "0:5:12",
                              "--partition", "2:earliest:latest", "--include-headers",
                              "--min-partitions", "4"], spark=spark) == 0
    rows = spark.read.parquet(str(out)).collect()
    got = sorted((r.partition, r.offset) for r in rows)
    assert got == [(0, o) for o in range(5, 12)] + [(2, o) for o in range(20)]
    for r in rows:
        assert json.loads(r.value) == {"p": r.partition, "i": r.offset}
        assert r.key == f"p{r.partition}"
        assert [(h.key, bytes(h.value)) for h in r.headers] == [("seq", str(r.offset).encode())]

    # the whole-JSON form gives the same range as the command line's ranges
    out2 = tmp_path / "export2"
    assert batch_export.main([
        "--bootstrap-servers", kafka.bootstrap, "--topic", topic, "--output-dir", str(out2),
        "--starting-offsets", json.dumps({topic: {"0": 5, "1": 19, "2": -2}}),
        "--ending-offsets", json.dumps({topic: {"0": 12, "1": 19, "2": -1}})],
        spark=spark) == 0
    assert sorted((r.partition, r.offset) for r in spark.read.parquet(str(out2)).collect()) == got
    assert len(read_topic(spark, kafka.bootstrap, topic)) == 60
