"""Where the coordinator persists: one `__consumer_offsets` partition per group.

`OffsetsLog` is the small interface the state machine writes through; the broker's
implementation (`StorageOffsetsLog`) turns each append into one magic-2 record batch
on the partition's storage.Log, and `read` replays a partition from its log start.
`InMemoryOffsetsLog` serves the unit tests and keeps nothing on disk.
"""

from __future__ import annotations

from typing import Iterable, Protocol, Sequence

from coordinator import errors

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


class StorageOffsetsLog:
    """OffsetsLog over the broker's storage: partition p is the storage.Log of
    `__consumer_offsets-p`, created compacted on first use through the LogManager."""

    def __init__(self, log_manager, log_config_factory, leader_epoch=lambda p: 0) -> None:
        self._log_manager = log_manager
        self._log_config_factory = log_config_factory
        self._leader_epoch = leader_epoch

    def _log(self, partition: int, create: bool):
        from coordinator.partitioner import GROUP_METADATA_TOPIC_NAME
        if not create:
            return self._log_manager.get_log(GROUP_METADATA_TOPIC_NAME, partition)
        return self._log_manager.get_or_create_log(
            GROUP_METADATA_TOPIC_NAME, partition, self._log_config_factory())

    def append(self, partition: int, records: Sequence[Record], timestamp_ms: int) -> None:
        from protocol.records import Record as BatchRecord, build_batch
        batch_records = [
            BatchRecord(offset_delta=i, timestamp_delta=0, key=k, value=v, headers=[],
                        attributes=0)
            for i, (k, v) in enumerate(records)]
        try:
            batch = build_batch(batch_records, base_offset=0, base_timestamp=timestamp_ms,
                                max_timestamp=timestamp_ms)
        except TypeError:
            batch = build_batch(batch_records, base_offset=0)
        try:
            log = self._log(partition, create=True)
            info = log.append_as_leader(bytearray(batch), self._leader_epoch(partition))
            # A single broker is its own ISR: the high watermark follows the log end.
            update = getattr(log, "update_high_watermark", None)
            if callable(update) and getattr(info, "last_offset", None) is not None:
                update(info.last_offset + 1)
        except OffsetsLogError:
            raise
        except Exception as e:  # storage errors carry a protocol ErrorCode
            code = getattr(e, "error_code", None)
            raise OffsetsLogError(int(code) if code is not None
                                  else errors.UNKNOWN_SERVER_ERROR, str(e)) from e

    def read(self, partition: int) -> Iterable[Record]:
        from protocol.records import decode_batch, iter_batches
        log = self._log(partition, create=False)
        if log is None:
            return
        offset = log.log_start_offset
        end = log.log_end_offset
        while offset < end:
            data = log.read(offset, 1 << 20, None, True)
            if data is None or data.records is None or data.records.size == 0:
                break
            buf = data.records.read_bytes()
            last = None
            for pos, header in iter_batches(buf):
                last = header.last_offset
                if header.is_control:
                    continue
                _, recs = decode_batch(buf, pos)
                for r in recs:
                    if header.base_offset + r.offset_delta < offset:
                        continue
                    if r.key is None:
                        continue
                    yield (bytes(r.key), None if r.value is None else bytes(r.value))
            if last is None:
                break
            offset = last + 1
