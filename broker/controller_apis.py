"""The requests a KRaft controller's listeners serve (Kafka's ``ControllerApis``), for what the
quorum runs today: ApiVersions (listing only these APIs), the raft APIs (Vote,
BeginQuorumEpoch, EndQuorumEpoch, Fetch of ``__cluster_metadata-0``) answered by the
``KafkaRaftClient``, DescribeQuorum, and DescribeCluster for clients that bootstrap from the
controllers (``--bootstrap-controller``, KIP-919). Any other API is not enabled on a
controller listener: ``handler_for`` answers None and the server closes the connection, as
Kafka's socket server does for an API its listener does not enable.

Kafka lists the controllers in DescribeCluster from their ControllerRegistration records; until
the controller registers itself in the metadata log, the voters of ``controller.quorum.voters``
are listed (the same nodes and addresses for a static quorum).

Called by ``kafpy.broker.controller_server`` per decoded request; pure of sockets.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Awaitable, Callable

from kafpy.protocol import codec
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import (
    AddRaftVoterRequest, ApiVersionsRequest, ApiVersionsResponse, BeginQuorumEpochRequest, DescribeClusterRequest,
    DescribeClusterResponse, DescribeQuorumRequest, EndQuorumEpochRequest, FetchRequest, RemoveRaftVoterRequest,
    RequestHeader, UpdateRaftVoterRequest, VoteRequest,
)
from kafpy.raft.describe_quorum import describe_quorum
from kafpy.raft.kafka_raft_client import KafkaRaftClient
from kafpy.raft.voter_set import SUPPORTED_KRAFT_VERSIONS, Endpoint, VoterSet

from kafpy.broker.security.acl import SUPPORTED_OPERATIONS, ResourceType

BROKER_ENDPOINT_TYPE, CONTROLLER_ENDPOINT_TYPE = 1, 2  # DescribeCluster's EndpointType
_SOFTWARE_NAME = re.compile(r"^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$")
_ENDPOINT_NAMES = {BROKER_ENDPOINT_TYPE: "BROKER", CONTROLLER_ENDPOINT_TYPE: "CONTROLLER"}
# without an authorizer Kafka reports every operation the cluster resource supports
_ALL_CLUSTER_OPERATIONS = sum(1 << int(op) for op in SUPPORTED_OPERATIONS[ResourceType.CLUSTER])

# the APIs a controller serves and the versions (those of the codec, Kafka 4.4's)
CONTROLLER_APIS: tuple[ApiKey, ...] = (
    ApiKey.FETCH, ApiKey.API_VERSIONS, ApiKey.VOTE, ApiKey.BEGIN_QUORUM_EPOCH, ApiKey.END_QUORUM_EPOCH,
    ApiKey.DESCRIBE_QUORUM, ApiKey.DESCRIBE_CLUSTER,
    ApiKey.ADD_RAFT_VOTER, ApiKey.REMOVE_RAFT_VOTER, ApiKey.UPDATE_RAFT_VOTER,  # KIP-853, raft.voter_changes
)

ControllerHandler = Callable[[RequestHeader, Message], Awaitable[Message]]


@dataclass(frozen=True)
class RequestScope:
    """What a handler knows of the connection: the listener it came in on."""

    listener_name: str


class ControllerApis:
    """Keeps the raft client, the cluster id, this node's id and the voters."""

    def __init__(self, raft: KafkaRaftClient, cluster_id: str, node_id: int, voters: VoterSet) -> None:
        self.raft = raft
        self.cluster_id = cluster_id
        self.node_id = node_id
        self.voters = voters
        self._ranges = sorted((int(k), codec.SPECS[k].min_version, codec.SPECS[k].max_version)
                              for k in CONTROLLER_APIS)

    @property
    def endpoints(self) -> dict[int, list[Endpoint]]:
        """The voters' endpoints at the log end (they change with AddRaftVoter/RemoveRaftVoter)."""
        return self.raft.core.quorum.voter_set.endpoints()

    def version_ranges(self) -> list[tuple[int, int, int]]:
        return list(self._ranges)

    def is_enabled(self, api_key: int, api_version: int) -> bool:
        return any(k == api_key and lo <= api_version <= hi for k, lo, hi in self._ranges)

    async def handle(self, header: RequestHeader, request: Message, scope: RequestScope) -> Message:
        """The response to one request of an enabled API (checked by the caller)."""
        key = header.request_api_key
        version = header.request_api_version
        if isinstance(request, ApiVersionsRequest):
            return self._api_versions(request, version)
        if isinstance(request, (VoteRequest, BeginQuorumEpochRequest, EndQuorumEpochRequest, FetchRequest,
                                UpdateRaftVoterRequest)):
            return await self.raft.handle_request(ApiKey(key), request)
        if isinstance(request, (AddRaftVoterRequest, RemoveRaftVoterRequest)):
            return await self.raft.handle_voter_change(request)
        if isinstance(request, DescribeQuorumRequest):
            voters = self.raft.core.quorum.voter_set  # the voters at the log end, as Kafka describes them
            return describe_quorum(self.raft.core, request, version, voters.endpoints(), self.raft.time_ms(),
                                   voters.directory_ids())
        if isinstance(request, DescribeClusterRequest):
            return self._describe_cluster(request, version, scope)
        raise ValueError(f"api key {key} is not served by a controller")

    def _api_versions(self, request: ApiVersionsRequest, version: int) -> ApiVersionsResponse:
        error = ErrorCode.NONE
        if version >= 3 and not (_SOFTWARE_NAME.match(request.client_software_name or "")
                                 and _SOFTWARE_NAME.match(request.client_software_version or "")):
            error = ErrorCode.INVALID_REQUEST
        return ApiVersionsResponse(error_code=int(error), throttle_time_ms=0, api_keys=[
            ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
            for k, lo, hi in self._ranges], supported_features=[  # what a leader adding this voter asks
            ApiVersionsResponse.SupportedFeatureKey(name="kraft.version", min_version=SUPPORTED_KRAFT_VERSIONS[0],
                                                    max_version=SUPPORTED_KRAFT_VERSIONS[1])])

    def _describe_cluster(self, request: DescribeClusterRequest, version: int,
                          scope: RequestScope) -> DescribeClusterResponse:
        """Kafka's ``computeDescribeClusterResponse`` for the CONTROLLER endpoint type."""
        endpoint_type = request.endpoint_type if version >= 1 else BROKER_ENDPOINT_TYPE
        if endpoint_type not in _ENDPOINT_NAMES:
            return DescribeClusterResponse(
                error_code=int(ErrorCode.INVALID_REQUEST if version == 0 else ErrorCode.UNSUPPORTED_ENDPOINT_TYPE),
                error_message=f"Unsupported endpoint type {endpoint_type}")
        if endpoint_type != CONTROLLER_ENDPOINT_TYPE:
            return DescribeClusterResponse(
                error_code=int(ErrorCode.INVALID_REQUEST if version == 0 else ErrorCode.MISMATCHED_ENDPOINT_TYPE),
                error_message="The request was sent to an endpoint of type CONTROLLER, but we wanted an "
                              f"endpoint of type {_ENDPOINT_NAMES[endpoint_type]}")
        leader = self.raft.leader_and_epoch.leader_id
        brokers = [DescribeClusterResponse.DescribeClusterBroker(broker_id=node, host=e.host, port=e.port)
                   for node in sorted(self.endpoints)
                   for e in self.endpoints[node] if e.name == scope.listener_name]
        listed = {b.broker_id for b in brokers}
        return DescribeClusterResponse(
            error_code=0, error_message=None, endpoint_type=CONTROLLER_ENDPOINT_TYPE,
            cluster_id=self.cluster_id, controller_id=leader if leader in listed else -1, brokers=brokers,
            cluster_authorized_operations=(_ALL_CLUSTER_OPERATIONS if request.include_cluster_authorized_operations
                                           else -2147483648))
