"""confluent-kafka (librdkafka) against the session's broker, on a topic of three partitions."""
import time

from confluent_kafka import Consumer, Producer


def test_keys_keep_their_partition(kafka_bootstrap_servers, kafpy_topic_factory):
    topic = kafpy_topic_factory(partitions=3)
    producer = Producer({"bootstrap.servers": kafka_bootstrap_servers})
    delivered = []
    for i in range(6):
        producer.produce(topic, key=f"user-{i % 2}", value=str(i),
                         on_delivery=lambda err, msg: delivered.append((err, msg.partition())))
    assert producer.flush(30) == 0
    assert all(err is None for err, _ in delivered)

    consumer = Consumer({"bootstrap.servers": kafka_bootstrap_servers, "group.id": topic,
                         "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    by_key: dict[str, list[int]] = {}
    deadline = time.monotonic() + 60
    try:
        while sum(len(v) for v in by_key.values()) < 6 and time.monotonic() < deadline:
            msg = consumer.poll(1.0)  # None until the group has assigned the partitions
            if msg is not None:
                assert msg.error() is None, msg.error()
                by_key.setdefault(msg.key().decode(), []).append(msg.partition())
    finally:
        consumer.close()
    assert sorted(by_key) == ["user-0", "user-1"]
    assert all(len(set(partitions)) == 1 for partitions in by_key.values())
