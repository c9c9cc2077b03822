"""A KRaft broker's requests to the active controller (Kafka's ``NodeToControllerChannelManager``
with its ``RaftControllerNodeProvider``): the active controller is the raft leader the broker's
observer knows, reached at the address ``controller.quorum.voters`` gives it on the first of
``controller.listener.names``.

Who calls it: the ``BrokerLifecycleManager`` (BrokerRegistration, BrokerHeartbeat), the
AlterPartitionManager (through ``active_controller``), the admin requests the broker forwards
and ``KRaftAdminController``. Each caller keeps its own channel (Kafka has one channel per
purpose too), so a slow CreateTopics never delays a heartbeat on the same connection.
Nothing on disk; event loop only.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Mapping

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.message_base import Message
from kafpy.replication.metadata_cache import BrokerInfo
from kafpy.replication.network_client import ConnectionSecurity, NetworkClient, NetworkClientConfig

log = logging.getLogger("kafka.server.NodeToControllerChannelManager")


class ControllerUnavailable(Exception):
    """No active controller is known, or the request to it got no answer."""


class NoActiveController(ControllerUnavailable):
    """No raft leader is known yet: nothing was sent, the caller may ask again soon (Kafka's
    request thread looks for the controller again every 100 ms)."""


class ControllerChannel:
    """Keeps the voters' addresses, who the leader is (``leader_id()``, read per request) and
    one connection to it, replaced when the leader changes."""

    def __init__(self, local_id: int, voters: Mapping[int, tuple[str, int]], leader_id: Callable[[], int | None],
                 *, purpose: str, request_timeout_ms: int, listener_name: str,
                 security: ConnectionSecurity | None = None,
                 client_factory: Callable[[BrokerInfo], NetworkClient] | None = None) -> None:
        self.local_id = local_id
        self.voters = dict(voters)
        self.leader_id = leader_id
        self.purpose = purpose
        self.listener_name = listener_name
        self.config = NetworkClientConfig(request_timeout_ms=request_timeout_ms)
        self.security = security
        self._factory = client_factory or self._new_client
        self._client: NetworkClient | None = None
        self._target: BrokerInfo | None = None

    def active_controller(self) -> BrokerInfo | None:
        """The active controller as a node to connect to (None while no leader is known)."""
        leader = self.leader_id()
        if leader is None or leader < 0 or leader not in self.voters:
            return None
        host, port = self.voters[leader]
        return BrokerInfo(leader, host, port)

    def _new_client(self, node: BrokerInfo) -> NetworkClient:
        return NetworkClient(node.host, node.port, client_id=f"broker-{self.local_id}-{self.purpose}",
                             node_id=node.node_id, listener_name=self.listener_name, config=self.config,
                             security=self.security)

    async def client(self) -> NetworkClient:
        """The connection to the active controller (``ControllerUnavailable`` when none is known)."""
        node = self.active_controller()
        if node is None:
            raise NoActiveController("no active controller is known yet")
        if self._client is None or self._target != node:
            await self.close()
            self._client = self._factory(node)
            self._target = node
        return self._client

    async def send(self, api_key: ApiKey, body: Message, version: int | None = None,
                   timeout_ms: int | None = None) -> Any:
        """Send ``body`` (at ``version``, else the highest both sides know) to the active
        controller; its decoded answer. A failed connection or a timeout raises
        ``ControllerUnavailable`` after the connection is dropped (the next try reconnects)."""
        client = await self.client()
        try:
            await client.ready()
            if version is None:
                version = client.api_version(api_key)
            return await client.send(api_key, body, version=version, timeout_ms=timeout_ms)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - a lost connection, a timeout: the caller retries
            target = self._target
            where = f"{target.node_id} ({target.host}:{target.port})" if target is not None else "?"
            log.info("%s to the controller %s failed: %s", api_key.name, where, e)
            await self.close()
            raise ControllerUnavailable(str(e)) from e

    async def close(self) -> None:
        client, self._client, self._target = self._client, None, None
        if client is not None:
            try:
                await client.close()
            except Exception:  # noqa: BLE001 - closing a broken connection
                log.debug("Closing the controller connection failed", exc_info=True)
