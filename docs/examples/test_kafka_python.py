"""kafka-python against the session's broker: produce, then consume from the beginning."""
from kafka import KafkaConsumer, KafkaProducer


def test_produce_and_consume(kafka_bootstrap_servers, kafpy_topic):
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap_servers, acks="all")
    producer.send(kafpy_topic, key=b"order-1", value=b"created").get(timeout=30)
    producer.close()

    consumer = KafkaConsumer(kafpy_topic, bootstrap_servers=kafka_bootstrap_servers,
                             group_id="billing", auto_offset_reset="earliest",
                             consumer_timeout_ms=10_000)
    records = [(r.key, r.value) for r in consumer]
    consumer.close()
    assert records == [(b"order-1", b"created")]
