"""What the REST Proxy asks of the cluster: one producer shared by every produce request,
an admin client, and Metadata read without creating topics (a produce to an unknown topic
is 40401, as Confluent's proxy answers, not a topic created by the asking).

Who may call: ``v2``, ``v3`` and ``app`` (start/stop).
"""
from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from kafpy.registry.errors import RestError
from kafpy.rest import errors

if TYPE_CHECKING:
    from aiokafka import AIOKafkaProducer
    from aiokafka.admin import AIOKafkaAdminClient

METADATA_TTL_S = 5.0


class ClusterClients:
    """Keeps the producer, the admin client and the last Metadata per topic."""

    def __init__(self, bootstrap: str, client_config: dict | None = None) -> None:
        self.bootstrap = bootstrap
        self.client_config = dict(client_config or {})
        self._producer: AIOKafkaProducer | None = None
        self._admin: AIOKafkaAdminClient | None = None
        self._topics: dict[str, tuple[float, list[dict]]] = {}
        self.stop_hooks: list = []   # other clients to stop with these (v3's offsets reader)

    @property
    def producer(self) -> AIOKafkaProducer:
        """The shared producer; the handlers use it only once ``start`` made it."""
        assert self._producer is not None, "ClusterClients.start() not awaited"
        return self._producer

    @property
    def admin(self) -> AIOKafkaAdminClient:
        """The admin client; the handlers use it only once ``start`` made it."""
        assert self._admin is not None, "ClusterClients.start() not awaited"
        return self._admin

    async def start(self) -> None:
        from aiokafka import AIOKafkaProducer
        from aiokafka.admin import AIOKafkaAdminClient
        self._producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all", linger_ms=1,
                                          **self.client_config)
        await self._producer.start()
        self._admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap, **self.client_config)
        await self._admin.start()

    async def stop(self) -> None:
        for hook in self.stop_hooks:
            await hook()
        for client, stop in ((self._producer, "stop"), (self._admin, "close")):
            if client is not None:
                await getattr(client, stop)()

    async def metadata(self, topics: list[str] | None, allow_auto_topic_creation: bool = False) -> dict:
        from aiokafka.protocol.metadata import MetadataRequest
        response = await self.admin._send_request(MetadataRequest(topics, allow_auto_topic_creation))
        return response.to_object()

    async def partitions(self, topic: str, auto_create: bool = False) -> list[dict]:
        """The topic's partitions from Metadata (cached briefly); 40401 if it does not exist.
        ``auto_create``: v2's produce, like a producer, lets the broker create the topic when
        its auto.create.topics.enable says so (Confluent's quickstart produces to new topics)."""
        cached = self._topics.get(topic)
        if cached is not None and time.monotonic() - cached[0] < METADATA_TTL_S:
            return cached[1]
        deadline = time.monotonic() + (10.0 if auto_create else 0.0)
        while True:
            md = await self.metadata([topic], auto_create)
            (t,) = md["topics"] or [{"error_code": 3, "partitions": []}]
            ready = t["error_code"] == 0 and t["partitions"] and all(p["leader"] >= 0 for p in t["partitions"])
            if ready or time.monotonic() >= deadline or t["error_code"] == 3 and not auto_create:
                break
            await asyncio.sleep(0.1)
        if t["error_code"] == 3 or not t["partitions"]:
            raise RestError(errors.TOPIC_NOT_FOUND, "Topic not found.")
        parts = sorted(t["partitions"], key=lambda p: p["partition"])
        self._topics[topic] = (time.monotonic(), parts)
        return parts

    async def check_partition(self, topic: str, partition: int) -> None:
        if not any(p["partition"] == partition for p in await self.partitions(topic)):
            raise RestError(errors.PARTITION_NOT_FOUND, "Partition not found.")
