"""Kafka's SimpleMemoryPool as its socket server uses it (``queued.max.request.bytes``): one
budget for the bytes of every request received and not yet handled, broker-wide.

Who may call it: the socket server (one pool, shared by its connections) and the
``FrameReader`` of each connection, which asks for a request's bytes before it holds them.
Nothing on disk. Not thread-safe: the event loop is the only caller.

Non-strict, as Kafka's server pool: a request is let in while any budget is left, so the
memory held peaks at the budget plus one request (``socket.request.max.bytes``), and an
announced size never has to fit exactly. A connection refused memory stops being read
("muted") and asks ``when_available`` to be called back once requests have released enough.
"""
from __future__ import annotations

from typing import Callable

__all__ = ["MemoryPool"]


class MemoryPool:
    """``size`` bytes for requests in flight; no request above ``max_single_allocation``."""

    __slots__ = ("size", "max_single_allocation", "available", "_waiters")

    def __init__(self, size: int, max_single_allocation: int) -> None:
        if size <= 0 or max_single_allocation <= 0 or max_single_allocation > size:
            # Kafka refuses the same at startup (queued.max.request.bytes < socket.request.max.bytes)
            raise ValueError(f"must provide a positive size and max single allocation size smaller "
                             f"than size. provided {size} and {max_single_allocation} respectively")
        self.size = size
        self.max_single_allocation = max_single_allocation
        self.available = size  # below zero while the last request let in overdraws it
        self._waiters: dict[Callable[[], None], None] = {}  # insertion-ordered set: who asked first

    @property
    def out_of_memory(self) -> bool:
        return self.available <= 0

    def try_allocate(self, n: int) -> bool:
        """Take ``n`` bytes if any budget is left (the caller then owes ``release(n)``)."""
        if n < 0 or n > self.max_single_allocation:
            raise ValueError(f"requested size {n} is outside 0..{self.max_single_allocation}")
        if self.available <= 0:
            return False
        self.available -= n
        return True

    def release(self, n: int) -> None:
        """Give back ``n`` bytes taken by ``try_allocate``; once some budget is free again,
        call back every connection waiting for it (in the order they asked)."""
        self.available += n
        if self.available > 0 and self._waiters:
            waiters, self._waiters = list(self._waiters), {}
            for callback in waiters:
                callback()

    def when_available(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once, the next time budget frees up (asking twice is asking once)."""
        self._waiters[callback] = None

    def forget(self, callback: Callable[[], None]) -> None:
        """A connection closed while it waited."""
        self._waiters.pop(callback, None)
