"""How the raft driver reaches the other nodes (Kafka's ``NetworkChannel``): one request to one
node id, answered by its response or by a failure. Defined here, on the raft floor, and
implemented above it (``kafpy.replication.kafka_network_channel`` over ``NetworkClient``), so
raft never imports the network layers. ``failure_response`` is what the driver hands the core
when a send failed: Kafka's channel does the same (``BROKER_NOT_AVAILABLE`` for a node it
cannot reach), so the core backs off that node instead of waiting out the request timeout.
"""
from __future__ import annotations

from typing import Protocol

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.raft import raft_messages as msg


class NetworkChannel(Protocol):
    """Sends the core's requests; ``send`` raises (any ``Exception``) when no answer came."""

    async def send(self, destination: int, api_key: ApiKey,
                   data: msg.RaftRequestData) -> msg.RaftResponseData: ...

    async def close(self) -> None: ...


def failure_response(api_key: ApiKey, error: ErrorCode = ErrorCode.BROKER_NOT_AVAILABLE
                     ) -> msg.RaftResponseData:
    """The top-level error response of ``api_key`` standing for a failed send."""
    if api_key == ApiKey.VOTE:
        return msg.vote_response(error)
    if api_key == ApiKey.BEGIN_QUORUM_EPOCH:
        return msg.begin_quorum_epoch_response(error)
    if api_key == ApiKey.END_QUORUM_EPOCH:
        return msg.end_quorum_epoch_response(error)
    if api_key == ApiKey.FETCH:
        return msg.fetch_response(error)
    if api_key == ApiKey.FETCH_SNAPSHOT:
        return msg.fetch_snapshot_response(error)
    raise ValueError(f"not a raft api key: {api_key}")
