"""Admin requests a KRaft broker sends on to the active controller (Kafka 4's broker hands
CreateTopics, DeleteTopics, CreatePartitions, the config, ACL, quota, SCRAM and feature
changes, leader elections and reassignments, DescribeQuorum, UnregisterBroker and the voter
changes to the controller, which writes the metadata log;
the broker learns the outcome from the log like every other broker).

The request goes inside an Envelope (KIP-590), as the client sent it, at the client's version,
with the client's principal and address, so the controller authorizes it as the client (Kafka's
``ForwardingManager``); the controller's answer goes back unchanged. An error of the Envelope
itself (the controller could not read the principal, refused this broker CLUSTER_ACTION) is
answered UNKNOWN_SERVER_ERROR, as Kafka does. When no controller answers, the client gets NOT_CONTROLLER in every entry
(``error_responses.error_response``), on which Kafka's clients refresh metadata and retry.

Who calls it: ``KRaftBroker`` builds its handler registry with ``kraft_registry`` (the usual
handlers, these keys replaced). Nothing on disk.
"""
from __future__ import annotations

import ipaddress
import logging
from typing import Awaitable, Callable, TypeVar

from kafpy.protocol import codec
from kafpy.protocol.messages import (
    AlterConfigsRequest, AlterConfigsResponse, EnvelopeRequest, EnvelopeResponse, IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse, RequestHeader)
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message

from kafpy.broker.apis import HANDLER_MODULES, ApiRegistry
from kafpy.broker.config_resources import DUPLICATE_RESOURCE_MESSAGE, ConfigResourceRef, duplicated
from kafpy.broker.error_responses import error_response
from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.kraft_controller_channel import ControllerChannel, ControllerUnavailable
from kafpy.broker.security.principal_serde import serialize as serialize_principal

log = logging.getLogger("kafka.server.ForwardingManager")

FORWARDED = (
    ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS, ApiKey.CREATE_PARTITIONS, ApiKey.ALTER_CONFIGS,
    ApiKey.INCREMENTAL_ALTER_CONFIGS, ApiKey.CREATE_ACLS, ApiKey.DELETE_ACLS, ApiKey.ALTER_CLIENT_QUOTAS,
    ApiKey.ALTER_USER_SCRAM_CREDENTIALS, ApiKey.UPDATE_FEATURES, ApiKey.ELECT_LEADERS,
    ApiKey.ALTER_PARTITION_REASSIGNMENTS, ApiKey.LIST_PARTITION_REASSIGNMENTS,
    # the quorum's own APIs, which Kafka's broker forwards too (kafka-metadata-quorum --bootstrap-server)
    ApiKey.DESCRIBE_QUORUM, ApiKey.UNREGISTER_BROKER, ApiKey.ADD_RAFT_VOTER, ApiKey.REMOVE_RAFT_VOTER,
)


def forwarding_handler(api_key: ApiKey, channel: Callable[[], ControllerChannel]) -> Handler:
    """A handler that sends ``api_key`` requests to the active controller, for every version
    the codec knows."""
    spec = codec.SPECS[api_key]

    async def forward(ctx: RequestContext, request: Message) -> Message | None:
        version = ctx.api_version
        try:
            envelope: EnvelopeResponse = await channel().send(ApiKey.ENVELOPE, envelope_of(ctx, api_key, request))
        except ControllerUnavailable as e:
            log.info("Forwarding %s from %s to the controller failed: %s", api_key.name, ctx.client_id, e)
            return error_response(api_key, version, request, ErrorCode.NOT_CONTROLLER)
        if envelope.error_code != ErrorCode.NONE or envelope.response_data is None:
            error = ErrorCode(envelope.error_code)
            log.info("The controller answered the Envelope of %s from %s with %s", api_key.name, ctx.client_id,
                     error.name)
            return error_response(api_key, version, request, ErrorCode.NOT_CONTROLLER if error ==
                                  ErrorCode.NOT_CONTROLLER else ErrorCode.UNKNOWN_SERVER_ERROR)
        _, response = codec.decode_response(api_key, version, envelope.response_data)
        return response
    if api_key in (ApiKey.ALTER_CONFIGS, ApiKey.INCREMENTAL_ALTER_CONFIGS):
        return Handler(api_key, spec.min_version, spec.max_version, _answering_duplicates(forward))
    return Handler(api_key, spec.min_version, spec.max_version, forward)


AlterRequest = AlterConfigsRequest | IncrementalAlterConfigsRequest
_R = TypeVar("_R")


def _answering_duplicates(forward: Callable[[RequestContext, Message], Awaitable[Message | None]]
                          ) -> Callable[[RequestContext, AlterRequest], Awaitable[Message | None]]:
    """A resource named twice is answered here, as Kafka's broker answers it before forwarding
    (``config_resources``); the other resources go to the controller, and the answer lists
    every resource in the request's order."""
    async def handle(ctx: RequestContext, request: AlterRequest) -> Message | None:
        original: list[ConfigResourceRef] = list(request.resources)
        twice = duplicated(original)
        if not twice:
            return await forward(ctx, request)
        kept = [r for i, r in enumerate(request.resources) if i not in twice]
        answered = None
        if kept:
            request.resources = kept  # type: ignore[assignment]  # the same resource type, fewer of them
            answered = await forward(ctx, request)
        if isinstance(request, IncrementalAlterConfigsRequest):
            incremental = IncrementalAlterConfigsResponse
            return incremental(throttle_time_ms=0, responses=_in_order(
                original, twice, answered.responses if isinstance(answered, incremental) else [],
                lambda r, code, message: incremental.AlterConfigsResourceResponse(
                    error_code=int(code), error_message=message, resource_type=r.resource_type,
                    resource_name=r.resource_name)))
        return AlterConfigsResponse(throttle_time_ms=0, responses=_in_order(
            original, twice, answered.responses if isinstance(answered, AlterConfigsResponse) else [],
            lambda r, code, message: AlterConfigsResponse.AlterConfigsResourceResponse(
                error_code=int(code), error_message=message, resource_type=r.resource_type,
                resource_name=r.resource_name)))
    return handle


def _in_order(original: list[ConfigResourceRef], twice: set[int], answered: list[_R],
              entry: Callable[[ConfigResourceRef, ErrorCode, str], _R]) -> list[_R]:
    """Every resource of ``original`` in its order: the duplicates refused, the others the
    controller's answers in turn (UNKNOWN_SERVER_ERROR should it have answered fewer)."""
    got = iter(answered)
    out = []
    for i, r in enumerate(original):
        found = None if i in twice else next(got, None)
        if found is None:
            found = entry(r, ErrorCode.INVALID_REQUEST, DUPLICATE_RESOURCE_MESSAGE) if i in twice else \
                entry(r, ErrorCode.UNKNOWN_SERVER_ERROR, "The controller answered fewer resources than asked.")
        out.append(found)
    return out


def envelope_of(ctx: RequestContext, api_key: ApiKey, request: Message) -> EnvelopeRequest:
    """``request`` with the client's header, principal and address, as Kafka's broker wraps it."""
    header = RequestHeader(request_api_key=int(api_key), request_api_version=ctx.api_version,
                           correlation_id=ctx.header.correlation_id, client_id=ctx.header.client_id)
    try:
        address = ipaddress.ip_address(ctx.client_host).packed
    except ValueError:  # not an address (a unit test's context): the unspecified one
        address = bytes(4)
    return EnvelopeRequest(request_data=codec.encode_request(header, request)[4:],
                           request_principal=serialize_principal(ctx.principal), client_host_address=address)


def kraft_registry(channel: Callable[[], ControllerChannel]) -> ApiRegistry:
    """The broker's handlers with the admin APIs forwarded to the controller."""
    forwarded = {int(k) for k in FORWARDED}
    handlers = [h for m in HANDLER_MODULES for h in m.HANDLERS if int(h.api_key) not in forwarded]
    handlers += [forwarding_handler(k, channel) for k in FORWARDED]
    return ApiRegistry(handlers)
