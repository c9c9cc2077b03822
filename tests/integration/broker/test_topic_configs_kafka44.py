"""Topic configs as Kafka 4.4 has them, side by side with an Apache Kafka 4.4 broker: the names
DescribeConfigs lists, the 3.x names Kafka 4 dropped (refused as unknown), the values and
sources of the 4.4 additions, every topic config's type, range and choices with Kafka's
messages, and ``max.decompressed.message.bytes`` applied to
Produce, per topic and as the cluster-wide default altered on a running broker: a compressed batch holding a record body over the limit is refused with
INVALID_RECORD and no message, an uncompressed one is not looked into (confluent-kafka
producing; a hand-built gzip batch for the exact response); and to ListOffsets by timestamp
once a topic's limit is lowered below records already written."""
from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, OffsetSpec

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.messages import ProduceRequest

from tests.integration.raft.test_controller_quorum import eventually
from tests.integration.security.test_bounded_work import kafka_call
from tests.support.kafka_dist import ReferenceKafka, run_tool
from tests.support.kafpy_broker import KafpyBroker
from tests.unit.storage.helpers import kp_batch

ADDED_IN_4 = ["errors.deadletterqueue.group.enable", "max.decompressed.message.bytes", "remote.copy.lag.bytes",
              "remote.copy.lag.ms", "remote.log.copy.disable", "remote.log.delete.on.disable"]
DROPPED_IN_4 = {"message.downconversion.enable": "true", "message.format.version": "3.0",
                "message.timestamp.difference.max.ms": "1000"}
OUT_OF_RANGE = [("max.decompressed.message.bytes", "0"), ("max.decompressed.message.bytes", "2147483647"),
                ("remote.copy.lag.bytes", "-2"), ("remote.copy.lag.ms", "-2")]
LIMIT = 1000
# values Kafka 4.4's LogConfig refuses (or takes), each with its message
VALUES = [("segment.bytes", "x"), ("segment.bytes", "1048575"), ("retention.ms", "-2"), ("retention.bytes", "-5"),
          ("min.insync.replicas", "0"), ("min.cleanable.dirty.ratio", "1.5"), ("min.cleanable.dirty.ratio", "x"),
          ("preallocate", "yes"), ("cleanup.policy", "bogus"), ("cleanup.policy", ""), ("compression.type", "brotli"),
          ("compression.type", "none"), ("max.message.bytes", "-1"), ("segment.index.bytes", "3"),
          ("index.interval.bytes", "-1"), ("segment.ms", "0"), ("message.timestamp.type", "Bogus"),
          ("delete.retention.ms", "-1"), ("min.compaction.lag.ms", "-1"), ("max.compaction.lag.ms", "0"),
          ("flush.messages", "0"), ("flush.ms", "-1"), ("file.delete.delay.ms", "-1"), ("segment.jitter.ms", "-1"),
          ("message.timestamp.before.max.ms", "-1"), ("message.timestamp.after.max.ms", "-1"),
          ("local.retention.ms", "-3"), ("unclean.leader.election.enable", "maybe"),
          ("follower.replication.throttled.replicas", "x:y"), ("leader.replication.throttled.replicas", "0:1,1:2"),
          ("leader.replication.throttled.replicas", "*")]


def create(admin: AdminClient, name: str, config: dict[str, str]) -> str:
    try:
        admin.create_topics([NewTopic(name, 1, 1, config=config)])[name].result(60)
        return "created"
    except KafkaException as e:
        return e.args[0].str()


def produce_errors(bootstrap: str, topic: str) -> dict[tuple[str, int], Any]:
    out = {}
    for codec in ("none", "gzip", "zstd"):
        p = Producer({"bootstrap.servers": bootstrap, "compression.type": codec, "retries": 0, "linger.ms": 0})
        for size in (900, 990, 1000, 5000):
            got: list[Any] = []
            p.produce(topic, key=b"k", value=b"x" * size, on_delivery=lambda err, _m: got.append(err))
            assert p.flush(30) == 0
            out[(codec, size)] = None if got[0] is None else got[0].code()
    return out


def list_offsets_after_lowering(admin: AdminClient, bootstrap: str) -> dict[str, Any]:
    """Batches of 5,000-byte records written under the default limit, then the topic's limit
    lowered to 1,000: ListOffsets by timestamp (and max timestamp) that must look into a
    compressed one answers INVALID_RECORD; past its timestamps, or in an uncompressed one,
    it answers as before."""
    t0 = 1_700_000_000_000
    for topic, codec in (("lowered", "gzip"), ("lowered-plain", "none")):
        create(admin, topic, {})
        p = Producer({"bootstrap.servers": bootstrap, "compression.type": codec, "linger.ms": 50})
        for i in range(3):
            p.produce(topic, key=b"k%d" % i, value=b"x" * 5000, timestamp=t0 + i)
        assert p.flush(30) == 0
        run_tool("4", "kafka-configs", ["--bootstrap-server", bootstrap, "--entity-type", "topics", "--entity-name",
                                        topic, "--alter", "--add-config", f"max.decompressed.message.bytes={LIMIT}"])

    def ask(topic: str, spec: OffsetSpec) -> Any:
        tp = TopicPartition(topic, 0)
        try:
            return admin.list_offsets({tp: spec})[tp].result(30).offset
        except KafkaException as e:
            return e.args[0].code()

    def answers() -> dict[str, Any]:
        return {"gzip, inside": ask("lowered", OffsetSpec.for_timestamp(t0 + 1)),
                "gzip, past": ask("lowered", OffsetSpec.for_timestamp(t0 + 9)),
                "gzip, max timestamp": ask("lowered", OffsetSpec.max_timestamp()),
                "none, inside": ask("lowered-plain", OffsetSpec.for_timestamp(t0 + 1))}
    # the lowered limit reaches the log once the broker has the topic's new config
    return eventually(lambda: (lambda got: got if got["gzip, inside"] != 1 else None)(answers()), timeout=30)


def side(bootstrap: str, port: int) -> dict[str, Any]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    seen: dict[str, Any] = {"create plain": create(admin, "plain", {})}
    resource = ConfigResource("TOPIC", "plain")

    def describe() -> Any:
        try:
            return admin.describe_configs([resource])[resource].result(60)
        except KafkaException as e:   # the broker's metadata may lag the controller's commit
            if e.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART:
                return None
            raise
    described = eventually(describe, timeout=30)
    seen["names"] = sorted(described)
    seen["added"] = {n: (described[n].value, described[n].source) for n in ADDED_IN_4}
    seen["dropped"] = {n: create(admin, f"dropped-{i}", {n: v}) for i, (n, v) in enumerate(DROPPED_IN_4.items())}
    seen["ranges"] = [create(admin, f"range-{i}", {n: v}) for i, (n, v) in enumerate(OUT_OF_RANGE)]
    seen["values"] = [f"{n}={v!r}: {create(admin, f'value-{i}', {n: v})}" for i, (n, v) in enumerate(VALUES)]
    seen["create limited"] = create(admin, "limited", {"max.decompressed.message.bytes": str(LIMIT)})
    seen["produce"] = produce_errors(bootstrap, "limited")
    P = ProduceRequest
    batch = kp_batch([(b"a", b"y"), (b"k", b"x" * 5000)], compression=1)
    response = kafka_call(port, ApiKey.PRODUCE, 9, P(transactional_id=None, acks=-1, timeout_ms=30000, topic_data=[
        P.TopicProduceData(name="limited", partition_data=[P.PartitionProduceData(index=0, records=batch)])]))
    part = response.responses[0].partition_responses[0]
    seen["hand-built gzip batch"] = (part.error_code, part.error_message, list(part.record_errors))
    seen["list offsets after the limit was lowered"] = list_offsets_after_lowering(admin, bootstrap)
    # the cluster-wide default, altered on the running broker, holds the topics without their own
    run_tool("4", "kafka-configs", ["--bootstrap-server", bootstrap, "--entity-type", "brokers", "--entity-default",
                                    "--alter", "--add-config", f"max.decompressed.message.bytes={LIMIT}"])
    seen["plain after the default was altered"] = eventually(
        lambda: produce_errors(bootstrap, "plain")[("gzip", 5000)] or None, timeout=30)
    return seen


@pytest.mark.timeout(400)
def test_topic_configs_are_kafka_44s(reference_kafka_factory, broker_factory) -> None:
    kafka: ReferenceKafka = reference_kafka_factory("4")
    theirs = side(kafka.bootstrap, kafka.port)
    kafka.stop()
    ours_broker: KafpyBroker = broker_factory()
    ours = side(ours_broker.bootstrap, ours_broker.port)
    print("kafpy:", ours, "\napache:", theirs)
    assert set(ADDED_IN_4) <= set(ours["names"]) and not set(DROPPED_IN_4) & set(ours["names"])
    assert all(v.startswith("Unknown topic config name") for v in ours["dropped"].values())
    assert ours["produce"][("gzip", 5000)] == ours["produce"][("zstd", 1000)] == 87   # INVALID_RECORD
    assert ours["produce"][("none", 5000)] is None and ours["produce"][("gzip", 990)] is None
    assert ours["hand-built gzip batch"] == (87, None, [])
    assert ours["plain after the default was altered"] == 87
    assert ours["list offsets after the limit was lowered"]["gzip, inside"] == 87
    assert "segment.bytes='1048575': Invalid value 1048575 for configuration segment.bytes: Value must be at " \
           "least 1048576" in ours["values"]
    for key in theirs:
        assert ours[key] == theirs[key], key
