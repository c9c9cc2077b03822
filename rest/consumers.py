"""The v2 API's consumer instances: one aiokafka consumer each, created in a group, found by
(group, name), deleted on request or after ``instance_timeout_s`` without a request.

Who may call: ``v2`` (one call per request). The number of instances is bounded
(``max_instances``; more is 50004) since each holds connections and a fetch buffer, and so is
each principal's share of them (``max_instances_per_principal``), so one user cannot take
them all. An instance belongs to the principal that created it (``owner``, None when HTTP
authentication is off): to anyone else it does not exist (40403, Confluent's answer for an
unknown instance, which tells a stranger nothing about the names in use).
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from kafpy.registry.errors import RestError
from kafpy.rest import errors

if TYPE_CHECKING:
    from aiokafka import AIOKafkaConsumer

log = logging.getLogger("kafka.rest.ConsumerManager")
_ids = itertools.count(1)


@dataclass
class ConsumerInstance:
    """One consumer instance: its client, format, and when a request last touched it."""
    group: str
    name: str
    fmt: str
    consumer: AIOKafkaConsumer
    auto_commit: bool = True
    last_used: float = field(default_factory=time.monotonic)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    owner: str | None = None
    pattern: Callable[[str], bool] | None = None   # a topic_pattern subscription's matcher


class ConsumerManager:
    """Keeps the instances by (group, name) and expires idle ones."""

    def __init__(self, bootstrap: str, client_config: dict | None = None, max_instances: int = 100,
                 instance_timeout_s: float = 300.0, clock: Callable[[], float] = time.monotonic,
                 consumer_factory: Callable[..., AIOKafkaConsumer] | None = None, max_instances_per_principal: int = 10) -> None:
        self.bootstrap = bootstrap
        self.client_config = dict(client_config or {})
        self.max_instances = max_instances
        self.max_instances_per_principal = max_instances_per_principal
        self.instance_timeout_s = instance_timeout_s
        self.clock = clock
        self.consumer_factory = consumer_factory
        self.instances: dict[tuple[str, str], ConsumerInstance] = {}
        self._reaper: asyncio.Task | None = None

    def owned_by(self, owner: str | None) -> int:
        return sum(1 for instance in self.instances.values() if instance.owner == owner)

    async def create(self, group: str, body: dict, owner: str | None = None) -> ConsumerInstance:
        name = body.get("name") or f"rest-consumer-{next(_ids)}"
        fmt = body.get("format", "binary")
        if fmt not in ("binary", "json", "avro", "jsonschema"):
            raise RestError(errors.INVALID_CONSUMER_CONFIG, f"Invalid format type: {fmt}")
        if (group, name) in self.instances:
            raise RestError(errors.CONSUMER_ALREADY_EXISTS,
                            "Consumer with specified consumer ID already exists in the specified consumer group.")
        if len(self.instances) >= self.max_instances:
            raise RestError(errors.TOO_MANY_CONSUMERS, "Too many consumer instances")
        if owner is not None and self.owned_by(owner) >= self.max_instances_per_principal:
            log.info("Consumer instance refused to %s: it holds %d, the most one principal may", owner,
                     self.max_instances_per_principal)
            raise RestError(errors.TOO_MANY_CONSUMERS, f"Too many consumer instances for {owner} "
                                                  f"(at most {self.max_instances_per_principal})")
        reset = body.get("auto.offset.reset", "latest")
        if reset not in ("earliest", "latest", "none"):
            raise RestError(errors.INVALID_CONSUMER_CONFIG, f"Invalid value {reset} for auto.offset.reset")
        auto_commit = str(body.get("auto.commit.enable", "true")).lower() == "true"
        if self.consumer_factory is None:
            from aiokafka import AIOKafkaConsumer
            self.consumer_factory = AIOKafkaConsumer
        consumer = self.consumer_factory(bootstrap_servers=self.bootstrap, group_id=group, client_id=name,
                                         enable_auto_commit=auto_commit, auto_offset_reset=reset,
                                         **self.client_config)
        await consumer.start()
        instance = ConsumerInstance(group, name, fmt, consumer, auto_commit, self.clock(), owner=owner)
        self.instances[(group, name)] = instance
        if self._reaper is None:
            self._reaper = asyncio.ensure_future(self._expire_idle())
        return instance

    def get(self, group: str, name: str, principal: str | None = None) -> ConsumerInstance:
        """The instance, if ``principal`` owns it (40403 otherwise)."""
        instance = self.instances.get((group, name))
        if instance is None or instance.owner != principal:
            raise RestError(errors.CONSUMER_INSTANCE_NOT_FOUND, "Consumer instance not found.")
        instance.last_used = self.clock()
        return instance

    async def delete(self, group: str, name: str, principal: str | None = None) -> None:
        instance = self.get(group, name, principal)
        del self.instances[(group, name)]
        await self._close(instance)

    async def _close(self, instance: ConsumerInstance) -> None:
        """Stops the consumer, committing what it consumed first when it auto-commits.
        Why commit before ``stop``: aiokafka's closing commit never looks the coordinator up
        (its lookup loop ends once closing starts), so a consumer that had not found its
        coordinator yet (an assign()-only one, say) would retry that commit forever."""
        if instance.auto_commit and instance.consumer.assignment():
            try:
                await asyncio.wait_for(instance.consumer.commit(), 10)
            except Exception as e:  # noqa: BLE001 - the instance goes away all the same, as Confluent's does
                log.warning("Consumer instance %s/%s: final commit failed: %s", instance.group, instance.name, e)
        await instance.consumer.stop()

    async def _expire_idle(self) -> None:
        while True:
            await asyncio.sleep(min(self.instance_timeout_s / 4, 30))
            await self.expire_idle()

    async def expire_idle(self) -> list[tuple[str, str]]:
        """Closes the instances no request touched for ``instance_timeout_s``."""
        now = self.clock()
        expired = []
        for key, instance in list(self.instances.items()):
            if now - instance.last_used > self.instance_timeout_s and not instance.lock.locked():
                log.info("Consumer instance %s/%s expired", *key)
                self.instances.pop(key, None)
                await self._close(instance)
                expired.append(key)
        return expired

    async def stop(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        for instance in list(self.instances.values()):
            try:
                await self._close(instance)
            except Exception:
                log.exception("Error stopping consumer instance %s/%s", instance.group, instance.name)
        self.instances.clear()
