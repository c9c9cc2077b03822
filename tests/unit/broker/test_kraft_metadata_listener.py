"""BrokerMetadataListener: committed batches of serde-framed records become published
images; a record kafpy cannot decode or replay is skipped and counted, never fatal."""
from __future__ import annotations

from pathlib import Path

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.record_serde import ApiMessageAndVersion, write_record
from kafpy.protocol import messages as M
from kafpy.protocol.varint import unsigned_varint
from kafpy.raft.kafka_raft_client import Batch, LeaderAndEpoch
from kafpy.raft.snapshot import RawSnapshotWriter, RecordsSnapshotWriter, SnapshotId

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


def test_nothing_is_published_until_the_listener_reaches_the_high_watermark() -> None:
    published: list[MetadataImage] = []
    listener = BrokerMetadataListener(lambda d, i: published.append(i), time_ms=lambda: 5, high_watermark=lambda: 3)
    listener.handle_commit([Batch(0, 0, 1, (rec(M.TopicRecord(name="foo", topic_id=FOO)),))])
    listener.handle_commit([Batch(1, 1, 1, (rec(M.RemoveTopicRecord(topic_id=FOO)),))])
    assert published == []  # a restarted broker never hosts foo on the way
    listener.handle_commit([Batch(2, 2, 1, (rec(M.TopicRecord(name="bar", topic_id=BAR)),))])
    assert len(published) == 1
    assert published[0].topic("foo") is None and published[0].topic("bar") is not None


def test_a_snapshot_becomes_a_whole_image_and_batches_follow(tmp_path: Path) -> None:
    raw = RawSnapshotWriter(tmp_path, SnapshotId(10, 2))
    writer = RecordsSnapshotWriter(raw, write_record, lambda: 1, kraft_version=0)
    writer.append([ApiMessageAndVersion(M.TopicRecord(name="foo", topic_id=FOO), 0)])
    path = writer.freeze()
    writer.close()
    published: list[tuple[MetadataDelta, MetadataImage]] = []
    listener = BrokerMetadataListener(lambda d, i: published.append((d, i)), time_ms=lambda: 5)
    listener.handle_load_snapshot(SnapshotId(10, 2), Path(path).read_bytes())
    delta, image = published[0]
    assert delta.image.is_empty() and image.topic("foo") is not None
    assert (image.provenance.last_contained_offset, image.provenance.last_contained_epoch) == (9, 2)
    listener.handle_commit([Batch(10, 10, 2, (rec(M.TopicRecord(name="bar", topic_id=BAR)),))])
    latest = published[-1][1]
    assert latest.topic("foo") is not None and latest.topic("bar") is not None
    listener.handle_load_snapshot(SnapshotId(12, 2), b"not a snapshot")
    assert listener.skipped[-1].offset == 11 and "cannot read snapshot" in listener.skipped[-1].reason


def test_published_images_and_their_batches_bytes_go_to_the_snapshot_publisher(tmp_path: Path) -> None:
    """A dedicated broker's snapshots: each published image with the bytes of the batches it
    took in (control batches included), the counters reset by a loaded snapshot."""
    from kafpy.metadata.publisher.snapshot_emitter import SnapshotEmitter
    from kafpy.metadata.publisher.snapshot_generator import SnapshotGenerator
    from kafpy.metadata.publisher.snapshot_publisher import SnapshotPublisher

    class Dir:
        def create_new_snapshot(self, snapshot_id: SnapshotId) -> RawSnapshotWriter | None:
            return RawSnapshotWriter(tmp_path, snapshot_id)
    generator = SnapshotGenerator(1, 250, 0, 0)
    publisher = SnapshotPublisher(generator, SnapshotEmitter(1, Dir(), lambda: 7), lambda: 7)
    deltas: list[tuple[int, int]] = []
    original = publisher.on_log_delta_now

    def record(image: MetadataImage, num_bytes: int) -> Path | None:
        deltas.append((image.provenance.last_contained_offset, num_bytes))
        return original(image, num_bytes)
    publisher.on_log_delta = record  # type: ignore[method-assign,assignment]  # written inline here
    listener = BrokerMetadataListener(lambda d, i: None, time_ms=lambda: 5, snapshots=publisher)
    listener.handle_commit([Batch(0, 0, 1, (), control=True, size_in_bytes=80),
                            Batch(1, 1, 1, (rec(M.TopicRecord(name="foo", topic_id=FOO)),), size_in_bytes=100)])
    assert deltas == [(1, 180)] and publisher.written == []
    listener.handle_commit([Batch(2, 2, 1, (rec(M.NoOpRecord()),), size_in_bytes=90)])
    assert deltas[-1] == (2, 90)
    assert [p.name for p in publisher.written] == ["00000000000000000003-0000000001.checkpoint"]
    assert generator.bytes_since_last_snapshot == 0
    listener.handle_commit([Batch(3, 3, 1, (rec(M.NoOpRecord()),), size_in_bytes=90)])
    assert generator.bytes_since_last_snapshot == 90
    listener.handle_load_snapshot(SnapshotId(3, 1), publisher.written[0].read_bytes())
    assert generator.bytes_since_last_snapshot == 0 and publisher.loaded == ["00000000000000000003-0000000001"]
