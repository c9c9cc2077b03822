"""One `__share_group_state` partition's share-partition states (Kafka's
ShareCoordinatorShard): what each persister request answers and which record it writes, and
the state rebuilt by replaying those records.

A request never changes the state itself: it returns the record to append, and the state
changes when that record is replayed once it is committed (the service does so), so the
state is always what the log says. Kafka's rules:

- InitializeShareGroupState writes a ShareSnapshot (snapshot epoch 0, or the previous + 1)
  with the new state epoch and start offset and no batches; an older state epoch is fenced.
- WriteShareGroupState needs an initialized partition (else INVALID_REQUEST), fences older
  leader and state epochs, and appends a ShareUpdate carrying only the request's batches,
  except every `snapshot_update_records_per_snapshot` updates, when it writes a
  ShareSnapshot of the whole merged state instead (so a replay reads at most that many
  updates after the last snapshot).
- ReadShareGroupState with a newer leader epoch records it (a ShareUpdate without batches)
  before answering; with the recorded epoch it answers at once.
- DeleteShareGroupState writes a tombstone of the ShareSnapshot key.

Who calls it: coordinator/share_state/coordinator.py (one shard per partition it owns) and unit
tests. Pure: the clock is passed in, nothing is awaited.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.share_state.config import ShareCoordinatorConfig
from kafpy.coordinator.share_state.persister import (ReadStateResult, SharePartitionKey, StateBatch,
                                               StateSummary, merge_batches)
from kafpy.coordinator.share_state.records import (SHARE_SNAPSHOT, SHARE_UPDATE, ShareGroupOffset, decode_key,
                                             decode_value, encode_key, encode_snapshot, encode_update)

log = logging.getLogger("kafka.coordinator.share.ShareCoordinatorShard")

Record = tuple[bytes, Optional[bytes]]
# topic id -> its partition count, None for a topic the cluster does not have
PartitionCounts = Callable[[uuid.UUID], Optional[int]]

UNINITIALIZED_READ = "Read on uninitialized share partition"
UNINITIALIZED_WRITE = "Write on uninitialized share partition"


@dataclass
class ShardResult:
    """A request's answer: an error (with Kafka's message), or the records to append, after
    whose commit the request succeeds. `read` carries a read's answer."""

    error: ErrorCode = ErrorCode.NONE
    message: str | None = None
    records: list[Record] = field(default_factory=list)
    read: ReadStateResult | None = None


def _error(error: ErrorCode, message: str | None = None) -> ShardResult:
    return ShardResult(error, message if message is not None else error.name)


class ShareCoordinatorShard:
    """Keeps, per share partition of one `__share_group_state` partition: its state (start
    offset, batches, epochs), and how many updates were written since its last snapshot."""

    def __init__(self, config: ShareCoordinatorConfig, partition_counts: PartitionCounts) -> None:
        self.config = config
        self._partition_counts = partition_counts
        self.states: dict[SharePartitionKey, ShareGroupOffset] = {}
        self.updates_since_snapshot: dict[SharePartitionKey, int] = {}
        # the log offset each share partition's state is rebuilt from (its last snapshot),
        # and the offset after the last record replayed: what `redundant_offset` reads
        self.base_offsets: dict[SharePartitionKey, int] = {}
        self.next_offset: int | None = None

    # ------------------------------------------------------------------ replay
    def replay_all(self, records: Iterable[Record], base_offset: int | None = None) -> None:
        """Records in log order; `base_offset` is the first one's log offset when known."""
        for i, (key, value) in enumerate(records):
            self.replay(key, value, None if base_offset is None else base_offset + i)

    def replay(self, key_bytes: bytes, value: bytes | None, log_offset: int | None = None) -> None:
        """Apply one committed record (in log order; `log_offset` is where it is in the log,
        when known). Unreadable records are skipped."""
        if log_offset is not None:
            self.next_offset = log_offset + 1
        try:
            record_type, key = decode_key(key_bytes)
            if value is None:
                self.states.pop(key, None)
                self.updates_since_snapshot.pop(key, None)
                self.base_offsets.pop(key, None)
                return
            offset = decode_value(record_type, value)
        except ValueError as e:
            log.warning("skipping unreadable share group state record: %s", e)
            return
        if record_type == SHARE_SNAPSHOT:
            self.states[key] = offset
            self.updates_since_snapshot[key] = 0
            self._set_base(key, log_offset)
            return
        current = self.states.get(key)
        if current is None:
            # an update whose snapshot was deleted (or not written yet): Kafka keeps it as
            # the state
            self.states[key] = offset
            self.updates_since_snapshot[key] = 1
            self._set_base(key, log_offset)
            return
        start = offset.start_offset if offset.start_offset >= 0 else current.start_offset
        self.states[key] = ShareGroupOffset(
            snapshot_epoch=current.snapshot_epoch, state_epoch=current.state_epoch,
            leader_epoch=offset.leader_epoch, start_offset=start,
            batches=merge_batches(current.batches, offset.batches, start),
            delivery_complete_count=offset.delivery_complete_count,
            create_timestamp=current.create_timestamp, write_timestamp=current.write_timestamp)
        self.updates_since_snapshot[key] = self.updates_since_snapshot.get(key, 0) + 1

    def _set_base(self, key: SharePartitionKey, log_offset: int | None) -> None:
        if log_offset is None:
            self.base_offsets.pop(key, None)   # unknown: nothing below it may be pruned
        else:
            self.base_offsets[key] = log_offset

    def redundant_offset(self) -> int | None:
        """Kafka's lastRedundantOffset: every record below it is replaced by a later snapshot
        (or belongs to a deleted share partition), so the log may start there. None while a
        share partition's base offset is unknown or nothing was replayed with offsets."""
        if self.next_offset is None or len(self.base_offsets) != len(self.states):
            return None
        return min(self.base_offsets.values(), default=self.next_offset)

    # ------------------------------------------------------------------ validation
    def _unknown_partition(self, key: SharePartitionKey) -> bool:
        count = self._partition_counts(key.topic_id)
        return count is None or key.partition >= count

    # ------------------------------------------------------------------ requests
    def initialize_state(self, key: SharePartitionKey, state_epoch: int, start_offset: int,
                         now_ms: int) -> ShardResult:
        if key.partition < 0 or state_epoch < 0:
            return _error(ErrorCode.INVALID_REQUEST, "Partition id and state epoch must not be negative.")
        current = self.states.get(key)
        if current is not None and current.state_epoch > state_epoch:
            return _error(ErrorCode.FENCED_STATE_EPOCH,
                          "The share coordinator rejected the request because the share-group "
                          "state epoch did not match.")
        if self._unknown_partition(key):
            return _error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        snapshot = ShareGroupOffset(
            snapshot_epoch=0 if current is None else current.snapshot_epoch + 1,
            state_epoch=state_epoch, leader_epoch=-1, start_offset=start_offset, batches=[],
            delivery_complete_count=-1, create_timestamp=now_ms, write_timestamp=now_ms)
        return ShardResult(records=[(encode_key(SHARE_SNAPSHOT, key), encode_snapshot(snapshot))])

    def write_state(self, key: SharePartitionKey, state_epoch: int, leader_epoch: int,
                    start_offset: int, batches: list[StateBatch], now_ms: int,
                    delivery_complete_count: int = -1) -> ShardResult:
        if key.partition < 0 or leader_epoch < 0 or state_epoch < 0:
            return _error(ErrorCode.INVALID_REQUEST,
                          "Partition id, leader epoch and state epoch must not be negative.")
        current = self.states.get(key)
        if current is None:
            return _error(ErrorCode.INVALID_REQUEST, f"{UNINITIALIZED_WRITE} {key}")
        if current.leader_epoch > leader_epoch:
            return _error(ErrorCode.FENCED_LEADER_EPOCH)
        if current.state_epoch > state_epoch:
            return _error(ErrorCode.FENCED_STATE_EPOCH)
        if self._unknown_partition(key):
            return _error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        return ShardResult(records=[self._state_record(key, current, leader_epoch, start_offset,
                                                       batches, delivery_complete_count, now_ms)])

    def _state_record(self, key: SharePartitionKey, current: ShareGroupOffset, leader_epoch: int,
                      start_offset: int, batches: list[StateBatch], delivery_complete_count: int,
                      now_ms: int) -> Record:
        """Kafka's generateShareStateRecord: the start offset never moves back; a snapshot
        of the merged state once enough updates were written since the last one."""
        new_start = max(start_offset, current.start_offset)
        dcc = delivery_complete_count if start_offset >= current.start_offset else current.delivery_complete_count
        if self.updates_since_snapshot.get(key, 0) >= self.config.snapshot_update_records_per_snapshot:
            snapshot = ShareGroupOffset(
                snapshot_epoch=current.snapshot_epoch + 1, state_epoch=current.state_epoch,
                leader_epoch=leader_epoch, start_offset=new_start,
                batches=merge_batches(current.batches, batches, new_start),
                delivery_complete_count=dcc, create_timestamp=now_ms, write_timestamp=now_ms)
            return encode_key(SHARE_SNAPSHOT, key), encode_snapshot(snapshot)
        update = ShareGroupOffset(
            snapshot_epoch=current.snapshot_epoch, state_epoch=current.state_epoch,
            leader_epoch=leader_epoch, start_offset=new_start,
            batches=merge_batches([], batches, new_start), delivery_complete_count=dcc)
        return encode_key(SHARE_UPDATE, key), encode_update(update)

    def read_state(self, key: SharePartitionKey, leader_epoch: int, now_ms: int) -> ShardResult:
        """The state as it is; when `leader_epoch` is newer than the recorded one, the
        answer waits for the record of the new epoch (the returned records)."""
        if key.partition < 0:
            return _error(ErrorCode.INVALID_REQUEST, "Request partition id is negative.")
        if leader_epoch < 0:
            return _error(ErrorCode.INVALID_REQUEST, "Request leader epoch is negative.")
        current = self.states.get(key)
        if current is None:
            return _error(ErrorCode.INVALID_REQUEST, f"{UNINITIALIZED_READ} {key}")
        if current.leader_epoch > leader_epoch:
            return _error(ErrorCode.FENCED_LEADER_EPOCH,
                          "There is a newer leader epoch for this share partition.")
        if self._unknown_partition(key):
            return _error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        read = ReadStateResult(state_epoch=current.state_epoch, start_offset=current.start_offset,
                               batches=list(current.batches))
        if current.leader_epoch == leader_epoch:
            return ShardResult(read=read)
        record = self._state_record(key, current, leader_epoch, current.start_offset, [],
                                    current.delivery_complete_count, now_ms)
        return ShardResult(records=[record], read=read)

    def cold_snapshot(self, key: SharePartitionKey, now_ms: int) -> ShardResult:
        """Kafka's cold-partition snapshot: a ShareSnapshot of a share partition whose last
        record is an update (it may have stopped writing), so the records before it become
        redundant and can be pruned. Nothing when its last record is a snapshot."""
        current = self.states.get(key)
        if current is None or self.updates_since_snapshot.get(key, 0) == 0:
            return ShardResult()
        snapshot = ShareGroupOffset(
            snapshot_epoch=current.snapshot_epoch + 1, state_epoch=current.state_epoch,
            leader_epoch=current.leader_epoch, start_offset=current.start_offset,
            batches=list(current.batches), delivery_complete_count=current.delivery_complete_count,
            create_timestamp=now_ms, write_timestamp=now_ms)
        return ShardResult(records=[(encode_key(SHARE_SNAPSHOT, key), encode_snapshot(snapshot))])

    def keys_of_deleted_topics(self) -> list[SharePartitionKey]:
        """The share partitions whose topic the cluster no longer has."""
        return [k for k in self.states if self._partition_counts(k.topic_id) is None]

    def read_summary(self, key: SharePartitionKey) -> StateSummary:
        if key.partition < 0:
            return StateSummary(error_code=ErrorCode.INVALID_REQUEST,
                                error_message="Request partition id is negative.")
        current = self.states.get(key)
        if current is None:   # Kafka answers the defaults, without an error
            return StateSummary(state_epoch=0, leader_epoch=0)
        return StateSummary(state_epoch=current.state_epoch, leader_epoch=current.leader_epoch,
                            start_offset=current.start_offset,
                            delivery_complete_count=current.delivery_complete_count)

    def delete_state(self, key: SharePartitionKey) -> ShardResult:
        """A tombstone; deleting a partition without state succeeds writing nothing."""
        if key.partition < 0:
            return _error(ErrorCode.INVALID_REQUEST, "Request partition id is negative.")
        if key not in self.states:
            return ShardResult()
        return ShardResult(records=[(encode_key(SHARE_SNAPSHOT, key), None)])
