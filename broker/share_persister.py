"""The broker's SharePersister (Kafka's DefaultStatePersister with its PersisterStateManager):
each call goes to the share coordinator of its key, the leader of the key's
`__share_group_state` partition as the metadata cache knows it. When that is this broker the
local ShareCoordinatorService is called directly; otherwise the persister RPC (83-87) is sent
over one inter-broker NetworkClient per broker.

What the coordinator answers as "not here yet" (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS,
COORDINATOR_NOT_AVAILABLE, a broken connection) is retried with exponential backoff until
`max_wait_ms` has passed; then that error is returned. Other errors are returned at once.

Two differences from the wire, so that callers see the seam's contract (persister.py, as the
InMemoryPersister behaves): a read of a share partition that was never initialized answers
NONE with UNINITIALIZED_START_OFFSET (Kafka's coordinator answers INVALID_REQUEST), and a
write to one initializes it first (at the write's state epoch and start offset).

Who calls it: the share partitions (broker/share/) and the group coordinator's share groups,
through `services.share_persister`; event loop thread only. Nothing on disk.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, TypeVar, Union

from kafpy.protocol import messages
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.topics import SHARE_GROUP_STATE_TOPIC_NAME

from kafpy.coordinator.group.partitioner import partition_for
from kafpy.coordinator.share_state.persister import ReadStateResult, SharePartitionKey, StateBatch, StateSummary
from kafpy.coordinator.share_state.shard import UNINITIALIZED_READ, UNINITIALIZED_WRITE
from kafpy.coordinator.transaction.clients import BrokerClients

if TYPE_CHECKING:
    from kafpy.coordinator.share_state.service import ShareCoordinatorService
    from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
    from kafpy.replication.network_client import NetworkClient

log = logging.getLogger("kafka.server.share.persister.PersisterStateManager")

# what one call answers: (error, message), or the read's result
_Result = TypeVar("_Result", bound=Union[tuple[ErrorCode, Union[str, None]], ReadStateResult, StateSummary])

RETRIABLE = frozenset({ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE,
                       ErrorCode.NETWORK_EXCEPTION, ErrorCode.REQUEST_TIMED_OUT})


class BrokerSharePersister:
    """`local()` is this broker's ShareCoordinatorService (None while it has none);
    `client_factory(broker_info)` makes a NetworkClient to another broker. `clock()` is the
    loop's monotonic time in seconds (tests may pass their own)."""

    def __init__(self, broker_id: int, metadata_cache: MetadataCache, local: Callable[[], ShareCoordinatorService | None],
                 client_factory: Callable[[BrokerInfo], NetworkClient], loop: asyncio.AbstractEventLoop,
                 max_wait_ms: int = 30_000, backoff_ms: int = 50, max_backoff_ms: int = 1000) -> None:
        self.broker_id = broker_id
        self._metadata = metadata_cache
        self._local = local
        self._clients = BrokerClients(metadata_cache, client_factory)
        self._loop = loop
        self.max_wait_ms = max_wait_ms
        self.backoff_ms = backoff_ms
        self.max_backoff_ms = max_backoff_ms

    async def close(self) -> None:
        await self._clients.close()

    # ------------------------------------------------------------------ SharePersister
    async def initialize_state(self, key: SharePartitionKey, state_epoch: int, start_offset: int) -> int:
        error, _ = await self._retrying(key, lambda node: self._initialize(node, key, state_epoch, start_offset))
        return error

    async def read_state(self, key: SharePartitionKey, leader_epoch: int) -> ReadStateResult:
        result = await self._retrying(key, lambda node: self._read(node, key, leader_epoch),
                                      lambda e: ReadStateResult(error_code=e))
        if result.error_code == ErrorCode.INVALID_REQUEST and UNINITIALIZED_READ in (result.error_message or ""):
            return ReadStateResult()
        return result

    async def write_state(self, key: SharePartitionKey, state_epoch: int, leader_epoch: int,
                          start_offset: int, batches: list[StateBatch],
                          delivery_complete_count: int = -1) -> int:
        def write(node: int) -> Awaitable[tuple[ErrorCode, str | None]]:
            return self._write(node, key, state_epoch, leader_epoch, start_offset, batches,
                               delivery_complete_count)
        error: int
        error, message = await self._retrying(key, write)
        if error == ErrorCode.INVALID_REQUEST and UNINITIALIZED_WRITE in (message or ""):
            error = await self.initialize_state(key, state_epoch, max(start_offset, 0))
            if error == ErrorCode.NONE:
                error, _ = await self._retrying(key, write)
        return error

    async def delete_state(self, key: SharePartitionKey) -> int:
        error, _ = await self._retrying(key, lambda node: self._delete(node, key))
        return error

    async def read_summary(self, key: SharePartitionKey, leader_epoch: int) -> StateSummary:
        return await self._retrying(key, lambda node: self._summary(node, key),
                                    lambda e: StateSummary(error_code=e))

    # ------------------------------------------------------------------ routing and retries
    def _coordinator_node(self, key: SharePartitionKey) -> int | None:
        info = self._metadata.topic(SHARE_GROUP_STATE_TOPIC_NAME)
        if info is None or not info.partitions:
            local = self._local()
            if local is not None:   # asks for the topic to be created, as FindCoordinator does
                local.find_coordinator(str(key))
            return None
        part = info.partitions.get(partition_for(str(key), len(info.partitions)))
        if part is None or part.leader < 0:
            return None
        if part.leader != self.broker_id and self._metadata.broker(part.leader) is None:
            return None
        return part.leader

    async def _retrying(self, key: SharePartitionKey, call: Callable[[int], Awaitable[_Result]],
                        failure: Callable[[ErrorCode], Any] = lambda e: (e, None)) -> _Result:
        """`call(coordinator node)`'s result, retried while retriable; `failure(error)` is
        the result while the key has no coordinator."""
        deadline = self._loop.time() + self.max_wait_ms / 1000
        backoff = self.backoff_ms / 1000
        while True:
            node = self._coordinator_node(key)
            if node is None:
                result = failure(ErrorCode.COORDINATOR_NOT_AVAILABLE)
            else:
                result = await call(node)
            if _error_of(result) not in RETRIABLE or self._loop.time() + backoff > deadline:
                return result
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self.max_backoff_ms / 1000)

    async def _send(self, node: int, api_key: ApiKey, request: Any) -> Any:
        """The response of `node`, or None when the connection failed (retried)."""
        try:
            client = self._clients.get(node)
            return await client.send(api_key, request)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - connection trouble: retried
            log.info("%s to broker %d failed: %s", api_key.name, node, e)
            return None

    # ------------------------------------------------------------------ the five calls
    async def _initialize(self, node: int, key: SharePartitionKey, state_epoch: int,
                          start_offset: int) -> tuple[ErrorCode, str | None]:
        if node == self.broker_id:
            return await self._local_or_unavailable().initialize_state(key, state_epoch, start_offset)
        resp = await self._send(node, ApiKey.INITIALIZE_SHARE_GROUP_STATE, messages.InitializeShareGroupStateRequest(
            group_id=key.group_id, topics=[messages.InitializeShareGroupStateRequest.InitializeStateData(topic_id=key.topic_id.bytes, partitions=[
                messages.InitializeShareGroupStateRequest.PartitionData(partition=key.partition, state_epoch=state_epoch, start_offset=start_offset)])]))
        return _error_and_message(_partition_result(resp))

    async def _write(self, node: int, key: SharePartitionKey, state_epoch: int, leader_epoch: int,
                     start_offset: int, batches: list[StateBatch],
                     delivery_complete_count: int) -> tuple[ErrorCode, str | None]:
        if node == self.broker_id:
            return await self._local_or_unavailable().write_state(key, state_epoch, leader_epoch, start_offset,
                                                                  batches, delivery_complete_count)
        resp = await self._send(node, ApiKey.WRITE_SHARE_GROUP_STATE, messages.WriteShareGroupStateRequest(
            group_id=key.group_id, topics=[messages.WriteShareGroupStateRequest.WriteStateData(topic_id=key.topic_id.bytes, partitions=[
                messages.WriteShareGroupStateRequest.PartitionData(partition=key.partition, state_epoch=state_epoch, leader_epoch=leader_epoch,
                                start_offset=start_offset, delivery_complete_count=delivery_complete_count,
                                state_batches=[messages.WriteShareGroupStateRequest.StateBatch(first_offset=b.first_offset, last_offset=b.last_offset,
                                                                                               delivery_state=b.delivery_state,
                                                                                               delivery_count=b.delivery_count)
                                               for b in batches])])]))
        return _error_and_message(_partition_result(resp))

    async def _read(self, node: int, key: SharePartitionKey, leader_epoch: int) -> ReadStateResult:
        if node == self.broker_id:
            return await self._local_or_unavailable().read_state(key, leader_epoch)
        resp = await self._send(node, ApiKey.READ_SHARE_GROUP_STATE, messages.ReadShareGroupStateRequest(
            group_id=key.group_id, topics=[messages.ReadShareGroupStateRequest.ReadStateData(topic_id=key.topic_id.bytes, partitions=[
                messages.ReadShareGroupStateRequest.PartitionData(partition=key.partition, leader_epoch=leader_epoch)])]))
        p = _partition_result(resp)
        if p is None:
            return ReadStateResult(error_code=ErrorCode.NETWORK_EXCEPTION)
        if p.error_code != ErrorCode.NONE:
            return ReadStateResult(error_code=ErrorCode(p.error_code), error_message=p.error_message)
        return ReadStateResult(state_epoch=p.state_epoch, start_offset=p.start_offset, batches=[
            StateBatch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count) for b in p.state_batches])

    async def _delete(self, node: int, key: SharePartitionKey) -> tuple[ErrorCode, str | None]:
        if node == self.broker_id:
            return await self._local_or_unavailable().delete_state(key)
        resp = await self._send(node, ApiKey.DELETE_SHARE_GROUP_STATE, messages.DeleteShareGroupStateRequest(
            group_id=key.group_id, topics=[messages.DeleteShareGroupStateRequest.DeleteStateData(topic_id=key.topic_id.bytes, partitions=[
                messages.DeleteShareGroupStateRequest.PartitionData(partition=key.partition)])]))
        return _error_and_message(_partition_result(resp))

    async def _summary(self, node: int, key: SharePartitionKey) -> StateSummary:
        if node == self.broker_id:
            return await self._local_or_unavailable().read_summary(key)
        resp = await self._send(node, ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, messages.ReadShareGroupStateSummaryRequest(
            group_id=key.group_id, topics=[messages.ReadShareGroupStateSummaryRequest.ReadStateSummaryData(topic_id=key.topic_id.bytes, partitions=[
                messages.ReadShareGroupStateSummaryRequest.PartitionData(partition=key.partition, leader_epoch=-1)])]))
        p = _partition_result(resp)
        if p is None:
            return StateSummary(error_code=ErrorCode.NETWORK_EXCEPTION)
        return StateSummary(error_code=ErrorCode(p.error_code), error_message=p.error_message, state_epoch=p.state_epoch,
                            leader_epoch=p.leader_epoch, start_offset=p.start_offset,
                            delivery_complete_count=getattr(p, "delivery_complete_count", -1))

    def _local_or_unavailable(self) -> ShareCoordinatorService | _Unavailable:
        local = self._local()
        return local if local is not None else _Unavailable()


class _Unavailable:
    """Stands in for a local share coordinator not built yet (startup, shutdown)."""

    async def initialize_state(self, *_: object) -> tuple[ErrorCode, str | None]:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE, None

    write_state = delete_state = initialize_state

    async def read_state(self, *_: object) -> ReadStateResult:
        return ReadStateResult(error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE)

    async def read_summary(self, *_: object) -> StateSummary:
        return StateSummary(error_code=ErrorCode.COORDINATOR_NOT_AVAILABLE)


def _partition_result(resp: Any) -> Any:
    if resp is None:
        return None
    for r in resp.results:
        for p in r.partitions:
            return p
    return None


class _PartitionError(Protocol):
    """A persister response's partition result: its error and message."""

    @property
    def error_code(self) -> int: ...

    @property
    def error_message(self) -> str | None: ...


def _error_and_message(p: _PartitionError | None) -> tuple[ErrorCode, str | None]:
    if p is None:
        return ErrorCode.NETWORK_EXCEPTION, None
    return ErrorCode(p.error_code), p.error_message


def _error_of(result: tuple[ErrorCode, str | None] | ReadStateResult | StateSummary) -> ErrorCode:
    if isinstance(result, tuple):
        return result[0]
    return ErrorCode(result.error_code)

