"""Keys and values of `__transaction_state` records, in Kafka's formats.

Key: int16 version 0 + TransactionLogKey (the transactional id). Value: int16 version +
TransactionLogValue, written as Kafka 4.x writes it: version 0 while the cluster's
`transaction.version` is 0, else version 1 with the tagged PreviousProducerId,
NextProducerId and ClientTransactionVersion (what a coordinator taking over needs to
finish a version 2 transaction whose epoch ran out); read at 0 or 1. A tombstone (value None) removes an expired transactional id. Empty
transactions are written with null partitions, as Kafka does.

Who calls it: the TransactionCoordinator (writes) and its loader (replay). Pure.
"""

from __future__ import annotations

import struct
from itertools import groupby

from kafpy.protocol import messages
from kafpy.protocol.codec import decode_data, encode_data

from kafpy.coordinator.record_types import TransactionRecordType
from kafpy.coordinator.transaction.state import TxnState, TxnTransit

_I16 = struct.Struct(">h")
KEY_VERSION = TransactionRecordType.TRANSACTION_LOG
VALUE_VERSION = 0


def encode_key(transactional_id: str) -> bytes:
    return _I16.pack(KEY_VERSION) + encode_data(
        messages.TransactionLogKey(transactional_id=transactional_id), KEY_VERSION)


def decode_key(data: bytes) -> str:
    """The transactional id of a key; ValueError for a version Kafka does not write."""
    (version,) = _I16.unpack_from(data, 0)
    if version != KEY_VERSION:
        raise ValueError(f"unknown transaction log key version {version}")
    return decode_data(messages.TransactionLogKey, version, memoryview(data)[2:]).transactional_id


def value_version(transaction_version_level: int) -> int:
    """The TransactionLogValue version Kafka writes at a finalized transaction.version
    (TransactionVersion.transactionLogValueVersion)."""
    return 1 if transaction_version_level >= 1 else 0


def encode_value(t: TxnTransit, version: int = VALUE_VERSION) -> bytes:
    if t.state == TxnState.EMPTY:
        partitions = None
    else:
        ordered = sorted(t.partitions)
        partitions = [messages.TransactionLogValue.PartitionsSchema(
            topic=topic, partition_ids=[p for _, p in group])
            for topic, group in groupby(ordered, key=lambda tp: tp[0])]
    value = messages.TransactionLogValue(
        producer_id=t.producer_id,
        previous_producer_id=t.previous_producer_id if version >= 1 else -1,
        next_producer_id=t.next_producer_id if version >= 1 else -1,
        producer_epoch=t.producer_epoch,
        transaction_timeout_ms=t.txn_timeout_ms, transaction_status=int(t.state),
        transaction_partitions=partitions,
        transaction_last_update_timestamp_ms=t.txn_last_update_timestamp,
        transaction_start_timestamp_ms=t.txn_start_timestamp,
        client_transaction_version=t.client_transaction_version)
    return _I16.pack(version) + encode_data(value, version)


def decode_value(data: bytes) -> TxnTransit:
    """The state a value records. Version 0 carries no previous producer id: the
    producer id stands in for it. The last epoch is never written, so a retried
    InitProducerId spanning a coordinator move is fenced (as in Kafka)."""
    (version,) = _I16.unpack_from(data, 0)
    if version not in (0, 1):
        raise ValueError(f"unknown transaction log value version {version}")
    v = decode_data(messages.TransactionLogValue, version, memoryview(data)[2:])
    partitions = frozenset((p.topic, i) for p in (v.transaction_partitions or [])
                           for i in p.partition_ids)
    previous = v.previous_producer_id if version >= 1 and v.previous_producer_id >= 0 \
        else v.producer_id
    return TxnTransit(
        producer_id=v.producer_id, previous_producer_id=previous,
        next_producer_id=v.next_producer_id if version >= 1 else -1,
        producer_epoch=v.producer_epoch, last_producer_epoch=-1,
        txn_timeout_ms=v.transaction_timeout_ms, state=TxnState(v.transaction_status),
        partitions=partitions, txn_start_timestamp=v.transaction_start_timestamp_ms,
        txn_last_update_timestamp=v.transaction_last_update_timestamp_ms,
        client_transaction_version=v.client_transaction_version if version >= 1 else 0)
