"""Carrying on, in a Task, a coroutine that was started by hand.

Who may call it: the socket server, which runs each request's coroutine at once in the read
callback (most handlers never wait) and gives only those that do wait to a Task. Nothing on
disk. Why not just ``create_task(coro)``: a coroutine already suspended on a future cannot be
handed to a Task as it is; the Task has to be given what it waits on.

Why not ``asyncio.Task(coro, eager_start=True)`` (Python 3.12+, the supported way to run a
coroutine's first step at once): it builds a Task for every request, also for the many that
never wait, and the project supports 3.10 and 3.11, which lack it. ``python -m
bench.eager_step`` on the shared 2-core machine (load 12), CPython 3.12.1 and 3.13.0: 0.9-1.5
us per request driven by hand against 2.6-3.7 us through an eager Task, a few per cent of a
small Produce or Fetch. So the hand-off stays, and with it asyncio's Future-like protocol: a
future yielded to a Task must have ``_asyncio_future_blocking`` set (what ``await future``
does; ``asyncio.isfuture`` documents the attribute). This module is the only one that touches it.
"""
from __future__ import annotations

import types
from collections.abc import Coroutine, Generator
from typing import TypeVar

__all__ = ["hand_over"]

T = TypeVar("T")
#: a coroutine stepped by hand: what it yields (a future or None) and is sent are asyncio's
Step = Coroutine[object, object, T]


def hand_over(coro: Step[T], pending: object) -> Step[T]:
    """What to wrap in a Task to run ``coro`` on: ``coro`` was stepped by hand and is now
    suspended on ``pending`` (a future, or None for a bare ``yield``). The future's blocking
    flag is cleared at once, as a Task does on taking a future, so another coroutine awaiting
    it before our Task runs does not fail; the Task sets it again when it takes over."""
    if getattr(pending, "_asyncio_future_blocking", False):
        # the flag ``await future`` sets (module docstring); setattr as ``pending`` is any
        # future-like object, inline as every request that waits passes here
        setattr(pending, "_asyncio_future_blocking", False)
    return _resume(coro, pending)


@types.coroutine
def _continue(coro: Step[T], pending: object) -> Generator[object, object, T]:
    """Drives ``coro`` on from its first suspension: re-yields what it was waiting on to the
    Task, passes the Task's wake-ups (and cancellation) back in."""
    if getattr(pending, "_asyncio_future_blocking", None) is not None:
        # hand_over cleared the flag; the Task takes the yield as a future only when set.
        setattr(pending, "_asyncio_future_blocking", True)
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


async def _resume(coro: Step[T], pending: object) -> T:
    """``coro`` (suspended on ``pending``) to its end; wrapped in a Task."""
    return await _continue(coro, pending)
