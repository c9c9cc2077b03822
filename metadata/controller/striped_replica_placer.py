"""Replica placement for new partitions, as Kafka's ``StripedReplicaPlacer``.

Who calls it: ``ReplicationControlManager`` for CreateTopics and CreatePartitions without
manual assignments. Brokers are grouped by rack; each partition's first replica (its
preferred leader) is an unfenced broker, the others stripe across the racks (unfenced brokers
first, fenced ones only when needed), the start rotates partition by partition so leaders
spread. The ``random.Random`` is passed in (Kafka seeds its own), so tests are repeatable."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from kafpy.metadata.controller.controller_result import ControllerError
from kafpy.protocol.errors import ErrorCode


@dataclass(frozen=True)
class UsableBroker:
    """A broker placement may use (registered, not in controlled shutdown)."""

    id: int
    rack: str | None
    fenced: bool


@dataclass
class _BrokerList:
    brokers: list[int] = field(default_factory=list)
    index: int = 0
    offset: int = 0
    epoch: int = 0

    def initialize(self, rng: random.Random) -> None:
        if self.brokers:
            self.brokers.sort()
            self.offset = rng.randrange(len(self.brokers))

    def next(self, epoch: int) -> int:
        if not self.brokers:
            return -1
        if self.epoch != epoch:
            self.epoch = epoch
            self.index = 0
            self.offset = (self.offset + 1) % len(self.brokers)
        if self.index >= len(self.brokers):
            return -1
        broker = self.brokers[(self.index + self.offset) % len(self.brokers)]
        self.index += 1
        return broker


@dataclass
class _Rack:
    fenced: _BrokerList = field(default_factory=_BrokerList)
    unfenced: _BrokerList = field(default_factory=_BrokerList)

    def next(self, epoch: int) -> int:
        found = self.unfenced.next(epoch)
        return found if found >= 0 else self.fenced.next(epoch)


def _invalid(message: str) -> ControllerError:
    return ControllerError(ErrorCode.INVALID_REPLICATION_FACTOR, message)


def _check(replication_factor: int, total: int, unfenced: int) -> None:
    if replication_factor <= 0:
        raise _invalid(f"Invalid replication factor {replication_factor}: the replication "
                       "factor must be positive.")
    if unfenced == 0:
        raise _invalid("All brokers are currently fenced, or have all their log directories cordoned.")
    if replication_factor > total:
        raise _invalid(f"The target replication factor of {replication_factor} cannot be "
                       f"reached because only {total} broker(s) are registered or some brokers have all "
                       "their log directories cordoned.")


class _RackList:
    def __init__(self, rng: random.Random, brokers: list[UsableBroker]) -> None:
        self.rng = rng
        self.racks: dict[str | None, _Rack] = {}
        for broker in brokers:
            rack = self.racks.setdefault(broker.rack, _Rack())
            (rack.fenced if broker.fenced else rack.unfenced).brokers.append(broker.id)
        for rack in self.racks.values():
            rack.fenced.initialize(rng)
            rack.unfenced.initialize(rng)
        # no rack first, then by name (Kafka's OptionalStringComparator)
        self.rack_names = sorted(self.racks, key=lambda n: (n is not None, n or ""))
        self.total = len(brokers)
        self.unfenced = sum(1 for b in brokers if not b.fenced)
        self.epoch = 0
        self.offset = rng.randrange(len(self.rack_names)) if self.rack_names else 0

    def place(self, replication_factor: int) -> list[int]:
        _check(replication_factor, self.total, self.unfenced)
        if self.epoch == self.unfenced and self.unfenced > 1:
            self.rng.shuffle(self.rack_names)
            for rack in self.racks.values():
                self.rng.shuffle(rack.fenced.brokers)
                self.rng.shuffle(rack.unfenced.brokers)
            self.epoch = 0
        if self.offset == len(self.rack_names):
            self.offset = 0
        out: list[int] = []
        first = self.offset
        while True:
            found = self.racks[self.rack_names[first]].unfenced.next(self.epoch)
            if found >= 0:
                out.append(found)
                break
            first = (first + 1) % len(self.rack_names)
        index = self.offset
        for _ in range(1, replication_factor):
            found = -1
            while found < 0:
                if index == first:
                    first = -1
                else:
                    found = self.racks[self.rack_names[index]].next(self.epoch)
                index = (index + 1) % len(self.rack_names)
            out.append(found)
        self.epoch += 1
        self.offset += 1
        return out


class StripedReplicaPlacer:
    """Keeps the ``random.Random`` placements draw from."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def place(self, num_partitions: int, replication_factor: int,
              brokers: list[UsableBroker]) -> list[list[int]]:
        """The replicas of each of ``num_partitions`` new partitions; raises the
        INVALID_REPLICATION_FACTOR ``ControllerError`` Kafka answers with."""
        racks = _RackList(self.rng, brokers)
        _check(replication_factor, racks.total, racks.unfenced)
        return [racks.place(replication_factor) for _ in range(num_partitions)]
