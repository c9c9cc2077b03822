"""A leader's ISR changes on their way to the controller (Kafka's DefaultAlterPartitionManager):
AlterPartition (56) requests, batched and retried, to the broker the metadata cache names as
controller (in KRaft mode, to the active controller its ``controller_node`` names).

Who may call it: partitions this broker leads, through ``submit`` (one change in flight per
partition: the Partition keeps it pending until answered), on the event loop. The broker
starts it in ZooKeeper mode and shuts it down. Nothing on disk.

One request is in flight at a time; changes submitted meanwhile go in the next one. A request
that does not get through, or a top-level error (NOT_CONTROLLER, STALE_BROKER_EPOCH, ...),
sends every change again after ``retry_backoff_ms``, to the controller the cache names then.
Per-partition answers go to ``Partition.on_alter_partition_result``, which says whether to
send the change again. The version is the highest both sides know (v0-3); topics are named
up to v1, so a partition without a topic id caps the request there.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Callable

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterPartitionRequest, AlterPartitionResponse
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.message_base import ZERO_UUID
from kafpy.replication.tasks import cancel_and_wait

if TYPE_CHECKING:
    from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
    from kafpy.replication.network_client import NetworkClient
    from kafpy.replication.partition import Partition, PendingIsrChange

__all__ = ["AlterPartitionManager", "alter_partition_request"]

log = logging.getLogger("kafka.server.DefaultAlterPartitionManager")

MAX_VERSION = 3
LAST_NAME_BASED_VERSION = 1
UNKNOWN_BROKER_EPOCH = -1  # a ZooKeeper-mode leader does not know its followers' broker epochs

Key = tuple[str, int]
# a NetworkClient to the controller: await ready(), api_version(key), await send(...), await close()
ClientFactory = Callable[["BrokerInfo"], "NetworkClient"]


def alter_partition_request(broker_id: int, broker_epoch: int,
                            items: list[tuple["Partition", "PendingIsrChange"]], version: int) -> AlterPartitionRequest:
    """The wire request for ``items`` at ``version`` (topics by name up to v1, by id after;
    ISR members with broker epochs from v3)."""
    topics: dict[str, AlterPartitionRequest.TopicData] = {}
    for part, pending in items:
        t = topics.get(part.topic)
        if t is None:
            t = topics[part.topic] = AlterPartitionRequest.TopicData(topic_name=part.topic, topic_id=part.topic_id,
                                                                     partitions=[])
        t.partitions.append(AlterPartitionRequest.PartitionData(
            partition_index=part.index, leader_epoch=pending.leader_epoch, new_isr=list(pending.new_isr),
            new_isr_with_epochs=[AlterPartitionRequest.BrokerState(broker_id=b, broker_epoch=UNKNOWN_BROKER_EPOCH)
                                 for b in pending.new_isr],
            leader_recovery_state=0, partition_epoch=pending.partition_epoch))
    return AlterPartitionRequest(broker_id=broker_id, broker_epoch=broker_epoch, topics=list(topics.values()))


class AlterPartitionManager:
    """``broker_epoch`` is read for every request (a re-registration changes it);
    ``client_factory`` makes the connection to a controller broker."""

    def __init__(self, broker_id: int, broker_epoch: Callable[[], int], metadata_cache: "MetadataCache",
                 client_factory: ClientFactory, loop: asyncio.AbstractEventLoop,
                 retry_backoff_ms: int = 100,
                 controller_node: Callable[[], "BrokerInfo | None"] | None = None) -> None:
        """``controller_node`` (KRaft) names the active controller; without it the controller
        is the broker the metadata cache names (ZooKeeper mode)."""
        self.broker_id = broker_id
        self.controller_node = controller_node
        self.broker_epoch = broker_epoch
        self.metadata_cache = metadata_cache
        self.client_factory = client_factory
        self.loop = loop
        self.retry_backoff_ms = retry_backoff_ms
        self.unsent: dict[Key, tuple["Partition", "PendingIsrChange"]] = {}
        self._client: NetworkClient | None = None
        self._client_target: tuple[int, str, int] | None = None
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = self.loop.create_task(self._run(), name="AlterPartitionManager")

    def submit(self, partition: "Partition", pending: "PendingIsrChange") -> None:
        """Queue ``pending`` (it replaces an unsent change of the same partition)."""
        self.unsent[(partition.topic, partition.index)] = (partition, pending)
        self._wakeup.set()

    async def shutdown(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task)
        await self._close_client()

    # -- sending -----------------------------------------------------------------------------
    async def _run(self) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            if not self.unsent:
                continue
            batch, self.unsent = self.unsent, {}
            retry = await self.send_batch(batch)
            for key, item in retry.items():
                self.unsent.setdefault(key, item)  # a newer submit wins
            if self.unsent:
                if retry:
                    await asyncio.sleep(self.retry_backoff_ms / 1000)
                self._wakeup.set()

    async def send_batch(self, batch: dict[Key, tuple["Partition", "PendingIsrChange"]]
                         ) -> dict[Key, tuple["Partition", "PendingIsrChange"]]:
        """Send one request for ``batch`` and apply the answers; returns what to send again."""
        live = {k: item for k, item in batch.items() if item[0].pending_isr is item[1]}
        if not live:
            return {}
        client = await self._controller_client()
        if client is None:
            log.debug("No controller known for AlterPartition yet; retrying")
            return live
        try:
            await client.ready()
            version = min(client.api_version(ApiKey.ALTER_PARTITION), MAX_VERSION)
            if any(p.topic_id == ZERO_UUID for p, _ in live.values()):
                version = min(version, LAST_NAME_BASED_VERSION)
            request = alter_partition_request(self.broker_id, self.broker_epoch(), list(live.values()), version)
            response: AlterPartitionResponse = await client.send(ApiKey.ALTER_PARTITION, request, version=version)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - not sent or no answer: send it again
            log.info("AlterPartition to the controller failed: %s; retrying", e)
            await self._close_client()
            return live
        return self.handle_response(live, response, version)

    def handle_response(self, live: dict[Key, tuple["Partition", "PendingIsrChange"]],
                        response: AlterPartitionResponse, version: int
                        ) -> dict[Key, tuple["Partition", "PendingIsrChange"]]:
        """Apply ``response`` to the partitions of ``live``; returns the changes to send again
        (all of them on a top-level error, and those a partition asks to retry)."""
        top = ErrorCode.of_known(response.error_code)
        if top != ErrorCode.NONE:
            if top == ErrorCode.STALE_BROKER_EPOCH:
                log.warning("Broker had a stale broker epoch (%d), retrying.", self.broker_epoch())
            else:
                log.warning("Controller returned an unexpected top-level error when handling AlterPartition "
                            "request: %s", top.name)
            return live
        by_id = {p.topic_id: p.topic for p, _ in live.values()}
        retry = dict(live)
        for t in response.topics:
            name = t.topic_name if version <= LAST_NAME_BASED_VERSION else by_id.get(t.topic_id, "")
            for pd in t.partitions:
                item = retry.pop((name, pd.partition_index), None)
                if item is None:
                    continue
                part, pending = item
                again = part.on_alter_partition_result(pending, ErrorCode.of_known(pd.error_code), tuple(pd.isr),
                                                       pd.leader_epoch, pd.partition_epoch)
                if again:
                    retry[(name, pd.partition_index)] = item
        return retry

    async def _controller_client(self) -> NetworkClient | None:
        cache = self.metadata_cache
        if self.controller_node is not None:
            node = self.controller_node()
        else:
            node = cache.broker(cache.controller_id) if cache.controller_id >= 0 else None
        if node is None:
            return None
        target = (node.node_id, node.host, node.port)
        if self._client is None or self._client_target != target:
            await self._close_client()
            self._client = self.client_factory(node)
            self._client_target = target
        return self._client

    async def _close_client(self) -> None:
        client, self._client, self._client_target = self._client, None, None
        if client is not None:
            try:
                await client.close()
            except Exception:  # noqa: BLE001 - closing a broken connection
                log.debug("Closing the controller connection failed", exc_info=True)
