"""Which `__consumer_offsets` partition owns a group: Kafka's
`Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions`.

Java's String.hashCode runs over UTF-16 code units with 32-bit wrap-around, and
Kafka's Utils.abs maps Integer.MIN_VALUE to 0 (not to itself), so non-BMP
characters and that one value must be handled exactly to agree with Kafka's brokers
and tools on the partition.
"""

_INT_MIN = -(1 << 31)


def java_string_hash(s: str) -> int:
    """Java's String.hashCode() as a signed 32-bit int."""
    h = 0
    data = s.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def kafka_abs(n: int) -> int:
    """org.apache.kafka.common.utils.Utils.abs."""
    return 0 if n == _INT_MIN else abs(n)


def partition_for(group_id: str, num_partitions: int) -> int:
    return kafka_abs(java_string_hash(group_id)) % num_partitions
