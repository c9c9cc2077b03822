"""__consumer_offsets record formats and rebuilding groups by replaying a partition."""

import struct

from kafpy.coordinator.group import GroupState, InMemoryOffsetsLog, OffsetAndMetadata
from kafpy.protocol.errors import ErrorCode as E
from kafpy.coordinator.group.records import (
    GroupMetadataKey, GroupMetadataValue, MemberRecord, OffsetCommitKey,
    decode_group_metadata_value, decode_key, decode_offset_commit_value,
    encode_group_metadata_key, encode_group_metadata_value, encode_offset_commit_key,
    encode_offset_commit_value, parse_consumer_subscription_topics)

from tests.unit.coordinator.helpers import commit, make_coordinator, stable_group, subscription


def test_offset_commit_key_and_value_layout():
    key = encode_offset_commit_key("g", "topic", 7)
    assert key == struct.pack(">hh", 1, 1) + b"g" + struct.pack(">h", 5) + b"topic" + \
        struct.pack(">i", 7)
    assert decode_key(key) == OffsetCommitKey("g", "topic", 7)
    value = encode_offset_commit_value(OffsetAndMetadata(42, 3, "meta", 1000))
    assert value == struct.pack(">hqih", 3, 42, 3, 4) + b"meta" + struct.pack(">q", 1000)
    assert decode_offset_commit_value(value) == OffsetAndMetadata(42, 3, "meta", 1000, -1)
    v1 = encode_offset_commit_value(OffsetAndMetadata(42, 3, "", 1000, 5000))
    assert struct.unpack_from(">h", v1)[0] == 1
    assert decode_offset_commit_value(v1) == OffsetAndMetadata(42, -1, "", 1000, 5000)


def test_offset_commit_value_v4_flexible_is_readable():
    # version 4: offset, leaderEpoch, compact string, commitTimestamp, empty tagged fields
    v4 = struct.pack(">hqi", 4, 9, 2) + bytes([4]) + b"abc" + struct.pack(">q", 77) + b"\x00"
    assert decode_offset_commit_value(v4) == OffsetAndMetadata(9, 2, "abc", 77, -1)


def test_a_commit_by_topic_id_is_kept_in_offset_commit_value_v4():
    """OffsetCommit v10 / TxnOffsetCommit v6 name the topic by id: the value is v4 with the
    id in tagged field 0, as Kafka 4.4 writes it; a commit by name stays v3."""
    topic_id = bytes(range(1, 17))
    value = encode_offset_commit_value(OffsetAndMetadata(9, 2, "abc", 77, topic_id=topic_id))
    # offset, leaderEpoch, compact string, commitTimestamp, one tagged field: tag 0, 16 bytes
    assert value == struct.pack(">hqi", 4, 9, 2) + bytes([4]) + b"abc" + struct.pack(">q", 77) + \
        bytes([1, 0, 16]) + topic_id
    assert decode_offset_commit_value(value) == OffsetAndMetadata(9, 2, "abc", 77, -1, topic_id)
    by_name = encode_offset_commit_value(OffsetAndMetadata(9, 2, "abc", 77))
    assert struct.unpack_from(">h", by_name)[0] == 3


def test_group_metadata_roundtrip_v3_and_old_versions():
    key = encode_group_metadata_key("grp")
    assert key == struct.pack(">hh", 2, 3) + b"grp"
    assert decode_key(key) == GroupMetadataKey("grp")
    value = GroupMetadataValue("consumer", 5, "range", "m1", 123, [
        MemberRecord("m1", "inst", "cid", "/1.2.3.4", 30000, 10000, b"\x00sub", b"\x01asg"),
        MemberRecord("m2", None, "cid2", "/h", 40000, 10000, b"", b"")])
    enc = encode_group_metadata_value(value)
    assert struct.unpack_from(">h", enc)[0] == 3
    assert decode_group_metadata_value(enc) == value
    empty = GroupMetadataValue("consumer", 6, None, None, 9, [])
    assert decode_group_metadata_value(encode_group_metadata_value(empty)) == empty
    # version 0 (no rebalance timeout, state timestamp or instance id)
    v0 = (struct.pack(">hh", 0, 8) + b"consumer" + struct.pack(">ih", 1, 5) + b"range" +
          struct.pack(">h", 2) + b"m1" + struct.pack(">i", 1) +
          struct.pack(">h", 2) + b"m1" + struct.pack(">h", 1) + b"c" + struct.pack(">h", 1) +
          b"h" + struct.pack(">i", 6000) + struct.pack(">i", 1) + b"s" + struct.pack(">i", 1) + b"a")
    d = decode_group_metadata_value(v0)
    assert d.current_state_timestamp == -1
    assert d.members == [MemberRecord("m1", None, "c", "h", 6000, 6000, b"s", b"a")]


def test_subscription_topics_parse():
    assert parse_consumer_subscription_topics(subscription("a", "b")) == {"a", "b"}
    assert parse_consumer_subscription_topics(b"\x00") is None


def test_state_is_rebuilt_by_replaying_the_partition():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log)
    ids, gen, t = stable_group(c, 2)
    commit(c, "g", ids[0], None, gen, {("t", 0): OffsetAndMetadata(11, 1, "x", t)}, t)
    commit(c, "g", ids[0], None, gen, {("t", 0): OffsetAndMetadata(12, 1, "y", t)}, t)
    commit(c, "simple", "", None, -1, {("u", 3): OffsetAndMetadata(5, -1, "", t)}, t)
    commit(c, "gone", "", None, -1, {("u", 3): OffsetAndMetadata(5, -1, "", t)}, t)
    assert c.delete_groups(["gone"], t) == {"gone": E.NONE}

    fresh = make_coordinator(log, offsets_topic_num_partitions=50)
    fresh.owned_partitions.clear()
    for p in range(50):
        fresh.load_partition(p, 1_000_000)
    g = fresh.groups["g"]
    assert g.is_(GroupState.STABLE) and g.generation_id == gen
    assert g.protocol_type == "consumer" and g.protocol_name == "range"
    assert set(g.members) == set(ids) and g.leader_id == c.groups["g"].leader_id
    assert all(g.members[m].assignment == f"assign-{m}".encode() for m in ids)
    assert g.subscribed_topics == {"t"}
    got = fresh.fetch_offsets("g", [("t", 0)])[1][("t", 0)]
    assert (got.offset, got.leader_epoch, got.metadata) == (12, 1, "y")
    assert fresh.fetch_offsets("simple", None)[1][("u", 3)].offset == 5
    assert "gone" not in fresh.groups
    # Loaded members must heartbeat within their session or be expired.
    assert fresh.heartbeat("g", ids[0], None, gen, 1_000_001) == E.NONE
    fresh.poll(1_010_000)
    assert list(fresh.groups["g"].members) == [ids[0]]


def test_empty_group_written_after_everyone_leaves_is_loaded_empty():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log)
    ids, gen, t = stable_group(c, 1)
    commit(c, "g", ids[0], None, gen, {("t", 0): OffsetAndMetadata(3, -1, "", t)}, t)
    c.leave_group("g", [(ids[0], None)], t)
    fresh = make_coordinator(log)
    fresh.load_partition(fresh.partition_for("g"), t + 1)
    g = fresh.groups["g"]
    assert g.is_(GroupState.EMPTY) and g.generation_id == gen + 1 and not g.members
    assert g.protocol_type == "consumer"
    assert fresh.fetch_offsets("g", [("t", 0)])[1][("t", 0)].offset == 3


def test_unload_answers_parked_requests_with_not_coordinator():
    c = make_coordinator()
    from tests.unit.coordinator.helpers import join
    f = join(c)
    c.unload_partition(c.partition_for("g"))
    assert f.result().error == E.NOT_COORDINATOR
    assert "g" not in c.groups
    assert c.heartbeat("g", "m", None, 1, 0) == E.NOT_COORDINATOR


def test_shutdown_answers_parked_requests():
    c = make_coordinator()
    from tests.unit.coordinator.helpers import join
    f = join(c)
    c.shutdown()
    assert f.result().error == E.NOT_COORDINATOR
    assert c.list_groups()[0] == E.COORDINATOR_NOT_AVAILABLE


def test_unreadable_records_are_skipped_on_replay():
    log = InMemoryOffsetsLog()
    c = make_coordinator(log)
    commit(c, "s", "", None, -1, {("t", 0): OffsetAndMetadata(4, -1, "", 1)}, 1)
    p = c.partition_for("s")
    log.partitions[p].insert(0, ((struct.pack(">h", 9) + b"junk", b"x"), 1))
    log.partitions[p].insert(0, ((encode_offset_commit_key("s", "t", 1), b"\x00\x03\x00"), 1))
    fresh = make_coordinator(log)
    fresh.load_partition(p, 2)
    assert fresh.fetch_offsets("s", None)[1][("t", 0)].offset == 4
    assert ("t", 1) not in fresh.groups["s"].offsets
