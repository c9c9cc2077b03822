"""Admin requests a KRaft broker sends on to the active controller (Kafka 4's broker hands
CreateTopics, DeleteTopics, CreatePartitions, the config, ACL, quota, SCRAM and feature
changes, leader elections and reassignments, DescribeQuorum, UnregisterBroker and the voter
changes to the controller, which writes the metadata log;
the broker learns the outcome from the log like every other broker).

The request goes as the client sent it, at the client's version; the controller's answer goes
back unchanged. When no controller answers, the client gets NOT_CONTROLLER in every entry
(``error_responses.error_response``), on which Kafka's clients refresh metadata and retry.

Who calls it: ``KRaftBroker`` builds its handler registry with ``kraft_registry`` (the usual
handlers, these keys replaced). Nothing on disk.
"""
from __future__ import annotations

import logging
from typing import Callable

from kafpy.protocol import codec
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message

from kafpy.broker.apis import HANDLER_MODULES, ApiRegistry
from kafpy.broker.error_responses import error_response
from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.kraft_controller_channel import ControllerChannel, ControllerUnavailable

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
            response: Message = await channel().send(api_key, request, version=version)
            return response
        except ControllerUnavailable as e:
            log.info("Forwarding %s from %s to the controller failed: %s", api_key.name, ctx.client_id, e)
            return error_response(api_key, version, request, ErrorCode.NOT_CONTROLLER)
    return Handler(api_key, spec.min_version, spec.max_version, forward)


def kraft_registry(channel: Callable[[], ControllerChannel]) -> ApiRegistry:
    """The broker's handlers with the admin APIs forwarded to the controller."""
    forwarded = {int(k) for k in FORWARDED}
    handlers = [h for m in HANDLER_MODULES for h in m.HANDLERS if int(h.api_key) not in forwarded]
    handlers += [forwarding_handler(k, channel) for k in FORWARDED]
    return ApiRegistry(handlers)
