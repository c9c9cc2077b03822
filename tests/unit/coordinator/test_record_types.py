"""The one table of record types (coordinator/record_types.py) against the generated key
classes and the readers of each group kind."""
from __future__ import annotations

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.codec import encode_data

from kafpy.coordinator.group import records as classic_records
from kafpy.coordinator.group.consumer import records as consumer_records
from kafpy.coordinator.group.share import records as share_records
from kafpy.coordinator.group.streams import records as streams_records
from kafpy.coordinator.record_types import (
    CLASSIC_GROUP_RECORDS, CONSUMER_GROUP_RECORDS, MODERN_GROUP_RECORDS, SHARE_GROUP_RECORDS,
    STREAMS_GROUP_RECORDS, GroupRecordType, ShareStateRecordType, TransactionRecordType)
from kafpy.coordinator.share_state import records as share_state_records
from kafpy.coordinator.transaction import records as txn_records


def _key_class(t: GroupRecordType) -> type:
    """The generated key class of a type (0 and 1 share OffsetCommitKey)."""
    if t == GroupRecordType.LEGACY_OFFSET_COMMIT:
        return M.OffsetCommitKey
    return getattr(M, "".join(w.capitalize() for w in t.name.split("_")) + "Key")


@pytest.mark.parametrize("t", list(GroupRecordType), ids=lambda t: t.name)
def test_each_type_is_its_key_class_version(t: GroupRecordType) -> None:
    low, high = getattr(_key_class(t), "VALID_VERSIONS")
    assert low <= t.value <= high


def test_every_type_belongs_to_exactly_one_kind() -> None:
    kinds = [CLASSIC_GROUP_RECORDS, CONSUMER_GROUP_RECORDS, SHARE_GROUP_RECORDS, STREAMS_GROUP_RECORDS]
    assert sum(len(k) for k in kinds) == len(GroupRecordType)
    assert frozenset().union(*kinds) == frozenset(GroupRecordType)
    assert MODERN_GROUP_RECORDS == frozenset(GroupRecordType) - CLASSIC_GROUP_RECORDS


def test_the_kinds_read_the_tables_types() -> None:
    assert consumer_records.CONSUMER_KEY_VERSIONS is CONSUMER_GROUP_RECORDS
    assert share_records.SHARE_KEY_VERSIONS is SHARE_GROUP_RECORDS
    assert streams_records.STREAMS_KEY_VERSIONS is STREAMS_GROUP_RECORDS
    assert share_state_records.SHARE_SNAPSHOT == ShareStateRecordType.SHARE_SNAPSHOT == 0
    assert share_state_records.SHARE_UPDATE == ShareStateRecordType.SHARE_UPDATE == 1
    assert txn_records.KEY_VERSION == TransactionRecordType.TRANSACTION_LOG == 0


@pytest.mark.parametrize("t", sorted(MODERN_GROUP_RECORDS), ids=lambda t: t.name)
def test_the_classic_reader_passes_over_every_modern_type(t: GroupRecordType) -> None:
    key = _key_class(t)(group_id="g")
    assert classic_records.decode_key(t.to_bytes(2, "big") + encode_data(key, t.value)) is None


def test_the_classic_reader_refuses_a_type_outside_the_table() -> None:
    with pytest.raises(ValueError, match="unknown __consumer_offsets key version 18"):
        classic_records.decode_key((18).to_bytes(2, "big") + b"\x00")


def test_the_classic_keys_are_written_at_the_tables_versions() -> None:
    assert classic_records.encode_offset_commit_key("g", "t", 0)[:2] == (1).to_bytes(2, "big")
    assert classic_records.encode_group_metadata_key("g")[:2] == (2).to_bytes(2, "big")
