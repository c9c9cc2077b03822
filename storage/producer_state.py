"""Idempotent/transactional producer state of one partition.

Keeps, per producer id, its epoch and the metadata of its last five batches (first/last
sequence, first/last offset, max timestamp), the coordinator epoch and the first offset
of its open transaction. A retried batch that matches one of the five is a duplicate
(answered with its original offsets); anything else must continue the sequence.

On disk: ``<20-digit offset>.snapshot`` files in the partition directory, Kafka's
format (version 1): int16 version, uint32 CRC-32C of everything after it, int32 count,
then per producer: int64 id, int16 epoch, int32 last sequence, int64 last offset,
int32 offset delta (last - first sequence of the last batch), int64 timestamp,
int32 coordinator epoch, int64 current transaction first offset (-1 if none).
A snapshot holds the state after every batch below its offset. Snapshots are written
when a segment rolls and on clean shutdown; the state is rebuilt from the log from the
latest usable snapshot otherwise (a corrupt one is deleted).

Only the last batch of each producer survives a snapshot (as in Kafka): duplicates of
older batches after a restart are then out-of-sequence, which the client handles.

Who may call it: the owning Log's thread.
"""

from __future__ import annotations

import logging
import os
import enum
import struct
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Iterable, Literal, Optional, Union

import crc32c

from kafpy.protocol.batch_header import HeaderTuple
from kafpy.protocol.errors import ErrorCode, ProtocolError
from kafpy.protocol.records import (ATTRIBUTES_FIELD, BASE_SEQUENCE_FIELD, BATCH_LENGTH_FIELD, CONTROL_MASK,
                                    LAST_OFFSET_DELTA_FIELD, LOG_OVERHEAD, PRODUCER_EPOCH_FIELD, PRODUCER_ID_FIELD,
                                    TRANSACTIONAL_MASK, decode_batch, parse_control_record)

from kafpy.storage.checkpoint import PendingFsyncs, atomic_write
from kafpy.storage.errors import CorruptSnapshotError, InvalidProducerEpochError, OutOfOrderSequenceError
from kafpy.storage.txn_index import AbortedTxn

if TYPE_CHECKING:
    from kafpy.storage.segment import LogSegment

__all__ = ["BatchMetadata", "ProducerStateEntry", "ProducerStateManager", "SNAPSHOT_SUFFIX"]

log = logging.getLogger(__name__)

SNAPSHOT_SUFFIX = ".snapshot"
NUM_BATCHES_TO_RETAIN = 5
_SNAP_HEAD = struct.Struct(">hI")
_SNAP_ENTRY = struct.Struct(">qhiqiqiq")
_INT32 = struct.Struct(">i")
INT32_MAX = 0x7FFFFFFF


@dataclass(slots=True)
class BatchMetadata:
    """A batch a producer wrote, as a duplicate is answered with."""

    first_seq: int
    last_seq: int
    first_offset: int
    last_offset: int
    timestamp: int


@dataclass(slots=True)
class ProducerStateEntry:
    """One producer's state. ``batches`` holds its last five batches as plain tuples in
    ``BatchMetadata``'s field order (one tuple per append: no object is built on the
    Produce path); ``find_duplicate`` answers with a ``BatchMetadata``."""

    producer_id: int
    epoch: int = -1
    batches: deque = field(default_factory=lambda: deque(maxlen=NUM_BATCHES_TO_RETAIN))
    coordinator_epoch: int = -1
    current_txn_first_offset: int = -1
    last_timestamp: int = -1

    @property
    def last_seq(self) -> int:
        return self.batches[-1][1] if self.batches else -1

    @property
    def last_offset(self) -> int:
        return self.batches[-1][3] if self.batches else -1

    def find_duplicate(self, epoch: int, first_seq: int, last_seq: int) -> Optional[BatchMetadata]:
        if epoch != self.epoch:
            return None
        for b in self.batches:
            if b[0] == first_seq and b[1] == last_seq:
                return BatchMetadata(*b)
        return None


class _AfterWrite(enum.Enum):
    """The type of ``UPDATE_AFTER_WRITE`` (a one-member enum: a sentinel mypy can narrow)."""

    UPDATE = 0


# check_and_update's answer when ``update`` is due after the write
UPDATE_AFTER_WRITE: Final = _AfterWrite.UPDATE


def _in_sequence(last_seq: int, next_seq: int) -> bool:
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == INT32_MAX)


class ProducerStateManager:
    """See the module docstring."""

    def __init__(self, directory: Optional[str], producer_id_expiration_ms: int = 86400000):
        self.directory = directory
        self.producer_id_expiration_ms = producer_id_expiration_ms
        self.producers: dict[int, ProducerStateEntry] = {}
        self.ongoing_txns: dict[int, int] = {}  # first offset -> producer id
        # completed transactions whose marker is not below the high watermark yet:
        # first offset -> marker offset; they still hold the last stable offset back
        self.unreplicated_txns: dict[int, int] = {}
        self.map_end_offset = 0
        # offset of the newest snapshot on disk, or the log start offset when there is
        # none (Kafka's lastSnapOffset): a snapshot at or below it adds nothing
        self.last_snap_offset = -1

    # -- validation on the leader ------------------------------------------------------
    def find_duplicate(self, producer_id: int, epoch: int, first_seq: int, last_seq: int) -> Optional[BatchMetadata]:
        entry = self.producers.get(producer_id)
        return entry.find_duplicate(epoch, first_seq, last_seq) if entry else None

    def check(self, producer_id: int, epoch: int, first_seq: int, pending: Optional[dict] = None,
              is_transactional: bool = False, from_client: bool = True) -> None:
        """Raise unless a batch from (producer, epoch) starting at ``first_seq`` may follow.

        ``pending`` maps producer id -> (epoch, last seq) of batches earlier in the same
        append, not yet in the state.
        """
        entry = self.producers.get(producer_id)
        cur_epoch = entry.epoch if entry else -1
        if pending and producer_id in pending:
            p_epoch, p_last = pending[producer_id]
            cur_epoch_eff, last_seq, known = p_epoch, p_last, True
        else:
            cur_epoch_eff = cur_epoch
            last_seq = entry.last_seq if entry else -1
            known = entry is not None and entry.epoch >= 0
        if epoch < cur_epoch_eff:
            if from_client:
                raise InvalidProducerEpochError(
                    f"epoch {epoch} of producer {producer_id} is older than current {cur_epoch_eff}")
            return
        if not from_client:
            return
        if epoch != cur_epoch_eff:
            if first_seq != 0 and cur_epoch_eff != -1:
                raise OutOfOrderSequenceError(
                    f"producer {producer_id}: new epoch {epoch} must start at sequence 0, got {first_seq}")
        elif known and not _in_sequence(last_seq, first_seq):
            raise OutOfOrderSequenceError(
                f"producer {producer_id} epoch {epoch}: sequence {first_seq} after {last_seq}")

    def check_append(self, batches: Iterable[Union[tuple[HeaderTuple], tuple[int, int, int, int, HeaderTuple]]]
                     ) -> Optional[BatchMetadata]:
        """The producer rules for a client's append, in Kafka's order: a retry of one of
        a producer's last five batches is a duplicate (returned, nothing is written),
        otherwise each batch must continue its producer's sequence (raises).

        ``batches``: [(..., header tuple in RecordBatchHeader's order)], the header last.
        A lone batch goes through ``check_and_update`` instead.
        """
        pending: dict[int, tuple[int, int]] = {}
        for b in batches:
            h = b[-1]
            pid = h[PRODUCER_ID_FIELD]
            if pid < 0:
                continue
            epoch, first_seq = h[PRODUCER_EPOCH_FIELD], h[BASE_SEQUENCE_FIELD]
            last_seq = (first_seq + h[LAST_OFFSET_DELTA_FIELD]) & INT32_MAX
            entry = self.producers.get(pid)  # as Kafka: duplicates of what is in the state
            dup = entry.find_duplicate(epoch, first_seq, last_seq) if entry is not None else None
            if dup is not None:
                return dup
            self.check(pid, epoch, first_seq, pending)
            pending[pid] = (epoch, last_seq)
        return None

    def check_and_update(self, h: HeaderTuple, last_offset: int, timestamp: int
                         ) -> Union[BatchMetadata, Literal[_AfterWrite.UPDATE], None]:
        """The producer rules for a client's lone batch (header tuple ``h``, to be written
        with ``last_offset`` and max ``timestamp``), in one call and one lookup.

        Returns None when there is nothing left to do: no producer id, or a producer
        simply continuing its sequence in its epoch (neither a duplicate nor out of
        order, the common Produce), whose batch is recorded here, before the write (the
        Log calls ``forget_batch`` if the write fails); a ``BatchMetadata`` for a
        duplicate (nothing is written); ``UPDATE_AFTER_WRITE`` when ``check_append``'s
        rules passed and ``update`` is due once the batch is written. Raises as
        ``check_append``."""
        pid = h[PRODUCER_ID_FIELD]
        if pid < 0:
            return None
        entry = self.producers.get(pid)
        if (entry is not None and entry.epoch == h[PRODUCER_EPOCH_FIELD] and entry.batches
                and not h[ATTRIBUTES_FIELD] & TRANSACTIONAL_MASK):
            first_seq = h[BASE_SEQUENCE_FIELD]
            prev = entry.batches[-1][1]
            if first_seq == prev + 1 or (first_seq == 0 and prev == INT32_MAX):  # _in_sequence, inline
                lod = h[LAST_OFFSET_DELTA_FIELD]
                entry.batches.append((first_seq, (first_seq + lod) & INT32_MAX, last_offset - lod, last_offset,
                                      timestamp))
                entry.last_timestamp = timestamp
                if last_offset >= self.map_end_offset:
                    self.map_end_offset = last_offset + 1
                return None
        dup = self.check_append(((h,),))
        return UPDATE_AFTER_WRITE if dup is None else dup

    def forget_batch(self, h: HeaderTuple) -> None:
        """Undo ``check_and_update``'s record of batch ``h`` whose write failed."""
        entry = self.producers.get(h[PRODUCER_ID_FIELD])
        if entry is not None and entry.batches and entry.batches[-1][0] == h[BASE_SEQUENCE_FIELD]:
            entry.batches.pop()

    # -- updates -------------------------------------------------------------------------
    def update(self, h: HeaderTuple, first_offset: int, last_offset: int, timestamp: int) -> None:
        """Record a data batch of a producer as written: ``h`` is its header tuple in
        RecordBatchHeader's order, the offsets and max timestamp those in the log."""
        producer_id, epoch, first_seq = h[PRODUCER_ID_FIELD], h[PRODUCER_EPOCH_FIELD], h[BASE_SEQUENCE_FIELD]
        entry = self.producers.get(producer_id)
        if entry is None:
            entry = self.producers[producer_id] = ProducerStateEntry(producer_id)
        if epoch != entry.epoch:
            entry.epoch = epoch
            entry.batches.clear()
        if first_seq >= 0:
            last_seq = (first_seq + h[LAST_OFFSET_DELTA_FIELD]) & INT32_MAX
            entry.batches.append((first_seq, last_seq, first_offset, last_offset, timestamp))
        entry.last_timestamp = timestamp
        if h[ATTRIBUTES_FIELD] & TRANSACTIONAL_MASK and entry.current_txn_first_offset < 0:
            entry.current_txn_first_offset = first_offset
            self.ongoing_txns[first_offset] = producer_id
        if last_offset >= self.map_end_offset:
            self.map_end_offset = last_offset + 1

    def update_client_batches(self, batches: Iterable[tuple[int, int, int, int, HeaderTuple]]) -> None:
        """``update`` for each producer batch of a client's append, as written:
        ``batches`` as the validator gives them, (position, size, last offset, max
        timestamp, header). A client writes no control batches (the validator refuses
        them). One call per append; the common batch, a producer continuing in its
        epoch, costs one lookup and one tuple."""
        for _, _, last_offset, timestamp, h in batches:
            entry = self.producers.get(h[PRODUCER_ID_FIELD])
            if (entry is not None and entry.epoch == h[PRODUCER_EPOCH_FIELD]
                    and not h[ATTRIBUTES_FIELD] & TRANSACTIONAL_MASK):
                first_seq = h[BASE_SEQUENCE_FIELD]
                lod = h[LAST_OFFSET_DELTA_FIELD]
                entry.batches.append((first_seq, (first_seq + lod) & INT32_MAX, last_offset - lod, last_offset,
                                      timestamp))
                entry.last_timestamp = timestamp
                if last_offset >= self.map_end_offset:
                    self.map_end_offset = last_offset + 1
            elif h[PRODUCER_ID_FIELD] >= 0:
                self.update(h, last_offset - h[LAST_OFFSET_DELTA_FIELD], last_offset, timestamp)

    def replay_batch(self, seg: LogSegment, h: HeaderTuple, base: int, last: int, ts: int,
                     buf: Optional[bytes | bytearray | memoryview], pos: int) -> None:
        """Apply one written batch of a producer (``h[PRODUCER_ID_FIELD]`` >= 0): ``update``, or for a
        control batch its marker (an abort also enters ``seg``'s transaction index).

        ``h``: a header tuple in RecordBatchHeader's order; ``base``, ``last``, ``ts``: the
        offsets and max timestamp as written; the batch's bytes are at ``pos`` in ``buf``,
        or in ``seg`` when ``buf`` is None (only a control batch is read)."""
        if not h[ATTRIBUTES_FIELD] & CONTROL_MASK:
            self.update(h, base, last, ts)
            return
        size = h[BATCH_LENGTH_FIELD] + LOG_OVERHEAD
        try:
            data = seg.read_batch(pos, size) if buf is None else bytes(buf[pos:pos + size])
            _, recs = decode_batch(data, 0, verify=False)
            ctrl = parse_control_record(recs[0]) if recs else None
        except ProtocolError:
            ctrl = None
        if ctrl is not None and ctrl.type in (0, 1):
            pid = h[PRODUCER_ID_FIELD]
            first = self.complete_txn(pid, h[PRODUCER_EPOCH_FIELD], ctrl.coordinator_epoch, base, ts)
            if ctrl.type == 0 and first is not None:
                lso = self.first_ongoing_offset()
                seg.txn_index.append(AbortedTxn(pid, first, base, min(lso, base) if lso is not None else base))

    def marker_refusal(self, producer_id: int, epoch: int, coordinator_epoch: int,
                       transaction_version: int = 0) -> Optional[ErrorCode]:
        """Why a coordinator's marker for ``producer_id`` may not be written here (Kafka's
        appendEndTxnMarker checks), or None: INVALID_PRODUCER_EPOCH for an epoch older than
        the producer's, TRANSACTION_COORDINATOR_FENCED for a coordinator epoch older than
        the last marker's. A replicated marker is never refused.

        A transaction version 2 marker carries the epoch bumped past its transaction's
        batches, so its epoch must be above the producer's: the same epoch is refused when
        a transaction of that epoch is open here (a newer transaction the marker must not
        end), and allowed as a retry of a marker already written otherwise."""
        entry = self.producers.get(producer_id)
        if entry is None:
            return None
        if epoch < entry.epoch:
            return ErrorCode.INVALID_PRODUCER_EPOCH
        if (transaction_version >= 2 and epoch == entry.epoch
                and entry.current_txn_first_offset >= 0 and epoch != 32767):
            return ErrorCode.INVALID_PRODUCER_EPOCH
        if coordinator_epoch < entry.coordinator_epoch:
            return ErrorCode.TRANSACTION_COORDINATOR_FENCED
        return None

    def epoch_refusal(self, producer_id: int, epoch: int) -> Optional[ErrorCode]:
        """INVALID_PRODUCER_EPOCH for a batch of ``producer_id`` older than its epoch (a
        coordinator's transactional append, TxnOffsetCommit: no coordinator epoch to check)."""
        entry = self.producers.get(producer_id)
        return ErrorCode.INVALID_PRODUCER_EPOCH if entry is not None and epoch < entry.epoch else None

    def complete_txn(self, producer_id: int, epoch: int, coordinator_epoch: int,
                     marker_offset: int, timestamp: int) -> Optional[int]:
        """A commit/abort marker: close the producer's open transaction; its first offset."""
        entry = self.producers.get(producer_id)
        if entry is None:
            entry = self.producers[producer_id] = ProducerStateEntry(producer_id, epoch=epoch)
        if epoch > entry.epoch:
            entry.epoch = epoch
            entry.batches.clear()
        first = entry.current_txn_first_offset
        if first >= 0:
            self.ongoing_txns.pop(first, None)
            self.unreplicated_txns[first] = marker_offset
        entry.current_txn_first_offset = -1
        entry.coordinator_epoch = coordinator_epoch
        entry.last_timestamp = timestamp
        if marker_offset + 1 > self.map_end_offset:
            self.map_end_offset = marker_offset + 1
        return first if first >= 0 else None

    def first_unstable_offset(self) -> Optional[int]:
        """First offset of the oldest transaction that is open or whose marker is not
        replicated yet (the last stable offset is at most this); None if none."""
        if not self.unreplicated_txns:
            return self.first_ongoing_offset()
        first = min(self.unreplicated_txns)
        return min(first, min(self.ongoing_txns)) if self.ongoing_txns else first

    def first_ongoing_offset(self) -> Optional[int]:
        """First offset of the oldest open transaction; None if none."""
        return min(self.ongoing_txns) if self.ongoing_txns else None

    def on_high_watermark_updated(self, high_watermark: int) -> None:
        """Forget completed transactions whose marker is below ``high_watermark`` (Kafka's
        ``onHighWatermarkUpdated``): they no longer hold the last stable offset back."""
        if self.unreplicated_txns:
            for first, marker in list(self.unreplicated_txns.items()):
                if marker < high_watermark:
                    del self.unreplicated_txns[first]

    def remove_expired(self, now_ms: int) -> None:
        expired = [pid for pid, e in self.producers.items()
                   if e.current_txn_first_offset < 0 and now_ms - e.last_timestamp >= self.producer_id_expiration_ms]
        for pid in expired:
            del self.producers[pid]

    def clear(self, offset: int = 0) -> None:
        self.producers.clear()
        self.ongoing_txns.clear()
        self.unreplicated_txns.clear()
        self.map_end_offset = offset

    # -- snapshots -------------------------------------------------------------------------
    def _snapshot_path(self, offset: int) -> str:
        assert self.directory is not None  # only called for a manager with a directory
        return os.path.join(self.directory, f"{offset:020d}{SNAPSHOT_SUFFIX}")

    def snapshot_offsets(self) -> list[int]:
        if not self.directory or not os.path.isdir(self.directory):
            return []
        out = []
        for name in os.listdir(self.directory):
            if name.endswith(SNAPSHOT_SUFFIX):
                try:
                    out.append(int(name[: -len(SNAPSHOT_SUFFIX)]))
                except ValueError:
                    continue
        return sorted(out)

    def encode_snapshot(self) -> bytes:
        body = bytearray(_INT32.pack(len(self.producers)))
        for pid, e in sorted(self.producers.items()):
            last = e.batches[-1] if e.batches else None
            body += _SNAP_ENTRY.pack(
                pid, e.epoch,
                last[1] if last else -1,
                last[3] if last else -1,
                (last[1] - last[0]) if last else 0,
                e.last_timestamp,
                e.coordinator_epoch,
                e.current_txn_first_offset,
            )
        return _SNAP_HEAD.pack(1, crc32c.crc32c(bytes(body))) + bytes(body)

    def take_snapshot(self, offset: Optional[int] = None, pending: Optional[PendingFsyncs] = None) -> None:
        """Write the state as of ``offset`` (default: map end offset), unless a snapshot
        at or after it exists or the log holds nothing since its start (as Kafka: a clean
        shutdown of many idle partitions writes no file). With ``pending`` the file is
        fsynced by its next flush instead of here."""
        if not self.directory:
            return
        offset = self.map_end_offset if offset is None else offset
        if offset <= self.last_snap_offset:
            return
        atomic_write(self._snapshot_path(offset), self.encode_snapshot(), pending)
        self.last_snap_offset = offset

    @staticmethod
    def decode_snapshot(data: bytes) -> list[ProducerStateEntry]:
        if len(data) < _SNAP_HEAD.size + 4:
            raise CorruptSnapshotError("snapshot too short")
        version, crc = _SNAP_HEAD.unpack_from(data, 0)
        if version != 1:
            raise CorruptSnapshotError(f"snapshot version {version}")
        if crc32c.crc32c(data[_SNAP_HEAD.size:]) != crc:
            raise CorruptSnapshotError("snapshot CRC mismatch")
        (count,) = _INT32.unpack_from(data, _SNAP_HEAD.size)
        pos = _SNAP_HEAD.size + 4
        if count < 0 or len(data) != pos + count * _SNAP_ENTRY.size:
            raise CorruptSnapshotError("snapshot length mismatch")
        out = []
        for _ in range(count):
            pid, epoch, last_seq, last_off, delta, ts, coord, txn_first = _SNAP_ENTRY.unpack_from(data, pos)
            pos += _SNAP_ENTRY.size
            e = ProducerStateEntry(pid, epoch=epoch, coordinator_epoch=coord,
                                   current_txn_first_offset=txn_first, last_timestamp=ts)
            if last_seq >= 0:
                e.batches.append((last_seq - delta, last_seq, last_off - delta, last_off, ts))
            out.append(e)
        return out

    def load_latest_snapshot(self, max_offset: int, now_ms: int) -> Optional[int]:
        """Load the newest valid snapshot at or below ``max_offset``; its offset or None."""
        for off in reversed(self.snapshot_offsets()):
            if off > max_offset:
                continue
            path = self._snapshot_path(off)
            try:
                with open(path, "rb") as f:
                    entries = self.decode_snapshot(f.read())
            except (CorruptSnapshotError, OSError) as e:
                log.warning("deleting unreadable producer snapshot %s: %s", path, e)
                self._unlink(path)
                continue
            self.clear(off)
            self.last_snap_offset = off
            for entry in entries:
                if (entry.current_txn_first_offset < 0
                        and now_ms - entry.last_timestamp >= self.producer_id_expiration_ms):
                    continue
                self.producers[entry.producer_id] = entry
                if entry.current_txn_first_offset >= 0:
                    self.ongoing_txns[entry.current_txn_first_offset] = entry.producer_id
            return off
        return None

    def delete_snapshots_above(self, offset: int) -> None:
        for off in self.snapshot_offsets():
            if off > offset:
                self._unlink(self._snapshot_path(off))
        self.last_snap_offset = min(self.last_snap_offset, offset)

    def delete_snapshots_below(self, offset: int) -> None:
        """Remove snapshots older than ``offset`` (log start moved), keeping the newest."""
        offs = self.snapshot_offsets()
        for off in offs[:-1]:
            if off < offset:
                self._unlink(self._snapshot_path(off))

    @staticmethod
    def _unlink(path: str) -> None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
