"""Committed offsets and group metadata live in __consumer_offsets: they survive a clean
restart and kill -9, and Kafka's own kafka-dump-log --offsets-decoder reads the records."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafpy.coordinator.group.partitioner import partition_for
from tests.support.offsets_dump import dumped_records
from tests.integration.coordinator.helpers import (
    committed, consume_and_commit, create_topic, produce)

OVERRIDES = {"group.initial.rebalance.delay.ms": 0}


@pytest.mark.parametrize("how", ["stop", "kill -9"])
def test_offsets_survive_broker_restart(broker_factory, how):
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, "dur", 4)
    produce(b.bootstrap, "dur", [b"x%d" % i for i in range(40)], 4)
    consume_and_commit(b.bootstrap, "dur", "dur-group", 25)
    before = committed(b.bootstrap, "dur-group")
    assert sum(before.values()) == 25
    if how == "stop":
        b.stop()
    else:
        b.kill()
    b.start()
    assert committed(b.bootstrap, "dur-group") == before
    from kafka import KafkaAdminClient
    admin = KafkaAdminClient(bootstrap_servers=b.bootstrap)
    try:
        d = admin.describe_groups(["dur-group"])["dur-group"]
        assert (d["group_state"], d["protocol_type"]) == ("Empty", "consumer")
    finally:
        admin.close()
    # and consumption resumes there
    consume_and_commit(b.bootstrap, "dur", "dur-group", 15)
    assert sum(committed(b.bootstrap, "dur-group").values()) == 40


def test_kafka_dump_log_offsets_decoder_reads_our_records(broker_factory):
    b = broker_factory(OVERRIDES)
    create_topic(b.bootstrap, "dumped", 2)
    produce(b.bootstrap, "dumped", [b"a", b"b", b"c", b"d"], 2)
    consume_and_commit(b.bootstrap, "dumped", "dump-group", 4)
    b.stop()
    p = partition_for("dump-group", 50)
    payloads = dumped_records(sorted((Path(b.log_dir) / f"__consumer_offsets-{p}").glob("*.log")))
    offset_commits = [(k, v) for k, v in payloads if k["type"] in ("0", "1", 0, 1)]
    group_meta = [(k, v) for k, v in payloads if k["type"] in ("2", 2)]
    assert offset_commits, payloads
    assert {(k["data"]["group"], k["data"]["topic"], k["data"]["partition"])
            for k, _ in offset_commits} == {("dump-group", "dumped", 0), ("dump-group", "dumped", 1)}
    assert sorted(v["data"]["offset"] for _, v in offset_commits if v) == [2, 2]
    assert group_meta and group_meta[-1][0]["data"]["group"] == "dump-group"
    last = group_meta[-1][1]["data"]
    assert last["protocolType"] == "consumer" and last["generation"] >= 1


def test_offsets_topic_compression_codec_compresses_the_coordinators_batches(broker_factory):
    """offsets.topic.compression.codec=3: the group coordinator's batches are lz4, Kafka's
    kafka-dump-log decodes them, and a restarted broker loads the offsets back from them."""
    import re

    from tests.support.kafka_dist import run_tool
    b = broker_factory({**OVERRIDES, "offsets.topic.compression.codec": 3})
    create_topic(b.bootstrap, "zipped", 2)
    produce(b.bootstrap, "zipped", [b"a", b"b", b"c", b"d"], 2)
    consume_and_commit(b.bootstrap, "zipped", "zip-group", 4)
    before = committed(b.bootstrap, "zip-group")
    assert sum(before.values()) == 4
    b.stop()
    p = partition_for("zip-group", 50)
    segments = sorted((Path(b.log_dir) / f"__consumer_offsets-{p}").glob("*.log"))
    out = run_tool("4", "kafka-dump-log", ["--offsets-decoder", "--print-data-log",
                                            "--files", ",".join(map(str, segments))]).stdout
    codecs = re.findall(r"compresscodec: (\w+)", out)
    assert codecs and {c.lower() for c in codecs} == {"lz4"}, out
    assert '"zip-group"' in out and '"zipped"' in out   # the offset commits, decoded
    b.start()
    assert committed(b.bootstrap, "zip-group") == before


def test_groups_map_onto_the_existing_offsets_topic_partition_count(broker_factory):
    b = broker_factory({**OVERRIDES, "offsets.topic.num.partitions": 5})
    create_topic(b.bootstrap, "np", 1)
    produce(b.bootstrap, "np", [b"1", b"2", b"3"])
    consume_and_commit(b.bootstrap, "np", "np-group", 3)
    assert sorted(p.name for p in Path(b.log_dir).glob("__consumer_offsets-*")) == \
        [f"__consumer_offsets-{i}" for i in range(5)]
    b.stop()
    b.overrides["offsets.topic.num.partitions"] = "50"
    b.start()
    assert committed(b.bootstrap, "np-group") == {("np", 0): 3}
