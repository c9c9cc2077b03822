"""One NetworkClient per other broker, made on first use and again once closed: what the
transaction marker sender and the partition leaders' transaction verifier keep to reach
other brokers (Kafka's inter-broker send threads keep one connection per node the same way).

Who calls it: TxnMarkerSender and broker.txn_verification.TxnVerifier, event loop thread
only. Nothing on disk.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
    from kafpy.replication.network_client import NetworkClient


class BrokerClients:
    """`client_factory(broker_info)` makes a NetworkClient; `metadata_cache.broker(node)`
    says where an alive broker listens."""

    def __init__(self, metadata_cache: MetadataCache, client_factory: Callable[[BrokerInfo], NetworkClient]) -> None:
        self._metadata = metadata_cache
        self._factory = client_factory
        self._clients: dict[int, NetworkClient] = {}

    def get(self, node: int) -> NetworkClient:
        """The client of `node`; ConnectionError when the broker is not alive."""
        client = self._clients.get(node)
        if client is None or client.closed:
            broker = self._metadata.broker(node)
            if broker is None:
                raise ConnectionError(f"broker {node} is not alive")
            client = self._clients[node] = self._factory(broker)
        return client

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients.clear()
