"""Reading the KRaft log's batches, as Kafka's raft ``RecordsIterator``: each batch of a
records blob (a ``__cluster_metadata-0`` segment, a ``.checkpoint`` snapshot, a Fetch
response) as a ``Batch`` of decoded control records or of data records.

Who calls it: the snapshot reader (``kafpy.raft.snapshot``), tools that dump the log, and
``kafpy.metadata`` with its serde for the data records. Raft does not know what the data
records mean: the caller passes ``read_value`` (the bytes of a record's value to a record;
``MetadataRecordSerde.read`` for the metadata log). The CRC of every batch is checked, and
every record must have a zero timestamp delta and no headers, as Kafka demands; data records
have a null key and a non-empty value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, Iterator, TypeVar

from kafpy.protocol.batch_header import RecordBatchHeader, iter_batches
from kafpy.protocol.errors import CorruptRecord
from kafpy.protocol.record_decoder import decode_records
from kafpy.raft.control_records import ControlRecord, check_kraft_record, decode_control_record

__all__ = ["Batch", "read_batches", "decode_data_values"]

T = TypeVar("T")
Buffer = bytes | bytearray | memoryview


@dataclass(frozen=True)
class Batch(Generic[T]):
    """One batch as Kafka's raft ``Batch``: its header (base offset, epoch, timestamps) and
    either its data records (``records``) or, for a control batch, its control records."""

    header: RecordBatchHeader
    records: list[T]
    control_records: list[ControlRecord]

    @property
    def base_offset(self) -> int:
        return self.header.base_offset

    @property
    def last_offset(self) -> int:
        return self.header.last_offset

    @property
    def epoch(self) -> int:
        return self.header.partition_leader_epoch

    @property
    def is_control(self) -> bool:
        return self.header.is_control


def decode_data_values(buf: Buffer, pos: int, header: RecordBatchHeader) -> list[bytes]:
    """The values of the data batch at ``pos`` (CRC checked), each record checked as Kafka's
    ``RecordsIterator.decodeDataRecord`` does."""
    values: list[bytes] = []
    for record in decode_records(buf, pos, header):
        check_kraft_record(record)
        if record.key is not None:
            raise CorruptRecord("Got key in the record when no key was expected")
        if record.value is None:
            raise CorruptRecord("Missing value in the record when a value was expected")
        if len(record.value) == 0:
            raise CorruptRecord("Got an unexpected empty value in the record")
        values.append(record.value)
    return values


def read_batches(buf: Buffer, read_value: Callable[[bytes], T]) -> Iterator[Batch[T]]:
    """Every batch of ``buf`` in order. A partial batch at the end raises ``CorruptRecord``
    (a snapshot or a flushed segment never ends in one); so do a bad CRC and bad records."""
    for pos, header in iter_batches(buf, strict=True):
        if header.is_control:
            controls = [decode_control_record(r) for r in decode_records(buf, pos, header)]
            yield Batch(header, [], controls)
        else:
            yield Batch(header, [read_value(v) for v in decode_data_values(buf, pos, header)], [])
