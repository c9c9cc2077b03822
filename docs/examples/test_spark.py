"""Spark's Kafka source reading what a test produced (pyspark and Spark's Kafka connector:
``pip install kafpy[spark]``; kafpy.spark_jobs.session finds the connector jars)."""
from kafka import KafkaProducer

from kafpy.spark_jobs.session import build_session


def test_spark_reads_the_topic(kafka_bootstrap_servers, kafpy_topic):
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap_servers)
    for word in ("kafka", "spark", "kafka"):
        producer.send(kafpy_topic, word.encode())
    producer.flush(30)
    producer.close()

    spark = build_session("kafpy-example", log_level="ERROR")
    try:
        counts = (spark.read.format("kafka")
                  .option("kafka.bootstrap.servers", kafka_bootstrap_servers)
                  .option("subscribe", kafpy_topic)
                  .load()
                  .selectExpr("CAST(value AS STRING) AS word")
                  .groupBy("word").count().collect())
    finally:
        spark.stop()
    assert {row["word"]: row["count"] for row in counts} == {"kafka": 2, "spark": 1}
