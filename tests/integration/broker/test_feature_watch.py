"""The `/feature` watch of a ZooKeeper-mode broker's finalized features (ZkFeatures)
outlives a ZooKeeper session expiry: a level changed in ZooKeeper after the broker's
session expired and was replaced is still seen (a ZooKeeper watch dies with its session,
so the store must arm it again on the new one)."""
from __future__ import annotations

import asyncio
import time

from kazoo.client import KazooClient

from kafpy.broker.features import GROUP_VERSION, ZkFeatures, _znode
from kafpy.replication.zk_client import KafkaZkClient, SessionState


async def _until(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def test_feature_watch_is_armed_again_after_the_session_expires(zookeeper):
    observer = KazooClient(hosts=zookeeper.connect_string)
    observer.start(timeout=15)

    async def main() -> None:
        zk = KafkaZkClient(zookeeper.connect_string, session_timeout_ms=6000)
        states: list[SessionState] = []
        zk.add_session_listener(states.append)
        await zk.start()
        features = ZkFeatures(zk)
        try:
            await features.start()
            assert features.current().level(GROUP_VERSION) == 1
            # the watch works on the first session
            await asyncio.to_thread(observer.set, ZkFeatures.PATH, _znode({GROUP_VERSION: 0}))
            await _until(lambda: features.current().level(GROUP_VERSION) == 0, 30,
                         "the level change on the first session")
            # expire the broker's session: a second client with its id and password
            # connects and closes it
            session_id, password = zk.kazoo.client_id
            twin = KazooClient(hosts=zookeeper.connect_string, client_id=(session_id, password))
            await asyncio.to_thread(twin.start, 15)
            await asyncio.to_thread(twin.stop)
            twin.close()
            await _until(lambda: SessionState.NEW_SESSION in states, 60, "a new session")
            epoch = features.current().epoch
            await asyncio.to_thread(observer.set, ZkFeatures.PATH, _znode({GROUP_VERSION: 1}))
            await _until(lambda: features.current().level(GROUP_VERSION) == 1, 30,
                         "the level change after the session expired")
            assert features.current().epoch > epoch
        finally:
            await zk.close()

    try:
        asyncio.run(main())
    finally:
        observer.stop()
        observer.close()
