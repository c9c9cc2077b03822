"""ZkAclStore.close: the notification reads in flight are cancelled and awaited, and a watch
firing afterwards starts nothing (a ZooKeeper watch cannot be taken back)."""
import asyncio

from kafpy.broker.security.acl_store import ZkAclStore
from kafpy.replication import zk_data as zd


class StallingZk:
    """A ZooKeeper client stand-in: empty trees; once ``stall`` is set, reading the change
    paths hangs until cancelled."""

    def __init__(self) -> None:
        self.stall = False
        self.watchers: dict[str, object] = {}
        self.stalled = asyncio.Event()

    async def ensure_path(self, path: str) -> None:
        pass

    async def get_children(self, path: str, watcher=None) -> list[str]:
        if watcher is not None:
            self.watchers[path] = watcher
        if self.stall:
            self.stalled.set()
            await asyncio.Event().wait()
        return []


def test_close_cancels_notification_reads_and_ignores_later_watches():
    async def run():
        zk = StallingZk()
        store = ZkAclStore(zk, clock=lambda: 0.0)
        await store.start(lambda pattern, entries: None)
        zk.stall = True
        zk.watchers[zd.ACL_CHANGES_PATH](None)  # a change notification arrives
        await asyncio.wait_for(zk.stalled.wait(), 5)
        (task,) = store._processing.values()
        await store.close()
        assert task.cancelled()
        zk.watchers[zd.EXTENDED_ACL_CHANGES_PATH](None)
        assert store._processing == {}
    asyncio.run(run())
