"""aiokafka in the test's own event loop (the broker runs in its own process)."""
import asyncio

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer


def test_async_roundtrip(kafka_bootstrap_servers, kafpy_topic):
    async def main() -> list[bytes]:
        producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap_servers)
        await producer.start()
        try:
            for i in range(3):
                await producer.send_and_wait(kafpy_topic, f"event-{i}".encode())
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(kafpy_topic, bootstrap_servers=kafka_bootstrap_servers,
                                    auto_offset_reset="earliest")
        await consumer.start()
        try:
            batch = await asyncio.wait_for(consumer.getmany(timeout_ms=10_000, max_records=3), 30)
            return [r.value for records in batch.values() for r in records]
        finally:
            await consumer.stop()

    assert asyncio.run(main()) == [b"event-0", b"event-1", b"event-2"]
