"""ZkAdminManager follows ``/config/changes`` across a ZooKeeper session expiry: the expired
session's watch event (EventType.NONE) reads nothing, the new session watches again and applies
the notifications announced while the broker had none. ZooKeeper is a fake here."""
from __future__ import annotations

import asyncio
import time
from typing import Callable, cast

from kazoo.protocol.states import EventType, KazooState, WatchedEvent

from kafpy.broker.config import KafkaConfig
from kafpy.broker.quotas.entity_configs import EntityConfigs
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
from kafpy.replication import zk_data as zd
from kafpy.replication.controller import KafkaController
from kafpy.replication.zk_admin import ZkAdminManager
from kafpy.replication.zk_client import KafkaZkClient, SessionState


class FakeZk:
    """Only what ZkAdminManager reads: znodes' children and data, and session listeners."""

    def __init__(self) -> None:
        self.children: dict[str, list[str]] = {}
        self.data: dict[str, bytes] = {}
        self.configs: dict[tuple[str, str], dict[str, str]] = {}
        self.watches: dict[str, Callable[[WatchedEvent], object]] = {}
        self.reads = 0
        self.listeners: list = []

    def add_session_listener(self, listener) -> None:
        self.listeners.append(listener)

    def remove_session_listener(self, listener) -> None:
        self.listeners.remove(listener)

    async def get_children(self, path: str, watch=None) -> list[str]:
        self.reads += 1
        if watch is not None:
            self.watches[path] = watch
        return list(self.children.get(path, []))

    async def get_data(self, path: str, watch=None):
        return self.data.get(path), None

    async def get_entity_config(self, entity_type: str, name: str) -> dict[str, str]:
        return dict(self.configs.get((entity_type, name), {}))


def test_config_changes_are_followed_again_in_a_new_session():
    async def main() -> None:
        zk = FakeZk()
        # the fake stands in for the ZooKeeper client; no controller is asked on this path
        admin = ZkAdminManager(KafkaConfig({"broker.id": "1"}), cast(KafkaZkClient, zk),
                               MetadataCache("c", BrokerInfo(1, "h", 1)),
                               cast(KafkaController, None), time.time, asyncio.get_running_loop(), EntityConfigs())
        await admin.start()
        watch = zk.watches.pop(zd.CONFIG_CHANGES_PATH)

        reads = zk.reads
        watch(WatchedEvent(EventType.NONE, KazooState.LOST, None))  # the session ended
        await asyncio.sleep(0.01)
        assert zk.reads == reads and zd.CONFIG_CHANGES_PATH not in zk.watches

        # Announced while this broker had no session, so no watch fired for it.
        zk.children[zd.CONFIG_CHANGES_PATH] = ["config_change_0000000000"]
        zk.data[f"{zd.CONFIG_CHANGES_PATH}/config_change_0000000000"] = zd.encode_config_change("topics/t")
        zk.configs[(zd.ConfigType.TOPIC, "t")] = {"retention.ms": "5000"}
        for listener in zk.listeners:
            listener(SessionState.NEW_SESSION)
        await asyncio.sleep(0.01)
        assert admin.topic_config("t") == {"retention.ms": "5000"}
        assert zk.watches.get(zd.CONFIG_CHANGES_PATH) is not None, "not watching /config/changes again"

        await admin.shutdown()
        assert zk.listeners == []

    asyncio.run(main())


class _Controller:
    def __init__(self, active: bool) -> None:
        self.is_active = active


class ExpiringZk(FakeZk):
    """Every read fails as kazoo fails a request in flight when the session expires."""

    async def get_all_topics(self) -> set[str]:
        await self.get_children(zd.TOPICS_PATH)
        from kazoo.exceptions import SessionExpiredError
        raise SessionExpiredError()


def _admin_with(zk: FakeZk, controller: _Controller) -> ZkAdminManager:
    # the fakes stand in for the ZooKeeper client and the controller (its is_active only)
    return ZkAdminManager(KafkaConfig({"broker.id": "1"}), cast(KafkaZkClient, zk),
                          MetadataCache("c", BrokerInfo(1, "h", 1)),
                          cast(KafkaController, controller), time.time, asyncio.get_running_loop(), EntityConfigs())


def test_session_expiry_during_create_topic_answers_an_error_code_not_an_exception():
    """A controller whose session expires mid-request answers NOT_CONTROLLER once it has
    resigned, UNKNOWN_SERVER_ERROR while it still thinks it leads: a Kafka error code either way."""
    from kafpy.replication.metadata_cache import TopicError
    from kafpy.protocol.errors import ErrorCode

    async def main() -> None:
        for active_after, code in ((False, ErrorCode.NOT_CONTROLLER), (True, ErrorCode.UNKNOWN_SERVER_ERROR)):
            controller = _Controller(True)
            admin = _admin_with(ExpiringZk(), controller)
            real = admin.zk.get_children

            async def resigning(path: str, watch=None, real=real, controller=controller,
                                active_after=active_after):
                controller.is_active = active_after
                return await real(path, watch)
            admin.zk.get_children = resigning  # type: ignore[method-assign]  # wraps the fake's read
            try:
                await admin.create_topic("t", 1, 1, {})
            except TopicError as e:
                assert e.error_code == code, (active_after, e.error_code)
            else:
                raise AssertionError("create_topic succeeded although ZooKeeper failed")

    asyncio.run(main())
