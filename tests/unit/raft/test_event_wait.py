"""wait_event: a cancellation that arrives in the same turn as the event is set still stops
the waiting task (``asyncio.wait_for`` loses it before Python 3.12)."""
from __future__ import annotations

import asyncio

import pytest

from kafpy.raft.event_wait import wait_event


def test_a_cancel_in_the_same_turn_as_the_wakeup_stops_the_loop() -> None:
    async def run() -> int:
        event = asyncio.Event()
        rounds = 0

        async def loop() -> None:
            nonlocal rounds
            while True:
                await wait_event(event, 10.0)
                event.clear()
                rounds += 1
        task = asyncio.ensure_future(loop())
        await asyncio.sleep(0)           # the loop waits on the event
        event.set()                      # wakes it ...
        task.cancel()                    # ... and stops it, before it ran again
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 2.0)
        return rounds
    assert asyncio.run(run()) == 0


def test_it_answers_whether_the_event_was_set() -> None:
    async def run() -> tuple[bool, bool]:
        event = asyncio.Event()
        timed_out = await wait_event(event, 0.01)
        asyncio.get_running_loop().call_later(0.01, event.set)
        return timed_out, await wait_event(event, 5.0)
    assert asyncio.run(run()) == (False, True)
