"""A controller registers itself with the active controller (Kafka's
``ControllerRegistrationManager``, KIP-919): once the finalized metadata.version supports
controller registrations (3.7-IV0), a controller whose RegisterControllerRecord in the image is
missing or carries another incarnation sends ControllerRegistration (its incarnation id, its
controller listeners, the feature ranges it supports) to the active controller, itself
included, and again after a failure. DescribeCluster on the controller listener then lists the
registered controllers, and feature changes are checked against their ranges.

Who calls it: ``kafpy.broker.controller_server`` starts and closes it. It polls the committed
image every ``POLL_MS`` (cheap: a dict look-up), one request in flight at a time.
"""
from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Mapping, Sequence

from kafpy.metadata.controller.cluster_control_manager import CONTROLLER_REGISTRATION_LEVEL
from kafpy.metadata.controller.quorum_controller import QuorumController
from kafpy.metadata.image.cluster import Endpoint
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import ControllerRegistrationRequest, ControllerRegistrationResponse
from kafpy.raft.kafka_raft_client import KafkaRaftClient
from kafpy.replication.broker_connection import NetworkError
from kafpy.replication.network_client import NetworkClient, NetworkClientConfig

log = logging.getLogger("kafka.server.ControllerRegistrationManager")

POLL_MS = 200
RETRY_BACKOFF_MS = 1000


class ControllerRegistrationManager:
    """Keeps this controller's incarnation id, listeners and supported features, the quorum
    controller whose image it checks, and one client per voter (made on first use)."""

    def __init__(self, controller: QuorumController, raft: KafkaRaftClient, listeners: Sequence[Endpoint],
                 voter_addresses: Mapping[int, tuple[str, int]], listener_name: str,
                 request_timeout_ms: int) -> None:
        self.controller = controller
        self.raft = raft
        self.node_id = controller.settings.node_id
        self.incarnation_id = uuid.uuid4().bytes
        self.listeners = list(listeners)
        self.voter_addresses = dict(voter_addresses)
        self.listener_name = listener_name
        self.config = NetworkClientConfig(request_timeout_ms=request_timeout_ms)
        self._clients: dict[int, NetworkClient] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="controller-registration")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        for client in self._clients.values():
            await client.close()
        self._clients.clear()

    def registered(self) -> bool:
        """The image holds this incarnation's registration."""
        reg = self.controller.metadata.image.cluster.controllers.get(self.node_id)
        return reg is not None and reg.incarnation_id == self.incarnation_id

    def request(self) -> ControllerRegistrationRequest:
        R = ControllerRegistrationRequest
        return R(controller_id=self.node_id, incarnation_id=self.incarnation_id,
                 zk_migration_ready=self.controller.settings.zk_migration_enabled,
                 listeners=[R.Listener(name=e.name, host=e.host, port=e.port, security_protocol=e.security_protocol)
                            for e in self.listeners],
                 features=[R.Feature(name=name, min_supported_version=r.min_supported,
                                     max_supported_version=r.max_supported)
                           for name, r in sorted(self.controller.supported.items())])

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(POLL_MS / 1000)
            controller = self.controller
            leader = self.raft.leader_and_epoch.leader_id
            if (leader is None or self.registered()
                    or controller.features.metadata_version() < CONTROLLER_REGISTRATION_LEVEL
                    or controller.metadata.image.features.metadata_version is None):
                continue
            try:
                registered = await self._register(leader)
            except Exception:  # noqa: BLE001 - a bug here must not end the registration for good
                log.error("ControllerRegistration to controller %d failed", leader, exc_info=True)
                registered = False
            if not registered:
                await asyncio.sleep(RETRY_BACKOFF_MS / 1000)

    def _address(self, node: int) -> tuple[str, int] | None:
        """Where ``node`` listens: the voter set at the log end first (a controller that
        joined as an observer, or voters changed since start), else the voters at start."""
        current = self.raft.core.quorum.voter_set.addresses(self.listener_name)
        return current.get(node) or self.voter_addresses.get(node)

    async def _register(self, leader: int) -> bool:
        if self._address(leader) is None:
            log.info("ControllerRegistration: no address for controller %d on %s yet", leader, self.listener_name)
            return False
        try:
            response = await self._client(leader).send(ApiKey.CONTROLLER_REGISTRATION, self.request())
        except (OSError, asyncio.TimeoutError, NetworkError) as e:
            log.info("ControllerRegistration to controller %d failed: %s", leader, e)
            return False
        if not isinstance(response, ControllerRegistrationResponse) or response.error_code != 0:
            error = getattr(response, "error_code", -1)
            log.info("ControllerRegistration to controller %d failed: %s %s", leader,
                     ErrorCode.of_known(error).name if error >= 0 else "no answer",
                     getattr(response, "error_message", ""))
            return False
        log.info("Our registration has been persisted to the metadata log (incarnation %s).",
                 uuid.UUID(bytes=self.incarnation_id))
        return True

    def _client(self, destination: int) -> NetworkClient:
        client = self._clients.get(destination)
        if client is None:
            address = self._address(destination)
            assert address is not None, "checked by _register"
            host, port = address
            client = NetworkClient(host, port, client_id=f"controller-registration-{self.node_id}",
                                   node_id=destination, listener_name=self.listener_name, config=self.config)
            self._clients[destination] = client
        return client
