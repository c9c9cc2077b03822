"""The coordinators' one write path (Kafka's CoordinatorResult and
CoordinatorRuntime.scheduleWriteOperation).

A coordinator's request method is pure: it checks the request against its state and
returns a `CoordinatorResult`, the response and the records that must be committed to
its internal topic before the response is given. `CoordinatorWriter` appends those
records to the key's partition as one batch, waits for the commit (the completion of
the log's append, acks=-1), turns a cancelled or broken completion into an error code
(`completion_error`), and then answers: the response once committed, else the caller's
answer for the write's error. A write nobody waits for logs its failure.

Who uses it: every coordinator writes through one: the group coordinators (classic,
consumer, share and Streams, through `GroupCoordinator.writer` over
`__consumer_offsets`), the transaction coordinator (`__transaction_state`) and the
share coordinator (`__share_group_state`). Pure: no asyncio here; the futures come from
the factory the service passes (`loop.create_future`; ImmediateFuture in tests). The
in-memory state of the group coordinators has moved before the write (as it did in
Kafka before 3.7), so a failed write is answered with an error and not rolled back
here: the callers that keep pending state (offsets, transactions) undo it in their
`then`.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Generic, Sequence, TypeVar

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.offsets_log import NO_PRODUCER_ID, Completion, OffsetsLog, Record, completion_error

log = logging.getLogger("kafka.coordinator.common.runtime.CoordinatorRuntime")

T = TypeVar("T")
LogT = TypeVar("LogT", bound=OffsetsLog)


@dataclass
class CoordinatorResult(Generic[T]):
    """What a coordinator's request method decided: `response`, to be given once
    `records` are committed (at once when there are none), and `on_committed`, run once
    they are (not when there were none to write)."""

    response: T
    records: list[Record] = field(default_factory=list)
    on_committed: Callable[[], None] | None = None


class CoordinatorWriter(Generic[LogT]):
    """Appends a coordinator's records to the partitions of its internal topic through
    `log` and answers once they are committed; `name` is how its failed writes are
    logged."""

    def __init__(self, log: LogT, future_factory: Callable[[], Completion], name: str) -> None:
        self.log = log
        self.future_factory = future_factory
        self.name = name

    def write(self, partition: int, records: Sequence[Record], now_ms: int,
              then: Callable[[ErrorCode], None] | None = None, *, what: str = "records",
              key: str = "", producer_id: int = NO_PRODUCER_ID, producer_epoch: int = -1) -> None:
        """Append `records` to `partition` as one batch (a transactional one of the
        producer when `producer_id` is given) and call `then` with the write's error
        (NONE once committed). Without `then` nobody waits: a failure is logged as one
        writing `what` for `key`."""
        done = (self.log.append(partition, records, now_ms) if producer_id == NO_PRODUCER_ID
                else self.log.append(partition, records, now_ms, producer_id, producer_epoch))

        def written(d: Completion) -> None:
            error = completion_error(d)
            if then is not None:
                then(error)
            elif error != ErrorCode.NONE:
                log.warning("%s: failed to write %s for %s: %s", self.name, what, key, error.name)
        done.add_done_callback(written)

    def answer(self, partition: int, result: CoordinatorResult[T], now_ms: int,
               on_error: Callable[[ErrorCode], T]) -> Completion[T]:
        """A future resolved with `result.response` once `result.records` are committed
        in `partition` (at once when there are none), or with `on_error(the write's
        error)`."""
        fut: Completion[T] = self.future_factory()
        if not result.records:
            fut.set_result(result.response)
            return fut

        def then(error: ErrorCode) -> None:
            if error != ErrorCode.NONE:
                _resolve(fut, on_error(error))
                return
            _resolve(fut, result.response)
            if result.on_committed is not None:
                result.on_committed()
        self.write(partition, result.records, now_ms, then)
        return fut


def _resolve(fut: Completion[T], value: T) -> None:
    """Resolve `fut` unless it is done already (a cancelled waiter: its client left)."""
    if not fut.done():
        fut.set_result(value)
