"""Where the coordinator persists: one `__consumer_offsets` partition per group.

`OffsetsLog` is the small interface the state machine writes through. A write is
asynchronous, as Kafka's are: `append` returns a completion (a future made by the log's
future factory) that resolves with `ErrorCode.NONE` once the batch is committed (the
partition's high watermark passed it, as for a produce with acks=-1) or with the
error that stopped it. The state machine attaches callbacks and stays free of I/O.
The broker's implementation is `kafpy.coordinator.group.service.BrokerOffsetsLog`;
`InMemoryOffsetsLog` serves tests and tools and keeps nothing on disk.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Generator
from typing import Any, Callable, Generic, Iterable, NamedTuple, Protocol, Sequence, TypeVar, Union

from kafpy.protocol.errors import ErrorCode

Record = tuple[bytes, "bytes | None"]


class TxnRecord(NamedTuple):
    """A record of a transactional batch (TxnOffsetCommit): it counts only once its
    producer's COMMIT marker follows."""

    producer_id: int
    key: bytes
    value: "bytes | None"


class TxnMarker(NamedTuple):
    """A transaction marker as ``read`` replays it."""

    producer_id: int
    committed: bool


LogEntry = Union[Record, TxnRecord, TxnMarker]
NO_PRODUCER_ID = -1

log = logging.getLogger(__name__)


ResultT = TypeVar("ResultT")


class Completion(Protocol[ResultT]):
    """The part of asyncio.Future the coordinator uses (ImmediateFuture has it too);
    `ResultT` is what the write answers with."""

    def done(self) -> bool: ...
    def cancelled(self) -> bool: ...
    def result(self) -> ResultT: ...
    def set_result(self, result: ResultT) -> None: ...
    def add_done_callback(self, cb: Callable[[Completion[ResultT]], object]) -> None: ...
    def __await__(self) -> Generator[Any, None, ResultT]: ...


class ImmediateFuture(Generic[ResultT]):
    """A future for callers without an event loop (tests, tools): callbacks run inside
    `set_result`, or at once when added to a done future."""

    __slots__ = ("_result", "_done", "_callbacks")
    _result: ResultT    # set by set_result; result() reads it only once done

    def __init__(self) -> None:
        self._done = False
        self._callbacks: list[Callable[[Completion[ResultT]], object]] = []

    def done(self) -> bool:
        return self._done

    def cancelled(self) -> bool:
        return False

    def set_result(self, result: ResultT) -> None:
        if self._done:
            raise RuntimeError("future already done")
        self._done, self._result = True, result
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def result(self) -> ResultT:
        if not self._done:
            raise RuntimeError("future not done")
        return self._result

    def add_done_callback(self, cb: Callable[[Completion[ResultT]], object]) -> None:
        if self._done:
            cb(self)
        else:
            self._callbacks.append(cb)

    def __await__(self) -> Generator[Any, None, ResultT]:
        """Awaitable like an asyncio future: a done one answers at once; a pending one is
        bridged to a future of the running loop, resolved by `set_result`."""
        if not self._done:
            waiter: asyncio.Future[ResultT] = asyncio.get_running_loop().create_future()

            def resolve(done: Completion[ResultT]) -> None:
                if not waiter.done():
                    waiter.set_result(done.result())
            self.add_done_callback(resolve)
            return (yield from waiter.__await__())
        return self._result


def completion_error(done: Completion) -> ErrorCode:
    """The error a finished write ended with. A cancelled wait (the broker stopped, or
    gave up the partition) counts as NOT_LEADER_OR_FOLLOWER: the write's fate is not
    known here, so the client must find the coordinator again."""
    if done.cancelled():
        return ErrorCode.NOT_LEADER_OR_FOLLOWER
    try:
        return ErrorCode(done.result())
    except Exception:  # noqa: BLE001 - a broken completion must still answer the client
        log.exception("write to the offsets topic ended without an error code")
        return ErrorCode.UNKNOWN_SERVER_ERROR


class OffsetsLog(Protocol):
    def append(self, partition: int, records: Sequence[Record], timestamp_ms: int,
               producer_id: int = NO_PRODUCER_ID, producer_epoch: int = -1) -> Completion[ErrorCode]:
        """Append the key/value records (value None = tombstone) as one batch, a
        transactional one of (``producer_id``, ``producer_epoch``) when a producer id is
        given; the completion resolves with ErrorCode.NONE when the batch is committed,
        else with the append's error. Never raises."""

    def read(self, partition: int) -> Iterable[LogEntry]:
        """Every record of the partition in offset order: plain records as (key,
        value), transactional ones as TxnRecord, markers as TxnMarker."""


class InMemoryOffsetsLog:
    """An OffsetsLog kept in lists. Appends commit at once unless `hold` is set: then
    they wait in `pending` (oldest first) until `complete_next` commits or fails them,
    like writes waiting for followers. `fail_with` makes appends fail at once. Only
    committed records are read back."""

    def __init__(self, future_factory: Callable[[], Completion] = ImmediateFuture,
                 hold: bool = False) -> None:
        self.partitions: dict[int, list[tuple[LogEntry, int]]] = {}  # (log entry, timestamp)
        self.fail_with: int | None = None
        self.hold = hold
        self.pending: deque[tuple[Completion[ErrorCode], int, list[tuple[LogEntry, int]]]] = deque()
        self._future_factory = future_factory

    def append(self, partition: int, records: Sequence[Record], timestamp_ms: int,
               producer_id: int = NO_PRODUCER_ID, producer_epoch: int = -1) -> Completion[ErrorCode]:
        done: Completion[ErrorCode] = self._future_factory()
        if self.fail_with is not None:
            done.set_result(ErrorCode(self.fail_with))
            return done
        plain = [(bytes(k), None if v is None else bytes(v)) for k, v in records]
        entries: list[Record] | list[TxnRecord] = plain
        if producer_id != NO_PRODUCER_ID:
            entries = [TxnRecord(producer_id, k, v) for k, v in plain]
        write: tuple[Completion[ErrorCode], int, list[tuple[LogEntry, int]]] = (done, partition, [(e, timestamp_ms)
                                                                                       for e in entries])
        if self.hold:
            self.pending.append(write)
        else:
            self._finish(write, ErrorCode.NONE)
        return done

    def complete_next(self, error: int = ErrorCode.NONE) -> None:
        """Commit (or fail with `error`, dropping its records) the oldest pending write."""
        self._finish(self.pending.popleft(), error)

    def append_marker(self, partition: int, producer_id: int, committed: bool) -> None:
        """A transaction marker, committed at once (what WriteTxnMarkers writes)."""
        self.partitions.setdefault(partition, []).append((TxnMarker(producer_id, committed), 0))

    def _finish(self, write: tuple[Completion[ErrorCode], int, list[tuple[LogEntry, int]]],
                error: int) -> None:
        done, partition, records = write
        if error == ErrorCode.NONE:
            self.partitions.setdefault(partition, []).extend(records)
        done.set_result(ErrorCode(error))

    def complete_all(self, error: int = ErrorCode.NONE) -> None:
        while self.pending:
            self.complete_next(error)

    def read(self, partition: int) -> Iterable[LogEntry]:
        return [e for e, _ in self.partitions.get(partition, [])]
