"""Producing and reading back for the Spark tests (kafka-python on the test side)."""
from __future__ import annotations

import json
from typing import Callable, Iterable, Sequence

from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic


def create_topic(bootstrap: str, topic: str, partitions: int = 1,
                 configs: dict[str, str] | None = None) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(topic, partitions, 1, topic_configs=configs or {})])
    finally:
        admin.close()


def produce_json(bootstrap: str, topic: str, records: Iterable[dict],
                 key: Callable[[dict], str], **producer_config) -> int:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **producer_config)
    n = 0
    try:
        for r in records:
            producer.send(topic, key=key(r).encode(),
                          value=json.dumps(r, separators=(",", ":")).encode())
            n += 1
        producer.flush()
    finally:
        producer.close()
    return n


def produce_raw(bootstrap: str, topic: str, values: Iterable[bytes]) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    try:
        for v in values:
            producer.send(topic, value=v)
        producer.flush()
    finally:
        producer.close()


def read_topic(spark, bootstrap: str, topic: str, columns: Sequence[str] = (
        "CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value", "partition",
        "offset"), **options: str) -> list:
    """Every record of `topic` now, read by Spark's batch Kafka source."""
    reader = (spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)
              .option("subscribe", topic))
    for k, v in options.items():
        reader = reader.option(k, v)
    return reader.load().selectExpr(*columns).collect()


def read_json_values(spark, bootstrap: str, topic: str) -> list[dict]:
    return [json.loads(r.value) for r in read_topic(spark, bootstrap, topic)]
