from kafpy.coordinator.group.partitioner import java_string_hash, kafka_abs, partition_for

# (group id, Java String.hashCode(), partition of 50), computed with Java 17.
JAVA = [
    ("mygroup", 1516409939, 39),
    ("console-consumer-12345", 158455506, 6),
    ("polygenelubricants", -2147483648, 0),
    ("", 0, 0),
    ("grüße-😀-group", -2042762741, 41),
    ("test-group-42", -559024281, 31),
]


def test_java_hash_code_and_partition_match_kafka():
    for group, h, p in JAVA:
        assert java_string_hash(group) == h
        assert partition_for(group, 50) == p


def test_utils_abs_maps_int_min_to_zero():
    assert kafka_abs(-2147483648) == 0
    assert kafka_abs(-5) == 5
