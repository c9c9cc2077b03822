"""A KRaft broker's listener on the ``__cluster_metadata`` log (Kafka's ``MetadataLoader`` as a
``RaftClient.Listener``): each committed batch is decoded (Kafka's ``MetadataRecordSerde``),
replayed into a ``MetadataBatchLoader`` and, once the commit is handled, the new delta and
image are published to the broker's publisher. A snapshot (``handle_load_snapshot``: the
broker starts on a log that begins with one, or fell behind the log start) becomes a whole
new image.

What cannot be decoded (a record type or version newer than kafpy knows) or replayed (a
record naming something the image lacks) is skipped with a log line and counted in
``skipped``, never fatal: the broker goes on with the records it understands (issue 37).

With ``snapshots`` (a dedicated broker), each published image and the bytes of the batches
it took in go to the node's ``SnapshotPublisher``, which writes a snapshot on Kafka's schedule.

Who calls it: the raft driver (``handle_commit``, ``handle_leader_change``) on its task.
Nothing on disk; pure apart from the log lines and the wall clock used for the batches'
append times (raft's batches do not carry theirs).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.loader import MetadataBatchLoader, Publisher
from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.metadata.publisher.snapshot_publisher import SnapshotPublisher
from kafpy.metadata.record_serde import MetadataParseError, read_record
from kafpy.protocol.errors import CorruptRecord
from kafpy.protocol.messages import Message
from kafpy.raft.kafka_raft_client import Batch, LeaderAndEpoch
from kafpy.raft.snapshot import SnapshotId, read_snapshot

log = logging.getLogger("org.apache.kafka.image.loader.MetadataLoader")


@dataclass(frozen=True)
class SkippedRecord:
    """A record of the log the broker did not apply: where it was and why."""

    offset: int
    reason: str


class BrokerMetadataListener:
    """Keeps the loader (the last image and the delta being built), the leader the raft
    client last announced, the highest offset handed to it, and what it skipped."""

    def __init__(self, publish: Publisher, time_ms: Callable[[], int] = lambda: int(time.time() * 1000),
                 high_watermark: Callable[[], int | None] = lambda: None,
                 snapshots: SnapshotPublisher | None = None) -> None:
        """``high_watermark`` is the raft client's: until the listener has read up to it once,
        nothing is published (Kafka's loader catching up), so a restarted broker applies the
        state the log ends in, not every state it went through."""
        self.loader = MetadataBatchLoader(EMPTY_IMAGE, publish)
        self.time_ms = time_ms
        self.high_watermark = high_watermark
        self.caught_up = False
        self.leader = LeaderAndEpoch(None, 0)
        self.last_committed_offset = -1
        self.skipped: list[SkippedRecord] = []
        # this broker's snapshots of the published images (None: another part of the node writes them)
        self.snapshots = snapshots
        self._bytes_since_publish = 0

    def handle_commit(self, batches: Sequence[Batch]) -> None:
        for batch in batches:
            self.last_committed_offset = batch.last_offset
            self._bytes_since_publish += batch.size_in_bytes
            if batch.control:
                continue
            records: list[Message] = []
            for i, value in enumerate(batch.records):
                try:
                    records.append(read_record(value).message)
                except MetadataParseError as e:
                    self._skip(batch.base_offset + i, f"cannot decode: {e}")
            try:
                self.loader.load_batch(batch.base_offset, batch.epoch, self.time_ms(), records)
            except MetadataReplayError as e:
                self._skip(batch.base_offset, f"cannot replay: {e}")
        if not self.caught_up:
            hw = self.high_watermark()
            if hw is not None and self.last_committed_offset + 1 < hw:
                return
            self.caught_up = True
            log.info("Caught up with the metadata log at offset %d", self.last_committed_offset)
        published = self.loader.image
        self.loader.maybe_flush()
        if self.snapshots is not None and self.loader.image is not published:
            num_bytes, self._bytes_since_publish = self._bytes_since_publish, 0
            self.snapshots.on_log_delta(self.loader.image, num_bytes)

    def handle_load_snapshot(self, snapshot_id: SnapshotId, data: bytes) -> None:
        """The latest snapshot, when the log no longer holds what it replaced (or this broker
        starts on a log that begins with it): its records make a whole new image, published
        as a delta on the empty image (the publisher then reloads everything)."""
        try:
            snapshot = read_snapshot(data, self._read_or_none)
        except CorruptRecord as e:
            self._skip(snapshot_id.end_offset - 1, f"cannot read snapshot {snapshot_id}: {e}")
            return
        records = [r for r in snapshot.records if r is not None]
        delta = MetadataDelta(EMPTY_IMAGE)
        for record in records:
            try:
                delta.replay(record)
            except MetadataReplayError as e:
                self._skip(snapshot_id.end_offset - 1, f"cannot replay a record of snapshot {snapshot_id}: {e}")
        provenance = MetadataProvenance(snapshot_id.end_offset - 1, snapshot_id.epoch, self.time_ms())
        image = delta.apply(provenance)
        log.info("Loaded snapshot %s: %d records", snapshot_id, len(records))
        self.last_committed_offset = max(self.last_committed_offset, snapshot_id.end_offset - 1)
        publish = self.loader.publish
        self.loader = MetadataBatchLoader(image, publish)
        publish(delta, image)
        self._bytes_since_publish = 0
        if self.snapshots is not None:
            self.snapshots.on_snapshot_loaded(image)

    def _read_or_none(self, value: bytes) -> Message | None:
        try:
            return read_record(value).message
        except MetadataParseError as e:
            self._skip(-1, f"cannot decode a snapshot record: {e}")
            return None

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        self.leader = leader

    def _skip(self, offset: int, reason: str) -> None:
        self.skipped.append(SkippedRecord(offset, reason))
        log.error("Skipping the metadata record at offset %d: %s", offset, reason)
