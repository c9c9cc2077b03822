"""The raft driver's ``NetworkChannel`` over the inter-broker ``NetworkClient`` (Kafka's
``KafkaNetworkChannel``): one client per voter, addressed by node id from the voters'
connections (``controller.quorum.voters``), connected on first use. Requests go at the
highest version both sides support (negotiated by ApiVersions on each connection).

Lives on the replication floor because it uses ``NetworkClient``; ``kafpy.raft`` sees only the
``NetworkChannel`` protocol. Created by the controller side of a node
(``kafpy.broker.controller_server``).
"""
from __future__ import annotations

from typing import Mapping

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.messages import (
    BeginQuorumEpochResponse, EndQuorumEpochResponse, FetchResponse, FetchSnapshotResponse, VoteResponse,
)
from kafpy.raft import raft_messages as msg

from kafpy.replication.broker_connection import NetworkError
from kafpy.replication.network_client import ConnectionSecurity, NetworkClient, NetworkClientConfig

_RESPONSE_TYPES: dict[ApiKey, type] = {
    ApiKey.VOTE: VoteResponse, ApiKey.BEGIN_QUORUM_EPOCH: BeginQuorumEpochResponse,
    ApiKey.END_QUORUM_EPOCH: EndQuorumEpochResponse, ApiKey.FETCH: FetchResponse,
    ApiKey.FETCH_SNAPSHOT: FetchSnapshotResponse,
}


class KafkaNetworkChannel:
    """Keeps the voters' addresses and a lazily made ``NetworkClient`` per voter."""

    def __init__(self, local_id: int, voters: Mapping[int, tuple[str, int]], *, listener_name: str,
                 request_timeout_ms: int, security: ConnectionSecurity | None = None) -> None:
        self.local_id = local_id
        self.voters = dict(voters)
        self.listener_name = listener_name
        self.config = NetworkClientConfig(request_timeout_ms=request_timeout_ms)
        self.security = security
        self._clients: dict[int, NetworkClient] = {}

    def _client(self, destination: int) -> NetworkClient:
        client = self._clients.get(destination)
        if client is None:
            address = self.voters.get(destination)
            if address is None:
                raise NetworkError(f"no address for node {destination}")
            client = NetworkClient(address[0], address[1], client_id=f"raft-client-{self.local_id}",
                                   node_id=destination, listener_name=self.listener_name,
                                   config=self.config, security=self.security)
            self._clients[destination] = client
        return client

    async def send(self, destination: int, api_key: ApiKey,
                   data: msg.RaftRequestData) -> msg.RaftResponseData:
        response = await self._client(destination).send(api_key, data)
        if not isinstance(response, (VoteResponse, BeginQuorumEpochResponse, EndQuorumEpochResponse,
                                     FetchResponse, FetchSnapshotResponse)) \
                or not isinstance(response, _RESPONSE_TYPES[api_key]):
            raise NetworkError(f"unexpected answer {type(response).__name__} to {api_key.name}")
        return response

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients.clear()
