"""The combined node's wiring (broker/kraft_server.py): the controller keeps the controller
listeners, the broker opens and advertises only its own, and the broker's raft client is the
controller's (no observer of its own), which the broker leaves to the controller to close."""
from __future__ import annotations

import asyncio

from kafpy.broker.config import KafkaConfig
from kafpy.broker.kraft_server import KafkaRaftServer, SharedRaftBroker

COMBINED = {
    "process.roles": "broker,controller", "node.id": "1",
    "controller.quorum.voters": "1@127.0.0.1:19093,2@127.0.0.1:19094,3@127.0.0.1:19095",
    "listeners": "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093",
    "controller.listener.names": "CONTROLLER",
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    "log.dirs": "/nonexistent/kafpy-unit",
}


class _Raft:
    """Only what the broker reads of the raft client before it registers its listener."""
    closed = False

    async def close(self) -> None:
        self.closed = True


def test_listeners_split_between_the_controller_and_the_broker() -> None:
    loop = asyncio.new_event_loop()
    try:
        server = KafkaRaftServer(KafkaConfig(dict(COMBINED)), loop)
        assert [li.name for li in server.controller.controller_listeners] == ["CONTROLLER"]
        assert [li.name for li in server.broker.config.listeners] == ["PLAINTEXT"]
        assert [li.name for li in server.broker.config.advertised_listeners] == ["PLAINTEXT"]
        assert isinstance(server.broker, SharedRaftBroker) and not server.broker.owns_raft
    finally:
        loop.close()


def test_the_broker_follows_through_the_controllers_raft_client() -> None:
    loop = asyncio.new_event_loop()
    try:
        server = KafkaRaftServer(KafkaConfig(dict(COMBINED)), loop)
        raft = _Raft()
        server.controller.raft = raft  # type: ignore[assignment]  # a stand-in: only its identity is read
        broker = server.broker
        broker._check_config()
        assert broker.voters == {1: ("127.0.0.1", 19093), 2: ("127.0.0.1", 19094), 3: ("127.0.0.1", 19095)}
        broker._start_raft("cluster", "/nonexistent/kafpy-unit")
        assert broker.raft is raft and broker.metadata_log is None and broker.raft_task is None
    finally:
        loop.close()
