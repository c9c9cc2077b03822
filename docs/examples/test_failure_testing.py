"""Failure testing: an application that must survive its broker crashing and coming back,
and one that must notice a broker it cannot reach."""
import time

import pytest
from kafka import KafkaConsumer, KafkaProducer
from kafka.errors import KafkaTimeoutError

from kafpy import EmbeddedBroker


class OrderLog:
    """The application under test: records orders in Kafka, retrying while the broker is away."""

    def __init__(self, bootstrap_servers: str, topic: str):
        self.topic = topic
        self.producer = KafkaProducer(bootstrap_servers=bootstrap_servers, acks="all",
                                      retries=100, retry_backoff_ms=100,
                                      request_timeout_ms=5_000, max_block_ms=30_000)

    def record(self, order: str) -> None:
        self.producer.send(self.topic, order.encode()).get(timeout=60)

    def close(self) -> None:
        self.producer.close()


def read_all(bootstrap_servers: str, topic: str) -> list[bytes]:
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap_servers,
                             auto_offset_reset="earliest", consumer_timeout_ms=5_000)
    values = [r.value for r in consumer]
    consumer.close()
    return values


def test_application_survives_a_broker_crash_and_restart(kafpy_broker, kafpy_topic):
    app = OrderLog(kafpy_broker.bootstrap_servers, kafpy_topic)
    app.record("order-1")
    kafpy_broker.restart(kill=True)      # SIGKILL, then start on the same port and data
    app.record("order-2")                # the producer reconnects and retries
    app.close()
    assert read_all(kafpy_broker.bootstrap_servers, kafpy_topic) == [b"order-1", b"order-2"]


def test_application_sees_a_cut_listener_and_recovers():
    with EmbeddedBroker(cuttable=True) as broker:   # a broker of this test alone
        broker.create_topic("orders")
        app = OrderLog(broker.bootstrap_servers, "orders")
        app.record("order-1")
        broker.cut_listener()                       # connections reset, the broker runs on
        pending = app.producer.send("orders", b"order-2")
        time.sleep(0.5)                             # let the producer meet the cut
        assert not pending.is_done
        broker.restore_listener()
        pending.get(timeout=60)                     # delivered once the listener is back
        app.close()
        assert read_all(broker.bootstrap_servers, "orders") == [b"order-1", b"order-2"]


def test_unreachable_broker_is_reported():
    with EmbeddedBroker(cuttable=True) as broker:
        broker.cut_listener()
        with pytest.raises(KafkaTimeoutError):   # kafka-python 3 waits 30 s for a first broker
            KafkaProducer(bootstrap_servers=broker.bootstrap_servers, max_block_ms=1_000,
                          bootstrap_timeout_ms=1_000)
