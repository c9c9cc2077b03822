"""Where Protobuf schemas are compiled: protoc (grpcio-tools, in process) holds the GIL for
much of a big schema's compilation (a 530 KB schema: 0.37 s, the event loop starved for up
to 0.17 s even from a thread), so a big schema is compiled in a worker process and the
loop only waits for the answer.

Who calls it: ``SchemaRegistry.prepare`` (before a register, lookup or compatibility check)
awaits ``prepare``; ``schema_types.parse_protobuf`` then calls ``compiled``, which answers
from what ``prepare`` kept, or compiles on the spot (small schemas, schemas read back from
``_schemas``). Compilation is a pure function of the text and the texts it imports, so
results (refusals too) are kept by exactly those. At most ``max_concurrent`` compilations
run at once; more wait their turn on the loop without holding anything but their request.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
from collections import OrderedDict
from typing import TYPE_CHECKING

from kafpy.registry.protobuf_schema import ProtobufError, canonicalize

if TYPE_CHECKING:
    from google.protobuf.descriptor_pb2 import FileDescriptorProto

__all__ = ["ProtobufCompiler", "COMPILER"]

Key = tuple[str, tuple[tuple[str, str], ...]]
Result = tuple[str, "FileDescriptorProto"]   # the canonical text and its descriptor


class ProtobufCompiler:
    """Keeps the last ``cache_size`` compilations (result or ``ProtobufError``) and the
    worker pool, started on first need (spawned: the broker's threads are not forked)."""

    def __init__(self, max_concurrent: int = 2, off_loop_bytes: int = 16384, cache_size: int = 64) -> None:
        self.max_concurrent = max_concurrent
        self.off_loop_bytes = off_loop_bytes
        self.cache_size = cache_size
        self._done: OrderedDict[Key, Result | ProtobufError] = OrderedDict()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._slots: asyncio.Semaphore | None = None

    @staticmethod
    def _key(text: str, dependencies: dict[str, str]) -> Key:
        return text, tuple(sorted(dependencies.items()))

    def _size(self, text: str, dependencies: dict[str, str]) -> int:
        return len(text) + sum(len(v) for v in dependencies.values())

    def _keep(self, key: Key, outcome: Result | ProtobufError) -> None:
        self._done[key] = outcome
        self._done.move_to_end(key)
        while len(self._done) > self.cache_size:
            self._done.popitem(last=False)

    def compiled(self, text: str, dependencies: dict[str, str]) -> Result:
        """(stored text, FileDescriptorProto) of ``text``, as ``protobuf_schema.canonicalize``;
        raises its ``ProtobufError``."""
        key = self._key(text, dependencies)
        outcome = self._done.get(key)
        if outcome is None:
            try:
                outcome = canonicalize(text, dependencies)
            except ProtobufError as e:
                outcome = e
            if self._size(text, dependencies) >= self.off_loop_bytes:
                self._keep(key, outcome)
        if isinstance(outcome, ProtobufError):
            raise outcome
        return outcome

    async def prepare(self, text: str, dependencies: dict[str, str]) -> None:
        """Compiles ``text`` in the worker pool when it is big and not yet known, so that
        ``compiled`` then answers at once."""
        if self._size(text, dependencies) < self.off_loop_bytes:
            return
        key = self._key(text, dependencies)
        if key in self._done:
            return
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_concurrent)
        async with self._slots:
            if key in self._done:   # compiled by a request that went first
                return
            if self._pool is None:
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.max_concurrent, mp_context=multiprocessing.get_context("spawn"))
            loop = asyncio.get_running_loop()
            try:
                outcome: Result | ProtobufError = await loop.run_in_executor(
                    self._pool, canonicalize, text, dependencies)
            except ProtobufError as e:
                outcome = e
            except concurrent.futures.process.BrokenProcessPool:
                self._pool = None   # a worker died (killed?): the next compile starts a new pool
                return
            self._keep(key, outcome)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


COMPILER = ProtobufCompiler()
