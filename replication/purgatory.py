"""Delayed operations (Kafka's DelayedOperationPurgatory, DelayedProduce, DelayedFetch).

A request that cannot be answered yet parks an operation watched under keys (partitions).
Whoever changes a key (an append, a high-watermark move, a leadership change) calls
``check_and_complete(key)``; the operation's ``try_complete`` decides whether it is done.
Expiry goes through an injected ``Timer`` (the event loop in the broker; a hand-driven fake
in unit tests), so nothing here imports asyncio.

Who may call it: the ReplicaManager, on the event loop. Nothing on disk.
"""
from __future__ import annotations

import logging
from typing import Callable, Hashable, Iterable, Protocol, Sequence

from kafpy.protocol.errors import ErrorCode

log = logging.getLogger("kafka.server.DelayedOperationPurgatory")


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class Timer(Protocol):
    """What expiry needs: ``asyncio.AbstractEventLoop`` has exactly this."""

    def call_later(self, delay: float, callback: Callable[[], object]) -> TimerHandle: ...


class DelayedOperation:
    """Base: subclasses implement try_complete (calling force_complete when done),
    on_complete and on_expiration."""

    __slots__ = ("completed", "keys", "_timer_handle")

    def __init__(self) -> None:
        self.completed = False
        self.keys: tuple[Hashable, ...] = ()
        self._timer_handle: TimerHandle | None = None

    def try_complete(self) -> bool:
        raise NotImplementedError

    def on_complete(self) -> None:
        raise NotImplementedError

    def on_expiration(self) -> None:
        """Called before on_complete when the timeout fired first."""

    def force_complete(self) -> bool:
        """Complete now (once); True if this call completed it."""
        if self.completed:
            return False
        self.completed = True
        if self._timer_handle is not None:
            self._timer_handle.cancel()
            self._timer_handle = None
        self.on_complete()
        return True


class DelayedOperationPurgatory:
    """Operations watched by key, expired by the timer."""

    def __init__(self, name: str, timer: Timer) -> None:
        self.name = name
        self._timer = timer
        self._watchers: dict[Hashable, list[DelayedOperation]] = {}

    def try_complete_else_watch(self, op: DelayedOperation, keys: Iterable[Hashable], timeout_ms: int) -> bool:
        """Complete ``op`` now if it can, else watch it under ``keys`` until a check completes
        it or ``timeout_ms`` passes. True if it completed here."""
        if op.try_complete():
            return True
        op.keys = tuple(keys)
        for k in op.keys:
            self._watchers.setdefault(k, []).append(op)
        op._timer_handle = self._timer.call_later(max(timeout_ms, 0) / 1000, lambda: self._expire(op))
        return False

    def check_and_complete(self, key: Hashable) -> int:
        """Something changed under ``key``: try its operations; returns how many completed."""
        ops = self._watchers.get(key)
        if not ops:
            return 0
        done = []
        for op in list(ops):
            if not op.completed and op.try_complete():
                done.append(op)
        self._unwatch_completed(key)
        for op in done:
            for k in op.keys:
                if k is not key:
                    self._unwatch_completed(k)
        return len(done)

    def watched(self, key: Hashable) -> int:
        return len(self._watchers.get(key, ()))

    def size(self) -> int:
        """Kafka's PurgatorySize: watch entries over all keys (an operation once per key)."""
        return sum(len(ops) for ops in list(self._watchers.values()))

    def delayed(self) -> int:
        """Kafka's NumDelayedOperations: operations waiting (each once)."""
        return len({id(o) for ops in list(self._watchers.values()) for o in ops if not o.completed})

    def _expire(self, op: DelayedOperation) -> None:
        op._timer_handle = None
        if not op.completed:
            op.on_expiration()
            op.force_complete()
        for k in op.keys:
            self._unwatch_completed(k)

    def _unwatch_completed(self, key: Hashable) -> None:
        ops = self._watchers.get(key)
        if ops is None:
            return
        live = [o for o in ops if not o.completed]
        if live:
            self._watchers[key] = live
        else:
            del self._watchers[key]

    def shutdown(self) -> None:
        """Expire everything now (the broker is stopping)."""
        for op in {id(o): o for ops in self._watchers.values() for o in ops}.values():
            if not op.completed:
                op.on_expiration()
                op.force_complete()
        self._watchers.clear()


class CommitCheck(Protocol):
    """The partition side of a DelayedProduce (replication.partition.Partition)."""

    def check_enough_replicas_reach_offset(self, required_offset: int) -> ErrorCode | None: ...


class DelayedProduce(DelayedOperation):
    """acks=-1: done when every partition's high watermark reaches its required offset, or
    leadership is lost, or the ISR is too small at that point; unfinished partitions answer
    REQUEST_TIMED_OUT on expiry. ``on_done`` gets one ErrorCode per entry, in order."""

    __slots__ = ("entries", "results", "_on_done")

    def __init__(self, entries: Sequence[tuple[CommitCheck, int]],
                 on_done: Callable[[list[ErrorCode]], None]) -> None:
        super().__init__()
        self.entries = entries
        self.results: list[ErrorCode | None] = [None] * len(entries)
        self._on_done = on_done

    def try_complete(self) -> bool:
        pending = False
        for i, (part, required) in enumerate(self.entries):
            if self.results[i] is None:
                err = part.check_enough_replicas_reach_offset(required)
                if err is None:
                    pending = True
                else:
                    self.results[i] = err
        return False if pending else self.force_complete()

    def on_expiration(self) -> None:
        self.results = [ErrorCode.REQUEST_TIMED_OUT if r is None else r for r in self.results]

    def on_complete(self) -> None:
        self._on_done([ErrorCode.REQUEST_TIMED_OUT if r is None else r for r in self.results])


class DelayedFetch(DelayedOperation):
    """A fetch waiting for data: any append or high-watermark move on a watched partition
    completes it, and the Fetch handler reads again (it knows min_bytes and the budget);
    expiry completes it too. ``on_done`` is called once either way."""

    __slots__ = ("_on_done", "_armed")

    def __init__(self, on_done: Callable[[], None]) -> None:
        super().__init__()
        self._on_done = on_done
        self._armed = False

    def try_complete(self) -> bool:
        # The first call comes from try_complete_else_watch right after the handler's read
        # found too little: not done. Every later call means a watched partition changed.
        if not self._armed:
            self._armed = True
            return False
        return self.force_complete()

    def on_complete(self) -> None:
        self._on_done()
