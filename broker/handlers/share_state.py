"""The persister RPCs a share partition's leader sends to the share coordinator (KIP-932):
InitializeShareGroupState (83), ReadShareGroupState (84), WriteShareGroupState (85),
DeleteShareGroupState (86) and ReadShareGroupStateSummary (87).

Thin glue between the requests and `services.share_coordinator` (a
coordinator.share_state.service.ShareCoordinatorService): each partition of a request is one call,
all run concurrently, each answering with Kafka's error code in its own result. As in Kafka,
an empty group id or an empty topic list answers an empty result list. Inter-broker APIs:
CLUSTER_ACTION is required when an authorizer is set (``kafpy.broker.authorization_rules``).
"""
from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, Union

from kafpy.protocol import messages
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode

from kafpy.broker.handler import Handler, RequestContext
from kafpy.coordinator.share_state.persister import SharePartitionKey, StateBatch

if TYPE_CHECKING:
    from kafpy.coordinator.share_state.service import ShareCoordinatorService

# the persister RPCs' requests, each answered per partition
ShareStateRequest = Union[messages.InitializeShareGroupStateRequest, messages.ReadShareGroupStateRequest,
                          messages.WriteShareGroupStateRequest, messages.DeleteShareGroupStateRequest,
                          messages.ReadShareGroupStateSummaryRequest]


class _StateTopic(Protocol):
    """A topic of a persister RPC's request."""

    @property
    def topic_id(self) -> bytes: ...


class _StatePartition(Protocol):
    """A partition of a persister RPC's request."""

    @property
    def partition(self) -> int: ...


def _key(req: ShareStateRequest, topic: _StateTopic, part: _StatePartition) -> SharePartitionKey:
    return SharePartitionKey(req.group_id, uuid.UUID(bytes=bytes(topic.topic_id)), part.partition)


async def _per_partition(ctx: RequestContext, req: Any, resp_cls: Any,
                         answer: Callable[[Any, Any, Any], Awaitable[Any]],
                         unavailable: Callable[[Any, ErrorCode, str], Any]) -> Any:
    """The response with one result per requested partition: `answer(service, topic,
    partition)` for each, or `unavailable(partition, ...)` without a share coordinator."""
    if not req.group_id or not req.topics:
        return resp_cls(results=[])
    service = ctx.services.share_coordinator
    result_cls = getattr(resp_cls, resp_cls.FIELDS[0].type.lstrip("[]"))
    results = []
    for topic in req.topics:
        if service is None:
            parts = [unavailable(p, ErrorCode.COORDINATOR_NOT_AVAILABLE, "Share coordinator is not available.")
                     for p in topic.partitions]
        else:
            parts = list(await asyncio.gather(*(answer(service, topic, p) for p in topic.partitions)))
        results.append(result_cls(topic_id=topic.topic_id, partitions=parts))
    return resp_cls(results=results)


def _batches(part: messages.WriteShareGroupStateRequest.PartitionData) -> list[StateBatch]:
    return [StateBatch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count)
            for b in part.state_batches or []]


# ------------------------------------------------------------------ 83
async def handle_initialize_share_group_state(ctx: RequestContext, req: messages.InitializeShareGroupStateRequest) -> messages.InitializeShareGroupStateResponse:

    def result(p: messages.InitializeShareGroupStateRequest.PartitionData, error: ErrorCode, message: str | None
               ) -> messages.InitializeShareGroupStateResponse.PartitionResult:
        return messages.InitializeShareGroupStateResponse.PartitionResult(partition=p.partition, error_code=error,
                                                                          error_message=None if error == ErrorCode.NONE else message)

    async def answer(service: ShareCoordinatorService, topic: messages.InitializeShareGroupStateRequest.InitializeStateData,
                     p: messages.InitializeShareGroupStateRequest.PartitionData) -> messages.InitializeShareGroupStateResponse.PartitionResult:
        error, message = await service.initialize_state(_key(req, topic, p), p.state_epoch, p.start_offset)
        return result(p, error, message)
    return await _per_partition(ctx, req, messages.InitializeShareGroupStateResponse, answer, result)


# ------------------------------------------------------------------ 84
async def handle_read_share_group_state(ctx: RequestContext, req: messages.ReadShareGroupStateRequest) -> messages.ReadShareGroupStateResponse:

    def failed(p: messages.ReadShareGroupStateRequest.PartitionData, error: ErrorCode, message: str | None
               ) -> messages.ReadShareGroupStateResponse.PartitionResult:
        return messages.ReadShareGroupStateResponse.PartitionResult(partition=p.partition, error_code=error, error_message=message,
                                                                    state_epoch=0, start_offset=-1, state_batches=[])

    async def answer(service: ShareCoordinatorService, topic: messages.ReadShareGroupStateRequest.ReadStateData,
                     p: messages.ReadShareGroupStateRequest.PartitionData) -> messages.ReadShareGroupStateResponse.PartitionResult:
        r = await service.read_state(_key(req, topic, p), p.leader_epoch)
        if r.error_code != ErrorCode.NONE:
            return failed(p, ErrorCode(r.error_code), r.error_message)
        return messages.ReadShareGroupStateResponse.PartitionResult(
            partition=p.partition, error_code=ErrorCode.NONE, error_message=None, state_epoch=r.state_epoch,
            start_offset=r.start_offset,
            state_batches=[messages.ReadShareGroupStateResponse.StateBatch(first_offset=b.first_offset, last_offset=b.last_offset,
                                                                           delivery_state=b.delivery_state, delivery_count=b.delivery_count)
                           for b in r.batches])
    return await _per_partition(ctx, req, messages.ReadShareGroupStateResponse, answer, failed)


# ------------------------------------------------------------------ 85
async def handle_write_share_group_state(ctx: RequestContext, req: messages.WriteShareGroupStateRequest) -> messages.WriteShareGroupStateResponse:

    def result(p: messages.WriteShareGroupStateRequest.PartitionData, error: ErrorCode, message: str | None
               ) -> messages.WriteShareGroupStateResponse.PartitionResult:
        return messages.WriteShareGroupStateResponse.PartitionResult(partition=p.partition, error_code=error,
                                                                     error_message=None if error == ErrorCode.NONE else message)

    async def answer(service: ShareCoordinatorService, topic: messages.WriteShareGroupStateRequest.WriteStateData,
                     p: messages.WriteShareGroupStateRequest.PartitionData) -> messages.WriteShareGroupStateResponse.PartitionResult:
        dcc = p.delivery_complete_count if ctx.api_version >= 1 else -1
        error, message = await service.write_state(_key(req, topic, p), p.state_epoch, p.leader_epoch,
                                                   p.start_offset, _batches(p), dcc)
        return result(p, error, message)
    return await _per_partition(ctx, req, messages.WriteShareGroupStateResponse, answer, result)


# ------------------------------------------------------------------ 86
async def handle_delete_share_group_state(ctx: RequestContext, req: messages.DeleteShareGroupStateRequest) -> messages.DeleteShareGroupStateResponse:

    def result(p: messages.DeleteShareGroupStateRequest.PartitionData, error: ErrorCode, message: str | None
               ) -> messages.DeleteShareGroupStateResponse.PartitionResult:
        return messages.DeleteShareGroupStateResponse.PartitionResult(partition=p.partition, error_code=error,
                                                                      error_message=None if error == ErrorCode.NONE else message)

    async def answer(service: ShareCoordinatorService, topic: messages.DeleteShareGroupStateRequest.DeleteStateData,
                     p: messages.DeleteShareGroupStateRequest.PartitionData) -> messages.DeleteShareGroupStateResponse.PartitionResult:
        error, message = await service.delete_state(_key(req, topic, p))
        return result(p, error, message)
    return await _per_partition(ctx, req, messages.DeleteShareGroupStateResponse, answer, result)


# ------------------------------------------------------------------ 87
async def handle_read_share_group_state_summary(ctx: RequestContext, req: messages.ReadShareGroupStateSummaryRequest) -> messages.ReadShareGroupStateSummaryResponse:

    def failed(p: messages.ReadShareGroupStateSummaryRequest.PartitionData, error: ErrorCode, message: str | None
               ) -> messages.ReadShareGroupStateSummaryResponse.PartitionResult:
        return messages.ReadShareGroupStateSummaryResponse.PartitionResult(partition=p.partition, error_code=error, error_message=message,
                                                                           state_epoch=0, leader_epoch=-1, start_offset=-1, delivery_complete_count=-1)

    async def answer(service: ShareCoordinatorService, topic: messages.ReadShareGroupStateSummaryRequest.ReadStateSummaryData,
                     p: messages.ReadShareGroupStateSummaryRequest.PartitionData) -> messages.ReadShareGroupStateSummaryResponse.PartitionResult:
        s = await service.read_summary(_key(req, topic, p))
        if s.error_code != ErrorCode.NONE:
            return failed(p, ErrorCode(s.error_code), s.error_message)
        return messages.ReadShareGroupStateSummaryResponse.PartitionResult(partition=p.partition, error_code=ErrorCode.NONE, error_message=None,
                                                                           state_epoch=s.state_epoch, leader_epoch=s.leader_epoch,
                                                                           start_offset=s.start_offset, delivery_complete_count=s.delivery_complete_count)
    return await _per_partition(ctx, req, messages.ReadShareGroupStateSummaryResponse, answer, failed)


# What each persister RPC's refusal carries beside its error (Kafka's getErrorResponse);
# the authorization rule (``kafpy.broker.authorization_rules``) answers with it.
SHARE_STATE_ERROR_FIELDS: dict[ApiKey, tuple[Any, dict[str, Any]]] = {
    ApiKey.INITIALIZE_SHARE_GROUP_STATE: (messages.InitializeShareGroupStateResponse, {}),
    ApiKey.READ_SHARE_GROUP_STATE: (messages.ReadShareGroupStateResponse,
                                    {"state_epoch": 0, "start_offset": -1, "state_batches": []}),
    ApiKey.WRITE_SHARE_GROUP_STATE: (messages.WriteShareGroupStateResponse, {}),
    ApiKey.DELETE_SHARE_GROUP_STATE: (messages.DeleteShareGroupStateResponse, {}),
    ApiKey.READ_SHARE_GROUP_STATE_SUMMARY: (messages.ReadShareGroupStateSummaryResponse,
                                            {"state_epoch": 0, "leader_epoch": -1, "start_offset": -1,
                                             "delivery_complete_count": -1}),
}


HANDLERS = [
    Handler(ApiKey.INITIALIZE_SHARE_GROUP_STATE, 0, 0, handle_initialize_share_group_state),
    Handler(ApiKey.READ_SHARE_GROUP_STATE, 0, 0, handle_read_share_group_state),
    Handler(ApiKey.WRITE_SHARE_GROUP_STATE, 0, 1, handle_write_share_group_state),
    Handler(ApiKey.DELETE_SHARE_GROUP_STATE, 0, 0, handle_delete_share_group_state),
    Handler(ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, 0, 1, handle_read_share_group_state_summary),
]
