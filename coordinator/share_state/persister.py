"""The persister: how a share partition's leader reads and writes the durable state of
(group, topic, partition) that the share coordinator keeps in `__share_group_state`.

Kafka's brokers call it through the five persister RPCs (InitializeShareGroupState 83,
ReadShareGroupState 84, WriteShareGroupState 85, DeleteShareGroupState 86,
ReadShareGroupStateSummary 87) sent to the share coordinator of the key
`"<group>:<topic id>:<partition>"` (FindCoordinator key type 2). `SharePersister` is that
seam as one Python interface, so the share partitions (broker/share/) and the group
coordinator's share groups never know whether the coordinator is local or remote.

Implementations: `InMemoryPersister` (tests and tools, keeps nothing on disk) and the
broker's, which routes each call to the share coordinator's broker (or calls it directly
when this broker is that coordinator). Every method is a coroutine on the event loop and
answers errors as Kafka error codes in the result, never by raising.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass, field
from typing import Protocol

from kafpy.protocol.errors import ErrorCode

# DeliveryState values of a state batch, as Kafka's RecordState ids.
AVAILABLE = 0
ACQUIRED = 1
ACKNOWLEDGED = 2
ARCHIVED = 4

UNINITIALIZED_START_OFFSET = -1


@dataclass(frozen=True)
class StateBatch:
    """A run of offsets with one delivery state and count (inclusive `last_offset`)."""

    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int


@dataclass(frozen=True)
class SharePartitionKey:
    """Which share partition's state: the coordinator key is `str(key)`."""

    group_id: str
    topic_id: uuid.UUID
    partition: int

    def __str__(self) -> str:
        # Kafka's SharePartitionKey.asCoordinatorKey: the topic id as Kafka prints a Uuid
        # (URL-safe base64, no padding), which is what FindCoordinator keys and the
        # `__share_group_state` partition hash are computed over
        topic = base64.urlsafe_b64encode(self.topic_id.bytes).decode().rstrip("=")
        return f"{self.group_id}:{topic}:{self.partition}"


@dataclass
class ReadStateResult:
    """ReadShareGroupState's answer for one partition. `start_offset` is
    UNINITIALIZED_START_OFFSET when the group has not initialized the partition yet (the
    share partition then applies `share.auto.offset.reset`)."""

    error_code: int = ErrorCode.NONE
    error_message: str | None = None
    state_epoch: int = 0
    start_offset: int = UNINITIALIZED_START_OFFSET
    batches: list[StateBatch] = field(default_factory=list)


@dataclass
class StateSummary:
    """ReadShareGroupStateSummary's answer for one partition (admin: offsets, lag)."""

    error_code: int = ErrorCode.NONE
    error_message: str | None = None
    state_epoch: int = 0
    leader_epoch: int = 0
    start_offset: int = UNINITIALIZED_START_OFFSET
    delivery_complete_count: int = -1


class SharePersister(Protocol):
    """The share coordinator as its callers see it. Error codes are Kafka's: e.g.
    NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS (retriable), FENCED_STATE_EPOCH and
    FENCED_LEADER_EPOCH (a stale writer), UNKNOWN_TOPIC_OR_PARTITION (no state)."""

    async def initialize_state(self, key: SharePartitionKey, state_epoch: int,
                               start_offset: int) -> int: ...

    async def read_state(self, key: SharePartitionKey, leader_epoch: int) -> ReadStateResult: ...

    async def write_state(self, key: SharePartitionKey, state_epoch: int, leader_epoch: int,
                          start_offset: int, batches: list[StateBatch],
                          delivery_complete_count: int = -1) -> int: ...

    async def delete_state(self, key: SharePartitionKey) -> int: ...

    async def read_summary(self, key: SharePartitionKey, leader_epoch: int) -> StateSummary: ...


class InMemoryPersister:
    """A SharePersister in a dict, with the share coordinator's merge rule: a write replaces
    the start offset and overlays its batches on the kept ones, dropping what lies below the
    start offset. For unit tests and tools; keeps nothing on disk."""

    def __init__(self) -> None:
        self.states: dict[SharePartitionKey, ReadStateResult] = {}
        self.leader_epochs: dict[SharePartitionKey, int] = {}

    async def initialize_state(self, key: SharePartitionKey, state_epoch: int,
                               start_offset: int) -> int:
        self.states[key] = ReadStateResult(state_epoch=state_epoch, start_offset=start_offset)
        return ErrorCode.NONE

    async def read_state(self, key: SharePartitionKey, leader_epoch: int) -> ReadStateResult:
        st = self.states.get(key)
        if st is None:
            return ReadStateResult()
        if leader_epoch < self.leader_epochs.get(key, -1):
            return ReadStateResult(error_code=ErrorCode.FENCED_LEADER_EPOCH)
        self.leader_epochs[key] = leader_epoch
        return ReadStateResult(state_epoch=st.state_epoch, start_offset=st.start_offset,
                               batches=list(st.batches))

    async def write_state(self, key: SharePartitionKey, state_epoch: int, leader_epoch: int,
                          start_offset: int, batches: list[StateBatch],
                          delivery_complete_count: int = -1) -> int:
        st = self.states.setdefault(key, ReadStateResult(state_epoch=state_epoch))
        if state_epoch < st.state_epoch:
            return ErrorCode.FENCED_STATE_EPOCH
        if leader_epoch < self.leader_epochs.get(key, -1):
            return ErrorCode.FENCED_LEADER_EPOCH
        self.leader_epochs[key] = leader_epoch
        st.state_epoch = state_epoch
        if start_offset >= 0:
            st.start_offset = start_offset
        st.batches = merge_batches(st.batches, batches, st.start_offset)
        return ErrorCode.NONE

    async def delete_state(self, key: SharePartitionKey) -> int:
        self.states.pop(key, None)
        self.leader_epochs.pop(key, None)
        return ErrorCode.NONE

    async def read_summary(self, key: SharePartitionKey, leader_epoch: int) -> StateSummary:
        st = self.states.get(key)
        if st is None:
            return StateSummary()
        return StateSummary(state_epoch=st.state_epoch,
                            leader_epoch=self.leader_epochs.get(key, 0),
                            start_offset=st.start_offset)


def merge_batches(kept: list[StateBatch], new: list[StateBatch], start_offset: int) -> list[StateBatch]:
    """`new` overlaid on `kept` (a new batch wins over the offsets it covers), anything below
    `start_offset` dropped, sorted by first offset. Pure; the share coordinator applies the
    same rule when it replays ShareUpdate records over a ShareSnapshot."""
    out: list[StateBatch] = []
    for b in kept:
        pieces = [b]
        for n in new:
            nxt: list[StateBatch] = []
            for p in pieces:
                if n.last_offset < p.first_offset or n.first_offset > p.last_offset:
                    nxt.append(p)
                    continue
                if p.first_offset < n.first_offset:
                    nxt.append(StateBatch(p.first_offset, n.first_offset - 1, p.delivery_state, p.delivery_count))
                if p.last_offset > n.last_offset:
                    nxt.append(StateBatch(n.last_offset + 1, p.last_offset, p.delivery_state, p.delivery_count))
            pieces = nxt
        out.extend(pieces)
    out.extend(new)
    clipped = []
    for b in out:
        if start_offset >= 0 and b.last_offset < start_offset:
            continue
        if start_offset >= 0 and b.first_offset < start_offset:
            b = StateBatch(start_offset, b.last_offset, b.delivery_state, b.delivery_count)
        clipped.append(b)
    return sorted(clipped, key=lambda b: b.first_offset)
