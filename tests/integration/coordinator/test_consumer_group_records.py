"""The records kafpy writes for a consumer-protocol group, read by Apache Kafka 4.4's
`kafka-dump-log --offsets-decoder` (the tool decodes each key by its record type and
each value by its version: anything it cannot read it prints as an error)."""
from __future__ import annotations

import time
from pathlib import Path

from confluent_kafka import Consumer

from kafpy.coordinator.group.partitioner import partition_for
from tests.integration.coordinator.test_consumer_protocol import (
    CONSUMER_GROUP_BROKER, _confluent_read_all, _topic_with_records)
from tests.support.kafka_dist import run_tool


def _regex_member_reads_one(bootstrap: str, regex: str, group: str) -> None:
    """A member subscribed by regular expression reads a record, then leaves (the
    group's ConsumerGroupRegularExpression record is written, then tombstoned)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": "consumer",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        c.subscribe([regex])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            msg = c.poll(0.5)
            if msg is not None and msg.error() is None:
                return
        raise AssertionError(f"{group} read nothing through {regex}")
    finally:
        c.close()


def test_kafka_dump_log_decodes_consumer_group_records(broker_factory):
    b = broker_factory({**CONSUMER_GROUP_BROKER, "offsets.topic.num.partitions": 3})
    _topic_with_records(b.bootstrap, "dumped")
    _confluent_read_all(b.bootstrap, "dumped", "dumped-group")
    _regex_member_reads_one(b.bootstrap, "^dump.*", "regex-group")
    b.stop()
    out = ""
    for group in ("dumped-group", "regex-group"):
        part = Path(b.log_dir) / f"__consumer_offsets-{partition_for(group, 3)}"
        segments = sorted(str(p) for p in part.glob("*.log"))
        out += run_tool("4", "kafka-dump-log", ["--offsets-decoder", "--files", ",".join(segments)],
                        timeout=120).stdout
    assert "dumped-group" in out
    for kind in ('"type":"3"', '"type":"5"', '"type":"6"', '"type":"7"', '"type":"8"', '"type":"1"',
                 '"type":"16"'):
        assert kind in out, (kind, out[-3000:])
    # the resolved expression (librdkafka sends it in parentheses), then its tombstone
    # when the member left
    regex_key = '{"type":"16","data":{"groupId":"regex-group","regularExpression":"(^dump.*)"}}'
    assert f'{regex_key} payload: {{"version":"0","data":{{"topics":["dumped"]' in out, out[-3000:]
    assert f"{regex_key} payload: <DELETE>" in out, out[-3000:]
    assert "Error" not in out and "Unknown" not in out, out[-3000:]
