"""SnapshotEmitter: an image written as the snapshot its provenance names, read back into the
same image, with Kafka's header (timestamp, kraft.version, voters) and footer."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import EMPTY_PROVENANCE, MetadataProvenance
from kafpy.metadata.image.writer import ApiMessageAndVersion
from kafpy.metadata.publisher.snapshot_emitter import SnapshotEmitter, SnapshotJob
from kafpy.metadata.record_serde import read_record, write_record
from kafpy.protocol import messages as M
from kafpy.raft.snapshot import RawSnapshotWriter, SnapshotId, read_snapshot


class DirLog:
    """A snapshot directory as the metadata log would give it: None for an existing id."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.made: list[SnapshotId] = []

    def create_new_snapshot(self, snapshot_id: SnapshotId) -> RawSnapshotWriter | None:
        if snapshot_id in self.made:
            return None
        self.made.append(snapshot_id)
        return RawSnapshotWriter(self.path, snapshot_id)


def image_with(topics: int) -> MetadataImage:
    delta = MetadataDelta(EMPTY_IMAGE)
    delta.replay(M.FeatureLevelRecord(name="metadata.version", feature_level=27))
    for i in range(topics):
        topic_id = i.to_bytes(16, "big")
        delta.replay(M.TopicRecord(name=f"t{i}", topic_id=topic_id))
        delta.replay(M.PartitionRecord(partition_id=0, topic_id=topic_id, replicas=[1], isr=[1], leader=1,
                                       leader_epoch=0, partition_epoch=0))
    delta.replay(M.ConfigRecord(resource_type=2, resource_name="t0", name="retention.ms", value="1000"))
    return delta.apply(MetadataProvenance(41, 3, 123456))


def replayed(records: list) -> MetadataImage:
    delta = MetadataDelta(EMPTY_IMAGE)
    delta.replay_all([r.message for r in records])
    return delta.apply(EMPTY_PROVENANCE)


def test_the_snapshot_reads_back_into_the_same_image(tmp_path: Path):
    image = image_with(topics=5)
    emitter = SnapshotEmitter(1, DirLog(tmp_path), lambda: 777, batch_size=4)
    path = emitter.maybe_emit(image)
    assert path is not None and path.name == "00000000000000000042-0000000003.checkpoint"
    snap = read_snapshot(path, read_record)
    assert snap.snapshot_id == SnapshotId(42, 3)
    assert snap.header.last_contained_log_timestamp == 123456  # the image's last batch time
    assert snap.kraft_version is None  # kraft.version 0: no KRaftVersionRecord
    assert [r.message for r in snap.records] == [r.message for r in image.records()]
    assert snap.records[0].message == M.FeatureLevelRecord(name="metadata.version", feature_level=27)
    assert replayed(snap.records) == dataclasses.replace(image, provenance=EMPTY_PROVENANCE)
    data_batches = [b for b in snap.batches if not b.is_control]
    # appended 4 at a time, they fill one batch up to its byte limit (Kafka's accumulator
    # for snapshots never lingers out a batch)
    assert [len(b.records) for b in data_batches] == [12]
    assert emitter.latest_snapshot_generated_bytes == path.stat().st_size


def test_kraft_version_1_puts_the_voters_in_the_header(tmp_path: Path):
    voters = M.VotersRecord(version=0, voters=[M.VotersRecord.Voter(voter_id=1, voter_directory_id=b"\1" * 16)])
    emitter = SnapshotEmitter(1, DirLog(tmp_path), lambda: 1, kraft_version=lambda _offset: 1, voters=lambda _offset: voters)
    path = emitter.maybe_emit(image_with(topics=1))
    assert path is not None
    snap = read_snapshot(path, read_record)
    assert snap.kraft_version is not None and snap.kraft_version.k_raft_version == 1
    assert snap.voters is not None and [v.voter_id for v in snap.voters.voters] == [1]


def test_an_existing_snapshot_is_not_written_again(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    log_ = DirLog(tmp_path)
    emitter = SnapshotEmitter(1, log_, lambda: 1)
    image = image_with(topics=1)
    assert emitter.maybe_emit(image) is not None
    assert emitter.maybe_emit(image) is None
    assert "Not generating 00000000000000000042-0000000003 because it already exists." in caplog.text


def test_the_publisher_writes_when_the_generator_asks_and_not_before(tmp_path: Path):
    from kafpy.metadata.publisher.snapshot_generator import SnapshotGenerator
    from kafpy.metadata.publisher.snapshot_publisher import SnapshotPublisher
    now = [0]
    publisher = SnapshotPublisher(SnapshotGenerator(1, 1000, 0, 0), SnapshotEmitter(1, DirLog(tmp_path), lambda: now[0]),
                                  lambda: now[0])
    image = image_with(topics=2)
    assert publisher.on_log_delta_now(image, 999) is None
    now[0] = 5
    path = publisher.on_log_delta_now(image, 1)
    assert path is not None and path.exists() and publisher.written == [path]
    assert not publisher.generator.emitting and publisher.generator.last_snapshot_time_ms == 5
    later = dataclasses.replace(image, provenance=MetadataProvenance(99, 3, 1))
    publisher.on_snapshot_loaded(later)
    assert publisher.on_log_delta_now(later, 999) is None
    assert publisher.loaded == ["00000000000000000100-0000000003"]


@pytest.mark.parametrize("step_records", [None, 16])
def test_the_publisher_writes_off_the_loop_one_snapshot_at_a_time(tmp_path: Path, step_records: int | None,
                                                                  monkeypatch: pytest.MonkeyPatch):
    """on_log_delta returns at once with the write going on: on a worker thread (None), or on
    the loop ``step_records`` records at a time with the loop free between steps. While it
    runs no second snapshot is asked for, and the file is whole once the task is done."""
    import asyncio
    import threading
    from kafpy.metadata.publisher.snapshot_generator import SnapshotGenerator
    from kafpy.metadata.publisher.snapshot_publisher import SnapshotPublisher

    from kafpy.metadata.publisher import snapshot_emitter
    threads: list[str] = []
    encoded = [0]  # records encoded so far, as the loop's other tasks see it
    seen: set[int] = set()

    def counting(record: ApiMessageAndVersion) -> bytes:
        encoded[0] += 1
        return write_record(record)
    monkeypatch.setattr(snapshot_emitter, "write_record", counting)

    class ThreadNoting(SnapshotEmitter):
        def write(self, job: SnapshotJob) -> Path:
            threads.append(threading.current_thread().name)
            return super().write(job)

    async def run() -> None:
        publisher = SnapshotPublisher(SnapshotGenerator(1, 100, 0, 0),
                                      ThreadNoting(1, DirLog(tmp_path), lambda: 1), lambda: 1,
                                      step_records=step_records)
        writing = True

        async def ticker() -> None:
            while writing:
                seen.add(encoded[0])
                await asyncio.sleep(0)
        first = image_with(topics=50)
        task = publisher.on_log_delta(first, 100)
        assert task is not None and publisher.generator.emitting
        tick = asyncio.get_running_loop().create_task(ticker())
        second = dataclasses.replace(first, provenance=MetadataProvenance(60, 3, 1))
        assert publisher.on_log_delta(second, 1000) is None  # one at a time
        await task
        writing = False
        await tick
        assert not publisher.generator.emitting
        assert [p.name for p in publisher.written] == ["00000000000000000042-0000000003.checkpoint"]
        snap = read_snapshot(publisher.written[0], read_record)
        assert replayed(snap.records) == dataclasses.replace(first, provenance=EMPTY_PROVENANCE)
        assert [r.message for r in snap.records] == [r.message for r in first.records()]
        again = publisher.on_log_delta(second, 100)
        assert again is not None
        await publisher.close()
        assert len(publisher.written) == 2
    asyncio.run(run())
    if step_records is None:
        assert threads and all(name != threading.main_thread().name for name in threads)
    else:
        assert not threads  # not the all-at-once write
        # the loop ran between the steps of the first snapshot's 101 records
        assert len({n for n in seen if 0 < n < 101}) >= 101 // step_records - 1, sorted(seen)
