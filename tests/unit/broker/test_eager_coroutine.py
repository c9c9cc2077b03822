"""A coroutine stepped by hand and handed to a Task (kafpy.broker.eager_coroutine): it runs on
to its result, another coroutine may await the same future meanwhile, cancellation reaches
it, and no other module touches asyncio's private blocking flag."""
from __future__ import annotations

import asyncio

import pytest

from kafpy.broker.eager_coroutine import hand_over
from tests.support.floors import FLOORS, REPO


async def _waits_on(fut: asyncio.Future[int]) -> int:
    return await fut + 1


def test_a_suspended_coroutine_carries_on_in_a_task_beside_another_waiter() -> None:
    async def main() -> tuple[int, int]:
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        coro = _waits_on(fut)
        pending = coro.send(None)
        assert pending is fut
        task = asyncio.get_running_loop().create_task(hand_over(coro, pending))
        other = asyncio.get_running_loop().create_task(_waits_on(fut))   # awaits the same future first
        await asyncio.sleep(0)
        fut.set_result(41)
        return await task, await other

    assert asyncio.run(main()) == (42, 42)


def test_cancelling_the_task_reaches_the_coroutine() -> None:
    seen: list[str] = []

    async def handler(fut: asyncio.Future[int]) -> None:
        try:
            await fut
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    async def main() -> None:
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        coro = handler(fut)
        task = asyncio.get_running_loop().create_task(hand_over(coro, coro.send(None)))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert seen == ["cancelled"]


def test_only_this_module_touches_the_private_blocking_flag() -> None:
    touching = sorted(str(p.relative_to(REPO)) for floor in FLOORS for p in (REPO / floor).rglob("*.py")
                      if "_asyncio_future_blocking" in p.read_text(encoding="utf-8"))
    assert touching == ["broker/eager_coroutine.py"]
