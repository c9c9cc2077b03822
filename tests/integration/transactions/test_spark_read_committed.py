"""Spark's Kafka source with kafka.isolation.level=read_committed reads only committed
records; with read_uncommitted it reads the aborted ones too."""
from __future__ import annotations

from collections import Counter
from typing import Iterator

import pytest
from confluent_kafka import Producer

from tests.integration.coordinator.helpers import create_topic
from tests.support.spark import stop_spark

pytestmark = pytest.mark.timeout(600)  # a Spark JVM on a loaded 2-core machine

TOPIC = "spark-txn"


@pytest.fixture(scope="module")
def spark_session() -> Iterator[object]:
    """The Spark session of this module (started here when no other test started one), and
    with it its JVM: PySpark keeps the gateway process after ``stop()`` until Python exits,
    which would outlive the test that started it; it ends when its stdin closes."""
    from pyspark.sql import SparkSession

    from kafpy.spark_jobs import session
    existing = SparkSession.getActiveSession()
    s = session.build_session("kafpy-txn-tests", log_level="ERROR")
    try:
        yield s
    finally:
        if existing is None:
            stop_spark(s)


def _transactions(bootstrap: str) -> tuple[Counter, Counter]:
    """Three transactions over two partitions: committed, aborted, committed."""
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": "spark-txn"})
    p.init_transactions(60)
    committed, everything = Counter[str](), Counter[str]()
    for t, commit in enumerate((True, False, True)):
        p.begin_transaction()
        for i in range(10):
            value = f"t{t}-{i}"
            p.produce(TOPIC, value=value.encode(), partition=i % 2)
            everything[value] += 1
            committed[value] += commit
        if commit:
            p.commit_transaction(60)
        else:
            p.flush(60)
            p.abort_transaction(60)
    p.close()
    return +committed, everything


def test_spark_reads_only_committed_records(txn_broker, spark_session):
    create_topic(txn_broker.bootstrap, TOPIC, 2)
    committed, everything = _transactions(txn_broker.bootstrap)

    def read(isolation: str) -> Counter:
        rows = (spark_session.read.format("kafka")
                .option("kafka.bootstrap.servers", txn_broker.bootstrap)
                .option("subscribe", TOPIC).option("kafka.isolation.level", isolation)
                .load().selectExpr("CAST(value AS STRING) AS value").collect())
        return Counter(r.value for r in rows)
    assert read("read_committed") == committed
    assert read("read_uncommitted") == everything
