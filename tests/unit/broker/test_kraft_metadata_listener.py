"""BrokerMetadataListener: committed batches of serde-framed records become published
images; a record kafpy cannot decode or replay is skipped and counted, never fatal."""
from __future__ import annotations

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.record_serde import ApiMessageAndVersion, write_record
from kafpy.protocol import messages as M
from kafpy.protocol.varint import unsigned_varint
from kafpy.raft.kafka_raft_client import Batch, LeaderAndEpoch

from kafpy.broker.kraft_metadata_listener import BrokerMetadataListener

FOO = bytes(range(1, 17))
BAR = bytes(range(2, 18))


def rec(message: M.Message, version: int = 0) -> bytes:
    return write_record(ApiMessageAndVersion(message, version))


def test_batches_become_images_and_what_cannot_be_read_is_skipped() -> None:
    published: list[MetadataImage] = []

    def publish(delta: MetadataDelta, image: MetadataImage) -> None:
        published.append(image)
    listener = BrokerMetadataListener(publish, time_ms=lambda: 5)
    unknown_type = unsigned_varint(1) + unsigned_varint(9999) + unsigned_varint(0)
    listener.handle_commit([
        Batch(0, 0, 1, (), control=True),  # a leader change: nothing to replay
        Batch(1, 3, 1, (rec(M.TopicRecord(name="foo", topic_id=FOO)), unknown_type,
                        rec(M.TopicRecord(name="bar", topic_id=BAR)))),
        # a partition of a topic the image does not hold: the batch is skipped, not fatal
        Batch(4, 4, 1, (rec(M.PartitionRecord(partition_id=0, topic_id=bytes(16), replicas=[1], isr=[1],
                                              leader=1)),)),
        Batch(5, 5, 2, (rec(M.NoOpRecord()),)),
    ])
    assert len(published) == 1
    image = published[0]
    assert image.topic("foo") is not None and image.topic("bar") is not None
    assert image.provenance.last_contained_offset == 5 and image.provenance.last_contained_epoch == 2
    assert [s.offset for s in listener.skipped] == [2, 4]
    assert "Unknown metadata id 9999" in listener.skipped[0].reason
    assert listener.last_committed_offset == 5
    listener.handle_leader_change(LeaderAndEpoch(3000, 2))
    assert listener.leader == LeaderAndEpoch(3000, 2)
