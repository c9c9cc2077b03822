"""The requests a KRaft controller's listeners serve (Kafka's ``ControllerApis``):
ApiVersions (listing only these APIs, with the controller's supported and the cluster's
finalized features), the raft APIs (Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch of
``__cluster_metadata-0``) answered by the ``KafkaRaftClient``, DescribeQuorum, DescribeCluster
for clients that bootstrap from the controllers (``--bootstrap-controller``, KIP-919), and,
when the quorum controller runs, the admin and broker-lifecycle APIs of
``kafpy.broker.controller_requests``. Every other API is disabled on a controller listener:
the server closes the connection, as Kafka's socket server does for an API its listener does
not enable.

Kafka lists the controllers in DescribeCluster from their ControllerRegistration records; until
a controller registered in the metadata log, the voters of ``controller.quorum.voters`` are
listed (the same nodes and addresses for a static quorum).

Called by ``kafpy.broker.controller_server`` per decoded request; pure of sockets.
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Awaitable, Callable

from kafpy.protocol import codec
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message, Struct
from kafpy.metadata.controller.quorum_controller import QuorumController
from kafpy.protocol.messages import (
    AddRaftVoterRequest, ApiVersionsRequest, ApiVersionsResponse, BeginQuorumEpochRequest, DescribeClusterRequest,
    DescribeClusterResponse, DescribeQuorumRequest, DescribeQuorumResponse, EndQuorumEpochRequest, EnvelopeRequest,
    EnvelopeResponse, FetchRequest, FetchSnapshotRequest, RemoveRaftVoterRequest, RequestHeader, UpdateRaftVoterRequest,
    VoteRequest,
)
from kafpy.protocol.errors import ProtocolError, UnsupportedVersion
from kafpy.raft.describe_quorum import describe_quorum
from kafpy.raft.kafka_raft_client import KafkaRaftClient
from kafpy.raft.voter_set import SUPPORTED_KRAFT_VERSIONS, Endpoint, VoterSet

from kafpy.broker.controller_authorization import Caller, ControllerAuthorizer
from kafpy.broker.controller_requests import BROKER_WRITE_APIS, READ_APIS, WRITE_APIS, ControllerRequests
from kafpy.broker.handler import RequestContext
from kafpy.broker.security.acl import SUPPORTED_OPERATIONS, ResourceType
from kafpy.broker.security.principal import ANONYMOUS
from kafpy.broker.security.principal_serde import PrincipalSerdeError
from kafpy.broker.security.principal_serde import deserialize as deserialize_principal

BROKER_ENDPOINT_TYPE, CONTROLLER_ENDPOINT_TYPE = 1, 2  # DescribeCluster's EndpointType
_SOFTWARE_NAME = re.compile(r"^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$")
_ENDPOINT_NAMES = {BROKER_ENDPOINT_TYPE: "BROKER", CONTROLLER_ENDPOINT_TYPE: "CONTROLLER"}
# without an authorizer Kafka reports every operation the cluster resource supports
_ALL_CLUSTER_OPERATIONS = sum(1 << int(op) for op in SUPPORTED_OPERATIONS[ResourceType.CLUSTER])

# the APIs a controller serves and the versions (those of the codec, Kafka 4.4's)
CONTROLLER_APIS: tuple[ApiKey, ...] = (
    ApiKey.FETCH, ApiKey.API_VERSIONS, ApiKey.VOTE, ApiKey.BEGIN_QUORUM_EPOCH, ApiKey.END_QUORUM_EPOCH,
    ApiKey.FETCH_SNAPSHOT,  # KIP-630: a replica behind the leader's log start fetches its snapshot
    ApiKey.DESCRIBE_QUORUM, ApiKey.DESCRIBE_CLUSTER,
    ApiKey.ADD_RAFT_VOTER, ApiKey.REMOVE_RAFT_VOTER, ApiKey.UPDATE_RAFT_VOTER,  # KIP-853, raft.voter_changes
)

# Held below the codec's (Kafka 4.4's Fetch 18, DescribeCluster 2) on the controller listener:
# advertised there, Apache Kafka 4.4's admin tools with --bootstrap-controller timed out
# "waiting for a node assignment" against kafpy controllers in three of three loaded CI runs
# (not when run alone; not root-caused). The v18 KIP-1166 handling stays for the followers of
# an Apache 4.4 leader, which advertises 18.
CONTROLLER_MAX_VERSIONS: dict[int, int] = {int(ApiKey.FETCH): 17, int(ApiKey.DESCRIBE_CLUSTER): 1}

# the quorum's own APIs a broker forwards in an Envelope (forwardable in Kafka's ApiKeys)
FORWARDED_QUORUM_APIS = (ApiKey.DESCRIBE_QUORUM, ApiKey.ADD_RAFT_VOTER, ApiKey.REMOVE_RAFT_VOTER)
# what a broker may forward in an Envelope: the quorum controller's APIs and the quorum's own
FORWARDABLE: tuple[ApiKey, ...] = WRITE_APIS + READ_APIS + FORWARDED_QUORUM_APIS

ControllerHandler = Callable[[RequestHeader, Message], Awaitable[Message]]


@dataclass(frozen=True)
class RequestScope:
    """What a handler knows of the connection: the listener it came in on and the client's
    address."""

    listener_name: str
    client_host: str = ""


class ControllerApis:
    """Keeps the raft client, the cluster id, this node's id and the voters."""

    def __init__(self, raft: KafkaRaftClient, cluster_id: str, node_id: int, voters: VoterSet,
                 requests: ControllerRequests | None = None,
                 authorization: ControllerAuthorizer | None = None) -> None:
        self.raft = raft
        self.authorization = authorization  # None: no authorizer, every request is served
        self.cluster_id = cluster_id
        self.node_id = node_id
        self.voters = voters
        self.requests = requests
        self.controller: QuorumController | None = requests.controller if requests is not None else None
        keys = CONTROLLER_APIS + ((WRITE_APIS + BROKER_WRITE_APIS + READ_APIS + (ApiKey.ENVELOPE,))
                                 if requests is not None else ())
        self._ranges = sorted((int(k), codec.SPECS[k].min_version,
                               min(codec.SPECS[k].max_version, CONTROLLER_MAX_VERSIONS.get(k, 1 << 15)))
                              for k in keys)

    @property
    def endpoints(self) -> dict[int, list[Endpoint]]:
        """The voters' endpoints at the log end (they change with AddRaftVoter/RemoveRaftVoter)."""
        return self.raft.core.quorum.voter_set.endpoints()

    def version_ranges(self) -> list[tuple[int, int, int]]:
        return list(self._ranges)

    def is_enabled(self, api_key: int, api_version: int) -> bool:
        return any(k == api_key and lo <= api_version <= hi for k, lo, hi in self._ranges)

    async def handle(self, header: RequestHeader, request: Message, scope: RequestScope,
                     caller: Caller | None = None) -> Message:
        """The response to one request of an enabled API (checked by the caller), behind its
        authorization rule when an authorizer is configured; ``caller`` is who an Envelope
        says sent it (else the connection's principal, User:ANONYMOUS on PLAINTEXT)."""
        authorization = self.authorization
        if authorization is None:
            return await self._handle(header, request, scope)
        who = caller if caller is not None else Caller(ANONYMOUS, scope.client_host, scope.listener_name)

        async def serve(ctx: RequestContext, req: Message) -> Message:
            return await self._handle(header, req, scope)
        response = await authorization.run(header, request, who, serve)
        assert response is not None  # no controller API answers by closing the connection
        return response

    async def _handle(self, header: RequestHeader, request: Message, scope: RequestScope) -> Message:
        key = header.request_api_key
        version = header.request_api_version
        if isinstance(request, ApiVersionsRequest):
            return self._api_versions(request, version)
        if isinstance(request, (VoteRequest, BeginQuorumEpochRequest, EndQuorumEpochRequest, FetchRequest,
                                FetchSnapshotRequest, UpdateRaftVoterRequest)):
            return await self.raft.handle_request(ApiKey(key), request)
        if isinstance(request, (AddRaftVoterRequest, RemoveRaftVoterRequest)):
            return await self.raft.handle_voter_change(request)
        if isinstance(request, DescribeQuorumRequest):
            voters = self.raft.core.quorum.voter_set  # the voters at the log end, as Kafka describes them
            return describe_quorum(self.raft.core, request, version, voters.endpoints(), self.raft.time_ms(),
                                   voters.directory_ids())
        if isinstance(request, DescribeClusterRequest):
            return self._describe_cluster(request, version, scope)
        if isinstance(request, EnvelopeRequest):
            return await self._envelope(request, scope)
        if self.requests is not None:
            return await self.requests.handle(key, version, request)
        raise ValueError(f"api key {key} is not served by a controller")

    async def _envelope(self, envelope: EnvelopeRequest, scope: RequestScope) -> EnvelopeResponse:
        """A request a broker forwards (KIP-590): answer the embedded request as if it came
        directly, its response frame (header and body, no size) in the envelope."""
        try:
            header, inner = codec.decode_request(envelope.request_data)
        except (ProtocolError, UnsupportedVersion):
            return EnvelopeResponse(error_code=int(ErrorCode.INVALID_REQUEST), response_data=None)
        caller: Caller | None = None
        if self.authorization is not None:  # who the request is judged as
            try:
                caller = Caller(deserialize_principal(envelope.request_principal or b""),
                                str(ipaddress.ip_address(envelope.client_host_address)), scope.listener_name)
            except (PrincipalSerdeError, ValueError):
                return EnvelopeResponse(error_code=int(ErrorCode.PRINCIPAL_DESERIALIZATION_FAILURE),
                                        response_data=None)
        key = header.request_api_key
        if (key in (ApiKey.ENVELOPE, ApiKey.API_VERSIONS) or key not in FORWARDABLE
                or not self.is_enabled(key, header.request_api_version)):
            return EnvelopeResponse(error_code=int(ErrorCode.INVALID_REQUEST), response_data=None)
        response = await self.handle(header, inner, scope, caller)
        if _not_controller(response):
            # as Kafka's RequestChannel: the envelope itself says NOT_CONTROLLER, so that the
            # forwarding broker looks for the active controller again (an embedded
            # NOT_CONTROLLER would go back to its client while the broker kept sending here)
            return EnvelopeResponse(error_code=int(ErrorCode.NOT_CONTROLLER), response_data=None)
        frame = codec.encode_response(key, header.request_api_version, header.correlation_id, response)
        return EnvelopeResponse(error_code=0, response_data=frame[4:])

    def _api_versions(self, request: ApiVersionsRequest, version: int) -> ApiVersionsResponse:
        error = ErrorCode.NONE
        if version >= 3 and not (_SOFTWARE_NAME.match(request.client_software_name or "")
                                 and _SOFTWARE_NAME.match(request.client_software_version or "")):
            error = ErrorCode.INVALID_REQUEST
        response = ApiVersionsResponse(error_code=int(error), throttle_time_ms=0, api_keys=[
            ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
            for k, lo, hi in self._ranges])
        R = ApiVersionsResponse
        # kraft.version: what a leader adding this node as a voter asks (AddRaftVoter)
        supported = {"kraft.version": (SUPPORTED_KRAFT_VERSIONS[0], SUPPORTED_KRAFT_VERSIONS[1])}
        controller = self.controller
        if controller is not None:
            supported.update({name: (r.min_supported, r.max_supported) for name, r in controller.supported.items()})
        response.supported_features = [R.SupportedFeatureKey(name=name, min_version=lo, max_version=hi)
                                       for name, (lo, hi) in sorted(supported.items())]
        if controller is not None and version >= 3:
            image = controller.metadata.image
            if image.features.metadata_version is not None:
                # Kafka's epoch is the offset of the image the features come from
                response.finalized_features_epoch = controller.metadata.last_offset
                levels = controller.features.finalized_features()
                levels["kraft.version"] = controller.features.kraft_version()  # the quorum log's
                response.finalized_features = [
                    R.FinalizedFeatureKey(name=name, min_version_level=level, max_version_level=level)
                    for name, level in sorted(levels.items()) if level > 0]
        return response

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
        registered = self.controller.metadata.image.cluster.controllers if self.controller is not None else {}
        brokers = [DescribeClusterResponse.DescribeClusterBroker(broker_id=node, host=e.host, port=e.port)
                   for node in sorted(registered)
                   for e in registered[node].listeners if e.name == scope.listener_name]
        if not registered:
            brokers = [DescribeClusterResponse.DescribeClusterBroker(broker_id=node, host=e.host, port=e.port)
                       for node in sorted(self.endpoints)
                       for e in self.endpoints[node] if e.name == scope.listener_name]
        listed = {b.broker_id for b in brokers}
        return DescribeClusterResponse(
            error_code=0, error_message=None, endpoint_type=CONTROLLER_ENDPOINT_TYPE,
            cluster_id=self.cluster_id, controller_id=leader if leader in listed else -1, brokers=brokers,
            cluster_authorized_operations=(_ALL_CLUSTER_OPERATIONS if request.include_cluster_authorized_operations
                                           else -2147483648))


def _not_controller(response: Message) -> bool:
    """Kafka's ``shouldReturnNotController``: a DescribeQuorum answered NOT_LEADER_OR_FOLLOWER,
    any other response with NOT_CONTROLLER in it."""
    wanted = ErrorCode.NOT_LEADER_OR_FOLLOWER if isinstance(response, DescribeQuorumResponse) else ErrorCode.NOT_CONTROLLER
    return int(wanted) in _error_codes(response)


def _error_codes(struct: Struct) -> set[int]:
    """Every ``error_code`` in a response, its entries' included (Kafka's ``errorCounts`` keys)."""
    found: set[int] = set()
    for name in struct.__slots__:
        value = getattr(struct, name)
        if name == "error_code" and isinstance(value, int):
            found.add(value)
        elif isinstance(value, Struct):
            found |= _error_codes(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Struct):
                    found |= _error_codes(item)
    return found
