from kafpy.storage import LogConfig


def test_topic_names_and_defaults():
    c = LogConfig.from_properties({"segment.bytes": "1000", "cleanup.policy": "compact,delete",
                                   "compression.type": "uncompressed", "preallocate": "true",
                                   "min.cleanable.dirty.ratio": "0.25", "unknown.thing": "x"})
    assert (c.segment_bytes, c.cleanup_policy, c.compression_type, c.preallocate) == (1000, "compact,delete", "none", True)
    assert c.compact and c.delete and c.min_cleanable_dirty_ratio == 0.25
    assert c.extra == {"unknown.thing": "x"}
    assert LogConfig().retention_ms == 604800000 and LogConfig().max_message_bytes == 1048588
    props = c.to_properties()
    assert props["segment.bytes"] == "1000" and props["preallocate"] == "true"
    assert LogConfig.from_properties(props) == c


def test_broker_names():
    c = LogConfig.from_broker_properties({"log.retention.hours": "1", "log.segment.bytes": "2048",
                                          "log.roll.ms": "5000", "message.max.bytes": "99",
                                          "log.cleanup.policy": "compact"})
    assert (c.retention_ms, c.segment_bytes, c.segment_ms, c.max_message_bytes, c.cleanup_policy) == \
        (3600000, 2048, 5000, 99, "compact")
    c2 = LogConfig.from_broker_properties({"log.retention.hours": "1", "log.retention.ms": "42"})
    assert c2.retention_ms == 42
