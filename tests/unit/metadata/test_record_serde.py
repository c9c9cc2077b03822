"""MetadataRecordSerde framing and metadata batches, against bytes Apache Kafka 4.4 wrote."""

from __future__ import annotations

import pytest

from kafpy.protocol.compression import GZIP
from kafpy.protocol.errors import CorruptRecord
from kafpy.protocol.messages import (
    FeatureLevelRecord,
    PartitionRecord,
    TopicRecord,
    UserScramCredentialRecord,
)
from kafpy.protocol.records import parse_header
from kafpy.metadata.record_serde import (
    METADATA_RECORD_TYPES,
    ApiMessageAndVersion,
    MetadataParseError,
    build_metadata_batch,
    decode_metadata_batch,
    read_metadata_batches,
    read_record,
    write_record,
)
from kafpy.raft.control_records import build_control_record_batch
from kafpy.protocol.messages import SnapshotFooterRecord

# The data batch of the bootstrap snapshot Apache Kafka 4.4.0's `kafka-storage format` wrote
# (metadata.version 4.4-IV2 = level 33 and the default levels of the other features).
APACHE_FEATURES_BATCH = bytes.fromhex(
    "0000000000000003000000f10000000002bbe8a0ca000000000005000001a22429d27a000001a22429d27affffffffffffff"
    "ffffffffffffff000000063a000000012e010c00116d657461646174612e76657273696f6e002100005a000002014e010c00"
    "21656c696769626c652e6c65616465722e7265706c696361732e76657273696f6e00010000340000040128010c000e67726f"
    "75702e76657273696f6e00010000340000060128010c000e73686172652e76657273696f6e0002000038000008012c010c00"
    "1073747265616d732e76657273696f6e000100004000000a0134010c00147472616e73616374696f6e2e76657273696f6e00"
    "020000"
)
APACHE_FEATURES = [("metadata.version", 33), ("eligible.leader.replicas.version", 1), ("group.version", 1),
                   ("share.version", 2), ("streams.version", 1), ("transaction.version", 2)]


def _features() -> list[ApiMessageAndVersion]:
    return [ApiMessageAndVersion(FeatureLevelRecord(name=n, feature_level=lvl), 0) for n, lvl in APACHE_FEATURES]


def test_record_frame() -> None:
    rec = ApiMessageAndVersion(FeatureLevelRecord(name="metadata.version", feature_level=33), 0)
    assert write_record(rec) == b"\x01\x0c\x00\x11metadata.version\x00!\x00"
    assert read_record(write_record(rec)) == rec


def test_table_is_kafkas_record_types() -> None:
    assert METADATA_RECORD_TYPES[0].NAME == "RegisterBrokerRecord"
    assert METADATA_RECORD_TYPES[2] is TopicRecord
    assert METADATA_RECORD_TYPES[3] is PartitionRecord
    assert METADATA_RECORD_TYPES[12] is FeatureLevelRecord
    assert METADATA_RECORD_TYPES[11] is UserScramCredentialRecord
    assert 6 not in METADATA_RECORD_TYPES and 13 not in METADATA_RECORD_TYPES


def test_features_batch_is_apaches_bytes() -> None:
    built = build_metadata_batch(_features(), base_offset=3, append_time=1795903050362, leader_epoch=0)
    assert built == APACHE_FEATURES_BATCH
    header, records = decode_metadata_batch(APACHE_FEATURES_BATCH)
    assert header.base_offset == 3 and header.last_offset == 8
    assert records == _features()


def test_compressed_batch_round_trips() -> None:
    recs = [ApiMessageAndVersion(TopicRecord(name=f"t{i}", topic_id=bytes([i]) * 16), 0) for i in range(20)]
    batch = build_metadata_batch(recs, base_offset=0, append_time=5, leader_epoch=2, compression=GZIP)
    assert parse_header(batch).compression == GZIP
    assert decode_metadata_batch(batch)[1] == recs


def test_read_mixed_batches() -> None:
    blob = APACHE_FEATURES_BATCH + build_control_record_batch(
        SnapshotFooterRecord(), base_offset=9, timestamp=1, leader_epoch=0)
    batches = read_metadata_batches(blob)
    assert [b.is_control for b in batches] == [False, True]
    assert batches[0].records == _features() and batches[1].records == []
    assert batches[1].control_records[0].message == SnapshotFooterRecord()


@pytest.mark.parametrize("value, message", [
    (b"\x00\x0c\x00", "frame version 0"),
    (b"\x02\x0c\x00", "unknown frame version 2"),
    (b"\x01\x06\x00\x00", "Unknown metadata id 6"),
    (b"\x01\x0c\x05\x00", "Can't read version 5 of FeatureLevelRecord"),
    (b"\x01\xff\xff\x03\x00", "Value for type was too large"),
    (b"\x01", "Error while reading type"),
    (b"\x01\x0c\x00\x11metadata.version\x00!\x00\x00", "1 byte\\(s\\) of garbage after 12"),
    (b"\x01\x0c\x00\x11metadata", "Failed to deserialize record with type 12"),
])
def test_bad_values(value: bytes, message: str) -> None:
    with pytest.raises(MetadataParseError, match=message):
        read_record(value)


def test_control_batch_is_not_metadata_records() -> None:
    footer = build_control_record_batch(SnapshotFooterRecord(), base_offset=0, timestamp=1, leader_epoch=0)
    with pytest.raises(CorruptRecord, match="is a control batch"):
        decode_metadata_batch(footer)


def test_keyed_record_is_refused() -> None:
    from kafpy.protocol.batch_builder import build_batch
    bad = build_batch([(b"k", write_record(_features()[0]))], base_timestamp=0)
    with pytest.raises(CorruptRecord, match="Got key in the record"):
        decode_metadata_batch(bad)


def test_not_a_metadata_record() -> None:
    with pytest.raises(TypeError):
        write_record(ApiMessageAndVersion(SnapshotFooterRecord(), 0))
