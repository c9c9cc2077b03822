"""Carrying on, in a Task, a coroutine that was started by hand.

Who may call it: the socket server, which runs each request's coroutine at once in the read
callback (most handlers never wait) and gives only those that do wait to a Task. Nothing on
disk. Why not just ``create_task(coro)``: a coroutine already suspended on a future cannot be
handed to a Task as it is; the Task has to be given what it waits on.
"""
from __future__ import annotations

import types
from typing import Any

__all__ = ["resume"]


@types.coroutine
def _continue(coro: Any, pending: Any) -> Any:
    """Drives ``coro`` on from its first suspension: re-yields what it was waiting on to the
    Task, passes the Task's wake-ups (and cancellation) back in."""
    if getattr(pending, "_asyncio_future_blocking", None) is not None:
        # the caller cleared the flag; the Task takes the yield as a future only when set.
        pending._asyncio_future_blocking = True
    try:
        while True:
            try:
                value = yield pending
            except BaseException as e:  # noqa: BLE001 - forwarded into the coroutine, not handled here
                pending = coro.throw(e)
            else:
                pending = coro.send(value)
    except StopIteration as e:
        return e.value


async def resume(coro: Any, pending: Any) -> Any:
    """``coro`` (suspended on ``pending``) to its end; wrap in a Task."""
    return await _continue(coro, pending)
