"""The batch loader: an image per flushed batch, none while a metadata transaction is open,
what came before a transaction published on its own, aborted transactions discarded."""
from __future__ import annotations

import pytest

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.loader import MetadataBatchLoader
from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.protocol import messages as M
from kafpy.protocol.messages import Message


def topic(name: str) -> M.TopicRecord:
    return M.TopicRecord(name=name, topic_id=name.encode().ljust(16, b"\0"))


class Published:
    def __init__(self) -> None:
        self.images: list[MetadataImage] = []
        self.deltas: list[MetadataDelta] = []

    def __call__(self, delta: MetadataDelta, image: MetadataImage) -> None:
        self.deltas.append(delta)
        self.images.append(image)

    def topics(self) -> list[list[str]]:
        return [sorted(i.topics.topics_by_name) for i in self.images]

    def offsets(self) -> list[int]:
        return [i.provenance.last_contained_offset for i in self.images]


def load(loader: MetadataBatchLoader, base: int, records: list[Message], epoch: int = 3) -> None:
    loader.load_batch(base, epoch, 1000 + base, records)
    loader.maybe_flush()


def test_each_flush_publishes_an_image_with_its_provenance():
    out = Published()
    loader = MetadataBatchLoader(EMPTY_IMAGE, out)
    load(loader, 0, [topic("a"), topic("b")])
    load(loader, 2, [M.NoOpRecord()], epoch=4)
    assert out.topics() == [["a", "b"], ["a", "b"]]
    assert out.offsets() == [1, 2]
    last = out.images[-1].provenance
    assert (last.last_contained_epoch, last.last_contained_log_time_ms) == (4, 1002)
    assert last.snapshot_name() == "00000000000000000003-0000000004"


def test_no_image_while_a_transaction_is_open_then_all_of_it_at_once():
    out = Published()
    loader = MetadataBatchLoader(EMPTY_IMAGE, out)
    load(loader, 0, [M.BeginTransactionRecord(name="t"), topic("a")])
    load(loader, 2, [topic("b")])
    assert out.images == []
    load(loader, 3, [topic("c"), M.EndTransactionRecord()])
    assert out.topics() == [["a", "b", "c"]] and out.offsets() == [4]


def test_records_before_a_transaction_are_published_first():
    out = Published()
    loader = MetadataBatchLoader(EMPTY_IMAGE, out)
    load(loader, 0, [topic("a"), M.BeginTransactionRecord(name="t"), topic("b")])
    assert out.topics() == [["a"]] and out.offsets() == [0]
    # the image ends inside the batch: no snapshot may be named after it
    assert not out.images[0].provenance.is_offset_batch_aligned
    load(loader, 3, [M.EndTransactionRecord()])
    assert out.topics() == [["a"], ["a", "b"]] and out.offsets() == [0, 3]
    assert out.images[1].provenance.is_offset_batch_aligned


def test_an_earlier_unflushed_batch_is_published_when_a_transaction_starts():
    out = Published()
    loader = MetadataBatchLoader(EMPTY_IMAGE, out)
    loader.load_batch(0, 1, 0, [topic("a")])  # not flushed yet
    loader.load_batch(1, 1, 0, [M.BeginTransactionRecord(name="t"), topic("b")])
    assert out.topics() == [["a"]] and out.offsets() == [0]
    assert out.images[0].provenance.is_offset_batch_aligned  # it ends where batch 0 ends


def test_an_aborted_transaction_leaves_nothing():
    out = Published()
    loader = MetadataBatchLoader(EMPTY_IMAGE, out)
    load(loader, 0, [topic("a")])
    load(loader, 1, [M.BeginTransactionRecord(name="t"), topic("b")])
    load(loader, 3, [topic("c"), M.AbortTransactionRecord(reason="failover"), topic("d")])
    assert out.topics() == [["a"], ["a", "d"]] and out.offsets() == [0, 5]


def test_abort_at_the_end_of_a_batch_publishes_an_unchanged_image_at_the_new_offset():
    out = Published()
    loader = MetadataBatchLoader(EMPTY_IMAGE, out)
    load(loader, 0, [topic("a")])
    load(loader, 1, [M.BeginTransactionRecord(name="t"), topic("b"), M.AbortTransactionRecord(reason="")])
    assert out.topics() == [["a"], ["a"]] and out.offsets() == [0, 3]
    assert out.images[1].topics is out.images[0].topics


@pytest.mark.parametrize("records, message", [
    ([M.BeginTransactionRecord(), M.BeginTransactionRecord()], "already in a transaction"),
    ([M.EndTransactionRecord()], "EndTransactionRecord without"),
    ([M.AbortTransactionRecord()], "AbortTransactionRecord without"),
    ([M.NoOpRecord(), M.PartitionChangeRecord(topic_id=b"\x01" * 16, partition_id=0)], "offset 11"),
])
def test_bad_sequences_fail_with_the_offset(records: list[Message], message: str):
    loader = MetadataBatchLoader(EMPTY_IMAGE, Published())
    with pytest.raises(MetadataReplayError, match=message):
        loader.load_batch(10, 1, 0, records)
