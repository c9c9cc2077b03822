"""Produce work that decodes many records, run off the event loop, in append order.

A client's append to a compacted topic decodes every record to check its key (as Kafka's
LogValidator does), and a topic's ``compression.type`` makes the leader recompress every
batch in another codec; a small zstd batch can announce millions of records (1.5 KB: 2M,
6.8 s of decoding), and on the event loop that would freeze every client. So a Produce
whose partitions would decode more than ``HEAVY_RECORDS`` has that work
(``log_validator.work_ahead``) done in a worker process, and appends as usual once it is
done (``Log.checked_ahead``: the log raises the error found or takes the recompressed
batches instead of doing the work again). A
process, not a thread: a thread decoding in Python shares the GIL with the event loop, and
a second client then measured p99 round trips of 70-170 ms on a loaded 2-core machine; the
worker is sent the batch as received (compressed, a few KB) and answers with the error.
Kafka 4.4 bounds no decompressed size (max.message.bytes counts the compressed batch) and
accepts a large one; kafpy does too, only without stalling. (The issue's bomb itself, 2M
records all with offset delta 0, Kafka 4.4 answers with UNKNOWN_SERVER_ERROR through a bug
in its LogValidator; kafpy accepts it: see tests/integration/security/test_bounded_work.py.)

Order: appends to one partition are written in the order their Produce requests were
handled, as if nothing were checked ahead. While a request is being checked, every later
Produce touching one of its partitions waits for it to append first (``_tails``: the last
request in line per partition). When nothing is being checked (always, for ordinary
traffic) the cost is one empty-dict test per request.

Who calls it: ``broker.handlers.produce`` (one ``ProduceChecks`` per replica manager, made
on first use).
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import weakref
from typing import TYPE_CHECKING, Awaitable, Callable, Sequence, TypeVar

from kafpy.storage.log_validator import work_ahead

if TYPE_CHECKING:
    from kafpy.storage.log import Log

__all__ = ["HEAVY_RECORDS", "ProduceChecks", "checks_for", "existing"]

# Above this many records to decode (about 15 ms of the event loop), the check runs ahead.
HEAVY_RECORDS = 4096

# (topic, partition, records) of one partition of a Produce request
Entry = tuple[str, int, bytes]
_Appended = TypeVar("_Appended")


class ProduceChecks:
    """Keeps the request last in line per partition (``_tails``) and the worker process
    (spawned on first need, so the broker's threads are not forked)."""

    def __init__(self) -> None:
        self._tails: dict[tuple[str, int], asyncio.Future[None]] = {}
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def must_wait(self, entries: Sequence[Entry]) -> bool:
        """Whether a request with no heavy check of its own must still wait its turn."""
        tails = self._tails
        return bool(tails) and any((t, p) in tails for t, p, _ in entries)

    async def append(self, entries: Sequence[Entry], heavy: Sequence[tuple["Log", bytes]],
                     do_append: Callable[[], Awaitable[_Appended]]) -> _Appended:
        """Waits for the requests ahead on ``entries``' partitions, runs ``heavy``'s checks
        ((log, records) pairs) in the worker process, then calls ``do_append`` (whose
        appends happen when it is called; its result is awaited after this request's
        place in line is given up)."""
        loop = asyncio.get_running_loop()
        keys = [(t, p) for t, p, _ in entries]
        tails = self._tails
        ahead = {tails[k] for k in keys if k in tails}
        mine: asyncio.Future[None] = loop.create_future()
        for k in keys:
            tails[k] = mine
        try:
            for fut in ahead:
                await asyncio.shield(fut)
            for log, records in heavy:
                if self._pool is None:
                    self._pool = concurrent.futures.ProcessPoolExecutor(
                        1, mp_context=multiprocessing.get_context("spawn"))
                try:
                    outcome = await loop.run_in_executor(self._pool, work_ahead, bytes(records),
                                                         *log.ahead_settings())
                except concurrent.futures.process.BrokenProcessPool:
                    self._pool = None   # the worker died: this append does the work on the loop
                    continue
                log.checked_ahead(records, outcome)
            pending = do_append()
        finally:
            mine.set_result(None)
            for k in keys:
                if tails.get(k) is mine:
                    del tails[k]
        return await pending

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


_BY_OWNER: dict[int, ProduceChecks] = {}   # by id() of the owner, dropped when it goes


def existing(owner: object) -> ProduceChecks | None:
    """The ``ProduceChecks`` of ``owner`` if it has one (the Produce hot path asks this:
    one dict lookup)."""
    return _BY_OWNER.get(id(owner))


def checks_for(owner: object) -> ProduceChecks:
    """The ``ProduceChecks`` of ``owner`` (a replica manager), made on first use."""
    checks = _BY_OWNER.get(id(owner))
    if checks is None:
        checks = _BY_OWNER[id(owner)] = ProduceChecks()
        weakref.finalize(owner, _forget, id(owner))
    return checks


def _forget(key: int) -> None:
    checks = _BY_OWNER.pop(key, None)
    if checks is not None:
        checks.close()
