"""KRaft control batches: byte for byte what Apache Kafka 4.4 writes, and read back strictly."""

from __future__ import annotations

import uuid

import pytest

from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.errors import CorruptRecord
from kafpy.protocol.messages import (
    KRaftVersionRecord,
    LeaderChangeMessage,
    SnapshotFooterRecord,
    SnapshotHeaderRecord,
    VotersRecord,
)
from kafpy.protocol.records import Record, decode_batch, parse_header
from kafpy.raft.control_records import (
    ControlMessage,
    ControlRecord,
    ControlRecordType,
    build_control_record_batch,
    control_record_key,
    decode_control_batch,
    decode_control_record,
    parse_control_record_type,
)

# The first and last batches of the bootstrap snapshot `kafka-storage format --standalone`
# (Apache Kafka 4.4.0) wrote for node 1, controller listener CONTROLLER://127.0.0.1:19093.
APACHE_HEADER_BATCH = bytes.fromhex(
    "00000000000000000000009a0000000002067bcd9a002000000002000001a22429d254000001a22429d254"
    "ffffffffffffffffffffffffffff000000032a0000000800000003160000000001a22429d24100001e0000"
    "0208000000050a000000010000820100000408000000066e0000020000000129f3463404b745b1a837118a"
    "a6d1f6ba020b434f4e54524f4c4c45520a3132372e302e302e314a95000000000100000000"
)
APACHE_FOOTER_BATCH = bytes.fromhex(
    "00000000000000090000003f00000000025fbbe2ec002000000000000001a22429d27b000001a22429d27b"
    "ffffffffffffffffffffffffffff000000011a00000008000000040600000000"
)
DIRECTORY_ID = bytes.fromhex("29f3463404b745b1a837118aa6d1f6ba")


def _standalone_voters() -> VotersRecord:
    return VotersRecord(version=0, voters=[VotersRecord.Voter(
        voter_id=1,
        voter_directory_id=DIRECTORY_ID,
        endpoints=[VotersRecord.Endpoint(name="CONTROLLER", host="127.0.0.1", port=19093)],
        k_raft_version_feature=VotersRecord.KRaftVersionFeature(min_supported_version=0,
                                                                max_supported_version=1),
    )])


def test_snapshot_first_batch_is_apaches_bytes() -> None:
    messages: list[ControlMessage] = [
        SnapshotHeaderRecord(version=0, last_contained_log_timestamp=1795903050305),
        KRaftVersionRecord(version=0, k_raft_version=1),
        _standalone_voters(),
    ]
    built = build_control_record_batch(messages, base_offset=0, timestamp=1795903050324, leader_epoch=0)
    assert built == APACHE_HEADER_BATCH


def test_footer_batch_is_apaches_bytes() -> None:
    built = build_control_record_batch(SnapshotFooterRecord(version=0), base_offset=9,
                                       timestamp=1795903050363, leader_epoch=0)
    assert built == APACHE_FOOTER_BATCH


def test_apaches_batch_decodes() -> None:
    header, records = decode_control_batch(APACHE_HEADER_BATCH)
    assert header.is_control and not header.is_transactional
    assert (header.producer_id, header.producer_epoch, header.base_sequence) == (-1, -1, -1)
    assert [r.type for r in records] == [ControlRecordType.SNAPSHOT_HEADER, ControlRecordType.KRAFT_VERSION,
                                         ControlRecordType.KRAFT_VOTERS]
    assert records[0].message == SnapshotHeaderRecord(version=0, last_contained_log_timestamp=1795903050305)
    assert records[1].message == KRaftVersionRecord(version=0, k_raft_version=1)
    assert records[2].message == _standalone_voters()
    assert str(uuid.UUID(bytes=DIRECTORY_ID))  # a real directory id, not zeros


def test_leader_change_round_trip_and_header_fields() -> None:
    msg = LeaderChangeMessage(version=0, leader_id=3,
                              voters=[LeaderChangeMessage.Voter(voter_id=i) for i in (1, 2, 3)],
                              granting_voters=[LeaderChangeMessage.Voter(voter_id=3)])
    batch = build_control_record_batch(msg, base_offset=42, timestamp=1000, leader_epoch=7)
    header = parse_header(batch)
    assert (header.base_offset, header.partition_leader_epoch, header.base_timestamp,
            header.max_timestamp, header.compression, header.timestamp_type) == (42, 7, 1000, 1000, 0, 0)
    assert header.attributes == 0x20
    _h, records = decode_control_batch(batch)
    assert records == [ControlRecord(ControlRecordType.LEADER_CHANGE, msg)]


def test_leader_change_needs_an_epoch() -> None:
    with pytest.raises(ValueError, match="Partition leader epoch must be valid"):
        build_control_record_batch(LeaderChangeMessage(leader_id=1), base_offset=0, timestamp=0, leader_epoch=-1)


def test_key_is_version_zero_and_type() -> None:
    assert control_record_key(ControlRecordType.KRAFT_VOTERS) == b"\x00\x00\x00\x06"
    assert parse_control_record_type(b"\x00\x01\x00\x02") == 2  # a newer key version reads as v0
    with pytest.raises(CorruptRecord, match="at least 4 bytes"):
        parse_control_record_type(b"\x00\x00\x02")
    with pytest.raises(CorruptRecord, match="Invalid version"):
        parse_control_record_type(b"\xff\xff\x00\x02")


@pytest.mark.parametrize("record, message", [
    (Record(0, 0, None, b"\x00"), "Missing key"),
    (Record(0, 0, b"", b"\x00"), "empty key"),
    (Record(0, 0, b"\x00\x00\x00\x04", None), "Missing value"),
    (Record(0, 0, b"\x00\x00\x00\x04", b""), "empty value"),
    (Record(0, 0, b"\x00\x00\x00\x01", b"\x00\x00\x00\x00\x00\x00"), "Unknown control record type COMMIT"),
    (Record(0, 0, b"\x00\x00\x00\x63", b"\x00"), "Unknown control record type UNKNOWN"),
    (Record(0, 5, b"\x00\x00\x00\x04", b"\x00\x00\x00"), "timestamp delta of 5"),
    (Record(0, 0, b"\x00\x00\x00\x04", b"\x00\x00\x00", [("h", b"v")]), "numHeaders of 1"),
    (Record(0, 0, b"\x00\x00\x00\x06", b"\x00\x00\x05"), "malformed KRAFT_VOTERS"),
])
def test_bad_control_records_are_refused(record: Record, message: str) -> None:
    with pytest.raises(CorruptRecord, match=message):
        decode_control_record(record)


def test_data_batch_is_not_a_control_batch() -> None:
    data = build_batch([(None, b"\x01\x0c\x00")], base_timestamp=0)
    with pytest.raises(CorruptRecord, match="not a control batch"):
        decode_control_batch(data)


def test_corrupt_crc_is_refused() -> None:
    bad = bytearray(APACHE_FOOTER_BATCH)
    bad[-1] ^= 1
    with pytest.raises(CorruptRecord):
        decode_control_batch(bytes(bad))
    assert decode_batch(APACHE_FOOTER_BATCH)[1][0].key == b"\x00\x00\x00\x04"
