"""Reads and writes the ``_schemas`` topic with aiokafka, as Confluent's KafkaStore does.

Why a Kafka client rather than the broker's in-process services: the registry is a client of
the cluster like Confluent's, so it reads the topic however its partition moves between
brokers, runs the same beside a broker as inside one, and keeps ``kafpy.broker`` from
depending on it. aiokafka because it runs on the caller's asyncio loop (the broker's, when
mounted there) with no thread of its own.

Who may call: ``RegistryApp`` (``start``, ``stop``) and ``SchemaRegistry`` (``write``).
The one reader task applies every record, in offset order, to ``state``; ``write`` appends a
batch (one batch: a crash leaves all or none of an operation's records) with acks=all and
returns once the reader has applied it.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from kafpy.registry.records import SCHEMAS_TOPIC
from kafpy.registry.state import RegistryState
from kafpy.replication.tasks import cancel_and_wait

if TYPE_CHECKING:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

log = logging.getLogger("kafka.schemaregistry.KafkaStore")


class KafkaStore:
    """Keeps the producer, the reader task and the offset applied so far."""

    def __init__(self, bootstrap: str, state: RegistryState, topic: str = SCHEMAS_TOPIC,
                 replication_factor: int = 3, timeout_s: float = 30.0, client_config: dict | None = None) -> None:
        self.bootstrap = bootstrap
        self.state = state
        self.topic = topic
        self.replication_factor = replication_factor
        self.timeout_s = timeout_s
        self.client_config = dict(client_config or {})
        self._producer: AIOKafkaProducer | None = None
        self._consumer: AIOKafkaConsumer | None = None
        self._reader: asyncio.Task | None = None
        self._applied = asyncio.Condition()

    async def start(self) -> None:
        from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
        await self._ensure_topic()
        self._producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all",
                                          enable_idempotence=True, **self.client_config)
        await self._producer.start()
        self._consumer = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, group_id=None,
                                          enable_auto_commit=False, auto_offset_reset="earliest",
                                          **self.client_config)
        await self._consumer.start()
        tp = TopicPartition(self.topic, 0)
        self._consumer.assign([tp])
        await self._consumer.seek_to_beginning(tp)
        end = (await self._consumer.end_offsets([tp]))[tp]
        self._reader = asyncio.ensure_future(self._read(tp))
        await self.wait_for_offset(end - 1)
        log.info("Read %s up to offset %d: %d subjects, max id %d", self.topic, end,
                 len(self.state.subjects), self.state.max_id)

    async def _ensure_topic(self) -> None:
        """``_schemas``: one partition, compacted, replicated like Confluent's (min.insync 2
        left to the cluster's default)."""
        from aiokafka.admin import AIOKafkaAdminClient, NewTopic
        from aiokafka.errors import TopicAlreadyExistsError
        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap, **self.client_config)
        await admin.start()
        try:
            brokers = len((await admin.describe_cluster())["brokers"])
            rf = max(1, min(self.replication_factor, brokers))
            try:
                await admin.create_topics([NewTopic(self.topic, 1, rf, topic_configs={"cleanup.policy": "compact"})])
            except TopicAlreadyExistsError:
                pass
            else:
                log.info("Created topic %s (replication factor %d)", self.topic, rf)
        finally:
            await admin.close()

    async def _read(self, tp: TopicPartition) -> None:
        assert self._consumer is not None, "start() made the consumer before the reader"
        while True:
            try:
                batches = await self._consumer.getmany(tp, timeout_ms=500)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Error reading %s; retrying", self.topic)
                await asyncio.sleep(0.5)
                continue
            msgs = batches.get(tp, [])
            if not msgs:
                continue
            for msg in msgs:
                self.state.apply(msg.offset, msg.key, msg.value)
            async with self._applied:
                self._applied.notify_all()

    async def wait_for_offset(self, offset: int) -> None:
        """Returns once the record at ``offset`` has been applied (50002 after the timeout)."""
        from kafpy.registry.errors import RegistryErrorCode, RestError
        async with self._applied:
            try:
                await asyncio.wait_for(self._applied.wait_for(lambda: self.state.offset >= offset), self.timeout_s)
            except asyncio.TimeoutError:
                raise RestError(RegistryErrorCode.OPERATION_TIMEOUT,
                                f"Write to the Kafka store timed out while waiting for offset {offset}") from None

    async def write(self, batch_records: list[tuple[bytes, bytes | None]]) -> None:
        from kafpy.registry.errors import RegistryErrorCode, RestError
        assert self._producer is not None, "written to only once started"
        batch = self._producer.create_batch()
        for key, value in batch_records:
            if batch.append(key=key, value=value, timestamp=None) is None:
                raise RestError(RegistryErrorCode.STORE_ERROR, "Operation too large for one batch")
        try:
            fut = await self._producer.send_batch(batch, self.topic, partition=0)
            meta = await asyncio.wait_for(fut, self.timeout_s)
        except asyncio.TimeoutError:
            raise RestError(RegistryErrorCode.OPERATION_TIMEOUT, "Write to the Kafka store timed out") from None
        except Exception as e:  # noqa: BLE001 - the producer's errors: the write did not happen (or is unknown)
            raise RestError(RegistryErrorCode.STORE_ERROR, f"Error while writing to the Kafka store: {e}") from None
        await self.wait_for_offset(meta.offset + len(batch_records) - 1)

    async def catch_up(self) -> None:
        """Writes a NOOP and waits to read it back: every record appended before it (a former
        primary's acknowledged registrations) is then in ``state``."""
        from kafpy.registry.records import noop_key
        await self.write([(noop_key(), None)])

    async def stop(self) -> None:
        if self._reader is not None:
            await cancel_and_wait(self._reader)
        for client in (self._consumer, self._producer):
            if client is not None:
                await client.stop()
