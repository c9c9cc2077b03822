"""Waiting for an ``asyncio.Event`` with a timeout, in a loop that another task stops by
cancelling it.

Why not ``asyncio.wait_for(event.wait(), timeout)``: before Python 3.12, ``wait_for``
swallows a cancellation that arrives after the event was set but before the waiting task
ran again (it returns the event's result instead of raising). A stop that sets the event and
cancels the task in the same turn of the loop (``begin_controlled_shutdown`` then
``close()``) was then lost: the loop went on, and whoever awaited the cancelled task waited
forever. ``asyncio.wait`` raises the cancellation in every case.

Who calls it: the raft IO loop (``kafka_raft_client``), the broker's lifecycle heartbeats
(``broker/kraft_lifecycle``) and the migration runner (``broker/zk_migration_runner``).
"""
from __future__ import annotations

import asyncio


async def wait_event(event: asyncio.Event, timeout: float) -> bool:
    """Until ``event`` is set or ``timeout`` seconds have passed; whether it is set. A
    cancellation of the caller always raises."""
    if event.is_set():
        return True
    waiter = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait((waiter,), timeout=timeout)
    finally:
        waiter.cancel()
    return event.is_set()
