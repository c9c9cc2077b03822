"""Producer id blocks come through a ZooKeeper session expiry: the broker's client waits for
the new session and reads and writes ``/latest_producer_id_block`` again, so a producer's
InitProducerId gets an id (never one handed out before) instead of UNKNOWN_SERVER_ERROR.
Other requests still raise SessionExpiredError. kazoo is replaced by an in-memory znode."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest
from kazoo.exceptions import BadVersionError, SessionExpiredError
from kazoo.handlers.threading import SequentialThreadingHandler
from kazoo.protocol.states import ZnodeStat

from kafpy.replication import zk_data as zd
from kafpy.replication.zk_client import KafkaZkClient


class OneZnode:
    """``/latest_producer_id_block`` in memory, behind kazoo's async calls. ``expire`` names
    calls that fail with SessionExpiredError once, the session then being gone until
    ``reconnect_after_s`` later; a set in ``applied_then_expired`` reaches the znode first."""

    def __init__(self, block: zd.ProducerIdBlock, *, expire: set[str],
                 applied_then_expired: bool = False, reconnect_after_s: float | None = 0.2) -> None:
        self.handler = SequentialThreadingHandler()   # not started: callbacks run at once
        self.data, self.version = block.encode(), 7
        self.expire, self.applied_then_expired = set(expire), applied_then_expired
        self.reconnect_after_s = reconnect_after_s
        self.connected = True
        self.calls: list[str] = []

    def _result(self, value: Any = None, exc: Exception | None = None) -> Any:
        result = self.handler.async_result()
        if exc is not None:
            result.set_exception(exc)
        else:
            result.set(value)
        return result

    def _expired(self, call: str) -> bool:
        if call not in self.expire:
            return False
        self.expire.discard(call)
        self.connected = False
        if self.reconnect_after_s is not None:
            asyncio.get_running_loop().call_later(self.reconnect_after_s, setattr, self, "connected", True)
        return True

    def get_async(self, path: str, watch: object = None) -> Any:
        assert path == zd.PRODUCER_ID_BLOCK_PATH
        self.calls.append("get")
        if not self.connected or self._expired("get"):
            return self._result(exc=SessionExpiredError())
        stat = ZnodeStat(0, 0, 0, 0, self.version, 0, 0, 0, len(self.data), 0, 0)
        return self._result((self.data, stat))

    def set_async(self, path: str, data: bytes, version: int) -> Any:
        self.calls.append("set")
        if not self.connected:
            return self._result(exc=SessionExpiredError())
        if "set" in self.expire and not self.applied_then_expired:
            self._expired("set")
            return self._result(exc=SessionExpiredError())
        if version != self.version:
            return self._result(exc=BadVersionError())
        self.data, self.version = data, self.version + 1
        if self._expired("set"):
            return self._result(exc=SessionExpiredError())
        return self._result(ZnodeStat(0, 0, 0, 0, self.version, 0, 0, 0, len(data), 0, 0))


def _client(znode: OneZnode, session_timeout_ms: int = 6000) -> KafkaZkClient:
    client = KafkaZkClient("127.0.0.1:1", session_timeout_ms)
    client._client = znode
    client._loop = asyncio.get_running_loop()
    return client


HANDED_OUT = zd.ProducerIdBlock(broker_id=2, first_id=5000)


def _allocate(znode: OneZnode, session_timeout_ms: int = 6000) -> zd.ProducerIdBlock:
    async def main() -> zd.ProducerIdBlock:
        return await _client(znode, session_timeout_ms).allocate_producer_id_block(broker_id=1)
    return asyncio.run(main())


@pytest.mark.parametrize("expire, calls", [({"get"}, ["get", "get", "set"]),
                                           ({"set"}, ["get", "set", "set"])])
def test_a_block_is_claimed_in_the_new_session(expire: set[str], calls: list[str]) -> None:
    znode = OneZnode(HANDED_OUT, expire=expire)
    block = _allocate(znode)
    assert block == zd.ProducerIdBlock(broker_id=1, first_id=6000)
    assert zd.ProducerIdBlock.decode(znode.data) == block
    assert znode.connected and znode.calls == calls   # the failed request, sent again


def test_a_write_that_landed_before_the_expiry_costs_a_block_and_no_id_twice() -> None:
    znode = OneZnode(HANDED_OUT, expire={"set"}, applied_then_expired=True)
    block = _allocate(znode)
    # the first write (6000-6999) reached ZooKeeper; its retry conflicted; the block read
    # after it is the next one: nothing from 6000 on is handed out twice
    assert block == zd.ProducerIdBlock(broker_id=1, first_id=7000)
    assert zd.ProducerIdBlock.decode(znode.data) == block
    assert znode.calls == ["get", "set", "set", "get", "set"]


def test_without_a_new_session_it_still_fails() -> None:
    znode = OneZnode(HANDED_OUT, expire={"get"}, reconnect_after_s=None)
    with pytest.raises(SessionExpiredError):
        _allocate(znode, session_timeout_ms=100)
    assert znode.calls == ["get"] * 3   # the first try and one after each bounded wait


def test_other_requests_raise_on_expiry_as_before() -> None:
    znode = OneZnode(HANDED_OUT, expire={"get"})

    async def main() -> object:
        return await _client(znode).get_data(zd.PRODUCER_ID_BLOCK_PATH)
    with pytest.raises(SessionExpiredError):
        asyncio.run(main())
    assert znode.calls == ["get"]
