"""Where the coordinator persists: one `__consumer_offsets` partition per group.

`OffsetsLog` is the small interface the state machine writes through; the broker's
implementation (`coordinator.service.BrokerOffsetsLog`) turns each append into one
magic-2 record batch on the partition's storage.Log, and `read` replays a partition
from its log start.
`InMemoryOffsetsLog` serves the unit tests and keeps nothing on disk.
"""

from __future__ import annotations

from typing import Iterable, Protocol, Sequence

Record = tuple[bytes, "bytes | None"]


class OffsetsLogError(Exception):
    """An append that failed; `error_code` is the Kafka error of the failure."""

    def __init__(self, error_code: int, message: str = "") -> None:
        super().__init__(message or f"append failed with error {error_code}")
        self.error_code = error_code


class OffsetsLog(Protocol):
    def append(self, partition: int, records: Sequence[Record], timestamp_ms: int) -> None:
        """Durably (as durable as a produce with acks=-1) append the key/value records
        (value None = tombstone) as one batch; raise OffsetsLogError on failure."""

    def read(self, partition: int) -> Iterable[Record]:
        """Every record of the partition in offset order."""


class InMemoryOffsetsLog:
    """An OffsetsLog kept in lists, for tests; `fail_with` makes appends fail."""

    def __init__(self) -> None:
        self.partitions: dict[int, list[tuple[bytes, bytes | None, int]]] = {}
        self.fail_with: int | None = None

    def append(self, partition: int, records: Sequence[Record], timestamp_ms: int) -> None:
        if self.fail_with is not None:
            raise OffsetsLogError(self.fail_with)
        self.partitions.setdefault(partition, []).extend(
            (bytes(k), None if v is None else bytes(v), timestamp_ms) for k, v in records)

    def read(self, partition: int) -> Iterable[Record]:
        return [(k, v) for k, v, _ in self.partitions.get(partition, [])]
