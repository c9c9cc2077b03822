"""A combined ``process.roles=broker,controller`` node (Kafka's ``KafkaRaftServer`` with its
``SharedServer``): the controller (``ControllerServer``) and the broker (``KRaftBroker``) in
one process, over one raft client and one ``__cluster_metadata`` log.

The controller starts first: it checks the directories, opens the metadata log, starts the
raft client as a voter and serves the controller listeners. The broker then starts on that
same raft client (``SharedRaftBroker``): its metadata listener registers on the controller's
client instead of an observer of its own, and it reaches the active controller through the
controller listener, its own or another voter's, like any broker. The broker's socket server
opens only the listeners that are not controller listeners, and it advertises only those (as
Kafka's ``effectiveAdvertisedBrokerListeners``).

Shutdown is Kafka's order: the broker first (its controlled shutdown, while this node's
controller still votes and may still be the active one), then the controller, then the raft
client and the metadata log (which the controller owns).

Who calls it: ``python -m kafpy.broker`` when ``process.roles`` holds both roles; tests.
"""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

from kafpy.broker.config import KafkaConfig
from kafpy.broker.controller_server import ControllerServer
from kafpy.broker.kraft_broker import KRaftBroker

log = logging.getLogger("kafka.server.KafkaRaftServer")


def controller_listener_names(config: KafkaConfig) -> list[str]:
    """``controller.listener.names``, upper-cased as the listeners' names are."""
    raw = config.values["controller.listener.names"] or ""
    return [n.strip().upper() for n in raw.split(",") if n.strip()]


def split_broker_listeners(config: KafkaConfig) -> None:
    """Leave the broker only its own listeners: the controller listeners are served by the
    ``ControllerServer`` and never advertised to clients (Kafka's data-plane listeners). Called
    once the controller has taken its listeners from the same config."""
    names = set(controller_listener_names(config))
    config.listeners = [li for li in config.listeners if li.name not in names]
    config.advertised_listeners = [li for li in config.advertised_listeners if li.name not in names]


class SharedRaftBroker(KRaftBroker):
    """A KRaft broker that follows the metadata log through the controller's raft client (it
    keeps a reference to it; the controller owns and closes it) rather than an observer."""

    owns_raft = False

    def __init__(self, config: KafkaConfig, controller: ControllerServer,
                 loop: asyncio.AbstractEventLoop | None = None, clock: Callable[[], float] = time.time) -> None:
        super().__init__(config, loop, clock)
        self.controller_server = controller

    def _check_config(self) -> None:
        # the quorum as the controller knows it once started: static voters, or the bootstrap
        # snapshot's (a dynamic quorum has no controller.quorum.voters to parse)
        controller = self.controller_server
        self.voters = controller.voters.addresses(controller.listener_name)
        super()._check_config()

    def _start_raft(self, cluster_id: str, metadata_dir: str) -> None:
        raft = self.controller_server.raft
        if raft is None:
            raise RuntimeError("the controller's raft client is not started")
        self.raft = raft
        log.info("[BrokerServer id=%d] Following the metadata log through this node's controller (voters %s)",
                 self.config.broker_id, sorted(self.voters))


class KafkaRaftServer:
    """Keeps the node's controller and broker; starts and stops them in Kafka's order."""

    def __init__(self, config: KafkaConfig, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.config = config
        self.controller = ControllerServer(config)
        split_broker_listeners(config)
        self.broker = SharedRaftBroker(config, self.controller, loop)

    @property
    def raft_task(self) -> asyncio.Task[None] | None:
        return self.controller.raft_task

    @property
    def fault(self) -> BaseException | None:
        return self.controller.fault

    async def start(self) -> None:
        await self.controller.start()
        await self.broker.start()
        log.info("[KafkaRaftServer nodeId=%d] Kafka Server started", self.config.broker_id)

    async def shutdown(self) -> None:
        try:
            await self.broker.shutdown()
        finally:
            await self.controller.shutdown()
        log.info("[KafkaRaftServer nodeId=%d] shut down completed", self.config.broker_id)
